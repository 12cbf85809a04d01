"""pypto: write kernels in Python at the Tensor level, run them here.

``@pypto.frontend.jit`` traces a Python function over ``pypto.Tensor``
parameters to Tensor-level IR (the ``pypto`` dialect), which the PTO C
library compiles and runs on numpy arrays or torch CPU tensors. See
docs/python.md.
"""

from . import frontend
from ._config import (RunMode, get_cube_tile_shapes, get_semantic_label,
                      get_vec_tile_shapes, options, set_cube_tile_shapes,
                      set_pass_options, set_semantic_label, set_vec_tile_shapes)
from ._control import cond, is_loop_begin, is_loop_end, loop, loop_unroll
from ._dtypes import (DT_BF16, DT_BOOL, DT_FP16, DT_FP32, DT_INT8, DT_INT16,
                      DT_INT32, DT_INT64, DataType, bytes_of)
from ._errors import (ArgumentError, CompileError, LibraryNotFoundError,
                      PyptoError, RuntimeError, SymbolicValueError, TraceError,
                      UnsupportedError, VerifyError)
from ._ops import (CastMode, ReLuType, SaturationMode, abs, add, amax, amin,
                   argmax, argmin, assemble, broadcast_to, cast, cat, ceil,
                   concat, cos, dequantize, div, eq, erf, exp, expand, floor,
                   full, gather, ge, gelu, gt, index_select, layer_norm, le,
                   log, lt, matmul, maximum, minimum, mul, ne, neg, ones,
                   permute, pow, prod, quantize, reciprocal, relu, reshape,
                   rms_norm, round, rsqrt, scatter_update, sigmoid, silu, sin,
                   softmax, sqrt, sub, sum, tanh, tensor, topk, transpose, view,
                   where, zeros)
from ._symbolic import DYN, DYNAMIC, SymbolicScalar, symbolic_scalar
from ._symbolic import smax as max
from ._symbolic import smin as min
from ._tensor import Tensor, TileOpFormat
from ._lib import library_path

__version__ = "0.1.0"
