"""Writes ui64.test's inputs and numpy's results for them."""
import os
import sys

import numpy as np

d = sys.argv[1]
a = np.array([[2**64 - 1, 2**63 + 5, 7, 0], [2**63, 100, 2**63 + 1, 3]], np.uint64)
b = np.array([[3, 2**63, 7, 5], [2, 2**63 + 7, 2**63 + 1, 1]], np.uint64)
want = {"a": a, "b": b, "div": a // b, "lt": a < b, "max": np.maximum(a, b),
        "argmax": a.argmax(1).astype(np.int32)[:, None], "f32": a.astype(np.float32),
        "amax": a.max(1, keepdims=True)}
off = want["amax"].copy()
off[0, 0] -= np.uint64(1)
want["off_by_one"] = off
for name, arr in want.items():
    np.save(os.path.join(d, name + ".npy"), arr)
