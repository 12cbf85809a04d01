"""The unsigned dtypes DT_UINT8, DT_UINT16, DT_UINT32 and DT_UINT64 against numpy:
numpy interop, arithmetic that wraps, comparisons, division, min/max and
sums that are unsigned, casts both ways, at the Tensor level and through
tile-expand; and pack / unpack, which read bytes as DT_UINT8."""

import numpy as np
import pytest

import pypto

UNSIGNED = [(np.uint8, pypto.DT_UINT8), (np.uint16, pypto.DT_UINT16),
            (np.uint32, pypto.DT_UINT32), (np.uint64, pypto.DT_UINT64)]


def urand(shape, dtype, seed):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(0, int(info.max) + 1, size=shape,
                                                dtype=np.uint64).astype(dtype)


def run2(fn, a, b, out_dtype, tiles=None, backend=None):
    """fn(a, b) run by a jit kernel; `backend`: the one it must have run on."""
    out = np.zeros(a.shape, out_dtype)

    @pypto.frontend.jit
    def k(x: pypto.Tensor(), y: pypto.Tensor(), z: pypto.Tensor()):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        z[...] = fn(x, y)
    k(a, b, out)
    if backend:
        assert k.backend == backend
    return out


@pytest.mark.parametrize("np_dt,dt", UNSIGNED)
def test_dtype_enum_and_numpy(np_dt, dt):
    assert dt.numpy == np.dtype(np_dt) and dt.itemsize == np.dtype(np_dt).itemsize
    assert dt.is_int and dt.is_unsigned and not dt.is_float
    assert pypto.bytes_of(dt) == np.dtype(np_dt).itemsize
    assert pypto.DataType[dt.name] is dt
    hi = int(np.iinfo(np_dt).max)
    assert pypto.Element(dt, hi).value == hi
    with pytest.raises(OverflowError):
        pypto.Element(dt, hi + 1)
    with pytest.raises(OverflowError):
        pypto.Element(dt, -1)


@pytest.mark.parametrize("np_dt,dt", UNSIGNED)
@pytest.mark.parametrize("tiles", [None, (2, 4)])
def test_arithmetic_wraps_and_compares_unsigned(np_dt, dt, tiles):
    a = urand((4, 8), np_dt, 1)
    b = urand((4, 8), np_dt, 2)
    b[b == 0] = 1
    a[0, :4] = np.iinfo(np_dt).max          # values past the signed range
    b[0, :4] = [1, 2, np.iinfo(np_dt).max, 3]
    with np.errstate(over="ignore"):
        cases = {
            "add": (lambda x, y: x + y, a + b),
            "sub": (lambda x, y: x - y, a - b),
            "mul": (lambda x, y: x * y, a * b),
            "div": (lambda x, y: pypto.div(x, y), a // b),
            "maximum": (lambda x, y: pypto.maximum(x, y), np.maximum(a, b)),
            "minimum": (lambda x, y: pypto.minimum(x, y), np.minimum(a, b)),
            "add_scalar": (lambda x, y: x + 7, a + np_dt(7)),
        }
    for name, (fn, want) in cases.items():
        got = run2(fn, a, b, np_dt, tiles)
        assert got.dtype == np_dt
        np.testing.assert_array_equal(got, want, err_msg=name)
    for name, fn, want in [("lt", lambda x, y: x < y, a < b), ("ge", lambda x, y: x >= y, a >= b),
                           ("eq", lambda x, y: x == y, a == b)]:
        np.testing.assert_array_equal(run2(fn, a, b, np.bool_, tiles, "host"), want,
                                      err_msg=name)


@pytest.mark.parametrize("np_dt,dt", UNSIGNED)
def test_reductions_and_casts(np_dt, dt):
    a = urand((3, 16), np_dt, 3)
    a[1, 5] = np.iinfo(np_dt).max
    got = run2(lambda x, y: pypto.amax(x, -1, keepdim=True) + 0 * x, a, a, np_dt)
    np.testing.assert_array_equal(got[:, :1], a.max(-1, keepdims=True))
    got = run2(lambda x, y: pypto.sum(x, -1, keepdim=True) + 0 * x, a, a, np_dt, (3, 8))
    np.testing.assert_array_equal(got[:, :1], a.sum(-1, keepdims=True, dtype=np_dt))
    # to float and back, to a wider signed type, and a wrapping narrowing
    got = run2(lambda x, y: pypto.cast(x, pypto.DT_FP32), a, a, np.float32)
    np.testing.assert_array_equal(got, a.astype(np.float32))
    f = (a % 200).astype(np.float32) + np.float32(0.75)
    got = run2(lambda x, y: pypto.cast(x, dt, "trunc"), f, f, np_dt)
    np.testing.assert_array_equal(got, f.astype(np_dt))
    got = run2(lambda x, y: pypto.cast(x, pypto.DT_INT64), a, a, np.int64)
    np.testing.assert_array_equal(got, a.astype(np.int64))
    s = np.random.default_rng(4).integers(-70000, 70000, size=(3, 16)).astype(np.int32)
    got = run2(lambda x, y: pypto.cast(x, dt), s, s, np_dt)
    np.testing.assert_array_equal(got, s.astype(np_dt))


def test_full_and_element_scalars():
    a = urand((2, 8), np.uint8, 5)
    got = run2(lambda x, y: pypto.full([2, 8], 250, pypto.DT_UINT8) + x, a, a, np.uint8)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, a + np.uint8(250))
    got = run2(lambda x, y: x * pypto.Element(pypto.DT_UINT8, 200), a, a, np.uint8)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, a * np.uint8(200))
    with pytest.raises(OverflowError, match="256 does not fit the tensor's ui8"):
        run2(lambda x, y: x + 256, a, a, np.uint8)
    with pytest.raises(OverflowError, match="-1 does not fit the tensor's ui8"):
        run2(lambda x, y: x + (-1), a, a, np.uint8)


def run1(fn, a, out_shape, out_dtype):
    out = np.zeros(out_shape, out_dtype)

    @pypto.frontend.jit
    def k(x: pypto.Tensor(), z: pypto.Tensor()):
        z[...] = fn(x)
    k(a, out)
    return out


def test_pack_unpack_documented_example():
    x = np.array([[0x03040506, 0x01050608]], np.int32)
    y = run1(pypto.pack, x, (8,), np.uint8)
    assert (y == [6, 5, 4, 3, 8, 6, 5, 1]).all()
    z = run1(lambda t: pypto.unpack(t, pypto.DT_INT32), y, (2,), np.int32)
    assert (z == [0x03040506, 0x01050608]).all()


@pytest.mark.parametrize("np_dt", [np.float32, np.float16, np.int8, np.int16, np.int32,
                                   np.int64, np.uint8, np.uint16, np.uint32, np.uint64])
def test_pack_unpack_round_trip(np_dt):
    r = np.random.default_rng(6)
    x = (r.uniform(-9, 9, size=(3, 4)) if np.dtype(np_dt).kind == "f"
         else r.integers(0, 100, size=(3, 4))).astype(np_dt)
    n = x.size * x.itemsize
    packed = run1(pypto.pack, x, (n,), np.uint8)
    np.testing.assert_array_equal(packed, x.reshape(-1).view(np.uint8))
    dt = pypto.DataType.DT_FP32
    for d in pypto.DataType:
        if d.numpy == np.dtype(np_dt) and d is not pypto.DT_BF16 and not d.is_fp8:
            dt = d
    back = run1(lambda t: pypto.unpack(t, dt), packed, (x.size,), np_dt)
    np.testing.assert_array_equal(back, x.reshape(-1))


def test_pack_unpack_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"unpack: self must be a 1-D DT_UINT8 tensor, got "
                       r"\[2, 3\] pypto.DT_FP32") as e:
        run1(lambda t: pypto.unpack(t, pypto.DT_INT32), x, (6,), np.int32)
    assert "test_unsigned.py" in str(e.value)
    b = np.zeros(6, np.uint8)
    with pytest.raises(ValueError, match="6 bytes do not hold a whole number of DT_INT32"):
        run1(lambda t: pypto.unpack(t, pypto.DT_INT32), b, (1,), np.int32)
    with pytest.raises(TypeError, match="DT_BOOL has no byte layout"):
        run1(pypto.pack, np.zeros(4, np.bool_), (4,), np.uint8)


def u64_operands(seed):
    """DT_UINT64 operands half of whose values lie past 2^63, where the
    int64 the kernels compute in reads them as negative."""
    a = urand((4, 8), np.uint64, seed)
    b = urand((4, 8), np.uint64, seed + 1)
    a[0, :4] = [2**64 - 1, 2**63, 2**63 + 1, 5]
    b[0, :4] = [3, 2**63 + 7, 1, 2**63]
    b[1, :2] = 0                            # x / 0 = 0, as for the other ints
    a[2, :4] = 2**63 + 12345                # ties for the arg-reductions
    return a, b


@pytest.mark.parametrize("tiles", [None, (2, 4)])
def test_u64_ops_past_the_signed_range(tiles):
    a, b = u64_operands(11)
    s = (b % 70).astype(np.uint64)           # shift counts, some past 63
    safe_b = np.where(b == 0, np.uint64(1), b)
    with np.errstate(over="ignore", divide="ignore"):
        cases = {
            "div": (lambda x, y: pypto.div(x, y), np.where(b == 0, 0, a // safe_b), b),
            "floor_div": (lambda x, y: pypto.floor_div(x, y), a // safe_b, safe_b),
            "remainder": (lambda x, y: pypto.remainder(x, y), a % safe_b, safe_b),
            "shr": (lambda x, y: pypto.bitwise_right_shift(x, y),
                    np.where(s > 63, 0, a >> np.minimum(s, 63)), s),
            "shl": (lambda x, y: pypto.bitwise_left_shift(x, y),
                    np.where(s > 63, 0, a << np.minimum(s, 63)), s),
            "gcd": (lambda x, y: pypto.gcd(x, y), np.gcd(a, b), b),
            "xor": (lambda x, y: pypto.bitwise_xor(x, y), a ^ b, b),
            "mul": (lambda x, y: x * y, a * b, b),
            "maximum": (lambda x, y: pypto.maximum(x, y), np.maximum(a, b), b),
            "minimum": (lambda x, y: pypto.minimum(x, y), np.minimum(a, b), b),
            "abs": (lambda x, y: pypto.abs(x), a, b),
            "neg": (lambda x, y: pypto.neg(x), np.uint64(0) - a, b),
            "sign": (lambda x, y: pypto.sign(x), (a != 0).astype(np.uint64), b),
            "relu": (lambda x, y: pypto.relu(x), a, b),
            "where": (lambda x, y: pypto.where(x > y, x, y), np.where(a > b, a, b), b),
        }
    # all compiled (lowered to PTO and run by the JIT)
    for name, (fn, want, other) in cases.items():
        got = run2(fn, a, other, np.uint64, tiles, backend="host")
        np.testing.assert_array_equal(got, want, err_msg=name)
    for name, fn, want in [("lt", lambda x, y: x < y, a < b), ("le", lambda x, y: x <= y, a <= b),
                           ("gt", lambda x, y: x > y, a > b), ("ne", lambda x, y: x != y, a != b),
                           ("signbit", lambda x, y: pypto.signbit(x), np.zeros(a.shape, bool))]:
        np.testing.assert_array_equal(run2(fn, a, b, np.bool_, tiles, "host"), want,
                                      err_msg=name)


@pytest.mark.parametrize("tiles", [None, (2, 4)])
def test_u64_reductions_and_topk(tiles):
    a, _ = u64_operands(12)
    for name, fn, want in [
            ("amax", lambda x: pypto.amax(x, -1, keepdim=True), a.max(-1, keepdims=True)),
            ("amin", lambda x: pypto.amin(x, -1, keepdim=True), a.min(-1, keepdims=True)),
            ("amax0", lambda x: pypto.amax(x, 0, keepdim=True), a.max(0, keepdims=True)),
            ("sum", lambda x: pypto.sum(x, -1, keepdim=True), a.sum(-1, keepdims=True)),
            ("topk", lambda x: pypto.topk(x, 3, -1)[0], -np.sort(-a.astype(object), -1)[:, :3]),
            ("topk_min", lambda x: pypto.topk(x, 3, -1, largest=False)[0],
             np.sort(a, -1)[:, :3])]:
        out = np.zeros(want.shape, np.uint64)

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), z: pypto.Tensor()):
            if tiles:
                pypto.set_vec_tile_shapes(*tiles)
            z[...] = fn(x)
        k(a, out)
        assert k.backend == "host", name
        np.testing.assert_array_equal(out, want.astype(np.uint64), err_msg=name)
    for name, fn, want in [("argmax", pypto.argmax, a.argmax(-1)),
                           ("argmin", pypto.argmin, a.argmin(-1))]:
        out = np.zeros((4, 1), np.int32)

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), z: pypto.Tensor()):
            if tiles:
                pypto.set_vec_tile_shapes(*tiles)
            z[...] = fn(x, -1, keepdim=True)
        k(a, out)
        assert k.backend == "host", name
        np.testing.assert_array_equal(out[:, 0], want, err_msg=name)


def test_u64_casts_both_ways():
    a, _ = u64_operands(13)
    for np_to, dt in [(np.float32, pypto.DT_FP32), (np.float16, pypto.DT_FP16),
                      (np.int64, pypto.DT_INT64), (np.int8, pypto.DT_INT8),
                      (np.uint32, pypto.DT_UINT32)]:
        with np.errstate(over="ignore"):
            want = a.astype(np_to)
        got = run2(lambda x, y: pypto.cast(x, dt), a, a, np_to, backend="host")
        np.testing.assert_array_equal(got, want, err_msg=str(dt))
    # floats at and past 2^63 come back with their value; int64 wraps
    f = np.array([[0, 1.5, 2.0**63, 2.0**64 - 2.0**40, 3e18, 1e19, 17.9, 2.0**63 + 2.0**11]],
                 np.float32).astype(np.float32)
    got = run2(lambda x, y: pypto.cast(x, pypto.DT_UINT64, "trunc"), f, f, np.uint64, backend="host")
    np.testing.assert_array_equal(got, f.astype(np.uint64))
    i = np.array([[-1, -2**63, 2**63 - 1, 0, 7, -9, 100, -100]], np.int64)
    got = run2(lambda x, y: pypto.cast(x, pypto.DT_UINT64), i, i, np.uint64)
    np.testing.assert_array_equal(got, i.astype(np.uint64))


def test_u64_full_and_scalars_past_2_63():
    a, _ = u64_operands(14)
    with np.errstate(over="ignore"):
        got = run2(lambda x, y: pypto.full([4, 8], 2**64 - 1, pypto.DT_UINT64) + x, a, a,
                   np.uint64)
        np.testing.assert_array_equal(got, a + np.uint64(2**64 - 1))
        got = run2(lambda x, y: x // (2**63 + 3), a, a, np.uint64, backend="host")
        np.testing.assert_array_equal(got, a // np.uint64(2**63 + 3))
    got = run2(lambda x, y: x * pypto.Element(pypto.DT_UINT64, 2**63), a, a, np.uint64)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(got, a * np.uint64(2**63))
    with pytest.raises(OverflowError, match="18446744073709551616 does not fit the tensor's ui64"):
        run2(lambda x, y: x + 2**64, a, a, np.uint64)


def test_u64_torch_results_need_a_torch_uint64():
    torch = pytest.importorskip("torch")
    if hasattr(torch, "uint64"):
        pytest.skip("this torch has uint64 tensors")

    @pypto.frontend.jit
    def k(x: pypto.Tensor([2, 4], pypto.DT_INT64)):
        return pypto.cast(x, pypto.DT_UINT64)
    with pytest.raises(pypto.UnsupportedError,
                       match=f"torch {torch.__version__} has no uint64 tensors, so a "
                       "DT_UINT64 result cannot be returned as one"):
        k(torch.zeros(2, 4, dtype=torch.int64))
