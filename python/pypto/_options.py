"""PyPTO's option groups (host, codegen, pass, runtime, verify, debug):
each documented option with its type, default and what it does here, the
process-wide values ``pypto.set_*_options`` set, and the pass-config
switches of ``pypto.set_pass_config``.

One table, OPTIONS, drives the checks, the ``get_`` twins and the table of
docs/python.md (test_options.py holds the two together)."""

import difflib
import enum
import re
import threading

from ._errors import error_at
from ._loc import user_loc


class CompStage(enum.IntEnum):
    """Where host_options compile_stage stops a compile (PyPTO's stages)."""
    ALL_COMPLETE = 0
    TENSOR_GRAPH = 1
    TILE_GRAPH = 2
    EXECUTE_GRAPH = 3
    CODEGEN_INSTRUCTION = 4
    CODEGEN_BINARY = 5


class PassConfigKey(enum.Enum):
    """The per-pass switches of pypto.set_pass_config."""
    KEY_PRINT_GRAPH = "printGraph"
    KEY_DUMP_GRAPH = "dumpGraph"
    KEY_DUMP_PASS_TIME_COST = "dumpPassTimeCost"
    KEY_PRE_CHECK = "preCheck"
    KEY_POST_CHECK = "postCheck"
    KEY_DISABLE_PASS = "disablePass"
    KEY_HEALTH_CHECK = "healthCheck"


_I32 = 2147483647

# Option kinds: ("bool",), ("int", lo, hi), ("choice", values), ("str",),
# ("strlist",), ("list",), ("tol",), ("setting",), ("scope",), ("ooo",),
# ("stage",), ("runmode",). Each row: kind, default, and whether it steers this
# compiler ("effect") or is only recorded ("recorded").
OPTIONS = {
    "host_options": {
        "compile_stage": (("stage",), CompStage.ALL_COMPLETE, "recorded"),
        "compile_monitor_enable": (("int", 0, 2), 0, "recorded"),
        "compile_timeout": (("int", 0, _I32), 600, "recorded"),
        "compile_timeout_stage": (("int", 0, _I32), 0, "recorded"),
        "compile_monitor_print_interval": (("int", 0, _I32), 60, "recorded"),
        "only_codegen": (("bool",), False, "recorded"),
    },
    "codegen_options": {
        "support_dynamic_aligned": (("bool",), False, "recorded"),
        "enable_pmu_trace": (("bool",), False, "recorded"),
    },
    "pass_options": {
        "vec_nbuffer_setting": (("setting",), {}, "ir"),
        "cube_l1_reuse_setting": (("setting",), {}, "ir"),
        "cube_nbuffer_setting": (("setting",), {"DEFAULT": 1}, "ir"),
        "sg_set_scope": (("scope",), -1, "ir"),
        "auto_mix_partition": (("int", 0, 1), 0, "ir"),
        "sg_set_ooo_scope": (("ooo",), -1, "ir"),
        "ooo_sched_mode": (("choice", ("", "GAPMIN", "HLF")), "", "ir"),
        "sg_set_tunevf_mode": (("int", 0, 2), 0, "ir"),
        # the partition bounds of earlier PyPTO releases
        "pg_skip_partition": (("bool",), False, "ir"),
        "pg_upper_bound": (("int", 0, _I32), None, "ir"),
        "pg_lower_bound": (("int", 0, _I32), None, "ir"),
        "pg_parallel_lower_bound": (("int", 0, _I32), None, "ir"),
        "mg_vec_parallel_lb": (("int", 1, 48), None, "ir"),
        "vec_nbuffer_mode": (("int", 0, 2), None, "ir"),
        "cube_l1_reuse_mode": (("int", 0, _I32), None, "ir"),
        "cube_nbuffer_mode": (("int", 0, 2), None, "ir"),
        "mg_copyin_upper_bound": (("int", 0, _I32), None, "ir"),
    },
    "runtime_options": {
        "run_mode": (("runmode",), 0, "effect"),
        "device_sched_mode": (("int", 0, _I32), 0, "recorded"),
        "stitch_function_max_num": (("int", 0, _I32), None, "recorded"),
        "valid_shape_optimize": (("int", 0, 1), 0, "recorded"),
        "ready_on_host_tensors": (("list",), [], "recorded"),
        "device_sched_parallelism": (("int", 0, _I32), None, "recorded"),
    },
    "verify_options": {
        "enable_pass_verify": (("bool",), False, "effect"),
        "pass_verify_save_tensor": (("bool",), False, "recorded"),
        "pass_verify_save_tensor_dir": (("str",), "", "effect"),
        "pass_verify_pass_filter": (("strlist",), [], "recorded"),
        "pass_verify_error_tol": (("tol",), [1e-3, 1.5e-3], "effect"),
    },
    "operation_options": {
        "combine_axis": (("bool",), False, "recorded"),
    },
    "debug_options": {
        "compile_debug_mode": (("int", 0, 2), 0, "effect"),
        "runtime_debug_mode": (("int", 0, 4), 0, "effect"),
        "dump_pass_graph": (("strlist",), [], "recorded"),
        "dump_dir": (("str",), "", "effect"),
    },
}
GROUPS = tuple(OPTIONS)

_FUNC_KEY = re.compile(r"func\d+_\d+$")


def _near(name, known):
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check_value(group, name, kind, value, loc, cls):
    what = f"{group}['{name}']" if group != "pass_options" else f"pass option '{name}'"

    def bad(expected):
        raise error_at(cls, loc, f"{what} must be {expected}, got {value!r}")

    k = kind[0]
    if k == "bool":
        if not isinstance(value, bool):
            bad("a bool")
    elif k == "int":
        if not _is_int(value):
            bad("an int")
        if not kind[1] <= value <= kind[2]:
            raise error_at(cls, loc, f"{what} must be in [{kind[1]}, {kind[2]}], got {value}")
    elif k == "choice":
        if isinstance(value, bool) or type(value) not in {type(c) for c in kind[1]} or \
                value not in kind[1]:
            bad("one of " + ", ".join(repr(c) for c in kind[1]))
    elif k == "runmode":
        if isinstance(value, bool) or value not in (0, 1):
            bad("pypto.RunMode.NPU or pypto.RunMode.SIM")
    elif k == "ooo":
        if not _is_int(value) or not (value == -1 or 1 <= value <= 100000):
            bad("-1 or an int in [1, 100000]")
    elif k == "str":
        if not isinstance(value, str):
            bad("a string")
    elif k == "strlist":
        if not isinstance(value, (list, tuple)) or not all(isinstance(s, str) for s in value):
            bad("a list of strings")
    elif k == "list":
        if not isinstance(value, (list, tuple)):
            bad("a list")
    elif k == "tol":
        if not isinstance(value, (list, tuple)) or len(value) != 2 or not all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and x >= 0
                for x in value):
            bad("[rtol, atol] of non-negative numbers")
    elif k == "stage":
        if not isinstance(value, CompStage) and not (_is_int(value) and 0 <= value <= 5):
            bad("a pypto.CompStage")
    elif k == "setting":
        if not isinstance(value, dict):
            bad('a dict of merge counts ({"DEFAULT": n, "func<magic>_<order>": n, '
                '"<label>": n})')
        for key, n in value.items():
            if not (isinstance(key, str) and key) and not _is_int(key):
                raise error_at(cls, loc, f"{what}: the key {key!r} must be \"DEFAULT\", "
                               "\"func<magic>_<order>\" or a semantic label")
            if isinstance(key, str) and key.lower().startswith("func") and \
                    not _FUNC_KEY.match(key) and key != "DEFAULT":
                raise error_at(cls, loc, f"{what}: the key {key!r} is not of the form "
                               "func<magic>_<order> (lower-case 'func', two integers)")
            if not _is_int(n) or n < 0:
                raise error_at(cls, loc, f"{what}[{key!r}] must be a non-negative int, "
                               f"got {n!r}")
    elif k == "scope":
        if _is_int(value):
            v = (value, False, False)
        elif isinstance(value, tuple) and len(value) == 3 and _is_int(value[0]) and \
                isinstance(value[1], bool) and isinstance(value[2], bool):
            v = value
        else:
            bad("a scope id or (scope_id, allow_parallel_merge, allow_cross_scope_merge)")
        if not -1 <= v[0] <= _I32:
            raise error_at(cls, loc, f"{what}: the scope id must be in [-1, {_I32}], "
                           f"got {v[0]}")
        if v[0] == -1 and (v[1] or v[2]):
            raise error_at(cls, loc, f"{what}: scope -1 (no scope) cannot allow merges")


def check_group(group, opts, loc, cls=TypeError):
    """Checks one group's {name: value}; unknown names and wrong types are
    `cls` errors at loc, with the closest known name."""
    known = OPTIONS[group]
    if not isinstance(opts, dict):
        raise error_at(cls, loc, f"{group} must be a dict, got {opts!r}")
    for name, value in opts.items():
        spec = known.get(name)
        if spec is None:
            noun = "pass option" if group == "pass_options" else f"{group} entry"
            raise error_at(cls, loc, f"unknown {noun} '{name}'{_near(name, known)} "
                           "(known: " + ", ".join(sorted(known)) + ")")
        _check_value(group, name, spec[0], value, loc, cls)


def normalize_options(groups, loc, cls=TypeError):
    """Checks option dictionaries ({group: {name: value}}) and returns
    copies."""
    out = {}
    for group, opts in groups.items():
        if opts is None:
            continue
        if group not in OPTIONS:
            raise error_at(cls, loc, f"unknown option group '{group}'{_near(group, OPTIONS)} "
                           "(known: " + ", ".join(GROUPS) + ")")
        check_group(group, opts, loc, cls)
        out[group] = dict(opts)
    return out


def option_text(v):
    """An option value as IR attribute text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, enum.Enum):
        v = v.value
    if isinstance(v, int):
        return f"{v} : i64"
    if isinstance(v, float):
        return f"{v!r} : f64"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: (isinstance(kv[0], str), str(kv[0])))
        if all(_is_int(k) for k, _ in items):
            return "[" + ", ".join(f"[{k}, {x}]" for k, x in items) + "]"
        return "{" + ", ".join(f"{option_text(str(k))} = {option_text(x)}"
                               for k, x in items) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(option_text(x) for x in v) + "]"
    return option_text(str(v))


def pass_options_attr(opts):
    """The pass options as an IR dictionary attribute."""
    return "{" + ", ".join(f"{name} = {option_text(opts[name])}"
                           for name in sorted(opts)) + "}"


# ---------------------------------------------------- process-wide values --

_lock = threading.Lock()
_set = {g: {} for g in GROUPS}
_pass_configs = {}        # (strategy, identifier, key) -> bool
_pass_default_configs = {}  # key -> bool
_generation = [0]         # bumped by every change: the kernels' fast call path keys on it


def generation():
    return _generation[0]


def global_options():
    """What the set_*_options calls made outside kernels hold, per group."""
    with _lock:
        return {g: dict(v) for g, v in _set.items() if v}


def set_group(group, kw):
    check_group(group, kw, user_loc())
    with _lock:
        _set[group].update(kw)
        _generation[0] += 1


def get_group(group, scoped=None):
    """Every option of the group: its default, overridden by what was set
    (and by `scoped`, the current kernel scope's values)."""
    with _lock:
        out = {n: _copy(spec[1]) for n, spec in OPTIONS[group].items()}
        out.update({n: _copy(v) for n, v in _set[group].items()})
    if scoped:
        out.update({n: _copy(v) for n, v in scoped.items()})
    return out


def _copy(v):
    return dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v


def set_host_options(**kw):
    """Host options of every kernel compiled from now on (process-wide)."""
    set_group("host_options", kw)


def get_host_options():
    return get_group("host_options")


def set_codegen_options(**kw):
    """Code generation options of every kernel compiled from now on."""
    set_group("codegen_options", kw)


def get_codegen_options():
    return get_group("codegen_options")


def set_verify_options(**kw):
    """Per-stage verification options of every kernel compiled from now on."""
    set_group("verify_options", kw)


def get_verify_options():
    return get_group("verify_options")


def set_debug_options(**kw):
    """Debug options of every kernel compiled from now on."""
    set_group("debug_options", kw)


def get_debug_options():
    return get_group("debug_options")


def set_runtime_options(**kw):
    set_group("runtime_options", kw)


def get_runtime_options():
    return get_group("runtime_options")


# ------------------------------------------------------ pass configs --

def _config_key(key, loc):
    if not isinstance(key, PassConfigKey):
        raise error_at(TypeError, loc, f"the key must be a pypto.PassConfigKey, got {key!r}")
    return key


def _name(v, what, loc):
    if not isinstance(v, str) or not v:
        raise error_at(TypeError, loc, f"{what} must be a non-empty string, got {v!r}")
    return v


def _flag(v, what, loc):
    if not isinstance(v, bool):
        raise error_at(TypeError, loc, f"{what} must be a bool, got {v!r}")
    return v


def set_pass_config(strategy, identifier, key, value):
    """Sets a switch (PassConfigKey) of one pass of a strategy."""
    loc = user_loc()
    k = (_name(strategy, "strategy", loc), _name(identifier, "identifier", loc),
         _config_key(key, loc))
    v = _flag(value, "value", loc)
    with _lock:
        _pass_configs[k] = v


def get_pass_config(strategy, identifier, key, default_value=False):
    """The switch set by set_pass_config, else set_pass_default_config's,
    else default_value."""
    loc = user_loc()
    k = (_name(strategy, "strategy", loc), _name(identifier, "identifier", loc),
         _config_key(key, loc))
    with _lock:
        if k in _pass_configs:
            return _pass_configs[k]
        return _pass_default_configs.get(k[2], default_value)


class PassConfigs:
    """The switches of one pass (read-only attributes)."""
    __slots__ = tuple(k.value for k in PassConfigKey)

    def __init__(self, values):
        for k in PassConfigKey:
            object.__setattr__(self, k.value, values[k])

    def __setattr__(self, name, value):
        raise AttributeError("PassConfigs is read-only; use pypto.set_pass_config")

    def __repr__(self):
        return "PassConfigs(" + ", ".join(f"{k.value}={getattr(self, k.value)}"
                                          for k in PassConfigKey) + ")"


def get_pass_configs(strategy, identifier):
    loc = user_loc()
    _name(strategy, "strategy", loc)
    _name(identifier, "identifier", loc)
    with _lock:
        vals = {k: _pass_configs.get((strategy, identifier, k),
                                     _pass_default_configs.get(k, False))
                for k in PassConfigKey}
    return PassConfigs(vals)


def set_pass_default_config(key, value):
    """Sets a switch for every pass without its own setting."""
    loc = user_loc()
    k = _config_key(key, loc)
    v = _flag(value, "value", loc)
    with _lock:
        _pass_default_configs[k] = v


def get_pass_default_config(key, default_value=False):
    k = _config_key(key, user_loc())
    with _lock:
        return _pass_default_configs.get(k, default_value)


def pass_configs_snapshot():
    with _lock:
        return (tuple(sorted((s, i, k.value, v) for (s, i, k), v in _pass_configs.items())),
                tuple(sorted((k.value, v) for k, v in _pass_default_configs.items())))


_goldens = [None]


def set_verify_golden_data(in_out_tensors=None, goldens=None):
    """Goldens for the outputs of the kernels run from now on with
    enable_pass_verify: one entry per kernel parameter, in order (None
    skips one). A kernel's own arguments are its inputs and outputs here,
    so in_out_tensors (PyPTO's non-jit form) is only checked."""
    loc = user_loc()
    for what, v in (("in_out_tensors", in_out_tensors), ("goldens", goldens)):
        if v is not None and not isinstance(v, (list, tuple)):
            raise error_at(TypeError, loc, f"set_verify_golden_data: {what} must be a list, "
                           f"got {type(v).__name__}")
    if goldens is not None:
        import numpy as np
        for i, g in enumerate(goldens):
            if g is not None and not hasattr(g, "shape"):
                raise error_at(TypeError, loc, f"set_verify_golden_data: goldens[{i}] must "
                               f"be a numpy array, a torch tensor or None, got {g!r}")
        goldens = [None if g is None else g if hasattr(g, "detach") else np.array(g)
                   for g in goldens]
    with _lock:
        _goldens[0] = list(goldens) if goldens is not None else None


def golden_data():
    with _lock:
        return _goldens[0]


def reset_options():
    """Every option group and pass config back to its default (the
    platform stays: pypto.set_platform chooses it)."""
    with _lock:
        for g in _set.values():
            g.clear()
        _pass_configs.clear()
        _pass_default_configs.clear()
        _goldens[0] = None
        _generation[0] += 1


__all__ = ["CompStage", "PassConfigKey", "PassConfigs", "OPTIONS", "GROUPS",
           "normalize_options", "pass_options_attr", "set_host_options",
           "get_host_options", "set_codegen_options", "get_codegen_options",
           "set_verify_options", "get_verify_options", "set_debug_options",
           "get_debug_options", "set_runtime_options", "get_runtime_options",
           "set_pass_config", "get_pass_config", "get_pass_configs",
           "set_pass_default_config", "get_pass_default_config", "reset_options",
           "set_verify_golden_data"]
