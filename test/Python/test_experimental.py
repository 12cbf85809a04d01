"""pypto.experimental's ops against numpy, the operation options, the
reusable sub-functions of pypto.frontend.function, and the goldens of
pypto.set_verify_golden_data."""

import numpy as np
import pytest

import pypto
from conftest import assert_close, from_bf16, rand
from test_ops import run1


# every test starts and ends with the default options
pytestmark = pytest.mark.usefixtures("clean_options")


def test_transposed_batchmatmul():
    a = rand((16, 2, 32), np.float16, seed=1)
    b = rand((2, 32, 8), np.float16, seed=2)
    got = run1(lambda x, y: pypto.experimental.transposed_batchmatmul(x, y, pypto.DT_FP16),
               a, b, out_shape=(16, 2, 8))
    want = np.einsum("mbk,bkn->mbn", a.astype(np.float32), b.astype(np.float32))
    assert_close(got, want.astype(np.float16), 2e-3, 2e-3)
    with pytest.raises(ValueError, match="must be \\(B, K, N\\) with the same B and K") as e:
        run1(lambda x, y: pypto.experimental.transposed_batchmatmul(x, y, pypto.DT_FP16),
             a, rand((3, 32, 8), np.float16), out_shape=(16, 2, 8))
    assert "test_experimental.py" in str(e.value)


def softmax_block(s, scale):
    z = s.astype(np.float64) * scale
    m = z.max(0, keepdims=True)
    e = np.exp(z - m)
    return e, m, e.sum(0, keepdims=True)


def test_online_softmax():
    s = rand((16, 32), seed=3)

    @pypto.frontend.jit
    def k(x: pypto.Tensor([16, 32], pypto.DT_FP32), e: pypto.Tensor([16, 32], pypto.DT_BF16),
          m: pypto.Tensor([1, 32], pypto.DT_FP32), t: pypto.Tensor([1, 32], pypto.DT_FP32)):
        e[:], m[:], t[:] = pypto.experimental.online_softmax(x, 0.25)
    e = np.zeros((16, 32), np.uint16)
    m, t = np.zeros((1, 32), np.float32), np.zeros((1, 32), np.float32)
    k(s, e, m, t)
    we, wm, wt = softmax_block(s, 0.25)
    assert_close(from_bf16(e), we, 8e-3, 1e-6)
    assert_close(m, wm, 1e-6, 0)
    assert_close(t, wt, 1e-5, 0)


def test_online_softmax_update_matches_one_softmax():
    # two blocks of keys merged give the softmax-weighted sum over both
    s = rand((32, 8), seed=4)
    v = rand((4, 32), seed=5)

    @pypto.frontend.jit
    def k(x: pypto.Tensor([32, 8], pypto.DT_FP32), val: pypto.Tensor([4, 32], pypto.DT_FP32),
          y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        states = []
        for blk in range(2):
            e, m, t = pypto.experimental.online_softmax(x[blk * 16:blk * 16 + 16, :], 1.0)
            o = pypto.matmul(val[:, blk * 16:blk * 16 + 16],
                             pypto.cast(e, pypto.DT_FP32), pypto.DT_FP32)
            states.append((m, t, o))
        m, t, o = pypto.experimental.online_softmax_update(*states[0], *states[1])
        y[:] = o / t
    y = np.zeros((4, 8), np.float32)
    k(s, v, y)
    p = np.exp(s - s.max(0, keepdims=True))
    p /= p.sum(0, keepdims=True)
    assert_close(y, v @ p, 1e-2, 1e-2)  # the exponentials pass through bf16


def test_online_softmax_errors():
    with pytest.raises(TypeError, match="scores must be DT_FP32"):
        run1(lambda x: pypto.experimental.online_softmax(x, 1.0)[1],
             rand((4, 8), np.float16), out_shape=(1, 8))
    with pytest.raises(ValueError, match="current_output"):
        run1(lambda a, b: pypto.experimental.online_softmax_update(
            a[0:1, :], a[0:1, :], a, a[0:1, :], a[0:1, :], b)[2], rand((4, 8)), rand((3, 8)))


def test_operation_options_scopes():
    seen = []

    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        seen.append(pypto.experimental.get_operation_options()["combine_axis"])
        pypto.experimental.set_operation_options(combine_axis=True)
        seen.append(pypto.experimental.get_operation_options()["combine_axis"])
        y[:] = x
    k(rand((4, 8)), np.zeros((4, 8), np.float32))
    assert seen == [False, True]
    assert pypto.experimental.get_operation_options() == {"combine_axis": False}
    pypto.experimental.set_operation_options(combine_axis=True)
    assert pypto.experimental.get_operation_options() == {"combine_axis": True}
    with pytest.raises(TypeError, match="did you mean 'combine_axis'"):
        pypto.experimental.set_operation_options(combine_axes=True)


@pypto.frontend.function
def scaled_add(a, b, s):
    return a * s + b


@pypto.frontend.function
def recurse(a):
    return recurse(a)


def test_frontend_function_is_inlined():
    x, z = rand((4, 8), seed=6), rand((4, 8), seed=7)

    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), b: pypto.Tensor([4, 8], pypto.DT_FP32),
          y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = scaled_add(scaled_add(a, b, 2.0), b, 0.5)
    y = np.zeros_like(x)
    k(x, z, y)
    assert_close(y, (x * 2 + z) * 0.5 + z, 1e-6, 1e-6)
    assert "func.call" not in k.ir()


@pytest.mark.parametrize("body,err,msg", [
    (lambda a: scaled_add(a, a), TypeError, "takes 3 arguments, got 2"),
    (lambda a: scaled_add(a, a, s=1.0), TypeError, "positionally, got keywords s"),
    (lambda a: recurse(a), pypto.TraceError, "calls itself"),
])
def test_frontend_function_misuse(body, err, msg):
    with pytest.raises(err, match=msg) as e:
        run1(body, rand((4, 8)))
    assert "test_experimental.py" in str(e.value)


def test_frontend_function_outside_a_kernel():
    with pytest.raises(pypto.TraceError, match="scaled_add .a pypto.frontend.function."):
        scaled_add(1, 2, 3)


def _double():
    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = a * 2.0
    return k


def test_goldens_pass_and_fail():
    x = rand((4, 8), seed=8)
    k = _double()
    y = np.zeros_like(x)
    pypto.set_verify_options(enable_pass_verify=True)
    pypto.set_verify_golden_data(goldens=[None, 2 * x])
    k(x, y)
    bad = 2 * x
    bad[1, 3] += 1
    pypto.set_verify_golden_data(goldens=[None, bad])
    with pytest.raises(pypto.VerifyError, match=r"argument 'y' differs from its golden at "
                       r"\(1, 3\).*1 of 32 elements"):
        k(x, y)


def test_goldens_need_pass_verify():
    x = rand((4, 8), seed=9)
    k = _double()
    pypto.set_verify_golden_data(goldens=[None, np.zeros_like(x)])
    k(x, np.zeros_like(x))  # no enable_pass_verify: goldens are not compared


def test_golden_argument_errors():
    with pytest.raises(TypeError, match="goldens must be a list"):
        pypto.set_verify_golden_data(goldens=np.zeros(3))
    with pytest.raises(TypeError, match=r"goldens\[1\] must be a numpy array"):
        pypto.set_verify_golden_data(goldens=[None, 3])
