#!/usr/bin/env bash
# On a GPU machine: the GPU's timeline of 1080p frames of four scenes (CUPTI, through
# tools/timeline/cupti_timeline.cpp), and per frame the GPU's idle time, the kernel transitions it
# falls between, each kernel's time and the fifth frame's kernels in order (tools/gpu-timeline.py)
# into OUTDIR/*.txt; the raw timelines in OUTDIR/raw.tar.gz. Builds as tools/gpu-check.sh does, or
# reuses its build.
#
#   tools/gpu-timeline.sh OUTDIR
set -euo pipefail
out=${1:?usage: tools/gpu-timeline.sh OUTDIR}
source "$(dirname "$0")/gpu-env.sh"
echo "building $gpu_build (log: $out/build.log)"
{ gpu_configure && cmake --build "$gpu_build" -j "$(nproc)" --target caustica caustica_timeline; } >"$out/build.log" 2>&1 \
  || { echo "tools/gpu-timeline.sh: build failed (no CUPTI in the CUDA toolkit?), see $out/build.log" >&2; exit 1; }
caustica=$gpu_build/renderer/caustica
library=$PWD/$gpu_build/tools/timeline/libcaustica_timeline.so

timeline() {
  local name=$1; shift
  echo "== $name: caustica $*"
  CUDA_INJECTION64_PATH=$library CAUSTICA_TIMELINE_OUT=$out/$name.tsv "$caustica" "$@" >"$out/$name.log" 2>&1 \
    || { echo "caustica failed, see $out/$name.log" >&2; tail -n 20 "$out/$name.log" >&2; return 1; }
  python3 tools/gpu-timeline.py "$out/$name.tsv" --kernels 25 --frame 5 | tee "$out/$name.txt"
}
frame=(--width 1920 --height 1080 --photons 1000000 --device cuda --frames 20)
timeline frame-ring bench frame scenes/ring.yaml "${frame[@]}" --k 50
timeline frame-champagne bench frame scenes/champagne.yaml "${frame[@]}" --k 40
timeline frame-cornell bench frame scenes/cornell-glass.yaml "${frame[@]}" --k 50
timeline frame-pool bench frame scenes/pool.yaml "${frame[@]}" --k 50
(cd "$out" && tar czf raw.tar.gz -- *.tsv *.log && rm -f -- *.tsv *.log)
