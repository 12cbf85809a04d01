# Layer normalisation written out with reductions (mean, biased variance),
# next to the layer_norm op, both checked against numpy.
import numpy as np

import pypto

T, D = 32, 256


@pypto.frontend.jit
def layer_norm(x: pypto.Tensor([T, D], pypto.DT_FP32),
               gamma: pypto.Tensor([D], pypto.DT_FP32),
               beta: pypto.Tensor([D], pypto.DT_FP32),
               y: pypto.Tensor([T, D], pypto.DT_FP32),
               y_op: pypto.Tensor([T, D], pypto.DT_FP32), eps=1e-5):
    pypto.set_vec_tile_shapes(8, 256)
    mean = pypto.sum(x, -1, keepdim=True) / D
    centered = x - mean
    var = pypto.sum(centered * centered, -1, keepdim=True) / D
    y[:] = centered * pypto.rsqrt(var + eps) * gamma + beta
    y_op[:] = pypto.layer_norm(x, gamma, beta, eps)


rng = np.random.default_rng(4)
x = rng.standard_normal((T, D)).astype(np.float32)
gamma = rng.standard_normal(D).astype(np.float32)
beta = rng.standard_normal(D).astype(np.float32)
y = np.zeros_like(x)
y_op = np.zeros_like(x)
layer_norm(x, gamma, beta, y, y_op)

mu = x.mean(-1, keepdims=True)
want = (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * gamma + beta
err = max(float(np.abs(y - want).max()), float(np.abs(y_op - want).max()))
print(f"layer_norm: max error {err:.3g} ({T}x{D})")
if err > 1e-4:
    raise SystemExit("layer_norm: error above 1e-4")
