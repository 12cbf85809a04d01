#!/usr/bin/env bash
# Fuzzes every libFuzzer target of fuzz/ within a total of SECONDS (default
# 60), split evenly: configures a clang build in build-fuzz (FUZZ_BUILD_DIR),
# builds the targets, seeds each corpus from fuzz/corpus/NAME/ (and the IR
# targets' from every .pto chunk of the repository, others from the files
# their SEED_FILES name) and runs them one after
# the other. FUZZ_TARGETS="a b" runs only those. Fails on any crash, leak,
# sanitizer report, timeout (10 s per input) or out-of-memory (2 GiB); the
# offending input is left in build-fuzz/fuzz/artifacts/NAME/.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-60}
build=${FUZZ_BUILD_DIR:-build-fuzz}
python=$(command -v python3)

cmake -S . -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPTO_ENABLE_FUZZ=ON -DPTO_BUILD_TESTS=OFF \
  >/dev/null
cmake --build "$build" --target fuzzers

targets=()
while read -r name seeds dict quiet globs; do
  [ -n "$name" ] || continue
  if [ -n "${FUZZ_TARGETS:-}" ] && [[ " $FUZZ_TARGETS " != *" $name "* ]]; then
    continue
  fi
  targets+=("$name $seeds $dict $quiet ${globs:--}")
done < "$build/fuzz/fuzzers.txt"
[ ${#targets[@]} -gt 0 ] || { echo "fuzz.sh: no target to run" >&2; exit 1; }
each=$(( duration / ${#targets[@]} ))
[ "$each" -ge 1 ] || each=1

for t in "${targets[@]}"; do
  read -r name seeds dict quiet globs <<< "$t"
  corpus="$build/fuzz/corpus/$name"
  artifacts="$build/fuzz/artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  if [ -d "fuzz/corpus/$name" ]; then
    cp -n fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null || true
  fi
  [ "$seeds" = ir ] && "$python" scripts/fuzz-corpus.py "$corpus"
  if [ "$globs" != - ]; then
    for g in ${globs//,/ }; do
      for f in $g; do [ -f "$f" ] && cp -n "$f" "$corpus"/; done
    done
  fi
  flags=(-max_total_time="$each" -timeout=10 -rss_limit_mb=2048
         -max_len=16384 -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ "$dict" != - ] && flags+=(-dict="fuzz/$dict")
  [ "$quiet" = quiet ] && flags+=(-close_fd_mask=3)
  echo "== $name: ${each} s"
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
    "$build/bin/$name" "${flags[@]}" "$corpus"
done
