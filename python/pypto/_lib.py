"""Loading libpto and binding the embedding C API (include/pto/Embed.h).

The library is found, in order, through the PTO_LIBRARY environment
variable (a file, or a directory holding libpto.so), next to this package,
in the library directory of the prefix `cmake --install` put it in, and in
the build tree of the checkout the package lives in. Nothing is
loaded until the first kernel is compiled, so that ``import pypto`` works
without the library.
"""

import ctypes
import os
import threading

from ._errors import CompileError, LibraryNotFoundError

API_VERSION = 1
MAX_RANK = 8
LIB_ENV = "PTO_LIBRARY"
# LLVM's optimisation level for compiled kernels (0..3, default 2); 0
# compiles several times faster, which the sanitizer test runs use.
JIT_OPT_LEVEL_ENV = "PTO_JIT_OPT_LEVEL"

_LIB_NAMES = ("libpto.so", "libpto.dylib")

c_int, c_uint, c_char_p, c_void_p = ctypes.c_int, ctypes.c_uint, ctypes.c_char_p, ctypes.c_void_p
c_size_t, c_double, c_bool, c_int64 = ctypes.c_size_t, ctypes.c_double, ctypes.c_bool, ctypes.c_int64
c_uint64 = ctypes.c_uint64


class NdArray(ctypes.Structure):
    """Mirror of PtoNdArray (include/pto/NdArray.h)."""
    _fields_ = [
        ("dtype", c_int),
        ("rank", c_uint),
        ("shape", c_int64 * MAX_RANK),
        ("strides", c_int64 * MAX_RANK),
        ("data", c_void_p),
        ("nbytes", c_size_t),
        ("owns_data", c_bool),
    ]


class PipelineOptions(ctypes.Structure):
    """Mirror of PtoEmbedPipelineOptions."""
    _fields_ = [
        ("dump_dir", c_char_p),
        ("record_stages", c_bool),
        ("debuginfo", c_bool),
    ]


# PtoEmbedCompileOptions.debug_print: pass_verify_print's text.
DEBUG_PRINT = ctypes.CFUNCTYPE(None, ctypes.c_void_p, c_char_p)


class CompileOptions(ctypes.Structure):
    """Mirror of PtoEmbedCompileOptions."""
    _fields_ = [
        ("entry", c_char_p),
        ("pipeline", c_char_p),
        ("dump_dir", c_char_p),
        ("record_stages", c_bool),
        ("debuginfo", c_bool),
        ("check_stages", c_bool),
        ("rtol", c_double),
        ("atol", c_double),
        ("debug_print", DEBUG_PRINT),
        ("debug_user", ctypes.c_void_p),
        ("save_dir", c_char_p),
    ]


class BackendOptions(ctypes.Structure):
    """Mirror of PtoEmbedBackendOptions."""
    _fields_ = [
        ("kind", c_int),
        ("entry", c_char_p),
        ("pipeline", c_char_p),
        ("platform", c_char_p),
    ]


# name: (restype, argtypes)
_PROTOTYPES = {
    "pto_embed_api_version": (c_uint, []),
    "pto_embed_version_string": (c_char_p, []),
    "pto_embed_create": (c_void_p, []),
    "pto_embed_destroy": (None, [c_void_p]),
    "pto_embed_diagnostics": (c_char_p, [c_void_p]),
    "pto_embed_num_errors": (c_uint, [c_void_p]),
    "pto_embed_clear_diagnostics": (None, [c_void_p]),
    "pto_embed_add_source": (None, [c_void_p, c_char_p, c_char_p, c_size_t]),
    "pto_embed_parse": (c_void_p, [c_void_p, c_char_p, c_size_t, c_char_p]),
    "pto_embed_module_destroy": (None, [c_void_p]),
    "pto_embed_module_clone": (c_void_p, [c_void_p]),
    "pto_embed_module_print": (c_void_p, [c_void_p, c_uint]),
    "pto_embed_run_pipeline": (c_int, [c_void_p, c_char_p, ctypes.POINTER(PipelineOptions)]),
    "pto_embed_module_num_stages": (c_uint, [c_void_p]),
    "pto_embed_module_stage_name": (c_char_p, [c_void_p, c_uint]),
    "pto_embed_module_stage_ir": (c_char_p, [c_void_p, c_uint]),
    "pto_embed_pypto_infer": (c_int, [
        c_void_p, c_char_p, ctypes.POINTER(c_char_p), c_uint, c_char_p,
        c_char_p, c_uint, c_uint, ctypes.POINTER(c_char_p), c_uint,
        ctypes.POINTER(c_uint), ctypes.POINTER(c_char_p)]),
    "pto_embed_check_tiles": (c_int, [
        c_void_p, ctypes.POINTER(c_int64), c_uint, ctypes.POINTER(c_int64),
        c_char_p, c_uint, c_uint]),
    "pto_embed_set_platform": (c_int, [c_void_p, c_char_p]),
    "pto_embed_platform_name": (c_char_p, [c_void_p]),
    "pto_embed_default_pipeline": (c_char_p, [c_void_p]),
    "pto_embed_compile": (c_void_p, [c_void_p, ctypes.POINTER(CompileOptions)]),
    "pto_embed_kernel_destroy": (None, [c_void_p]),
    "pto_embed_kernel_module": (c_void_p, [c_void_p]),
    "pto_embed_kernel_num_args": (c_uint, [c_void_p]),
    "pto_embed_kernel_num_results": (c_uint, [c_void_p]),
    "pto_embed_kernel_result_inplace": (c_int, [c_void_p, c_uint]),
    "pto_embed_kernel_run": (c_int, [c_void_p, ctypes.POINTER(NdArray), c_uint,
                                     ctypes.POINTER(NdArray), c_uint]),
    "pto_embed_kernel_result": (ctypes.POINTER(NdArray), [c_void_p, c_uint]),
    "pto_embed_kernel_num_runs": (c_uint64, [c_void_p]),
    "pto_embed_kernel_num_ops_executed": (c_uint64, [c_void_p]),
    "pto_free": (None, [c_void_p]),
    # the compiled back ends (include/pto/EmbedBackend.h)
    "pto_embed_engine_create_with_opt_level": (c_void_p, [c_int, c_char_p, c_size_t]),
    "pto_embed_engine_num_compiled": (c_uint64, [c_void_p]),
    "pto_embed_engine_num_cache_hits": (c_uint64, [c_void_p]),
    "pto_embed_engine_compile_seconds": (c_double, [c_void_p]),
    "pto_embed_kernel_use_backend": (c_void_p, [c_void_p, c_void_p, c_void_p,
                                                ctypes.POINTER(BackendOptions)]),
    "pto_embed_backend_num_runs": (c_uint64, [c_void_p]),
    "pto_embed_backend_num_kernels": (c_uint, [c_void_p]),
    "pto_embed_backend_num_tasks": (c_uint64, [c_void_p]),
    "pto_embed_backend_write_timeline": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p,
                                                 c_char_p]),
    "pto_embed_backend_set_gm_check": (None, [c_void_p, ctypes.c_bool]),
    "pto_embed_backend_write_dependencies": (c_int, [c_void_p, c_char_p]),
}

# PtoEmbedBackendKind
BACKEND_HOST = 1
BACKEND_SIM = 3

_lock = threading.Lock()
_lib = None
_lib_path = None


def _package_dir():
    return os.path.dirname(os.path.abspath(__file__))


def candidate_paths():
    """Where the library is looked for, in order (for messages and tests)."""
    paths = []
    env = os.environ.get(LIB_ENV)
    if env:
        if os.path.isdir(env):
            paths.extend(os.path.join(env, n) for n in _LIB_NAMES)
        else:
            paths.append(env)
        return paths
    pkg = _package_dir()
    for d in (pkg, os.path.join(pkg, "lib")):
        paths.extend(os.path.join(d, n) for n in _LIB_NAMES)
    # installed by cmake --install: the prefix's library directory
    try:
        from . import _installed
    except ImportError:
        _installed = None
    if _installed is not None:
        d = os.path.normpath(os.path.join(pkg, _installed.LIBDIR))
        paths.extend(os.path.join(d, n) for n in _LIB_NAMES)
    # python/pypto in a checkout: the build trees next to python/
    root = os.path.dirname(os.path.dirname(pkg))
    for build in ("build", "build-release", "build-asan", "build-clang"):
        paths.extend(os.path.join(root, build, "lib", n) for n in _LIB_NAMES)
    return paths


def load():
    """The bound library; raises LibraryNotFoundError when it is absent."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        tried = candidate_paths()
        found = next((p for p in tried if os.path.isfile(p)), None)
        if found is None:
            how = (f"{LIB_ENV}={os.environ[LIB_ENV]!r} names no library"
                   if os.environ.get(LIB_ENV) else
                   f"set {LIB_ENV} to the library (or its directory), or build "
                   "the checkout (cmake -S . -B build -G Ninja && ninja -C build)")
            raise LibraryNotFoundError(
                "pypto: cannot find the PTO C library (libpto.so); looked for:\n  "
                + "\n  ".join(tried) + "\n" + how)
        try:
            lib = ctypes.CDLL(found)
        except OSError as exc:
            raise LibraryNotFoundError(f"pypto: cannot load {found}: {exc}") from None
        missing = [n for n in _PROTOTYPES if not hasattr(lib, n)]
        if missing:
            raise LibraryNotFoundError(
                f"pypto: {found} lacks the embedding API ({', '.join(missing)}); "
                "it is older than this package: rebuild it")
        for name, (res, args) in _PROTOTYPES.items():
            fn = getattr(lib, name)
            fn.restype = res
            fn.argtypes = args
        version = lib.pto_embed_api_version()
        if version != API_VERSION:
            raise LibraryNotFoundError(
                f"pypto: {found} implements embedding API version {version}, "
                f"this package needs version {API_VERSION}: rebuild the library "
                "or use the package of the same checkout")
        _lib_path = found
        _lib = lib
        return lib


_engine = None
_engine_error = None
# Compiles through the shared engine (its JIT is not for concurrent use).
engine_lock = threading.Lock()


def engine():
    """The process's JIT engine (one PtoEmbedEngine, whose module cache every
    kernel shares: a kernel compiled again is not recompiled), or None when
    LLVM cannot compile for this host (engine_error() says why)."""
    global _engine, _engine_error
    if _engine is None and _engine_error is None:
        lib = load()
        with _lock:
            if _engine is None and _engine_error is None:
                buf = ctypes.create_string_buffer(512)
                level = os.environ.get(JIT_OPT_LEVEL_ENV, "").strip() or "2"
                if level not in ("0", "1", "2", "3"):
                    raise CompileError(f"{JIT_OPT_LEVEL_ENV}={level!r}: expected 0, 1, 2 or 3")
                h = lib.pto_embed_engine_create_with_opt_level(int(level), buf, len(buf))
                if h:
                    _engine = h
                else:
                    _engine_error = buf.value.decode("utf-8", "replace")
    return _engine


def engine_error():
    return _engine_error


def engine_stats():
    """(modules compiled, compiles answered from the cache, seconds spent
    compiling) of the shared engine; zeros before its first compile."""
    if _engine is None:
        return (0, 0, 0.0)
    lib = load()
    with engine_lock:
        return (int(lib.pto_embed_engine_num_compiled(_engine)),
                int(lib.pto_embed_engine_num_cache_hits(_engine)),
                float(lib.pto_embed_engine_compile_seconds(_engine)))


def library_path():
    load()
    return _lib_path


def take_string(ptr):
    """A char * the library handed over (pto_free'd after copying)."""
    if not ptr:
        return ""
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        _lib.pto_free(ptr)


def _enc(s):
    return s.encode("utf-8") if s is not None else None


class Session:
    """One PtoEmbed: a context of its own. Used by one thread at a time
    (the owner holds ``lock`` around every call)."""

    def __init__(self):
        self.lib = load()
        self.handle = self.lib.pto_embed_create()
        self.lock = threading.RLock()
        self._sources = set()
        self._infer_res = (c_char_p * 4)()
        self._infer_n = c_uint()
        self._infer_attrs = c_char_p()
        self._cast_spellings = None

    def close(self):
        if self.handle:
            self.lib.pto_embed_destroy(self.handle)
            self.handle = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    # ---- diagnostics ----
    def diagnostics(self):
        return self.lib.pto_embed_diagnostics(self.handle).decode("utf-8", "replace")

    def clear(self):
        self.lib.pto_embed_clear_diagnostics(self.handle)

    def take_diagnostics(self):
        text = self.diagnostics()
        self.clear()
        return text

    def add_source(self, name):
        """Registers a Python source file so that diagnostics quote it."""
        if name in self._sources:
            return
        self._sources.add(name)
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError:
            return
        self.lib.pto_embed_add_source(self.handle, _enc(name), data, len(data))

    # ---- tracing ----
    def infer(self, op, operand_types, attrs, loc):
        """(result types, stored attribute text) or None after diagnostics."""
        arr = (c_char_p * max(1, len(operand_types)))(*[t.encode() for t in operand_types])
        file, line, col = loc if loc else (None, 0, 0)
        if file:
            self.add_source(file)
        rc = self.lib.pto_embed_pypto_infer(
            self.handle, op.encode(), arr, len(operand_types), _enc(attrs),
            _enc(file), line, col, self._infer_res, 4,
            ctypes.byref(self._infer_n), ctypes.byref(self._infer_attrs))
        if rc:
            return None
        n = self._infer_n.value
        return ([self._infer_res[i].decode() for i in range(n)],
                self._infer_attrs.value.decode())

    def cast_spellings(self):
        """((saturate, wrap) spellings of cast's satmode, whether mode "odd"
        exists): asked of the library's dialect, not assumed."""
        if self._cast_spellings is None:
            def accepted(attrs):
                ok = self.infer("cast", ["tensor<1xf32>"], attrs, None) is not None
                self.clear()
                return ok
            sat = ("on", "off") if accepted('{dtype = i32, satmode = "on"}') else \
                ("saturate", "wrap")
            self._cast_spellings = (sat, accepted('{dtype = i32, mode = "odd"}'))
        return self._cast_spellings

    def check_tiles(self, vec, cube, loc):
        vec_arr = (c_int64 * max(1, len(vec)))(*vec) if vec is not None else None
        cube_arr = (c_int64 * 6)(*cube) if cube is not None else None
        file, line, col = loc if loc else (None, 0, 0)
        if file:
            self.add_source(file)
        return self.lib.pto_embed_check_tiles(
            self.handle, vec_arr, len(vec) if vec is not None else 0, cube_arr,
            _enc(file), line, col) == 0

    def set_platform(self, spec):
        """Selects the target description (a built-in name or an XML file);
        False after a diagnostic."""
        return self.lib.pto_embed_set_platform(self.handle, _enc(spec)) == 0

    def platform_name(self):
        return self.lib.pto_embed_platform_name(self.handle).decode("utf-8")

    # ---- modules ----
    def parse(self, text, filename):
        data = text.encode("utf-8")
        return self.lib.pto_embed_parse(self.handle, data, len(data), _enc(filename))

    def print_module(self, module, generic=False, debuginfo=False):
        flags = (1 if generic else 0) | (2 if debuginfo else 0)
        return take_string(self.lib.pto_embed_module_print(module, flags))

    def stages(self, module):
        lib = self.lib
        n = lib.pto_embed_module_num_stages(module)
        return [(lib.pto_embed_module_stage_name(module, i).decode(),
                 lib.pto_embed_module_stage_ir(module, i).decode()) for i in range(n)]
