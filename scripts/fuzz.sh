#!/usr/bin/env bash
# Fuzzes the textual IR for SECONDS (default 60): configures a clang build in
# build-fuzz (FUZZ_BUILD_DIR), builds the libFuzzer target, seeds its corpus
# from the lit tests and runs it. Fails on any crash, leak, sanitizer report,
# timeout (10 s per input) or out-of-memory (2 GiB); the offending input is
# left in build-fuzz/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}

cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTO_ENABLE_FUZZ=ON -DPTO_BUILD_TESTS=OFF \
  >/dev/null
cmake --build "$build" --target parser_fuzz

corpus="$build/fuzz/corpus/parser"
artifacts="$build/fuzz/artifacts"
mkdir -p "$corpus" "$artifacts"
python3 scripts/fuzz-corpus.py "$corpus"

ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
"$build/bin/parser_fuzz" -max_total_time="$duration" -timeout=10 \
  -rss_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
  -dict=fuzz/pto.dict -artifact_prefix="$artifacts/" "$corpus"
