"""Runs examples/python/models/paged_decode_attention.py's kernel once and
writes what pto-run needs to run it again at every level: the traced
Tensor-level IR (DIR/kernel.pto), its inputs (DIR/in0.npy, ...) and the
numpy reference of its output (DIR/want.npy).

usage: dump_paged_decode.py SRC_ROOT DIR"""
import os
import sys

import numpy as np

from model_example import load


def main():
    root, out_dir = sys.argv[1], sys.argv[2]
    ex = load(root, "paged_decode_attention")
    kernel, err = ex.run()
    args = ex.inputs()
    with open(os.path.join(out_dir, "kernel.pto"), "w") as f:
        f.write(kernel.ir())
    for i, a in enumerate(args + (np.zeros_like(args[0]),)):
        np.save(os.path.join(out_dir, f"in{i}.npy"), a)
    np.save(os.path.join(out_dir, "want.npy"), ex.reference(*args[:5]))
    print(f"python run: max error {err:.3g}")
    return 0 if err < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
