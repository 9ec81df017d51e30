#!/usr/bin/env python3
"""Where in a frame the GPU waits: reads the timeline that tools/timeline/cupti_timeline.cpp wrote
for a run of `caustica bench frame` and prints, per frame (the medians over the run's frames), the
wall time, the time the GPU ran anything, its idle time, how much of that followed a host wait (a
synchronising CUDA call that returned inside the gap), and the transitions between kernels whose
gaps add up to the most idle time. A frame runs from the end of one composite kernel to the end of
the next. With --kernels, also the GPU time of each kernel a frame (what the frame's work is); with
--frame, one frame's kernels in the order they started (what its chains waited for).

    tools/gpu-timeline.py TIMELINE_TSV [--top N] [--frame-end KERNEL] [--kernels N]
                          [--frame I [--min-us US]]
"""
import argparse
import bisect
import collections
import csv
import importlib.util
import os
import re
import statistics
import sys

# Kernel names are shortened as tools/ncu-summary.py does.
_spec = importlib.util.spec_from_file_location("ncu_summary", os.path.join(os.path.dirname(__file__), "ncu-summary.py"))
_ncu_summary = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ncu_summary)
short_name = _ncu_summary.short_name

# CUDA runtime calls after which the host has waited for the GPU.
HOST_WAITS = ("cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
              "cudaMemcpy2D", "cudaMemset", "cudaStreamQuery")
GAP_CLASSES = ((5e3, "< 5 us"), (20e3, "5-20 us"), (100e3, "20-100 us"), (float("inf"), ">= 100 us"))


def api_name(name):
    """The runtime call's name without its version and stream suffixes: cudaMemcpy_ptds_v7000 and
    cudaMemcpy_v3020 -> cudaMemcpy"""
    return re.sub(r"(_ptsz|_ptds)?(_v\d+)?$", "", name)


def read(path):
    """(GPU activities as (start, end, stream, name), host waits' end times) sorted by start."""
    gpu, waits = [], []
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    for line, row in enumerate(rows, start=2):
        try:
            start, end = int(row["start_ns"]), int(row["end_ns"])
        except (KeyError, TypeError, ValueError):
            sys.exit(f"{path}:{line}: expected kind, start_ns, end_ns, stream and name separated by tabs")
        if row["kind"] == "api":
            if api_name(row["name"]) in HOST_WAITS:
                waits.append(end)
        else:
            # Copies by direction (HtoD, DtoH, DtoD), fills as such.
            name = short_name(row["name"]) if row["kind"] == "kernel" else f"{row['kind']} {row['name'].split(' ')[0]}"
            gpu.append((start, end, row["stream"], name))
    gpu.sort()
    waits.sort()
    return gpu, waits


def busy_intervals(activities, lo, hi):
    """The union of the activities' intervals clipped to [lo, hi], each with the name of the
    activity that started it and of the one that ended it last."""
    merged = []
    for start, end, _, name in activities:
        start, end = max(start, lo), min(end, hi)
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            if end > merged[-1][1]:
                merged[-1][1], merged[-1][3] = end, name
        else:
            merged.append([start, end, name, name])
    return merged


def overlap_ns(activities, lo, hi):
    """Time in [lo, hi] during which at least two activities ran at once."""
    events = []
    for start, end, _, _ in activities:
        start, end = max(start, lo), min(end, hi)
        if end > start:
            events += [(start, 1), (end, -1)]
    events.sort()
    running, since, total = 0, lo, 0
    for t, step in events:
        if running >= 2:
            total += t - since
        running += step
        since = t
    return total


def kernel_times(frames):
    """Per kernel (or copy, fill): the medians over the frames of its time in the frame, summed over
    its launches (clipped to the frame), and of its launches; the largest time first."""
    totals = [collections.Counter() for _ in frames]
    launches = [collections.Counter() for _ in frames]
    for (lo, hi, activities), total, count in zip(frames, totals, launches):
        for start, end, _, name in activities:
            start, end = max(start, lo), min(end, hi)
            if end > start:
                total[name] += end - start
                count[name] += 1
    names = set().union(*totals) if totals else set()
    rows = [(statistics.median(t[n] for t in totals), statistics.median(c[n] for c in launches), n) for n in names]
    return sorted(rows, key=lambda row: (-row[0], row[2]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timeline")
    parser.add_argument("--top", type=int, default=15, help="transitions to list (default 15)")
    parser.add_argument("--frame-end", default="CompositeSamplePass",
                        help="the kernel that ends a frame (default CompositeSamplePass)")
    parser.add_argument("--kernels", type=int, default=0, help="kernels to list by their GPU time a frame")
    parser.add_argument("--frame", type=int, default=0, help="list frame I's kernels (1: the first whole frame)")
    parser.add_argument("--min-us", type=float, default=20.0,
                        help="with --frame, leave out kernels shorter than this (default 20 us)")
    args = parser.parse_args()
    gpu, waits = read(args.timeline)
    ends = [end for _, end, _, name in gpu if args.frame_end in name]
    if len(ends) < 2:
        sys.exit(f"{args.timeline}: fewer than two '{args.frame_end}' kernels, so no whole frame")
    if not 0 <= args.frame < len(ends):
        sys.exit(f"{args.timeline}: --frame {args.frame}, where the timeline has frames 1 to {len(ends) - 1}")
    per_frame = collections.defaultdict(list)
    transitions = collections.defaultdict(lambda: [0, 0])  # (before, after) -> [idle ns, gaps]
    frames = []  # (start, end, the activities that overlap it)
    first = 0
    for lo, hi in zip(ends, ends[1:]):
        while first < len(gpu) and gpu[first][1] <= lo:
            first += 1
        last = bisect.bisect_left(gpu, (hi + 1,))
        frame = gpu[first:last]
        frames.append((lo, hi, frame))
        merged = busy_intervals(frame, lo, hi)
        busy = sum(end - start for start, end, _, _ in merged)
        gaps = [(merged[i][1], merged[i + 1][0], merged[i][3], merged[i + 1][2]) for i in range(len(merged) - 1)]
        if merged and merged[0][0] > lo:
            gaps.insert(0, (lo, merged[0][0], args.frame_end, merged[0][2]))
        by_class = collections.Counter()
        after_wait = 0
        for start, end, before, after in gaps:
            by_class[next(label for limit, label in GAP_CLASSES if end - start < limit)] += end - start
            if bisect.bisect_left(waits, start) < bisect.bisect_right(waits, end):
                after_wait += end - start
            transitions[(before, after)][0] += end - start
            transitions[(before, after)][1] += 1
        per_frame["wall"].append(hi - lo)
        per_frame["busy"].append(busy)
        per_frame["idle"].append(hi - lo - busy)
        per_frame["idle after a host wait"].append(after_wait)
        per_frame["two or more at once"].append(overlap_ns(frame, lo, hi))
        for _, label in GAP_CLASSES:
            per_frame[f"idle in gaps {label}"].append(by_class[label])
        per_frame["host waits"].append(bisect.bisect_right(waits, hi) - bisect.bisect_right(waits, lo))
        per_frame["kernels"].append(sum(1 for a in frame if not a[3].startswith(("copy ", "fill "))))

    wall = statistics.median(per_frame["wall"])
    print(f"{args.timeline}: {len(frames)} frames; medians per frame")
    for key, values in per_frame.items():
        m = statistics.median(values)
        if key in ("host waits", "kernels"):
            print(f"  {key:<28} {m:>10.0f}")
        else:
            print(f"  {key:<28} {m / 1e6:>10.3f} ms {100 * m / wall:>6.1f}%")
    print(f"\nidle between kernels, per frame (the {args.top} largest sums)")
    print(f"  {'before':<40} {'after':<40} {'us':>8} {'gaps':>6}")
    for (before, after), (ns, count) in sorted(transitions.items(), key=lambda kv: -kv[1][0])[: args.top]:
        print(f"  {before[:40]:<40} {after[:40]:<40} {ns / 1e3 / len(frames):>8.1f} {count / len(frames):>6.1f}")
    if args.kernels > 0:
        print(f"\nGPU time of each kernel, per frame (the {args.kernels} largest; launches beside each other add up)")
        print(f"  {'ms':>8} {'launches':>8}  kernel")
        for ns, count, name in kernel_times(frames)[: args.kernels]:
            print(f"  {ns / 1e6:>8.3f} {count:>8.1f}  {name}")
    if args.frame > 0:
        lo, hi, activities = frames[args.frame - 1]
        print(f"\nframe {args.frame}'s kernels of {args.min_us:g} us or more, in ms from its start")
        print(f"  {'start':>8} {'end':>8} {'ms':>7} {'stream':>14}  kernel")
        for start, end, stream, name in activities:
            if start < hi and end - start >= args.min_us * 1e3:
                print(f"  {(start - lo) / 1e6:>8.3f} {(end - lo) / 1e6:>8.3f} {(end - start) / 1e6:>7.3f} {stream:>14}  {name}")


if __name__ == "__main__":
    main()
