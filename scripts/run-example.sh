#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, runs a
# bundled kernel through the reference interpreter and checks its results
# against numpy (for the bundled examples). Usage: run-example.sh [FILE.pto [pto-run options]]
# (default: examples/softmax.pto). Without options, the kernel runs with the
# command its header comment suggests (`//   pto-run FILE ...`, which gives
# dynamic dims their sizes), else with `--random 0`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

fail() {
  echo "run-example: FAILED: $*" >&2
  exit 1
}

echo "== [1/4] checking system packages (scripts/install-deps.sh)"
./scripts/install-deps.sh ||
  fail "missing packages could not be installed (see the command above)"

echo "== [2/4] configuring and building into $BUILD_DIR/ (scripts/build.sh)"
./scripts/build.sh || fail "the build failed (see the errors above)"

EXAMPLE=${1:-examples/softmax.pto}
[ $# -gt 0 ] && shift
[ -f "$EXAMPLE" ] || fail "no such file: $EXAMPLE"
if [ $# -eq 0 ]; then
  # The first `pto-run FILE OPTIONS` line of the header comment.
  suggested=$(sed -n "s|^//[[:space:]]*pto-run [^[:space:]]*$(basename "$EXAMPLE")[[:space:]]\{1,\}||p" \
                "$EXAMPLE" | head -n 1)
  # shellcheck disable=SC2086
  if [ -n "$suggested" ]; then set -- $suggested; else set -- --random 0; fi
fi

RUN_DIR=$(mktemp -d)
trap 'rm -rf "$RUN_DIR"' EXIT
echo "== [3/4] pto-run $EXAMPLE $* --out-dir $RUN_DIR"
"$BUILD_DIR/bin/pto-run" "$EXAMPLE" "$@" --out-dir "$RUN_DIR" ||
  fail "pto-run exited with $? (its message is above)"

echo "== [4/4] recomputing the results with numpy from the same inputs"
# The references are the example test's (test/Examples/check_examples.py).
rc=0
"$PYTHON" test/Examples/check_examples.py "$(basename "$EXAMPLE" .pto)" "$RUN_DIR" || rc=$?
case $rc in
  0) ;;
  2) echo "(the results above are unchecked)" ;;
  *) fail "the interpreter's results do not match numpy's" ;;
esac

cat <<NEXT

Try next:
  $BUILD_DIR/bin/pto-opt $EXAMPLE --tile-expand       # lower to the Tile level
  $BUILD_DIR/bin/pto-run $EXAMPLE $* --check-levels   # compare every level
  ./scripts/run-example.sh examples/softmax_dynamic.pto   # another example (dynamic dims)
NEXT
