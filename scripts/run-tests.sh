#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (lit + C unit tests + the
# Python tests + the differential tester) through ctest, then says how much
# of each ran. Exits non-zero when anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
./scripts/install-deps.sh
./scripts/build.sh
status=0
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" || status=$?
"$PYTHON" scripts/test-summary.py "$BUILD_DIR" || true
exit "$status"
