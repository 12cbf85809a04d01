# A transformer feed-forward block over a dynamic number of tokens: RMS
# norm, up projection with SiLU gating, down projection and the residual,
# one tile of tokens per loop iteration.
import numpy as np

import pypto

H, F, TILE = 64, 128, 16
T = pypto.frontend.dynamic("T")


@pypto.frontend.jit
def ffn(x: pypto.Tensor([T, H], pypto.DT_FP32), gamma: pypto.Tensor([H], pypto.DT_FP32),
        w_gate: pypto.Tensor([H, F], pypto.DT_FP32), w_up: pypto.Tensor([H, F], pypto.DT_FP32),
        w_down: pypto.Tensor([F, H], pypto.DT_FP32), y: pypto.Tensor([T, H], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(TILE, 64)
    pypto.set_cube_tile_shapes([16, 16], [32, 64], [32, 64])
    for t in pypto.loop(T // TILE, name="tokens", idx_name="t"):
        rows = x[t * TILE:(t + 1) * TILE, :]
        pypto.set_semantic_label("norm")
        h = pypto.rms_norm(rows, gamma, 1e-6)
        pypto.set_semantic_label("up")
        gate = pypto.silu(pypto.matmul(h, w_gate))
        up = pypto.matmul(h, w_up)
        pypto.set_semantic_label("down")
        y[t * TILE:(t + 1) * TILE, :] = rows + pypto.matmul(gate * up, w_down)


def reference(x, gamma, wg, wu, wd):
    h = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * gamma
    g = h @ wg
    return x + (g / (1 + np.exp(-g)) * (h @ wu)) @ wd


rng = np.random.default_rng(5)
gamma = rng.standard_normal(H).astype(np.float32)
wg, wu = (rng.standard_normal((H, F)).astype(np.float32) / 8 for _ in range(2))
wd = rng.standard_normal((F, H)).astype(np.float32) / 8
err = 0.0
for tokens in (16, 48):
    x = rng.standard_normal((tokens, H)).astype(np.float32)
    y = np.zeros_like(x)
    ffn(x, gamma, wg, wu, wd, y)
    err = max(err, float(np.abs(y - reference(x, gamma, wg, wu, wd)).max()))
print(f"ffn: max error {err:.3g} (tokens 16 and 48, hidden {H}, ffn {F})")
if err > 1e-4:
    raise SystemExit("ffn: error above 1e-4")
