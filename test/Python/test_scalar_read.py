"""Scalars read from integer tensors inside a kernel (`act_seq[b]`,
`block_table[b, j]`): loop bounds, view offsets and scalar arithmetic,
checked against numpy at every stage of the pipeline, and the errors of
their misuse."""

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand

VERIFY = {"enable_pass_verify": True}


def prefix_sum_kernel():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8, 16], pypto.DT_FP32),
          lens: pypto.Tensor([4], pypto.DT_INT32),
          y: pypto.Tensor([4, 16], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 16)
        for b in pypto.loop(4):
            n = lens[b]
            y[b:b + 1, :] = 0.0
            for j in pypto.loop(n):
                y[b:b + 1, :] = y[b:b + 1, :] + pypto.reshape(x[b:b + 1, j:j + 1, :], [1, 16])
    return k


def test_scalar_as_loop_bound():
    k = prefix_sum_kernel()
    x = rand((4, 8, 16), seed=3)
    lens = np.array([3, 0, 8, 1], np.int32)
    y = np.full((4, 16), 7.0, np.float32)
    k(x, lens, y)
    want = np.stack([x[b, :lens[b]].sum(0) for b in range(4)])
    assert_close(y, want)
    assert "pypto.load_scalar" in k.ir()
    # the same compiled kernel follows new lengths: they are read at run time
    lens2 = np.array([8, 2, 0, 5], np.int32)
    k(x, lens2, y)
    assert_close(y, np.stack([x[b, :lens2[b]].sum(0) for b in range(4)]))
    assert k.num_compiles == 1


def test_scalar_as_view_offset_two_indices():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(pool: pypto.Tensor([10, 4, 8], pypto.DT_FP32),
          table: pypto.Tensor([3, 2], pypto.DT_INT64),
          y: pypto.Tensor([3, 2, 4, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 1, 4, 8)
        for b in pypto.loop(3):
            for j in pypto.loop(2):
                blk = table[b, j]
                y[b:b + 1, j:j + 1, :, :] = pypto.reshape(pool[blk:blk + 1, :, :],
                                                          [1, 1, 4, 8]) * 2.0
    pool = rand((10, 4, 8), seed=4)
    table = np.array([[9, 0], [4, 4], [1, 7]], np.int64)
    y = np.zeros((3, 2, 4, 8), np.float32)
    k(pool, table, y)
    assert_close(y, pool[table] * 2)


def test_scalar_arithmetic_and_negative_index():
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([2, 16, 8], pypto.DT_FP32),
          lens: pypto.Tensor([2, 3], pypto.DT_INT16),
          y: pypto.Tensor([2, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 8)
        for b in pypto.loop(2):
            n = lens[b, -1]                      # the last column
            blocks = (n + 3) // 4                # ceil(n / 4)
            tail = n % 4
            last = (blocks * 4 - 4).max(0).min(12)
            y[b:b + 1, :] = pypto.reshape(x[b:b + 1, last + tail:last + tail + 1, :], [1, 8])
            for j in pypto.loop(blocks):
                y[b:b + 1, :] = y[b:b + 1, :] + pypto.reshape(x[b:b + 1, j * 4:j * 4 + 1, :],
                                                              [1, 8])
    x = rand((2, 16, 8), seed=5)
    lens = np.array([[0, 0, 7], [0, 0, 13]], np.int16)
    y = np.zeros((2, 8), np.float32)
    k(x, lens, y)
    want = []
    for b in range(2):
        n = int(lens[b, -1])
        blocks = (n + 3) // 4
        last = min(max(blocks * 4 - 4, 0), 12)
        want.append(sum(x[b, j * 4] for j in range(blocks)) + x[b, last + n % 4])
    assert_close(y, np.stack(want))


def test_scalar_in_condition(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), flags: pypto.Tensor([4], pypto.DT_INT8),
          y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 8)
        for b in pypto.loop(4):
            if pypto.cond(flags[b] > 0):
                y[b:b + 1, :] = x[b:b + 1, :] + 1.0
            else:
                y[b:b + 1, :] = x[b:b + 1, :] - 1.0
    x = rand((4, 8), seed=6)
    flags = np.array([1, 0, -3, 5], np.int8)
    y = np.zeros_like(x)
    k(x, flags, y)
    assert_close(y, np.where(flags[:, None] > 0, x + 1, x - 1))
    assert k.backend == "host"  # the condition reads flags on the host


def test_index_out_of_range_at_run_time_is_located():
    k = prefix_sum_kernel()
    x = rand((4, 8, 16), seed=3)
    lens = np.array([3, 9, 0, 0], np.int32)   # 9 rows of 8: the view fails
    with pytest.raises(pypto.RuntimeError, match=r"test_scalar_read.py:\d+.*out of bounds"):
        k(x, lens, np.zeros((4, 16), np.float32))


def test_dynamic_index_out_of_range_at_run_time():
    @pypto.frontend.jit
    def k(t: pypto.Tensor([4], pypto.DT_INT32), sel: pypto.Tensor([2], pypto.DT_INT32),
          y: pypto.Tensor([2, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 8)
        for b in pypto.loop(2):
            v = t[sel[b]]
            y[b:b + 1, :] = pypto.full([1, 8], 1.0, pypto.DT_FP32) * 0.0
            for _ in pypto.loop(v):
                y[b:b + 1, :] = y[b:b + 1, :] + 1.0
    y = np.zeros((2, 8), np.float32)
    k(np.array([1, 2, 3, 4], np.int32), np.array([3, 0], np.int32), y)
    assert_close(y, np.array([[4.0] * 8, [1.0] * 8], np.float32))
    with pytest.raises(pypto.RuntimeError,
                       match=r"test_scalar_read.py:\d+.*'(pypto|tile).load_scalar' op index 4 is out "
                             r"of range for dim 0 of size 4 at run time"):
        k(np.array([1, 2, 3, 4], np.int32), np.array([4, 0], np.int32), y)


def test_float_tensor_element_is_an_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        for _ in pypto.loop(x[0]):
            y[:] = 0.0
    with pytest.raises(TypeError, match=r"test_scalar_read.py:\d+.*needs an integer tensor"):
        k(np.zeros(4, np.float32), np.zeros((4, 8), np.float32))


def test_static_index_out_of_range_is_located():
    @pypto.frontend.jit
    def k(t: pypto.Tensor([4, 3], pypto.DT_INT32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        for _ in pypto.loop(t[1, 3]):
            y[:] = 0.0
    with pytest.raises(IndexError,
                       match=r"test_scalar_read.py:\d+.*index 3 is out of range for dim 1 of "
                             r"size 3"):
        k(np.zeros((4, 3), np.int32), np.zeros((4, 8), np.float32))


def test_partial_index_is_still_a_view():
    @pypto.frontend.jit
    def k(t: pypto.Tensor([4, 8], pypto.DT_INT32), y: pypto.Tensor([8], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(8)
        y[:] = t[2] + 1
    t = np.arange(32, dtype=np.int32).reshape(4, 8)
    y = np.zeros(8, np.int32)
    k(t, y)
    assert (y == t[2] + 1).all()


def test_scalar_read_of_a_computed_tensor_sees_its_values():
    # the read stays in the host function after the kernel computing
    # `twice`, which it must wait for
    @pypto.frontend.jit(verify_options=VERIFY)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), lens: pypto.Tensor([4], pypto.DT_INT32),
          y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(8)
        twice = lens * 2
        pypto.set_vec_tile_shapes(1, 8)
        for b in pypto.loop(4):
            y[b:b + 1, :] = x[b:b + 1, :] * 0.0
            for _ in pypto.loop(twice[b]):
                y[b:b + 1, :] = y[b:b + 1, :] + x[b:b + 1, :]
    x = rand((4, 8), seed=7)
    lens = np.array([0, 1, 3, 2], np.int32)
    y = np.zeros_like(x)
    k(x, lens, y)
    assert_close(y, x * (2 * lens[:, None]))
