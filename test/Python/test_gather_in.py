"""pypto.experimental.gather_in_ub / gather_in_l1 (the user-defined ops of
the `experimental` dialect) against numpy, at every stage of the
pipeline, and the errors of their misuse."""

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand

VERIFY = {"enable_pass_verify": True}


def paged_rows(src, tokens, table, block_size):
    return src[table[0][tokens[0] // block_size] * block_size + tokens[0] % block_size]


@pytest.mark.parametrize("dtype,np_dtype", [(pypto.DT_FP32, np.float32),
                                            (pypto.DT_FP16, np.float16)])
def test_gather_in_ub(dtype, np_dtype):
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(cache: pypto.Tensor([24, 16], dtype), tokens: pypto.Tensor([1, 6], pypto.DT_INT32),
          table: pypto.Tensor([1, 4], pypto.DT_INT32), y: pypto.Tensor([6, 16], dtype)):
        pypto.set_vec_tile_shapes(6, 16)
        y[:] = pypto.experimental.gather_in_ub(cache, tokens, table, 4, -2) * 2.0
    cache = rand((24, 16), seed=1).astype(np_dtype)
    tokens = np.array([[0, 5, 15, 9, 3, 12]], np.int32)
    table = np.array([[5, 0, 2, 1]], np.int32)
    y = np.zeros((6, 16), np_dtype)
    k(cache, tokens, table, y)
    assert_close(y, paged_rows(cache, tokens, table, 4) * 2)
    assert "experimental.gather_in_ub" in k.ir()


def test_gather_in_l1_bf16_and_i8_with_i64_indices():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(cache: pypto.Tensor([8, 32], pypto.DT_INT8), tokens: pypto.Tensor([1, 5], pypto.DT_INT64),
          table: pypto.Tensor([1, 4], pypto.DT_INT64), y: pypto.Tensor([5, 24], pypto.DT_INT8)):
        pypto.set_vec_tile_shapes(5, 24)
        y[:] = pypto.experimental.gather_in_l1(cache, tokens, table, 2, 24, is_b_matrix=True,
                                               is_trans=True)
    cache = np.arange(256, dtype=np.int64).reshape(8, 32).astype(np.int8)
    tokens = np.array([[7, 0, 1, 4, 6]], np.int64)
    table = np.array([[3, 1, 0, 2]], np.int64)
    y = np.zeros((5, 24), np.int8)
    k(cache, tokens, table, y)
    assert (y == paged_rows(cache, tokens, table, 2)[:, :24]).all()
    ir = k.ir()
    assert "is_b_matrix" in ir and "is_trans" in ir and "size = 24" in ir


def test_gather_feeds_a_matmul():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(cache: pypto.Tensor([16, 32], pypto.DT_FP32), tokens: pypto.Tensor([1, 8], pypto.DT_INT32),
          table: pypto.Tensor([1, 4], pypto.DT_INT32), q: pypto.Tensor([2, 32], pypto.DT_FP32),
          s: pypto.Tensor([2, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(8, 32)
        pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])
        kv = pypto.experimental.gather_in_ub(cache, tokens, table, 4)
        s[:] = pypto.matmul(q, kv, pypto.DT_FP32, b_trans=True)
    cache, q = rand((16, 32), seed=2), rand((2, 32), seed=3)
    tokens = np.array([[0, 5, 6, 9, 15, 2, 11, 3]], np.int32)
    table = np.array([[3, 0, 2, 1]], np.int32)
    s = np.zeros((2, 8), np.float32)
    k(cache, tokens, table, q, s)
    assert_close(s, q @ paged_rows(cache, tokens, table, 4).T, rtol=1e-5, atol=1e-5)


def test_token_past_the_table_is_a_located_run_time_error():
    @pypto.frontend.jit
    def k(cache: pypto.Tensor([8, 16], pypto.DT_FP32), tokens: pypto.Tensor([1, 2], pypto.DT_INT32),
          table: pypto.Tensor([1, 2], pypto.DT_INT32), y: pypto.Tensor([2, 16], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 16)
        y[:] = pypto.experimental.gather_in_ub(cache, tokens, table, 4)
    y = np.zeros((2, 16), np.float32)
    with pytest.raises(pypto.RuntimeError,
                       match=r"test_gather_in.py:\d+.*'experimental.gather_in_ub' op token "
                             r"index 8 \(position 1\) has no block in a table of 2 blocks of 4"):
        k(rand((8, 16), seed=1), np.array([[1, 8]], np.int32), np.array([[1, 0]], np.int32), y)
    with pytest.raises(pypto.RuntimeError, match=r"token index 1 maps to row 13, past the "
                                                 r"source's 8 rows"):
        k(rand((8, 16), seed=1), np.array([[1, 2]], np.int32), np.array([[3, 0]], np.int32), y)


@pytest.mark.parametrize("call,exc,msg", [
    (lambda c, t, b: pypto.experimental.gather_in_ub(c, t, b, 0), ValueError,
     "block_size must be a positive int, got 0"),
    (lambda c, t, b: pypto.experimental.gather_in_ub(c, t, b, 4, axis=-1), ValueError,
     "only axis -2 is supported, got -1"),
    (lambda c, t, b: pypto.experimental.gather_in_ub(c, c, b, 4), TypeError,
     "indices must be DT_INT32 or DT_INT64, got DT_FP32"),
    (lambda c, t, b: pypto.experimental.gather_in_l1(c, t, b, 4, 17), ValueError,
     r"size must be an int in \[1, 16\], got 17"),
    (lambda c, t, b: pypto.experimental.gather_in_ub(c, b[0:1, 0:2], pypto.reshape(b, [2, 2]), 4),
     ValueError, r"must have shape \[1, n\]"),
])
def test_misuse_is_a_located_error(call, exc, msg):
    @pypto.frontend.jit
    def k(cache: pypto.Tensor([8, 16], pypto.DT_FP32), tokens: pypto.Tensor([1, 2], pypto.DT_INT32),
          table: pypto.Tensor([1, 4], pypto.DT_INT32), y: pypto.Tensor([2, 16], pypto.DT_FP32)):
        y[:] = call(cache, tokens, table)
    with pytest.raises(exc, match=r"test_gather_in.py:\d+.*" + msg):
        k(rand((8, 16), seed=1), np.zeros((1, 2), np.int32), np.zeros((1, 4), np.int32),
          np.zeros((2, 16), np.float32))


def run_both(monkeypatch, make, *arrays):
    """The kernel `make()` builds, run on copies of `arrays` compiled
    (PTO_BACKEND=compiled: the gather a host task on the runtime) and in
    the interpreter; returns both runs' arrays and the compiled kernel."""
    out = {}
    for backend in ("compiled", "interp"):
        monkeypatch.setenv("PTO_BACKEND", backend)
        k = make()
        args = [a.copy() for a in arrays]
        k(*args)
        out[backend] = (args, k)
    return out["compiled"][0], out["interp"][0], out["compiled"][1]


@pytest.mark.parametrize("dtype,np_dtype", [(pypto.DT_FP32, np.float32),
                                            (pypto.DT_FP16, np.float16)])
def test_gather_in_ub_runs_compiled(monkeypatch, dtype, np_dtype):
    def make():
        @pypto.frontend.jit
        def k(cache: pypto.Tensor([24, 16], dtype), tokens: pypto.Tensor([1, 6], pypto.DT_INT32),
              table: pypto.Tensor([1, 4], pypto.DT_INT32), y: pypto.Tensor([6, 16], dtype)):
            pypto.set_vec_tile_shapes(6, 16)
            y[:] = pypto.experimental.gather_in_ub(cache, tokens, table, 4, -2) * 2.0
        return k
    cache = rand((24, 16), seed=4).astype(np_dtype)
    tokens = np.array([[0, 5, 15, 9, 3, 12]], np.int32)
    table = np.array([[5, 0, 2, 1]], np.int32)
    got, ref, k = run_both(monkeypatch, make, cache, tokens, table, np.zeros((6, 16), np_dtype))
    assert k.backend == "host" and k.num_ops_executed == 0
    assert got[3].tobytes() == ref[3].tobytes()
    assert_close(got[3], paged_rows(cache, tokens, table, 4) * 2)


def test_gather_in_l1_and_a_matmul_run_compiled(monkeypatch):
    def make():
        @pypto.frontend.jit
        def k(cache: pypto.Tensor([16, 32], pypto.DT_FP32), tokens: pypto.Tensor([1, 8], pypto.DT_INT64),
              table: pypto.Tensor([1, 4], pypto.DT_INT64), q: pypto.Tensor([2, 24], pypto.DT_FP32),
              s: pypto.Tensor([2, 8], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(8, 32)
            pypto.set_cube_tile_shapes([16, 16], [32, 32], [16, 16])
            kv = pypto.experimental.gather_in_l1(cache, tokens, table, 4, 24, is_b_matrix=True)
            s[:] = pypto.matmul(q, kv, pypto.DT_FP32, b_trans=True)
        return k
    cache, q = rand((16, 32), seed=5), rand((2, 24), seed=6)
    tokens = np.array([[0, 5, 6, 9, 15, 2, 11, 3]], np.int64)
    table = np.array([[3, 0, 2, 1]], np.int64)
    got, ref, k = run_both(monkeypatch, make, cache, tokens, table, q, np.zeros((2, 8), np.float32))
    assert k.backend == "host"
    assert_close(got[4], ref[4], rtol=1e-6, atol=1e-6)
    assert_close(got[4], q @ paged_rows(cache, tokens, table, 4)[:, :24].T, rtol=1e-5, atol=1e-5)


def test_compiled_gather_errors_name_the_op(monkeypatch):
    monkeypatch.setenv("PTO_BACKEND", "compiled")

    @pypto.frontend.jit
    def k(cache: pypto.Tensor([8, 16], pypto.DT_FP32), tokens: pypto.Tensor([1, 2], pypto.DT_INT32),
          table: pypto.Tensor([1, 2], pypto.DT_INT32), y: pypto.Tensor([2, 16], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 16)
        y[:] = pypto.experimental.gather_in_ub(cache, tokens, table, 4) + 1.0
    y = np.zeros((2, 16), np.float32)
    with pytest.raises(pypto.RuntimeError,
                       match=r"test_gather_in.py:\d+.*'experimental.gather_in_ub' op token "
                             r"index 8 \(position 1\) has no block in a table of 2 blocks of 4"):
        k(rand((8, 16), seed=1), np.array([[1, 8]], np.int32), np.array([[1, 0]], np.int32), y)
    assert k.backend == "host"
    with pytest.raises(pypto.RuntimeError, match=r"token index 1 maps to row 13, past the "
                                                 r"source's 8 rows"):
        k(rand((8, 16), seed=1), np.array([[1, 2]], np.int32), np.array([[3, 0]], np.int32), y)
    # the same kernel runs again once the indices are right
    k(rand((8, 16), seed=1), np.array([[1, 2]], np.int32), np.array([[1, 0]], np.int32), y)
    assert_close(y, rand((8, 16), seed=1)[[5, 6]] + 1)
