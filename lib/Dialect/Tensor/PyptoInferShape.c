/* Result-type inference of the shape ops (view, assemble, reshape, expand,
 * transpose, concat, full, zeros, dim) and the indexing ops (gather,
 * index_select, scatter_update, topk). */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "Support/Alloc.h"

#include <inttypes.h>

/* A window `win` (of element type `we`) of `src` (element type `se`) at
 * `offs`; `wn` and `sn` name them in messages. */
static PtoResult check_window(PyInfer *in, const char *wn, PtoType *we,
                              const PtoShape *win, const char *sn, PtoType *se,
                              const PtoShape *src, const int64_t *offs, unsigned n) {
  if (we != se)
    return ERR("%s element type '%s' differs from the %s's '%s'", wn,
               pto_opcheck_tstr(&in->c, we), sn, pto_opcheck_tstr(&in->c, se));
  if (win->rank != src->rank)
    return ERR("%s rank %u differs from the %s rank %u", wn, win->rank, sn, src->rank);
  return pto_shape_window_check(&in->c.site, src, offs, n, win);
}

PtoResult pypto_infer_view(PyInfer *in) {
  PtoShape s, w;
  PtoType *e;
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pto_opcheck_offsets(&in->c, 1, offs, &n) ||
      pypto_need_want(in, PTO_ATTR_SHAPE) || pypto_want_tensor(in, 0, &w))
    return PTO_FAILURE;
  if (!pto_shape_is_static(&w))
    return ERR("result sizes must be static, got '%s'", pto_opcheck_tstr(&in->c, in->want[0]));
  if (check_window(in, "result", pto_type_tensor_elem(in->want[0]), &w, "source", e,
                   &s, offs, n))
    return PTO_FAILURE;
  pypto_set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

PtoResult pypto_infer_assemble(PyInfer *in) {
  PtoShape v, y;
  PtoType *ev, *ey;
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (pypto_opnd_tensor(in, 0, &v, &ev) || pypto_opnd_tensor(in, 1, &y, &ey) ||
      pto_opcheck_offsets(&in->c, 2, offs, &n))
    return PTO_FAILURE;
  if (check_window(in, "value", ev, &v, "destination", ey, &y, offs, n))
    return PTO_FAILURE;
  pypto_set_res(in, in->c.opnd[1]);
  return PTO_SUCCESS;
}

/* reshape / expand: the result type comes from `want`. */
PtoResult pypto_infer_reshape_expand(PyInfer *in, bool expand) {
  PtoShape s, w;
  PtoType *e;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_need_want(in, PTO_ATTR_SHAPE) ||
      pypto_want_tensor(in, 0, &w))
    return PTO_FAILURE;
  PtoType *we = pto_type_tensor_elem(in->want[0]);
  if (we != e)
    return ERR("result element type '%s' differs from the source's '%s'",
               pto_opcheck_tstr(&in->c, we), pto_opcheck_tstr(&in->c, e));
  if (expand) {
    if (pto_shape_expand_check(&in->c.site, &s, &w) || pto_opcheck_dyn_sizes(&in->c, &w, 1))
      return PTO_FAILURE;
  } else if (pto_shape_reshape_check(NULL, &s, &w, "") &&
             pto_shape_reshape_check(&in->c.site, &s, &w, pto_opcheck_tstr(&in->c, in->want[0]))) {
    return PTO_FAILURE;
  }
  pypto_set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

PtoResult pypto_infer_transpose(PyInfer *in) {
  PtoShape s, r;
  PtoType *e;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pto_opcheck_transpose(&in->c, &s, &r))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &r, e));
  return PTO_SUCCESS;
}

PtoResult pypto_infer_concat(PyInfer *in) {
  if (in->c.nopnd == 0) return ERR("requires at least one operand");
  PtoShape *s = pto_malloc(in->c.nopnd * sizeof *s), r;
  PtoType *e0 = NULL, *e;
  PtoResult res = PTO_FAILURE;
  unsigned dim;
  for (unsigned i = 0; i < in->c.nopnd; i++) {
    if (pypto_opnd_tensor(in, i, &s[i], &e)) goto out;
    if (i == 0) e0 = e;
    else if (pto_opcheck_same_elem(&in->c, e0, e)) goto out;
  }
  if (pto_opcheck_dim(&in->c, true, 0, s[0].rank, &dim) ||
      pto_shape_concat(&in->c.site, s, in->c.nopnd, dim, &r))
    goto out;
  pypto_set_res(in, pypto_tensor_of(in, &r, e0));
  res = PTO_SUCCESS;
out:
  pto_free(s);
  return res;
}

PtoResult pypto_infer_fill(PyInfer *in, bool zeros) {
  PtoShape w;
  unsigned first = zeros ? 0 : 1;
  if (!zeros) {
    if (in->c.nopnd == 0 || pto_type_is_tensor(in->c.opnd[0]) ||
        pto_type_kind(in->c.opnd[0]) == PTO_TYPE_INDEX)
      return ERR("operand #0 must be a scalar, got '%s'",
                 in->c.nopnd ? pto_opcheck_tstr(&in->c, in->c.opnd[0]) : "nothing");
    if (!pto_elem_is_supported(in->c.opnd[0]))
      return ERR("operand #0 has unsupported element type '%s'",
                 pto_opcheck_tstr(&in->c, in->c.opnd[0]));
  }
  if (pypto_need_want(in, PTO_ATTR_SHAPE) || pypto_want_tensor(in, 0, &w)) return PTO_FAILURE;
  PtoType *we = pto_type_tensor_elem(in->want[0]);
  if (!zeros && in->c.opnd[0] != we)
    return ERR("fill value type '%s' differs from the element type '%s'",
               pto_opcheck_tstr(&in->c, in->c.opnd[0]), pto_opcheck_tstr(&in->c, we));
  if (pto_opcheck_dyn_sizes(&in->c, &w, first)) return PTO_FAILURE;
  pypto_set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

/* uniform / normal: a static float result; `key` is required (any 64
 * bits), `counter` defaults to 0. */
PtoResult pypto_infer_random(PyInfer *in) {
  PtoShape w;
  int64_t v;
  if (pypto_need_want(in, PTO_ATTR_SHAPE) || pypto_want_tensor(in, 0, &w) ||
      pto_opcheck_int(&in->c, PTO_ATTR_KEY, true, 0, &v) ||
      pto_opcheck_int(&in->c, PTO_ATTR_COUNTER, false, 0, &v))
    return PTO_FAILURE;
  PtoType *we = pto_type_tensor_elem(in->want[0]);
  if (!pto_dtype_in_set(we, pto_pypto_dtypes(in->id)))
    return ERR("result must be a tensor of %s, got '%s'",
               pto_dtype_set_text(pto_pypto_dtypes(in->id)),
               pto_opcheck_tstr(&in->c, in->want[0]));
  for (unsigned d = 0; d < w.rank; d++)
    if (w.dims[d] == PTO_DYN)
      return ERR("result must have a static shape, got '%s'",
                 pto_opcheck_tstr(&in->c, in->want[0]));
  pypto_set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

PtoResult pypto_infer_dim(PyInfer *in) {
  PtoShape s;
  unsigned d;
  if (pypto_opnd_tensor(in, 0, &s, NULL) || pto_opcheck_dim(&in->c, true, 0, s.rank, &d))
    return PTO_FAILURE;
  pypto_set_res(in, pto_type_index(in->c.ctx));
  return PTO_SUCCESS;
}

/* load_scalar: one index per dim; static ones must lie inside static
 * dims (dynamic ones are checked when the op runs). */
PtoResult pypto_infer_load_scalar(PyInfer *in) {
  PtoShape s;
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (pypto_opnd_tensor(in, 0, &s, NULL) || pypto_opnd_class(in, 0, PTO_DTYPES_INT) ||
      pto_opcheck_offsets(&in->c, 1, offs, &n))
    return PTO_FAILURE;
  if (n != s.rank)
    return ERR("expected %u indices for a tensor of rank %u, got %u", s.rank, s.rank, n);
  for (unsigned d = 0; d < n; d++)
    if (offs[d] != PTO_DYN && (offs[d] < 0 || (s.dims[d] != PTO_DYN && offs[d] >= s.dims[d])))
      return s.dims[d] == PTO_DYN
                 ? ERR("index %" PRId64 " of dim %u is negative", offs[d], d)
                 : ERR("index %" PRId64 " is out of range for dim %u of size %" PRId64,
                       offs[d], d, s.dims[d]);
  pypto_set_res(in, pto_type_index(in->c.ctx));
  return PTO_SUCCESS;
}

PtoResult pypto_infer_bitcast(PyInfer *in) {
  PtoShape s, w;
  if (pypto_opnd_tensor(in, 0, &s, NULL) || pypto_need_want(in, PTO_ATTR_DTYPE) ||
      pypto_want_tensor(in, 0, &w) || pto_opcheck_bitcast(&in->c, in->c.opnd[0], in->want[0]))
    return PTO_FAILURE;
  pypto_set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

/* scatter (torch.scatter): index has the input's rank, no dim larger than
 * src's, and none but `dim` larger than the input's; src has the input's
 * element type. The result is the input's type. */
static PtoResult infer_scatter_elements(PyInfer *in, const PtoShape *s,
                                        const PtoShape *ix, PtoType *e,
                                        unsigned dim) {
  static const char *const reduce[] = {"add", "multiply", NULL};
  PtoShape src;
  PtoType *es;
  if (pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id)) ||
      pypto_opnd_tensor(in, 2, &src, &es) ||
      pto_opcheck_enum(&in->c, PTO_ATTR_REDUCE, reduce, "\"add\" or \"multiply\""))
    return PTO_FAILURE;
  if (es != e)
    return ERR("src element type '%s' differs from the input's '%s'",
               pto_opcheck_tstr(&in->c, es), pto_opcheck_tstr(&in->c, e));
  if (ix->rank != s->rank || src.rank != s->rank)
    return ERR("index rank %u and src rank %u must equal the input rank %u", ix->rank,
               src.rank, s->rank);
  for (unsigned d = 0; d < s->rank; d++) {
    if (ix->dims[d] == PTO_DYN) continue;
    if (d != dim && s->dims[d] != PTO_DYN && ix->dims[d] > s->dims[d])
      return ERR("index dim %u is %" PRId64 ", larger than the input's %" PRId64, d,
                 ix->dims[d], s->dims[d]);
    if (src.dims[d] != PTO_DYN && ix->dims[d] > src.dims[d])
      return ERR("index dim %u is %" PRId64 ", larger than src's %" PRId64, d,
                 ix->dims[d], src.dims[d]);
  }
  pypto_set_res(in, in->c.opnd[0]);
  return PTO_SUCCESS;
}

PtoResult pypto_infer_indexing(PyInfer *in, PtoPyptoKind k) {
  PtoShape s, ix, r;
  PtoType *e;
  unsigned dim;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_opnd_indices(in, 1, &ix) ||
      pto_opcheck_dim(&in->c, true, 0, s.rank, &dim))
    return PTO_FAILURE;
  if (in->id == PTO_PYPTO_SCATTER) return infer_scatter_elements(in, &s, &ix, e, dim);
  if (k == PTO_PYPTO_KIND_GATHER) {
    if (ix.rank != s.rank)
      return ERR("index rank %u differs from the input rank %u", ix.rank, s.rank);
    for (unsigned d = 0; d < s.rank; d++)
      if (d != dim && ix.dims[d] != PTO_DYN && s.dims[d] != PTO_DYN &&
          ix.dims[d] > s.dims[d])
        return ERR("index dim %u is %" PRId64 ", larger than the input's %" PRId64,
                   d, ix.dims[d], s.dims[d]);
    pypto_set_res(in, pypto_tensor_of(in, &ix, e));
    return PTO_SUCCESS;
  }
  if (ix.rank != 1)
    return ERR("index must be a 1-D tensor, got '%s'", pto_opcheck_tstr(&in->c, in->c.opnd[1]));
  pto_shape_replace_dim(&s, dim, ix.dims[0], &r);
  if (k == PTO_PYPTO_KIND_INDEX_SELECT) {
    pypto_set_res(in, pypto_tensor_of(in, &r, e));
    return PTO_SUCCESS;
  }
  PtoShape src;
  PtoType *es;
  bool ub;
  if (pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id)) ||
      pypto_opnd_tensor(in, 2, &src, &es) || pto_opcheck_flag(&in->c, PTO_ATTR_UB, &ub))
    return PTO_FAILURE;
  if (es != e || !pypto_compatible(&src, &r))
    return ERR("src must have type '%s', got '%s'",
               pto_opcheck_tstr(&in->c, pypto_tensor_of(in, &r, e)), pto_opcheck_tstr(&in->c, in->c.opnd[2]));
  pypto_set_res(in, in->c.opnd[0]);
  return PTO_SUCCESS;
}

PtoResult pypto_infer_topk(PyInfer *in) {
  PtoShape s, r;
  PtoType *e;
  int64_t k;
  unsigned dim;
  bool largest;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_opnd_min_rank(in, 0, &s, 1) ||
      pypto_opnd_class(in, 0, PTO_DTYPES_NUMERIC) || pto_opcheck_int(&in->c, PTO_ATTR_K, true, 0, &k))
    return PTO_FAILURE;
  if (k <= 0) return ERR("attribute 'k' must be positive, got %" PRId64, k);
  if (pto_opcheck_dim(&in->c, false, -1, s.rank, &dim) ||
      pto_opcheck_bool(&in->c, PTO_ATTR_LARGEST, true, &largest))
    return PTO_FAILURE;
  if (s.dims[dim] != PTO_DYN && k > s.dims[dim])
    return ERR("attribute 'k' (%" PRId64 ") exceeds dim %u of size %" PRId64, k,
               dim, s.dims[dim]);
  pto_shape_replace_dim(&s, dim, k, &r);
  pypto_set_res(in, pypto_tensor_of(in, &r, e));
  pypto_set_res(in, pypto_tensor_of(in, &r, pto_type_int(in->c.ctx, 32)));
  return PTO_SUCCESS;
}
