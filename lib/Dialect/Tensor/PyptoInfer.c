/* Checks and result-type inference of every pypto op. The verifier and the
 * builder both run these, so an op that builds is an op that verifies and
 * the messages are the same either way. Shape rules come from
 * lib/Dialect/Common; this file adds the dtype and attribute rules. */
#include "PyptoInternal.h"

#include "Support/Alloc.h"
#include "Support/Str.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void pypto_infer_init(PyInfer *in, PtoContext *ctx, PtoLoc *loc, PtoPyptoOp id,
                      PtoType *const *opnd, unsigned nopnd,
                      const PtoNamedAttr *attrs, unsigned nattrs) {
  memset(in, 0, sizeof *in);
  in->ctx = ctx;
  in->id = id;
  snprintf(in->prefix, sizeof in->prefix, "'%s' op ", pto_pypto_op_name(id));
  in->site.ctx = ctx;
  in->site.loc = loc;
  in->site.prefix = in->prefix;
  in->opnd = opnd;
  in->nopnd = nopnd;
  in->attrs = attrs;
  in->nattrs = nattrs;
}

void pypto_infer_done(PyInfer *in) {
  for (unsigned i = 0; i < in->nstrs; i++) pto_free(in->strs[i]);
  in->nstrs = 0;
}

const char *pypto_tstr(PyInfer *in, PtoType *t) {
  if (in->nstrs == PTO_ARRAY_SIZE(in->strs)) {
    pto_free(in->strs[0]);
    memmove(in->strs, in->strs + 1, sizeof in->strs - sizeof in->strs[0]);
    in->nstrs--;
  }
  return in->strs[in->nstrs++] = pto_type_to_string(t);
}

#define ERR(...) pto_site_error(&in->site, __VA_ARGS__)

PtoAttr *pypto_infer_attr(const PyInfer *in, const char *name) {
  for (unsigned i = 0; i < in->nattrs; i++)
    if (strcmp(pto_ident_str(in->attrs[i].name), name) == 0)
      return in->attrs[i].value;
  return NULL;
}

/* ---- attributes ---- */

static PtoResult attr_int(PyInfer *in, const char *name, bool required,
                          int64_t dflt, int64_t *out) {
  PtoAttr *a = pypto_infer_attr(in, name);
  if (!a) {
    if (required) return ERR("requires attribute '%s'", name);
    *out = dflt;
    return PTO_SUCCESS;
  }
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || pto_attr_is_bool(a))
    return ERR("attribute '%s' must be an integer", name);
  *out = pto_attr_int_value(a);
  return PTO_SUCCESS;
}

/* Unit attribute or boolean; absent is false. */
static PtoResult attr_flag(PyInfer *in, const char *name, bool *out) {
  PtoAttr *a = pypto_infer_attr(in, name);
  *out = false;
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_UNIT) *out = true;
  else if (pto_attr_kind(a) == PTO_ATTR_INTEGER && pto_attr_is_bool(a))
    *out = pto_attr_int_value(a) != 0;
  else return ERR("attribute '%s' must be a unit or boolean attribute", name);
  return PTO_SUCCESS;
}

static PtoResult attr_bool(PyInfer *in, const char *name, bool dflt, bool *out) {
  PtoAttr *a = pypto_infer_attr(in, name);
  *out = dflt;
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) != PTO_ATTR_INTEGER || !pto_attr_is_bool(a))
    return ERR("attribute '%s' must be a boolean", name);
  *out = pto_attr_int_value(a) != 0;
  return PTO_SUCCESS;
}

/* A string attribute among `values` (NULL-terminated); `msg` is the error. */
static PtoResult attr_enum(PyInfer *in, const char *name,
                           const char *const *values, const char *msg) {
  PtoAttr *a = pypto_infer_attr(in, name);
  if (!a) return PTO_SUCCESS;
  if (pto_attr_kind(a) == PTO_ATTR_STRING)
    for (unsigned i = 0; values[i]; i++)
      if (strcmp(pto_attr_str(a), values[i]) == 0) return PTO_SUCCESS;
  return ERR("attribute '%s' must be %s", name, msg);
}

/* The `dim` attribute normalised against `rank`. */
static PtoResult attr_dim(PyInfer *in, bool required, int64_t dflt,
                          unsigned rank, unsigned *out) {
  int64_t d;
  if (attr_int(in, "dim", required, dflt, &d)) return PTO_FAILURE;
  return pto_shape_normalize_dim(&in->site, "attribute 'dim'", d, rank, out);
}

/* Attributes each kind defines (besides the tuning attributes). */
static const char *const *kind_attrs(PtoPyptoOp id) {
  static const char *const none[] = {NULL};
  static const char *const gelu[] = {"approximate", NULL};
  static const char *const cast[] = {"mode", "satmode", NULL};
  static const char *const reduce[] = {"dim", "keepdim", NULL};
  static const char *const matmul[] = {"a_trans", "b_trans", "acc_dtype", NULL};
  static const char *const window[] = {"static_offsets", NULL};
  static const char *const perm[] = {"perm", NULL};
  static const char *const dim[] = {"dim", NULL};
  static const char *const topk[] = {"k", "dim", "largest", NULL};
  static const char *const eps[] = {"eps", NULL};
  if (id == PTO_PYPTO_GELU) return gelu;
  switch (pto_pypto_kind(id)) {
  case PTO_PYPTO_KIND_CAST: return cast;
  case PTO_PYPTO_KIND_REDUCE:
  case PTO_PYPTO_KIND_ARGREDUCE: return reduce;
  case PTO_PYPTO_KIND_MATMUL: return matmul;
  case PTO_PYPTO_KIND_VIEW:
  case PTO_PYPTO_KIND_ASSEMBLE: return window;
  case PTO_PYPTO_KIND_TRANSPOSE: return perm;
  case PTO_PYPTO_KIND_CONCAT:
  case PTO_PYPTO_KIND_DIM:
  case PTO_PYPTO_KIND_GATHER:
  case PTO_PYPTO_KIND_INDEX_SELECT:
  case PTO_PYPTO_KIND_SCATTER:
  case PTO_PYPTO_KIND_SOFTMAX: return dim;
  case PTO_PYPTO_KIND_TOPK: return topk;
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM: return eps;
  default: return none;
  }
}

static PtoResult check_known_attrs(PyInfer *in) {
  const char *const *known = kind_attrs(in->id);
  for (unsigned i = 0; i < in->nattrs; i++) {
    const char *name = pto_ident_str(in->attrs[i].name);
    if (strchr(name, '.') || pto_tuning_is_attr_name(name)) continue;
    bool ok = false;
    for (unsigned k = 0; known[k] && !ok; k++) ok = strcmp(known[k], name) == 0;
    if (ok) continue;
    PtoStr s;
    pto_str_init(&s);
    for (unsigned k = 0; known[k]; k++) pto_str_printf(&s, "%s, ", known[k]);
    pto_str_puts(&s, "vec_tile, cube_tile, label");
    ERR("unknown attribute '%s'; '%s' accepts %s", name,
        pto_pypto_op_name(in->id), s.data);
    pto_str_release(&s);
    return PTO_FAILURE;
  }
  return PTO_SUCCESS;
}

/* ---- operands and results ---- */

/* A valid tensor type: supported dtype, rank, no zero-sized dim. `what` is
 * "operand" or "result". */
static PtoResult check_tensor(PyInfer *in, const char *what, unsigned i,
                              PtoType *t, PtoShape *s) {
  if (!pto_type_is_tensor(t))
    return ERR("%s #%u must be a tensor, got '%s'", what, i, pypto_tstr(in, t));
  PtoType *e = pto_type_tensor_elem(t);
  if (!pto_elem_is_supported(e))
    return ERR("%s #%u has unsupported element type '%s'", what, i,
               pypto_tstr(in, e));
  if (pto_shape_from_tensor(t, s))
    return ERR("%s #%u has rank %u; at most %u dims are supported", what, i,
               pto_type_tensor_rank(t), PTO_MAX_RANK);
  for (unsigned d = 0; d < s->rank; d++)
    if (s->dims[d] == 0) return ERR("%s #%u has a zero-sized dim", what, i);
  return PTO_SUCCESS;
}

static PtoResult opnd_tensor(PyInfer *in, unsigned i, PtoShape *s,
                             PtoType **elem) {
  if (check_tensor(in, "operand", i, in->opnd[i], s)) return PTO_FAILURE;
  if (elem) *elem = pto_type_tensor_elem(in->opnd[i]);
  return PTO_SUCCESS;
}

static PtoResult opnd_min_rank(PyInfer *in, unsigned i, const PtoShape *s,
                               unsigned r) {
  if (s->rank < r) return ERR("operand #%u must have rank >= %u", i, r);
  return PTO_SUCCESS;
}

static PtoResult want_tensor(PyInfer *in, unsigned r, PtoShape *s) {
  return check_tensor(in, "result", r, in->want[r], s);
}

static const char *dtypes_text(PtoPyptoDtypes c) {
  switch (c) {
  case PTO_PYPTO_DTYPES_FLOAT: return "float values (f32, f16, bf16)";
  case PTO_PYPTO_DTYPES_NUMERIC:
    return "numeric values (f32, f16, bf16, i8, i16, i32, i64)";
  case PTO_PYPTO_DTYPES_DEQUANT: return "i8 or i32 values";
  default: return "supported values";
  }
}

static bool dtype_in(PtoType *e, PtoPyptoDtypes c) {
  switch (c) {
  case PTO_PYPTO_DTYPES_FLOAT: return pto_elem_is_float(e);
  case PTO_PYPTO_DTYPES_NUMERIC: return pto_elem_is_numeric(e);
  case PTO_PYPTO_DTYPES_MATMUL:
    return pto_elem_is_float(e) || (pto_elem_is_int(e) && pto_type_int_width(e) == 8);
  case PTO_PYPTO_DTYPES_DEQUANT:
    return pto_elem_is_int(e) &&
           (pto_type_int_width(e) == 8 || pto_type_int_width(e) == 32);
  default: return pto_elem_is_supported(e);
  }
}

static PtoResult opnd_class(PyInfer *in, unsigned i, PtoPyptoDtypes c) {
  PtoType *t = in->opnd[i];
  PtoType *e = pto_type_is_tensor(t) ? pto_type_tensor_elem(t) : t;
  if (!dtype_in(e, c))
    return ERR("operand #%u must be a tensor of %s, got '%s'", i, dtypes_text(c),
               pypto_tstr(in, t));
  return PTO_SUCCESS;
}

/* A tensor or a scalar of a supported dtype; a scalar has rank 0. */
static PtoResult opnd_tensor_or_scalar(PyInfer *in, unsigned i, PtoShape *s,
                                       PtoType **elem) {
  PtoType *t = in->opnd[i];
  if (pto_type_is_tensor(t)) return opnd_tensor(in, i, s, elem);
  if (!pto_elem_is_supported(t))
    return ERR("operand #%u has unsupported element type '%s'", i,
               pypto_tstr(in, t));
  s->rank = 0;
  *elem = t;
  return PTO_SUCCESS;
}

static PtoResult same_elem(PyInfer *in, PtoType *a, PtoType *b) {
  if (a != b)
    return ERR("operand element types differ: '%s' vs '%s'", pypto_tstr(in, a),
               pypto_tstr(in, b));
  return PTO_SUCCESS;
}

static PtoResult opnd_index(PyInfer *in, unsigned first) {
  for (unsigned i = first; i < in->nopnd; i++)
    if (pto_type_kind(in->opnd[i]) != PTO_TYPE_INDEX)
      return ERR("operand #%u must be of type 'index', got '%s'", i,
                 pypto_tstr(in, in->opnd[i]));
  return PTO_SUCCESS;
}

/* Index tensors of gather / index_select / scatter_update. */
static PtoResult opnd_indices(PyInfer *in, unsigned i, PtoShape *s) {
  PtoType *e;
  if (opnd_tensor(in, i, s, &e)) return PTO_FAILURE;
  if (!pto_elem_is_int(e) ||
      (pto_type_int_width(e) != 32 && pto_type_int_width(e) != 64))
    return ERR("operand #%u must be a tensor of i32 or i64 indices, got '%s'", i,
               pypto_tstr(in, in->opnd[i]));
  return PTO_SUCCESS;
}

static PtoType *tensor_of(PyInfer *in, const PtoShape *s, PtoType *elem) {
  return pto_shape_tensor(in->ctx, s, elem);
}

static void set_res(PyInfer *in, PtoType *t) { in->res[in->nres++] = t; }

/* The `?` dims of a result are given by index operands from `first`. */
static PtoResult dyn_sizes(PyInfer *in, const PtoShape *s, unsigned first) {
  unsigned ndyn = 0;
  for (unsigned d = 0; d < s->rank; d++) ndyn += s->dims[d] == PTO_DYN;
  if (in->nopnd - first != ndyn)
    return ERR("expected %u dynamic size operands, got %u", ndyn,
               in->nopnd - first);
  return opnd_index(in, first);
}

/* Two shapes agree where both are static. */
static bool compatible(const PtoShape *a, const PtoShape *b) {
  if (a->rank != b->rank) return false;
  for (unsigned i = 0; i < a->rank; i++)
    if (a->dims[i] != PTO_DYN && b->dims[i] != PTO_DYN && a->dims[i] != b->dims[i])
      return false;
  return true;
}

static PtoResult need_want(PyInfer *in, const char *battr) {
  if (!in->want[0]) return ERR("requires builder attribute '%s'", battr);
  return PTO_SUCCESS;
}

/* ---- per kind ---- */

static PtoResult infer_elementwise(PyInfer *in, PtoPyptoKind k) {
  PtoShape a, b;
  PtoType *ea, *eb;
  if (opnd_tensor(in, 0, &a, &ea)) return PTO_FAILURE;
  switch (k) {
  case PTO_PYPTO_KIND_UNARY:
    if (opnd_class(in, 0, pto_pypto_dtypes(in->id))) return PTO_FAILURE;
    if (in->id == PTO_PYPTO_GELU) {
      static const char *const v[] = {"none", "tanh", NULL};
      if (attr_enum(in, "approximate", v, "\"none\" or \"tanh\"")) return PTO_FAILURE;
    }
    set_res(in, in->opnd[0]);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_SCALAR:
    if (opnd_class(in, 0, pto_pypto_dtypes(in->id))) return PTO_FAILURE;
    if (in->opnd[1] != ea)
      return ERR("operand #1 must be a scalar of type '%s', got '%s'",
                 pypto_tstr(in, ea), pypto_tstr(in, in->opnd[1]));
    set_res(in, in->opnd[0]);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_BINARY:
    if (opnd_tensor(in, 1, &b, &eb) || same_elem(in, ea, eb) ||
        opnd_class(in, 0, pto_pypto_dtypes(in->id)))
      return PTO_FAILURE;
    break;
  default: /* COMPARE */
    if (opnd_tensor_or_scalar(in, 1, &b, &eb) || same_elem(in, ea, eb) ||
        opnd_class(in, 0, pto_pypto_dtypes(in->id)))
      return PTO_FAILURE;
    break;
  }
  PtoShape r;
  if (pto_shape_broadcast(&in->site, "operands", &a, pypto_tstr(in, in->opnd[0]),
                          &b, pypto_tstr(in, in->opnd[1]), &r))
    return PTO_FAILURE;
  set_res(in, tensor_of(in, &r, k == PTO_PYPTO_KIND_BINARY
                                    ? ea
                                    : pto_type_int(in->ctx, 1)));
  return PTO_SUCCESS;
}

static PtoResult infer_where(PyInfer *in) {
  PtoShape c, x, y, xy, r;
  PtoType *ec, *ex, *ey;
  if (opnd_tensor(in, 0, &c, &ec)) return PTO_FAILURE;
  if (ec != pto_type_int(in->ctx, 1))
    return ERR("operand #0 must be a tensor of i1 values, got '%s'",
               pypto_tstr(in, in->opnd[0]));
  if (opnd_tensor_or_scalar(in, 1, &x, &ex) ||
      opnd_tensor_or_scalar(in, 2, &y, &ey) || same_elem(in, ex, ey))
    return PTO_FAILURE;
  if (pto_shape_broadcast(&in->site, "operands", &x, pypto_tstr(in, in->opnd[1]),
                          &y, pypto_tstr(in, in->opnd[2]), &xy) ||
      pto_shape_broadcast(&in->site, "operands", &c, pypto_tstr(in, in->opnd[0]),
                          &xy, pypto_tstr(in, tensor_of(in, &xy, ex)), &r))
    return PTO_FAILURE;
  set_res(in, tensor_of(in, &r, ex));
  return PTO_SUCCESS;
}

static PtoResult infer_reduce(PyInfer *in, bool arg) {
  PtoShape s, r;
  PtoType *e;
  unsigned dim;
  bool keep;
  if (opnd_tensor(in, 0, &s, &e) || opnd_min_rank(in, 0, &s, 1) ||
      opnd_class(in, 0, PTO_PYPTO_DTYPES_NUMERIC) || attr_dim(in, true, 0, s.rank, &dim) ||
      attr_flag(in, "keepdim", &keep))
    return PTO_FAILURE;
  pto_shape_reduce(&s, dim, keep, &r);
  set_res(in, tensor_of(in, &r, arg ? pto_type_int(in->ctx, 32) : e));
  return PTO_SUCCESS;
}

static PtoResult infer_matmul(PyInfer *in) {
  PtoShape a, b, r;
  PtoType *ea, *eb;
  bool at, bt;
  if (opnd_tensor(in, 0, &a, &ea) || opnd_tensor(in, 1, &b, &eb) ||
      opnd_min_rank(in, 0, &a, 2) || opnd_min_rank(in, 1, &b, 2) ||
      same_elem(in, ea, eb))
    return PTO_FAILURE;
  if (!dtype_in(ea, PTO_PYPTO_DTYPES_MATMUL))
    return ERR("operands must be f32, f16, bf16 or i8 tensors, got '%s'",
               pypto_tstr(in, in->opnd[0]));
  if (attr_flag(in, "a_trans", &at) || attr_flag(in, "b_trans", &bt) ||
      pto_shape_matmul(&in->site, &a, pypto_tstr(in, in->opnd[0]), at, &b,
                       pypto_tstr(in, in->opnd[1]), bt, &r))
    return PTO_FAILURE;
  bool is_int = pto_elem_is_int(ea);
  PtoType *i32 = pto_type_int(in->ctx, 32), *f32 = pto_type_f32(in->ctx);
  PtoAttr *acc = pypto_infer_attr(in, "acc_dtype");
  if (acc) {
    if (pto_attr_kind(acc) != PTO_ATTR_TYPE)
      return ERR("attribute 'acc_dtype' must be a type");
    PtoType *t = pto_attr_type_value(acc);
    bool f16 = pto_type_is_float(ea) && pto_type_float_kind(ea) == PTO_F16;
    bool ok = is_int ? t == i32
                     : t == f32 || (f16 && t == pto_type_float(in->ctx, PTO_F16));
    if (!ok)
      return ERR("attribute 'acc_dtype' must be %s for %s operands",
                 is_int ? "'i32'" : f16 ? "'f32' or 'f16'" : "'f32'",
                 pypto_tstr(in, ea));
  }
  PtoType *out = is_int ? i32 : ea;
  if (in->want[0]) {
    PtoShape w;
    if (want_tensor(in, 0, &w)) return PTO_FAILURE;
    out = pto_type_tensor_elem(in->want[0]);
  } else if (in->want_elem) {
    out = in->want_elem;
  }
  if (is_int && out != i32)
    return ERR("result element type '%s' is not allowed for i8 operands; "
               "expected 'i32'",
               pypto_tstr(in, out));
  if (!is_int && !pto_elem_is_float(out))
    return ERR("result element type '%s' is not allowed for %s operands; "
               "expected 'f32', 'f16' or 'bf16'",
               pypto_tstr(in, out), pypto_tstr(in, ea));
  set_res(in, tensor_of(in, &r, out));
  return PTO_SUCCESS;
}

/* static_offsets of view/assemble, checked against the dynamic offset
 * operands from `first`. */
static PtoResult read_offsets(PyInfer *in, unsigned first, int64_t *offs,
                              unsigned *n) {
  PtoAttr *a = pypto_infer_attr(in, "static_offsets");
  if (!a) return ERR("requires attribute 'static_offsets'");
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY)
    return ERR("attribute 'static_offsets' must be an array of integers");
  unsigned cnt = pto_attr_array_size(a);
  if (cnt > PTO_MAX_RANK)
    return ERR("expected at most %u offsets, got %u", PTO_MAX_RANK, cnt);
  if (!pto_attr_get_i64_array(a, offs, PTO_MAX_RANK, n))
    return ERR("attribute 'static_offsets' must be an array of integers");
  unsigned ndyn = 0;
  for (unsigned i = 0; i < *n; i++) ndyn += offs[i] == PTO_DYN;
  if (in->nopnd - first != ndyn)
    return ERR("expected %u dynamic offset operands, got %u", ndyn,
               in->nopnd - first);
  return opnd_index(in, first);
}

static PtoResult infer_view(PyInfer *in) {
  PtoShape s, w;
  PtoType *e;
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (opnd_tensor(in, 0, &s, &e) || read_offsets(in, 1, offs, &n) ||
      need_want(in, "shape") || want_tensor(in, 0, &w))
    return PTO_FAILURE;
  if (!pto_shape_is_static(&w))
    return ERR("result sizes must be static, got '%s'", pypto_tstr(in, in->want[0]));
  PtoType *we = pto_type_tensor_elem(in->want[0]);
  if (we != e)
    return ERR("result element type '%s' differs from the source's '%s'",
               pypto_tstr(in, we), pypto_tstr(in, e));
  if (w.rank != s.rank)
    return ERR("result rank %u differs from the source rank %u", w.rank, s.rank);
  if (pto_shape_window_check(&in->site, &s, offs, n, &w)) return PTO_FAILURE;
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_assemble(PyInfer *in) {
  PtoShape v, y;
  PtoType *ev, *ey;
  int64_t offs[PTO_MAX_RANK];
  unsigned n;
  if (opnd_tensor(in, 0, &v, &ev) || opnd_tensor(in, 1, &y, &ey) ||
      read_offsets(in, 2, offs, &n))
    return PTO_FAILURE;
  if (ev != ey)
    return ERR("value element type '%s' differs from the destination's '%s'",
               pypto_tstr(in, ev), pypto_tstr(in, ey));
  if (v.rank != y.rank)
    return ERR("value rank %u differs from the destination rank %u", v.rank, y.rank);
  if (pto_shape_window_check(&in->site, &y, offs, n, &v)) return PTO_FAILURE;
  set_res(in, in->opnd[1]);
  return PTO_SUCCESS;
}

/* reshape / expand: the result type comes from `want`. */
static PtoResult infer_reshape_expand(PyInfer *in, bool expand) {
  PtoShape s, w;
  PtoType *e;
  if (opnd_tensor(in, 0, &s, &e) || need_want(in, "shape") ||
      want_tensor(in, 0, &w))
    return PTO_FAILURE;
  PtoType *we = pto_type_tensor_elem(in->want[0]);
  if (we != e)
    return ERR("result element type '%s' differs from the source's '%s'",
               pypto_tstr(in, we), pypto_tstr(in, e));
  if (expand) {
    if (pto_shape_expand_check(&in->site, &s, &w) || dyn_sizes(in, &w, 1))
      return PTO_FAILURE;
  } else if (pto_shape_reshape_check(&in->site, &s, &w,
                                     pypto_tstr(in, in->want[0]))) {
    return PTO_FAILURE;
  }
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_transpose(PyInfer *in) {
  PtoShape s, r;
  PtoType *e;
  if (opnd_tensor(in, 0, &s, &e)) return PTO_FAILURE;
  PtoAttr *a = pypto_infer_attr(in, "perm");
  if (!a) return ERR("requires attribute 'perm'");
  int64_t perm[PTO_MAX_RANK + 1];
  unsigned n;
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY ||
      (pto_attr_array_size(a) <= PTO_MAX_RANK &&
       !pto_attr_get_i64_array(a, perm, PTO_MAX_RANK, &n)))
    return ERR("attribute 'perm' must be an array of integers");
  if (pto_attr_array_size(a) > PTO_MAX_RANK)
    return ERR("attribute 'perm' must be a permutation of [0, %u)", s.rank);
  if (pto_shape_transpose(&in->site, &s, perm, n, &r)) return PTO_FAILURE;
  set_res(in, tensor_of(in, &r, e));
  return PTO_SUCCESS;
}

static PtoResult infer_concat(PyInfer *in) {
  if (in->nopnd == 0) return ERR("requires at least one operand");
  PtoShape *s = pto_malloc(in->nopnd * sizeof *s), r;
  PtoType *e0 = NULL, *e;
  PtoResult res = PTO_FAILURE;
  unsigned dim;
  for (unsigned i = 0; i < in->nopnd; i++) {
    if (opnd_tensor(in, i, &s[i], &e)) goto out;
    if (i == 0) e0 = e;
    else if (same_elem(in, e0, e)) goto out;
  }
  if (attr_dim(in, true, 0, s[0].rank, &dim) ||
      pto_shape_concat(&in->site, s, in->nopnd, dim, &r))
    goto out;
  set_res(in, tensor_of(in, &r, e0));
  res = PTO_SUCCESS;
out:
  pto_free(s);
  return res;
}

static PtoResult infer_fill(PyInfer *in, bool zeros) {
  PtoShape w;
  unsigned first = zeros ? 0 : 1;
  if (!zeros) {
    if (in->nopnd == 0 || pto_type_is_tensor(in->opnd[0]) ||
        pto_type_kind(in->opnd[0]) == PTO_TYPE_INDEX)
      return ERR("operand #0 must be a scalar, got '%s'",
                 in->nopnd ? pypto_tstr(in, in->opnd[0]) : "nothing");
    if (!pto_elem_is_supported(in->opnd[0]))
      return ERR("operand #0 has unsupported element type '%s'",
                 pypto_tstr(in, in->opnd[0]));
  }
  if (need_want(in, "shape") || want_tensor(in, 0, &w)) return PTO_FAILURE;
  PtoType *we = pto_type_tensor_elem(in->want[0]);
  if (!zeros && in->opnd[0] != we)
    return ERR("fill value type '%s' differs from the element type '%s'",
               pypto_tstr(in, in->opnd[0]), pypto_tstr(in, we));
  if (dyn_sizes(in, &w, first)) return PTO_FAILURE;
  set_res(in, in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_dim(PyInfer *in) {
  PtoShape s;
  unsigned d;
  if (opnd_tensor(in, 0, &s, NULL) || attr_dim(in, true, 0, s.rank, &d))
    return PTO_FAILURE;
  set_res(in, pto_type_index(in->ctx));
  return PTO_SUCCESS;
}

static PtoResult infer_indexing(PyInfer *in, PtoPyptoKind k) {
  PtoShape s, ix, r;
  PtoType *e;
  unsigned dim;
  if (opnd_tensor(in, 0, &s, &e) || opnd_indices(in, 1, &ix) ||
      attr_dim(in, true, 0, s.rank, &dim))
    return PTO_FAILURE;
  if (k == PTO_PYPTO_KIND_GATHER) {
    if (ix.rank != s.rank)
      return ERR("index rank %u differs from the input rank %u", ix.rank, s.rank);
    for (unsigned d = 0; d < s.rank; d++)
      if (d != dim && ix.dims[d] != PTO_DYN && s.dims[d] != PTO_DYN &&
          ix.dims[d] > s.dims[d])
        return ERR("index dim %u is %" PRId64 ", larger than the input's %" PRId64,
                   d, ix.dims[d], s.dims[d]);
    set_res(in, tensor_of(in, &ix, e));
    return PTO_SUCCESS;
  }
  if (ix.rank != 1)
    return ERR("index must be a 1-D tensor, got '%s'", pypto_tstr(in, in->opnd[1]));
  pto_shape_replace_dim(&s, dim, ix.dims[0], &r);
  if (k == PTO_PYPTO_KIND_INDEX_SELECT) {
    set_res(in, tensor_of(in, &r, e));
    return PTO_SUCCESS;
  }
  PtoShape src;
  PtoType *es;
  if (opnd_tensor(in, 2, &src, &es)) return PTO_FAILURE;
  if (es != e || !compatible(&src, &r))
    return ERR("src must have type '%s', got '%s'",
               pypto_tstr(in, tensor_of(in, &r, e)), pypto_tstr(in, in->opnd[2]));
  set_res(in, in->opnd[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_topk(PyInfer *in) {
  PtoShape s, r;
  PtoType *e;
  int64_t k;
  unsigned dim;
  bool largest;
  if (opnd_tensor(in, 0, &s, &e) || opnd_min_rank(in, 0, &s, 1) ||
      opnd_class(in, 0, PTO_PYPTO_DTYPES_NUMERIC) || attr_int(in, "k", true, 0, &k))
    return PTO_FAILURE;
  if (k <= 0) return ERR("attribute 'k' must be positive, got %" PRId64, k);
  if (attr_dim(in, false, -1, s.rank, &dim) ||
      attr_bool(in, "largest", true, &largest))
    return PTO_FAILURE;
  if (s.dims[dim] != PTO_DYN && k > s.dims[dim])
    return ERR("attribute 'k' (%" PRId64 ") exceeds dim %u of size %" PRId64, k,
               dim, s.dims[dim]);
  pto_shape_replace_dim(&s, dim, k, &r);
  set_res(in, tensor_of(in, &r, e));
  set_res(in, tensor_of(in, &r, pto_type_int(in->ctx, 32)));
  return PTO_SUCCESS;
}

static PtoResult infer_quant(PyInfer *in, bool quant) {
  PtoShape s, sc;
  PtoType *e, *es;
  if (opnd_tensor(in, 0, &s, &e)) return PTO_FAILURE;
  if (quant) {
    if (opnd_min_rank(in, 0, &s, 1) || opnd_class(in, 0, PTO_PYPTO_DTYPES_FLOAT))
      return PTO_FAILURE;
    set_res(in, tensor_of(in, &s, pto_type_int(in->ctx, 8)));
    pto_shape_replace_dim(&s, s.rank - 1, 1, &sc);
    set_res(in, tensor_of(in, &sc, pto_type_f32(in->ctx)));
    return PTO_SUCCESS;
  }
  if (opnd_class(in, 0, PTO_PYPTO_DTYPES_DEQUANT) || opnd_tensor(in, 1, &sc, &es))
    return PTO_FAILURE;
  if (es != pto_type_f32(in->ctx))
    return ERR("operand #1 must be a tensor of f32 values, got '%s'",
               pypto_tstr(in, in->opnd[1]));
  if (!pto_shape_broadcasts_to(&sc, &s))
    return ERR("scale '%s' does not broadcast to '%s'", pypto_tstr(in, in->opnd[1]),
               pypto_tstr(in, in->opnd[0]));
  PtoType *out = pto_type_f32(in->ctx);
  if (in->want[0]) {
    PtoShape w;
    if (want_tensor(in, 0, &w)) return PTO_FAILURE;
    out = pto_type_tensor_elem(in->want[0]);
  } else if (in->want_elem) {
    out = in->want_elem;
  }
  if (!pto_elem_is_float(out))
    return ERR("result element type '%s' must be f32, f16 or bf16",
               pypto_tstr(in, out));
  set_res(in, tensor_of(in, &s, out));
  return PTO_SUCCESS;
}

static PtoResult infer_norm(PyInfer *in, PtoPyptoKind k) {
  PtoShape s;
  PtoType *e;
  if (opnd_tensor(in, 0, &s, &e) || opnd_class(in, 0, PTO_PYPTO_DTYPES_FLOAT))
    return PTO_FAILURE;
  if (k == PTO_PYPTO_KIND_SOFTMAX) {
    unsigned d;
    if (attr_dim(in, true, 0, s.rank, &d)) return PTO_FAILURE;
    set_res(in, in->opnd[0]);
    return PTO_SUCCESS;
  }
  if (opnd_min_rank(in, 0, &s, 1)) return PTO_FAILURE;
  PtoShape g;
  pto_shape_init(&g, &s.dims[s.rank - 1], 1);
  static const char *const names[] = {"gamma", "beta"};
  for (unsigned i = 1; i < in->nopnd; i++) {
    PtoShape gi;
    PtoType *ei;
    if (opnd_tensor(in, i, &gi, &ei)) return PTO_FAILURE;
    if (ei != e || !compatible(&gi, &g))
      return ERR("%s must have type '%s', got '%s'", names[i - 1],
                 pypto_tstr(in, tensor_of(in, &g, e)), pypto_tstr(in, in->opnd[i]));
  }
  PtoAttr *eps = pypto_infer_attr(in, "eps");
  if (eps && (pto_attr_kind(eps) != PTO_ATTR_FLOAT || !(pto_attr_float_value(eps) >= 0)))
    return ERR("attribute 'eps' must be a non-negative float");
  set_res(in, in->opnd[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_cast(PyInfer *in) {
  static const char *const modes[] = {"rint", "round", "floor", "ceil", "trunc", NULL};
  static const char *const sat[] = {"on", "off", NULL};
  PtoShape s, w;
  if (opnd_tensor(in, 0, &s, NULL) ||
      attr_enum(in, "mode", modes,
                "one of \"rint\", \"round\", \"floor\", \"ceil\", \"trunc\"") ||
      attr_enum(in, "satmode", sat, "\"on\" or \"off\"") || need_want(in, "dtype") ||
      want_tensor(in, 0, &w))
    return PTO_FAILURE;
  set_res(in, tensor_of(in, &s, pto_type_tensor_elem(in->want[0])));
  return PTO_SUCCESS;
}

PtoResult pypto_infer(PyInfer *in) {
  in->nres = 0;
  if (pto_tuning_verify_attrs(&in->site, in->attrs, in->nattrs) ||
      check_known_attrs(in))
    return PTO_FAILURE;
  PtoPyptoKind k = pto_pypto_kind(in->id);
  switch (k) {
  case PTO_PYPTO_KIND_UNARY:
  case PTO_PYPTO_KIND_BINARY:
  case PTO_PYPTO_KIND_SCALAR:
  case PTO_PYPTO_KIND_COMPARE: return infer_elementwise(in, k);
  case PTO_PYPTO_KIND_CAST: return infer_cast(in);
  case PTO_PYPTO_KIND_WHERE: return infer_where(in);
  case PTO_PYPTO_KIND_REDUCE: return infer_reduce(in, false);
  case PTO_PYPTO_KIND_ARGREDUCE: return infer_reduce(in, true);
  case PTO_PYPTO_KIND_MATMUL: return infer_matmul(in);
  case PTO_PYPTO_KIND_VIEW: return infer_view(in);
  case PTO_PYPTO_KIND_ASSEMBLE: return infer_assemble(in);
  case PTO_PYPTO_KIND_RESHAPE: return infer_reshape_expand(in, false);
  case PTO_PYPTO_KIND_EXPAND: return infer_reshape_expand(in, true);
  case PTO_PYPTO_KIND_TRANSPOSE: return infer_transpose(in);
  case PTO_PYPTO_KIND_CONCAT: return infer_concat(in);
  case PTO_PYPTO_KIND_FULL: return infer_fill(in, false);
  case PTO_PYPTO_KIND_ZEROS: return infer_fill(in, true);
  case PTO_PYPTO_KIND_DIM: return infer_dim(in);
  case PTO_PYPTO_KIND_GATHER:
  case PTO_PYPTO_KIND_INDEX_SELECT:
  case PTO_PYPTO_KIND_SCATTER: return infer_indexing(in, k);
  case PTO_PYPTO_KIND_TOPK: return infer_topk(in);
  case PTO_PYPTO_KIND_QUANTIZE: return infer_quant(in, true);
  case PTO_PYPTO_KIND_DEQUANTIZE: return infer_quant(in, false);
  case PTO_PYPTO_KIND_SOFTMAX:
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM: return infer_norm(in, k);
  }
  return ERR("unknown op kind");
}

PtoResult pypto_infer_check_results(PyInfer *in) {
  for (unsigned i = 0; i < in->nres; i++) {
    if (in->want[i] == in->res[i]) continue;
    PtoShape s;
    if (pto_type_is_tensor(in->res[i]) && in->want[i] &&
        check_tensor(in, "result", i, in->want[i], &s))
      return PTO_FAILURE;
    return ERR("result #%u has type '%s' but the inferred type is '%s'", i,
               in->want[i] ? pypto_tstr(in, in->want[i]) : "nothing",
               pypto_tstr(in, in->res[i]));
  }
  return PTO_SUCCESS;
}
