#!/usr/bin/env bash
# Error against samples and against seconds, progressive radii against fixed k, on every shipped
# scene: for each, a reference of REF samples with progressive radii (the estimator that converges
# to the true image; no path tracer can reach a point light's caustics), then `bench quality
# --samples-series` with --progressive on and off against it, then one plot of all runs.
#   tools/error-series.sh CAUSTICA OUT SIZE REF SERIES [PLOT.svg] [-- extra options]
# e.g. tools/error-series.sh build-cpu/renderer/caustica out/series 64 256 1,2,4,8,16,32,64 \
#        docs/images/error-series-cpu.svg
# Writes OUT/SCENE-ref.exr, OUT/SCENE-progressive.json and OUT/SCENE-fixed.json; files already in OUT
# are kept (a run that stopped goes on where it stopped).
set -euo pipefail

if [[ $# -lt 5 ]]; then
  echo "usage: tools/error-series.sh CAUSTICA OUT SIZE REF SERIES [PLOT.svg] [-- options]" >&2
  exit 2
fi
caustica=$1 out=$2 size=$3 ref=$4 series=$5
plot=${6:-$out/error-series.svg}
shift $(( $# < 6 ? $# : 6 ))
[[ ${1:-} == -- ]] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
labels=()
for scene in "$root"/scenes/*.yaml "$root"/scenes/*.gltf; do
  name=$(basename "${scene%.*}")
  common=(--width "$size" --height "$size" "$@")
  # Frame 0 of animated scenes (bench quality measures time 0).
  [[ -e $out/$name-ref.exr ]] ||
    "$caustica" render "$scene" -o "$out/$name-ref.exr" --frames 0:0 --samples "$ref" --progressive on \
      "${common[@]}" >/dev/null
  for mode in progressive fixed; do
    [[ $mode == progressive ]] && flag=on || flag=off
    labels+=("$name $mode=$out/$name-$mode.json")
    [[ -e $out/$name-$mode.json ]] && continue  # from an earlier run into OUT
    "$caustica" bench quality "$scene" --reference "$out/$name-ref.exr" --samples-series "$series" --frames 1 \
      --progressive "$flag" --json "$out/$name-$mode.json" "${common[@]}" | grep -A 20 '^ *samples'
  done
done
python3 "$root/tools/plot-error-series.py" "$plot" "${labels[@]}"
echo "wrote $plot"
