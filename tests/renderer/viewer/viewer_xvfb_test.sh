#!/usr/bin/env bash
# The viewer in a real window under Xvfb, on the CPU backend (OpenGL from Mesa): start it, move
# the selected light with keys, take screenshots, save the edited scene, and check that (1) the
# image is the scene's first frame and changes as the light moves, (2) the saved scene renders
# headless to exactly the viewer's last image, (3) the window with its interface, captured before
# and after a resize, has the window's size and is not blank, and (4) on a display without OpenGL
# (GLX) the viewer says so and writes its first frame to a file instead.
#
#   viewer_xvfb_test.sh CAUSTICA_BINARY
# Exits 77 (skipped) when Xvfb or xdotool is missing.
set -euo pipefail
caustica=$(realpath "$1")
for tool in Xvfb xdotool; do
  command -v $tool >/dev/null || { echo "$tool not installed: viewer test skipped"; exit 77; }
done
work=$(mktemp -d)
nogl_pid=""
trap 'kill $viewer_pid $xvfb_pid $nogl_pid 2>/dev/null || true; rm -rf "$work"' EXIT
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
# The window's title: once it is there, the viewer's loop reads keys.
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

# The window itself, interface and help overlay included, before and after a resize.
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }
# The mean of the PNG's pixels in a box at its centre (0 to 255), and how many distinct values all
# its pixels have.
png_stats() {
  python3 -c 'import sys, zlib
d = open(sys.argv[1], "rb").read(); i = 8; data = b""
while i < len(d):
    n = int.from_bytes(d[i:i + 4], "big"); t = d[i + 4:i + 8]
    if t == b"IHDR": w, h, ct = int.from_bytes(d[i + 8:i + 12], "big"), int.from_bytes(d[i + 12:i + 16], "big"), d[i + 17]
    if t == b"IDAT": data += d[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(data); bpp = 4 if ct == 6 else 3; stride = w * bpp; rows = []; prev = bytearray(stride)
for y in range(h):
    f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        line[x] = (line[x] + [0, a, b, (a + b) // 2, a if pa <= pb and pa <= pc else b if pb <= pc else c][f]) & 255
    rows.append(line); prev = line
box = [v for r in rows[h // 2 - 10:h // 2 + 10] for v in r[(w // 2 - 10) * bpp:(w // 2 + 10) * bpp]]
print(sum(box) // len(box), len(set(v for r in rows for v in r)))' "$1"
}
check_window_shot() {
  eval "$(xdotool getwindowgeometry --shell "$window")"
  wait_for "$1"
  sleep 0.5
  [ "$(png_size "$1")" = "${WIDTH}x${HEIGHT}" ] || { echo "FAIL: $1 is $(png_size "$1"), the window ${WIDTH}x${HEIGHT}"; exit 1; }
  read -r centre values < <(png_stats "$1")
  [ "$values" -gt 32 ] || { echo "FAIL: $1 is blank ($values distinct values)"; exit 1; }
}
# The image fills the window's centre (the table inside the ring, brighter than the window's
# background, 20 to 23, where no image is drawn).
xdotool key --window "$window" shift+x
check_window_shot caustica-window-0000.png
[ "$centre" -gt 30 ] || { echo "FAIL: the window's centre does not show the image (mean $centre)"; exit 1; }
# Resized, with the help over the image.
xdotool windowsize "$window" 520 380
sleep 1
xdotool key --window "$window" h shift+x
check_window_shot caustica-window-0001.png
[ "$(png_size caustica-window-0001.png)" = "520x380" ] || { echo "FAIL: the window did not resize"; exit 1; }
# The viewer may close its window on the key press, before xdotool sends the release, which then
# fails with BadWindow: whether it quit cleanly is what its exit status says.
xdotool key --window "$window" q 2>/dev/null || true
wait $viewer_pid || { echo "FAIL: the viewer exited with an error"; cat viewer.log; exit 1; }

"$caustica" render "${options[@]}" --samples 1 -o first.png 2>/dev/null
if ! cmp -s first.png caustica-screenshot-0000.png; then
  echo "FAIL: the viewer's first image is not the scene's first frame"; exit 1
fi
if cmp -s caustica-screenshot-0000.png caustica-screenshot-0001.png; then
  echo "FAIL: moving the light did not change the image"; exit 1
fi
"$caustica" render ring.edited.yaml "${options[@]}" --samples 1 -o reloaded.png 2>/dev/null
if ! cmp -s reloaded.png caustica-screenshot-0001.png; then
  echo "FAIL: the saved scene does not render to the viewer's image"; exit 1
fi
# A display without GLX: no OpenGL context, so no window; the first frame goes to a file.
Xvfb :$(( ${display#:} + 1 )) -screen 0 640x480x24 -nolisten tcp -noreset -extension GLX >xvfb-nogl.log 2>&1 & nogl_pid=$!
for _ in $(seq 200); do DISPLAY=:$(( ${display#:} + 1 )) xdotool getmouselocation >/dev/null 2>&1 && break; sleep 0.1; done
DISPLAY=:$(( ${display#:} + 1 )) timeout 60 "$caustica" view "${options[@]}" --png nogl.png --samples 1 >nogl.log 2>&1 \
  || { echo "FAIL: the viewer failed without OpenGL"; cat nogl.log; exit 1; }
grep -q "no window (no OpenGL context could be made" nogl.log && [ -f nogl.png ] \
  || { echo "FAIL: without OpenGL the viewer did not say so and write the frame"; cat nogl.log; exit 1; }

echo "viewer test passed: the light moved the image, the saved scene reloads to the same image, the window's captures have its size and are not blank, and without OpenGL it says so"
