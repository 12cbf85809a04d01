"""Errors: their exception types and exact messages, pointing at the
user's file, line and column."""

import os
import subprocess
import sys

import numpy as np
import pytest

import pypto
from conftest import ROOT, rand

FILE = os.path.abspath(__file__)


def line_of(marker):
    """The line number of the line of this file ending with `# <marker>`."""
    with open(FILE) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith(f"# {marker}"):
                return n
    raise AssertionError(marker)


def first_line(exc):
    return str(exc.value).splitlines()[0]


def test_symbolic_value_used_as_int():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 8], pypto.DT_FP32)):
        for i in range(x.shape[0]):  # range
            pass
    with pytest.raises(pypto.SymbolicValueError) as e:
        k(rand((2, 8)))
    assert first_line(e) == (
        f"{FILE}:{line_of('range')}:18: error: x.shape[0] is a symbolic value known only "
        "when the kernel runs; it cannot be used as a Python int. Use pypto.loop(...) "
        "instead of range(...), and pypto ops instead of Python arithmetic on its value")
    assert "for i in range(x.shape[0]):" in str(e.value)
    assert e.value.lineno == line_of("range")
    assert isinstance(e.value, TypeError) and isinstance(e.value, pypto.CompileError)


def test_compile_error_from_the_library_points_at_the_python_line():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 32], pypto.DT_FP32), y: pypto.Tensor([3, 32], pypto.DT_FP32)):
        z = pypto.add(x, y)  # bad add
    with pytest.raises(pypto.CompileError) as e:
        k(rand((4, 32)), rand((3, 32)))
    assert first_line(e) == (
        f"{FILE}:{line_of('bad add')}:13: error: 'pypto.add' op operands are not "
        "broadcast-compatible: 'tensor<4x32xf32>' and 'tensor<3x32xf32>' (dim 0: 4 vs 3)")
    lines = str(e.value).splitlines()
    assert lines[1].strip() == "z = pypto.add(x, y)  # bad add"
    assert lines[2] == " " * 12 + "^"


def test_wrong_dtype_and_shape():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32),  # x param
          y: pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP16)):
        y[:] = pypto.cast(x, pypto.DT_FP16)
    x = rand((4, 32))
    with pytest.raises(pypto.ArgumentError) as e:
        k(x, np.zeros((4, 32), np.float32))  # call dtype
    text = str(e.value)
    assert first_line(e) == (
        f"{FILE}:{line_of('call dtype')}:9: error: k: argument 'y' has dtype "
        "pypto.DT_FP32 (float32); the parameter is declared pypto.DT_FP16")
    assert "note: 'y' is declared pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP16)" in text
    with pytest.raises(pypto.ArgumentError) as e:
        k(rand((4, 16)), np.zeros((4, 32), np.float16))  # call shape
    assert first_line(e) == (
        f"{FILE}:{line_of('call shape')}:9: error: k: argument 'x' has shape (4, 16); the "
        "parameter is declared pypto.Tensor([pypto.DYNAMIC, 32], pypto.DT_FP32) (dim 1 is "
        "16, expected 32)")
    assert f"{FILE}:{line_of('x param')}:11: note: 'x' is declared" in str(e.value)
    with pytest.raises(pypto.ArgumentError, match=r"argument 'x' has shape \(32,\) \(rank 1\)"):
        k(rand((32,)), np.zeros((4, 32), np.float16))
    with pytest.raises(pypto.ArgumentError, match="must be a numpy array or a torch CPU "
                                                  "tensor, got list"):
        k([1.0], np.zeros((4, 32), np.float16))
    with pytest.raises(pypto.ArgumentError, match="a numpy array of dtype float64, which "
                                                  "pypto does not support"):
        k(x.astype(np.float64), np.zeros((4, 32), np.float16))
    with pytest.raises(pypto.ArgumentError, match="missing a required argument: 'y'"):
        k(x)
    assert isinstance(e.value, TypeError) and isinstance(e.value, pypto.RuntimeError)


def test_named_dynamic_dims_must_agree():
    B = pypto.frontend.dynamic("B")

    @pypto.frontend.jit
    def k(x: pypto.Tensor([B, 4], pypto.DT_FP32), y: pypto.Tensor([B, 4], pypto.DT_FP32)):
        pass
    with pytest.raises(pypto.ArgumentError) as e:
        k(rand((3, 4)), rand((5, 4)))
    assert "argument 'y' has size 5 in dim 0, which is the dynamic dim 'B' of size 3 in " \
           "argument 'x'" in first_line(e)


def test_read_only_output():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 8], pypto.DT_FP32), y: pypto.Tensor([4, 8], pypto.DT_FP32)):
        y[:] = x
    with pytest.raises(pypto.ArgumentError, match="argument 'y' is written by the kernel "
                                                  r"\(an in-place output\) but its array is "
                                                  "read-only"):
        k(rand((4, 8)), np.broadcast_to(rand((8,)), (4, 8)))


def test_unsupported_features():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 32], pypto.DT_FP32)):
        y = x[::2]  # step
    with pytest.raises(pypto.UnsupportedError) as e:
        k(rand((4, 32)))
    assert first_line(e) == (f"{FILE}:{line_of('step')}:13: error: slices with a step are "
                             "not supported (dim 0)")

    @pypto.frontend.jit
    def k2(x: pypto.Tensor([4, 32], pypto.DT_FP32)):
        pypto.sort(x)  # sort
    with pytest.raises(pypto.UnsupportedOpError) as e:
        k2(rand((4, 32)))
    assert first_line(e) == (f"{FILE}:{line_of('sort')}:9: error: pypto.sort is a PyPTO "
                             "op this implementation does not support yet; see docs/python.md "
                             "for the supported ops")
    assert not hasattr(pypto, "no_such_op")


def test_loop_left_early():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 32], pypto.DT_FP32)):
        for i in pypto.loop(4):  # loop
            break
    with pytest.raises(pypto.UnsupportedError) as e:
        k(rand((4, 32)))
    assert first_line(e).startswith(f"{FILE}:{line_of('loop')}:18: error: the body of this "
                                    "pypto.loop was left early (break")


def test_value_escaping_its_loop():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 32], pypto.DT_FP32), y: pypto.Tensor([4, 32], pypto.DT_FP32)):
        acc = x
        for i in pypto.loop(4):
            acc = acc + 1.0  # defined
        y[:] = acc  # escape
    with pytest.raises(pypto.TraceError) as e:
        k(rand((4, 32)), rand((4, 32)))
    assert first_line(e).startswith(f"{FILE}:{line_of('escape')}:")
    assert "used outside of it" in first_line(e)
    assert f"{FILE}:{line_of('defined')}:19: note: the value is defined here" in str(e.value)


def test_tile_shape_errors():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 32], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(4, 0)  # vec
    with pytest.raises(pypto.CompileError) as e:
        k(rand((4, 32)))
    assert first_line(e) == (f"{FILE}:{line_of('vec')}:9: error: vec tile shape entry #1 "
                             "must be positive, got 0")

    @pypto.frontend.jit
    def k2(x: pypto.Tensor([4, 32], pypto.DT_FP32)):
        pypto.set_cube_tile_shapes([32, 16], [16, 16], [16, 16])  # cube
    with pytest.raises(pypto.CompileError) as e:
        k2(rand((4, 32)))
    assert first_line(e) == (f"{FILE}:{line_of('cube')}:9: error: cube tile shape: mL0 (32) "
                             "must not exceed mL1 (16)")

    @pypto.frontend.jit
    def k3(a: pypto.Tensor([256, 256], pypto.DT_FP32), b: pypto.Tensor([256, 256],
                                                                      pypto.DT_FP32)):
        pypto.set_cube_tile_shapes([256, 256], [256, 256], [64, 64])
        c = pypto.matmul(a, b)  # capacity
    with pytest.raises(pypto.CompileError) as e:
        k3(rand((256, 256)), rand((256, 256)))
    assert first_line(e) == (
        f"{FILE}:{line_of('capacity')}:13: error: 'pypto.matmul' op cube tile mL0 x kL0 = "
        "256 x 256 of f32 needs 256 KiB of L0A, which holds 64 KiB on a2a3; reduce mL0 or kL0")

    # scaled_mm multiplies its scaled f32 rows: the same check, on f32
    @pypto.frontend.jit
    def k4(a: pypto.Tensor([256, 128], pypto.DT_FP8E4M3),
           b: pypto.Tensor([128, 16], pypto.DT_FP8E4M3),
           sa: pypto.Tensor([256, 2, 2], pypto.DT_FP8E8M0),
           sb: pypto.Tensor([2, 16, 2], pypto.DT_FP8E8M0)):
        pypto.set_cube_tile_shapes([256, 256], [128, 128], [16, 16])
        c = pypto.scaled_mm(a, b, pypto.DT_FP32, sa, sb)  # scaled capacity
    with pytest.raises(pypto.CompileError) as e:
        k4(np.zeros((256, 128), np.uint8), np.zeros((128, 16), np.uint8),
           np.zeros((256, 2, 2), np.uint8), np.zeros((2, 16, 2), np.uint8))
    assert first_line(e) == (
        f"{FILE}:{line_of('scaled capacity')}:13: error: 'pypto.scaled_mm' op cube tile "
        "mL0 x kL0 = 256 x 128 of f32 needs 128 KiB of L0A, which holds 64 KiB on a2a3; "
        "reduce mL0 or kL0")


def test_run_time_error():
    @pypto.frontend.jit
    def k(x: pypto.Tensor([4, 32], pypto.DT_FP32), i: pypto.Tensor([4, 2], pypto.DT_INT32),
          o: pypto.Tensor([4, 2], pypto.DT_FP32)):
        o[:] = pypto.gather(x, 1, i)  # gather
    o = np.full((4, 2), 7, np.float32)
    with pytest.raises(pypto.RuntimeError) as e:
        k(rand((4, 32)), np.full((4, 2), 40, np.int32), o)
    assert first_line(e).startswith(f"{FILE}:{line_of('gather')}:16: error: ")
    assert "index 40 at position (0, 0) is out of range [0, 32) for dim 1" in first_line(e)
    assert (o == 7).all()   # nothing written on failure


def test_options_are_checked():
    with pytest.raises(TypeError, match="unknown runtime_options entry 'run_mod'"):
        pypto.frontend.jit(runtime_options={"run_mod": 1})(lambda x: None)
    with pytest.raises(TypeError, match="runtime_options\\['run_mode'\\] must be "
                                        "pypto.RunMode.NPU or pypto.RunMode.SIM, got 7"):
        pypto.frontend.jit(runtime_options={"run_mode": 7})(lambda x: None)
    with pytest.raises(TypeError, match="unknown pass option 'l1_reuse'"):
        pypto.options(pass_options={"l1_reuse": 2})
    with pytest.raises(TypeError, match=r"pass option 'mg_vec_parallel_lb' must be in "
                                        r"\[1, 48\], got 0"):
        pypto.frontend.jit(pass_options={"mg_vec_parallel_lb": 0})(lambda x: None)


def test_api_outside_a_kernel():
    with pytest.raises(pypto.TraceError, match="pypto.set_vec_tile_shapes can only be used "
                                               "while a @pypto.frontend.jit kernel is traced"):
        pypto.set_vec_tile_shapes(4, 4)
    with pytest.raises(pypto.TraceError, match="pypto.loop can only be used"):
        pypto.loop(3)


def test_missing_library_is_named():
    code = "import pypto, numpy\n@pypto.frontend.jit\ndef k(x: pypto.Tensor):\n    pass\n" \
           "k(numpy.zeros(2, numpy.float32))\n"
    env = dict(os.environ, PTO_LIBRARY="/nonexistent/libpto.so",
               PYTHONPATH=os.path.join(ROOT, "python"))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode != 0
    assert "LibraryNotFoundError: pypto: cannot find the PTO C library (libpto.so); looked " \
           "for:\n  /nonexistent/libpto.so\nPTO_LIBRARY='/nonexistent/libpto.so' names no " \
           "library" in r.stderr
