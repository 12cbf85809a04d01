"""pypto.frontend: the kernel decorator and named dynamic dims."""

import functools
import inspect
import threading

from ._errors import TraceError, error_at
from ._jit import jit, JitKernel
from ._loc import user_loc
from ._trace import current
from ._symbolic import DynamicDim

__all__ = ["jit", "dynamic", "function", "JitKernel"]


def dynamic(name):
    """A named dynamic dim for parameter annotations: tensors annotated with
    the same name must agree on its size, and the kernel may use it as a
    symbolic scalar."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"pypto.frontend.dynamic takes a non-empty name, got {name!r}")
    return DynamicDim(name)


_inlining = threading.local()


def function(fn):
    """A sub-function for kernels: called inside a @pypto.frontend.jit
    kernel with all its arguments, positionally, its body is traced in
    place (inlined). Calling it outside a kernel, with keywords or the
    wrong number of arguments, or recursively, is an error at the call."""
    if not callable(fn):
        raise TypeError(f"pypto.frontend.function decorates a function, got {fn!r}")
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        raise TypeError(f"pypto.frontend.function: {fn.__name__} may only have plain "
                        "positional parameters")

    @functools.wraps(fn)
    def call(*args, **kwargs):
        loc = user_loc()
        current(f"{fn.__name__} (a pypto.frontend.function)")
        if kwargs:
            raise error_at(TypeError, loc, f"{fn.__name__} (a pypto.frontend.function) takes "
                           "its arguments positionally, got keywords "
                           + ", ".join(sorted(kwargs)))
        if len(args) != len(params):
            raise error_at(TypeError, loc, f"{fn.__name__} (a pypto.frontend.function) takes "
                           f"{len(params)} arguments, got {len(args)}")
        active = getattr(_inlining, "names", None)
        if active is None:
            active = _inlining.names = set()
        if fn in active:
            raise error_at(TraceError, loc, f"{fn.__name__} (a pypto.frontend.function) calls "
                           "itself; recursion cannot be inlined")
        active.add(fn)
        try:
            return fn(*args)
        finally:
            active.discard(fn)
    call.pypto_function = True
    return call
