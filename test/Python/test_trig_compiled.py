"""tan, atan, asin, acos, erfc and atan2 on the compiled path (NPU: the
JIT-compiled PTO kernels on the host runtime, ttan ... tatan2) against
numpy's functions of the float64 value rounded once to the dtype: bit for
bit, special values included (the compiled kernels compute in f64 and
round once, as the Tile level does)."""
import math

import numpy as np
import pytest

import pypto

SPECIALS = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 1e-30, -3.0, 12.0]

UNARY = {
    "tan": (np.tan, (-20, 20)),
    "atan": (np.arctan, (-8, 8)),
    "asin": (np.arcsin, (-1, 1)),
    "acos": (np.arccos, (-1, 1)),
    "erfc": (np.vectorize(math.erfc, otypes=[np.float64]), (-6, 11)),
}


@pytest.fixture(autouse=True)
def compiled(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)


def npu(fn, arrays, dtype):
    """fn(tensors) -> tensor as an NPU kernel writing an output argument;
    returns the output, after checking the compiled path ran it."""
    out = np.zeros(arrays[0].shape, dtype)

    def body(*ts):
        pypto.set_vec_tile_shapes(8, 16)
        ts[-1][...] = fn(*ts[:-1])

    params = ", ".join(f"a{i}: pypto.Tensor" for i in range(len(arrays) + 1))
    ns = {"pypto": pypto, "body": body}
    exec(f"def k({params}):\n    body({', '.join(f'a{i}' for i in range(len(arrays) + 1))})", ns)
    k = pypto.frontend.jit(runtime_options={"run_mode": pypto.RunMode.NPU})(ns["k"])
    with np.errstate(all="ignore"):
        k(*arrays, out)
    assert k.backend == "host"
    return out


def same(got, want):
    """Bit for bit, any NaN matching any NaN."""
    both_nan = np.isnan(got) & np.isnan(want)
    bits = got.view(np.uint32 if got.dtype == np.float32 else np.uint16)
    wbits = want.view(bits.dtype)
    bad = ~both_nan & (bits != wbits)
    assert not bad.any(), (got[bad][:5], want[bad][:5])


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rounds_once(name, dtype):
    ref, (lo, hi) = UNARY[name]
    x = np.random.default_rng(3).uniform(lo, hi, (19, 37)).astype(dtype)
    x.flat[:len(SPECIALS)] = SPECIALS
    got = npu(getattr(pypto, name), [x], dtype)
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64)).astype(dtype)
    same(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_atan2_quadrants_and_signed_zeros(dtype):
    rng = np.random.default_rng(4)
    y = rng.uniform(-5, 5, (19, 37)).astype(dtype)
    x = rng.uniform(-5, 5, (19, 37)).astype(dtype)
    # every pair of the specials, C's atan2 at zeros and infinities
    pairs = [(a, b) for a in SPECIALS for b in SPECIALS]
    y.flat[:len(pairs)] = [a for a, _ in pairs]
    x.flat[:len(pairs)] = [b for _, b in pairs]
    got = npu(pypto.atan2, [y, x], dtype)
    want = np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(dtype)
    same(got, want)
