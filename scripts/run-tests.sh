#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (lit + C unit tests + the
# Python tests) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
