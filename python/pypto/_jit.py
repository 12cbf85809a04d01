"""@pypto.frontend.jit: kernels traced to Tensor-level IR on their first
call for a shape signature, compiled by the C library, cached, and run on
numpy arrays or torch CPU tensors with outputs written in place."""

import collections
import datetime
import functools
import itertools
import inspect
import struct

import numpy as np
import os
import threading
import warnings

from . import _lib
from ._options import generation as options_generation, global_options, golden_data
from ._config import (current_platform, effective_options, normalize_options,
                      _scope_stack)
from ._errors import (ArgumentError, CompileError, RuntimeError, TraceError,
                      VerifyError, error_at)
from ._ir import print_function, tensor_type
from ._loc import def_loc, param_locs, user_loc
from ._runtime import describe, fill_ndarray, output_problem, result_to_numpy, to_torch
from ._symbolic import Atom, DynamicDim, SymbolicScalar
from ._tensor import Tensor, expand_spec, spec_of
from ._trace import Tracer

__all__ = ["jit", "JitKernel"]

# Compiled specializations a kernel keeps (least recently used ones are
# dropped beyond it) and compiles one library context serves before the
# next compile starts a fresh one: a context keeps every type and name it
# ever interned, so a long-lived kernel over many shapes must shed them.
CACHE_LIMIT = 256
COMPILES_PER_SESSION = 256


class _Param:
    __slots__ = ("name", "spec", "index", "default")

    def __init__(self, name, spec, index, default):
        self.name = name
        self.spec = spec    # Tensor spec, or None for a compile-time scalar
        self.index = index
        self.default = default


def _spec_text(spec):
    if spec._spec_shape is None:
        shape = "any shape"
    else:
        shape = "[" + ", ".join("..." if d is Ellipsis else repr(d) for d in spec._spec_shape) + "]"
    dtype = repr(spec._spec_dtype) if spec._spec_dtype is not None else "any dtype"
    return f"pypto.Tensor({shape}, {dtype})"


def _resolve_annotations(fn):
    """Annotations evaluated (they may be strings under `from __future__
    import annotations`); closure variables are visible to them."""
    ann = dict(getattr(fn, "__annotations__", {}))
    if not any(isinstance(v, str) for v in ann.values()):
        return ann
    scope = dict(fn.__globals__)
    code = fn.__code__
    for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            scope[name] = cell.cell_contents
        except ValueError:
            pass
    for k, v in ann.items():
        if isinstance(v, str):
            try:
                ann[k] = eval(v, scope)  # noqa: S307 - the user's own annotation
            except Exception as exc:
                raise TypeError(f"cannot evaluate the annotation {v!r} of parameter '{k}' "
                                f"of {fn.__qualname__}: {exc}") from None
    return ann


class _Compiled:
    """One specialization: the traced module and the compiled kernel."""

    def __init__(self, session, kernel, module, text, nargs, results, inplace):
        self.session = session
        self.kernel = kernel
        self.module = module
        self.text = text
        self.results = results        # DataType of each result
        self.inplace = inplace        # argument index per result, or -1
        self.returned = [i for i, a in enumerate(inplace) if a < 0]
        self.written = sorted({a for a in inplace if a >= 0})
        self.written_set = frozenset(self.written)
        self.args = (_lib.NdArray * max(1, nargs))()
        self.nargs = nargs
        self.last = [None] * nargs    # (fast-path entry, data pointer) described in args
        self.stage_cache = None
        self.dump_dir = None
        self.verify_tol = None        # (rtol, atol) when enable_pass_verify
        self.verify_hooks = None      # (print callback, save folder) of enable_pass_verify
        self.backend = None           # PtoEmbedBackend handle; None: the interpreter runs it
        self.mode = "interp"          # what runs it: "interp", "host" or "sim"
        self.fallback = None          # why the compiled path could not take it
        self.swimlanes = False        # runtime_debug_mode asks for the swimlane files
        self.debug_level = 0          # runtime_debug_mode: 3 adds the dependency dump,
                                      # 4 also the GM check of every run

    def close(self):
        session = self.session
        lib = session.lib
        self.backend = None           # the kernel owns it
        if self.kernel:
            lib.pto_embed_kernel_destroy(self.kernel)
            self.kernel = None
        if self.module:
            lib.pto_embed_module_destroy(self.module)
            self.module = None
            session.live -= 1
            if session.retired and session.live == 0:
                session.close()


class JitKernel:
    """A kernel function. Calling it runs the kernel (tracing and compiling
    it first for a new shape signature); ``ir()`` shows its IR."""

    def __init__(self, fn, options):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self._def_loc = def_loc(fn)
        self._param_locs = None
        self._options = normalize_options(options, user_loc())
        sig = inspect.signature(fn)
        ann = _resolve_annotations(fn)
        self._sig = sig
        self._params = []
        seen_scalar = None
        for i, (name, p) in enumerate(sig.parameters.items()):
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{fn.__qualname__}: *args and **kwargs parameters are not "
                                "supported in a pypto kernel")
            spec = spec_of(ann.get(name))
            if spec is not None and seen_scalar is not None:
                raise TypeError(f"{fn.__qualname__}: tensor parameter '{name}' follows the "
                                f"non-tensor parameter '{seen_scalar}'; pypto kernels take "
                                "their tensors first")
            if spec is None:
                seen_scalar = name
            default = p.default if p.default is not p.empty else None
            self._params.append(_Param(name, spec, i, default))
        self._tensors = [p for p in self._params if p.spec is not None]
        self._scalars = [p for p in self._params if p.spec is None]
        self._nparams = len(self._params)
        self._tensor_idx = [p.index for p in self._tensors]
        self._scalar_idx = [p.index for p in self._scalars]
        self._fast = {}
        self._lock = threading.RLock()
        self._session = None
        self._cache = collections.OrderedDict()
        self.cache_limit = CACHE_LIMIT
        self._last = None
        self.num_compiles = 0
        self.num_traces = 0
        self.output_dir = None

    def __repr__(self):
        return f"<pypto kernel {self.__qualname__}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self.__call__, obj)

    # ------------------------------------------------------------- call --
    def __call__(self, *args, **kwargs):
        out = self._call(args, kwargs)
        ck = self._last
        if ck is not None and ck.verify_tol is not None:
            goldens = golden_data()
            if goldens is not None:
                self._check_goldens(ck.verify_tol, goldens, args, kwargs)
        return out

    def _check_goldens(self, tol, goldens, args, kwargs):
        """Compares the arguments after a run with set_verify_golden_data's
        goldens (by parameter position; None skips one)."""
        bound = self._sig.bind(*args, **kwargs)
        for i, p in enumerate(self._params):
            if i >= len(goldens) or goldens[i] is None or p.spec is None:
                continue
            got = bound.arguments[p.name]
            if isinstance(got, Tensor) and got._host is not None:
                got = got._host
            got = got.detach().cpu().numpy() if hasattr(got, "detach") else np.asarray(got)
            want = goldens[i]
            want = want.detach().cpu().numpy() if hasattr(want, "detach") else np.asarray(want)
            if got.shape != want.shape:
                raise VerifyError(f"golden check: argument '{p.name}' has shape {got.shape}, "
                                  f"its golden {want.shape}")
            g, w = got.astype(np.float64), want.astype(np.float64)
            bad = ~(np.isclose(g, w, rtol=tol[0], atol=tol[1]) | (np.isnan(g) & np.isnan(w)))
            if bad.any():
                idx = tuple(int(v) for v in np.argwhere(bad)[0])
                raise VerifyError(
                    f"golden check: argument '{p.name}' differs from its golden at {idx}: "
                    f"{g[idx]!r} vs {w[idx]!r} ({int(bad.sum())} of {bad.size} elements "
                    f"beyond rtol={tol[0]}, atol={tol[1]})")

    def _call(self, args, kwargs):
        # The common call (numpy arrays passed positionally, no option scope)
        # is recognised by the arrays' layouts alone: everything derived from
        # a layout (checks, cache key, element strides) was done before.
        # Lookups and runs hold the lock: clear_cache() or an eviction in
        # another thread must not close a kernel between its lookup and run.
        sig = None
        if not kwargs and len(args) == self._nparams and not _scope_stack():
            sig = self._layout_sig(args)
            if sig is not None:
                sig = (sig, current_platform(), options_generation())
                with self._lock:
                    hit = self._fast.get(sig)
                    if hit is not None:
                        return self._run_fast(hit, args)
        key, infos, scalars, opts = self._bind(args, kwargs)
        with self._lock:
            ck = self._lookup(key)
            if ck is None:
                ck = self._compile(key, infos, scalars, opts)
            self._last = ck
            self._check_outputs(ck, infos)
            if sig is not None and len(self._fast) < 256:
                self._fast[sig] = (ck, [i.strides for i in infos], [i.nbytes for i in infos],
                                   [i.dtype.code for i in infos])
            return self._run(ck, infos)

    def _lookup(self, key):
        ck = self._cache.get(key)
        if ck is not None:
            self._cache.move_to_end(key)
        return ck

    def _layout_sig(self, args):
        parts = []
        for i in self._tensor_idx:
            a = args[i]
            if type(a) is not np.ndarray:
                return None
            parts.append(a.shape)
            parts.append(a.strides)
            parts.append(a.dtype)
        for i in self._scalar_idx:
            v = args[i]
            if type(v) not in (int, float, bool, str, type(None)):
                return None
            parts.append(_freeze(v))
        return tuple(parts)

    def _run_fast(self, hit, args):
        ck, strides, nbytes, codes = hit
        with self._lock:
            self._last = ck
            nd = ck.args
            for n, i in enumerate(self._tensor_idx):
                a = args[i]
                if n in ck.written_set and not a.flags.writeable:
                    self._check_outputs(ck, self._bind(args, {})[1])  # raises
                p = a.ctypes.data
                last = ck.last[n]
                if last is None or last[0] is not hit:
                    ck.last[n] = (hit, p)
                    d = nd[n]
                    d.dtype = codes[n]
                    shape = a.shape
                    rank = len(shape)
                    d.rank = rank
                    for k in range(_lib.MAX_RANK):
                        d.shape[k] = shape[k] if k < rank else 0
                        d.strides[k] = strides[n][k] if k < rank else 0
                    d.nbytes = nbytes[n]
                    d.owns_data = False
                    d.data = p
                elif last[1] != p:
                    ck.last[n] = (hit, p)
                    nd[n].data = p
            return self._finish_run(ck, args)

    def compile(self, *args, **kwargs):
        """Traces and compiles for these arguments without running."""
        key, infos, scalars, opts = self._bind(args, kwargs)
        with self._lock:
            ck = self._lookup(key) or self._compile(key, infos, scalars, opts)
            self._last = ck
        return self

    def _arg_error(self, message, param=None):
        notes = []
        if self._param_locs is None:
            self._param_locs = param_locs(self.fn)
        if param is not None and param.spec is not None:
            loc = self._param_locs.get(param.name, self._def_loc)
            notes.append((loc, f"'{param.name}' is declared {_spec_text(param.spec)}"))
        elif self._def_loc:
            notes.append((self._def_loc, f"{self.__name__} is defined here"))
        return error_at(ArgumentError, user_loc(), f"{self.__name__}: {message}", notes)

    def _bind(self, args, kwargs):
        params = self._params
        if kwargs or len(args) != len(params):
            try:
                bound = self._sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise self._arg_error(str(exc)) from None
            bound.apply_defaults()
            values = [bound.arguments[p.name] for p in params]
        else:
            values = args
        key = []
        infos = []
        dyn_sizes = {}
        for p in self._tensors:
            v = values[p.index]
            spec = p.spec
            info = describe(v, spec._spec_dtype)
            if isinstance(info, str):
                raise self._arg_error(f"argument '{p.name}' is {info}", p)
            if info is None:
                raise self._arg_error(f"argument '{p.name}' must be a numpy array or a torch "
                                      f"CPU tensor, got {type(v).__name__}", p)
            if spec._spec_dtype is not None and info.dtype is not spec._spec_dtype:
                raise self._arg_error(
                    f"argument '{p.name}' has dtype {info.dtype!r} "
                    f"({getattr(v, 'dtype', '?')}); the parameter is declared "
                    f"{spec._spec_dtype!r}", p)
            rank = len(info.shape)
            dims = expand_spec(spec, rank)
            if dims is None:
                raise self._arg_error(
                    f"argument '{p.name}' has shape {tuple(info.shape)} (rank {rank}); the "
                    f"parameter is declared {_spec_text(spec)}", p)
            free = []
            for i, (d, n) in enumerate(zip(dims, info.shape)):
                if d is None:
                    free.append(n)
                elif isinstance(d, int):
                    if d != n:
                        raise self._arg_error(
                            f"argument '{p.name}' has shape {tuple(info.shape)}; the parameter "
                            f"is declared {_spec_text(spec)} (dim {i} is {n}, expected {d})", p)
                elif isinstance(d, DynamicDim):
                    prev = dyn_sizes.get(d)
                    if prev is None:
                        dyn_sizes[d] = (n, p.name)
                    elif prev[0] != n:
                        raise self._arg_error(
                            f"argument '{p.name}' has size {n} in dim {i}, which is the dynamic "
                            f"dim '{d.name}' of size {prev[0]} in argument '{prev[1]}'", p)
                if n == 0:
                    raise self._arg_error(f"argument '{p.name}' is empty (dim {i} is 0)", p)
            key.append((info.dtype, rank, tuple(free)))
            infos.append(info)
        scalars = {}
        for p in self._scalars:
            v = values[p.index]
            scalars[p.name] = v
            key.append((p.name, _freeze(v)))
        key.append(("platform", current_platform()))
        if _scope_stack() or global_options():
            opts = effective_options(self._options)
            key.append(_freeze(opts))
        else:
            opts = None
        return tuple(key), infos, scalars, opts

    # ---------------------------------------------------------- compile --
    def _get_session(self):
        s = self._session
        if s is not None and s.compiles >= COMPILES_PER_SESSION:
            # closed once the last kernel compiled in it is dropped
            s.retired = True
            if s.live == 0:
                s.close()
            s = None
        if s is None:
            s = self._session = _lib.Session()
            s.live = s.compiles = 0
            s.retired = False
        return s

    def _start_trace(self, infos):
        """A tracer over a new function whose arguments are the tensor
        parameters, and the handles of those arguments."""
        session = self._get_session()
        if not session.set_platform(current_platform()):
            raise CompileError(session.take_diagnostics())
        tracer = Tracer(session, self.fn.__name__)
        if self._def_loc:
            session.add_source(self._def_loc[0])
        handles = []
        for p, info in zip(self._tensors, infos):
            dims = expand_spec(p.spec, len(info.shape))
            ir_dims = [n if d is None or isinstance(d, int) else None
                       for d, n in zip(dims, info.shape)]
            v = tracer.body.add_arg(tensor_type(ir_dims, info.dtype.ir))
            sym = []
            for i, (d, n) in enumerate(zip(dims, info.shape)):
                if d is None or isinstance(d, int):
                    sym.append(n)
                    continue
                atom = SymbolicScalar.atom(Atom("dim", value=(v, i),
                                                name=f"{p.name}.shape[{i}]"))
                if isinstance(d, DynamicDim):
                    tracer.dyn_bindings.setdefault(d, atom)
                    sym.append(d)
                else:
                    sym.append(atom)
            h = Tensor._wrap(v, tracer, tuple(sym))
            h.name = p.name
            handles.append(h)
        return tracer, handles

    def _trace(self, infos, scalars, opts):
        tracer, handles = self._start_trace(infos)
        call_args = []
        it = iter(handles)
        for p in self._params:
            call_args.append(next(it) if p.spec is not None else scalars[p.name])
        with tracer:
            carried, rets, region = tracer.run_function(self.fn, call_args, {}, handles,
                                                        self._def_loc)
        return self._finish_trace(tracer, handles, carried, rets, region, opts)

    def _finish_trace(self, tracer, handles, carried, rets, region, opts):
        """The traced function's text, which results are in-place writes of
        which parameter, and the results' dtypes."""
        name = self.fn.__name__
        self.num_traces += 1
        index = {id(h): i for i, h in enumerate(handles)}
        inplace = [index[id(h)] for h, _ in carried] + [-1] * len(rets)
        result_types = [e.type for _, e in carried] + list(rets)
        res_attrs = [f"{{pypto.inplace = {a} : i64}}" if a >= 0 else "" for a in inplace]
        pass_opts = dict((opts or {}).get("pass_options", {}))
        pass_opts.update(region.pass_options)
        func_attrs = []
        if pass_opts:
            from ._options import pass_options_attr
            func_attrs.append(f"pypto.pass_options = {pass_options_attr(pass_opts)}")
        body_ops = tracer.body.ops
        tracer.body.ops = tracer.prologue + body_ops
        text = print_function(name, tracer.body, result_types, res_attrs, func_attrs,
                              self._def_loc)
        from ._dtypes import from_ir
        return text, inplace, [from_ir(t.elem) for t in result_types]

    def _compile(self, key, infos, scalars, opts):
        if opts is None:
            opts = effective_options(self._options)
        text, inplace, rtypes = self._trace(infos, scalars, opts)
        session = self._session
        name = self.fn.__name__
        self.num_compiles += 1
        session.compiles += 1
        module = session.parse(text, f"<{name}>")
        if not module:
            raise CompileError(session.take_diagnostics())
        dbg = opts.get("debug_options", {})
        ver = opts.get("verify_options", {})
        co = _lib.CompileOptions()
        co.entry = name.encode()
        dump_dir = None
        if dbg.get("compile_debug_mode"):
            dump_dir = dbg.get("dump_dir") or os.path.join(
                os.getcwd(), "pypto_debug", f"{name}_{self.num_compiles}")
            os.makedirs(dump_dir, exist_ok=True)
            with open(os.path.join(dump_dir, "traced.pto"), "w") as f:
                f.write(text)
            co.dump_dir = dump_dir.encode()
        hooks = None
        if ver.get("enable_pass_verify"):
            co.check_stages = True
            tol = ver.get("pass_verify_error_tol") or (1e-3, 1.5e-3)
            co.rtol, co.atol = float(tol[0]), float(tol[1])
            hooks = _verify_hooks(text, ver)
            co.debug_print, co.save_dir = hooks
        kernel = session.lib.pto_embed_compile(module, co)
        if not kernel:
            session.lib.pto_embed_module_destroy(module)
            raise CompileError(session.take_diagnostics())
        session.clear()
        session.live += 1
        ck = _Compiled(session, kernel, module, text, len(infos), rtypes, inplace)
        ck.dump_dir = dump_dir
        ck.verify_hooks = hooks  # the C kernel keeps pointers to both
        if ver.get("enable_pass_verify"):
            ck.verify_tol = (co.rtol, co.atol)
        self.debug_dir = dump_dir
        self._use_backend(ck, module, opts)
        self._cache[key] = ck
        self._evict()
        return ck

    def _use_backend(self, ck, module, opts):
        """Puts the compiled back end of the run mode behind the kernel
        (docs/python.md, "Run modes"): NPU runs the JIT-compiled PTO kernels
        on the host runtime, SIM those and the simulator. PTO_BACKEND=interp
        keeps the reference interpreter; a kernel the compiled path cannot
        take yet runs there too, with a warning (PTO_BACKEND=compiled makes
        that an error)."""
        choice = backend_choice()
        dbg = opts.get("debug_options", {})
        run_mode = opts.get("runtime_options", {}).get("run_mode", 0)
        ck.debug_level = int(dbg.get("runtime_debug_mode") or 0)
        ck.swimlanes = ck.debug_level > 0
        if choice == "interp":
            if ck.swimlanes:
                warnings.warn(f"pypto: {self.__name__}: runtime_debug_mode writes no swimlane "
                              "with PTO_BACKEND=interp: the reference interpreter runs no "
                              "task graph", stacklevel=4)
            return
        session = ck.session
        lib = session.lib
        eng = _lib.engine()
        if eng is None:
            why = f"LLVM cannot compile for this host: {_lib.engine_error()}"
        else:
            # runtime_debug_mode 2 is PyPTO's simulated core model: here the
            # simulated machine's timeline, as run mode SIM gives
            simulate = run_mode == 1 or dbg.get("runtime_debug_mode") == 2
            kind = _lib.BACKEND_SIM if simulate else _lib.BACKEND_HOST
            platform = current_platform()
            bo = _lib.BackendOptions(kind, self.fn.__name__.encode(), None,
                                     platform.encode() if platform else None)
            with _lib.engine_lock:
                handle = lib.pto_embed_kernel_use_backend(ck.kernel, eng, module, bo)
            if handle:
                ck.backend = handle
                lib.pto_embed_backend_set_gm_check(handle, ck.debug_level >= 4)
                ck.mode = "sim" if kind == _lib.BACKEND_SIM else "host"
                return
            why = session.take_diagnostics().strip()
        if choice == "compiled":
            raise CompileError(f"{self.__name__}: the compiled back end cannot run this kernel "
                               f"(PTO_BACKEND=compiled):\n{why}")
        ck.fallback = why
        first = why.splitlines()[0] if why else "unknown reason"
        _log_fallback(self.__name__, first)
        warnings.warn(f"pypto: {self.__name__} runs in the reference interpreter: the compiled "
                      f"back end cannot take it yet ({first})", stacklevel=4)

    def _write_swimlanes(self, ck):
        """The trace, SVG swimlane and health report of the run that just
        ended, in a new folder under ./output (PyPTO's layout); from
        runtime_debug_mode 3 on, the dependency dump too."""
        folder = new_output_dir()
        base = os.path.join(folder, self.fn.__name__)
        paths = (base + "_swimlane.json", base + "_swimlane.svg",
                 base + "_health_report.txt", base + "_health_report.json")
        lib = ck.session.lib
        if lib.pto_embed_backend_write_timeline(ck.backend, *(p.encode() for p in paths)):
            raise RuntimeError(ck.session.take_diagnostics())
        if ck.debug_level >= 3 and lib.pto_embed_backend_write_dependencies(
                ck.backend, (base + "_dependencies.json").encode()):
            raise RuntimeError(ck.session.take_diagnostics())
        self.output_dir = folder

    @property
    def backend(self):
        """What ran the last compiled version: "host" (the compiled kernels on
        the host runtime), "sim" (those and the simulator) or "interp"."""
        ck = self._last
        return ck.mode if ck is not None else None

    def _evict(self):
        """Drops the least recently used specializations beyond cache_limit
        (never the last one used, which ir() and stages() show)."""
        while len(self._cache) > max(1, self.cache_limit):
            key, ck = next(iter(self._cache.items()))
            if ck is self._last:
                self._cache.move_to_end(key)
                key, ck = next(iter(self._cache.items()))
            del self._cache[key]
            for sig in [s for s, hit in self._fast.items() if hit[0] is ck]:
                del self._fast[sig]
            ck.close()

    # -------------------------------------------------------------- run --
    def _check_outputs(self, ck, infos):
        for a in ck.written:
            why = output_problem(infos[a])
            if why is not None:
                p = self._tensors[a]
                raise self._arg_error(f"argument '{p.name}' is written by the kernel (an "
                                      f"in-place output) but {why}", p)

    def _run(self, ck, infos):
        for i, info in enumerate(infos):
            fill_ndarray(ck.args[i], info, info.dtype)
            ck.last[i] = None
        return self._finish_run(ck, infos, any(info.kind == "torch" for info in infos))

    def _finish_run(self, ck, args, torch_out=False):
        lib = ck.session.lib
        if lib.pto_embed_kernel_run(ck.kernel, ck.args, ck.nargs, None, 0):
            text = ck.session.take_diagnostics()
            cls = VerifyError if "first stage whose" in text else RuntimeError
            raise cls(text)
        if ck.swimlanes and ck.backend:
            self._write_swimlanes(ck)
        if not ck.returned:
            return None
        outs = [result_to_numpy(lib.pto_embed_kernel_result(ck.kernel, i), ck.results[i])
                for i in ck.returned]
        if torch_out:
            outs = [to_torch(o, ck.results[i]) for o, i in zip(outs, ck.returned)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    # ------------------------------------------------------- inspection --
    def _compiled(self, args, kwargs):
        if args or kwargs:
            self.compile(*args, **kwargs)
        if self._last is None:
            raise TraceError(f"{self.__qualname__} has not been compiled yet: call it, or pass "
                             "example arguments to ir()/stages()")
        return self._last

    def ir(self, *args, stage=None, generic=False, debuginfo=False, **kwargs):
        """The kernel's IR: as traced (default), or after a stage of the compile
        pipeline (``stage="canonicalize"``, ``"tile-expand"``, ``"final"``).
        With arguments, for their specialization; otherwise the last one."""
        ck = self._compiled(args, kwargs)
        s = ck.session
        with self._lock:
            if stage is None or stage in ("traced", "input"):
                return s.print_module(ck.module, generic, debuginfo)
            if stage in ("final", "compiled"):
                m = s.lib.pto_embed_kernel_module(ck.kernel)
                return s.print_module(m, generic, debuginfo)
            stages = self._stages(ck, debuginfo)
            for name, text in stages:
                if name == stage:
                    return text
            raise ValueError(f"no stage '{stage}' in the compile pipeline of "
                             f"{self.__qualname__}; stages: "
                             + ", ".join(n for n, _ in stages))

    def stages(self, *args, **kwargs):
        """Names of the stages of the compile pipeline ("input" first)."""
        ck = self._compiled(args, kwargs)
        with self._lock:
            return [n for n, _ in self._stages(ck, False)]

    def _stages(self, ck, debuginfo):
        if ck.stage_cache is None or ck.stage_cache[0] != debuginfo:
            s = ck.session
            lib = s.lib
            m = lib.pto_embed_module_clone(ck.module)
            po = _lib.PipelineOptions()
            po.record_stages = True
            po.debuginfo = debuginfo
            pipeline = lib.pto_embed_default_pipeline(s.handle)
            try:
                if lib.pto_embed_run_pipeline(m, pipeline, po):
                    raise CompileError(s.take_diagnostics())
                ck.stage_cache = (debuginfo, s.stages(m))
            finally:
                lib.pto_embed_module_destroy(m)
        return ck.stage_cache[1]

    @property
    def num_ops_executed(self):
        """Ops the interpreter executed over every run of the most recently
        compiled version (``pto-run --stats`` counts the same): the work a
        call does, independent of the machine's speed."""
        ck = self._last
        if ck is None:
            return 0
        with self._lock:
            return int(ck.session.lib.pto_embed_kernel_num_ops_executed(ck.kernel))

    def traced_text(self, *args, **kwargs):
        """The IR text the tracer produced (generic form, Python locations)."""
        return self._compiled(args, kwargs).text

    def clear_cache(self):
        """Drops every compiled specialization and the library context they
        were compiled in."""
        with self._lock:
            for ck in self._cache.values():
                ck.close()
            self._cache.clear()
            self._fast.clear()
            self._last = None
            if self._session is not None:
                self._session.close()
                self._session = None

    def __del__(self):
        try:
            self.clear_cache()
        except Exception:
            pass


BACKEND_ENV = "PTO_BACKEND"
FALLBACK_LOG_ENV = "PTO_FALLBACK_LOG"


def _log_fallback(kernel, reason):
    """PTO_FALLBACK_LOG=FILE: one line per kernel the compiled back end
    could not take, "<kernel>\t<first line of the reason>", appended (a
    test suite's fallbacks counted by cause with sort | uniq -c)."""
    path = os.environ.get(FALLBACK_LOG_ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"{kernel}\t{reason}\n")
_BACKENDS = ("interp", "compiled", "auto")


def backend_choice():
    """PTO_BACKEND: "interp" (the reference interpreter runs every kernel),
    "compiled" (the run mode's compiled back end, an error where it cannot
    take a kernel) or unset/"auto" (the compiled back end, the interpreter
    where it cannot)."""
    v = os.environ.get(BACKEND_ENV, "").strip().lower() or "auto"
    if v not in _BACKENDS:
        raise CompileError(f"{BACKEND_ENV}={os.environ[BACKEND_ENV]!r}: expected one of "
                           + ", ".join(_BACKENDS))
    return v


_output_seq = itertools.count()


@_lib.DEBUG_PRINT
def _print_debug(user, text):
    """pass_verify_print's text, on sys.stdout (where print() writes)."""
    print(text.decode("utf-8", "replace"), flush=True)


def _verify_hooks(text, ver):
    """The print callback and the save folder of a kernel compiled with
    enable_pass_verify: pass_verify_save_tensor_dir, else a new
    output/output_*/tensor/ made only when the kernel saves something."""
    save_dir = None
    if "pypto.pass_verify_save" in text:
        save_dir = ver.get("pass_verify_save_tensor_dir") or os.path.join(new_output_dir(),
                                                                          "tensor")
        os.makedirs(save_dir, exist_ok=True)
    return _print_debug, save_dir.encode() if save_dir else None


def new_output_dir():
    """A new folder output/output_<date>_<time>_<microseconds>_<pid>_<n> in
    the current directory, where a run's swimlane files go."""
    now = datetime.datetime.now()
    name = (f"output_{now:%Y%m%d_%H%M%S}_{now.microsecond:06d}_{os.getpid()}_"
            f"{next(_output_seq)}")
    folder = os.path.join(os.getcwd(), "output", name)
    os.makedirs(folder, exist_ok=True)
    return folder


def _freeze(v):
    """A hashable cache key of a compile-time value that tells apart what
    `==` does not (0.0 from -0.0, 1 from True and 1.0) and matches a NaN with
    itself: scalars are keyed by type and bits."""
    if isinstance(v, (bool, int, str)) or v is None:
        return (type(v), v)
    if isinstance(v, float) or isinstance(v, np.floating):
        return (type(v), struct.pack("<d", float(v)))
    if isinstance(v, np.ndarray):
        return ("ndarray", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, dict):
        return tuple(sorted((k, _freeze(x)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return (type(v),) + tuple(_freeze(x) for x in v)
    if isinstance(v, set):
        return frozenset(_freeze(x) for x in v)
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)


def jit(fn=None, *, host_options=None, runtime_options=None, codegen_options=None,
        pass_options=None, verify_options=None, debug_options=None):
    """Makes a kernel of a Python function whose tensor parameters are
    annotated ``pypto.Tensor(shape, dtype)``. Usable bare (``@jit``) or with
    option dictionaries (``@jit(runtime_options={"run_mode":
    pypto.RunMode.SIM})``)."""
    options = {"host_options": host_options, "runtime_options": runtime_options,
               "codegen_options": codegen_options, "pass_options": pass_options,
               "verify_options": verify_options, "debug_options": debug_options}
    if fn is not None:
        return JitKernel(fn, options)
    return lambda f: JitKernel(f, options)
