#!/usr/bin/env bash
# Renders the pictures of docs/scenes.md from the scenes beside this script (on the CPU, so that
# any machine can redo them):  docs/images/scenes/render.sh build/renderer/caustica
set -euo pipefail
caustica=$(realpath "$1")
cd "$(dirname "$0")"
render() { "$caustica" render "$1" -o "$2" --device cpu --samples 16 --photons 200000 --seed 1 "${@:3}" >/dev/null; }
for scene in materials light-point light-spot light-directional shapes mtl depth-of-field; do
  render $scene.yaml $scene.png --frames 0:0
done
for t in 0 2 4; do
  render animation.yaml animation-$t.png --frames $((t * 30)):$((t * 30))
done
render ../../../scenes/gem.gltf gltf.png --frames 0:0 --width 240 --height 160
for t in none filmic agx; do
  render ../../../scenes/pool.yaml tonemap-$t.png --frames 0:0 --width 240 --exposure 4 --tonemap $t
done
render ../../../scenes/prism.yaml dispersion-prism.png --frames 0:0 --width 320 --height 180
render ../../../scenes/diamond.yaml dispersion-diamond.png --frames 0:0 --width 240 --height 180
ls -l ./*.png
