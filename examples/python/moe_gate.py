# The gate of a mixture-of-experts layer: router logits, softmax over the
# experts, the top-k experts of each token and their renormalised weights.
import numpy as np

import pypto

TOKENS, HIDDEN, EXPERTS, TOP_K = 32, 64, 16, 4


@pypto.frontend.jit
def moe_gate(x: pypto.Tensor([TOKENS, HIDDEN], pypto.DT_FP32),
             w_router: pypto.Tensor([HIDDEN, EXPERTS], pypto.DT_FP32),
             weights: pypto.Tensor([TOKENS, TOP_K], pypto.DT_FP32),
             ids: pypto.Tensor([TOKENS, TOP_K], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(16, 16)
    logits = pypto.matmul(x, w_router)
    probs = pypto.softmax(logits, dim=-1)
    top, top_ids = pypto.topk(probs, TOP_K, dim=-1, largest=True)
    weights[:] = top / pypto.sum(top, dim=-1, keepdim=True)
    ids[:] = top_ids


rng = np.random.default_rng(6)
x = rng.standard_normal((TOKENS, HIDDEN)).astype(np.float32)
w = rng.standard_normal((HIDDEN, EXPERTS)).astype(np.float32) / 8
weights = np.zeros((TOKENS, TOP_K), np.float32)
ids = np.zeros((TOKENS, TOP_K), np.int32)
moe_gate(x, w, weights, ids)

logits = x @ w
p = np.exp(logits - logits.max(-1, keepdims=True))
p /= p.sum(-1, keepdims=True)
want_ids = np.argsort(-p, axis=-1, kind="stable")[:, :TOP_K]
top = np.take_along_axis(p, want_ids, -1)
err = float(np.abs(weights - top / top.sum(-1, keepdims=True)).max())
same = bool((ids == want_ids).all())
print(f"moe_gate: max error {err:.3g}; expert ids {'match' if same else 'DIFFER'}")
if err > 1e-5 or not same:
    raise SystemExit("moe_gate: mismatch")
