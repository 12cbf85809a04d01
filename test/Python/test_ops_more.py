"""PyPTO's math ops beyond the first set, against numpy: the new unary ops
(trunc, tan, sinh, cosh, the inverse trigonometric and hyperbolic ones,
erfc, cbrt, exp2, log2, log10), the ops composed of Tensor-level ops
(isnan, fmod, var, ...) and the Tensor methods, through tracing,
tile-expand and the interpreter."""

import math

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand
from test_ops import run1

NEW_UNARY = {
    "trunc": (np.trunc, (-3, 3)), "tan": (np.tan, (-1.4, 1.4)), "sinh": (np.sinh, (-3, 3)),
    "cosh": (np.cosh, (-3, 3)), "asin": (np.arcsin, (-1, 1)), "acos": (np.arccos, (-1, 1)),
    "atan": (np.arctan, (-5, 5)), "asinh": (np.arcsinh, (-5, 5)),
    "acosh": (np.arccosh, (1, 5)), "atanh": (np.arctanh, (-0.99, 0.99)),
    "erfc": (np.vectorize(math.erfc, otypes=[np.float64]), (-2, 9)),
    "cbrt": (np.cbrt, (-8, 8)), "exp2": (np.exp2, (-10, 10)), "log2": (np.log2, (0.01, 9)),
    "log10": (np.log10, (0.01, 9)),
}


@pytest.mark.parametrize("name", sorted(NEW_UNARY))
def test_new_unary_f32(name):
    ref, (lo, hi) = NEW_UNARY[name]
    x = rand((6, 40), lo=lo, hi=hi, seed=3)
    op = getattr(pypto, name)
    want = ref(x.astype(np.float64)).astype(np.float32)
    assert_close(run1(op, x), want, 2e-7, 0)


@pytest.mark.parametrize("name", ["sinh", "erfc", "exp2", "log10", "atan"])
def test_new_unary_f16(name):
    ref, (lo, hi) = NEW_UNARY[name]
    x = rand((4, 64), np.float16, lo=lo, hi=min(hi, 4), seed=5)
    want = ref(x.astype(np.float64)).astype(np.float16)
    assert_close(run1(getattr(pypto, name), x), want, 1e-3, 1e-6)


def test_sinh_and_erfc_where_a_composition_would_cancel():
    # exp(x) - exp(-x) and 1 - erf(x) lose every digit here
    x = np.array([[1e-6, -3e-7, 5.5, 8.0]], np.float32)
    assert_close(run1(pypto.sinh, x), np.sinh(x.astype(np.float64)).astype(np.float32),
                 2e-7, 0)
    want = np.vectorize(math.erfc)(x.astype(np.float64)).astype(np.float32)
    assert_close(run1(pypto.erfc, x), want, 2e-7, 0)


@pytest.mark.parametrize("dtype", [np.int32, np.int8, np.int64])
def test_trunc_of_integers_is_the_identity(dtype):
    x = rand((4, 16), dtype, -50, 50, seed=4)
    assert_close(run1(pypto.trunc, x), x)


def test_log_bases_and_precision():
    x = rand((4, 16), lo=0.1, hi=8, seed=6)
    for base, ref in ((pypto.LogBaseType.LOG_E, np.log), (pypto.LogBaseType.LOG_2, np.log2),
                      (pypto.LogBaseType.LOG_10, np.log10)):
        got = run1(lambda t: pypto.log(t, base, pypto.PrecisionType.INTRINSIC), x)
        assert_close(got, ref(x.astype(np.float64)).astype(np.float32), 2e-7, 0)
    with pytest.raises(TypeError, match="base must be a pypto.LogBaseType") as e:
        run1(lambda t: pypto.log(t, 2), x)
    assert "test_ops_more.py" in str(e.value)
    with pytest.raises(TypeError, match="precision_type must be a pypto.PrecisionType"):
        run1(lambda t: pypto.exp(t, "high"), x)


def test_isnan_isfinite():
    x = rand((4, 16), seed=7)
    x[0, :4] = [np.nan, np.inf, -np.inf, 0.0]
    assert (run1(pypto.isnan, x, out_dtype=np.bool_) == np.isnan(x)).all()
    assert (run1(pypto.isfinite, x, out_dtype=np.bool_) == np.isfinite(x)).all()
    i = rand((4, 16), np.int32, -9, 9, seed=8)
    assert run1(pypto.isfinite, i, out_dtype=np.bool_).all()
    assert not run1(pypto.isnan, i, out_dtype=np.bool_).any()


def test_logical_ops():
    a = rand((4, 16), np.int32, -2, 2, seed=9)
    b = rand((4, 1), np.float32, -1, 1, seed=10)
    b[0, 0] = 0
    assert (run1(pypto.logical_not, a, out_dtype=np.bool_) == (a == 0)).all()
    got = run1(pypto.logical_and, a.astype(np.float32), b, out_dtype=np.bool_)
    assert (got == np.logical_and(a != 0, b != 0)).all()
    m = rand((4, 16), np.bool_, seed=11)
    assert (run1(lambda t: t.logical_not(), m) == ~m).all()


def test_lrelu_and_prelu():
    x = rand((4, 6, 8), seed=12)
    assert_close(run1(lambda t: pypto.lrelu(t, pypto.Element(pypto.DT_FP32, 0.2)), x),
                 np.where(x < 0, 0.2 * x, x))
    w = rand((6,), lo=0, hi=1, seed=13)
    assert_close(run1(pypto.prelu, x, w, out_shape=x.shape),
                 np.where(x >= 0, x, x * w[None, :, None]))
    x1 = rand((16,), seed=14)
    w1 = np.array([0.25], np.float32)
    assert_close(run1(pypto.prelu, x1, w1, out_shape=x1.shape), np.where(x1 >= 0, x1, 0.25 * x1))
    with pytest.raises(ValueError, match="a 3-D input needs 6"):
        run1(pypto.prelu, x, np.ones(5, np.float32), out_shape=x.shape)
    with pytest.raises(ValueError, match="negative_slope must be >= 0"):
        run1(lambda t: pypto.lrelu(t, -1.0), x)


def test_hypot():
    a, b = rand((4, 16), seed=15), rand((4, 16), seed=16)
    assert_close(run1(pypto.hypot, a, b), np.hypot(a, b), 2e-7, 1e-7)
    big = np.full((2, 16), 300.0, np.float16)  # 300^2 overflows f16
    assert_close(run1(pypto.hypot, big, big), np.hypot(big.astype(np.float32),
                                                        big.astype(np.float32)).astype(np.float16),
                 1e-3, 0)


def test_fmod_remainder_float():
    a = rand((4, 16), lo=-9, hi=9, seed=17)
    b = rand((4, 16), lo=0.5, hi=3, seed=18) * np.where(rand((4, 16), seed=19) < 0, -1, 1)
    b = b.astype(np.float32)
    assert_close(run1(pypto.fmod, a, b), np.fmod(a, b), 1e-6, 1e-5)
    assert_close(run1(pypto.remainder, a, b), np.remainder(a, b), 1e-6, 1e-5)
    assert_close(run1(lambda t: pypto.fmod(t, 3.0), a), np.fmod(a, np.float32(3)), 1e-6, 1e-5)
    assert_close(run1(lambda t: t.remainder(-3.0), a), np.remainder(a, np.float32(-3)),
                 1e-6, 1e-5)
    with pytest.raises(TypeError, match="fmod takes a float tensor") as e:
        run1(lambda t: pypto.fmod(t, 2), a.astype(np.int32))
    assert "test_ops_more.py" in str(e.value)


@pytest.mark.parametrize("dtype", [np.int32, np.int16, np.int8])
def test_integer_divisions(dtype):
    a = rand((4, 16), dtype, -100, 100, seed=20)
    b = rand((4, 16), dtype, 1, 9, seed=21) * np.where(rand((4, 16), seed=22) < 0, -1, 1)
    b = b.astype(dtype)
    assert_close(run1(pypto.floor_div, a, b), a // b)
    assert_close(run1(pypto.remainder, a, b), np.remainder(a, b))
    assert_close(run1(pypto.ceil_div, a, b), -((-a) // b))
    assert_close(run1(lambda t: pypto.floor_div(t, 7), a), a // 7)


def test_floor_div_float_and_ceil_div_errors():
    a, b = rand((4, 16), lo=-9, hi=9, seed=23), rand((4, 16), lo=0.5, hi=3, seed=24)
    assert_close(run1(pypto.floor_div, a, b), np.floor(a / b))
    with pytest.raises(TypeError, match="ceil_div takes integer tensors"):
        run1(pypto.ceil_div, a, b)


def test_shape_helpers():
    x = rand((4, 1, 8), seed=25)
    assert_close(run1(lambda t: pypto.expand_clone(t, [4, 3, 8]), x, out_shape=(4, 3, 8)),
                 np.broadcast_to(x, (4, 3, 8)))
    assert_close(run1(lambda t: pypto.unsqueeze(t, -1), x, out_shape=(4, 1, 8, 1)),
                 x[..., None])
    assert_close(run1(lambda t: t.unsqueeze(0), x, out_shape=(1, 4, 1, 8)), x[None])
    assert_close(run1(pypto.clone, x), x)
    with pytest.raises(IndexError, match=r"unsqueeze: dim must be an int in \[-4, 3\]"):
        run1(lambda t: pypto.unsqueeze(t, 4), x)


def test_clone_is_independent(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    x = rand((4, 8), seed=26)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        c = pypto.clone(a)
        c[0:1, :] = 0.0
        y[:] = a - c
    y = np.zeros_like(x)
    k(x, y)
    want = np.zeros_like(x)
    want[0] = x[0]
    assert_close(y, want)
    assert k.backend == "host"  # the update of the folded clone goes to a copy


@pytest.mark.parametrize("dim,correction,keepdim", [
    (1, 1, True), (-1, 0, False), ([0, 2], 1, False), (None, 2, True), (0, 1.5, False)])
def test_var(dim, correction, keepdim):
    x = rand((3, 5, 8), seed=27)
    want = np.var(x.astype(np.float64), axis=tuple(dim) if isinstance(dim, list) else dim,
                  ddof=correction, keepdims=keepdim)
    shape = want.shape or (1,)
    got = run1(lambda t: pypto.var(t, dim, correction=correction, keepdim=keepdim), x,
               out_shape=shape)
    assert_close(got, want.reshape(shape).astype(np.float32), 1e-5, 1e-6)


def test_var_errors():
    x = rand((3, 5), seed=28)
    with pytest.raises(ValueError, match="dim 1 given twice"):
        run1(lambda t: pypto.var(t, [1, -1]), x)
    with pytest.raises(TypeError, match="var takes a float tensor"):
        run1(lambda t: pypto.var(t, 0), x.astype(np.int32))


def test_expand_exp_dif_and_axpy():
    x, y = rand((4, 8), seed=29), rand((4, 1), seed=30)
    assert_close(run1(pypto.expand_exp_dif, x, y, out_shape=(4, 8)),
                 np.exp(x.astype(np.float64) - y).astype(np.float32), 2e-6, 0)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), b: pypto.Tensor([4, 1], pypto.DT_FP16)):
        a.axpy_(b, alpha=2.0)
    a, b = x.copy(), y.astype(np.float16)
    k(a, b)
    assert_close(a, x + 2.0 * b.astype(np.float32), 1e-6, 1e-6)


TENSOR_METHODS = [
    ("add", lambda t, u: t.add(u), lambda a, b: a + b),
    ("sub", lambda t, u: t.sub(u), lambda a, b: a - b),
    ("mul", lambda t, u: t.mul(u), lambda a, b: a * b),
    ("div", lambda t, u: t.div(u), lambda a, b: a / b),
    ("maximum", lambda t, u: t.maximum(u), np.maximum),
    ("fmod", lambda t, u: t.fmod(u), np.fmod),
    ("where", lambda t, u: t.where(t > u, u), lambda a, b: np.where(a > b, a, b)),
]


@pytest.mark.parametrize("name,method,ref", TENSOR_METHODS)
def test_tensor_binary_methods(name, method, ref):
    a, b = rand((4, 16), seed=31), rand((4, 16), lo=0.5, hi=2, seed=32)
    assert_close(run1(method, a, b), ref(a, b).astype(np.float32), 1e-6, 1e-6)


UNARY_METHODS = ["ceil", "floor", "trunc", "round", "cos", "sin", "sigmoid", "exp2", "expm1",
                 "log", "log2", "log10", "reciprocal", "rsqrt", "sqrt"]


@pytest.mark.parametrize("name", UNARY_METHODS)
def test_tensor_unary_methods(name):
    x = rand((4, 16), lo=0.1, hi=3, seed=33)
    want = run1(getattr(pypto, name), x)
    assert_close(run1(lambda t: getattr(t, name)(), x), want)


def test_tensor_other_methods():
    x, w = rand((4, 16), seed=34), rand((16, 8), seed=35)
    assert_close(run1(lambda t, u: t.matmul(u, pypto.DT_FP32), x, w, out_shape=(4, 8)),
                 x @ w, 1e-5, 1e-5)
    assert_close(run1(lambda t: t.softmax(-1), x),
                 np.exp(x) / np.exp(x).sum(-1, keepdims=True), 1e-6, 1e-6)
    assert_close(run1(lambda t: t.topk(3, -1, True, pypto.TopKAlgo.RADIX_SELECT)[0], x,
                      out_shape=(4, 3)), -np.sort(-x, -1)[:, :3])
    assert_close(run1(lambda t: pypto.Tensor.concat([t, t], 0), x, out_shape=(8, 16)),
                 np.concatenate([x, x]))
    idx = np.array([[0, 3], [1, 2], [5, 5], [15, 0]], np.int32)
    assert_close(run1(lambda t, i: t.gather(1, i), x, idx, out_shape=(4, 2)),
                 np.take_along_axis(x, idx, 1))
    assert_close(run1(lambda t: t.getitem((slice(1, 3), slice(None))), x, out_shape=(2, 16)),
                 x[1:3])


def test_tensor_move_assemble_and_metadata():
    x = rand((4, 8), seed=36)
    seen = {}

    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32),
          z: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y.move(a * 2.0)
        z.assemble(a[0:2, :], [2, 0])
        a.set_cache_policy(pypto.CachePolicy.NONE_CACHEABLE, True)
        seen["policy"] = (a.get_cache_policy(pypto.CachePolicy.NONE_CACHEABLE),
                          a.get_cache_policy(pypto.CachePolicy.PREFETCH))
        seen["ids"] = (a.id, y.id, a.id)
    y, z = np.zeros_like(x), np.zeros_like(x)
    k(x, y, z)
    assert_close(y, 2 * x)
    want = np.zeros_like(x)
    want[2:] = x[:2]
    assert_close(z, want)
    assert seen["policy"] == (True, False)
    assert seen["ids"][0] == seen["ids"][2] != seen["ids"][1]


def test_tensor_method_errors():
    x = rand((4, 8), seed=37)
    with pytest.raises(ValueError, match="move: the source") as e:
        run1(lambda t: t.move(t[0:2, :]) or t, x)
    assert "test_ops_more.py" in str(e.value)
    with pytest.raises(TypeError, match="policy must be a pypto.CachePolicy"):
        run1(lambda t: t.set_cache_policy("PREFETCH", True) or t, x)
    with pytest.raises(ValueError, match=r"getitem: valid_shape\[0\] is 3, outside \[0, 2\]"):
        run1(lambda t: t.getitem((slice(0, 2),), valid_shape=[3, 8]), x, out_shape=(2, 8))


def test_reshape_inplace():
    x = rand((4, 8), seed=38)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([2, 16], pypto.DT_FP32)):
        b = a + 1.0
        b.reshape([2, 16], inplace=True)
        y[:] = b
    y = np.zeros((2, 16), np.float32)
    k(x, y)
    assert_close(y, (x + 1).reshape(2, 16))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32])
def test_floordiv_and_mod_operators(dtype):
    a = rand((4, 16), dtype, -100, 100, seed=40)
    b = rand((4, 16), dtype, 1, 9, seed=41) * np.where(rand((4, 16), seed=42) < 0, -1, 1)
    b = b.astype(dtype)
    tol = (1e-6, 1e-5) if dtype == np.float32 else (0, 0)
    assert_close(run1(lambda t, u: t // u, a, b), a // b, *tol)
    assert_close(run1(lambda t, u: t % u, a, b), np.remainder(a, b), *tol)
    assert_close(run1(lambda t: t // 3, a), a // dtype(3), *tol)
    assert_close(run1(lambda t: t % -3, a), np.remainder(a, dtype(-3)), *tol)
    assert_close(run1(lambda t: 7 // t, b), dtype(7) // b, *tol)


def test_integer_division_is_exact_beyond_2_24():
    a = np.array([[2 ** 30 + 7, -(2 ** 30) - 7, 2 ** 31 - 1, -(2 ** 31)]], np.int32)
    b = np.array([[3, 3, -5, 7]], np.int32)
    assert_close(run1(pypto.floor_div, a, b), a // b)
    assert_close(run1(pypto.remainder, a, b), np.remainder(a, b))
    assert_close(run1(pypto.ceil_div, a, b), -((-a.astype(np.int64)) // b).astype(np.int32))


def test_vec_tile_with_more_sizes_than_dims():
    x = rand((4, 8), seed=43)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32),
          z: pypto.Tensor([1], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(8, 32)
        z[:] = pypto.full([1], 2.0, pypto.DT_FP32)
        pypto.set_vec_tile_shapes(1, 2, 4)
        y[:] = pypto.exp(a)
    y, z = np.zeros_like(x), np.zeros(1, np.float32)
    k(x, y, z)
    assert_close(y, np.exp(x), 2e-7, 0)
    assert z[0] == 2.0
    assert "vec_tile = [1, 2, 4]" in k.ir()


def test_any_shape_annotations_and_the_jit_alias():
    @pypto.jit
    def k(a: pypto.Tensor([], pypto.DT_FP32), y: pypto.tensor()):
        y[:] = a + 1.0
    for shape in [(3,), (2, 5)]:
        x = rand(shape, seed=44)
        y = np.zeros_like(x)
        k(x, y)
        assert_close(y, x + 1)
    assert pypto.jit is pypto.frontend.jit
    with pytest.raises(pypto.ArgumentError, match="dtype"):
        k(rand((3,), np.float16), np.zeros(3, np.float16))


def _k0(fn, out_shape, out_dtype):
    """Runs fn() (no inputs) as a kernel writing into an output."""
    y = np.zeros(out_shape, out_dtype)

    @pypto.frontend.jit
    def k(out: pypto.Tensor()):
        out[:] = fn()
    k(y)
    return y


@pytest.mark.parametrize("args,want", [
    ((5,), np.arange(5, dtype=np.int32)), ((1, 4), np.arange(1, 4, dtype=np.int32)),
    ((-3, 20, 3), np.arange(-3, 20, 3, dtype=np.int32)),
    ((10, 0, -4), np.arange(10, 0, -4, dtype=np.int32)),
    ((1.0, 4.0, 0.5), np.arange(1.0, 4.0, 0.5, dtype=np.float32)),
    ((0, 1, 0.1), np.arange(0, 1, 0.1).astype(np.float32)),
    ((100,), np.arange(100, dtype=np.int32))])
def test_arange(args, want):
    got = _k0(lambda: pypto.arange(*args), want.shape, want.dtype)
    assert_close(got, want, 1e-6, 1e-7)


def test_arange_errors():
    for args, err, msg in [((0, 5, 0), ValueError, "step must not be 0"),
                           ((5, 0), ValueError, "is empty"),
                           (("5",), TypeError, "end must be an int or a float")]:
        with pytest.raises(err, match=msg) as e:
            _k0(lambda: pypto.arange(*args), (1,), np.int32)
        assert "test_ops_more.py" in str(e.value)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int8])
def test_one_hot(dtype):
    x = rand((3, 5), dtype, 0, 6, seed=50)
    got = run1(lambda t: pypto.one_hot(t, 7), x, out_shape=(3, 5, 7), out_dtype=np.int64)
    assert (got == np.eye(7, dtype=np.int64)[x]).all()
    with pytest.raises(ValueError, match="num_classes must be a positive int"):
        run1(lambda t: pypto.one_hot(t, 0), x)


@pytest.mark.parametrize("diagonal", [0, 2, -1])
def test_tril_triu(diagonal):
    x = rand((2, 5, 7), seed=51)
    assert_close(run1(lambda t: pypto.tril(t, diagonal), x), np.tril(x, diagonal))
    assert_close(run1(lambda t: t.triu(diagonal), x), np.triu(x, diagonal))
    i = rand((6, 4), np.int32, -9, 9, seed=52)
    assert_close(run1(lambda t: t.tril(diagonal), i), np.tril(i, diagonal))


def test_tril_triu_in_place_and_symbolic_diagonal():
    x = rand((6, 6), seed=53)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([6, 6], pypto.DT_FP32), y: pypto.Tensor([3, 6, 6], pypto.DT_FP32)):
        for i in pypto.loop(3):
            t = pypto.clone(a)
            t.tril_(i - 1)
            y[i:i + 1, :, :] = pypto.unsqueeze(t, 0)
        a.triu_(1)
    y = np.zeros((3, 6, 6), np.float32)
    a = x.copy()
    k(a, y)
    for i in range(3):
        assert_close(y[i], np.tril(x, i - 1))
    assert_close(a, np.triu(x, 1))
    with pytest.raises(ValueError, match="tril takes a tensor of 2 or more dims"):
        run1(pypto.tril, rand((5,)))


@pytest.mark.parametrize("pads,value", [((0, 2), 0), ((1, 2, 3, 0), -1.5),
                                        ((0, 1, 0, 1, 2, 0), float("-inf"))])
def test_pad(pads, value):
    x = rand((2, 3, 4), seed=54)
    width = [(0, 0)] * 3
    for i in range(len(pads) // 2):
        width[2 - i] = (pads[2 * i], pads[2 * i + 1])
    want = np.pad(x, width, constant_values=value)
    got = run1(lambda t: pypto.pad(t, pads, value=value), x, out_shape=want.shape)
    assert_close(got, want)


def test_pad_errors():
    x = rand((2, 3), seed=55)
    for kw, err, msg in [({"pad": (1,)}, TypeError, "even-length"),
                         ({"pad": (0, -1)}, ValueError, "negative padding"),
                         ({"pad": (0, 1), "mode": "reflect"}, pypto.UnsupportedError,
                          "only 'constant'")]:
        with pytest.raises(err, match=msg):
            run1(lambda t: pypto.pad(t, **kw), x, out_shape=(2, 4))
    with pytest.raises(ValueError, match="takes an int value"):
        run1(lambda t: pypto.pad(t, (0, 1), value=0.5), x.astype(np.int32), out_shape=(2, 4))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum(dim):
    x = rand((5, 9, 3), seed=60)
    assert_close(run1(lambda t: pypto.cumsum(t, dim), x), np.cumsum(x, dim), 1e-6, 1e-6)
    i = rand((5, 9, 3), np.int32, -100, 100, seed=61)
    got = run1(lambda t: t.cumsum(dim), i, out_dtype=np.int64)
    assert (got == np.cumsum(i.astype(np.int64), dim)).all()


@pytest.mark.parametrize("dim", [0, -1])
def test_cumprod(dim):
    x = rand((4, 7), lo=0.5, hi=1.5, seed=62)
    assert_close(run1(lambda t: pypto.cumprod(t, dim), x), np.cumprod(x, dim), 1e-6, 1e-7)
    assert_close(run1(lambda t: t.cumprod(dim), x), np.cumprod(x, dim), 1e-6, 1e-7)


def test_scan_errors():
    x = rand((4, 7), seed=63)
    with pytest.raises(IndexError, match=r"cumsum: dim must be an int in \[-2, 2\)"):
        run1(lambda t: pypto.cumsum(t, 2), x)
    with pytest.raises(TypeError, match="cumprod takes a float tensor"):
        run1(lambda t: pypto.cumprod(t, 0), x.astype(np.int32))


@pytest.mark.parametrize("dim,descending", [(None, True), (0, False), (1, True), (-1, False)])
def test_argsort_is_stable(dim, descending):
    x = rand((6, 8), np.int32, 0, 3, seed=64).astype(np.float32)  # many ties
    d = -1 if dim is None else dim
    want = np.argsort(-x if descending else x, axis=d, kind="stable").astype(np.int32)
    got = run1(lambda t: pypto.argsort(t, dim, descending), x, out_dtype=np.int32)
    assert (got == want).all()
    with pytest.raises(TypeError, match="descending must be a bool"):
        run1(lambda t: pypto.argsort(t, -1, 1), x, out_dtype=np.int32)


BITWISE = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
           "bitwise_xor": np.bitwise_xor}


@pytest.mark.parametrize("name", sorted(BITWISE))
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.bool_])
def test_bitwise(name, dtype):
    a = rand((4, 16), dtype, -100, 100, seed=70)
    b = rand((1, 16), dtype, -100, 100, seed=71)
    assert (run1(getattr(pypto, name), a, b, out_shape=a.shape) == BITWISE[name](a, b)).all()


def test_bitwise_operators_and_not():
    a = rand((4, 16), np.int32, -1000, 1000, seed=72)
    b = rand((4, 16), np.int32, -1000, 1000, seed=73)
    assert (run1(lambda t, u: (t & u) | (t ^ 5), a, b) == (a & b) | (a ^ 5)).all()
    assert (run1(lambda t: ~t, a) == ~a).all()
    assert (run1(lambda t: 6 & t, a) == (6 & a)).all()
    m = rand((4, 16), np.bool_, seed=74)
    assert (run1(pypto.bitwise_not, m) == ~m).all()


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_shifts(dtype):
    a = rand((4, 16), dtype, -100, 100, seed=75)
    s = rand((4, 16), dtype, 0, 6, seed=76)
    assert (run1(pypto.bitwise_left_shift, a, s) == np.left_shift(a, s)).all()
    assert (run1(pypto.bitwise_right_shift, a, s) == np.right_shift(a, s)).all()
    assert (run1(lambda t: t >> 2, a) == (a >> 2)).all()
    assert (run1(lambda t: t << 1, a) == (a << 1)).all()


def test_shift_counts_outside_the_width():
    a = np.array([[5, -5, 5, -5]], np.int32)
    s = np.array([[64, 64, -1, 70]], np.int32)
    assert (run1(pypto.bitwise_left_shift, a, s) == 0).all()
    assert (run1(pypto.bitwise_right_shift, a, s) == [[0, -1, 0, -1]]).all()


def test_bitwise_errors():
    x = rand((4, 8), seed=77)
    with pytest.raises(TypeError, match="bitwise_and takes integer tensors") as e:
        run1(lambda t: pypto.bitwise_and(t, t), x)
    assert "test_ops_more.py" in str(e.value)
    with pytest.raises(TypeError, match="other must be a tensor or an int"):
        run1(lambda t: pypto.bitwise_or(t, 1.5), x.astype(np.int32))
    with pytest.raises(TypeError, match="bitwise_not takes an integer or bool"):
        run1(pypto.bitwise_not, x)


def test_atan2():
    y = rand((4, 16), seed=80)
    x = rand((1, 16), seed=81)
    y[0, :4] = [1.0, -1.0, 0.0, -0.0]
    x[0, :4] = [-1.0, -1.0, -1.0, -1.0]
    assert_close(run1(pypto.atan2, y, x, out_shape=y.shape),
                 np.arctan2(y.astype(np.float64), x).astype(np.float32), 2e-7, 0)
    got = run1(pypto.atan2, y, x, out_shape=y.shape)
    assert np.signbit(got[0, 3]) and got[0, 2] > 0  # the sign of zero picks the branch
    with pytest.raises(TypeError, match="atan2 takes float tensors, x is pypto.DT_INT32"):
        run1(pypto.atan2, y, x.astype(np.int32), out_shape=y.shape)


def test_interleave_deinterleave():
    a, b = rand((3, 8), seed=82), rand((3, 8), seed=83)
    stream = np.stack([a, b], -1).reshape(3, 16)
    o0 = run1(lambda t, u: pypto.interleave(t, u)[0], a, b)
    o1 = run1(lambda t, u: pypto.interleave(t, u)[1], a, b)
    assert_close(o0, stream[:, :8])
    assert_close(o1, stream[:, 8:])
    assert_close(run1(lambda t, u: pypto.deinterleave(t, u)[0], o0, o1), a)
    assert_close(run1(lambda t, u: pypto.deinterleave(t, u)[1], o0, o1), b)
    assert_close(run1(lambda s: pypto.deinterleave(s)[1], stream, out_shape=(3, 8)), b)
    with pytest.raises(ValueError, match="last dim must be static and even"):
        run1(lambda t: pypto.deinterleave(t)[0], rand((3, 7)), out_shape=(3, 3))
    with pytest.raises(ValueError, match="must have input's shape"):
        run1(lambda t, u: pypto.interleave(t, u)[0], a, rand((3, 6)))
