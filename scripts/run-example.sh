#!/usr/bin/env bash
# Sets up, builds and runs the main job on a bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh >/dev/null
./scripts/build.sh >/dev/null
EXAMPLE=${1:-examples/seed_graph.pto}
echo "== pto-opt $EXAMPLE (parse, verify, print)" >&2
build/bin/pto-opt --allow-unregistered-dialect "$EXAMPLE"
