#!/usr/bin/env python3
"""Runs `pto-run --check-levels` on every function of a .pto file with every
tile shape the file lists, through the Tile and the Block level
(tile-expand, then cv-partition), and summarises. Directives in the file:

  // TILES: <tile-expand options>       one line per tile shape set
  // ARGS @<func>: <pto-run arguments>  extra arguments for one function
  // SEED: <n>                          --random seed (default 1)
  // LEVELS: pto                        also through the PTO level
                                        (lower-to-pto, memory-plan,
                                        insert-sync) and the compiled
                                        kernels, on every platform

With `LEVELS: pto` a run passes only when the PTO level is reached and
within tolerance of the Block level, and every output of the compiled
kernels is within tolerance of the Tensor level, on each platform; each
function then runs from a file of its own (a module the compiled path
runs has one host program).

The compiled kernels are built at the JIT's O2 for the first tile shape
on the first platform and at O0 for the others (LLVM's optimisation was
nine tenths of these runs' time; each function's kernels still meet O2
once, and JitDiffTest checks every instruction at O2). PTO_JIT_OPT_LEVEL
in the environment, when set, applies to every run.

PTO_ORACLE_SAMPLE=N (default 1), which the sanitizer stages of CI set as
they do for the numpy oracles, runs each function's first tile shape on
every platform and about one in N of the other (function, tile shape,
platform) runs, chosen by a hash of their names, so the same ones in every
run; the summary counts the runs made.

Prints one line per run that fails (with pto-run's output) and a summary;
exits 1 when any run fails. pto-run must be on PATH."""
import os
import re
import subprocess
import sys
import tempfile
import zlib

PLATFORMS = ['a2a3', 'a3']
try:
    SAMPLE = max(1, int(os.environ.get('PTO_ORACLE_SAMPLE', '1') or '1'))
except ValueError:
    sys.exit('check_levels.py: PTO_ORACLE_SAMPLE=%r is not a whole number'
             % os.environ['PTO_ORACLE_SAMPLE'])


def sampled(func, ti, tile, platform):
    """Whether the run of `func` with tile shape number ti runs under
    PTO_ORACLE_SAMPLE: the first tile shape always."""
    name = '%s {%s} %s' % (func, tile, platform)
    return SAMPLE == 1 or ti == 0 or zlib.crc32(name.encode()) % SAMPLE == 0


def pto_chain(platform):
    p = '{platform=%s}' % platform
    return ',lower-to-pto%s,memory-plan%s,insert-sync%s' % (p, p, p)


def passed(out, to_pto, nouts):
    """Whether pto-run's report says every level it had to reach agrees."""
    if not re.search(r'Block level: \d+ buffers compared.*all within '
                     r'tolerance', out):
        return False
    if not to_pto:
        return 'all within tolerance' in out
    if 'PTO level not reached' in out or not re.search(
            r'PTO level: \d+ tiles compared.*all within tolerance', out):
        return False
    compiled = re.findall(r'^Compiled kernels on the host runtime .* - (\w+)',
                          out, re.M)
    return len(compiled) == nouts and all(c == 'ok' for c in compiled)


def main():
    path = sys.argv[1]
    text = open(path).read()
    tiles = re.findall(r'^// TILES: (.*)$', text, re.M)
    args = {m.group(1): m.group(2).split()
            for m in re.finditer(r'^// ARGS @(\w+): (.*)$', text, re.M)}
    seed = (re.findall(r'^// SEED: (\d+)$', text, re.M) or ['1'])[0]
    levels = re.findall(r'^// LEVELS: (.*)$', text, re.M)
    to_pto = any(l.strip() == 'pto' for l in levels)
    funcs = re.findall(r'^func\.func @(\w+)\(', text, re.M)
    if not tiles or not funcs:
        print('%s: no TILES directives or no functions' % path)
        return 1
    if levels and not to_pto:
        print('%s: unknown LEVELS %r (expected: pto)' % (path, levels))
        return 1
    tmp = tempfile.TemporaryDirectory() if to_pto else None
    sources = {}
    for m in re.finditer(r'^func\.func @(\w+)\(.*?^}$', text, re.M | re.S):
        if tmp:
            sources[m.group(1)] = os.path.join(tmp.name, m.group(1) + '.pto')
            with open(sources[m.group(1)], 'w') as out:
                out.write(m.group(0) + '\n')
    failed = 0
    runs = 0
    tiles_checked = 0
    fixed_level = 'PTO_JIT_OPT_LEVEL' in os.environ
    for f in funcs:
        for ti, t in enumerate(tiles):
            for pi, platform in enumerate(PLATFORMS if to_pto else [None]):
                if not sampled(f, ti, t, platform):
                    continue
                runs += 1
                pipeline = 'tile-expand{%s},cv-partition' % t
                cmd = ['pto-run', sources.get(f, path), '--entry', f,
                       '--random', seed,
                       '--check-levels']
                if platform:
                    pipeline += pto_chain(platform)
                    cmd += ['--backend', 'host', '--platform', platform]
                cmd += ['--pass-pipeline=' + pipeline] + args.get(f, [])
                env = dict(os.environ)
                if not fixed_level and (ti, pi) != (0, 0):
                    env['PTO_JIT_OPT_LEVEL'] = '0'
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   env=env)
                m = re.search(r'Tile level: (\d+) tiles compared', r.stdout)
                nouts = len(re.findall(r'^\w+ level: @\w+ out\d+ ', r.stdout,
                                       re.M))
                if r.returncode != 0 or not m or \
                        not passed(r.stdout, to_pto, nouts):
                    failed += 1
                    print('FAILED @%s with {%s}%s:' % (
                        f, t, ' on ' + platform if platform else ''))
                    print(r.stdout + r.stderr)
                    continue
                tiles_checked += int(m.group(1))
    print('%d functions x %d tile shapes: %d runs failed, %d tiles compared%s%s'
          % (len(funcs), len(tiles), failed, tiles_checked,
             '; PTO and compiled levels on ' + ', '.join(PLATFORMS)
             if to_pto else '',
             '' if SAMPLE == 1 else ' (PTO_ORACLE_SAMPLE=%d: %d runs)'
             % (SAMPLE, runs)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
