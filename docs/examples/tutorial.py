# The kernel of docs/tutorial.md: y = x * 2 + b on an 8x16 tensor with 4x16
# vector tiles, run on numpy arrays, checked against numpy, and its traced
# Tensor-level IR written to the file named on the command line.
import sys

import numpy
import pypto


@pypto.frontend.jit
def scale_add(x: pypto.Tensor([8, 16], pypto.DT_FP32),
              b: pypto.Tensor([8, 16], pypto.DT_FP32),
              y: pypto.Tensor([8, 16], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 16)
    y[:] = x * 2.0 + b


x = numpy.arange(128, dtype=numpy.float32).reshape(8, 16) / 128
b = numpy.ones((8, 16), dtype=numpy.float32)
y = numpy.zeros_like(x)
scale_add(x, b, y)
print("max abs err vs numpy:", float(numpy.abs(y - (x * 2 + b)).max()))
print(scale_add.ir())
with open(sys.argv[1], "w", encoding="utf-8") as f:
    f.write(scale_add.traced_text())
