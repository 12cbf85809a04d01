/* Result-type inference of the elementwise, reduction, matmul,
 * quantisation, composite and cast ops, and the dispatch over op kinds. The
 * verifier and the builder both run it, so an op that builds is an op that
 * verifies, with the same messages. Shape rules come from
 * lib/Dialect/Common; the shape and indexing ops are in
 * PyptoInferShape.c. */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

/* numpy broadcast of two operands; the types are spelled (which costs)
 * only for the message. */
static PtoResult bcast(PyInfer *in, const PtoShape *a, PtoType *ta,
                       const PtoShape *b, PtoType *tb, PtoShape *out) {
  if (!pto_shape_broadcast(NULL, "", a, "", b, "", out)) return PTO_SUCCESS;
  return pto_shape_broadcast(&in->c.site, "operands", a, pto_opcheck_tstr(&in->c, ta), b,
                             pto_opcheck_tstr(&in->c, tb), out);
}

static PtoResult infer_elementwise(PyInfer *in, PtoPyptoKind k) {
  PtoShape a, b;
  PtoType *ea, *eb;
  if (pypto_opnd_tensor(in, 0, &a, &ea)) return PTO_FAILURE;
  switch (k) {
  case PTO_PYPTO_KIND_UNARY:
    if (pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id))) return PTO_FAILURE;
    if (pto_opcheck_unary_attrs(&in->c, pto_pypto_unary_row(in->id))) return PTO_FAILURE;
    pypto_set_res(in, in->c.opnd[0]);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_SCALAR:
    if (pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id))) return PTO_FAILURE;
    if (in->c.opnd[1] != ea)
      return ERR("operand #1 must be a scalar of type '%s', got '%s'",
                 pto_opcheck_tstr(&in->c, ea), pto_opcheck_tstr(&in->c, in->c.opnd[1]));
    pypto_set_res(in, in->c.opnd[0]);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_BINARY:
    if (pypto_opnd_tensor(in, 1, &b, &eb) || pto_opcheck_same_elem(&in->c, ea, eb) ||
        pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id)))
      return PTO_FAILURE;
    break;
  default: /* COMPARE */
    if (pypto_opnd_tensor_or_scalar(in, 1, &b, &eb) || pto_opcheck_same_elem(&in->c, ea, eb) ||
        pypto_opnd_class(in, 0, pto_pypto_dtypes(in->id)))
      return PTO_FAILURE;
    break;
  }
  PtoShape r;
  if (bcast(in, &a, in->c.opnd[0], &b, in->c.opnd[1], &r))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &r, k == PTO_PYPTO_KIND_BINARY
                                    ? ea
                                    : pto_type_int(in->c.ctx, 1)));
  return PTO_SUCCESS;
}

/* The element type chosen for the result of matmul / dequantize: the op's
 * result type, the builder's `dtype`, or NULL for the default. */
static PtoResult chosen_elem(PyInfer *in, PtoType **out) {
  PtoShape w;
  *out = in->want_elem;
  if (!in->want[0]) return PTO_SUCCESS;
  if (pypto_want_tensor(in, 0, &w)) return PTO_FAILURE;
  *out = pto_type_tensor_elem(in->want[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_where(PyInfer *in) {
  PtoShape c, x, y, xy, r;
  PtoType *ec, *ex, *ey;
  if (pypto_opnd_tensor(in, 0, &c, &ec)) return PTO_FAILURE;
  if (ec != pto_type_int(in->c.ctx, 1))
    return ERR("operand #0 must be a tensor of i1 values, got '%s'",
               pto_opcheck_tstr(&in->c, in->c.opnd[0]));
  if (pypto_opnd_tensor_or_scalar(in, 1, &x, &ex) ||
      pypto_opnd_tensor_or_scalar(in, 2, &y, &ey) || pto_opcheck_same_elem(&in->c, ex, ey))
    return PTO_FAILURE;
  if (bcast(in, &x, in->c.opnd[1], &y, in->c.opnd[2], &xy) ||
      bcast(in, &c, in->c.opnd[0], &xy, pypto_tensor_of(in, &xy, ex), &r))
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
      pypto_opnd_class(in, 0, PTO_DTYPES_NUMERIC) || pto_opcheck_dim(&in->c, true, 0, s.rank, &dim) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_KEEPDIM, &keep))
    return PTO_FAILURE;
  pto_shape_reduce(&s, dim, keep, &r);
  pypto_set_res(in, pypto_tensor_of(in, &r, arg ? pto_type_int(in->c.ctx, 32) : e));
  return PTO_SUCCESS;
}

/* The way out of matmul's accumulator (PyPTO's extend_params): `relu`,
 * and for i8 operands a dequantisation to f16, bf16 or f32, by the f32
 * `scale` attribute or by a per-channel f32 scale operand of shape
 * [1, N]. *out is the result element type chosen so far (NULL: the
 * default); on return it is the one the epilogue produces. */
static PtoResult check_epilogue(PyInfer *in, PtoType *ea, const PtoShape *r,
                                PtoType **out) {
  bool relu;
  if (pto_opcheck_flag(&in->c, PTO_ATTR_RELU, &relu)) return PTO_FAILURE;
  PtoAttr *sa = pto_opcheck_attr(&in->c, PTO_ATTR_SCALE);
  bool per_channel = in->c.nopnd == 3;
  if (in->c.nopnd > 3)
    return ERR("takes 2 operands, or 3 with a per-channel scale, got %u", in->c.nopnd);
  if (sa && pto_attr_kind(sa) != PTO_ATTR_FLOAT)
    return ERR("attribute 'scale' must be a float");
  if (sa && per_channel)
    return ERR("takes either the attribute 'scale' or a scale operand, not both");
  if (!sa && !per_channel) return PTO_SUCCESS;
  if (!pto_elem_is_int(ea))
    return ERR("dequantisation ('scale' or a scale operand) needs i8 operands, got '%s'",
               pto_opcheck_tstr(&in->c, in->c.opnd[0]));
  PtoType *f32 = pto_type_f32(in->c.ctx);
  if (!*out) *out = pto_type_float(in->c.ctx, PTO_F16);
  if (!pto_elem_is_float(*out))
    return ERR("result element type '%s' is not allowed for a dequantising matmul; "
               "expected 'f16', 'bf16' or 'f32'", pto_opcheck_tstr(&in->c, *out));
  if (per_channel) {
    PtoShape s;
    PtoType *es;
    if (pypto_opnd_tensor(in, 2, &s, &es)) return PTO_FAILURE;
    int64_t n = r->dims[r->rank - 1];
    if (es != f32 || s.rank != 2 || s.dims[0] != 1 || s.dims[1] != n)
      return ERR("operand #2 (the per-channel scale) must be a tensor<1x%lldxf32>, got '%s'",
                 (long long)n, pto_opcheck_tstr(&in->c, in->c.opnd[2]));
  }
  return PTO_SUCCESS;
}

static PtoResult infer_matmul(PyInfer *in) {
  PtoShape a, b, r;
  PtoType *ea, *eb;
  bool at, bt;
  if (pypto_opnd_tensor(in, 0, &a, &ea) || pypto_opnd_tensor(in, 1, &b, &eb) ||
      pypto_opnd_min_rank(in, 0, &a, 2) || pypto_opnd_min_rank(in, 1, &b, 2) ||
      pto_opcheck_same_elem(&in->c, ea, eb))
    return PTO_FAILURE;
  PtoType *out, *acc, *chosen;
  if (chosen_elem(in, &out) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_A_TRANS, &at) || pto_opcheck_flag(&in->c, PTO_ATTR_B_TRANS, &bt))
    return PTO_FAILURE;
  if (pto_shape_matmul(NULL, &a, "", at, &b, "", bt, &r) &&
      pto_shape_matmul(&in->c.site, &a, pto_opcheck_tstr(&in->c, in->c.opnd[0]), at, &b,
                       pto_opcheck_tstr(&in->c, in->c.opnd[1]), bt, &r))
    return PTO_FAILURE;
  /* a dequantising epilogue decides the result type itself; the
   * accumulator rules are those of the plain product */
  bool dequant = pto_opcheck_attr(&in->c, PTO_ATTR_SCALE) || in->c.nopnd > 2;
  chosen = dequant ? NULL : out;
  if (pto_opcheck_matmul_dtypes(&in->c, "tensors", ea, &chosen, &acc)) return PTO_FAILURE;
  if (dequant) {
    if (check_epilogue(in, ea, &r, &out)) return PTO_FAILURE;
  } else {
    if (check_epilogue(in, ea, &r, &chosen)) return PTO_FAILURE;
    out = chosen;
  }
  pypto_set_res(in, pypto_tensor_of(in, &r, out));
  return PTO_SUCCESS;
}

static PtoResult infer_quant(PyInfer *in, bool quant) {
  PtoShape s, sc;
  PtoType *e, *es;
  if (pypto_opnd_tensor(in, 0, &s, &e)) return PTO_FAILURE;
  if (quant) {
    if (pypto_opnd_min_rank(in, 0, &s, 1) || pypto_opnd_class(in, 0, PTO_DTYPES_FLOAT))
      return PTO_FAILURE;
    pypto_set_res(in, pypto_tensor_of(in, &s, pto_type_int(in->c.ctx, 8)));
    pto_shape_replace_dim(&s, s.rank - 1, 1, &sc);
    pypto_set_res(in, pypto_tensor_of(in, &sc, pto_type_f32(in->c.ctx)));
    return PTO_SUCCESS;
  }
  if (pypto_opnd_class(in, 0, PTO_DTYPES_DEQUANT) || pypto_opnd_tensor(in, 1, &sc, &es))
    return PTO_FAILURE;
  if (es != pto_type_f32(in->c.ctx))
    return ERR("operand #1 must be a tensor of f32 values, got '%s'",
               pto_opcheck_tstr(&in->c, in->c.opnd[1]));
  if (!pto_shape_broadcasts_to(&sc, &s))
    return ERR("scale '%s' does not broadcast to '%s'", pto_opcheck_tstr(&in->c, in->c.opnd[1]),
               pto_opcheck_tstr(&in->c, in->c.opnd[0]));
  PtoType *out;
  if (chosen_elem(in, &out)) return PTO_FAILURE;
  if (!out) out = pto_type_f32(in->c.ctx);
  if (!pto_elem_is_float(out))
    return ERR("result element type '%s' must be f32, f16 or bf16",
               pto_opcheck_tstr(&in->c, out));
  pypto_set_res(in, pypto_tensor_of(in, &s, out));
  return PTO_SUCCESS;
}

/* MX blocks: 32 elements share one E8M0 scale, and scales come in pairs
 * ([..., K/64, 2]), as PyPTO lays them out. */
#define MX_PAIR 64

static bool is_mx_elem(PtoType *e) {
  return e == pto_type_float(pto_type_ctx(e), PTO_F8E4M3FN) ||
         e == pto_type_float(pto_type_ctx(e), PTO_F8E5M2);
}

/* quant_mx: x [..., N] (f32, f16 or bf16, rank 1 to 4, N a static multiple
 * of 64) -> (q [..., N] of f8E4M3FN (default) or f8E5M2, scale [..., N/64,
 * 2] of f8E8M0FNU). */
static PtoResult infer_quant_mx(PyInfer *in) {
  PtoShape s, sc;
  PtoType *e, *q;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_opnd_class(in, 0, PTO_DTYPES_FLOAT) ||
      chosen_elem(in, &q))
    return PTO_FAILURE;
  if (s.rank < 1 || s.rank > 4)
    return ERR("operand #0 must have rank 1 to 4, got %u", s.rank);
  int64_t n = s.dims[s.rank - 1];
  if (n == PTO_DYN || n % MX_PAIR)
    return ERR("the last dim of operand #0 must be a static multiple of %d, got '%s'",
               MX_PAIR, pto_opcheck_tstr(&in->c, in->c.opnd[0]));
  if (!q) q = pto_type_float(in->c.ctx, PTO_F8E4M3FN);
  if (!is_mx_elem(q))
    return ERR("result #0 must be a tensor of f8E4M3FN or f8E5M2 values, got '%s'",
               pto_opcheck_tstr(&in->c, q));
  pypto_set_res(in, pypto_tensor_of(in, &s, q));
  pto_shape_replace_dim(&s, s.rank - 1, n / MX_PAIR, &sc);
  sc.dims[sc.rank++] = 2;
  pypto_set_res(in, pypto_tensor_of(in, &sc, pto_type_float(in->c.ctx, PTO_F8E8M0FNU)));
  return PTO_SUCCESS;
}

/* scaled_mm's scale operand `i` for a matrix of `rows` rows (M or N) and K
 * = 64 kb: [rows, kb, 2], or [kb, rows, 2] when `trans`. */
static PtoResult check_mx_scale(PyInfer *in, unsigned i, int64_t rows, int64_t kb,
                                bool trans) {
  PtoShape s;
  PtoType *e;
  if (pypto_opnd_tensor(in, i, &s, &e)) return PTO_FAILURE;
  int64_t want[3] = {trans ? kb : rows, trans ? rows : kb, 2};
  PtoShape w;
  pto_shape_init(&w, want, 3);
  if (e != pto_type_float(in->c.ctx, PTO_F8E8M0FNU) || !pto_shape_equal(&s, &w))
    return ERR("operand #%u must have type '%s', got '%s'", i,
               pto_opcheck_tstr(&in->c, pypto_tensor_of(in, &w, pto_type_float(
                                                                in->c.ctx, PTO_F8E8M0FNU))),
               pto_opcheck_tstr(&in->c, in->c.opnd[i]));
  return PTO_SUCCESS;
}

/* scaled_mm: a [M, K] ([K, M] with a_trans), b [K, N] ([N, K] with
 * b_trans), both f8E4M3FN or f8E5M2 with static shapes and K a multiple of
 * 64; scale_a [M, K/64, 2] ([K/64, M, 2] with scale_a_trans), scale_b [K/64,
 * N, 2] ([N, K/64, 2] with scale_b_trans), f8E8M0FNU; result [M, N] of f32
 * (default), f16 or bf16. */
static PtoResult infer_scaled_mm(PyInfer *in) {
  PtoShape a, b;
  PtoType *ea, *eb, *out;
  bool at, bt, sat, sbt, relu;
  if (pypto_opnd_tensor(in, 0, &a, &ea) || pypto_opnd_tensor(in, 1, &b, &eb) ||
      chosen_elem(in, &out) || pto_opcheck_flag(&in->c, PTO_ATTR_A_TRANS, &at) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_B_TRANS, &bt) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_SCALE_A_TRANS, &sat) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_SCALE_B_TRANS, &sbt) ||
      pto_opcheck_flag(&in->c, PTO_ATTR_RELU, &relu))
    return PTO_FAILURE;
  for (unsigned i = 0; i < 2; i++) {
    const PtoShape *s = i ? &b : &a;
    if (!is_mx_elem(i ? eb : ea) || s->rank != 2 || s->dims[0] == PTO_DYN ||
        s->dims[1] == PTO_DYN)
      return ERR("operand #%u must be a static 2-d tensor of f8E4M3FN or f8E5M2 "
                 "values, got '%s'", i, pto_opcheck_tstr(&in->c, in->c.opnd[i]));
  }
  int64_t m = a.dims[at ? 1 : 0], k = a.dims[at ? 0 : 1];
  int64_t k2 = b.dims[bt ? 1 : 0], n = b.dims[bt ? 0 : 1];
  if (k != k2)
    return ERR("contracting dims differ: '%s' has K = %lld, '%s' has K = %lld",
               pto_opcheck_tstr(&in->c, in->c.opnd[0]), (long long)k,
               pto_opcheck_tstr(&in->c, in->c.opnd[1]), (long long)k2);
  if (k % MX_PAIR)
    return ERR("K (%lld) must be a multiple of %d", (long long)k, MX_PAIR);
  /* scale_b's plain layout is [K/64, N, 2]: scale_a's transposed */
  if (check_mx_scale(in, 2, m, k / MX_PAIR, sat) ||
      check_mx_scale(in, 3, n, k / MX_PAIR, !sbt))
    return PTO_FAILURE;
  if (!out) out = pto_type_f32(in->c.ctx);
  if (!pto_dtype_in_set(out, PTO_DTYPES_FLOAT))
    return ERR("result element type '%s' is not allowed; expected 'f32', 'f16' or 'bf16'",
               pto_opcheck_tstr(&in->c, out));
  int64_t r[2] = {m, n};
  PtoShape rs;
  pto_shape_init(&rs, r, 2);
  pypto_set_res(in, pypto_tensor_of(in, &rs, out));
  return PTO_SUCCESS;
}

static PtoResult infer_norm(PyInfer *in, PtoPyptoKind k) {
  PtoShape s;
  PtoType *e;
  if (pypto_opnd_tensor(in, 0, &s, &e) || pypto_opnd_class(in, 0, PTO_DTYPES_FLOAT))
    return PTO_FAILURE;
  if (k == PTO_PYPTO_KIND_SOFTMAX) {
    unsigned d;
    if (pto_opcheck_dim(&in->c, true, 0, s.rank, &d)) return PTO_FAILURE;
    pypto_set_res(in, in->c.opnd[0]);
    return PTO_SUCCESS;
  }
  if (pypto_opnd_min_rank(in, 0, &s, 1)) return PTO_FAILURE;
  PtoShape g;
  pto_shape_init(&g, &s.dims[s.rank - 1], 1);
  static const char *const names[] = {"gamma", "beta"};
  for (unsigned i = 1; i < in->c.nopnd; i++) {
    PtoShape gi;
    PtoType *ei;
    if (pypto_opnd_tensor(in, i, &gi, &ei)) return PTO_FAILURE;
    if (ei != e || !pypto_compatible(&gi, &g))
      return ERR("%s must have type '%s', got '%s'", names[i - 1],
                 pto_opcheck_tstr(&in->c, pypto_tensor_of(in, &g, e)), pto_opcheck_tstr(&in->c, in->c.opnd[i]));
  }
  PtoAttr *eps = pto_opcheck_attr(&in->c, PTO_ATTR_EPS);
  if (eps && (pto_attr_kind(eps) != PTO_ATTR_FLOAT || !(pto_attr_float_value(eps) >= 0)))
    return ERR("attribute 'eps' must be a non-negative float");
  pypto_set_res(in, in->c.opnd[0]);
  return PTO_SUCCESS;
}

static PtoResult infer_cast(PyInfer *in) {
  PtoShape s, w;
  if (pypto_opnd_tensor(in, 0, &s, NULL) || pto_opcheck_cast_attrs(&in->c) ||
      pypto_need_want(in, PTO_ATTR_DTYPE) || pypto_want_tensor(in, 0, &w))
    return PTO_FAILURE;
  pypto_set_res(in, pypto_tensor_of(in, &s, pto_type_tensor_elem(in->want[0])));
  return PTO_SUCCESS;
}

PtoResult pypto_infer(PyInfer *in) {
  in->nres = 0;
  if (pto_tuning_verify_attrs(&in->c.site, in->c.attrs, in->c.nattrs) ||
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
  case PTO_PYPTO_KIND_QUANT_MX: return infer_quant_mx(in);
  case PTO_PYPTO_KIND_SCALED_MM: return infer_scaled_mm(in);
  case PTO_PYPTO_KIND_SOFTMAX:
  case PTO_PYPTO_KIND_RMS_NORM:
  case PTO_PYPTO_KIND_LAYER_NORM: return infer_norm(in, k);
  case PTO_PYPTO_KIND_RANDOM: return pypto_infer_random(in);
  case PTO_PYPTO_KIND_LOAD_SCALAR: return pypto_infer_load_scalar(in);
  case PTO_PYPTO_KIND_BITCAST: return pypto_infer_bitcast(in);
  case PTO_PYPTO_KIND_DEBUG: return pypto_infer_debug(in);
  }
  return ERR("unknown op kind");
}
