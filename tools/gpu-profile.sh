#!/usr/bin/env bash
# On a GPU machine with Nsight Compute (ncu): the time of every kernel in the 1M-photon plane
# benchmark (a 1080p frame of queries, k = 50) and in ring frames at 1080p, summed per kernel by
# tools/ncu-summary.py into OUTDIR/*.txt (the raw CSV and logs in OUTDIR/raw.tar.gz). Builds as
# tools/gpu-check.sh does, or reuses its build. Each benchmark stage runs twice (a warm-up and one
# timed run), and the photon benchmark's KNN kernels serve both query orders, so divide by launches
# where it matters.
#
#   tools/gpu-profile.sh OUTDIR
set -euo pipefail
out=${1:?usage: tools/gpu-profile.sh OUTDIR}
source "$(dirname "$0")/gpu-env.sh"
command -v ncu >/dev/null || { echo "tools/gpu-profile.sh: ncu (Nsight Compute) is not on the PATH" >&2; exit 2; }
caustica=$gpu_build/renderer/caustica
if [ ! -x "$caustica" ]; then
  echo "building $gpu_build (log: $out/build.log)"
  { gpu_configure && cmake --build "$gpu_build" -j "$(nproc)" --target caustica; } >"$out/build.log" 2>&1 \
    || { echo "tools/gpu-profile.sh: build failed, see $out/build.log" >&2; exit 1; }
fi

profile() {
  local name=$1; shift
  echo "== $name: caustica $*"
  # --clock-control none: the clocks the benchmarks run at, not ncu's locked base clocks.
  ncu --clock-control none --metrics gpu__time_duration.sum --csv "$caustica" "$@" >"$out/$name.csv" 2>"$out/$name.log" \
    || { echo "ncu failed, see $out/$name.log" >&2; tail -n 20 "$out/$name.log" >&2; return 1; }
  python3 tools/ncu-summary.py "$out/$name.csv" | tee "$out/$name.txt"
}
profile photons bench photons --points 1000000 --distribution plane --queries 2073600 --k 50 --device cuda --repeat 1 \
  --check 0
# One frame after another: with frames built ahead on SM shares, ncu did not finish a champagne
# frame in 200 s and exited with 9 after a Cornell box frame's tree kernels (run 287).
profile frame-ring bench frame scenes/ring.yaml --width 1920 --height 1080 --photons 1000000 --k 50 --device cuda --frames 2 \
  --ahead-sms 0
# The raw CSV and ncu's logs in one archive: the summaries stay readable beside it.
(cd "$out" && tar czf raw.tar.gz -- *.csv *.log && rm -f -- *.csv *.log)
