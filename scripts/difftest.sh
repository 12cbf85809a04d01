#!/usr/bin/env bash
# A longer run of the random-program differential tester than the test
# suite's: `scripts/difftest.sh --cases N --seed S [difftest.py options]`
# runs N random kernels from seed S through every back end (the Python API,
# pto-run at the Tensor and Tile levels and with --check-levels) against
# numpy, with the build in BUILD_DIR (default build; built if missing), and
# keeps each failure's shrunk reproducer in REPRO_DIR (default
# BUILD_DIR/difftest). Exits 1 when a case fails. The python is PTO_PYTHON,
# by default the one the build's configuration found with numpy (a python3
# first on PATH may be a separate build without it).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
[ -x "$build/bin/pto-run" ] || ./scripts/build.sh
python=${PTO_PYTHON:-$(sed -n 's/^PTO_PYTHON:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null)}
python=${python:-python3}
lib=$(ls "$build"/lib/libpto.so 2>/dev/null | head -1)
[ -n "$lib" ] || { echo "difftest.sh: no libpto.so in $build/lib" >&2; exit 1; }
PYTHONPATH="$PWD/python" PTO_LIBRARY="$lib" PYTHONDONTWRITEBYTECODE=1 \
  exec "$python" test/Random/difftest.py --pto-run "$build/bin/pto-run" \
  --repro-dir "${REPRO_DIR:-$build/difftest}" --keep-going "$@"
