#!/usr/bin/env python3
"""Fails when a library of a lower layer includes a header of a higher one.

usage: check_layering.py SOURCE_ROOT

The layers, what each builds on, its folders under lib/ and its public
headers under include/pto/ are listed in lib/Layers.txt, the table
lib/CMakeLists.txt builds the libraries from. A file may include the
headers of its own layer and of the layers it builds on (transitively),
nothing else; every public header and every folder of lib/ belongs to a
layer. Prints each problem with file:line and exits 1, or prints a summary
and exits 0."""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layers(root):
    """[(name, builds_on, folders, headers)] from lib/Layers.txt."""
    layers = []
    with open(os.path.join(root, "lib", "Layers.txt")) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = [c.split() for c in line.split("|")]
            if len(cols) != 4 or len(cols[0]) != 1:
                sys.exit("lib/Layers.txt: bad row: %s" % line.rstrip())
            layers.append((cols[0][0], cols[1], cols[2], cols[3]))
    return layers


def closure(layers):
    """layer -> the layers it may include from (itself included)."""
    below = {}
    for name, deps, _, _ in layers:
        s = {name}
        for d in deps:
            if d not in below:
                sys.exit("lib/Layers.txt: %s builds on %s, which is not "
                         "listed above it" % (name, d))
            s |= below[d]
        below[name] = s
    return below


def main():
    root = sys.argv[1]
    layers = read_layers(root)
    below = closure(layers)
    folder_of = {f: name for name, _, folders, _ in layers for f in folders}
    header_of = {h: name for name, _, _, headers in layers for h in headers}

    def owner(inc):
        parts = inc.split("/")
        if len(parts) < 2:
            return None  # a header next to the including file
        if parts[0] == "pto":
            return header_of.get(parts[1], "?")
        # the longest listed folder the include names (Target/Platform)
        for n in range(len(parts) - 1, 0, -1):
            o = folder_of.get("/".join(parts[:n]))
            if o is not None:
                return o
        return None

    problems = []
    nfiles = 0

    def check(path, layer):
        nonlocal nfiles
        nfiles += 1
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                o = owner(m.group(1))
                if o is None or o in below[layer]:
                    continue
                if o == "?":
                    problems.append('%s:%d: "%s" is a public header of no '
                                    'layer: add it to lib/Layers.txt'
                                    % (rel, lineno, m.group(1)))
                else:
                    problems.append('%s:%d: the %s layer includes "%s" of the '
                                    '%s layer, which it does not build on'
                                    % (rel, lineno, layer, m.group(1), o))

    for name, _, folders, _ in layers:
        for f in folders:
            if f.startswith("/"):
                for dirpath, _, names in os.walk(os.path.join(root, f[1:])):
                    for n in sorted(names):
                        if n.endswith((".c", ".h", ".def")):
                            check(os.path.join(dirpath, n), name)
    lib = os.path.join(root, "lib")
    def walk(rel):
        """Check lib/REL: a layer's folder, or a folder of such folders."""
        if rel in folder_of:
            for dirpath, _, names in os.walk(os.path.join(lib, rel)):
                for n in sorted(names):
                    if n.endswith((".c", ".h", ".def")):
                        check(os.path.join(dirpath, n), folder_of[rel])
            return
        if not any(f.startswith(rel + "/") for f in folder_of):
            problems.append("lib/%s: a folder of no layer: add it to "
                            "lib/Layers.txt" % rel)
            return
        for entry in sorted(os.listdir(os.path.join(lib, rel))):
            if os.path.isdir(os.path.join(lib, rel, entry)):
                walk(rel + "/" + entry)

    for entry in sorted(os.listdir(lib)):
        if os.path.isdir(os.path.join(lib, entry)):
            walk(entry)
    inc = os.path.join(root, "include", "pto")
    for entry in sorted(os.listdir(inc)):
        layer = header_of.get(entry)
        if layer is None:
            problems.append("include/pto/%s: a public header of no layer: add "
                            "it to lib/Layers.txt" % entry)
            continue
        p = os.path.join(inc, entry)
        paths = ([os.path.join(d, n) for d, _, ns in os.walk(p) for n in ns]
                 if os.path.isdir(p) else [p])
        for path in sorted(paths):
            check(path, layer)
    for p in problems:
        print(p)
    if problems:
        print("%d layering problems" % len(problems))
        return 1
    print("%d files in %d layers: no upward include" % (nfiles, len(layers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
