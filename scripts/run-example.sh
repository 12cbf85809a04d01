#!/usr/bin/env bash
# Sets up, builds and runs the main job: the reference interpreter on a
# bundled example, with generated inputs. Usage: run-example.sh [FILE.pto
# [pto-run options]] (default: examples/softmax.pto --random 0).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh >/dev/null
./scripts/build.sh >/dev/null
EXAMPLE=${1:-examples/softmax.pto}
shift || true
[ $# -gt 0 ] || set -- --random 0
echo "== pto-run $EXAMPLE $* (interpret, summarise each result)" >&2
"${BUILD_DIR:-build}/bin/pto-run" "$EXAMPLE" "$@"
