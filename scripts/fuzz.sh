#!/usr/bin/env bash
# Runs the libFuzzer targets of build-asan/ (make sanitize builds them) for a bounded time each,
# seeded from the fixtures, docs/ and a scan's result cache. A crash, a sanitizer report or a
# timeout fails the run and leaves the input as build-asan/fuzz/crash-* (libFuzzer's artifact)
# to turn into a regression test.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 30)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
out=build-asan/fuzz
targets="python notebook cxx cmake ignore_rules config result_codec result_cache compile_database"
for target in $targets; do
  rm -rf "$out/seeds-$target"
  mkdir -p "$out/corpus-$target" "$out/seeds-$target"
done
# Seeds named after their path, so that files of the same name in different fixtures all count.
seed() { while IFS= read -r -d '' f; do cp "$f" "$1/${f//\//_}"; done; }
find fixtures -type f \( -name '*.py' -o -name '*.pyi' \) -print0 | seed "$out/seeds-python"
find fixtures -type f -name '*.ipynb' -print0 | seed "$out/seeds-notebook"
find fixtures -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.cc' -o -name '*.h' -o -name '*.hpp' \) \
  -print0 | seed "$out/seeds-cxx"
find fixtures -type f \( -name 'CMakeLists.txt' -o -name '*.cmake' \) -print0 | seed "$out/seeds-cmake"

# fuzz_ignore_rules: a path line, then an ignore file: the repository's own, a typical Python
# project's, and the patterns that once hung or crashed the matcher.
ignore_seed() { printf '%s\n%s' "$2" "$3" > "$out/seeds-ignore_rules/$1"; }
ignore_seed repository src/build-asan/x.swp "$(cat .gitignore)"
ignore_seed python pkg/__pycache__/model.cpython-311.pyc '__pycache__/
*.py[cod]
*$py.class
*.so
build/
dist/
*.egg-info/
.venv
!keep/**/*.pyc
/site
docs/_build/
**/checkpoints/**
data/**/*.npy
\#notes
\!important
trailing\ '
ignore_seed stars "$(printf 'a%.0s' {1..100})" '*a*a*a*a*a*a*a*a*a*a*a*a*b'
ignore_seed dirs a/b/c/d.py "$(printf '**/%.0s' {1..10000})d.py"
ignore_seed brackets '[[[[' "$(printf '[%.0s' {1..10000})"
ignore_seed classes 'b]/-!\' '[!a-z][^\]]-][\--\]]/[]-]\\'

# fuzz_config: the fixtures' configurations and the documented example.
find fixtures -type f \( -name 'pyproject.toml' -o -name '.tpulint.toml' \) -print0 | seed "$out/seeds-config"
awk '/^```toml$/ { n++; keep = 1; next } /^```$/ { keep = 0 } keep { print > (dir "/docs_" n) }' \
  dir="$out/seeds-config" docs/*.md

# fuzz_compile_database: databases as CMake, a PyTorch extension's nvcc build and an attacker
# write them, and command lines with quotes and escapes.
cat > "$out/seeds-compile_database/cmake.json" <<'JSON'
[{"directory": "/p/build", "command": "/usr/bin/c++ -DWITH_CUDA -I/p/include -isystem /usr/include/python3.11 -O3 -std=gnu++17 -fPIC -o CMakeFiles/ext.dir/src/a.cpp.o -c /p/src/a.cpp", "file": "/p/src/a.cpp", "output": "CMakeFiles/ext.dir/src/a.cpp.o"},
 {"directory": "/p/build", "arguments": ["/usr/bin/cc", "-DX=\"a b\"", "-c", "../lib/c.c"], "file": "../lib/c.c"}]
JSON
cat > "$out/seeds-compile_database/nvcc.json" <<'JSON'
[{"directory": "/p", "file": "/p/csrc/k.cu", "arguments": ["/usr/local/cuda/bin/nvcc", "-I/p/csrc", "-I/usr/local/lib/python3.11/site-packages/torch/include", "-c", "/p/csrc/k.cu", "-o", "/p/build/k.o", "-D__CUDA_NO_HALF_OPERATORS__", "--expt-relaxed-constexpr", "--compiler-options", "'-fPIC'", "-O3", "-gencode=arch=compute_80,code=sm_80", "-std=c++17", "-Xcompiler", "-fopenmp", "-x", "cu"]}]
JSON
cat > "$out/seeds-compile_database/hostile.json" <<'JSON'
[{"directory": "/p", "file": "/p/k.cu", "arguments": ["clang++", "-x", "c++", "-Xclang", "-dependency-file", "-Xclang", "/home/v/.bashrc", "-MD", "-MF", "/tmp/d", "-fmodules-cache-path=/tmp/m", "-Wp,-MD,/tmp/w", "@/tmp/rsp", "--target=../../x", "--sysroot=/home/v", "-fplugin=/tmp/p.so", "-mllvm", "-x", "-c", "/p/k.cu"]}]
JSON
printf '%s' "c++ -DA='x y' -DB=\"q \\\" r\" -I\\ dir -o out.o -c k.cpp" > "$out/seeds-compile_database/command"

# fuzz_result_codec: the encoded results of a scan of the fixtures, one per line of its cache
# file (each starts with the codec's tag, "r" and its version, then a tab: any version, so that a
# new codec keeps its seeds); fuzz_result_cache: cache files holding them, made by that target
# (it knows the entries it looks up). No seed is an error: the codec would be fuzzed blind.
rm -rf "$out/scan-cache"
build-asan/tpulint scan fixtures/projects --cache-dir "$out/scan-cache" --jobs 2 --format json >/dev/null || test $? -eq 1
awk 'match($0, /r[0-9]+\t.*/) { f = sprintf("%s/result-%04d", dir, ++n); printf "%s", substr($0, RSTART) > f; close(f) }' \
  dir="$out/seeds-result_codec" "$out"/scan-cache/*.cache
test -n "$(ls "$out/seeds-result_codec")" || { echo "fuzz: no result codec seeds in the scan's cache" >&2; exit 1; }
TPULINT_FUZZ_CODEC_SEEDS="$out/seeds-result_codec" TPULINT_FUZZ_CACHE_SEEDS="$out/seeds-result_cache" \
  build-asan/fuzz/fuzz_result_cache >/dev/null 2>&1

export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in $targets; do
  echo "fuzz: fuzz_$target for ${seconds}s ($(ls "$out/seeds-$target" | wc -l) seeds)"
  # The fuzzer's status is kept apart from its log's filter: under pipefail a crash made the
  # pipeline fail, `|| true` then ran, and PIPESTATUS was true's.
  status=0
  build-asan/fuzz/fuzz_$target -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 \
    -artifact_prefix="$out/" -print_final_stats=1 "$out/corpus-$target" "$out/seeds-$target" \
    > "$out/log-$target" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|==[0-9]+==ERROR|SUMMARY|.*Test unit written)" \
    "$out/log-$target" || true
  if [ "$status" -ne 0 ]; then
    echo "fuzz: fuzz_$target failed (exit $status); its log: $out/log-$target" >&2
    exit 1
  fi
done
