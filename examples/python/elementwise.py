# Element-wise ops on f32 and f16 tensors: operators, unary functions,
# tensor-scalar forms and a where, each checked against numpy.
import numpy as np

import pypto


@pypto.frontend.jit
def elementwise(a: pypto.Tensor([64, 128], pypto.DT_FP32),
                b: pypto.Tensor([64, 128], pypto.DT_FP32),
                out: pypto.Tensor([64, 128], pypto.DT_FP32),
                out16: pypto.Tensor([64, 128], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(32, 64)
    s = pypto.sigmoid(a) * b + pypto.tanh(b) - 0.5
    r = pypto.where(a > b, pypto.exp(a - b), pypto.sqrt(pypto.abs(b)))
    out[:] = pypto.maximum(s, r) / 2.0
    out16[:] = pypto.cast(pypto.relu(a) + pypto.minimum(b, 1.0), pypto.DT_FP16)


rng = np.random.default_rng(0)
a = rng.standard_normal((64, 128)).astype(np.float32)
b = rng.standard_normal((64, 128)).astype(np.float32)
out = np.zeros_like(a)
out16 = np.zeros((64, 128), np.float16)
elementwise(a, b, out, out16)

sig = 1 / (1 + np.exp(-a))
s = sig * b + np.tanh(b) - 0.5
r = np.where(a > b, np.exp(a - b), np.sqrt(np.abs(b)))
want = np.maximum(s, r) / 2
want16 = (np.maximum(a, 0) + np.minimum(b, 1)).astype(np.float16)
err = float((np.abs(out - want) / np.maximum(1, np.abs(want))).max())  # relative above 1
err16 = float(np.abs(out16.astype(np.float32) - want16.astype(np.float32)).max())
print(f"elementwise: max error {err:.3g} (f32), {err16:.3g} (f16 output)")
if err > 1e-5 or err16 > 1e-2:
    raise SystemExit("elementwise: error above tolerance")
