"""Helpers shared by the benchmarks' run.py scripts: finding the tools,
running a command with its wall time and peak RSS, formatting."""

import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_pto_tool(name, env_var):
    env = os.environ.get(env_var)
    if env:
        return env
    # Prefer an optimised build; a Debug build's numbers mean little.
    for d in ("build-release", "build-rel", "build"):
        p = os.path.join(ROOT, d, "bin", name)
        if os.access(p, os.X_OK):
            return p
    return shutil.which(name)


def find_mlir_opt():
    for name in ("mlir-opt-14", "mlir-opt"):
        p = shutil.which(name)
        if p:
            return p
    return None


def resolve(path):
    """A tool given by name is looked up on PATH."""
    if path and os.sep not in path:
        return shutil.which(path)
    return path


def build_type(tool):
    """CMAKE_BUILD_TYPE of the build tree holding `tool`, if known."""
    cache = os.path.join(os.path.dirname(os.path.dirname(tool)),
                         "CMakeCache.txt")
    try:
        with open(cache) as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def warn_if_unoptimised(tool, script):
    bt = build_type(tool)
    if bt and bt not in ("Release", "RelWithDebInfo", "MinSizeRel"):
        print("%s: warning: %s is a %s build; use a Release build for "
              "meaningful numbers" % (script, tool, bt), file=sys.stderr)


def run_once(cmd, script="run.py", cpu=None):
    """Runs cmd; returns (seconds, peak RSS in KiB). Exits on failure. When
    `cpu` is a list, the child's user + system CPU seconds are appended.

    ru_maxrss of a child also covers the moments between fork and exec,
    when it is still a copy of this Python process: peaks below that floor
    (see launcher_floor) read as the floor."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    # wait4 gives this child's own rusage, not the sum over all children.
    _, status, ru = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    proc.returncode = code
    if code != 0:
        sys.exit("%s: '%s' failed (exit %d):\n%s"
                 % (script, " ".join(cmd), code, err[:2000]))
    if cpu is not None:
        cpu.append(ru.ru_utime + ru.ru_stime)
    return dt, ru.ru_maxrss


def launcher_floor():
    return max(run_once(["true"])[1] for _ in range(3))


def fmt_mib(kib):
    return "%.1f MiB" % (kib / 1024.0)
