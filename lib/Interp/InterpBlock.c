/* Handlers of the block dialect. At the Block level a GM tensor is memory:
 * a launch hands its kernel the tensors the host function holds, and
 * block.store writes into their buffers in place, so later launches and
 * the host see the data (the runtime orders launches by the GM regions
 * they record; here they run one after another in program order). A
 * buffer is a tensor of its static shape, as a tile is. */
#include "Interp/InterpPypto.h"

#include "pto/Dialect/Block.h"
#include "pto/Dialect/Tile.h"

#include "Support/Alloc.h"

/* The window of GM tensor `gm` a load or store addresses with `buf`'s
 * shape, checked against gm's run-time dims. */
static PtoResult gm_window(PtoInterpFrame *f, PtoOp *op, const PtoNdArray *gm,
                           PtoType *buf, PtoNdArray *out) {
  int64_t offs[PTO_MAX_RANK];
  PtoValue *dyn[PTO_MAX_RANK];
  unsigned n = pto_block_get_offsets(op, offs, dyn);
  if (interp_window_offsets(f, op, gm, n, offs, dyn, pto_tile_shape(buf), -1))
    return PTO_FAILURE;
  *out = interp_window_of(gm, offs, pto_tile_shape(buf));
  return PTO_SUCCESS;
}

static PtoResult h_load(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *buf = pto_value_type(pto_op_result(op, 0));
  PtoNdArray w;
  if (gm_window(f, op, interp_tensor_arg(f, op, 0), buf, &w)) return PTO_FAILURE;
  /* a copy: a later store into the tensor must not change the buffer */
  PtoTensor *t = interp_new_result(f, op, 0, pto_tile_rank(buf), pto_tile_shape(buf));
  if (!t) return PTO_FAILURE;
  PtoNdArray out = *pto_tensor_array(t);
  PtoKernelError err;
  PtoResult r = pto_kernel_unary(PTO_UNARY_IDENTITY, &w, &out, &err);
  return interp_finish(f, op, t, r, &err);
}

static PtoResult h_store(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoType *buf = pto_value_type(pto_op_operand(op, 0));
  PtoNdArray w;
  if (gm_window(f, op, interp_tensor_arg(f, op, 1), buf, &w)) return PTO_FAILURE;
  PtoKernelError err;
  if (pto_kernel_unary(PTO_UNARY_IDENTITY, interp_tensor_arg(f, op, 0), &w, &err))
    return interp_kernel_error(f, op, &err, NULL);
  return PTO_SUCCESS;
}

static PtoResult h_launch(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  PtoOp *kernel = pto_block_launch_kernel(op);
  if (!kernel) return pto_interp_error(f, op, "the callee is not a kernel");
  unsigned n = pto_op_num_operands(op);
  PtoInterpValue *args = pto_calloc(n ? n : 1, sizeof *args);
  for (unsigned i = 0; i < n; i++)
    args[i] = pto_interp_value_copy(pto_interp_operand(f, op, i));
  PtoResult r = pto_interp_call(f, op, kernel, args, n, NULL, 0);
  pto_free(args);
  return r;
}

void pto_interp_register_block(PtoInterp *I) {
  pto_interp_register(I, "block.load", h_load, NULL);
  pto_interp_register(I, "block.store", h_store, NULL);
  /* a zero-filled GM tensor, as tile.empty makes (registered before) */
  pto_interp_register_alias(I, "block.workspace", "tile.empty");
  pto_interp_register(I, "block.launch", h_launch, NULL);
}
