#!/usr/bin/env bash
# The caustica executable as a shell runs it: exit codes, output targets that must not be
# destroyed (a FIFO, a device node, a symbolic link, a write-protected file, a stale .partial),
# interrupts (SIGINT, SIGTERM), closed pipes, a full standard output and failures known before
# the work. Small renders on the CPU backend.
#
#   cli_process_test.sh CAUSTICA_BINARY SOURCE_DIR
set -uo pipefail
caustica=$(realpath "$1")
source_dir=$(realpath "$2")
work=$(mktemp -d)
trap 'umount "$work/full" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
tiny=(--device cpu --width 32 --height 24 --photons 2000 --samples 1)
orbit=$source_dir/scenes/orbit.yaml
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run EXPECTED_RC DESCRIPTION -- COMMAND...: runs it (stdout and stderr to out.txt) and checks the
# exit code; a minute at most, so that a write blocked on a FIFO fails instead of hanging.
run() {
  local expected=$1 what=$2
  shift 3
  timeout 60 "$@" >out.txt 2>&1
  local rc=$?
  [ "$rc" -eq "$expected" ] || { fail "$what: exit $rc, expected $expected"; sed 's/^/    /' out.txt; }
}
says() { grep -qF -- "$1" out.txt || { fail "the message lacks \"$1\""; sed 's/^/    /' out.txt; }; }
# No hidden temporary file (.NAME.XXXXXXXXXXXX) is left in the folder.
no_temporaries() {
  local left
  left=$(find "$1" -name '.*' ! -name . | head -3)
  [ -z "$left" ] || fail "left behind: $left"
}
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "$1 is not a PNG file"; }

# --- Output targets that are refused before any work, and stay as they were (exit 2). ---
mkfifo fifo
run 2 "a FIFO as -o" -- "$caustica" render "${tiny[@]}" -o fifo
says "-o fifo: is a FIFO (named pipe); only regular files are written"
grep -q rendering out.txt && fail "a FIFO target was refused only after the render started"
[ -p fifo ] || fail "the FIFO was replaced"
run 2 "a FIFO as --json" -- "$caustica" bench frame --device cpu --frames 1 --width 16 --height 12 --json fifo
[ -p fifo ] || fail "the FIFO was replaced by --json"
if mknod null c 1 3 2>/dev/null; then
  run 2 "a device node as -o" -- "$caustica" render "${tiny[@]}" -o null
  says "is a device"
  [ -c null ] || fail "the device node was replaced"
  run 2 "a device node as view --png" -- env -u DISPLAY -u WAYLAND_DISPLAY "$caustica" view "${tiny[@]}" --png null
  [ -c null ] || fail "the device node was replaced by view --png"
else
  echo "SKIP: cannot make a device node here (not root); /dev/null stands in"
fi
run 2 "/dev/null as -o" -- "$caustica" render "${tiny[@]}" -o /dev/null
[ -c /dev/null ] || fail "/dev/null was replaced"
printf 'keep' >ro.png && chmod 444 ro.png
run 2 "a write-protected file as -o" -- "$caustica" render "${tiny[@]}" -o ro.png
says "the file is write-protected (mode 0444)"
[ "$(cat ro.png)" = keep ] || fail "the write-protected file was replaced"
mkdir isdir.png
run 2 "a folder as -o" -- "$caustica" render "${tiny[@]}" -o isdir.png
run 2 "a folder as --json" -- "$caustica" bench frame --device cpu --frames 1 --width 16 --height 12 --json isdir.png
grep -q "fps" out.txt && fail "--json naming a folder was refused only after the benchmark"
run 2 "a name too long" -- "$caustica" render "${tiny[@]}" -o "$(printf 'n%.0s' $(seq 300)).png"
run 2 "an unsupported image type" -- "$caustica" render "${tiny[@]}" -o out.tif
says "unsupported image type \".tif\" (supported: .png, .jpg, .jpeg, .exr)"
run 2 "an empty --png" -- env -u DISPLAY -u WAYLAND_DISPLAY "$caustica" view "${tiny[@]}" --png ""
mkdir later && printf 'x' >later/2
run 2 "a later frame's folder that is a file" -- \
  "$caustica" render "$orbit" "${tiny[@]}" --frames 0:2 -o "later/%d/f.png"
grep -q rendering out.txt && fail "a later frame's folder was refused only after the render started"
[ -e later/0/f.png ] && fail "frame 0 was written although frame 2's folder cannot be made"

# --- Targets that are written: a symbolic link's target, beside a stale .partial. ---
printf 'old' >target.png && ln -s target.png link.png
printf 'stale' >a.png.partial && mkdir b.png.partial
run 0 "a symbolic link as -o" -- "$caustica" render "${tiny[@]}" -o link.png
[ -L link.png ] || fail "the symbolic link was replaced instead of followed"
is_png target.png
run 0 "beside a stale .partial file" -- "$caustica" render "${tiny[@]}" -o a.png
run 0 "beside a stale .partial folder" -- "$caustica" render "${tiny[@]}" -o b.png
is_png a.png && is_png b.png
[ "$(cat a.png.partial)" = stale ] && [ -d b.png.partial ] || fail "an unrelated .partial was touched"
run 0 "a JPEG by its extension" -- "$caustica" render "${tiny[@]}" -o photo.jpeg
[ "$(head -c 3 photo.jpeg | od -An -tx1 | tr -d ' \n')" = ffd8ff ] || fail "-o photo.jpeg is not a JPEG file"
run 0 "missing folders of every frame" -- "$caustica" render "$orbit" "${tiny[@]}" --frames 0:2 -o "seq/%d/f.png"
for f in 0 1 2; do is_png "seq/$f/f.png"; done
no_temporaries .

# --- Arguments. ---
run 2 "an empty scene (an unset variable)" -- "$caustica" render "" "${tiny[@]}" -o empty.png
run 2 "info of an empty scene" -- "$caustica" info ""
run 2 "-o --help" -- "$caustica" render "${tiny[@]}" -o --help
[ -e ./--help ] && fail "a file named --help was written"
run 2 "an unknown --tonemap" -- "$caustica" render "${tiny[@]}" --tonemap aces -o tonemap.png
says "--tonemap expects one of none|filmic|agx, got \"aces\""
run 2 "an empty --tonemap in view" -- env -u DISPLAY -u WAYLAND_DISPLAY "$caustica" view "${tiny[@]}" \
  --tonemap "" --png tonemap.png
printf 'settings:\n  tonemap: aces\n' >bad-tonemap.yaml
run 2 "an unknown settings.tonemap" -- "$caustica" render bad-tonemap.yaml "${tiny[@]}" -o tonemap.png
says "bad-tonemap.yaml:2:12: error: unknown settings tonemap \"aces\" (known: none, filmic, agx)"
printf 'camera: {aperture: -0.5}\n' >bad-aperture.yaml
run 2 "a negative aperture" -- "$caustica" info bad-aperture.yaml
says "bad-aperture.yaml:1:20: error: expected camera aperture in [0, 1e+06], got -0.5"
printf 'camera: {aperture: 0.1, focus_distance: 0}\n' >bad-focus.yaml
run 2 "a focus distance of 0" -- "$caustica" render bad-focus.yaml "${tiny[@]}" -o tonemap.png
says "bad-focus.yaml:1:41: error: camera focus_distance must be positive"
[ -e tonemap.png ] && fail "a render with bad input wrote tonemap.png"
printf 'camera: {aperture: 0.1, focus_distance: 2}\nsettings: {tonemap: agx}\n' >lens.yaml
run 0 "a thin lens and a tone map" -- "$caustica" render lens.yaml "${tiny[@]}" -o lens.png
is_png lens.png
run 0 "-o=--name.png on purpose" -- "$caustica" render "${tiny[@]}" -o=--name.png
is_png ./--name.png

# --- Interrupts: no temporary file is left, and the exit code says which signal. ---
for signal in INT TERM; do
  mkdir "stop-$signal"
  "$caustica" render "$orbit" "${tiny[@]}" --frames 0:100000 -o "stop-$signal/f_%06d.png" 2>/dev/null &
  pid=$!
  for _ in $(seq 600); do [ -e "stop-$signal/f_000003.png" ] && break; sleep 0.05; done
  kill -$signal $pid
  wait $pid
  rc=$?
  expected=$([ $signal = INT ] && echo 130 || echo 143)
  [ $rc -eq "$expected" ] || fail "SIG$signal: exit $rc, expected $expected"
  no_temporaries "stop-$signal"
  for png in "stop-$signal"/*.png; do is_png "$png"; done
done

# --- Standard streams. ---
# A closed pipe on stderr does not stop the render; the files are all written.
mkdir piped
timeout 120 "$caustica" render "$orbit" "${tiny[@]}" --frames 0:40 -o piped/f_%02d.png 2>&1 | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
[ "$rc" -eq 0 ] || fail "render into a closed pipe: exit $rc, expected 0"
[ "$(ls piped | wc -l)" -eq 41 ] || fail "render into a closed pipe wrote $(ls piped | wc -l) of 41 files"
# Output that cannot be written is a failure.
timeout 60 "$caustica" info "$orbit" >/dev/full 2>err.txt
rc=$?
[ $rc -eq 1 ] || fail "info > /dev/full: exit $rc, expected 1"
grep -qF "cannot write to standard output: No space left on device" err.txt || fail "info > /dev/full: $(cat err.txt)"
# A file-size limit stands in for a full disk: the JSON is not written, nor anything beside it.
mkdir json
# (The messages pass through a pipe: the limit would stop their writes into a file too.)
(ulimit -f 0; exec timeout 60 "$caustica" bench frame --device cpu --frames 1 --width 16 --height 12 \
  --photons 1000 --json json/r.json) 2>&1 | cat >out.txt
rc=${PIPESTATUS[0]}
[ $rc -eq 1 ] || { fail "--json over the file-size limit: exit $rc, expected 1"; cat out.txt; }
says "--json json/r.json: write failed: File too large"
[ -z "$(ls -A json)" ] || fail "--json over the file-size limit left: $(ls -A json)"

# A full disk, where a small tmpfs may be mounted (root in a container that allows it).
mkdir full
if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
  dd if=/dev/zero of=full/filler bs=4k 2>/dev/null
  run 1 "--json on a full disk" -- "$caustica" bench frame --device cpu --frames 1 --width 16 --height 12 \
    --photons 1000 --json full/r.json
  says "--json full/r.json: "
  says "No space left on device"
  [ "$(ls -A full)" = filler ] || fail "--json on a full disk left: $(ls -A full)"
  umount full
else
  echo "SKIP: cannot mount a tmpfs here; the file-size limit above stands in for a full disk"
fi

# --- Messages of the command. ---
# Memory that runs out (here under an address-space limit) is a message, not a bare bad_alloc.
(ulimit -v 8000000; exec timeout 60 "$caustica" bench photons --device cpu --points 2147483647 --queries 10 \
  --repeat 1) >out.txt 2>&1
rc=$?
[ $rc -eq 1 ] || fail "bench photons --points 2147483647: exit $rc, expected 1"
says "caustica: error: out of memory (a memory allocation failed; try a smaller size)"
printf 'lights: []\n' >no-objects.yaml
run 2 "bench kdtree over a scene without objects" -- "$caustica" bench kdtree --device cpu --scene no-objects.yaml
says "no-objects.yaml: error: the scene has no objects"

# --- Version, devices, EXR, the plan. ---
run 0 "--version" -- "$caustica" --version
grep -qE '^caustica [0-9]+\.[0-9]+ \(commit [0-9a-z]+(-dirty)?\)$' out.txt || fail "--version printed: $(cat out.txt)"
run 2 "--gpus with --device cpu" -- "$caustica" render "${tiny[@]}" --gpus 2 -o gpus.png
says "--gpus 2: chooses CUDA devices; it cannot be used with --device cpu"
run 0 "an EXR file" -- "$caustica" render "${tiny[@]}" -o linear.exr
[ "$(head -c 4 linear.exr | od -An -tx1 | tr -d ' \n')" = 762f3101 ] || fail "-o linear.exr is not an OpenEXR file"
run 0 "--dry-run" -- "$caustica" render "$orbit" "${tiny[@]}" --frames 0:3 -o "plan/f_%d.png" --resume --dry-run
python3 -c 'import json,sys; p=json.load(open("out.txt")); assert [f["frame"] for f in p["render"]] == [0,1,2,3], p' \
  || fail "--dry-run printed no plan: $(cat out.txt)"
[ -z "$(ls -A plan)" ] || fail "--dry-run wrote $(ls -A plan)"
run 0 "an empty shard" -- "$caustica" render "$orbit" "${tiny[@]}" --frames 0:1 --shard 0/3 -o "shard/f_%d.png"
says "shard 0/3 of frames 0:1 has no frames; nothing to render"

if [ $failures -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all command-line process checks passed"
