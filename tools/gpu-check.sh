#!/usr/bin/env bash
# On a machine with an NVIDIA H100 or H200: builds with CUDA for sm_90, runs every test (the GPU
# ones included), runs the benchmarks, and writes logs and JSON into OUTDIR with a summary last.
#
#   tools/gpu-check.sh OUTDIR
#
# Dependencies come from the system or from a .deps folder made by ../shared/device/fetch-deps.sh
# (tools/gpu-env.sh). tools/gpu-profile.sh adds the time of every kernel, with Nsight Compute.
set -uo pipefail
out=${1:?usage: tools/gpu-check.sh OUTDIR}
source "$(dirname "$0")/gpu-env.sh"
jobs=$(nproc)
log=$out/gpu-check.log
bench=$out/bench
mkdir -p "$bench"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
run() { echo "+ $*" >>"$log"; "$@" >>"$log" 2>&1; }

note "commit: $CAUSTICA_COMMIT"
note "date: $(date -u +%Y-%m-%dT%H:%MZ)"
note "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo none)"

build=$gpu_build
if ! run gpu_configure; then
  note "configure: FAILED (see gpu-check.log)"; tail -30 "$log"; exit 1
fi
t0=$(date +%s)
if ! run cmake --build $build -j "$jobs"; then
  note "build: FAILED (see gpu-check.log)"; grep -E "error" "$log" | head -30; exit 1
fi
note "build: ok ($(( $(date +%s) - t0 )) s)"

# The GPU tests one at a time (they share the GPU), then the CPU tests in parallel.
ctest --test-dir $build -L gpu --output-on-failure --timeout 300 >"$out/tests-gpu.log" 2>&1; gpu_rc=$?
ctest --test-dir $build -LE gpu -j "$jobs" --output-on-failure --timeout 300 >"$out/tests-cpu.log" 2>&1; cpu_rc=$?
note "cpu tests: $(grep -E 'tests passed' "$out/tests-cpu.log" || echo 'no result') (rc $cpu_rc)"
note "gpu tests: $(grep -E 'tests passed' "$out/tests-gpu.log" || echo 'no result') (rc $gpu_rc)"
grep -E "\(Failed\)|\(Timeout\)|\(SEGFAULT\)|Not Run" "$out/tests-cpu.log" "$out/tests-gpu.log" | head -20 | tee -a "$summary"
skipped=$(grep -c "(Skipped)" "$out/tests-gpu.log" || true)
[ "$skipped" = 0 ] || note "WARNING: $skipped GPU tests skipped on a GPU machine"

# Benchmarks: each writes JSON into bench/ and prints a table into the log.
caustica=$build/renderer/caustica
bench_run() {
  local name=$1; shift
  echo "+ caustica $*" >>"$log"
  if timeout 300 "$caustica" "$@" --json "$bench/$name.json" >>"$log" 2>&1; then note "bench $name: ok"; else note "bench $name: FAILED"; fi
}
if [ -x "$caustica" ]; then
  bench_run kdtree-teapot bench kdtree --scene $models/teapot.obj --device cuda --reference --traversal all
  bench_run kdtree-bunny bench kdtree --scene $models/stanford-bunny.obj --device cuda --reference --traversal all
  bench_run kdtree-200k bench kdtree --triangles 200000 --device cuda --reference --traversal all
  bench_run kdtree-1m bench kdtree --triangles 1000000 --device cuda --traversal all
  bench_run kdtree-10m bench kdtree --triangles 10000000 --device cuda --repeat 5
  # Copies of one box in one place: the same count as kdtree-1m, its build time beside it. Few rays:
  # each that meets the box tests every copy in its leaves (2M rays took more than 300 s).
  bench_run kdtree-1m-coincident bench kdtree --triangles 1000000 --distribution coincident --rays 2000 --device cuda
  bench_run photons-1m-plane bench photons --points 1000000 --distribution plane --queries 2073600 --k 50 --device cuda
  bench_run photons-4m-plane bench photons --points 4000000 --distribution plane --queries 2073600 --k 50 --device cuda
  bench_run photons-1m-uniform bench photons --points 1000000 --distribution uniform --queries 2073600 --k 50 --device cuda
  bench_run photons-1m-clustered bench photons --points 1000000 --distribution clustered --queries 2073600 --k 50 --device cuda
  # Frames of a sequence: each next frame's geometry tree built on a share of the SMs beside the
  # frame's sample (bench frame's default, three tenths of them); the ring's also one frame after
  # another.
  bench_run frame-ring bench frame scenes/ring.yaml --width 1920 --height 1080 --photons 1000000 --k 50 --device cuda
  bench_run frame-ring-in-turn bench frame scenes/ring.yaml --width 1920 --height 1080 --photons 1000000 --k 50 \
    --ahead-sms 0 --device cuda
  bench_run frame-champagne bench frame scenes/champagne.yaml --width 1920 --height 1080 --photons 1000000 --k 40 --device cuda
  bench_run frame-cornell bench frame scenes/cornell-glass.yaml --width 1920 --height 1080 --photons 1000000 --k 50 --device cuda
  # The same frame with one random path a pixel and one shadow ray: what the ray trees and the area
  # light's shadow rays cost.
  bench_run frame-cornell-paths bench frame scenes/cornell-glass.yaml --width 1920 --height 1080 --photons 1000000 --k 50 \
    --specular-splits 0 --shadow-samples 1 --device cuda
  bench_run frame-sky bench frame scenes/sky.yaml --width 1920 --height 1080 --photons 1000000 --k 50 --device cuda
  # Moving geometry: the pool's water is generated anew every frame, orbit.yaml's ball rolls.
  bench_run frame-pool bench frame scenes/pool.yaml --width 1920 --height 1080 --photons 1000000 --k 50 --device cuda
  bench_run frame-orbit bench frame scenes/orbit.yaml --width 1920 --height 1080 --photons 1000000 --k 50 --device cuda
  # Dispersion: photons and eye paths of one wavelength through the flint prism and the diamond.
  bench_run frame-prism bench frame scenes/prism.yaml --width 1920 --height 1080 --photons 1000000 --k 40 --device cuda
  bench_run frame-diamond bench frame scenes/diamond.yaml --width 1920 --height 1080 --photons 1000000 --k 30 --device cuda
  # Colour noise of one-sample frames through dispersive glass (the diamond's "glass" row).
  bench_run quality-diamond bench quality scenes/diamond.yaml --samples 1 --reference-samples 256 --device cuda
  # One-sample frames against a 256-sample reference, at the scene's resolution and photons.
  bench_run quality-cornell bench quality scenes/cornell-glass.yaml --samples 1 --reference-samples 256 --device cuda
  bench_run quality-cornell-paths bench quality scenes/cornell-glass.yaml --samples 1 --reference-samples 256 \
    --specular-splits 0 --device cuda
  bench_run frame-ring-cpu bench frame scenes/ring.yaml --width 640 --height 360 --photons 100000 --k 50 --device cpu --frames 5
  # Several GPUs: the scaling of a 1080p pool sequence and still (docs/benchmarks.md, multi-GPU).
  if [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
    bench_run frame-pool-gpus2 bench frame scenes/pool.yaml --gpus 2 --width 1920 --height 1080 --frames 40 \
      --samples 16 --still-samples 256
  fi
  # A sequence as render writes it: 48 and 192 PNG files of the pool at 1080p, 4 samples each
  # (render's default), the whole command timed (the context and the first frame's allocations
  # included; their difference over 144 is a frame's steady state, docs/benchmarks.md).
  for last in 47 191; do
    seq_dir=$(mktemp -d)
    t0=$(date +%s.%N)
    if timeout 300 "$caustica" render scenes/pool.yaml --frames 0:$last --width 1920 --height 1080 --device cuda \
        -o "$seq_dir/pool_%04d.png" >>"$log" 2>&1; then
      note "render pool sequence: ok, $((last + 1)) frames in $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $t0 }") s"
    else
      note "render pool sequence: FAILED ($((last + 1)) frames)"
    fi
    rm -rf "$seq_dir"
  done
  # A picture of each scene, rendered on the GPU.
  for s in ring.yaml champagne.yaml cornell-glass.yaml pool.yaml orbit.yaml sky.yaml gem.gltf prism.yaml diamond.yaml; do
    timeout 120 "$caustica" render scenes/$s -o "$bench/${s%.*}.png" --frames 0:0 --samples 16 --device cuda >>"$log" 2>&1 \
      && note "render $s: ok" || note "render $s: FAILED"
  done
fi
(cd "$out" && tar czf bench.tar.gz bench && rm -rf bench)

echo
echo "===== summary ====="
cat "$summary"
grep -hE "^(SUMMARY|summary)" "$log" | head -40
[ $cpu_rc = 0 ] && [ $gpu_rc = 0 ]
