"""Writes the inputs of topk.pto into the directory argv[1]: rows of
random values, rows of many ties, rows with NaN (first, last, several),
infinities and signed zeros, and a row of one value."""
import os
import sys

import numpy as np

rng = np.random.default_rng(5)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
x = rng.uniform(-1, 1, (8, 16)).astype(np.float32)
x[1] = rng.integers(0, 3, 16)                # ties
x[2, [0, 7, 15]] = np.nan                    # NaN above every number
x[3, :] = 2.0                                # one value
x[4, [1, 5]] = [np.inf, -np.inf]
x[4, [2, 3, 9]] = [0.0, -0.0, 0.0]           # signed zeros tie
x[5] = np.nan                                # all NaN
x[6, [3, 4]] = [np.nan, np.inf]
np.save(os.path.join(out, "x.npy"), x)
h = x.astype(np.float16)
h[7] = rng.integers(-2, 2, 16)               # ties among the smallest
np.save(os.path.join(out, "h.npy"), h)
i = rng.integers(-5, 5, (8, 16)).astype(np.int32)
i[0] = 7                                     # one value
i[1, [0, 15]] = [np.iinfo(np.int32).min, np.iinfo(np.int32).max]
np.save(os.path.join(out, "i.npy"), i)
