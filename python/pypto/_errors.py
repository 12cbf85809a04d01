"""The exceptions pypto raises and how their messages are written.

Every message starts like a compiler diagnostic, ``file:line:col: error:
what``, quotes the user's source line with a caret under the column, and
may add ``note:`` lines. Errors found by the C library carry its rendered
diagnostic unchanged; errors found while tracing are written the same way.
"""

import builtins
import linecache
import re

__all__ = [
    "PyptoError", "CompileError", "TraceError", "SymbolicValueError",
    "UnsupportedError", "UnsupportedOpError", "RuntimeError", "ArgumentError", "VerifyError",
    "LibraryNotFoundError",
]


class PyptoError(Exception):
    """Base of all pypto errors. ``diagnostic`` is the full text;
    ``filename``/``lineno``/``col`` the first location it names (or None)."""

    def __init__(self, diagnostic):
        super().__init__(diagnostic)
        self.diagnostic = diagnostic
        self.filename, self.lineno, self.col = first_location(diagnostic)


class CompileError(PyptoError):
    """Tracing or compiling a kernel failed."""


class TraceError(CompileError):
    """The kernel's Python code does something tracing cannot express."""


class SymbolicValueError(TraceError, TypeError):
    """A symbolic (run-time) value was used where Python needs a concrete
    one, e.g. ``range(bs)`` over a dynamic dim."""


class UnsupportedError(TraceError, NotImplementedError):
    """An op, argument or feature pypto does not support."""


class UnsupportedOpError(UnsupportedError, AttributeError):
    """``pypto.<name>`` names an op this package does not provide."""


class RuntimeError(PyptoError, builtins.RuntimeError):  # noqa: A001
    """Running a compiled kernel failed."""


class ArgumentError(RuntimeError, TypeError):
    """A kernel was called with arguments that do not match its signature."""


class VerifyError(RuntimeError):
    """The per-stage check (verify_options enable_pass_verify) found a
    stage whose results differ from the Tensor-level golden results."""


class LibraryNotFoundError(PyptoError, ImportError):
    """The PTO C library is missing or unusable."""


_LOC_RE = re.compile(r"^(.+?):(\d+):(\d+): (?:error|warning|note|remark): ", re.M)


def first_location(text):
    m = _LOC_RE.search(text or "")
    if not m:
        return None, None, None
    return m.group(1), int(m.group(2)), int(m.group(3))


def render(loc, message, severity="error"):
    """A diagnostic in the library's style: location, message, source line
    and caret. ``loc`` is (file, line, col) with col counted from 1."""
    if not loc:
        return f"<unknown>:0: {severity}: {message}\n"
    file, line, col = loc
    out = f"{file}:{line}:{col}: {severity}: {message}\n"
    src = linecache.getline(file, line).rstrip("\n") if file else ""
    if src:
        caret = "".join("\t" if ch == "\t" else " " for ch in src[:max(0, col - 1)])
        out += f"{src}\n{caret}^\n"
    return out


def error_at(cls, loc, message, notes=()):
    """An exception of ``cls`` whose message is rendered at ``loc``; notes
    are (loc, text) pairs."""
    text = render(loc, message)
    for nloc, ntext in notes:
        text += render(nloc, ntext, "note")
    return cls(text)
