#!/usr/bin/env python3
"""Feeds the generic form of every round-trip test file to mlir-opt.

usage: mlir-opt-compat.py MLIR_OPT TEST_DIR

A round-trip test file is one whose RUN lines use %roundtrip TOOL [FLAGS]
FILE. Each is printed by TOOL with its FLAGS and --print-generic (with and
without --print-debuginfo) and must be accepted by
`MLIR_OPT --allow-unregistered-dialect` (with --split-input-file when the
file is split). Prints the number of files checked; exits 1 listing every
file mlir-opt rejected, with mlir-opt's message.
"""
import os
import re
import shlex
import subprocess
import sys


def run_lines(path):
    lines, cur = [], ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            m = re.search(r"RUN:(.*)$", raw)
            if not m:
                continue
            part = m.group(1).rstrip()
            if part.endswith("\\"):
                cur += part[:-1] + " "
                continue
            lines.append(cur + part)
            cur = ""
    return lines


def roundtrip_commands(path):
    """(tool, flags) of every %roundtrip RUN line of the file."""
    out = []
    for line in run_lines(path):
        m = re.search(r"%roundtrip\s+(.*)", line)
        if not m:
            continue
        words = shlex.split(m.group(1).split("|")[0])
        words = [w for w in words if w != "%s"]
        if words:
            out.append((words[0], words[1:]))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mlir-opt-compat.py MLIR_OPT TEST_DIR")
    mlir_opt, root = sys.argv[1], sys.argv[2]
    checked, failures = 0, []
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if not name.endswith((".pto", ".mlir")):
                continue
            for tool, flags in roundtrip_commands(path):
                split = ["--split-input-file"] if "--split-input-file" in flags else []
                for debug in ([], ["--print-debuginfo"]):
                    ours = subprocess.run([tool, *flags, *debug, "--print-generic", path],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True)
                    if ours.returncode != 0:
                        failures.append(f"{path}: {tool} failed:\n{ours.stderr}")
                        continue
                    theirs = subprocess.run(
                        [mlir_opt, "--allow-unregistered-dialect", *split, "-"],
                        input=ours.stdout, stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE, text=True)
                    if theirs.returncode != 0:
                        failures.append(f"{path} ({' '.join([tool, *flags, *debug])}"
                                        f" --print-generic): mlir-opt rejected it:\n"
                                        f"{theirs.stderr}")
                checked += 1
    for f in failures:
        sys.stderr.write(f + "\n")
    print(f"mlir-opt-compat: {checked} round-trip files checked, "
          f"{len(failures)} rejected")
    sys.exit(1 if failures or checked == 0 else 0)


if __name__ == "__main__":
    main()
