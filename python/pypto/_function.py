"""PyPTO's API without a decorator: ``pypto.from_torch`` wraps a torch CPU
tensor as a pypto.Tensor, and ``with pypto.function(name, *tensors):``
traces the block over those tensors, then compiles and runs it once as the
block ends, writing what it assigns into the torch tensors in place."""

from . import _dtypes
from ._config import effective_options
from ._errors import ArgumentError, UnsupportedError, error_at
from ._jit import JitKernel
from ._loc import user_loc
from ._runtime import _torch, describe
from ._symbolic import DYNAMIC
from ._tensor import Tensor, TileOpFormat
from ._trace import Region, Tracer

__all__ = ["from_torch", "function"]

_OPTION_GROUPS = ("host_options", "runtime_options", "codegen_options", "pass_options",
                  "verify_options", "debug_options")


def from_torch(tensor, name="", *, dynamic_axis=None, tensor_format=None, dtype=None):
    """A pypto.Tensor over a contiguous torch CPU tensor (no copy): usable as
    an argument of a jit kernel or of ``pypto.function``. ``dynamic_axis``
    lists the dims a ``pypto.function`` traces as dynamic; ``dtype`` must be
    the tensor's own (nothing is reinterpreted)."""
    loc = user_loc()
    torch = _torch()
    if torch is None or not isinstance(tensor, torch.Tensor):
        raise error_at(TypeError, loc, f"from_torch takes a torch.Tensor, got "
                       f"{type(tensor).__name__}")
    if not isinstance(name, str):
        raise error_at(TypeError, loc, f"from_torch: name must be a str, got {name!r}")
    info = describe(tensor, None)
    if isinstance(info, str):
        raise error_at(ArgumentError, loc, f"from_torch: the tensor is {info}")
    if not info.shape or 0 in info.shape:
        raise error_at(ArgumentError, loc, f"from_torch: the tensor has no elements or no "
                       f"dims (shape {tuple(info.shape)}); pypto tensors have 1 to 4 dims")
    if not tensor.is_contiguous():
        raise error_at(ArgumentError, loc, "from_torch: the tensor is not contiguous; "
                       "pass tensor.contiguous()")
    if dtype is not None:
        want = _dtypes.coerce(dtype)
        if want is not info.dtype:
            raise error_at(TypeError, loc, f"from_torch: dtype {want!r} differs from the "
                           f"tensor's {info.dtype!r} ({tensor.dtype}); tensors are not "
                           "reinterpreted here")
    if tensor_format is None:
        tensor_format = TileOpFormat.TILEOP_ND
    elif tensor_format not in (TileOpFormat.TILEOP_ND, TileOpFormat.TILEOP_NZ):
        raise error_at(TypeError, loc, f"from_torch: tensor_format must be a "
                       f"pypto.TileOpFormat, got {tensor_format!r}")
    rank = len(info.shape)
    axes = []
    for a in dynamic_axis or ():
        if isinstance(a, bool) or not isinstance(a, int) or not -rank <= a < rank:
            raise error_at(ArgumentError, loc, f"from_torch: dynamic_axis {a!r} is not a dim "
                           f"of a rank-{rank} tensor")
        axes.append(a % rank)
    t = Tensor(list(info.shape), info.dtype, name or None, tensor_format)
    t._host = tensor
    t._host_dyn = tuple(sorted(set(axes)))
    return t


class _FunctionKernel(JitKernel):
    """The kernel of one ``with pypto.function`` block: a JitKernel whose
    trace is recorded while the block runs, not by calling a function."""

    def __init__(self, name, tensors, options, loc):
        ns = {}
        params = [f"a{i}" for i in range(len(tensors))]
        exec(f"def f({', '.join(params)}):\n    pass", ns)  # noqa: S102 - fixed text
        fn = ns["f"]
        fn.__name__ = fn.__qualname__ = name
        fn.__annotations__ = {
            p: Tensor([DYNAMIC if d in t._host_dyn else n for d, n in enumerate(t.shape)],
                      t.dtype)
            for p, t in zip(params, tensors)}
        super().__init__(fn, options)
        self._def_loc = loc
        self._param_locs = {}
        self._recorded = None

    def _trace(self, infos, scalars, opts):
        return self._recorded


class _FunctionScope:
    def __init__(self, name, tensors, options, loc):
        self._tensors = tensors
        self._kernel = _FunctionKernel(name, tensors, options, loc)
        self._loc = loc
        self._tracer = None

    def __enter__(self):
        k = self._kernel
        hosts = [t._host for t in self._tensors]
        self._key, self._infos, _, opts = k._bind(hosts, {})
        self._opts = opts if opts is not None else effective_options(k._options)
        tracer, handles = k._start_trace(self._infos)
        tracer.__enter__()
        self._tracer = tracer
        for t, h in zip(self._tensors, handles):
            t._value, t._dims, t._origin = h._value, h._dims, h._origin
        region = Region(tracer.body, "func")
        tracer.regions.append(region)
        tracer.begin_path(region)
        self._region = region
        return self

    def __exit__(self, exc_type, exc, tb):
        k, tracer, region = self._kernel, self._tracer, self._region
        try:
            if exc_type is not None:
                return False
            if tracer.broken_loop is not None:
                raise error_at(UnsupportedError, tracer.broken_loop,
                               "the body of this pypto.loop was left early; pypto loops run "
                               "every iteration: use pypto.cond to skip work")
            tracer.end_path(region, [])
            if tracer.next_path(region):
                raise error_at(UnsupportedError, self._loc,
                               "pypto.cond outside a pypto.loop in `with pypto.function(...)`: "
                               "the block runs once, so only one of its branches could be "
                               "traced; put the condition inside a pypto.loop or write the "
                               "kernel as a @pypto.frontend.jit function")
            tracer.regions.pop()
            order = {id(t): i for i, t in enumerate(self._tensors)}
            carried = sorted(region.mutated.items(),
                             key=lambda e: order.get(id(e[0]), 1 << 30))
            tracer._terminate(region, tracer.body, carried, [], "func.return", self._loc)
            k._recorded = k._finish_trace(tracer, self._tensors, carried, [], region,
                                           self._opts)
        finally:
            tracer.__exit__(None, None, None)
            for t in self._tensors:
                t._value = t._dims = t._origin = None
        with k._lock:
            ck = k._compile(self._key, self._infos, {}, self._opts)
            k._last = ck
            k._check_outputs(ck, self._infos)
            k._run(ck, self._infos)
        return False

    @property
    def tensors(self):
        """The block's tensors, in the order given."""
        return list(self._tensors)

    @property
    def backend(self):
        """What ran the block (as ``JitKernel.backend`` says): "host", "sim"
        or "interp"."""
        return self._kernel.backend

    def ir(self, stage=None, generic=False, debuginfo=False):
        """The block's IR once it has run (as ``JitKernel.ir`` shows it)."""
        return self._kernel.ir(stage=stage, generic=generic, debuginfo=debuginfo)


def function(name, *args, **kwargs):
    """``with pypto.function(name, *tensors):`` traces the block over the
    tensors (from ``pypto.from_torch``) as one kernel named `name`, then
    compiles and runs it once at the end of the block; tensors the block
    assigns to are written in place. Keyword arguments are the option
    dictionaries of ``pypto.frontend.jit``."""
    loc = user_loc()
    if not isinstance(name, str) or not name:
        raise error_at(TypeError, loc, f"pypto.function: name must be a non-empty str, "
                       f"got {name!r}")
    for key in kwargs:
        if key not in _OPTION_GROUPS:
            raise error_at(TypeError, loc, f"pypto.function: unexpected keyword argument "
                           f"'{key}' (expected one of {', '.join(_OPTION_GROUPS)})")
    tensors = []
    for i, a in enumerate(args):
        if not isinstance(a, Tensor) or a._host is None:
            raise error_at(TypeError, loc, f"pypto.function '{name}': argument {i} must be a "
                           f"tensor from pypto.from_torch, got {type(a).__name__}")
        if any(a is t for t in tensors):
            raise error_at(ArgumentError, loc, f"pypto.function '{name}': argument {i} is "
                           "passed twice")
        if a._value is not None:
            raise error_at(ArgumentError, loc, f"pypto.function '{name}': argument {i} is "
                           "already in use by another pypto.function block")
        tensors.append(a)
    options = {g: kwargs.get(g) for g in _OPTION_GROUPS}
    return _FunctionScope(name, tensors, options, loc)

