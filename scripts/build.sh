#!/usr/bin/env bash
# Configures and builds PTO. BUILD_DIR (default: build) and CMAKE_ARGS
# (extra configure arguments) may be set in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
# shellcheck disable=SC2086
cmake -S . -B "$BUILD_DIR" -G Ninja ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR"
