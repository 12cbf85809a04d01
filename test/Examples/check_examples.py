"""Checks the outputs of an example run against numpy.

usage: check_examples.py EXAMPLE DIR [TOL]

DIR holds what `pto-run examples/EXAMPLE.pto --random SEED --out-dir DIR`
wrote: the generated inputs in0.npy, ... and the results out0.npy, ....
The reference is computed here from the inputs in float64 and compared
with the example's output within a few units in the last place of the
output dtype (or within TOL times the largest reference magnitude, for runs
that round intermediates to a narrow dtype); index outputs must match
exactly."""
import os
import sys

import numpy as np


def load(d, name):
    return np.load(os.path.join(d, name))


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_softmax(d):
    return [softmax(load(d, "in0.npy").astype(np.float64))]


def ref_softmax_dynamic(d):
    return [softmax(load(d, "in0.npy").astype(np.float64))]


def ref_seed_graph(d):
    a, b, w = (load(d, "in%d.npy" % i).astype(np.float64) for i in range(3))
    return [((a * 2.0 + b) @ w).sum(axis=-1, keepdims=True)]


def ref_rmsnorm_matmul(d):
    x, g, w = (load(d, "in%d.npy" % i).astype(np.float64) for i in range(3))
    n = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g
    # the normalised activations are an f16 tensor before the product
    return [n.astype(np.float16).astype(np.float64) @ w]


def ref_moe_gate(d):
    x, wg = (load(d, "in%d.npy" % i).astype(np.float64) for i in range(2))
    p = softmax(x @ wg)
    idx = np.argsort(-p, axis=-1, kind="stable")[:, :2]
    top = np.take_along_axis(p, idx, axis=-1)
    return [top / top.sum(axis=-1, keepdims=True), idx]


def main():
    name, d = sys.argv[1], sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else None
    refs = globals()["ref_" + name](d)
    failed = False
    for i, want in enumerate(refs):
        got = load(d, "out%d.npy" % i)
        if got.shape != want.shape:
            print("%s: out%d has shape %s, expected %s" % (name, i, got.shape, want.shape))
            failed = True
            continue
        if np.issubdtype(got.dtype, np.integer):
            bad = got != want
        else:
            rel = tol if tol is not None else 8 * np.finfo(got.dtype).eps
            bad = np.abs(got.astype(np.float64) - want) > rel * np.abs(want).max()
        if bad.any():
            j = tuple(np.argwhere(bad)[0])
            print("%s: out%d: %d elements differ; at %s got %r, expected %r"
                  % (name, i, bad.sum(), j, got[j], want[j]))
            failed = True
    if failed:
        return 1
    print("%s: %d outputs match numpy" % (name, len(refs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
