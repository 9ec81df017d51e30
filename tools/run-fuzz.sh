#!/usr/bin/env bash
# Fuzzes for SECONDS seconds in all, half each:
# - the scene parser and the OBJ, MTL and image paths with libFuzzer (tests/fuzz/scene_fuzzer.cpp;
#   its seeds in tests/fuzz/seeds cover each class of bad input the loader must locate: deep
#   nesting, NUL bytes, second documents, quoted numbers, index overflow, degenerate meshes, bad
#   and oversized textures, cameras through their look_at or along their up);
# - the command line with tools/fuzz-cli.sh: hostile options, scenes and output targets, and
#   interrupts, against the caustica executable.
# Both run built with clang's address and undefined-behaviour sanitizers. Fails on any crash,
# sanitizer report, leak, timeout or broken rule; what caused it is kept in BUILD/fuzz-artifacts/.
#   tools/run-fuzz.sh SECONDS        (build folder: build-fuzz, or $CAUSTICA_FUZZ_BUILD)
set -euo pipefail

if [[ $# -ne 1 || ! $1 =~ ^[0-9]+$ ]]; then
  echo "usage: tools/run-fuzz.sh SECONDS" >&2
  exit 2
fi
seconds=$1
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CAUSTICA_FUZZ_BUILD:-$root/build-fuzz}

mkdir -p "$build"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCAUSTICA_CUDA=OFF -DCAUSTICA_WINDOW=OFF -DCAUSTICA_FUZZ=ON > "$build/configure.log" 2>&1 ||
  { cat "$build/configure.log" >&2; exit 1; }
ninja -C "$build" -j "${CAUSTICA_FUZZ_JOBS:-2}" scene_fuzzer caustica

# The corpus grows in a temporary folder, seeded with the shipped scenes and the seeds.
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
cp "$root"/scenes/*.yaml "$root"/tests/fuzz/seeds/* "$corpus"/
mkdir -p "$build/fuzz-artifacts"

half=$(( (seconds + 1) / 2 ))
echo "fuzzing the scene parser and the OBJ, MTL and image paths for $half s"
"$build/tests/fuzz/scene_fuzzer" "$corpus" \
  -max_total_time="$half" -max_len=65536 -timeout=20 -rss_limit_mb=2560 \
  -artifact_prefix="$build/fuzz-artifacts/" -print_final_stats=1
"$root/tools/fuzz-cli.sh" "$build/renderer/caustica" $(( seconds - half )) "$build/fuzz-artifacts"
echo "no findings in $seconds s"
