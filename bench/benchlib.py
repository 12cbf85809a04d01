"""Helpers shared by the benchmarks' run.py scripts: finding the tools,
running a command with its wall time and peak RSS, formatting."""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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
    # stderr is read to its end first: a child that writes more than a pipe
    # holds would otherwise block forever while we wait for it.
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    _, status, ru = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
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


def add_common_args(ap):
    """The options every runner takes."""
    ap.add_argument("--ops", type=int, default=200000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pto-opt", default=None)
    ap.add_argument("--mlir-opt", default=None)
    ap.add_argument("--keep", default=None,
                    help="write the inputs and outputs to this directory")


def find_tools(args, script="run.py"):
    """(pto-opt, mlir-opt) from the options or the usual places; exits with
    what to do when one is missing."""
    pto = resolve(args.pto_opt or find_pto_tool("pto-opt", "PTO_OPT"))
    if not pto:
        sys.exit("%s: pto-opt not found; build it (see bench/README.md) "
                 "or pass --pto-opt" % script)
    mlir = resolve(args.mlir_opt or find_mlir_opt())
    if not mlir:
        sys.exit("%s: mlir-opt not found; install mlir-14-tools "
                 "(scripts/install-deps.sh) or pass --mlir-opt" % script)
    warn_if_unoptimised(pto, script)
    return pto, mlir


def measure(cmds, reps):
    """Runs the commands (name -> argv) `reps` times, interleaved so that
    machine noise hits all alike. Returns the medians per name as
    (wall seconds, CPU seconds, peak RSS KiB), and the launcher's RSS
    floor."""
    floor = launcher_floor()
    runs = {k: ([], [], []) for k in cmds}
    for _ in range(reps):
        for k, cmd in cmds.items():
            wall, cpu, rss = runs[k]
            dt, kib = run_once(cmd, cpu=cpu)
            wall.append(dt)
            rss.append(kib)
    med = {k: tuple(statistics.median(x) for x in v) for k, v in runs.items()}
    return med, floor


def print_row(name, med, floor, width=9):
    """One line of a report: median wall, CPU and peak RSS of `name`."""
    wall, cpu, rss = med
    note = ""
    if rss <= floor * 1.05:
        note = (" (at the launcher's floor of %s: the real peak is lower)"
                % fmt_mib(floor))
    print("  %-*s %8.3f s wall  %8.3f s cpu  %10s peak RSS%s"
          % (width, name, wall, cpu, fmt_mib(rss), note))


def pto_opt_and_workdir(args, name, script="run.py"):
    """The pto-opt of --pto-opt (or the usual places) and a directory for
    the inputs and outputs (--keep, or a fresh temporary one); exits with
    what to do when pto-opt is missing."""
    pto_opt = resolve(args.pto_opt) or find_pto_tool("pto-opt", "PTO_OPT")
    if not pto_opt:
        sys.exit("%s: pto-opt not found; build it or pass --pto-opt" % script)
    warn_if_unoptimised(pto_opt, script)
    work = args.keep or tempfile.mkdtemp(prefix="pto-bench-%s-" % name)
    os.makedirs(work, exist_ok=True)
    return pto_opt, work
