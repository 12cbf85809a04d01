# The softmax kernel of the Python API's design note, exactly as written
# there (the note's snippet assumes numpy is imported), run on the host,
# then checked against numpy.
import numpy

import pypto

@pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.SIM})
def softmax_kernel(x: pypto.Tensor([pypto.DYNAMIC, 32, 1, 256], pypto.DT_FP32),
                   y: pypto.Tensor([pypto.DYNAMIC, 32, 1, 256], pypto.DT_FP32)):
    bs, seqlen, head, dim = x.shape
    pypto.set_vec_tile_shapes(1, 4, 1, 64)
    for idx in pypto.loop(0, bs, 1, name="LOOP_L0_bIdx", idx_name="idx"):
        v = x[idx:idx + 1, :seqlen, :head, :dim]
        row_max = pypto.amax(v, dim=-1, keepdim=True)
        e = pypto.exp(v - row_max)
        y[idx:, ...] = e / pypto.sum(e, dim=-1, keepdim=True)

x = numpy.random.rand(32, 32, 1, 256).astype(numpy.float32)   # or a torch CPU tensor
y = numpy.zeros_like(x)
softmax_kernel(x, y)          # outputs are written in place

e = numpy.exp(x - x.max(axis=-1, keepdims=True))
err = float(numpy.abs(y - e / e.sum(axis=-1, keepdims=True)).max())
print(f"softmax: max error {err:.3g} (32x32x1x256 f32)")
if err > 1e-6:
    raise SystemExit("softmax: error above 1e-6")
