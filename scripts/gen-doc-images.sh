#!/usr/bin/env bash
# Regenerates the pictures of the documentation (docs/images/*.svg) with the
# project's own tools and Graphviz, so that the checked-in SVGs never drift:
#   levels.svg      the levels (docs/images/levels.dot, written by hand)
#   seed-graph.svg  pto-opt --print-op-graph of examples/seed_graph.pto
#   tile-cover.svg  tiles of tile-expand over a tensor, edge tiles included
# Usage: scripts/gen-doc-images.sh [BUILD_DIR]   (default: build; needs `dot`)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-${BUILD_DIR:-build}}"
case "$build" in /*) ;; *) build="$root/$build" ;; esac
images="$root/docs/images"
pto_opt="$build/bin/pto-opt"

if ! command -v dot >/dev/null 2>&1; then
  echo "gen-doc-images: Graphviz 'dot' not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
if [ ! -x "$pto_opt" ]; then
  echo "gen-doc-images: $pto_opt not found; build first (scripts/build.sh) or pass the build dir" >&2
  exit 1
fi

# The op graph goes to a file through the pass's `output` option, so the
# picture does not depend on where the DOT would otherwise be printed.
"$pto_opt" --print-op-graph="output=$images/seed-graph.dot" \
  "$root/examples/seed_graph.pto" -o /dev/null
python3 "$root/scripts/tile-cover-dot.py" 10 13 4 5 > "$images/tile-cover.dot"

for src in "$images"/*.dot; do
  out="${src%.dot}.svg"
  dot -Tsvg "$src" -o "$out"
  echo "gen-doc-images: wrote docs/images/$(basename "$out")"
done
