"""pypto.frontend: the kernel decorator and named dynamic dims."""

from ._jit import jit, JitKernel
from ._symbolic import DynamicDim

__all__ = ["jit", "dynamic", "JitKernel"]


def dynamic(name):
    """A named dynamic dim for parameter annotations: tensors annotated with
    the same name must agree on its size, and the kernel may use it as a
    symbolic scalar."""
    if not isinstance(name, str) or not name:
        raise TypeError(f"pypto.frontend.dynamic takes a non-empty name, got {name!r}")
    return DynamicDim(name)
