"""Runs the console examples of a documentation page and checks their
output.

usage: check-doc.py SRC_ROOT PAGE.md WORKDIR [--python PYTHON]

Every ```console block of the page is a sequence of `$ command` lines, each
followed by the output it must print (stdout and stderr together), line for
line, as a reader sees it. Text matches exactly, with two allowances for
figures that differ from one machine to the next: a number followed by a
unit of time or memory (`1.420 ms`, `2.7 MiB`) matches any number, and a
number written with a fraction or an exponent (an error figure such as
`9.31e-10`) matches within 1% (the host's libm may round the last digit
differently); integers (counts, shapes, positions) match exactly. A last
line `[exit N]` expects that exit code (0 otherwise). Commands run with
bash in WORKDIR, in page order, where `examples` and `docs` link to the
source tree's. With --python, `python` links to the source tree's too and
`python3` on PATH is PYTHON (the one with numpy), so that a page can show
`PYTHONPATH=python python3 ...` as a reader would type it."""
import os
import re
import subprocess
import sys


def blocks(page):
    return re.findall(r"^```console\n(.*?)^```$", page, re.S | re.M)


def steps(block):
    out = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append([line[2:], [], 0])
        elif out and re.fullmatch(r"\[exit (\d+)\]", line):
            out[-1][2] = int(line[6:-1])
        elif out:
            out[-1][1].append(line)
    return out


NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
VARYING_UNIT = r"\s?(?:ns|us|ms|s|KiB|MiB|GiB)\b"
TOKEN = re.compile(r"(%s)(%s)?" % (NUMBER, VARYING_UNIT))


def split_numbers(line):
    """The line as text between numbers, and (number, unit) pairs."""
    text, nums, pos = [], [], 0
    for m in TOKEN.finditer(line):
        text.append(line[pos:m.start()])
        nums.append((m.group(1), m.group(2) or ""))
        pos = m.end()
    text.append(line[pos:])
    return text, nums


def number_matches(want, got):
    if want[1] != got[1]:
        return False
    if want[1]:
        return True  # a time or a size: the machine's, not the program's
    if want[0] == got[0]:
        return True
    if not re.search(r"[.eE]", want[0]):
        return False  # counts, shapes and positions are exact
    w, g = float(want[0]), float(got[0])
    return abs(w - g) <= 0.01 * max(abs(w), abs(g))


def line_matches(expected, got):
    (wt, wn), (gt, gn) = split_numbers(expected), split_numbers(got)
    return wt == gt and len(wn) == len(gn) and all(
        number_matches(w, g) for w, g in zip(wn, gn))


def main():
    root, page_path, work = sys.argv[1:4]
    extra = sys.argv[4:]
    if extra and (len(extra) != 2 or extra[0] != "--python"):
        sys.exit("usage: check-doc.py SRC_ROOT PAGE.md WORKDIR [--python PYTHON]")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    names = ["examples", "docs"]
    if extra:
        names.append("python")
        bindir = os.path.join(work, ".bin")
        os.makedirs(bindir, exist_ok=True)
        # A wrapper rather than a symlink: a virtualenv's Python finds its
        # packages only when started by its own path.
        wrapper = os.path.join(bindir, "python3")
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\nexec "%s" "$@"\n' % extra[1])
        os.chmod(wrapper, 0o755)
        env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    for name in names:
        link = os.path.join(work, name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(root, name), link)
    with open(page_path, encoding="utf-8") as f:
        page = f.read()
    failures, count = [], 0
    for block in blocks(page):
        for cmd, expected, code in steps(block):
            count += 1
            r = subprocess.run(["bash", "-c", cmd + " 2>&1"], cwd=work, env=env,
                               capture_output=True, text=True)
            got = r.stdout.splitlines()
            ok = r.returncode == code and len(got) == len(expected) and all(
                line_matches(e, g) for e, g in zip(expected, got))
            if not ok:
                failures.append("$ %s\n--- expected (exit %d):\n%s\n--- got (exit %d):\n%s"
                                % (cmd, code, "\n".join(expected), r.returncode,
                                   "\n".join(got)))
    if failures:
        print("\n\n".join(failures))
        print("%s: %d of %d examples differ" % (page_path, len(failures), count))
        return 1
    print("%d examples ok" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
