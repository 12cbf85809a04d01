"""Writes, with numpy, files that PTO must refuse (one per kind)."""
import os
import sys

import numpy as np

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
a = np.arange(6, dtype=np.float32).reshape(2, 3)
np.save(os.path.join(d, "fortran.npy"), np.asfortranarray(a))
np.save(os.path.join(d, "bigendian.npy"), a.astype(">f4"))
np.save(os.path.join(d, "complex.npy"), a.astype(np.complex64))
np.save(os.path.join(d, "complex128.npy"), a.astype(np.complex128))
np.save(os.path.join(d, "str.npy"), np.array(["ab", "c"]))
np.save(os.path.join(d, "datetime.npy"), np.array(["2024-01-01"], dtype="M8[D]"))
np.save(os.path.join(d, "object.npy"), np.array([1, "x"], dtype=object),
        allow_pickle=True)
np.save(os.path.join(d, "structured.npy"),
        np.zeros(2, dtype=[("x", "<i4"), ("y", "<f8")]))
np.save(os.path.join(d, "rank9.npy"), np.zeros((1,) * 9, dtype=np.int8))
with open(os.path.join(d, "short.npy"), "wb") as f:
    np.save(f, np.zeros(100, dtype=np.float64))
with open(os.path.join(d, "short.npy"), "r+b") as f:
    f.truncate(128 + 7)
with open(os.path.join(d, "text.npy"), "w") as f:
    f.write("1 2 3\n")
