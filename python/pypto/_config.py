"""Tuning calls made while tracing (tile shapes, semantic labels, pass
options), the option dictionaries of @pypto.frontend.jit, and
``pypto.options`` scopes."""

import contextlib
import os
import functools
import threading

from ._errors import CompileError, TraceError, UnsupportedError, error_at
from ._loc import user_loc
from ._options import (GROUPS, check_group, get_group, global_options,
                       normalize_options, set_group)
from ._trace import current, active

__all__ = ["set_vec_tile_shapes", "get_vec_tile_shapes", "set_cube_tile_shapes",
           "get_cube_tile_shapes", "set_semantic_label", "get_semantic_label",
           "set_pass_options", "get_pass_options", "options", "RunMode",
           "normalize_options", "effective_options"]


class RunMode:
    """Where a kernel runs: NPU, the JIT-compiled kernels on the host
    runtime's worker threads; SIM, those for the numbers and the runtime's
    simulator for the timeline (docs/python.md, "Run modes")."""
    NPU = 0
    SIM = 1


# ---------------------------------------------------------------- tiles --

def _ints(values, what):
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise error_at(TypeError, user_loc(), f"{what} must be ints, got {v!r}")
        out.append(v)
    return out


def set_vec_tile_shapes(*dims):
    """Tile shape of the vector ops traced after this call (1 to 4 positive
    sizes)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    dims = _ints(dims, "vec tile shapes")
    t = current("pypto.set_vec_tile_shapes")
    loc = user_loc()
    if not t.session.check_tiles(dims, None, loc):
        raise CompileError(t.session.take_diagnostics())
    t.vec_tile = tuple(dims)


def get_vec_tile_shapes():
    """The vec tile shape in effect ([] when none is set, and outside a
    kernel)."""
    t = active()
    return list(t.vec_tile) if t is not None and t.vec_tile else []


def set_cube_tile_shapes(m, k, n, enable_split_k=False):
    """Tile shape of the matmuls traced after this call: m = [mL0, mL1],
    k = [kL0, kL1], n = [nL0, nL1] (L0 <= L1, L1 a multiple of L0; the
    platform's L0A/L0B/L0C/L1 capacities are checked at each matmul)."""
    vals = []
    for name, pair in (("m", m), ("k", k), ("n", n)):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise error_at(TypeError, user_loc(),
                           f"set_cube_tile_shapes: {name} must be [{name}L0, {name}L1], "
                           f"got {pair!r}")
        vals.extend(_ints(pair, f"cube tile shape {name}"))
    t = current("pypto.set_cube_tile_shapes")
    loc = user_loc()
    if not t.session.check_tiles(None, vals, loc):
        raise CompileError(t.session.take_diagnostics())
    if enable_split_k:
        raise error_at(UnsupportedError, loc,
                       "enable_split_k is not supported yet: matmuls split K inside one "
                       "cube task")
    t.cube_tile = tuple(vals)


def get_cube_tile_shapes():
    t = active()
    if t is None or not t.cube_tile:
        return []
    v = t.cube_tile
    return [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]]]


class TileL1Info:
    """The L1 tile of a convolution (PyPTO's TileL1Info): positive sizes."""
    FIELDS = ("tileHin", "tileHout", "tileWin", "tileWout", "tileCinFmap",
              "tileCinWeight", "tileN", "tileBatch")

    def __init__(self, tileHin=1, tileHout=1, tileWin=1, tileWout=16, tileCinFmap=16,
                 tileCinWeight=16, tileN=16, tileBatch=1):
        vals = dict(zip(self.FIELDS, (tileHin, tileHout, tileWin, tileWout, tileCinFmap,
                                      tileCinWeight, tileN, tileBatch)))
        _set_tile_fields(self, vals, type(self).__name__)
        if self.tileBatch != 1:
            raise error_at(ValueError, user_loc(), f"TileL1Info: tileBatch must be 1, "
                           f"got {self.tileBatch}")

    def __eq__(self, other):
        return type(other) is type(self) and vars(other) == vars(self)

    __hash__ = None

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(
            f"{f}={getattr(self, f)}" for f in self.FIELDS) + ")"


class TileL0Info(TileL1Info):
    """The L0 tile of a convolution (PyPTO's TileL0Info)."""
    FIELDS = ("tileH", "tileW", "tileK", "tileN")

    def __init__(self, tileH=1, tileW=16, tileK=16, tileN=16):
        _set_tile_fields(self, dict(zip(self.FIELDS, (tileH, tileW, tileK, tileN))),
                         type(self).__name__)


def _set_tile_fields(obj, vals, what):
    for name, v in vals.items():
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise error_at(TypeError, user_loc(),
                           f"{what}: {name} must be a positive int, got {v!r}")
        setattr(obj, name, v)


def set_conv_tile_shapes(tile_l1_info, tile_l0_info=None):
    """The convolution tiles of the kernel being traced. Recorded only:
    pypto.conv is a sum of matmuls here, tiled by set_cube_tile_shapes
    (see docs/python.md)."""
    loc = user_loc()
    if not isinstance(tile_l1_info, TileL1Info) or isinstance(tile_l1_info, TileL0Info):
        raise error_at(TypeError, loc, "set_conv_tile_shapes: tile_l1_info must be a "
                       f"pypto.TileL1Info, got {tile_l1_info!r}")
    if tile_l0_info is not None and not isinstance(tile_l0_info, TileL0Info):
        raise error_at(TypeError, loc, "set_conv_tile_shapes: tile_l0_info must be a "
                       f"pypto.TileL0Info, got {tile_l0_info!r}")
    if tile_l0_info is not None:
        l1, l0 = tile_l1_info, tile_l0_info
        for a, b in (("tileH", "tileHout"), ("tileW", "tileWout")):
            if getattr(l0, a) > getattr(l1, b) or getattr(l1, b) % getattr(l0, a):
                raise error_at(ValueError, loc, f"set_conv_tile_shapes: TileL0Info.{a} "
                               f"({getattr(l0, a)}) must divide TileL1Info.{b} "
                               f"({getattr(l1, b)})")
        if l0.tileN > l1.tileN:
            raise error_at(ValueError, loc, f"set_conv_tile_shapes: TileL0Info.tileN "
                           f"({l0.tileN}) exceeds TileL1Info.tileN ({l1.tileN})")
    t = current("pypto.set_conv_tile_shapes")
    t.conv_tile = (tile_l1_info, tile_l0_info)


def get_conv_tile_shapes():
    """(TileL1Info, TileL0Info, whether an L0 tile was given): the defaults
    outside a kernel or before set_conv_tile_shapes."""
    t = active()
    l1, l0 = getattr(t, "conv_tile", None) or (None, None)
    return (l1 or TileL1Info(), l0 or TileL0Info(), l0 is not None)


def set_matrix_size(size):
    """The [m, k, n] of the original (NZ) operands of the next matmuls.
    Checked and kept: tensors here are ND, so matmuls read their sizes from
    their operands."""
    loc = user_loc()
    if not isinstance(size, (list, tuple)) or len(size) != 3 or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size):
        raise error_at(TypeError, loc, f"set_matrix_size takes [m, k, n] of positive ints, "
                       f"got {size!r}")
    current("pypto.set_matrix_size").matrix_size = list(size)


def set_semantic_label(label):
    """Labels every op traced after this call (until the next label); the
    label names the tasks in traces and reports."""
    if label is not None and not isinstance(label, str):
        raise error_at(TypeError, user_loc(),
                       f"a semantic label must be a string, got {label!r}")
    current("pypto.set_semantic_label").label = label or None


def get_semantic_label():
    return current("pypto.get_semantic_label").label


# --------------------------------------------------------- pass options --
# The options themselves (names, types, defaults) are the table of
# _options.py; pass options are recorded on the IR (the function, or the
# pypto.loop they are set in) as pypto.pass_options.

# The platform kernels are compiled for; None: the library's default (a2a3).
# Process-wide like the other settings made outside a kernel; read when a
# kernel is traced.
_platform = None


def set_platform(platform):
    """Selects the machine description kernels traced from now on are
    checked against: a built-in name ("a2a3", "a3") or the path of an XML
    description. A bad name or file raises CompileError with the file and
    line at fault."""
    global _platform
    if not isinstance(platform, (str, os.PathLike)) or not os.fspath(platform):
        raise error_at(TypeError, user_loc(),
                       f"set_platform: expected a platform name or file, got {platform!r}")
    spec = os.fspath(platform)
    if "/" in spec or spec.endswith(".xml"):
        spec = os.path.abspath(spec)  # traced later, perhaps from elsewhere
    from ._lib import Session
    s = Session()
    try:
        if not s.set_platform(spec):
            raise CompileError(s.take_diagnostics())
        _platform = (spec, s.platform_name())
    finally:
        s.close()


def get_platform():
    """The selected platform's name ("a2a3" unless set_platform chose
    another)."""
    return _platform[1] if _platform else "a2a3"


def current_platform():
    """The platform spec kernels are traced for (None: the default)."""
    return _platform[0] if _platform else None


def set_pass_options(**kw):
    """Options of the partition and merge passes. Inside a kernel: for the
    current scope, the kernel or the pypto.loop the call is in (inner
    scopes inherit). Outside: for every kernel compiled from now on."""
    loc = user_loc()
    check_group("pass_options", kw, loc)
    t = active()
    if t is None:
        set_group("pass_options", kw)
        return
    t.regions[-1].pass_options.update(kw)


def get_pass_options():
    """Every pass option: defaults, what was set outside kernels, and inside
    a kernel what its enclosing scopes set."""
    t = active()
    scoped = {}
    if t is not None:
        for r in t.regions:
            scoped.update(r.pass_options)
    return get_group("pass_options", scoped)


_scopes = threading.local()


def _scope_stack():
    s = getattr(_scopes, "stack", None)
    if s is None:
        s = _scopes.stack = []
    return s


def effective_options(jit_options):
    """What set_*_options set, then the enclosing pypto.options scopes
    (outermost first), then the kernel's own options."""
    merged = {g: {} for g in GROUPS}
    for g, opts in global_options().items():
        merged[g].update(opts)
    for scope in _scope_stack():
        for g, opts in scope.items():
            merged[g].update(opts)
    for g, opts in jit_options.items():
        merged[g].update(opts)
    return merged


class options(contextlib.ContextDecorator):
    """``with pypto.options(pass_options={...}):`` or ``@pypto.options(...)``:
    option dictionaries for the kernels called in the scope (a kernel's own
    jit options take precedence). Inside a traced kernel, the tuning keys
    vec_tile_shapes, cube_tile_shapes and semantic_label apply to the ops
    traced in the scope. A leading string names the scope (ignored)."""

    _TRACE_KEYS = ("vec_tile_shapes", "cube_tile_shapes", "semantic_label")

    def __init__(self, name=None, **kw):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"pypto.options: the scope name must be a string, got {name!r}")
        self.name = name
        loc = user_loc()
        self.trace_kw = {k: kw.pop(k) for k in self._TRACE_KEYS if k in kw}
        self.groups = normalize_options(kw, loc)
        self._saved = []

    def __enter__(self):
        t = active()
        saved = None
        if self.trace_kw:
            if t is None:
                raise error_at(TraceError, user_loc(),
                               "vec_tile_shapes, cube_tile_shapes and semantic_label scopes "
                               "apply inside a traced kernel")
            saved = (t.vec_tile, t.cube_tile, t.label)
            kw = self.trace_kw
            if "vec_tile_shapes" in kw:
                set_vec_tile_shapes(*kw["vec_tile_shapes"])
            if "cube_tile_shapes" in kw:
                set_cube_tile_shapes(*kw["cube_tile_shapes"])
            if "semantic_label" in kw:
                set_semantic_label(kw["semantic_label"])
        _scope_stack().append(self.groups)
        self._saved.append(saved)
        return self

    def __exit__(self, *exc):
        _scope_stack().pop()
        saved = self._saved.pop()
        if saved is not None:
            t = active()
            if t is not None:
                t.vec_tile, t.cube_tile, t.label = saved
        return False

    def _recreate_cm(self):
        return self

    def __call__(self, fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            with self:
                return fn(*a, **k)
        return inner
