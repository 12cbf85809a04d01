"""The Python op functions against the C op table: every op of the pypto
dialect the library registers has a Python function that traces it, and
the package names no op the library lacks."""

import ctypes

import pypto
from pypto import _ops


def c_op_names():
    lib = ctypes.CDLL(pypto.library_path())
    lib.pto_pypto_num_ops.restype = ctypes.c_uint
    lib.pto_pypto_mnemonic.restype = ctypes.c_char_p
    lib.pto_pypto_mnemonic.argtypes = [ctypes.c_int]
    return {lib.pto_pypto_mnemonic(i).decode() for i in range(lib.pto_pypto_num_ops())}


def test_every_c_op_has_a_python_function():
    c_ops = c_op_names()
    assert len(c_ops) > 60
    missing = sorted(c_ops - set(_ops.C_OPS))
    extra = sorted(set(_ops.C_OPS) - c_ops)
    assert not missing, f"pypto ops without a Python function: {missing}"
    assert not extra, f"Python's op list names ops the library lacks: {extra}"


def test_every_listed_function_exists():
    for mnemonic, path in _ops.C_OPS.items():
        obj = pypto
        for part in path.split("."):
            assert hasattr(obj, part), f"pypto.{mnemonic}: pypto.{path} does not exist"
            obj = getattr(obj, part)
        assert not isinstance(obj, type(pypto)), path
