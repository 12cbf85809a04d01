/* Building pypto ops with inferred result types: the entry point of the
 * Python front end and of rewrites. Ops whose result type does not follow
 * from the operands take it from builder-only attributes (`shape`,
 * `dtype`, `out_dtype`), which are not stored on the op. */
#include "PyptoInternal.h"
#include "pto/Dialect/AttrNames.h"

#include "Support/Alloc.h"

#include <inttypes.h>
#include <string.h>


static bool is_named(const PtoNamedAttr *a, const char *name) {
  return strcmp(pto_ident_str(a->name), name) == 0;
}

static PtoResult read_shape(PyInfer *in, PtoAttr *a, PtoShape *s) {
  if (pto_attr_kind(a) != PTO_ATTR_ARRAY)
    return ERR("builder attribute 'shape' must be an array of integers");
  unsigned n = pto_attr_array_size(a);
  if (n > PTO_MAX_RANK)
    return ERR("builder attribute 'shape' has %u entries; at most %u dims are "
               "supported",
               n, PTO_MAX_RANK);
  if (!pto_attr_get_i64_array(a, s->dims, PTO_MAX_RANK, &s->rank))
    return ERR("builder attribute 'shape' must be an array of integers");
  for (unsigned i = 0; i < n; i++) {
    if (s->dims[i] == -1) s->dims[i] = PTO_DYN;
    else if (s->dims[i] <= 0)
      return ERR("builder attribute 'shape' entry #%u must be positive or -1, "
                 "got %" PRId64,
                 i, s->dims[i]);
  }
  return PTO_SUCCESS;
}

static PtoResult read_dtype(PyInfer *in, PtoAttr *a, const char *name,
                            PtoType **out) {
  if (pto_attr_kind(a) != PTO_ATTR_TYPE)
    return ERR("builder attribute '%s' must be a type", name);
  *out = pto_attr_type_value(a);
  return PTO_SUCCESS;
}

PtoResult pypto_builder_attrs(PyInfer *in, const PtoNamedAttr *attrs,
                              unsigned nattrs, PtoNamedAttr *rest,
                              unsigned *nrest) {
  PtoPyptoKind k = pto_pypto_kind(in->id);
  bool takes_shape = k == PTO_PYPTO_KIND_VIEW || k == PTO_PYPTO_KIND_RESHAPE ||
                     k == PTO_PYPTO_KIND_EXPAND || k == PTO_PYPTO_KIND_FULL ||
                     k == PTO_PYPTO_KIND_ZEROS || k == PTO_PYPTO_KIND_RANDOM;
  bool takes_dtype = k == PTO_PYPTO_KIND_FULL || k == PTO_PYPTO_KIND_ZEROS ||
                     k == PTO_PYPTO_KIND_RANDOM ||
                     k == PTO_PYPTO_KIND_CAST || k == PTO_PYPTO_KIND_MATMUL ||
                     k == PTO_PYPTO_KIND_DEQUANTIZE || k == PTO_PYPTO_KIND_BITCAST ||
                     k == PTO_PYPTO_KIND_QUANT_MX || k == PTO_PYPTO_KIND_SCALED_MM;
  PtoAttr *shape_attr = NULL;
  PtoType *dtype = NULL;
  *nrest = 0;
  for (unsigned i = 0; i < nattrs; i++) {
    if (takes_shape && is_named(&attrs[i], PTO_ATTR_SHAPE)) {
      shape_attr = attrs[i].value;
    } else if (takes_dtype && (is_named(&attrs[i], PTO_ATTR_DTYPE) ||
                               ((k == PTO_PYPTO_KIND_MATMUL || k == PTO_PYPTO_KIND_SCALED_MM) &&
                                is_named(&attrs[i], PTO_ATTR_OUT_DTYPE)))) {
      if (read_dtype(in, attrs[i].value, pto_ident_str(attrs[i].name), &dtype))
        return PTO_FAILURE;
    } else {
      rest[(*nrest)++] = attrs[i];
    }
  }
  PtoType *op0 = in->c.nopnd ? in->c.opnd[0] : NULL;
  PtoType *elem = op0 && pto_type_is_tensor(op0) ? pto_type_tensor_elem(op0) : NULL;
  PtoShape s;
  switch (k) {
  case PTO_PYPTO_KIND_MATMUL:
  case PTO_PYPTO_KIND_DEQUANTIZE:
  case PTO_PYPTO_KIND_QUANT_MX:
  case PTO_PYPTO_KIND_SCALED_MM:
    in->want_elem = dtype;
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_CAST:
    if (!dtype) return ERR("requires builder attribute 'dtype'");
    if (elem && !pto_shape_from_tensor(op0, &s))
      in->want[0] = pto_shape_tensor(in->c.ctx, &s, dtype);
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_BITCAST:
    if (!dtype) return ERR("requires builder attribute 'dtype'");
    if (elem && !pto_shape_from_tensor(op0, &s)) {
      pto_opcheck_bitcast_shape(&s, pto_type_bitwidth(elem), pto_type_bitwidth(dtype));
      in->want[0] = pto_shape_tensor(in->c.ctx, &s, dtype);
    }
    return PTO_SUCCESS;
  case PTO_PYPTO_KIND_ZEROS:
  case PTO_PYPTO_KIND_RANDOM:
    if (!dtype) return ERR("requires builder attribute 'dtype'");
    elem = dtype;
    break;
  case PTO_PYPTO_KIND_FULL:
    elem = dtype ? dtype : op0 && !pto_type_is_tensor(op0) ? op0 : NULL;
    break;
  default:
    break;
  }
  if (!takes_shape || !shape_attr) return PTO_SUCCESS;
  if (read_shape(in, shape_attr, &s)) return PTO_FAILURE;
  if (elem) in->want[0] = pto_shape_tensor(in->c.ctx, &s, elem);
  return PTO_SUCCESS;
}

/* Arity as the op table declares it, checked before inference reads the
 * operands. */
static PtoResult check_arity(PyInfer *in) {
  int16_t spec = pypto_op_defs[in->id].num_operands;
  if (spec >= 0 && in->c.nopnd != (unsigned)spec)
    return ERR("expected %d operand%s, but found %u", spec, spec == 1 ? "" : "s",
               in->c.nopnd);
  if (spec < 0 && in->c.nopnd < (unsigned)(-spec - 1))
    return ERR("expected at least %d operand%s, but found %u", -spec - 1,
               spec == -2 ? "" : "s", in->c.nopnd);
  return PTO_SUCCESS;
}

/* Inference from builder inputs; `rest` receives the attributes to store. */
static PtoResult infer_for_build(PyInfer *in, const PtoNamedAttr *attrs,
                                 unsigned nattrs, PtoNamedAttr *rest,
                                 unsigned *nrest) {
  if (check_arity(in) || pypto_builder_attrs(in, attrs, nattrs, rest, nrest))
    return PTO_FAILURE;
  in->c.attrs = rest;
  in->c.nattrs = *nrest;
  return pypto_infer(in);
}

static PtoPyptoOp lookup(PtoContext *ctx, PtoLoc *loc, const char *op) {
  PtoPyptoOp id = pto_pypto_lookup(op);
  if (id == PTO_PYPTO_NONE)
    pto_emit_error(ctx, loc, "unknown pypto op '%s'", op);
  return id;
}

PtoResult pto_pypto_infer_types(PtoContext *ctx, PtoLoc *loc, const char *op,
                                PtoType *const *types, unsigned n,
                                const PtoNamedAttr *attrs, unsigned nattrs,
                                PtoType **results, unsigned *nresults) {
  if (!loc) loc = pto_loc_unknown(ctx);
  PtoPyptoOp id = lookup(ctx, loc, op);
  if (id == PTO_PYPTO_NONE) return PTO_FAILURE;
  PyInfer in;
  pypto_infer_init(&in, ctx, loc, id, types, n, NULL, 0);
  PtoNamedAttr *rest = pto_malloc((nattrs + 1) * sizeof *rest);
  unsigned nrest;
  PtoResult r = infer_for_build(&in, attrs, nattrs, rest, &nrest);
  if (!r) {
    for (unsigned i = 0; i < in.nres; i++) results[i] = in.res[i];
    *nresults = in.nres;
  }
  pypto_infer_done(&in);
  pto_free(rest);
  return r;
}

PtoOp *pto_pypto_create(PtoBuilder *b, const char *op, PtoValue *const *operands,
                        unsigned n, const PtoNamedAttr *attrs, unsigned nattrs) {
  PtoContext *ctx = b->ctx;
  PtoLoc *loc = b->loc ? b->loc : pto_loc_unknown(ctx);
  PtoPyptoOp id = lookup(ctx, loc, op);
  if (id == PTO_PYPTO_NONE) return NULL;
  PtoType **types = pto_malloc((n + 1) * sizeof *types);
  for (unsigned i = 0; i < n; i++) types[i] = pto_value_type(operands[i]);
  PtoNamedAttr *rest = pto_malloc((nattrs + 1) * sizeof *rest);
  unsigned nrest;
  PyInfer in;
  pypto_infer_init(&in, ctx, loc, id, types, n, NULL, 0);
  PtoOp *res = NULL;
  if (!infer_for_build(&in, attrs, nattrs, rest, &nrest)) {
    PtoOp *o = pto_op_create_simple(ctx, pto_pypto_op_name(id), loc, operands, n,
                                    in.res, in.nres, rest, nrest);
    res = pto_builder_insert(b, o);
  }
  pypto_infer_done(&in);
  pto_free(rest);
  pto_free(types);
  return res;
}
