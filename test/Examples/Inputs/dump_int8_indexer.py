"""Runs examples/python/models/int8_indexer.py's kernel once (checked
against numpy) and writes what pto-run needs to run it again at every
level: the traced Tensor-level IR (DIR/kernel.pto) and its inputs
(DIR/in0.npy, ...; the outputs' buffers last).

usage: dump_int8_indexer.py SRC_ROOT DIR"""
import os
import sys

import numpy as np

from model_example import load


def main():
    root, out_dir = sys.argv[1], sys.argv[2]
    ex = load(root, "int8_indexer")
    kernel, err = ex.run()
    with open(os.path.join(out_dir, "kernel.pto"), "w") as f:
        f.write(kernel.ir())
    outs = (np.zeros((ex.T, ex.TOPK), np.float32), np.zeros((ex.T, ex.TOPK), np.int32))
    for i, a in enumerate(ex.inputs() + outs):
        np.save(os.path.join(out_dir, f"in{i}.npy"), a)
    print(f"python run: max error {err:.3g}")
    return 0 if err < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
