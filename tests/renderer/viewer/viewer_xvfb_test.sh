#!/usr/bin/env bash
# The viewer in a real window under Xvfb, on the CPU backend: start it, move the selected light
# with keys, take screenshots, save the edited scene, and check that (1) the image changes as the
# light moves and (2) the saved scene renders headless to exactly the viewer's last image.
#
#   viewer_xvfb_test.sh CAUSTICA_BINARY
# Exits 77 (skipped) when Xvfb or xdotool is missing.
set -euo pipefail
caustica=$(realpath "$1")
for tool in Xvfb xdotool; do
  command -v $tool >/dev/null || { echo "$tool not installed: viewer test skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'kill $viewer_pid $xvfb_pid 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
display=:$(( 100 + RANDOM % 800 ))
# -noreset: by default the server resets when its last client leaves (the readiness probe below),
# and a viewer connecting during the reset found no X server.
Xvfb $display -screen 0 640x480x24 -nolisten tcp -noreset >xvfb.log 2>&1 & xvfb_pid=$!
export DISPLAY=$display SDL_VIDEODRIVER=x11
# Generous waits: on a loaded 2-core machine the server and the first frame can take seconds.
for _ in $(seq 200); do xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done

options=(--device cpu --width 160 --height 120 --photons 20000 --seed 7)
"$caustica" view "${options[@]}" --max-samples 1 >viewer.log 2>&1 & viewer_pid=$!
window=""
# The title the viewer sets after its first frame: from then on it reads keys.
for _ in $(seq 600); do
  window=$(xdotool search --name '^caustica - ' 2>/dev/null | head -1 || true)
  [ -n "$window" ] && break
  kill -0 $viewer_pid 2>/dev/null || { echo "FAIL: the viewer exited before its window opened"; cat viewer.log; exit 1; }
  sleep 0.1
done
[ -n "$window" ] || { echo "FAIL: no viewer window after 60 s"; cat viewer.log; exit 1; }

wait_for() { for _ in $(seq 300); do [ -f "$1" ] && return 0; sleep 0.1; done; echo "FAIL: $1 not written"; cat viewer.log; exit 1; }
sleep 1
xdotool key --window "$window" x
wait_for caustica-screenshot-0000.png
xdotool key --window "$window" Tab Up Up Up Right Right Right
sleep 1
xdotool key --window "$window" x
wait_for caustica-screenshot-0001.png
xdotool key --window "$window" s
wait_for ring.edited.yaml
# The viewer may close its window on the key press, before xdotool sends the release, which then
# fails with BadWindow: whether it quit cleanly is what its exit status says.
xdotool key --window "$window" q 2>/dev/null || true
wait $viewer_pid || { echo "FAIL: the viewer exited with an error"; cat viewer.log; exit 1; }

if cmp -s caustica-screenshot-0000.png caustica-screenshot-0001.png; then
  echo "FAIL: moving the light did not change the image"; exit 1
fi
"$caustica" render ring.edited.yaml "${options[@]}" --samples 1 -o reloaded.png 2>/dev/null
if ! cmp -s reloaded.png caustica-screenshot-0001.png; then
  echo "FAIL: the saved scene does not render to the viewer's image"; exit 1
fi
echo "viewer test passed: the light moved the image, and the saved scene reloads to the same image"
