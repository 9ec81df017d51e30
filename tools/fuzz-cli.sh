#!/usr/bin/env bash
# Hostile command lines against the caustica executable for SECONDS seconds: random commands and
# options (empty, starting with --, out of range, garbage), scenes that are not scenes (a FIFO, a
# device, a folder, a symbolic link loop, mangled YAML), degenerate geometry and cameras that must
# not stall (degenerate_scene) and output targets that must not be
# destroyed (a FIFO, a device node, symbolic links, a write-protected file, a folder, a stale
# .partial); some runs are interrupted by SIGINT or SIGTERM. After every run it checks:
#   - the exit code is 0, 1 or 2 (130 or 143 after an interrupt): no crash, no hang, no sanitizer
#     report, and a failure says why on stderr;
#   - the targets that must not be written are as they were, and no file named --help appeared;
#   - bad input (exit 2) wrote no file;
#   - every file written is whole (a PNG ends with its IEND chunk, a JPEG with FFD9, JSON with
#     "}" and a newline) and no temporary file is left.
# A finding is kept in OUT/cli-finding-N (the command, its output and the folder it ran in).
#   tools/fuzz-cli.sh CAUSTICA SECONDS OUT [SEED]
set -uo pipefail

if [[ $# -lt 3 || ! $2 =~ ^[0-9]+$ ]]; then
  echo "usage: tools/fuzz-cli.sh CAUSTICA SECONDS OUT [SEED]" >&2
  exit 2
fi
caustica=$(realpath "$1")
seconds=$2
out=$(realpath -m "$3")
seed=${4:-$(( $(date +%s) % 32768 ))}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
RANDOM=$seed
export ASAN_OPTIONS=exitcode=86 UBSAN_OPTIONS=exitcode=87:print_stacktrace=1 LSAN_OPTIONS=exitcode=88
unset DISPLAY WAYLAND_DISPLAY  # view renders to its --png file, never to a window
is_root=$([ "$(id -u)" -eq 0 ] && echo 1 || echo 0)

pick() { local a=("$@"); printf '%s' "${a[RANDOM % ${#a[@]}]}"; }
chance() { [ $((RANDOM % 100)) -lt "$1" ]; }

# The folder each run starts in: the targets that must survive, and scenes that are not scenes.
make_folder() {
  local w=$1
  mkdir -p "$w" && cd "$w" || exit 1
  printf 'keep' >ro.png && chmod 444 ro.png
  mkfifo fifo.png
  [ "$is_root" = 1 ] && mknod dev.png c 1 3
  printf 'old' >real.png && ln -s real.png link.png
  ln -s loopB.png loopA.png && ln -s loopA.png loopB.png
  ln -s gone/made.png dangling.png
  mkdir dir.png
  printf 'stale' >stale.png.partial && mkdir other.png.partial
  printf 'x' >file
  degenerate_scene
  # The orbit scene's animation at 3 frames a second: 25 frames where its own 30 give 241, which the
  # sanitized build renders in 60-75 s at the fuzzer's sizes (a render without --frames takes them
  # all), longer than the 60 s that tell a stall, without one.
  sed 's/^  frame_rate: 30$/  frame_rate: 3/' "$root/scenes/orbit.yaml" >orbit.yaml
  grep -q '^  frame_rate: 3$' orbit.yaml ||
    { echo "fuzz-cli: scenes/orbit.yaml has no frame_rate: 30 to shorten" >&2; exit 1; }
  # A shipped scene or seed, cut short or with a byte changed.
  local sources=("$root"/scenes/*.yaml "$root"/tests/fuzz/seeds/*)
  local source=${sources[RANDOM % ${#sources[@]}]}
  local size; size=$(stat -c %s "$source")
  if chance 50; then
    head -c $(( RANDOM * 7 % (size + 1) )) "$source" >bad.yaml
  else
    cp "$source" bad.yaml
    printf '%b' "$(pick '\x00' '\x7f' '[' '"' ':' '\t' '&a' '*a' '---\n' '\xff')" |
      dd of=bad.yaml bs=1 seek=$(( RANDOM * 7 % (size + 1) )) conv=notrunc 2>/dev/null
  fi
}

# degenerate.yaml: geometry and cameras that once stalled a render or gave black frames: copies of
# one box in one place (a YAML alias), an OBJ of one triangle repeated, long triangles filling a
# cube, boxes stacked in a column, an animated camera through its look_at or along its up.
degenerate_scene() {
  local n=$(( (RANDOM % 4 + 1) * 500 ))
  case $(pick alias repeated long column camera) in
    alias)
      printf 'objects:
  - &b {shape: {type: box, size: [1, 1, 1]}}
' >degenerate.yaml
      for ((i = 0; i < n; ++i)); do printf '  - *b
'; done >>degenerate.yaml ;;
    repeated)
      printf 'v 0 0 0
v 1 0 0
v 0 1 0
' >one.obj
      awk -v n=$((n * 40)) 'BEGIN { for (i = 0; i < n; ++i) print "f 1 2 3" }' >>one.obj
      printf 'objects:
  - {mesh: one.obj}
' >degenerate.yaml ;;
    long)
      awk -v n=$((n * 10)) -v s=$RANDOM 'BEGIN { srand(s); for (i = 0; i < 3 * n; ++i) print "v", rand(), rand(), rand();
        for (i = 0; i < n; ++i) print "f", 3 * i + 1, 3 * i + 2, 3 * i + 3 }' >long.obj
      printf 'objects:
  - {mesh: long.obj}
' >degenerate.yaml ;;
    column)
      printf 'objects:
' >degenerate.yaml
      for ((i = 0; i < n; ++i)); do
        printf '  - {shape: {type: box, size: [1, 1, 1]}, transform: {translate: [0, %d, 0]}}
' "$i"
      done >>degenerate.yaml ;;
    camera)
      printf 'camera:
  animation:
    - {time: 0, position: [0, 2, 0], look_at: [%s]}
' "$(pick '0, 0, 0' '0, 4, 0')"         >degenerate.yaml
      printf '    - {time: 2, position: [0, 6, 0], look_at: [%s]}
' "$(pick '0, 4, 0' '0, 0, 0' '1, 4, 0')"         >>degenerate.yaml
      printf 'objects: [{shape: {type: sphere}}]
lights: [{type: point, position: [1, 3, 1]}]
' >>degenerate.yaml ;;
  esac
}

# What must not change: kinds, modes and contents of the protected targets.
protected_state() {
  stat -c '%n %F %a' ro.png fifo.png link.png loopA.png loopB.png dangling.png dir.png stale.png.partial \
    other.png.partial file 2>&1
  [ -e dev.png ] && stat -c '%n %F %t %T' dev.png
  cat ro.png stale.png.partial
}
regular_files() { find . -type f -printf '%p\t%s %T@\n' | sort; }

number() { pick 16 24 1 "" -1 0x10 1e3 2147483648 16385 abc --5 " 8"; }
size_option() { pick "--$1" "--$1" "--$1" "--$1="; }
scene() { pick "$root/scenes/ring.yaml" orbit.yaml "$root/scenes/ring.yaml" bad.yaml bad.yaml "" \
  degenerate.yaml degenerate.yaml fifo.png dir.png loopA.png /dev/zero missing.yaml /proc/self/status; }
target() {
  pick out.png out.jpg out.JPEG out.exr out.tif noext f_%03d.png "sub/%d/f.png" "new/dir/o.jpg" ro.png fifo.png dev.png \
    link.png loopA.png dangling.png dir.png "dir.png/" stale.png file/x.png "" --help /dev/null /dev/full \
    "$(printf 'n%.0s' $(seq 300)).png" "%d%d.png" "50%%.png" "a b.png" "été.png"
}

# Appends an option and its value to args, as two words or as --name=value.
add() {
  if [[ $2 == --* ]] || chance 80; then args+=("$1" "$2"); else args+=("$1=$2"); fi
}

command_line() {
  args=()
  local kind; kind=$(pick render render render view bench-frame bench-kdtree bench-photons info)
  case $kind in
    render)
      args=(render)
      chance 95 && args+=("$(scene)")
      chance 95 && add -o "$(target)"
      chance 60 && add --frames "$(pick 0:0 0:2 1:1 2:1 "" a:b 0 -1:2 0:2147483648)"
      chance 20 && args+=(--resume) ;;
    view)
      args=(view)
      chance 95 && args+=("$(scene)")
      add --png "$(target)" ;;
    bench-frame)
      args=(bench frame)
      chance 95 && args+=("$(scene)")
      add --frames "$(pick 1 2 0 100001 "")"
      chance 90 && add --json "$(target)" ;;
    bench-kdtree)
      args=(bench kdtree --repeat 1)
      add --rays "$(pick 1000 0 -1)"
      if chance 50; then add --triangles "$(pick 200 0 -5 "")"; else add --scene "$(scene)"; fi
      chance 90 && add --json "$(target)" ;;
    bench-photons)
      args=(bench photons --repeat 1 --check 5)
      add --points "$(pick 1000 0 -1 "")"
      add --queries "$(pick 500 0 "")"
      chance 90 && add --json "$(target)" ;;
    info)
      args=(info)
      chance 95 && args+=("$(scene)") ;;
  esac
  if [[ $kind == render || $kind == view || $kind == bench-frame ]]; then
    # A size is always given, valid ones small: a scene's own resolution would take long on a CPU.
    add "$(size_option width)" "$(pick 16 24 16 24 "$(number)")"
    add "$(size_option height)" "$(pick 12 18 12 18 "$(number)")"
    add --photons "$(pick 500 2000 2000 "$(number)" 100000001)"
    chance 30 && add --samples "$(pick 1 2 0 65537 "")"
    chance 20 && add --seed "$(pick 3 -1 2147483648)"
    chance 20 && add --exposure "$(pick 2 0 1e-7 nan inf -1)"
    chance 10 && add --knn "$(pick exact histogram bogus "")"
  fi
  [[ $kind == info ]] || add --device cpu
  chance 5 && args+=(--bogus)
}

# Whether a scanline OpenEXR file (renderer/output/exr.cpp) is whole: its last chunk, found through
# the offset table after the header, ends where the file ends.
exr_whole() {
  python3 - "$1" <<'PY'
import struct, sys
try:
    data = open(sys.argv[1], "rb").read()
    attributes, p = {}, 8
    while data[p] != 0:  # name, type, size, value until an empty name
        name_end = data.index(b"\0", p)
        type_end = data.index(b"\0", name_end + 1)
        size = struct.unpack_from("<i", data, type_end + 1)[0]
        attributes[data[p:name_end]] = data[type_end + 5:type_end + 5 + size]
        p = type_end + 5 + size
    y_min, y_max = struct.unpack_from("<4i", attributes[b"dataWindow"])[1::2]
    lines = {0: 1, 1: 1, 2: 1, 3: 16, 4: 32, 5: 16, 6: 32, 7: 32, 8: 32, 9: 256}[attributes[b"compression"][0]]
    chunks = (y_max - y_min + lines) // lines
    last = max(struct.unpack_from("<%dQ" % chunks, data, p + 1))
    sys.exit(0 if last + 8 + struct.unpack_from("<i", data, last + 4)[0] == len(data) else 1)
except Exception:
    sys.exit(1)
PY
}

# Whether a written file is whole: a PNG, a JPEG, an OpenEXR image or a JSON document (--json names
# any file) that ends as its kind ends.
whole() {
  local start; start=$(head -c 4 "$1" | od -An -tx1 | tr -d ' \n')
  case $start in
    89504e47) [ "$(tail -c 8 "$1" | head -c 4)" = IEND ] ;;
    ffd8ff*) [ "$(tail -c 2 "$1" | od -An -tx1 | tr -d ' \n')" = ffd9 ] ;;
    762f3101) exr_whole "$1" ;;
    7b*) [ "$(tail -c 2 "$1")" = "}" ] ;;  # "}\n": $( ) drops the newline
    *) return 1 ;;
  esac
}

findings=0
runs=0
work=$(mktemp -d)
# Only this shell cleans up: a background run signalled between its fork and its exec is still a
# copy of this shell, and would run the trap and take the folder away from under the loop.
trap '[ "$BASHPID" = "$$" ] && { chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"; }' EXIT
echo "fuzzing the command line for $seconds s (seed $seed)"
end=$(( $(date +%s) + seconds ))
while [ "$(date +%s)" -lt "$end" ]; do
  runs=$((runs + 1))
  w=$work/run
  chmod -R u+w "$w" 2>/dev/null; rm -rf "$w"
  make_folder "$w"
  command_line
  before_protected=$(protected_state)
  before_files=$(regular_files)
  interrupted=""
  if chance 25; then
    timeout 60 "$caustica" "${args[@]}" >"$work/stdout" 2>"$work/stderr" </dev/null &
    pid=$!
    sleep "0.$(( RANDOM % 8 ))$(( RANDOM % 10 ))"
    interrupted=$(pick INT TERM)
    # timeout passes the signal on to caustica and exits with its status.
    kill -"$interrupted" $pid 2>/dev/null
    wait $pid
    rc=$?
  else
    timeout 60 "$caustica" "${args[@]}" >"$work/stdout" 2>"$work/stderr" </dev/null
    rc=$?
  fi

  problems=()
  case $rc in
    0 | 1 | 2) ;;
    130 | 143) [ -n "$interrupted" ] || problems+=("exit $rc without an interrupt") ;;
    124) problems+=("no result within 60 s") ;;
    *) problems+=("exit $rc (a crash or a sanitizer's report)") ;;
  esac
  if [[ $rc == 1 || $rc == 2 ]] && [ ! -s "$work/stderr" ]; then problems+=("exit $rc with nothing on stderr"); fi
  [ "$(protected_state)" = "$before_protected" ] || problems+=("a protected target changed")
  for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
    [[ ${args[i]} == -o || ${args[i]} == --png || ${args[i]} == --json ]] && [[ ${args[i + 1]} == --help ]] &&
      [ -e ./--help ] && problems+=("a file named --help was written")
  done
  temporaries=$(find . -name '.*' ! -name . | head -3)
  [ -z "$temporaries" ] || problems+=("temporary files left: $temporaries")
  after_files=$(regular_files)
  changed=$(comm -13 <(printf '%s\n' "$before_files") <(printf '%s\n' "$after_files") | cut -f1)
  [[ $rc == 2 && -n $changed ]] && problems+=("bad input (exit 2) wrote: $(echo $changed)")
  while IFS= read -r file; do
    [ -z "$file" ] || whole "$file" || problems+=("$file is not whole")
  done <<<"$changed"

  if [ ${#problems[@]} -gt 0 ]; then
    findings=$((findings + 1))
    keep=$out/cli-finding-$findings
    rm -rf "$keep" && mkdir -p "$keep"
    cp -a "$w" "$keep/folder" 2>/dev/null
    cp "$work/stdout" "$work/stderr" "$keep/"
    { printf 'caustica'; printf ' %q' "${args[@]}"; echo; [ -n "$interrupted" ] && echo "interrupted by SIG$interrupted"; } \
      >"$keep/command"
    echo "FINDING $findings (run $runs):"
    sed 's/^/  /' "$keep/command"
    printf '  %s\n' "${problems[@]}"
    tail -5 "$work/stderr" | sed 's/^/  stderr: /'
  fi
  cd "$work" || exit 1
done
echo "$runs command lines, $findings finding(s)"
[ $findings -eq 0 ]
