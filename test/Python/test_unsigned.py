"""The unsigned dtypes DT_UINT8, DT_UINT16 and DT_UINT32 against numpy:
numpy interop, arithmetic that wraps, comparisons, division, min/max and
sums that are unsigned, casts both ways, at the Tensor level and through
tile-expand; and pack / unpack, which read bytes as DT_UINT8."""

import numpy as np
import pytest

import pypto

UNSIGNED = [(np.uint8, pypto.DT_UINT8), (np.uint16, pypto.DT_UINT16),
            (np.uint32, pypto.DT_UINT32)]


def urand(shape, dtype, seed):
    info = np.iinfo(dtype)
    return np.random.default_rng(seed).integers(0, int(info.max) + 1, size=shape,
                                                dtype=np.uint64).astype(dtype)


def run2(fn, a, b, out_dtype, tiles=None):
    out = np.zeros(a.shape, out_dtype)

    @pypto.frontend.jit
    def k(x: pypto.Tensor(), y: pypto.Tensor(), z: pypto.Tensor()):
        if tiles:
            pypto.set_vec_tile_shapes(*tiles)
        z[...] = fn(x, y)
    k(a, b, out)
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
        np.testing.assert_array_equal(run2(fn, a, b, np.bool_, tiles), want, err_msg=name)


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
                                   np.int64, np.uint8, np.uint16, np.uint32])
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
