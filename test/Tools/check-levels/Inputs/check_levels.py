#!/usr/bin/env python3
"""Runs `pto-run --check-levels` on every function of a .pto file with every
tile shape the file lists, through the Tile and the Block level
(tile-expand, then cv-partition), and summarises. Directives in the file:

  // TILES: <tile-expand options>       one line per tile shape set
  // ARGS @<func>: <pto-run arguments>  extra arguments for one function
  // SEED: <n>                          --random seed (default 1)

Prints one line per run that fails (with pto-run's output) and a summary;
exits 1 when any run fails. pto-run must be on PATH."""
import re
import subprocess
import sys


def main():
    path = sys.argv[1]
    text = open(path).read()
    tiles = re.findall(r'^// TILES: (.*)$', text, re.M)
    args = {m.group(1): m.group(2).split()
            for m in re.finditer(r'^// ARGS @(\w+): (.*)$', text, re.M)}
    seed = (re.findall(r'^// SEED: (\d+)$', text, re.M) or ['1'])[0]
    funcs = re.findall(r'^func\.func @(\w+)\(', text, re.M)
    if not tiles or not funcs:
        print('%s: no TILES directives or no functions' % path)
        return 1
    failed = 0
    tiles_checked = 0
    for f in funcs:
        for t in tiles:
            cmd = ['pto-run', path, '--entry', f, '--random', seed,
                   '--check-levels',
                   '--pass-pipeline=tile-expand{%s},cv-partition' % t]
            cmd += args.get(f, [])
            r = subprocess.run(cmd, capture_output=True, text=True)
            m = re.search(r'Tile level: (\d+) tiles compared', r.stdout)
            b = re.search(r'Block level: \d+ buffers compared.*all within '
                          r'tolerance', r.stdout)
            if r.returncode != 0 or not m or not b or \
                    'all within tolerance' not in r.stdout:
                failed += 1
                print('FAILED @%s with {%s}:' % (f, t))
                print(r.stdout + r.stderr)
                continue
            tiles_checked += int(m.group(1))
    print('%d functions x %d tile shapes: %d runs failed, %d tiles compared'
          % (len(funcs), len(tiles), failed, tiles_checked))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
