#!/usr/bin/env bash
# Runs the libFuzzer targets of build-asan/ (make sanitize builds them) for a bounded time each,
# seeded from the fixtures. A crash, a sanitizer report or a timeout fails the run and leaves
# the input as build-asan/fuzz/crash-* (libFuzzer's artifact) to turn into a regression test.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
out=build-asan/fuzz
mkdir -p "$out/corpus-python" "$out/corpus-cxx" "$out/corpus-cmake" "$out/seeds-python" "$out/seeds-cxx" "$out/seeds-cmake"
# Seeds named after their path, so that files of the same name in different fixtures all count.
seed() { while IFS= read -r -d '' f; do cp "$f" "$1/${f//\//_}"; done; }
find fixtures -type f \( -name '*.py' -o -name '*.pyi' \) -print0 | seed "$out/seeds-python"
find fixtures -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) \
  -print0 | seed "$out/seeds-cxx"
find fixtures -type f \( -name 'CMakeLists.txt' -o -name '*.cmake' \) -print0 | seed "$out/seeds-cmake"
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in python cxx cmake; do
  echo "fuzz: fuzz_$target for ${seconds}s"
  build-asan/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus-$target" "$out/seeds-$target" 2>&1 |
    grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|.*Test unit written)" || true
  test "${PIPESTATUS[0]}" -eq 0
done
