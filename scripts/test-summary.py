#!/usr/bin/env python3
# Says how much a ctest run checked, from the output ctest kept of each test
# (Testing/Temporary/LastTest.log): lit tests, C unit tests, pytest cases,
# difftest cases, rather than only the number of ctest entries.
# Usage: test-summary.py BUILD_DIR
import os
import re
import sys


def outputs(log):
    """Yields (ctest name, output) for each test in the log."""
    name, lines, inside = None, [], False
    for line in log.splitlines():
        m = re.match(r"^\d+/\d+ Test: (\S+)$", line)
        if m:
            name, lines, inside = m.group(1), [], False
        elif line.startswith("Output:"):
            inside = True
        elif line == "<end of output>" and name:
            yield name, "\n".join(lines)
            name, inside = None, False
        elif inside:
            lines.append(line)


def main():
    path = os.path.join(sys.argv[1], "Testing", "Temporary", "LastTest.log")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            log = f.read()
    except OSError as e:
        print(f"test-summary: cannot read {path}: {e.strerror}", file=sys.stderr)
        return 1
    n = {"entries": 0, "lit": 0, "lit_unsupported": 0, "unit": 0,
         "unit_binaries": 0, "pytest": 0, "pytest_skipped": 0, "difftest": 0}
    for name, out in outputs(log):
        n["entries"] += 1
        if name == "lit":
            for key, pat in (("lit", r"^\s*Passed\s*:\s*(\d+)"),
                             ("lit_unsupported", r"^\s*Unsupported\s*:\s*(\d+)")):
                m = re.search(pat, out, re.M)
                n[key] += int(m.group(1)) if m else 0
        elif name == "python":
            for key, word in (("pytest", "passed"), ("pytest_skipped", "skipped")):
                m = re.search(rf"(\d+) {word}", out)
                n[key] += int(m.group(1)) if m else 0
        elif name.startswith("difftest-") and name != "difftest-selftest":
            m = re.search(r"^difftest: (\d+) cases", out, re.M)
            n["difftest"] += int(m.group(1)) if m else 0
        else:
            m = re.search(r"^(\d+) tests, 0 failed checks$", out, re.M)
            if m:
                n["unit"] += int(m.group(1))
                n["unit_binaries"] += 1
    print(f"ran: {n['lit']} lit tests passed ({n['lit_unsupported']} unsupported), "
          f"{n['unit']} C unit tests in {n['unit_binaries']} programs, "
          f"{n['pytest']} pytest cases passed ({n['pytest_skipped']} skipped), "
          f"{n['difftest']} difftest random kernels; {n['entries']} ctest entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
