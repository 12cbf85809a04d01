/* The `experimental` dialect's gathers as host ops (pto/HostProgram.h):
 * what lets a compiled program run them, written against the public
 * headers as a user's host op would be. The rows are copied by
 * pto_experimental_gather, as in the interpreter's hook, so both back
 * ends give the same bits and the same messages. */
#include "pto/Dialect/Experimental.h"
#include "pto/HostProgram.h"

enum { ATTR_BLOCK_SIZE };

static PtoResult prepare_gather(PtoOp *op, int64_t *attrs) {
  /* the verifier has checked it is a positive integer */
  attrs[ATTR_BLOCK_SIZE] = pto_op_attr_int(op, "block_size", 1);
  return PTO_SUCCESS;
}

/* Operands: source rows, token indices, block table; the result's width
 * (the whole row, or gather_in_l1's `size`) is its type's. */
static int run_gather(const PtoHostOpCall *c) {
  return pto_experimental_gather(&c->operands[0], &c->operands[1], &c->operands[2],
                                 c->attrs[ATTR_BLOCK_SIZE], c->result, c->error,
                                 c->error_size)
             ? 0
             : 1;
}

static const PtoHostOpDef builtin_host_ops[] = {
    {"experimental.gather_in_ub", prepare_gather, run_gather},
    {"experimental.gather_in_l1", prepare_gather, run_gather},
};

const PtoHostOpDef *pto_host_ops_builtin(unsigned *count) {
  *count = (unsigned)(sizeof builtin_host_ops / sizeof builtin_host_ops[0]);
  return builtin_host_ops;
}
