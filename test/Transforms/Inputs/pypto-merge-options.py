"""Traces a kernel whose pass options ask for nbuffer-merge 2 and l1-reuse
2 (as a PyPTO user writes them) and prints its Tensor-level IR: exp over
four 32x32 tiles, then a matmul whose four 32x32 output tiles share their
row of the left operand."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "python"))
import pypto  # noqa: E402


@pypto.frontend.jit(pass_options={"vec_nbuffer_setting": {-1: 2},
                                  "cube_l1_reuse_setting": {-1: 2}})
def merged(a: pypto.Tensor([64, 64], pypto.DT_FP32),
           w: pypto.Tensor([64, 128], pypto.DT_FP32),
           y: pypto.Tensor([64, 64], pypto.DT_FP32),
           z: pypto.Tensor([32, 128], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(32, 32)
    y[:] = pypto.exp(a)
    pypto.set_cube_tile_shapes([32, 32], [64, 64], [32, 32])
    z[:] = pypto.matmul(a[0:32, :], w)


a = np.ones((64, 64), np.float32)
merged(a, np.ones((64, 128), np.float32), np.zeros((64, 64), np.float32),
       np.zeros((32, 128), np.float32))
print(merged.ir())
