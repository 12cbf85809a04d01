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


def frame_loc(f):
    """(file, line, col) of the instruction a frame is at."""
    return (f.f_code.co_filename, f.f_lineno, _col(f))


def user_loc():
    """(file, line, col) of the innermost user frame, or None."""
    f = user_frame(2)
    if f is None:
        return None
    return frame_loc(f)


def def_loc(fn):
    """Where a Python function is defined: (file, line, 1)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return (code.co_filename, code.co_firstlineno, 1)


def param_locs(fn):
    """Where each parameter of a Python function is written: {name: (file,
    line, col)}, from its source (empty when the source is unavailable)."""
    import ast
    import inspect
    import textwrap
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return {}
    src = "".join(lines)
    dedented = textwrap.dedent(src)
    shift = len(lines[0]) - len(lines[0].lstrip()) if dedented != src else 0
    try:
        tree = ast.parse(dedented)
    except SyntaxError:
        return {}
    file = fn.__code__.co_filename
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn.__name__:
            a = node.args
            out = {}
            for arg in a.posonlyargs + a.args + a.kwonlyargs:
                out[arg.arg] = (file, first + arg.lineno - 1, arg.col_offset + 1 + shift)
            return out
    return {}
