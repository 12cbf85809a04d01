"""Loops, conditions and symbolic scalars: what they trace to and what the
traced kernels compute."""

import numpy as np
import pytest

import pypto
from conftest import assert_close, rand


def test_dynamic_batch_loop_many_sizes_one_compile():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 8, 32], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYNAMIC, 8, 32], pypto.DT_FP32)):
        bs = x.shape[0]
        pypto.set_vec_tile_shapes(1, 8, 32)
        for b in pypto.loop(bs):
            v = x[b:b + 1, :, :]
            y[b:b + 1, :, :] = v * v + 1.0
    for n in (1, 2, 5, 9):
        x = rand((n, 8, 32), seed=n)
        y = np.zeros_like(x)
        k(x, y)
        assert_close(y, x * x + 1)
    assert k.num_compiles == 1


def test_loop_step_start_and_offsets():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([16, 8], pypto.DT_FP32), y: pypto.Tensor([16, 8], pypto.DT_FP32)):
        y[:] = 0.0
        for i in pypto.loop(2, 14, 4, name="step4", idx_name="i"):
            y[i:i + 2, :] = x[i + 2:i + 4, :] - 1.0
    x = rand((16, 8), seed=1)
    y = np.ones_like(x)
    k(x, y)
    want = np.zeros_like(x)
    for i in range(2, 14, 4):
        want[i:i + 2] = x[i + 2:i + 4] - 1
    assert_close(y, want)
    ir = k.ir()
    assert 'pypto.loop_name = "step4"' in ir and 'pypto.idx_name = "i"' in ir


def test_nested_loops_and_accumulator():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 6, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        for i in pypto.loop(4):
            acc = pypto.zeros([1, 8])
            for j in pypto.loop(6):
                acc = acc + pypto.reshape(x[i:i + 1, j:j + 1, :], [1, 8])
                acc[0:1, 0:1] = acc[0:1, 0:1] * 1.0
            y[i:i + 1, :] = acc
    x = rand((4, 6, 8), seed=2)
    y = np.zeros((4, 8), np.float32)
    with pytest.raises(pypto.TraceError, match="used outside of it"):
        k(x, y)


def test_nested_loops_carry_outer_tensor():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 6, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = 0.0
        for i in pypto.loop(4):
            for j in pypto.loop(6):
                y[i:i + 1, :] = y[i:i + 1, :] + pypto.reshape(x[i:i + 1, j:j + 1, :], [1, 8])
    x = rand((4, 6, 8), seed=3)
    y = np.zeros((4, 8), np.float32)
    k(x, y)
    assert_close(y, x.sum(1), 1e-5, 1e-5)


def test_loop_over_symbolic_expression_and_min(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    N = pypto.frontend.dynamic("N")

    @pypto.frontend.jit
    def k(x: pypto.Tensor([N, 4], pypto.DT_FP32), y: pypto.Tensor([N, 4], pypto.DT_FP32)):
        tile = 2
        for i in pypto.loop((N + tile - 1) // tile):
            start = i * tile
            if start + tile <= N:
                y[start:start + tile, :] = x[start:start + tile, :] * 3.0
            else:
                y[start:start + 1, :] = x[start:start + 1, :] * 3.0
    for n in (1, 2, 3, 6, 7):
        x = rand((n, 4), seed=n)
        y = np.zeros_like(x)
        k(x, y)
        assert_close(y, x * 3)
        assert k.backend == "host"  # the branch is compiled, not interpreted
    assert k.num_compiles == 1


def test_cond_and_loop_boundaries(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYN, 16], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYN, 16], pypto.DT_FP32)):
        for i in pypto.loop(x.shape[0]):
            v = x[i:i + 1, :]
            if pypto.cond(pypto.is_loop_begin(i)):
                y[i:i + 1, :] = v + 1.0
            elif pypto.cond(pypto.is_loop_end(i)):
                y[i:i + 1, :] = v + 2.0
            else:
                y[i:i + 1, :] = v
    for n in (1, 2, 5):
        x = rand((n, 16), seed=4)
        y = np.zeros_like(x)
        k(x, y)
        want = x.copy()
        want[-1] += 2
        want[0] = x[0] + 1
        assert_close(y, want)
        assert k.backend == "host"
    assert k.ir().count("scf.if") == 2


def test_python_if_on_symbolic_condition_traces_both_branches(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    @pypto.frontend.jit
    def k(x: pypto.Tensor([6, 4], pypto.DT_FP32), y: pypto.Tensor([6, 4], pypto.DT_FP32)):
        for i in pypto.loop(6):
            t = x[i:i + 1, :]
            if i % 2 == 0:
                t = t * 2.0
            if i < 3:
                t = t + 1.0
            y[i:i + 1, :] = t
    x = rand((6, 4), seed=5)
    y = np.zeros_like(x)
    k(x, y)
    want = x.copy()
    want[::2] *= 2
    want[:3] += 1
    assert_close(y, want)
    assert k.backend == "host"


def test_cond_at_function_level_and_static_python_if(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 4], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYNAMIC, 4], pypto.DT_FP32), scale=2.0, square=False):
        n = x.shape[0]
        for i in pypto.loop(n):
            v = x[i:i + 1, :]
            if square:              # a compile-time Python value
                v = v * v
            y[i:i + 1, :] = v * scale
        if n > 3:                   # a run-time condition on the kernel's body
            y[0:1, :] = x[0:1, :] * 0.0
    for n, sq in ((2, False), (5, True), (5, False)):
        x = rand((n, 4), seed=6)
        y = np.zeros_like(x)
        k(x, y, square=sq)
        want = (x * x if sq else x) * 2
        if n > 3:
            want[0] = 0
        assert_close(y, want)
        assert k.backend == "host"
    assert k.num_compiles == 2


def test_loop_unroll():
    seen = []

    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 4], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYNAMIC, 4], pypto.DT_FP32)):
        for i, f in pypto.loop_unroll(0, x.shape[0], 1, name="U", unroll_list=[4, 2]):
            seen.append(f)
            y[i:i + f, :] = x[i:i + f, :] + float(f)
    for n in (1, 3, 7, 8, 11):
        x = rand((n, 4), seed=n)
        y = np.zeros_like(x)
        k(x, y)
        want = x.copy()
        done = 0
        for f in (4, 2, 1):
            while n - done >= f:
                want[done:done + f] += f
                done += f
        assert_close(y, want)
    assert seen == [4, 2, 1]
    assert k.num_compiles == 1
    assert k.ir().count("scf.for") == 3


def test_symbolic_scalars():
    bs = pypto.frontend.dynamic("bs")
    s = bs + 3
    assert repr(s - 3) == "bs"
    assert ((bs + 1) - bs) == 1
    assert (bs * 2 - bs - bs) == 0
    assert repr(pypto.symbolic_scalar(5)) == "5"
    assert pypto.min(3, 7) == 3 and pypto.max(3, 7) == 7
    with pytest.raises(pypto.SymbolicValueError):
        range(bs)
    with pytest.raises(pypto.SymbolicValueError):
        int(bs)


def test_symbolic_scalar_as_tensor_operand():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([5, 4], pypto.DT_FP32), y: pypto.Tensor([5, 4], pypto.DT_FP32),
          z: pypto.Tensor([5, 4], pypto.DT_INT32)):
        for i in pypto.loop(5):
            y[i:i + 1, :] = x[i:i + 1, :] + i
            z[i:i + 1, :] = pypto.full([1, 4], i * 10, pypto.DT_INT32)
    x = rand((5, 4), seed=7)
    y = np.zeros_like(x)
    z = np.zeros((5, 4), np.int32)
    k(x, y, z)
    assert_close(y, x + np.arange(5)[:, None])
    assert (z == np.arange(5)[:, None] * 10).all()


def test_labels_tiles_and_pass_options_in_ir():
    @pypto.frontend.jit(pass_options={"cube_l1_reuse_mode": 4})
    def k(a: pypto.Tensor([32, 32], pypto.DT_FP32), b: pypto.Tensor([32, 16], pypto.DT_FP32),
          c: pypto.Tensor([32, 16], pypto.DT_FP32)):
        pypto.set_semantic_label("scale")
        pypto.set_vec_tile_shapes(16, 16)
        t = a * 2.0
        pypto.set_semantic_label("mm")
        pypto.set_cube_tile_shapes([16, 32], [16, 32], [16, 16])
        pypto.set_pass_options(pg_upper_bound=100)
        c[:] = pypto.matmul(t, b)
        for i in pypto.loop(2, name="inner"):
            pypto.set_pass_options(vec_nbuffer_mode=2)
            c[i:i + 1, :] = c[i:i + 1, :]
    a = rand((32, 32), seed=8)
    b = rand((32, 16), seed=9)
    c = np.zeros((32, 16), np.float32)
    k(a, b, c)
    assert_close(c, (a * 2) @ b, 1e-5, 1e-5)
    ir = k.ir()
    assert 'label = "scale", vec_tile = [16, 16]' in ir
    assert 'cube_tile = [[16, 32], [16, 32], [16, 16]], label = "mm"' in ir
    assert "pypto.pass_options = {cube_l1_reuse_mode = 4, pg_upper_bound = 100}" in ir
    assert "pypto.pass_options = {vec_nbuffer_mode = 2}" in ir


def test_vec_tile_larger_than_tensor_is_clamped():
    # 100000 columns on a 64-column tensor: one tile covers the row (as
    # tile-expand documents), the IR keeps what was asked.
    @pypto.frontend.jit
    def k(a: pypto.Tensor([8, 64], pypto.DT_FP32), out: pypto.Tensor([8, 64], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(8, 100000)
        out[:] = pypto.exp(a)
    a = rand((8, 64), seed=3)
    out = np.zeros_like(a)
    k(a, out)
    assert_close(out, np.exp(a), 1e-6, 1e-6)
    assert "vec_tile = [8, 100000]" in k.ir()


def test_options_scope_inside_kernel():
    @pypto.frontend.jit
    def k(a: pypto.Tensor([8, 8], pypto.DT_FP32), b: pypto.Tensor([8, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(8, 8)
        with pypto.options(vec_tile_shapes=[4, 4], semantic_label="inner"):
            t = a + 1.0
            assert pypto.get_vec_tile_shapes() == [4, 4]
        assert pypto.get_vec_tile_shapes() == [8, 8]
        b[:] = t * 2.0
    a = rand((8, 8), seed=10)
    b = np.zeros_like(a)
    k(a, b)
    assert_close(b, (a + 1) * 2)
    ir = k.ir()
    assert 'label = "inner", vec_tile = [4, 4]' in ir and "vec_tile = [8, 8]" in ir


def test_nondeterministic_kernel_is_reported():
    calls = []

    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 4], pypto.DT_FP32),
          y: pypto.Tensor([pypto.DYNAMIC, 4], pypto.DT_FP32)):
        calls.append(1)
        t = x[0:1, :] + 1.0 if len(calls) == 1 else x[0:1, :] * 2.0
        if x.shape[0] > 2:
            y[0:1, :] = t
    with pytest.raises(pypto.TraceError, match="traced differently"):
        k(rand((4, 4)), np.zeros((4, 4), np.float32))
