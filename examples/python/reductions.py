# Reductions over either dim, with and without keepdim, and the arg forms.
import numpy as np

import pypto


@pypto.frontend.jit
def reductions(x: pypto.Tensor([48, 96], pypto.DT_FP32),
               row_stats: pypto.Tensor([48, 3], pypto.DT_FP32),
               col_sum: pypto.Tensor([96], pypto.DT_FP32),
               arg: pypto.Tensor([48], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(16, 32)
    row_stats[:, 0:1] = pypto.sum(x, dim=-1, keepdim=True)
    row_stats[:, 1:2] = pypto.amax(x, dim=-1, keepdim=True)
    row_stats[:, 2:3] = pypto.amin(x, dim=1, keepdim=True)
    col_sum[:] = pypto.sum(x, 0)
    arg[:] = pypto.argmax(x, -1)


rng = np.random.default_rng(1)
x = rng.standard_normal((48, 96)).astype(np.float32)
row_stats = np.zeros((48, 3), np.float32)
col_sum = np.zeros(96, np.float32)
arg = np.zeros(48, np.int32)
reductions(x, row_stats, col_sum, arg)

want = np.stack([x.sum(-1), x.max(-1), x.min(-1)], -1)
err = max(float(np.abs(row_stats - want).max()), float(np.abs(col_sum - x.sum(0)).max()))
print(f"reductions: max error {err:.3g}; argmax {'matches' if (arg == x.argmax(-1)).all() else 'DIFFERS'}")
if err > 1e-4 or not (arg == x.argmax(-1)).all():
    raise SystemExit("reductions: mismatch")
