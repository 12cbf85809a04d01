"""The user's source location of the current API call: the innermost frame
outside this package, with its line and (Python 3.11+) column."""

import os
import sys

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_positions = {}  # code object -> list of (line, col) per instruction


def _in_package(filename):
    return filename.startswith(_PKG_DIR)


def _col(frame):
    code = frame.f_code
    table = _positions.get(code)
    if table is None:
        if hasattr(code, "co_positions"):
            table = [(p[0], p[2]) for p in code.co_positions()]
        else:
            table = []
        _positions[code] = table
    i = frame.f_lasti // 2
    if 0 <= i < len(table) and table[i][1] is not None and table[i][0] == frame.f_lineno:
        return table[i][1] + 1
    return 1


def user_frame(depth=1):
    f = sys._getframe(depth)
    while f is not None and _in_package(f.f_code.co_filename):
        f = f.f_back
    return f


def user_loc():
    """(file, line, col) of the innermost user frame, or None."""
    f = user_frame(2)
    if f is None:
        return None
    return (f.f_code.co_filename, f.f_lineno, _col(f))


def def_loc(fn):
    """Where a Python function is defined: (file, line, 1)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return (code.co_filename, code.co_firstlineno, 1)
