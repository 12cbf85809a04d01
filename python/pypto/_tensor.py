"""pypto.Tensor: parameter annotations (``pypto.Tensor([DYNAMIC, 32],
DT_FP32)``) and, while a kernel is traced, the tensors it computes on, with
numpy-like operators, slicing (a view) and slice assignment (assemble)."""

from . import _dtypes
from ._errors import TraceError, UnsupportedError, error_at
from ._loc import user_loc
from ._symbolic import Atom, DynamicDim, SymbolicScalar, _Dynamic

__all__ = ["Tensor", "TileOpFormat"]


class TileOpFormat:
    """Data layout of a parameter (accepted for compatibility; every tensor
    here is ND, row-major)."""
    TILEOP_ND = "TILEOP_ND"
    TILEOP_NZ = "TILEOP_NZ"


def _check_spec_dim(d):
    if d is Ellipsis or isinstance(d, (_Dynamic, DynamicDim)):
        return d
    if isinstance(d, bool) or not isinstance(d, int) or d <= 0:
        raise TypeError(f"a dim of pypto.Tensor must be a positive int, pypto.DYNAMIC, "
                        f"a pypto.frontend.dynamic(...) dim or ..., got {d!r}")
    return d


class Tensor:
    """A tensor. Constructed by users as a parameter annotation
    ``Tensor(shape, dtype)`` (both optional: missing parts come from the
    argument); inside a traced kernel, tensors are created by pypto ops."""

    __slots__ = ("_spec_shape", "_spec_dtype", "name", "format", "_value", "_dims",
                 "_origin", "_cache_policy", "_host", "_host_dyn", "_valid",
                 "__weakref__")

    def __init__(self, shape=None, dtype=None, name=None, format=None):
        if shape is not None and not isinstance(shape, int) and len(shape) == 0:
            shape = None  # PyPTO's Tensor([], dtype): any shape, not rank 0
        if shape is not None:
            if isinstance(shape, int):
                shape = (shape,)
            shape = tuple(_check_spec_dim(d) for d in shape)
            if sum(d is Ellipsis for d in shape) > 1:
                raise TypeError("a pypto.Tensor shape may contain '...' once")
        self._spec_shape = shape
        self._spec_dtype = _dtypes.coerce(dtype) if dtype is not None else None
        self.name = name
        self.format = format
        self._value = None
        self._dims = None
        self._origin = None
        self._cache_policy = None
        self._host = None  # the torch tensor of pypto.from_torch
        self._host_dyn = ()
        self._valid = None  # per-dim valid sizes of a partial view (see _ops)

    def __class_getitem__(cls, params):
        """``pypto.Tensor[[shape], dtype]``, the subscript annotation form."""
        if not isinstance(params, tuple):
            params = (params,)
        return cls(*params)

    # ---- traced tensors ----
    @classmethod
    def _wrap(cls, value, tracer, dims=None):
        t = cls.__new__(cls)
        t._spec_shape = None
        t._spec_dtype = None
        t.name = None
        t.format = None
        t._value = value
        t._cache_policy = None
        t._host = None
        t._host_dyn = ()
        t._valid = None
        t._origin = tracer.regions[-1] if tracer.regions else None
        if dims is None:
            dims = tuple(d if d is not None else
                         SymbolicScalar.atom(Atom("dim", value=(value, i), name=f"dim{i}"))
                         for i, d in enumerate(value.type.shape))
        t._dims = dims
        return t

    def _traced(self):
        if self._value is None:
            raise error_at(TraceError, user_loc(),
                           "this pypto.Tensor is an annotation, not a tensor of a traced "
                           "kernel; tensors are computed inside @pypto.frontend.jit kernels")
        return self._value

    @property
    def shape(self):
        """Dims: ints, and SymbolicScalars for dynamic dims."""
        if self._value is None:
            return list(self._spec_shape) if self._spec_shape is not None else None
        return list(self._dims)

    @property
    def dtype(self):
        if self._value is None:
            return self._spec_dtype
        return _dtypes.from_ir(self._value.type.elem)

    @property
    def dim(self):
        return len(self.shape)

    def size(self, d=None):
        return self.shape if d is None else self.shape[d]

    def __len__(self):
        n = self.shape[0]
        return n.__index__() if isinstance(n, SymbolicScalar) else n

    def __repr__(self):
        if self._value is None:
            shape = "None" if self._spec_shape is None else \
                "[" + ", ".join("..." if d is Ellipsis else repr(d) for d in self._spec_shape) + "]"
            return f"pypto.Tensor({shape}, {self._spec_dtype!r})"
        return f"<pypto.Tensor {self._value.type}>"

    def __bool__(self):
        raise error_at(TraceError, user_loc(),
                       "the truth value of a tensor is not known while tracing; use "
                       "pypto.where for element-wise selection")

    def __iter__(self):
        raise error_at(UnsupportedError, user_loc(),
                       "iterating over a pypto.Tensor is not supported; use pypto.loop "
                       "and slicing")

    # ---- operators ----
    def __add__(self, o):
        return _ops().add(self, o)

    def __radd__(self, o):
        return _ops().add(o, self)

    def __sub__(self, o):
        return _ops().sub(self, o)

    def __rsub__(self, o):
        return _ops().sub(o, self)

    def __mul__(self, o):
        return _ops().mul(self, o)

    def __rmul__(self, o):
        return _ops().mul(o, self)

    def __truediv__(self, o):
        return _ops().div(self, o)

    def __rtruediv__(self, o):
        return _ops().div(o, self)

    def __floordiv__(self, o):
        return _composite().floor_div(self, o)

    def __rfloordiv__(self, o):
        return _composite().floor_div(o, self)

    def __mod__(self, o):
        return _composite().remainder(self, o)

    def __rmod__(self, o):
        return _composite().remainder(o, self)

    def __pow__(self, o):
        return _ops().pow(self, o)

    def __rpow__(self, o):
        return _ops().pow(o, self)

    def __and__(self, o):
        return _composite().bitwise_and(self, o)

    def __rand__(self, o):
        return _composite().bitwise_and(o, self)

    def __or__(self, o):
        return _composite().bitwise_or(self, o)

    def __ror__(self, o):
        return _composite().bitwise_or(o, self)

    def __xor__(self, o):
        return _composite().bitwise_xor(self, o)

    def __rxor__(self, o):
        return _composite().bitwise_xor(o, self)

    def __lshift__(self, o):
        return _composite().bitwise_left_shift(self, o)

    def __rshift__(self, o):
        return _composite().bitwise_right_shift(self, o)

    def __invert__(self):
        return _composite().bitwise_not(self)

    def __matmul__(self, o):
        return _ops().matmul(self, o)

    def __neg__(self):
        return _ops().neg(self)

    def __abs__(self):
        return _ops().abs(self)

    def __eq__(self, o):
        return _ops().eq(self, o)

    def __ne__(self, o):
        return _ops().ne(self, o)

    def __lt__(self, o):
        return _ops().lt(self, o)

    def __le__(self, o):
        return _ops().le(self, o)

    def __gt__(self, o):
        return _ops().gt(self, o)

    def __ge__(self, o):
        return _ops().ge(self, o)

    __hash__ = object.__hash__

    @property
    def id(self):
        """An int naming this tensor handle (unique while it lives)."""
        return id(self)

    def set_cache_policy(self, policy, value):
        """Records a cache policy (pypto.CachePolicy) for the tensor; GM
        here has no cache to steer, so it is kept and returned only."""
        from ._enums import CachePolicy, check_enum
        check_enum(policy, CachePolicy, "policy")
        if not isinstance(value, bool):
            raise error_at(TypeError, user_loc(), f"set_cache_policy: value must be a bool, "
                           f"got {value!r}")
        if self._cache_policy is None:
            self._cache_policy = {}
        self._cache_policy[policy] = value

    def get_cache_policy(self, policy):
        from ._enums import CachePolicy, check_enum
        check_enum(policy, CachePolicy, "policy")
        return bool((self._cache_policy or {}).get(policy, False))

    def getitem(self, key, *, valid_shape=None):
        """self[key] (PyPTO's spelling with valid_shape)."""
        return _ops().view_key(self, key, valid_shape)

    def move(self, other):
        """Makes this tensor hold other's value (same shape and dtype)."""
        _ops().move(self, other)

    # ---- methods mirroring the op functions ----
    def exp(self):
        return _ops().exp(self)

    def add(self, other):
        return _ops().add(self, other)

    def sub(self, other):
        return _ops().sub(self, other)

    def mul(self, other):
        return _ops().mul(self, other)

    def div(self, other, precision_type=None):
        return _ops().div(self, other, precision_type)

    def maximum(self, other):
        return _ops().maximum(self, other)

    def matmul(self, mat2, out_dtype=None, *, a_trans=False, b_trans=False,
               c_matrix_nz=False, extend_params=None):
        return _ops().matmul(self, mat2, out_dtype, a_trans=a_trans, b_trans=b_trans,
                             c_matrix_nz=c_matrix_nz, extend_params=extend_params)

    def ceil(self):
        return _ops().ceil(self)

    def floor(self):
        return _ops().floor(self)

    def trunc(self):
        return _ops().trunc(self)

    def round(self):
        return _ops().round(self)

    def cos(self):
        return _ops().cos(self)

    def sin(self):
        return _ops().sin(self)

    def sigmoid(self):
        return _ops().sigmoid(self)

    def exp2(self):
        return _ops().exp2(self)

    def expm1(self):
        return _ops().expm1(self)

    def log(self, base=None, precision_type=None):
        from ._enums import LogBaseType
        return _ops().log(self, base or LogBaseType.LOG_E, precision_type)

    def log2(self, precision_type=None):
        return _ops().log2(self, precision_type)

    def log10(self, precision_type=None):
        return _ops().log10(self, precision_type)

    def reciprocal(self, precision_type=None):
        return _ops().reciprocal(self, precision_type)

    def rsqrt(self, precision_type=None):
        return _ops().rsqrt(self, precision_type)

    def sqrt(self, precision_type=None):
        return _ops().sqrt(self, precision_type)

    def softmax(self, dim=-1):
        return _ops().softmax(self, dim)

    def topk(self, k, dim=-1, largest=True, algo=None):
        return _ops().topk(self, k, dim, largest, algo)

    def where(self, condition, y):
        """condition ? self : y."""
        return _ops().where(condition, self, y)

    def gather(self, dim, index):
        return _ops().gather(self, dim, index)

    def scatter_update(self, dim, index, src):
        return _ops().scatter_update(self, dim, index, src)

    def scatter(self, dim, index, src, *, reduce=None):
        return _ops().scatter(self, dim, index, src, reduce=reduce)

    def scatter_(self, dim, index, src, *, reduce=None):
        return _ops().scatter_(self, dim, index, src, reduce=reduce)

    def index_add(self, dim, index, source, *, alpha=1):
        return _ops().index_add(self, dim, index, source, alpha=alpha)

    def index_add_(self, dim, index, source, *, alpha=1):
        return _ops().index_add_(self, dim, index, source, alpha=alpha)

    @staticmethod
    def concat(tensors, dim=0):
        return _ops().concat(tensors, dim)

    def assemble(self, input, offsets):
        """Writes input into this tensor at offsets."""
        _ops().assemble(input, offsets, self)

    def clone(self):
        return _composite().clone(self)

    def expand_clone(self, shape, *, valid_shape=None):
        return _composite().expand_clone(self, shape, valid_shape=valid_shape)

    def unsqueeze(self, dim):
        return _composite().unsqueeze(self, dim)

    def logical_not(self):
        return _composite().logical_not(self)

    def fmod(self, other, precision_type=None):
        return _composite().fmod(self, other, precision_type)

    def gcd(self, other):
        return _composite().gcd(self, other)

    def remainder(self, other, precision_type=None):
        return _composite().remainder(self, other, precision_type)

    def axpy_(self, x, alpha=1.0):
        return _composite().axpy_(self, x, alpha)

    def cumsum(self, dim):
        return _composite().cumsum(self, dim)

    def cumprod(self, dim):
        return _composite().cumprod(self, dim)

    def tril(self, diagonal=0):
        return _composite().tril(self, diagonal)

    def triu(self, diagonal=0):
        return _composite().triu(self, diagonal)

    def tril_(self, diagonal=0):
        """tril in place: this tensor becomes its lower triangle."""
        _ops()._assemble_into(self, self.tril(diagonal), [0] * len(self.shape), user_loc())
        return self

    def triu_(self, diagonal=0):
        """triu in place."""
        _ops()._assemble_into(self, self.triu(diagonal), [0] * len(self.shape), user_loc())
        return self

    def sum(self, dim=-1, keepdim=False):
        return _ops().sum(self, dim, keepdim)

    def amax(self, dim=-1, keepdim=False):
        return _ops().amax(self, dim, keepdim)

    def amin(self, dim=-1, keepdim=False):
        return _ops().amin(self, dim, keepdim)

    def reshape(self, shape, *, valid_shape=None, inplace=False):
        return _ops().reshape(self, shape, valid_shape=valid_shape, inplace=inplace)

    def transpose(self, dim0, dim1):
        return _ops().transpose(self, dim0, dim1)

    def permute(self, *dims):
        return _ops().permute(self, *dims)

    def cast(self, dtype, mode=None, satmode=None):
        return _ops().cast(self, dtype, mode, satmode)

    def view(self, shape=None, offsets=None):
        return _ops().view(self, shape, offsets)

    # ---- slicing ----
    def __getitem__(self, key):
        return _ops()._getitem(self, key)

    def __setitem__(self, key, value):
        _ops()._setitem(self, key, value)


def _ops():
    from . import _ops as ops
    return ops


def _composite():
    from . import _composite as c
    return c


def spec_of(annotation):
    """The Tensor spec of a parameter annotation, or None for scalars."""
    if annotation is Tensor:
        return Tensor()
    if isinstance(annotation, Tensor) and annotation._value is None:
        return annotation
    return None


def expand_spec(spec, rank):
    """The spec's dims for an argument of `rank` dims: '...' and an absent
    shape stand for dims taken from the argument (None here); None when
    the ranks cannot match."""
    shape = spec._spec_shape
    if shape is None:
        return [None] * rank
    if Ellipsis in shape:
        i = shape.index(Ellipsis)
        fixed = len(shape) - 1
        if rank < fixed:
            return None
        return list(shape[:i]) + [None] * (rank - fixed) + list(shape[i + 1:])
    if len(shape) != rank:
        return None
    return list(shape)


def is_dynamic(d):
    return isinstance(d, (_Dynamic, DynamicDim))
