/* The interpreter's hook for the `experimental` dialect's gathers, written
 * against the public interpreter API (pto/Interp.h) as a user's handler
 * would be: the rows are copied by pto_experimental_gather, which the
 * compiled host program's task calls too, and a bad index is an error at
 * the op. */
#include "Interp/InterpInternal.h"
#include "pto/Dialect/Experimental.h"

static PtoResult h_gather(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *src = pto_tensor_array(pto_interp_operand_tensor(f, op, 0));
  const PtoNdArray *idx = pto_tensor_array(pto_interp_operand_tensor(f, op, 1));
  const PtoNdArray *tab = pto_tensor_array(pto_interp_operand_tensor(f, op, 2));
  int64_t bs = pto_op_attr_int(op, "block_size", 1);
  bool l1 = pto_experimental_op_id(op) == PTO_EXPERIMENTAL_GATHER_IN_L1;
  int64_t width = l1 ? pto_op_attr_int(op, "size", 0) : src->shape[1];
  int64_t shape[2] = {idx->shape[1], width};
  PtoTensor *t = pto_interp_new_tensor(f, op, src->dtype, 2, shape);
  if (!t) return PTO_FAILURE;
  char err[256];
  if (!pto_experimental_gather(src, idx, tab, bs, (PtoNdArray *)pto_tensor_array(t), err,
                               sizeof err)) {
    pto_tensor_release(t);
    return pto_interp_error(f, op, "%s", err);
  }
  pto_interp_set_result(f, op, 0, pto_interp_value_tensor(t));
  return PTO_SUCCESS;
}

void pto_interp_register_experimental(PtoInterp *I) {
  pto_interp_register(I, "experimental.gather_in_ub", h_gather, NULL);
  pto_interp_register(I, "experimental.gather_in_l1", h_gather, NULL);
}
