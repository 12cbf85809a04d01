"""PyPTO's non-jit API: pypto.from_torch and ``with pypto.function(...)``,
against numpy/torch, with the errors of their misuse."""

import numpy as np
import pytest

import pypto
from conftest import requires_torch

pytestmark = requires_torch


def torch():
    import torch as t
    return t


def test_from_torch_describes_the_tensor():
    x = torch().randn(2, 3)
    t = pypto.from_torch(x)
    assert t.shape == [2, 3] and t.dtype is pypto.DT_FP32
    assert t.format == pypto.TileOpFormat.TILEOP_ND and t.name is None
    y = pypto.from_torch(torch().zeros(4, 5, dtype=torch().int16), "y", dynamic_axis=[0, -1],
                         tensor_format=pypto.TileOpFormat.TILEOP_NZ, dtype=pypto.DT_INT16)
    assert y.name == "y" and y.dtype is pypto.DT_INT16 and y._host_dyn == (0, 1)
    assert y.format == pypto.TileOpFormat.TILEOP_NZ


def test_from_torch_tensors_are_jit_arguments():
    @pypto.frontend.jit
    def k(a: pypto.Tensor([4, 8], pypto.DT_FP32), b: pypto.Tensor([4, 8], pypto.DT_FP32)):
        b[:] = pypto.exp(a) + 1.0

    a, b = torch().randn(4, 8), torch().zeros(4, 8)
    k(pypto.from_torch(a), pypto.from_torch(b))
    np.testing.assert_allclose(b.numpy(), np.exp(a.numpy()) + 1.0, rtol=1e-6)


def test_function_block_runs_once_and_writes_in_place():
    a = torch().rand(32, 16)
    b = torch().rand(32, 16)
    c = torch().zeros(32, 16)
    pa, pb, pc = (pypto.from_torch(v) for v in (a, b, c))
    with pypto.function("main", pa, pb, pc) as f:
        pypto.set_vec_tile_shapes(16, 16)
        for i in pypto.loop(0, 2, 1, name="LOOP_L0", idx_name="i"):
            v = pypto.view(pa, [16, 16], [i * 16, 0]) * pypto.view(pb, [16, 16], [i * 16, 0])
            pypto.assemble(v, [i * 16, 0], pc)
        assert pc.shape == [32, 16]
    np.testing.assert_allclose(c[:, :16].numpy(), (a * b)[:, :16].numpy(), rtol=1e-6)
    assert "pypto.mul" in f.ir()
    # outside the block the tensors are host tensors again
    assert pc._value is None
    with pypto.function("again", pa, pc):
        pc[:] = pa + 1.0
    np.testing.assert_allclose(c.numpy(), a.numpy() + 1.0, rtol=1e-6)


def test_function_with_dynamic_axis():
    for n in (8, 24):
        x = torch().rand(n, 16)
        y = torch().zeros(n, 16)
        px, py = pypto.from_torch(x, dynamic_axis=[0]), pypto.from_torch(y, dynamic_axis=[0])
        with pypto.function("dyn", px, py) as f:
            pypto.set_vec_tile_shapes(8, 16)
            for i in pypto.loop(px.shape[0] // 8):
                v = pypto.view(px, [8, 16], [i * 8, 0])
                pypto.assemble(pypto.sqrt(v), [i * 8, 0], py)
        assert "tensor<?x16xf32>" in f.ir()
        np.testing.assert_allclose(y.numpy(), np.sqrt(x.numpy()), rtol=1e-6)


def test_function_cond_inside_a_loop(monkeypatch):
    monkeypatch.delenv("PTO_BACKEND", raising=False)
    a, s = torch().rand(4, 4), torch().zeros(4, 4)
    t, u = pypto.from_torch(a), pypto.from_torch(s)
    with pypto.function("f", t, u) as f:
        for i in pypto.loop(3):
            if pypto.cond(i == 0):
                u[:] = t + 1.0
            else:
                u[:] = u * 2.0
    np.testing.assert_allclose(s.numpy(), (a.numpy() + 1.0) * 4.0, rtol=1e-6)
    assert f.backend == "host"  # both branches yield a whole new u: compiled in place


def test_from_torch_errors():
    with pytest.raises(TypeError, match="from_torch takes a torch.Tensor, got ndarray") as e:
        pypto.from_torch(np.zeros(3, np.float32))
    assert "test_function.py" in str(e.value)
    with pytest.raises(pypto.ArgumentError, match="not contiguous"):
        pypto.from_torch(torch().zeros(4, 6).t())
    with pytest.raises(TypeError, match="dtype pypto.DT_FP16 differs from the tensor.s pypto.DT_FP32"):
        pypto.from_torch(torch().zeros(4), dtype=pypto.DT_FP16)
    with pytest.raises(pypto.ArgumentError, match="dynamic_axis 2 is not a dim of a rank-2"):
        pypto.from_torch(torch().zeros(4, 4), dynamic_axis=[2])
    with pytest.raises(TypeError, match="tensor_format must be a pypto.TileOpFormat"):
        pypto.from_torch(torch().zeros(4), tensor_format="NZ")
    with pytest.raises(pypto.ArgumentError, match="has no elements"):
        pypto.from_torch(torch().zeros(0, 4))


def test_function_errors():
    t = pypto.from_torch(torch().zeros(4, 4))
    with pytest.raises(TypeError, match="argument 1 must be a tensor from pypto.from_torch"):
        pypto.function("f", t, np.zeros(3))
    with pytest.raises(TypeError, match="name must be a non-empty str"):
        pypto.function("", t)
    with pytest.raises(pypto.ArgumentError, match="argument 1 is passed twice"):
        pypto.function("f", t, t)
    with pytest.raises(TypeError, match="unexpected keyword argument 'run_options'"):
        pypto.function("f", t, run_options={})
    s = torch().zeros(4, 4)
    u = pypto.from_torch(s)
    with pytest.raises(pypto.UnsupportedError, match="pypto.cond outside a pypto.loop") as e:
        with pypto.function("f", pypto.from_torch(torch().zeros(4, 4), dynamic_axis=[0]), u) \
                as f:
            if pypto.cond(f.tensors[0].shape[0] > 2):
                u[:] = u + 1.0
    assert "test_function.py" in str(e.value)
    assert u._value is None  # the tensors are released after a failed block
    with pytest.raises(ZeroDivisionError):
        with pypto.function("f", t, u):
            1 / 0
    assert u._value is None
    assert (s.numpy() == 0).all()


def test_the_docs_example_runs():
    import os
    import re
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(root, "docs", "python.md")) as f:
        text = f.read()
    code = re.search(r"### Without a decorator.*?```python\n(.*?)```", text, re.S).group(1)
    ns = {"torch": torch(), "pypto": pypto}
    exec(compile(code.replace("print(f.ir())", "ir = f.ir()"), "python.md", "exec"), ns)
    a, b, c = ns["a"], ns["b"], ns["c"]
    np.testing.assert_allclose(c.numpy(), (a * b).numpy(), rtol=1e-6)
    assert "pypto.assemble" in ns["ir"]
