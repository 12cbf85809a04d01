# A matmul with cube tiles (f16 inputs, f32 results), a transposed operand
# and a bias, checked against numpy.
import numpy as np

import pypto

M, K, N = 128, 256, 64


@pypto.frontend.jit
def matmul(a: pypto.Tensor([M, K], pypto.DT_FP16),
           b_t: pypto.Tensor([N, K], pypto.DT_FP16),
           bias: pypto.Tensor([1, N], pypto.DT_FP32),
           c: pypto.Tensor([M, N], pypto.DT_FP32)):
    # mL0/mL1, kL0/kL1, nL0/nL1: L0 <= L1, L1 a multiple of L0, and within
    # the L0A/L0B/L0C/L1 buffers of the platform
    pypto.set_cube_tile_shapes([64, 128], [64, 128], [64, 64])
    pypto.set_semantic_label("linear")
    c[:] = pypto.matmul(a, b_t, pypto.DT_FP32, b_trans=True) + bias


rng = np.random.default_rng(2)
a = rng.standard_normal((M, K)).astype(np.float16)
b_t = rng.standard_normal((N, K)).astype(np.float16)
bias = rng.standard_normal((1, N)).astype(np.float32)
c = np.zeros((M, N), np.float32)
matmul(a, b_t, bias, c)

want = a.astype(np.float32) @ b_t.astype(np.float32).T + bias
err = float(np.abs(c - want).max())
print(f"matmul: max error {err:.3g} ({M}x{K} @ {K}x{N}, f16 -> f32)")
if err > 1e-3:
    raise SystemExit("matmul: error above 1e-3")
