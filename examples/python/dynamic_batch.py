# One kernel for every batch size: a loop over a dynamic dim takes a view
# of each row block and assembles the result into the output. It is traced
# and compiled once; later calls with other batch sizes reuse it.
import numpy as np

import pypto

B = pypto.frontend.dynamic("B")


@pypto.frontend.jit
def scale_rows(x: pypto.Tensor([B, 16, 64], pypto.DT_FP32),
               w: pypto.Tensor([64], pypto.DT_FP32),
               y: pypto.Tensor([B, 16, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 16, 64)
    for b in pypto.loop(B, name="batch", idx_name="b"):
        rows = pypto.view(x, [1, 16, 64], [b, 0, 0])
        out = rows * w + pypto.amax(rows, dim=-1, keepdim=True)
        pypto.assemble(out, [b, 0, 0], y)


rng = np.random.default_rng(3)
w = rng.standard_normal(64).astype(np.float32)
err = 0.0
for batch in (1, 3, 8, 5):
    x = rng.standard_normal((batch, 16, 64)).astype(np.float32)
    y = np.zeros_like(x)
    scale_rows(x, w, y)
    err = max(err, float(np.abs(y - (x * w + x.max(-1, keepdims=True))).max()))
print(f"dynamic_batch: max error {err:.3g} over batch sizes 1, 3, 8, 5; "
      f"compiled {scale_rows.num_compiles} time(s)")
if err > 1e-5 or scale_rows.num_compiles != 1:
    raise SystemExit("dynamic_batch: mismatch")
