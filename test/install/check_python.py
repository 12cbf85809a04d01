# The installed Python package, as a user gets it: imported from the
# prefix (not the checkout), finding the prefix's libpto.so without
# PTO_LIBRARY, and computing a kernel that numpy checks.
# Usage: check_python.py PACKAGE_ROOT LIBRARY_ROOT (the prefix, for both,
# after cmake --install; pip's target and the prefix after pip install)
import os
import sys

import numpy as np

import pypto
from pypto import _lib

pkg_root, lib_root = (os.path.realpath(p) for p in sys.argv[1:3])


def inside(path, root):
    return os.path.realpath(path).startswith(root + os.sep)


if not inside(pypto.__file__, pkg_root):
    sys.exit(f"check_python: pypto imported from {pypto.__file__}, not from {pkg_root}")


@pypto.frontend.jit
def scale_add(a: pypto.Tensor([8, 64], pypto.DT_FP32),
              b: pypto.Tensor([8, 64], pypto.DT_FP32),
              out: pypto.Tensor([8, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 32)
    out[:] = pypto.exp(a) * 2.0 + b


rng = np.random.default_rng(0)
a = rng.standard_normal((8, 64)).astype(np.float32)
b = rng.standard_normal((8, 64)).astype(np.float32)
out = np.zeros_like(a)
scale_add(a, b, out)
if not inside(_lib.library_path(), lib_root):
    sys.exit(f"check_python: loaded {_lib.library_path()}, not the one in {lib_root}")
err = float(np.abs(out - (np.exp(a) * 2.0 + b)).max())
if err > 1e-5:
    sys.exit(f"check_python: max abs err {err:g} against numpy")
print(f"installed pypto: ok (max abs err {err:.2g})")
