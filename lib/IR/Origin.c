/* The pto.origin provenance attribute (include/pto/Origin.h). */
#include "pto/Origin.h"

#include "IR/IRInternal.h"

#include <string.h>

typedef PTO_VEC(PtoOp *) OpVec;

static PtoWalkResult collect(PtoOp *op, void *user) {
  pto_vec_push((OpVec *)user, op);
  return PTO_WALK_ADVANCE;
}

unsigned pto_origin_ops(PtoOp *root, PtoOp ***ops) {
  OpVec v = {0};
  pto_op_walk(root, PTO_WALK_PRE, collect, &v);
  unsigned n = v.len;
  if (ops) *ops = v.data;
  else pto_vec_free(&v);
  return n;
}

bool pto_origin_get(const PtoOp *op, unsigned result, PtoOrigin *out) {
  PtoAttr *a = pto_op_attr(op, PTO_ORIGIN_ATTR);
  int64_t v[2 + PTO_ORIGIN_MAX_RANK];
  unsigned n;
  if (!a || pto_attr_kind(a) != PTO_ATTR_ARRAY ||
      result >= pto_attr_array_size(a) ||
      !pto_attr_get_i64_array(pto_attr_array_get(a, result), v,
                              2 + PTO_ORIGIN_MAX_RANK, &n) ||
      n < 2 || v[0] < 0 || v[1] < 0)
    return false;
  out->op = v[0];
  out->result = (unsigned)v[1];
  out->rank = n - 2;
  memcpy(out->offsets, v + 2, (n - 2) * sizeof v[0]);
  return true;
}

void pto_origin_set(PtoOp *op, unsigned result, const PtoOrigin *o) {
  PtoContext *ctx = pto_op_ctx(op);
  unsigned nres = pto_op_num_results(op);
  if (result >= nres || o->rank > PTO_ORIGIN_MAX_RANK) return;
  PtoAttr *old = pto_op_attr(op, PTO_ORIGIN_ATTR);
  bool keep = old && pto_attr_kind(old) == PTO_ATTR_ARRAY;
  PtoAttr *empty = pto_attr_array(ctx, NULL, 0);
  PtoAttr *local[8];
  PtoAttr **entries = nres <= 8 ? local : pto_malloc(nres * sizeof *entries);
  for (unsigned i = 0; i < nres; i++)
    entries[i] = keep && i < pto_attr_array_size(old) ? pto_attr_array_get(old, i)
                                                      : empty;
  int64_t v[2 + PTO_ORIGIN_MAX_RANK];
  v[0] = o->op;
  v[1] = o->result;
  memcpy(v + 2, o->offsets, o->rank * sizeof v[0]);
  entries[result] = pto_attr_i64_array(ctx, v, 2 + o->rank);
  pto_op_set_attr(op, PTO_ORIGIN_ATTR, pto_attr_array(ctx, entries, nres));
  if (entries != local) pto_free(entries);
}
