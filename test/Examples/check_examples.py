"""Checks the outputs of an example run against numpy.

usage: check_examples.py EXAMPLE DIR [TOL]

DIR holds what `pto-run examples/EXAMPLE.pto --random SEED --out-dir DIR`
wrote: the generated inputs in0.npy, ... and the results out0.npy, ....
The reference is computed here from the inputs in float64 and compared
with the example's output within a few units in the last place of the
output dtype (or within TOL times the largest reference magnitude, for runs
that round intermediates to a narrow dtype); index outputs must match
exactly. Exits with 1 when an output differs, with 2 when EXAMPLE has no
reference here. scripts/run-example.sh prints its verdict to the user."""
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


def ref_cond_rows(d):
    x, flags = load(d, "in0.npy").astype(np.float64), load(d, "in1.npy")
    y = np.where(flags[:, None] > 0, np.exp(x), 2.0 * x)
    if x.shape[0] > 4:
        y[0] = 0.0
    return [y]


# numpy's dtype names as the IR spells them, for the verdict line.
IR_DTYPES = {"float32": "f32", "float16": "f16", "float64": "f64",
             "int32": "i32", "int64": "i64", "bool": "i1"}


def main():
    name, d = sys.argv[1], sys.argv[2]
    tol = float(sys.argv[3]) if len(sys.argv) > 3 else None
    ref = globals().get("ref_" + name)
    if ref is None:
        print("%s: no numpy reference for this example" % name)
        return 2
    refs = ref(d)
    failed = False
    worst = 0.0
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
            err = np.abs(got.astype(np.float64) - want)
            bad = err > rel * np.abs(want).max()
            worst = max(worst, float(err.max()) if err.size else 0.0)
        if bad.any():
            j = tuple(np.argwhere(bad)[0])
            print("%s: out%d: %d elements differ; at %s got %r, expected %r"
                  % (name, i, bad.sum(), j, got[j], want[j]))
            failed = True
    if failed:
        return 1
    out0 = load(d, "out0.npy")
    what = "%s %s %s" % (name, "x".join(str(n) for n in out0.shape),
                         IR_DTYPES.get(out0.dtype.name, out0.dtype.name))
    verdict = "matches" if len(refs) == 1 else "%d outputs match" % len(refs)
    print("%s: %s numpy, max abs err %.2g" % (what, verdict, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
