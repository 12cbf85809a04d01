# lit configuration for the PTO test suite.
import os
import lit.formats

config.name = "PTO"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".pto", ".mlir", ".test"]
config.excludes = ["Inputs", "lib", "unittests", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "README.md"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pto_obj_root, "test")

# Tools under test come first on PATH, then LLVM's FileCheck/not/count.
config.environment["PATH"] = os.pathsep.join(
    [config.pto_tools_dir, config.pto_test_tools_dir, config.llvm_tools_dir,
     config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "HOME", "TMPDIR",
            "PTO_JIT_OPT_LEVEL", "PTO_ORACLE_SAMPLE"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# Every process compiles its kernels, as the tests that count compiles
# expect, and nothing is written to the user's cache; the tests of the
# JIT's disk cache turn it on with a directory of their own.
config.environment["PTO_JIT_CACHE"] = "0"

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%pto_src_root", config.pto_src_root))
config.substitutions.append(("%pto_obj_root", config.pto_obj_root))
# VAR=value items for `env` before a Python that loads libpto.so.
config.substitutions.append(("%pto_python_env", config.python_env))
# %roundtrip TOOL [FLAGS] FILE: printing is a fixed point in every form, and
# both forms describe the same IR (test/lib/roundtrip.py).
config.substitutions.append(
    ("%roundtrip", config.python_executable + " " +
     os.path.join(config.pto_src_root, "test", "lib", "roundtrip.py")))

if config.mlir_opt:
    config.available_features.add("mlir-opt")
    config.substitutions.append(("%mlir_opt", config.mlir_opt))
# LLVM's opt and llc, to check pto-translate's output: those of the LLVM
# PTO builds against, and those of the newest LLVM installed (tests that
# need them REQUIRE llvm-newest).
if config.llvm_opt and config.llvm_llc:
    config.available_features.add("llvm-tools")
    config.substitutions.append(("%llvm_opt", config.llvm_opt))
    config.substitutions.append(("%llvm_llc", config.llvm_llc))
if config.newest_opt and config.newest_llc:
    config.available_features.add("llvm-newest")
    config.substitutions.append(("%newest_opt", config.newest_opt))
    config.substitutions.append(("%newest_llc", config.newest_llc))
if config.python_has_numpy:
    config.available_features.add("numpy")
if config.dot:
    config.available_features.add("dot")
    config.substitutions.append(("%dot", config.dot))
if config.sanitized:
    config.available_features.add("sanitized")

# Whether pto-opt has the func and arith dialects (some tests and the
# benchmark smoke tests need them).
def _pto_opt_accepts(text):
    import subprocess
    tool = os.path.join(config.pto_tools_dir, "pto-opt")
    try:
        r = subprocess.run([tool, "-"], input=text.encode(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return False
    return r.returncode == 0

if _pto_opt_accepts("func.func @f() {\n  %c = arith.constant 1 : i64\n"
                    "  func.return\n}\n"):
    config.available_features.add("pto-arith")
