"""Tuning calls made while tracing (tile shapes, semantic labels, pass
options), the option dictionaries of @pypto.frontend.jit, and
``pypto.options`` scopes."""

import contextlib
import os
import functools
import threading

from ._errors import CompileError, TraceError, UnsupportedError, error_at
from ._loc import user_loc
from ._trace import current, active

__all__ = ["set_vec_tile_shapes", "get_vec_tile_shapes", "set_cube_tile_shapes",
           "get_cube_tile_shapes", "set_semantic_label", "get_semantic_label",
           "set_pass_options", "options", "RunMode", "normalize_options",
           "effective_options"]


class RunMode:
    """Where a kernel runs. Both modes compute real outputs today (through
    the reference interpreter); see docs/python.md for what each becomes
    once the compiled back ends land."""
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
    t = current("pypto.get_vec_tile_shapes")
    return list(t.vec_tile) if t.vec_tile else []


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
    t = current("pypto.get_cube_tile_shapes")
    if not t.cube_tile:
        return []
    v = t.cube_tile
    return [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]]]


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

# name: (type, low, high, what it drives). Recorded on the IR (the
# function, or the pypto.loop they are set in) for the passes that read
# them: cv-partition (pg_*, sg_*), nbuffer-merge (vec_nbuffer_*,
# mg_vec_parallel_lb), l1-reuse (cube_*, mg_copyin_upper_bound).
PASS_OPTIONS = {
    "pg_skip_partition": (bool, None, None),
    "pg_upper_bound": (int, 0, 2147483647),
    "pg_lower_bound": (int, 0, 2147483647),
    "pg_parallel_lower_bound": (int, 0, 2147483647),
    "mg_vec_parallel_lb": (int, 1, 48),
    "vec_nbuffer_mode": (int, 0, 2),
    "vec_nbuffer_setting": (dict, None, None),
    "cube_l1_reuse_mode": (int, 0, 2147483647),
    "cube_l1_reuse_setting": (dict, None, None),
    "cube_nbuffer_mode": (int, 0, 2),
    "cube_nbuffer_setting": (dict, None, None),
    "mg_copyin_upper_bound": (int, 0, 2147483647),
    "sg_set_scope": (int, -1, 2147483647),
}


def check_pass_options(kw, loc, cls=TypeError):
    for name, value in kw.items():
        spec = PASS_OPTIONS.get(name)
        if spec is None:
            raise error_at(cls, loc,
                           f"unknown pass option '{name}'; known options: "
                           + ", ".join(sorted(PASS_OPTIONS)))
        typ, lo, hi = spec
        if typ is bool:
            if not isinstance(value, bool):
                raise error_at(cls, loc, f"pass option '{name}' must be a bool, got {value!r}")
        elif typ is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise error_at(cls, loc, f"pass option '{name}' must be an int, got {value!r}")
            if not lo <= value <= hi:
                raise error_at(cls, loc,
                               f"pass option '{name}' must be in [{lo}, {hi}], got {value}")
        else:
            if not isinstance(value, dict) or not all(
                    isinstance(k, int) and not isinstance(k, bool) and
                    isinstance(v, int) and not isinstance(v, bool) for k, v in value.items()):
                raise error_at(cls, loc,
                               f"pass option '{name}' must be a dict of int to int, got {value!r}")


def pass_options_attr(opts):
    """The options as an IR dictionary attribute."""
    items = []
    for name in sorted(opts):
        v = opts[name]
        if isinstance(v, bool):
            items.append(f"{name} = {'true' if v else 'false'}")
        elif isinstance(v, int):
            items.append(f"{name} = {v} : i64")
        else:
            pairs = ", ".join(f"[{k}, {x}]" for k, x in sorted(v.items()))
            items.append(f"{name} = [{pairs}]")
    return "{" + ", ".join(items) + "}"


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
    """Options of the partition and merge passes for the current scope: the
    kernel, or the pypto.loop the call is in (inner scopes inherit)."""
    loc = user_loc()
    check_pass_options(kw, loc)
    t = current("pypto.set_pass_options")
    t.regions[-1].pass_options.update(kw)


# ------------------------------------------------------ jit option dicts --

_KNOWN = {
    "host_options": {"only_codegen": bool, "compile_stage": int},
    "runtime_options": {"run_mode": int, "device_sched_mode": int,
                        "stitch_function_max_num": int, "valid_shape_optimize": int,
                        "ready_on_host_tensors": list, "device_sched_parallelism": int},
    "codegen_options": {"support_dynamic_aligned": bool},
    "pass_options": None,  # PASS_OPTIONS
    "verify_options": {"enable_pass_verify": bool, "pass_verify_save_tensor": bool,
                       "pass_verify_save_tensor_dir": str, "pass_verify_pass_filter": list,
                       "pass_verify_error_tol": list},
    "debug_options": {"compile_debug_mode": int, "runtime_debug_mode": int,
                      "dump_dir": str},
}
GROUPS = tuple(_KNOWN)


def normalize_options(groups, loc, cls=TypeError):
    """Checks option dictionaries ({group: {name: value}}) and returns
    copies; unknown names and wrong types are errors."""
    out = {}
    for group, opts in groups.items():
        if opts is None:
            continue
        if group not in _KNOWN:
            raise error_at(cls, loc, f"unknown option group '{group}'; known: "
                           + ", ".join(GROUPS))
        if not isinstance(opts, dict):
            raise error_at(cls, loc, f"{group} must be a dict, got {opts!r}")
        if group == "pass_options":
            check_pass_options(opts, loc, cls)
            out[group] = dict(opts)
            continue
        known = _KNOWN[group]
        for name, value in opts.items():
            typ = known.get(name)
            if typ is None:
                raise error_at(cls, loc, f"unknown {group} entry '{name}'; known: "
                               + ", ".join(sorted(known)))
            ok = isinstance(value, typ) and not (typ is int and isinstance(value, bool))
            if typ is list:
                ok = isinstance(value, (list, tuple))
            if not ok:
                raise error_at(cls, loc, f"{group}['{name}'] must be {typ.__name__}, "
                               f"got {value!r}")
        if group == "runtime_options" and "run_mode" in opts and \
                opts["run_mode"] not in (RunMode.NPU, RunMode.SIM):
            raise error_at(cls, loc, "runtime_options['run_mode'] must be "
                           f"pypto.RunMode.NPU or pypto.RunMode.SIM, got {opts['run_mode']!r}")
        if group == "debug_options":
            for k in ("compile_debug_mode", "runtime_debug_mode"):
                if k in opts and opts[k] not in (0, 1, 2):
                    raise error_at(cls, loc, f"debug_options['{k}'] must be 0, 1 or 2, "
                                   f"got {opts[k]!r}")
        if group == "verify_options" and "pass_verify_error_tol" in opts:
            tol = opts["pass_verify_error_tol"]
            if len(tol) != 2 or not all(isinstance(x, (int, float)) and x >= 0 for x in tol):
                raise error_at(cls, loc, "verify_options['pass_verify_error_tol'] must be "
                               f"[rtol, atol] of non-negative numbers, got {tol!r}")
        out[group] = dict(opts)
    return out


_scopes = threading.local()


def _scope_stack():
    s = getattr(_scopes, "stack", None)
    if s is None:
        s = _scopes.stack = []
    return s


def effective_options(jit_options):
    """Defaults, then the enclosing pypto.options scopes (outermost first),
    then the kernel's own options."""
    merged = {g: {} for g in GROUPS}
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
