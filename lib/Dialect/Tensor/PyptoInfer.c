/* Result-type inference of the elementwise, reduction, matmul,
 * quantisation, composite and cast ops, and the dispatch over op kinds. The
 * verifier and the builder both run it, so an op that builds is an op that
 * verifies, with the same messages. Shape rules come from
 * lib/Dialect/Common; the shape and indexing ops are in
 * PyptoInferShape.c. */
#include "PyptoInternal.h"

#include "Dialect/Common/OpCheck.h"

#include "Support/Str.h"

#include <string.h>

/* numpy broadcast of two operands; the types are spelled (which costs)
 * only for the message. */
static PtoResult bcast(PyInfer *in, const PtoShape *a, PtoType *ta,
                       const PtoShape *b, PtoType *tb, PtoShape *out) {
  if (!pto_shape_broadcast(NULL, "", a, "", b, "", out)) return PTO_SUCCESS;
  return pto_shape_broadcast(&in->site, "operands", a, pypto_tstr(in, ta), b,
                             pypto_tstr(in, tb), out);
}

static PtoResult infer_elementwise(PyInfer *in, PtoPyptoKind k) {
  PtoShape a, b;
  PtoType *ea, *eb;
  if (pypto_opnd_tensor(in, 0, &a, &ea)) return PTO_FAILURE;
  switch (k) {
  case PTO_PYPTO_KIND_UNARY:
    if (pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id))) return PTO_FAILURE;
    if (in->id == PTO_PYPTO_GELU) {
      if (pto_check_gelu_attrs(&in->site, in->attrs, in->nattrs)) return PTO_FAILURE;
    }
    pypto_set_res(in, in->opnd[0]);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_SCALAR:
    if (pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id))) return PTO_FAILURE;
    if (in->opnd[1] != ea)
      return ERR("operand #1 must be a scalar of type '%s', got '%s'",
                 pypto_tstr(in, ea), pypto_tstr(in, in->opnd[1]));
    pypto_set_res(in, in->opnd[0]);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_BINARY:
    if (pypto_opnd_tensor(in, 1, &b, &eb) || pypto_same_elem(in, ea, eb) ||
        pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id)))
      return PTO_FAILURE;
    break;
  default: /* COMPARE */
    if (pypto_opnd_tensor_or_scalar(in, 1, &b, &eb) || pypto_same_elem(in, ea, eb) ||
        pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id)))
      return PTO_FAILURE;
    break;
  }
  PtoShape r;
  if (bcast(in, &a, in->opnd[0], &b, in->opnd[1], &r))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &r, k == PTO_PYPTO_KIND_BINARY
                                    ? ea
                                    : pto_type_int(in->ctx, 1)));
  return PTO_SUCCESS;
}

/* The result element type of ops whose shape follows from the operands but
 * whose dtype is chosen: the op's result type, the builder's `dtype`, or
 * `dflt`. */
static PtoResult result_elem(PyInfer *in, PtoType *dflt, PtoType **out) {
  PtoShape w;
  *out = dflt;
  if (in->want[0]) {
    if (pypto_want_tensor(in, 0, &w)) return PTO_FAILURE;
    *out = pto_type_tensor_elem(in->want[0]);
  } else if (in->want_elem) {
    *out = in->want_elem;
  }
  return PTO_SUCCESS;
}

static PtoResult infer_where(PyInfer *in) {
  PtoShape c, x, y, xy, r;
  PtoType *ec, *ex, *ey;
  if (pypto_opnd_tensor(in, 0, &c, &ec)) return PTO_FAILURE;
  if (ec != pto_type_int(in->ctx, 1))
    return ERR("operand #0 must be a tensor of i1 values, got '%s'",
               pypto_tstr(in, in->opnd[0]));
  if (pypto_opnd_tensor_or_scalar(in, 1, &x, &ex) ||
      pypto_opnd_tensor_or_scalar(in, 2, &y, &ey) || pypto_same_elem(in, ex, ey))
    return PTO_FAILURE;
  if (bcast(in, &x, in->opnd[1], &y, in->opnd[2], &xy) ||
      bcast(in, &c, in->opnd[0], &xy, pypto_tensor_of(in, &xy, ex), &r))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &r, ex));
  return PTO_SUCCESS;
}

static PtoResult infer_reduce(PyInfer *in, bool arg) {
  PtoShape s, r;
  PtoType *e;
  unsigned dim;
  bool keep;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_opnd_min_rank(in, 0, &s, 1) ||
      pypto_opnd_class(in, 0, PTO_PYPTO_DTYPES_NUMERIC) || pypto_attr_dim(in, true, 0, s.rank, &dim) ||
      pypto_attr_flag(in, "keepdim", &keep))
    return PTO_FAILURE;
  pto_shape_reduce(&s, dim, keep, &r);
  pypto_set_res(in, pypto_tensor_of(in, &r, arg ? pto_type_int(in->ctx, 32) : e));
  return PTO_SUCCESS;
}

static PtoResult infer_matmul(PyInfer *in) {
  PtoShape a, b, r;
  PtoType *ea, *eb;
  bool at, bt;
  if (pypto_opnd_tensor(in, 0, &a, &ea) || pypto_opnd_tensor(in, 1, &b, &eb) ||
      pypto_opnd_min_rank(in, 0, &a, 2) || pypto_opnd_min_rank(in, 1, &b, 2) ||
      pypto_same_elem(in, ea, eb))
    return PTO_FAILURE;
  if (pto_check_matmul_operands(&in->site, &in->strs, "tensors", in->opnd[0], ea))
    return PTO_FAILURE;
  if (pypto_attr_flag(in, "a_trans", &at) || pypto_attr_flag(in, "b_trans", &bt))
    return PTO_FAILURE;
  if (pto_shape_matmul(NULL, &a, "", at, &b, "", bt, &r) &&
      pto_shape_matmul(&in->site, &a, pypto_tstr(in, in->opnd[0]), at, &b,
                       pypto_tstr(in, in->opnd[1]), bt, &r))
    return PTO_FAILURE;
  bool is_int = pto_elem_is_int(ea);
  PtoType *out, *acc;
  if (result_elem(in, is_int ? pto_type_int(in->ctx, 32) : ea, &out) ||
      pto_check_matmul_elems(&in->site, &in->strs, in->attrs, in->nattrs, ea,
                             out, &acc))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &r, out));
  return PTO_SUCCESS;
}

static PtoResult infer_quant(PyInfer *in, bool quant) {
  PtoShape s, sc;
  PtoType *e, *es;
  if (pypto_opnd_tensor(in, 0, &s, &e)) return PTO_FAILURE;
  if (quant) {
    if (pypto_opnd_min_rank(in, 0, &s, 1) || pypto_opnd_class(in, 0, PTO_PYPTO_DTYPES_FLOAT))
      return PTO_FAILURE;
    pypto_set_res(in, pypto_tensor_of(in, &s, pto_type_int(in->ctx, 8)));
    pto_shape_replace_dim(&s, s.rank - 1, 1, &sc);
    pypto_set_res(in, pypto_tensor_of(in, &sc, pto_type_f32(in->ctx)));
    return PTO_SUCCESS;
  }
  if (pypto_opnd_class(in, 0, PTO_PYPTO_DTYPES_DEQUANT) || pypto_opnd_tensor(in, 1, &sc, &es))
    return PTO_FAILURE;
  if (es != pto_type_f32(in->ctx))
    return ERR("operand #1 must be a tensor of f32 values, got '%s'",
               pypto_tstr(in, in->opnd[1]));
  if (!pto_shape_broadcasts_to(&sc, &s))
    return ERR("scale '%s' does not broadcast to '%s'", pypto_tstr(in, in->opnd[1]),
               pypto_tstr(in, in->opnd[0]));
  PtoType *out;
  if (result_elem(in, pto_type_f32(in->ctx), &out)) return PTO_FAILURE;
  if (!pto_elem_is_float(out))
    return ERR("result element type '%s' must be f32, f16 or bf16",
               pypto_tstr(in, out));
  pypto_set_res(in, pypto_tensor_of(in, &s, out));
  return PTO_SUCCESS;
}

static PtoResult infer_norm(PyInfer *in, PtoPyptoKind k) {
  PtoShape s;
  PtoType *e;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_opnd_class(in, 0, PTO_PYPTO_DTYPES_FLOAT))
    return PTO_FAILURE;
  if (k == PTO_PYPTO_KIND_SOFTMAX) {
    unsigned d;
    if (pypto_attr_dim(in, true, 0, s.rank, &d)) return PTO_FAILURE;
    pypto_set_res(in, in->opnd[0]);
    return PTO_SUCCESS;
  }
  if (pypto_opnd_min_rank(in, 0, &s, 1)) return PTO_FAILURE;
  PtoShape g;
  pto_shape_init(&g, &s.dims[s.rank - 1], 1);
  static const char *const names[] = {"gamma", "beta"};
  for (unsigned i = 1; i < in->nopnd; i++) {
    PtoShape gi;
    PtoType *ei;
    if (pypto_opnd_tensor(in, i, &gi, &ei)) return PTO_FAILURE;
    if (ei != e || !pypto_compatible(&gi, &g))
      return ERR("%s must have type '%s', got '%s'", names[i - 1],
                 pypto_tstr(in, pypto_tensor_of(in, &g, e)), pypto_tstr(in, in->opnd[i]));
  }
  PtoAttr *eps = pypto_infer_attr(in, "eps");
  if (eps && (pto_attr_kind(eps) != PTO_ATTR_FLOAT || !(pto_attr_float_value(eps) >= 0)))
    return ERR("attribute 'eps' must be a non-negative float");
  pypto_set_res(in, in->opnd[0]);
  return PTO_SUCCESS;
}

/* A string attribute naming a cast mode; the accepted names are those of
 * DType.h (`name_of` enumerates them until it returns "?"). */

static PtoResult infer_cast(PyInfer *in) {
  PtoShape s, w;
  if (pypto_opnd_tensor(in, 0, &s, NULL) ||
      pto_check_cast_attrs(&in->site, in->attrs, in->nattrs) ||
      pypto_need_want(in, "dtype") ||
      pypto_want_tensor(in, 0, &w))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &s, pto_type_tensor_elem(in->want[0])));
  return PTO_SUCCESS;
}

PtoResult pypto_infer(PyInfer *in) {
  in->nres = 0;
  if (pto_tuning_verify_attrs(&in->site, in->attrs, in->nattrs) ||
      pypto_check_known_attrs(in))
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
  case PTO_PYPTO_KIND_VIEW: return pypto_infer_view(in);
  case PTO_PYPTO_KIND_ASSEMBLE: return pypto_infer_assemble(in);
  case PTO_PYPTO_KIND_RESHAPE: return pypto_infer_reshape_expand(in, false);
  case PTO_PYPTO_KIND_EXPAND: return pypto_infer_reshape_expand(in, true);
  case PTO_PYPTO_KIND_TRANSPOSE: return pypto_infer_transpose(in);
  case PTO_PYPTO_KIND_CONCAT: return pypto_infer_concat(in);
  case PTO_PYPTO_KIND_FULL: return pypto_infer_fill(in, false);
  case PTO_PYPTO_KIND_ZEROS: return pypto_infer_fill(in, true);
  case PTO_PYPTO_KIND_DIM: return pypto_infer_dim(in);
  case PTO_PYPTO_KIND_GATHER:
  case PTO_PYPTO_KIND_INDEX_SELECT:
  case PTO_PYPTO_KIND_SCATTER: return pypto_infer_indexing(in, k);
  case PTO_PYPTO_KIND_TOPK: return pypto_infer_topk(in);
  case PTO_PYPTO_KIND_QUANTIZE: return infer_quant(in, true);
  case PTO_PYPTO_KIND_DEQUANTIZE: return infer_quant(in, false);
  case PTO_PYPTO_KIND_SOFTMAX:
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM: return infer_norm(in, k);
  }
  return ERR("unknown op kind");
}
