/* Provenance across lowerings, for any pair of levels: a lowering run with
 * its `provenance` option marks each op that produces a piece of a result
 * of an op of its input with
 *   pto.origin = [[op, result, offset0, offset1, ...], ...]
 * one entry per result of the marked op (an empty entry for results that
 * are not such a piece). `op` numbers the ops of the lowering's input in
 * pre-order (pto_origin_ops), `result` is that op's result number and the
 * offsets place the piece in that result: its window has the shape of the
 * marked value, right-aligned (missing leading dims are 1). Discardable
 * (dialect-prefixed) attributes are kept by every pass. pto-run
 * --check-levels compares each marked value with the window it names. */
#ifndef PTO_ORIGIN_H
#define PTO_ORIGIN_H

#include "pto/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTO_ORIGIN_ATTR "pto.origin"
enum { PTO_ORIGIN_MAX_RANK = 8 };

typedef struct PtoOrigin {
  int64_t op;      /* number of the op in pto_origin_ops order */
  unsigned result; /* its result */
  unsigned rank;
  int64_t offsets[PTO_ORIGIN_MAX_RANK];
} PtoOrigin;

/* Every op nested in `root` (root included), in pre-order: the numbering
 * pto.origin refers to. Returns the count; *ops (may be NULL) receives an
 * array freed with pto_free. */
unsigned pto_origin_ops(PtoOp *root, PtoOp ***ops);

/* Reads the entry of result `result` of `op`; false when there is none (or
 * it is malformed). */
bool pto_origin_get(const PtoOp *op, unsigned result, PtoOrigin *out);
/* Sets the entry of result `result`, keeping the others. */
void pto_origin_set(PtoOp *op, unsigned result, const PtoOrigin *origin);

#ifdef __cplusplus
}
#endif
#endif
