/* Shape inference shared by the Tensor and Tile levels: numpy broadcasting,
 * reductions, matmul, windows (view/assemble), reshape, transpose, concat
 * and expand. Dynamic dims (PTO_DYN) are accepted wherever a run-time check
 * can still make the program valid. */
#include "pto/Dialect/Common.h"

#include "Support/Str.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

PtoResult pto_site_error(const PtoErrSite *site, const char *fmt, ...) {
  if (!site || !site->ctx) return PTO_FAILURE;
  PtoStr s;
  pto_str_init(&s);
  va_list ap;
  va_start(ap, fmt);
  pto_str_vprintf(&s, fmt, ap);
  va_end(ap);
  pto_emit_error(site->ctx, site->loc, "%s%s", site->prefix ? site->prefix : "",
                 s.data ? s.data : "");
  pto_str_release(&s);
  return PTO_FAILURE;
}

PtoDtypeClass pto_dtype_class(const PtoType *t) {
  if (!t) return PTO_DTYPE_UNSUPPORTED;
  switch (pto_type_kind(t)) {
  case PTO_TYPE_FLOAT:
    switch (pto_type_float_kind(t)) {
    case PTO_F64: return PTO_DTYPE_UNSUPPORTED;
    case PTO_F8E4M3FN:
    case PTO_F8E5M2:
    case PTO_F8E8M0FNU: return PTO_DTYPE_F8;
    default: return PTO_DTYPE_FLOAT;
    }
  case PTO_TYPE_INTEGER:
    /* ui8..ui32 compute as the integers they hold (every value fits the
     * int64 the kernels work in), ui64 as its bit pattern there (the
     * kernels order, divide and convert it unsigned); si* are not
     * supported */
    if (pto_type_int_signedness(t) == PTO_UNSIGNED) {
      unsigned w = pto_type_int_width(t);
      return w == 8 || w == 16 || w == 32 || w == 64 ? PTO_DTYPE_INT
                                                     : PTO_DTYPE_UNSUPPORTED;
    }
    if (pto_type_int_signedness(t) != PTO_SIGNLESS) return PTO_DTYPE_UNSUPPORTED;
    switch (pto_type_int_width(t)) {
    case 1: return PTO_DTYPE_BOOL;
    case 8: case 16: case 32: case 64: return PTO_DTYPE_INT;
    default: return PTO_DTYPE_UNSUPPORTED;
    }
  default:
    return PTO_DTYPE_UNSUPPORTED;
  }
}

PtoResult pto_shape_init(PtoShape *s, const int64_t *dims, unsigned rank) {
  if (rank > PTO_MAX_RANK) return PTO_FAILURE;
  s->rank = rank;
  if (rank) memcpy(s->dims, dims, rank * sizeof *dims);
  return PTO_SUCCESS;
}

PtoResult pto_shape_from_tensor(const PtoType *t, PtoShape *s) {
  if (!t || !pto_type_is_tensor(t)) return PTO_FAILURE;
  return pto_shape_init(s, pto_type_tensor_shape(t), pto_type_tensor_rank(t));
}

PtoType *pto_shape_tensor(PtoContext *ctx, const PtoShape *s, PtoType *elem) {
  return pto_type_tensor(ctx, s->dims, s->rank, elem);
}

bool pto_shape_equal(const PtoShape *a, const PtoShape *b) {
  return a->rank == b->rank &&
         (a->rank == 0 || memcmp(a->dims, b->dims, a->rank * sizeof a->dims[0]) == 0);
}

bool pto_shape_is_static(const PtoShape *s) {
  for (unsigned i = 0; i < s->rank; i++)
    if (s->dims[i] == PTO_DYN) return false;
  return true;
}

const char *pto_dim_format(int64_t d, char buf[24]) {
  if (d == PTO_DYN) return "?";
  snprintf(buf, 24, "%" PRId64, d);
  return buf;
}

char *pto_shape_format(const PtoShape *s, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = 0;
  for (unsigned i = 0; i < s->rank && n < cap; i++) {
    char d[24];
    int w = snprintf(buf + n, cap - n, "%s%s", i ? "x" : "", pto_dim_format(s->dims[i], d));
    if (w < 0) break;
    n += (size_t)w;
  }
  return buf;
}

/* Product of the static dims; false on overflow. */
static bool static_numel(const PtoShape *s, int64_t *out) {
  int64_t n = 1;
  for (unsigned i = 0; i < s->rank; i++) {
    int64_t d = s->dims[i];
    if (d == PTO_DYN) continue;
    if (d != 0 && n > INT64_MAX / d) return false;
    n *= d;
  }
  *out = n;
  return true;
}

PtoResult pto_shape_normalize_dim(const PtoErrSite *site, const char *what,
                                  int64_t dim, unsigned rank, unsigned *out) {
  if (rank == 0)
    return pto_site_error(site, "%s is %" PRId64 ", out of range for rank 0",
                          what, dim);
  int64_t r = (int64_t)rank;
  if (dim < -r || dim >= r)
    return pto_site_error(site,
                          "%s is %" PRId64 ", out of range [%" PRId64
                          ", %" PRId64 "] for rank %u",
                          what, dim, -r, r - 1, rank);
  *out = (unsigned)(dim < 0 ? dim + r : dim);
  return PTO_SUCCESS;
}

/* One broadcast dim; false when incompatible. */
static bool broadcast_dim(int64_t a, int64_t b, int64_t *out) {
  if (a == b) *out = a;
  else if (a == 1) *out = b;
  else if (b == 1) *out = a;
  else if (a == PTO_DYN) *out = b;
  else if (b == PTO_DYN) *out = a;
  else return false;
  return true;
}

PtoResult pto_shape_broadcast(const PtoErrSite *site, const char *what,
                              const PtoShape *a, const char *an,
                              const PtoShape *b, const char *bn,
                              PtoShape *out) {
  unsigned r = a->rank > b->rank ? a->rank : b->rank;
  PtoShape res;
  res.rank = r;
  for (unsigned i = 0; i < r; i++) {
    int64_t da = i + a->rank >= r ? a->dims[i + a->rank - r] : 1;
    int64_t db = i + b->rank >= r ? b->dims[i + b->rank - r] : 1;
    if (!broadcast_dim(da, db, &res.dims[i])) {
      char x[24], y[24];
      return pto_site_error(site,
                            "%s are not broadcast-compatible: '%s' and '%s' "
                            "(dim %u: %s vs %s)",
                            what, an, bn, i, pto_dim_format(da, x),
                            pto_dim_format(db, y));
    }
  }
  *out = res;
  return PTO_SUCCESS;
}

bool pto_shape_broadcasts_to(const PtoShape *from, const PtoShape *to) {
  PtoShape r;
  if (pto_shape_broadcast(NULL, "", from, "", to, "", &r)) return false;
  return pto_shape_equal(&r, to);
}

void pto_shape_reduce(const PtoShape *in, unsigned dim, bool keepdim,
                      PtoShape *out) {
  PtoShape r = *in;
  if (keepdim) {
    r.dims[dim] = 1;
  } else {
    for (unsigned i = dim; i + 1 < in->rank; i++) r.dims[i] = in->dims[i + 1];
    r.rank--;
  }
  *out = r;
}

void pto_shape_replace_dim(const PtoShape *in, unsigned dim, int64_t size,
                           PtoShape *out) {
  *out = *in;
  out->dims[dim] = size;
}

PtoResult pto_shape_matmul(const PtoErrSite *site, const PtoShape *a,
                           const char *an, bool a_trans, const PtoShape *b,
                           const char *bn, bool b_trans, PtoShape *out) {
  unsigned ra = a->rank, rb = b->rank;
  int64_t m = a->dims[ra - (a_trans ? 1 : 2)];
  int64_t ka = a->dims[ra - (a_trans ? 2 : 1)];
  int64_t kb = b->dims[rb - (b_trans ? 1 : 2)];
  int64_t n = b->dims[rb - (b_trans ? 2 : 1)];
  if (ka != PTO_DYN && kb != PTO_DYN && ka != kb)
    return pto_site_error(site, "contracting dims differ: %" PRId64 " vs %" PRId64,
                          ka, kb);
  PtoShape ba, bb, res;
  pto_shape_init(&ba, a->dims, ra - 2);
  pto_shape_init(&bb, b->dims, rb - 2);
  if (pto_shape_broadcast(site, "batch dims", &ba, an, &bb, bn, &res))
    return PTO_FAILURE;
  res.dims[res.rank++] = m;
  res.dims[res.rank++] = n;
  *out = res;
  return PTO_SUCCESS;
}

static void format_ints(PtoStr *s, const int64_t *v, unsigned n) {
  pto_str_putc(s, '[');
  for (unsigned i = 0; i < n; i++) {
    if (i) pto_str_puts(s, ", ");
    pto_str_int(s, v[i]);
  }
  pto_str_putc(s, ']');
}

PtoResult pto_shape_transpose(const PtoErrSite *site, const PtoShape *in,
                              const int64_t *perm, unsigned nperm,
                              PtoShape *out) {
  bool seen[PTO_MAX_RANK] = {false};
  bool ok = nperm == in->rank;
  for (unsigned i = 0; ok && i < nperm; i++) {
    if (perm[i] < 0 || perm[i] >= (int64_t)in->rank || seen[perm[i]]) ok = false;
    else seen[perm[i]] = true;
  }
  if (!ok) {
    PtoStr s;
    pto_str_init(&s);
    format_ints(&s, perm, nperm);
    pto_site_error(site, "attribute 'perm' must be a permutation of [0, %u), got %s",
                   in->rank, s.data);
    pto_str_release(&s);
    return PTO_FAILURE;
  }
  PtoShape r;
  r.rank = in->rank;
  for (unsigned i = 0; i < nperm; i++) r.dims[i] = in->dims[perm[i]];
  *out = r;
  return PTO_SUCCESS;
}

PtoResult pto_shape_reshape_check(const PtoErrSite *site, const PtoShape *in,
                                  const PtoShape *out, const char *outn) {
  unsigned ndyn = 0;
  for (unsigned i = 0; i < out->rank; i++) ndyn += out->dims[i] == PTO_DYN;
  if (ndyn > 1)
    return pto_site_error(site, "result may have at most one dynamic dim");
  if (!pto_shape_is_static(in)) return PTO_SUCCESS;
  int64_t ni, no;
  if (!static_numel(in, &ni) || !static_numel(out, &no))
    return pto_site_error(site, "number of elements overflows 64 bits");
  if (ndyn == 0 && ni != no)
    return pto_site_error(site,
                          "reshape changes the number of elements: %" PRId64
                          " vs %" PRId64,
                          ni, no);
  if (ndyn == 1 && (no == 0 || ni % no != 0))
    return pto_site_error(site, "cannot reshape %" PRId64 " elements into '%s'",
                          ni, outn);
  return PTO_SUCCESS;
}

PtoResult pto_shape_window_check(const PtoErrSite *site, const PtoShape *src,
                                 const int64_t *offsets, unsigned noffsets,
                                 const PtoShape *win) {
  if (noffsets != src->rank)
    return pto_site_error(site, "expected %u offsets, got %u", src->rank,
                          noffsets);
  for (unsigned i = 0; i < noffsets; i++)
    if (offsets[i] != PTO_DYN && offsets[i] < 0)
      return pto_site_error(site, "offset #%u must be non-negative, got %" PRId64,
                            i, offsets[i]);
  for (unsigned i = 0; i < src->rank; i++) {
    int64_t s = src->dims[i], w = win->dims[i], o = offsets[i];
    if (s == PTO_DYN || w == PTO_DYN) continue;
    if (w > s)
      return pto_site_error(site,
                            "window out of bounds in dim %u: size %" PRId64
                            " > %" PRId64,
                            i, w, s);
    if (o != PTO_DYN && o > s - w)
      return pto_site_error(site,
                            "window out of bounds in dim %u: offset %" PRId64
                            " + size %" PRId64 " > %" PRId64,
                            i, o, w, s);
  }
  return PTO_SUCCESS;
}

PtoResult pto_shape_concat(const PtoErrSite *site, const PtoShape *in,
                           unsigned n, unsigned dim, PtoShape *out) {
  PtoShape r = in[0];
  for (unsigned k = 1; k < n; k++) {
    if (in[k].rank != r.rank)
      return pto_site_error(site, "operand #%u has rank %u, expected %u", k,
                            in[k].rank, r.rank);
    for (unsigned i = 0; i < r.rank; i++) {
      int64_t a = r.dims[i], b = in[k].dims[i];
      if (i == dim) {
        if (a == PTO_DYN || b == PTO_DYN) r.dims[i] = PTO_DYN;
        else if (b > INT64_MAX - a)
          return pto_site_error(site, "concatenated dim %u overflows 64 bits", i);
        else r.dims[i] = a + b;
      } else if (a == PTO_DYN) {
        r.dims[i] = b;
      } else if (b != PTO_DYN && a != b) {
        return pto_site_error(site,
                              "operand #%u dim %u is %" PRId64 ", expected %" PRId64,
                              k, i, b, a);
      }
    }
  }
  *out = r;
  return PTO_SUCCESS;
}

PtoResult pto_shape_expand_check(const PtoErrSite *site, const PtoShape *in,
                                 const PtoShape *out) {
  if (in->rank > out->rank)
    return pto_site_error(site, "cannot expand rank %u to rank %u", in->rank,
                          out->rank);
  unsigned shift = out->rank - in->rank;
  for (unsigned i = 0; i < in->rank; i++) {
    int64_t a = in->dims[i], b = out->dims[i + shift];
    if (a == 1 || a == PTO_DYN || a == b) continue;
    char x[24];
    return pto_site_error(site, "cannot expand dim %u of size %" PRId64 " to %s",
                          i, a, pto_dim_format(b, x));
  }
  return PTO_SUCCESS;
}
