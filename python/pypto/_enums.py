"""PyPTO's small enumerations that select a variant of an op (log base,
precision, top-k algorithm, ...). Where an op here has one behaviour, the
enum is accepted and checked; docs/python.md says which choices matter."""

import enum

__all__ = ["CachePolicy", "LogBaseType", "OpType", "OutType", "PrecisionType",
           "ReduceMode", "ScatterMode", "TopKAlgo", "TransMode", "check_enum"]


class CachePolicy(enum.Enum):
    """How a tensor's data may be cached on the way to the cores."""
    PREFETCH = "prefetch"
    NONE_CACHEABLE = "none_cacheable"


class LogBaseType(enum.Enum):
    """Base of pypto.log."""
    LOG_E = "e"
    LOG_2 = "2"
    LOG_10 = "10"


class OpType(enum.Enum):
    """A comparison."""
    EQ = "eq"
    NE = "ne"
    LT = "lt"
    LE = "le"
    GT = "gt"
    GE = "ge"


class OutType(enum.Enum):
    """Result form of a comparison: a bool per element, or bits."""
    BOOL = "bool"
    BIT = "bit"


class PrecisionType(enum.Enum):
    """Accuracy mode of div, exp, log, sqrt, ...: the reference kernels
    here always compute at full (f32 or better) precision."""
    INTRINSIC = "intrinsic"
    HIGH_PRECISION = "high_precision"


class ReduceMode(enum.Enum):
    ATOMIC_ADD = "atomic_add"


class ScatterMode(enum.Enum):
    """How scatter combines a source element with the one it lands on."""
    NONE = "none"
    ADD = "add"
    MULTIPLY = "multiply"


class TopKAlgo(enum.Enum):
    """How topk finds its elements (the result is the same)."""
    MERGE_SORT = "merge_sort"
    RADIX_SELECT = "radix_select"


class TransMode(enum.Enum):
    """Whether matmul rounds f32 operands to TF32 first, and how."""
    CAST_NONE = "none"
    CAST_RINT = "rint"
    CAST_ROUND = "round"


def check_enum(value, cls, what):
    """value as a member of cls; a TypeError at the user's line otherwise."""
    if isinstance(value, cls):
        return value
    from ._errors import error_at
    from ._loc import user_loc
    raise error_at(TypeError, user_loc(), f"{what} must be a pypto.{cls.__name__} ("
                   + ", ".join(m.name for m in cls) + f"), got {value!r}")
