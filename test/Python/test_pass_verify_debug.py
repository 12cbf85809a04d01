"""pypto.pass_verify_print and pypto.pass_verify_save: with
enable_pass_verify the Tensor-level run prints (into sys.stdout) and saves
(.npy) what the kernel names, only where cond holds; without it they do
nothing; the kernel's results are unchanged either way; misuse is an error
at the user's line."""

import os

import numpy as np
import pytest

import pypto
from conftest import rand

VERIFY = {"enable_pass_verify": True}


def _kernel(verify, save_dir=None):
    opts = dict(VERIFY, pass_verify_save_tensor_dir=save_dir) if save_dir else VERIFY

    @pypto.frontend.jit(verify_options=opts if verify else None)
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(2, 8)
        for i in pypto.loop(0, 4, 1, name="L", idx_name="i"):
            row = x[i:i + 1, :]
            e = pypto.exp(row)
            pypto.pass_verify_print("row", i, e, cond=(i == 2))
            pypto.pass_verify_save(e, "e_$i", i=i)
            pypto.pass_verify_save(row, "row_$n", cond=(i == 0), n=7)
            y[i:i + 1, :] = e
    return k


def test_print_and_save_with_pass_verify(tmp_path, capfd):
    x = rand((4, 8))
    y = np.zeros_like(x)
    _kernel(True, str(tmp_path))(x, y)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    out = capfd.readouterr().out
    lines = [s for s in out.splitlines() if s.startswith("row ")]
    assert len(lines) == 1, out
    text = lines[0]
    assert text.startswith("row 2 [[") and text.endswith("]]"), text
    got = np.array([float(v) for v in text[len("row 2 [["):-2].split(", ")], np.float32)
    np.testing.assert_allclose(got, np.exp(x[2]), rtol=1e-5)
    assert sorted(os.listdir(tmp_path)) == ["e_0.npy", "e_1.npy", "e_2.npy", "e_3.npy",
                                            "row_7.npy"]
    for i in range(4):
        e = np.load(tmp_path / f"e_{i}.npy")
        assert e.dtype == np.float32 and e.shape == (1, 8)
        np.testing.assert_allclose(e[0], np.exp(x[i]), rtol=1e-6)
    np.testing.assert_array_equal(np.load(tmp_path / "row_7.npy")[0], x[0])


def test_default_folder_is_output_tensor(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    x = rand((4, 8))
    _kernel(True)(x, np.zeros_like(x))
    outs = os.listdir(tmp_path / "output")
    assert len(outs) == 1 and outs[0].startswith("output_")
    assert "e_3.npy" in os.listdir(tmp_path / "output" / outs[0] / "tensor")


def test_nothing_without_pass_verify(tmp_path, monkeypatch, capfd):
    monkeypatch.chdir(tmp_path)
    x = rand((4, 8))
    y = np.zeros_like(x)
    _kernel(False)(x, y)
    np.testing.assert_allclose(y, np.exp(x), rtol=1e-6)
    assert "row" not in capfd.readouterr().out
    assert not os.path.exists(tmp_path / "output")


def test_traced_ops_and_static_conditions():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        pypto.pass_verify_print("never", x, cond=0)
        pypto.pass_verify_print("{braces}", x, 3.5, pypto.DT_FP32)
        pypto.pass_verify_save(x, 5, cond=0)
        pypto.pass_verify_save(x, 5)
        y[:] = x
    x = rand((4, 8))
    k(x, np.zeros_like(x))
    ir = k.ir()
    assert "never" not in ir
    assert ir.count("pypto.pass_verify_print") == 1
    assert '{format = "{{braces}} {} 3.5 DT_FP32"}' in ir or "{{braces}} {} 3.5" in ir
    assert ir.count("pypto.pass_verify_save") == 1
    assert 'fname = "5"' in ir


@pytest.mark.parametrize("call, exc, msg", [
    (lambda x: pypto.pass_verify_save(x, "a/b"), ValueError,
     "pass_verify_save: fname 'a/b' must be a file name prefix without a folder"),
    (lambda x: pypto.pass_verify_save(x, "a_$j", i=1), ValueError,
     "pass_verify_save: fname 'a_$j' uses $j, which no keyword argument gives"),
    (lambda x: pypto.pass_verify_save(x, "a_$i", i=1.5), TypeError,
     "pass_verify_save: i= must be an int or a SymbolicScalar, got 1.5"),
    (lambda x: pypto.pass_verify_save(3, "a"), TypeError,
     "pass_verify_save: tensor must be a pypto tensor, got 3"),
    (lambda x: pypto.pass_verify_save(x, ""), TypeError,
     "pass_verify_save: fname must be a non-empty str, an int or a SymbolicScalar, got ''"),
    (lambda x: pypto.pass_verify_print(x, cond=None), TypeError,
     "pass_verify_print: cond must be an int or a SymbolicScalar, got None"),
])
def test_misuse_is_an_error_at_the_users_line(call, exc, msg):
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        call(x)
        y[:] = x
    x = rand((4, 8))
    with pytest.raises(exc) as e:
        k(x, np.zeros_like(x))
    text = str(e.value)
    assert msg in text
    assert "test_pass_verify_debug.py:" in text  # the lambda's line


def test_outside_a_kernel():
    with pytest.raises(pypto.TraceError) as e:
        pypto.pass_verify_print("x")
    assert "pypto.pass_verify_print can only be used while a @pypto.frontend.jit kernel " \
           "is traced" in str(e.value)
