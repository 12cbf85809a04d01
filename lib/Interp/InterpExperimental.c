/* The interpreter's hook for the `experimental` dialect's gathers, written
 * against the public interpreter API (pto/Interp.h) as a user's handler
 * would be: token indices go through the block table to rows of the paged
 * source, and every index is checked against what it addresses. */
#include "Interp/InterpInternal.h"
#include "pto/Dialect/Experimental.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The element at (r, c) of a 2-D array, whatever its strides. */
static char *elem_at(const PtoNdArray *a, int64_t r, int64_t c) {
  return (char *)a->data +
         (r * a->strides[0] + c * a->strides[1]) * (int64_t)pto_dtype_size(a->dtype);
}

static PtoResult h_gather(PtoInterpFrame *f, PtoOp *op, void *user) {
  (void)user;
  const PtoNdArray *src = pto_tensor_array(pto_interp_operand_tensor(f, op, 0));
  const PtoNdArray *idx = pto_tensor_array(pto_interp_operand_tensor(f, op, 1));
  const PtoNdArray *tab = pto_tensor_array(pto_interp_operand_tensor(f, op, 2));
  int64_t bs = pto_op_attr_int(op, "block_size", 1);
  bool l1 = pto_experimental_op_id(op) == PTO_EXPERIMENTAL_GATHER_IN_L1;
  int64_t width = l1 ? pto_op_attr_int(op, "size", 0) : src->shape[1];
  if (width > src->shape[1])
    return pto_interp_error(f, op, "size %" PRId64 " exceeds the source's %" PRId64
                                   " columns at run time", width, src->shape[1]);
  int64_t k = idx->shape[1], n = tab->shape[1];
  int64_t shape[2] = {k, width};
  PtoTensor *t = pto_interp_new_tensor(f, op, src->dtype, 2, shape);
  if (!t) return PTO_FAILURE;
  const PtoNdArray *out = pto_tensor_array(t);
  size_t es = pto_dtype_size(src->dtype);
  int64_t *table = NULL;
  PtoResult r = PTO_SUCCESS;
  if (n > 0 && !(table = malloc((size_t)n * sizeof *table))) {
    r = pto_interp_error(f, op, "out of memory reading the block table");
    goto done;
  }
  for (int64_t j = 0; j < n; j++)
    table[j] = pto_dtype_load_i64(tab->dtype, tab->data, j * tab->strides[1]);
  for (int64_t i = 0; i < k && !r; i++) {
    int64_t token = pto_dtype_load_i64(idx->dtype, idx->data, i * idx->strides[1]), row;
    if (!pto_experimental_row(token, bs, table, n, &row)) {
      r = pto_interp_error(f, op, "token index %" PRId64 " (position %" PRId64 ") has no "
                                  "block in a table of %" PRId64 " blocks of %" PRId64,
                           token, i, n, bs);
      break;
    }
    if (row >= src->shape[0]) {
      r = pto_interp_error(f, op, "token index %" PRId64 " maps to row %" PRId64 ", past "
                                  "the source's %" PRId64 " rows",
                           token, row, src->shape[0]);
      break;
    }
    for (int64_t c = 0; c < width; c++)
      memcpy(elem_at(out, i, c), elem_at(src, row, c), es);
  }
done:
  free(table);
  if (r) {
    pto_tensor_release(t);
    return r;
  }
  pto_interp_set_result(f, op, 0, pto_interp_value_tensor(t));
  return PTO_SUCCESS;
}

void pto_interp_register_experimental(PtoInterp *I) {
  pto_interp_register(I, "experimental.gather_in_ub", h_gather, NULL);
  pto_interp_register(I, "experimental.gather_in_l1", h_gather, NULL);
}
