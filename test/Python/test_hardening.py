"""Regression tests for misuse the package must survive: kernels called
while another thread clears the cache, compile-time scalars that `==`
confuses, an unbounded number of specializations, outputs that cannot be
written, and torch results of every dtype."""

import math
import mmap
import threading

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand, requires_torch


def make_add():
    @pypto.frontend.jit
    def add(x: pypto.Tensor([..., 8], pypto.DT_FP32), y: pypto.Tensor([..., 8], pypto.DT_FP32),
            c=1.0):
        y[...] = x + c
    return add


def test_calls_while_another_thread_clears_the_cache():
    k = make_add()
    x = rand((4, 8))
    errors = []
    stop = threading.Event()

    def caller(seed):
        y = np.zeros_like(x)
        try:
            for _ in range(60):
                k(x, y)
                assert_close(y, x + 1)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    def clearer():
        while not stop.is_set():
            k.clear_cache()

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(4)]
    c = threading.Thread(target=clearer)
    c.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    c.join()
    assert not errors, errors


def test_scalars_are_keyed_by_type_and_bits():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([2, 8], pypto.DT_FP32), c=0.0):
        return x * c
    x = np.ones((2, 8), np.float32)
    assert not np.signbit(k(x, 0.0)).any()
    assert np.signbit(k(x, -0.0)).all()          # not the kernel compiled for 0.0
    assert k.num_compiles == 2
    k(x, 1)
    k(x, True)
    assert k.num_compiles == 4                   # 1 and True are distinct keys
    for _ in range(5):
        assert np.isnan(k(x, math.nan)).all()
    assert k.num_compiles == 5                   # a NaN scalar hits its own kernel
    for _ in range(3):
        k(x, c=float("nan"))
    assert k.num_compiles == 5


def test_the_cache_is_bounded():
    k = make_add()
    k.cache_limit = 3
    for n in range(1, 8):
        x = rand((n, 8), seed=n)
        y = np.zeros_like(x)
        k(x, y)
        assert_close(y, x + 1)
    assert len(k._cache) == 3 and k.num_compiles == 7
    x = rand((1, 8))                             # evicted: compiled again
    k(x, np.zeros_like(x))
    assert k.num_compiles == 8
    assert "tensor<7x8xf32>" in k.ir(rand((7, 8)), np.zeros((7, 8), np.float32))


def test_sessions_are_recycled(monkeypatch):
    from pypto import _jit
    monkeypatch.setattr(_jit, "COMPILES_PER_SESSION", 2)
    k = make_add()
    first = None
    for n in range(1, 6):
        x = rand((n, 8), seed=n)
        y = np.zeros_like(x)
        k(x, y)
        assert_close(y, x + 1)
        first = first or k._session
    assert k._session is not first
    assert first.handle is not None              # still serves live kernels
    k.clear_cache()
    assert first.handle is None and k._session is None
    x = rand((2, 8))
    y = np.zeros_like(x)
    k(x, y)
    assert_close(y, x + 1)


def test_outputs_whose_elements_overlap_are_refused():
    k = make_add()
    x = rand((4, 8))
    y = np.zeros(8, np.float32)
    alias = np.lib.stride_tricks.as_strided(y, shape=(4, 8), strides=(0, 4))
    with pytest.raises(pypto.ArgumentError, match="argument 'y' is written by the kernel "
                       r"\(an in-place output\) but its elements overlap in memory"):
        k(x, alias)
    with pytest.raises(pypto.ArgumentError, match="read-only"):
        k(x, np.broadcast_to(y, (4, 8)))
    assert (y == 0).all()


def test_read_only_numpy_memmap_output_is_refused(tmp_path):
    k = make_add()
    path = tmp_path / "y.bin"
    np.zeros((4, 8), np.float32).tofile(path)
    y = np.memmap(path, np.float32, mode="r", shape=(4, 8))
    with pytest.raises(pypto.ArgumentError, match="its array is read-only"):
        k(rand((4, 8)), y)


@requires_torch
def test_torch_outputs_that_cannot_be_written_are_refused(tmp_path):
    import torch
    k = make_add()
    x = torch.rand(4, 8)
    row = torch.zeros(1, 8)
    with pytest.raises(pypto.ArgumentError, match="its elements overlap in memory"):
        k(x, row.expand(4, 8))
    assert (row == 0).all()
    path = tmp_path / "y.bin"
    np.zeros((4, 8), np.float32).tofile(path)
    with open(path, "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        with pytest.warns(UserWarning):
            y = torch.frombuffer(m, dtype=torch.float32).view(4, 8)
        with pytest.raises(pypto.ArgumentError, match="its memory is read-only"):
            k(x, y)
        del y
    y = torch.zeros(4, 8)
    k(x, y)                                       # a good output still works
    assert torch.allclose(y, x + 1)


@requires_torch
def test_torch_bf16_results_are_bfloat16_tensors():
    import torch

    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_BF16)):
        return pypto.exp(x)
    x = torch.rand(4, 8).to(torch.bfloat16)
    y = k(x)
    assert y.dtype == torch.bfloat16 and y.shape == (4, 8)
    assert torch.allclose(y.float(), torch.exp(x.float()), rtol=1e-2)


def test_arrays_of_too_high_rank_are_refused():
    @pypto.frontend.jit
    def k(x: pypto.Tensor(None, pypto.DT_FP32)):
        return x + 1.0
    with pytest.raises(pypto.ArgumentError, match="rank 9; pypto tensors have at most 8 dims"):
        k(np.zeros((1,) * 9, np.float32))


def test_scatter_update_kv_cache_form_with_a_4d_vec_tile():
    @pypto.frontend.jit
    def kv_write(cache: pypto.Tensor([2, 8, 1, 16], pypto.DT_FP32),
                 pos: pypto.Tensor([2, 1], pypto.DT_INT32),
                 new: pypto.Tensor([2, 1, 1, 16], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, 4, 1, 16)
        pypto.scatter_update(cache, -2, pos, new)
    cache = rand((2, 8, 1, 16), seed=4)
    want = cache.copy().reshape(16, 16)
    pos = np.array([[3], [12]], np.int32)       # flat slots b * S + s
    new = rand((2, 1, 1, 16), seed=5)
    want[3], want[12] = new[0, 0, 0], new[1, 0, 0]
    kv_write(cache, pos, new)
    assert np.array_equal(cache.reshape(16, 16), want)
    assert "vec_tile = [4, 16]" in kv_write.ir()


def test_returning_a_loop_body_value_is_a_located_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        for i in pypto.loop(4):
            t = pypto.exp(x[i, :])
            y[i, :] = t
        return t
    line = k.__wrapped__.__code__.co_firstlineno + 5
    with pytest.raises(pypto.TraceError, match="used outside of it") as e:
        k(rand((4, 8)), np.zeros((4, 8), np.float32))
    assert (e.value.filename, e.value.lineno) == (__file__, line)


def test_a_view_returned_whole_and_used_by_another_op():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([8, 8], pypto.DT_FP32), y: pypto.Tensor([4, 4], pypto.DT_FP32),
          z: pypto.Tensor([4, 4], pypto.DT_FP32)):
        t = x[2:6, 1:5]
        z[:] = t
        y[:] = pypto.exp(t)
    x = rand((8, 8), seed=6)
    y = np.zeros((4, 4), np.float32)
    z = np.zeros((4, 4), np.float32)
    k(x, y, z)
    assert_close(y, np.exp(x[2:6, 1:5]))
    assert np.array_equal(z, x[2:6, 1:5])


def test_huge_broadcast_input_is_a_compile_error_not_an_abort():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([65536, 65536], pypto.DT_FP32)):
        return x + 1.0
    x = np.broadcast_to(np.zeros(1, np.float32), (65536, 65536))
    with pytest.raises(pypto.CompileError, match="would be expanded into 4194304 tiles, "
                       r"more than the limit of 262144 \(tile-expand option max-tiles\)"):
        k(x)
