#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, runs a
# bundled kernel through the compiled path (lowered to PTO, JIT-compiled,
# run on the runtime's host back end) when it lowers to PTO, checks those
# results against the reference interpreter's, and checks them against
# numpy (for the bundled examples). Usage: run-example.sh [FILE.pto
# [pto-run options]] (default: examples/seed_graph.pto, the worked
# example). Without options, the kernel runs with the command its header
# comment suggests (`//   pto-run FILE ...`, which gives dynamic dims their
# sizes), else with `--random 0`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
PYTHON=${PYTHON:-/usr/bin/python3}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

fail() {
  echo "run-example: FAILED: $*" >&2
  exit 1
}

echo "== [1/5] checking system packages (scripts/install-deps.sh)"
./scripts/install-deps.sh ||
  fail "missing packages could not be installed (see the command above)"

echo "== [2/5] configuring and building into $BUILD_DIR/ (scripts/build.sh)"
./scripts/build.sh || fail "the build failed (see the errors above)"

EXAMPLE=${1:-examples/seed_graph.pto}
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
echo "== [3/5] the reference interpreter: pto-run $EXAMPLE $* --out-dir $RUN_DIR/interp"
"$BUILD_DIR/bin/pto-run" "$EXAMPLE" "$@" --out-dir "$RUN_DIR/interp" ||
  fail "pto-run exited with $? (its message is above)"
CHECKED="$RUN_DIR/interp"
WHAT="the interpreter's"

if lowering=$("$BUILD_DIR/bin/pto-opt" "$EXAMPLE" --pto-lower-to-pto -o /dev/null 2>&1); then
  echo "== [4/5] the compiled path: lowered to PTO, translated to LLVM IR, JIT-compiled,"
  echo "         run on the runtime's host worker threads; compared with the interpreter"
  expects=()
  for f in "$RUN_DIR"/interp/out*.npy; do expects+=(--expect "$f"); done
  echo "   pto-run $EXAMPLE $* --backend host --out-dir $RUN_DIR/host ${expects[*]}"
  "$BUILD_DIR/bin/pto-run" "$EXAMPLE" "$@" --backend host --out-dir "$RUN_DIR/host" "${expects[@]}" ||
    fail "the compiled kernels' results differ from the interpreter's (or the run failed; see above)"
  CHECKED="$RUN_DIR/host"
  WHAT="the compiled kernels'"
else
  echo "== [4/5] the compiled path does not take $EXAMPLE yet (it does not lower to PTO):"
  echo "$lowering" | head -n 1
  echo "   its results are the interpreter's alone"
fi

echo "== [5/5] recomputing the results with numpy from the same inputs"
# The references are the example test's (test/Examples/check_examples.py).
rc=0
"$PYTHON" test/Examples/check_examples.py "$(basename "$EXAMPLE" .pto)" "$CHECKED" || rc=$?
case $rc in
  0) ;;
  2) echo "(the results above are unchecked)" ;;
  *) fail "$WHAT results do not match numpy's" ;;
esac

cat <<NEXT

Try next:
  $BUILD_DIR/bin/pto-opt $EXAMPLE --tile-expand       # lower to the Tile level
  $BUILD_DIR/bin/pto-run $EXAMPLE $* --check-levels   # compare every level
  $BUILD_DIR/bin/pto-run $EXAMPLE $* --backend sim --report text   # the simulated machine's timeline
  ./scripts/run-example.sh examples/softmax.pto           # another example
NEXT
