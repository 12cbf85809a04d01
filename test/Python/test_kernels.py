"""Kernels as objects: compile caching, inputs of every layout, torch
tensors, returned results, threads, IR inspection and debug dumps."""

import os
import threading

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand, requires_torch


def make_scale():
    @pypto.frontend.jit
    def scale(x: pypto.Tensor([..., 16], pypto.DT_FP32), y: pypto.Tensor([..., 16],
                                                                        pypto.DT_FP32),
              factor=2.0):
        y[...] = x * factor
    return scale


def test_cache_hits_do_not_recompile():
    k = make_scale()
    x = rand((4, 16))
    y = np.zeros_like(x)
    k(x, y)
    k(x, y)
    k(rand((4, 16), seed=3), y)
    assert (k.num_compiles, k.num_traces) == (1, 1)
    k(rand((2, 3, 16)), np.zeros((2, 3, 16), np.float32))   # '...' dims are static: new key
    assert k.num_compiles == 2
    k(x, y, factor=3.0)                                     # scalar params are compile-time
    assert_close(y, x * 3)
    assert k.num_compiles == 3
    k(x, y, 3.0)
    assert k.num_compiles == 3
    with pypto.options(debug_options={"compile_debug_mode": 0}):
        k(x, y)                                             # options are part of the key
    assert k.num_compiles == 4
    k.clear_cache()
    k(x, y)
    assert k.num_compiles == 5


def test_non_contiguous_inputs_and_outputs_without_copies():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([8, 4], pypto.DT_FP32), y: pypto.Tensor([8, 4], pypto.DT_FP32)):
        y[:] = x + 1.0
    big = rand((16, 8), seed=1)
    x = big[::2, 1::2]                  # strided view
    out = np.zeros((8, 12), np.float32)
    y = out[:, 2:6]                     # a window of a larger array
    k(x, y)
    assert_close(y, x + 1)
    assert (out[:, :2] == 0).all() and (out[:, 6:] == 0).all()
    xt = rand((4, 8), seed=2).T         # transposed (Fortran order)
    k(xt, y)
    assert_close(y, xt + 1)
    yf = np.asfortranarray(np.zeros((8, 4), np.float32))
    k(x, yf)
    assert_close(yf, x + 1)


def test_same_array_as_input_and_output():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = x * 2.0
    x = rand((4, 8))
    want = x * 2
    k(x, x)
    assert_close(x, want)


def test_returned_tensors():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([3, 8], pypto.DT_FP16)):
        out = pypto.tensor([x.shape[0], 8], pypto.DT_FP16)
        for i in pypto.loop(x.shape[0]):
            out[i:i + 1, :] = pypto.exp(x[i:i + 1, :])
        return out, pypto.cast(x[0:1, :], pypto.DT_FP32)
    x = rand((3, 8), np.float16)
    e, first = k(x)
    assert e.shape == (3, 8) and e.dtype == np.float16 and first.dtype == np.float32
    assert_close(e, np.exp(x.astype(np.float32)).astype(np.float16), 1e-3, 1e-3)
    assert_close(first, x[:1].astype(np.float32))


def test_two_kernels_in_two_threads():
    @pypto.frontend.jit
    def ka(x: pypto.Tensor([16, 64], pypto.DT_FP32), y: pypto.Tensor([16, 64], pypto.DT_FP32)):
        y[:] = pypto.softmax(x, -1)

    @pypto.frontend.jit
    def kb(x: pypto.Tensor([16, 64], pypto.DT_FP32), y: pypto.Tensor([16, 64], pypto.DT_FP32)):
        y[:] = pypto.exp(x) * 0.5 + x

    errors = []

    def work(kernel, ref, seed):
        try:
            for i in range(20):
                x = rand((16, 64), seed=seed + i)
                y = np.zeros_like(x)
                kernel(x, y)
                np.testing.assert_allclose(y, ref(x), rtol=1e-5, atol=1e-6)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    def sm(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    threads = [threading.Thread(target=work, args=(ka, sm, 0)),
               threading.Thread(target=work, args=(kb, lambda x: np.exp(x) * 0.5 + x, 100)),
               threading.Thread(target=work, args=(ka, sm, 200))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert ka.num_compiles == 1 and kb.num_compiles == 1


def test_ir_inspection_and_stages():
    k = make_scale()
    with pytest.raises(pypto.TraceError, match="has not been compiled yet"):
        k.ir()
    x = rand((4, 16))
    text = k.ir(x, np.zeros_like(x))
    assert "pypto.muls" in text and "pypto.assemble" in text
    assert "func.func @scale(%arg0: tensor<4x16xf32>, %arg1: tensor<4x16xf32>) -> " \
           "(tensor<4x16xf32> {pypto.inplace = 1})" in text
    assert "loc(" not in text
    assert f'loc("{__file__}"' not in text
    dbg = k.ir(debuginfo=True)
    assert os.path.abspath(__file__).replace("test_kernels", "test_kernels") in dbg or \
        "test_kernels.py" in dbg
    stages = k.stages()
    assert stages[0] == "input" and "canonicalize" in stages
    if "tile-expand" in stages:
        assert "tile." in k.ir(stage="tile-expand")
        assert "pypto." not in k.ir(stage="final").replace("pypto.inplace", "")
    with pytest.raises(ValueError, match="no stage 'nope'"):
        k.ir(stage="nope")
    assert '"pypto.muls"' in k.traced_text() and "loc(" in k.traced_text()
    assert k.ir(generic=True).count('"pypto.') >= 2


def test_compile_debug_mode_dumps_every_stage(tmp_path):
    @pypto.frontend.jit(debug_options={"compile_debug_mode": 1, "dump_dir": str(tmp_path)})
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = x + 1.0
    x = rand((4, 8))
    y = np.zeros_like(x)
    k(x, y)
    assert_close(y, x + 1)
    files = sorted(os.listdir(tmp_path))
    assert files[0] == "00-input.pto" and "traced.pto" in files
    assert "01-canonicalize.pto" in files and "02-cse.pto" in files
    assert k.debug_dir == str(tmp_path)


def test_run_modes_both_compute():
    for mode in (pypto.RunMode.NPU, pypto.RunMode.SIM):
        @pypto.frontend.jit(runtime_options={"run_mode": mode})
        def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
            y[:] = pypto.sqrt(x)
        x = rand((4, 8), lo=0, hi=4)
        y = np.zeros_like(x)
        k(x, y)
        assert_close(y, np.sqrt(x))


def test_runtime_debug_mode_writes_swimlanes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PTO_BACKEND", raising=False)

    @pypto.frontend.jit(debug_options={"runtime_debug_mode": 1})
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = x
    k(rand((4, 8)), np.zeros((4, 8), np.float32))
    assert os.path.dirname(k.output_dir) == str(tmp_path / "output")
    assert "k_swimlane.json" in os.listdir(k.output_dir)


def test_options_decorator_and_subscript_annotation():
    @pypto.options(pass_options={"pg_lower_bound": 7})
    def call(kernel, x, y):
        kernel(x, y)

    @pypto.frontend.jit
    def k(x: pypto.Tensor[[4, 8], pypto.DT_FP32], y: pypto.Tensor[[4, 8], pypto.DT_FP32]):
        y[:] = x * x
    x = rand((4, 8))
    y = np.zeros_like(x)
    call(k, x, y)
    assert_close(y, x * x)
    assert "pypto.pass_options = {pg_lower_bound = 7}" in k.ir()


@requires_torch
def test_torch_cpu_tensors():
    import torch

    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = pypto.exp(x)
    x = torch.randn(4, 8)
    y = torch.zeros(4, 8)
    k(x, y)
    assert torch.allclose(y, torch.exp(x), rtol=1e-5)
    k(x.t().contiguous().t(), y)   # strided
    yb = torch.zeros(4, 8, dtype=torch.bfloat16)

    @pypto.frontend.jit
    def kb(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_BF16)):
        y[:] = pypto.cast(x, pypto.DT_BF16)
    kb(x, yb)
    assert torch.allclose(yb.float(), x.bfloat16().float())

    @pypto.frontend.jit
    def kr(x: pypto.Tensor([4, 8], pypto.DT_FP32)):
        return x + 1.0
    r = kr(x)
    assert isinstance(r, torch.Tensor) and torch.allclose(r, x + 1)


def test_pass_verify_agrees():
    @pypto.frontend.jit(verify_options={"enable_pass_verify": True})
    def k(x: pypto.Tensor([8, 64], pypto.DT_FP32), y: pypto.Tensor([8, 64], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(4, 32)
        y[:] = pypto.softmax(x, -1) + pypto.exp(x)
    x = rand((8, 64))
    y = np.zeros_like(x)
    k(x, y)
    e = np.exp(x - x.max(-1, keepdims=True))
    assert_close(y, e / e.sum(-1, keepdims=True) + np.exp(x), 1e-5, 1e-5)


def test_pass_verify_names_the_first_diverging_stage_and_op():
    # f16 partial sums of the tiles are rounded to f16 before they are
    # combined; the Tensor level rounds once: with zero tolerance they differ
    @pypto.frontend.jit(verify_options={"enable_pass_verify": True,
                                        "pass_verify_error_tol": [0.0, 0.0]})
    def k(x: pypto.Tensor([8, 256], pypto.DT_FP16), y: pypto.Tensor([8, 1], pypto.DT_FP16)):
        pypto.set_vec_tile_shapes(8, 16)
        y[:] = pypto.sum(x, -1, keepdim=True)  # the sum
    y = np.full((8, 1), 3, np.float16)
    with pytest.raises(pypto.VerifyError) as e:
        k(rand((8, 256), np.float16), y)
    text = str(e.value)
    assert "error: pass verification: the first stage whose results differ from the Tensor " \
           "level is the Tile level (after 'tile-expand{provenance=true}'): result #0 has" in text
    assert "beyond rtol=0 atol=0" in text
    line = [n for n, s in enumerate(open(__file__), 1) if s.rstrip().endswith("# the sum")][0]
    assert f"test_kernels.py:{line}:16: error: 'tile.add' op is the first tile op whose value " \
           "differs from the Tensor level" in text
    assert f"test_kernels.py:{line}:16: note: the Tensor-level op it came from" in text
    assert (y == 3).all()


def test_repeated_calls_with_new_arrays_of_one_layout():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 8], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYNAMIC, 8], pypto.DT_FP32)):
        for i in pypto.loop(x.shape[0]):
            y[i:i + 1, :] = x[i:i + 1, :] * 2.0
    for n in (3, 3, 5, 3, 5):
        for _ in range(3):
            x = rand((n, 8), seed=n * 10 + _)
            y = np.zeros_like(x)
            k(x, y)
            assert_close(y, x * 2)
    yv = np.zeros((5, 16), np.float32)[:, ::2]         # same shape, other strides
    k(x, yv)
    assert_close(yv, x * 2)
    with pytest.raises(pypto.ArgumentError, match="read-only"):
        k(x, np.broadcast_to(x[:1], (5, 8)))
    assert k.num_compiles == 1
