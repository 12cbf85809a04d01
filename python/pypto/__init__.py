"""pypto: write kernels in Python at the Tensor level, run them here.

``@pypto.frontend.jit`` traces a Python function over ``pypto.Tensor``
parameters to Tensor-level IR (the ``pypto`` dialect), which the PTO C
library compiles and runs on numpy arrays or torch CPU tensors. See
docs/python.md.
"""

from . import experimental, frontend
from ._config import (RunMode, TileL0Info, TileL1Info, get_conv_tile_shapes,
                      get_cube_tile_shapes, get_pass_options, get_platform,
                      get_semantic_label, get_vec_tile_shapes, options,
                      set_conv_tile_shapes, set_cube_tile_shapes, set_matrix_size,
                      set_pass_options, set_platform, set_semantic_label,
                      set_vec_tile_shapes)
from ._options import (CompStage, PassConfigKey, PassConfigs, get_codegen_options,
                       get_debug_options, get_host_options, get_pass_config,
                       get_pass_configs, get_pass_default_config, get_runtime_options,
                       get_verify_options, reset_options, set_codegen_options,
                       set_debug_options, set_host_options, set_pass_config,
                       set_pass_default_config, set_runtime_options,
                       set_verify_golden_data, set_verify_options)
from ._enums import (CachePolicy, LogBaseType, OpType, OutType, PrecisionType,
                     ReduceMode, ScatterMode, TopKAlgo, TransMode)
from ._control import cond, is_loop_begin, is_loop_end, loop, loop_unroll
from ._dtypes import (DT_BF16, DT_BOOL, DT_FP16, DT_FP32, DT_INT8, DT_INT16,
                      DT_INT32, DT_INT64, DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DataType,
                      DT_FP8E4M3, DT_FP8E5M2, DT_FP8E8M0,
                      Element, bytes_of)
from ._errors import (ArgumentError, CompileError, LibraryNotFoundError,
                      PyptoError, RuntimeError, SymbolicValueError, TraceError,
                      UnsupportedError, UnsupportedOpError, VerifyError)
from ._ops import (CastMode, ReLuType, SaturationMode, abs, acos, acosh, add, amax,
                   amin, argmax, argmin, asin, asinh, assemble, atan, atanh,
                   broadcast_to, cast, cat, cbrt, ceil, clip, concat, cos, cosh,
                   dequantize, div, eq, erf, erfc, exp, exp2, expand, expm1, floor,
                   full, gather, ge, gelu, gt, hardsigmoid, index_select, layer_norm,
                   le, leaky_relu, log, log1p, log2, log10, lt, matmul, maximum,
                   minimum, mul, ne, neg, ones, permute, pow, prod, quantize,
                   reciprocal, relu, reshape, rms_norm, round, rsqrt, scatter_update,
                   sigmoid, sign, silu, sin, sinh, softmax, sqrt, sub, sum, tan, tanh,
                   tensor, topk, transpose, trunc, view, where, zeros)
from ._ops import atomic_add, index_add, index_add_, normal, uniform
from ._ops import index_add__ub, index_add_ub, scatter, scatter_
from ._ops import fillpad
from ._conv import conv
from ._mx import DequantScaleRoundingMode, ROUND_DOWN, quant_mx, scaled_mm
from ._composite import (arange, argsort, atan2, axpy_, deinterleave, interleave, bitwise_and, bitwise_left_shift,
                         bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor,
                         cumprod, cumsum, ceil_div, clone, expand_clone, expand_exp_dif,
                         floor_div, fmod, gathermask, gcd, hypot, index_put_, isfinite,
                         isnan, logical_and, pack, unpack,
                         logical_not, lrelu, one_hot, pad, prelu, remainder, signbit, tril, triu,
                         unsqueeze, var)
from ._function import from_torch, function
from ._debug import pass_verify_print, pass_verify_save
from ._symbolic import DYN, DYNAMIC, SymbolicScalar, symbolic_scalar
from ._symbolic import smax as max
from ._symbolic import smin as min
from ._tensor import Tensor, TileOpFormat
from ._lib import library_path
from .frontend import jit  # PyPTO's alias of pypto.frontend.jit

__version__ = "0.1.0"

# PyPTO ops this package does not implement (yet): using one is an
# UnsupportedOpError at the line that names it, not a confusing failure.
_NOT_PROVIDED = frozenset("""
copysign
indexput_
logical_or
sort var_mean
""".split())


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ._errors import error_at as _error_at
    from ._loc import user_loc as _user_loc
    if name in _NOT_PROVIDED:
        msg = (f"pypto.{name} is a PyPTO op this implementation does not support yet; "
               "see docs/python.md for the supported ops")
    else:
        msg = f"module 'pypto' has no attribute '{name}'"
    raise _error_at(UnsupportedOpError, _user_loc(), msg)
