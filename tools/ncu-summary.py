#!/usr/bin/env python3
"""Sums Nsight Compute's kernel times by kernel: reads the CSV that tools/gpu-profile.sh writes
(`ncu --csv --metrics gpu__time_duration.sum`) and prints, largest first, each kernel's total
time, launches, time per launch and share of the whole.

    tools/ncu-summary.py NCU_CSV [--top N]
"""
import argparse
import collections
import csv
import re
import sys

# ncu names units in words or in symbols, depending on its version.
UNIT_NS = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9, "ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def strip_templates(name):
    """name without template arguments; innermost first, so nested ones come off too."""
    while True:
        stripped = re.sub(r"<[^<>]*>", "", name)
        if stripped == name:
            return name
        name = stripped


def without_parameters(name):
    """name up to its parameter list: the first "(" outside template arguments, which may hold
    function types of their own."""
    depth = 0
    for i, c in enumerate(name):
        depth += {"<": 1, ">": -1}.get(c, 0)
        if c == "(" and depth == 0:
            return name[:i]
    return name


def short_name(name):
    """The kernel's own name, without parameter list, template arguments or namespaces. A generic
    launcher of the project's is named by what it runs: its first template argument when that is a
    qualified name (ParallelForKernel<caustica::...::SortKeysPass>, ParallelForKernel<bfs::...>), else the project function
    whose lambda it runs (nvcc names it in the lambda's wrapper type as &caustica::...)."""
    name = without_parameters(name.replace("(anonymous namespace)", "anonymous").replace("<unnamed>", "anonymous"))
    own = strip_templates(name).split("::")[-1].split(" ")[-1].strip() or "?"
    args = re.search(r"<(.*)>", name)
    if args and re.sub(r"^void ", "", name).startswith("caustica::") and re.match(r"[A-Za-z]\w*::", args.group(1).lstrip()):
        first = strip_templates(args.group(1)).split(",")[0]
        return f"{own}<{first.split('::')[-1].strip()}>"
    if args:
        enclosing = re.search(r"&(caustica::[\w:]+)", args.group(1))
        if enclosing:
            return f"{own}<lambda in {'::'.join(enclosing.group(1).split('::')[1:][-2:])}>"
    return own


def read_times(path):
    """(kernel, nanoseconds) for every launch in the file; ncu's log lines before the header are skipped."""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        sys.exit(f"{path}: no ncu CSV header (a line starting with \"ID\") found")
    for row in csv.DictReader(lines[start:]):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        unit = row.get("Metric Unit", "")
        if unit not in UNIT_NS:
            sys.exit(f"{path}: unknown time unit {unit!r} for {row.get('Kernel Name')}")
        value = float(row["Metric Value"].replace(",", ""))
        yield short_name(row["Kernel Name"]), value * UNIT_NS[unit]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--top", type=int, default=30, help="kernels to list (default 30)")
    args = parser.parse_args()
    total = collections.defaultdict(float)
    launches = collections.Counter()
    for kernel, ns in read_times(args.csv):
        total[kernel] += ns
        launches[kernel] += 1
    if not total:
        sys.exit(f"{args.csv}: no kernel times")
    whole = sum(total.values())
    print(f"{'kernel':<44} {'total ms':>10} {'launches':>9} {'us/launch':>10} {'share':>7}")
    for kernel, ns in sorted(total.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"{kernel[:44]:<44} {ns / 1e6:>10.3f} {launches[kernel]:>9} {ns / 1e3 / launches[kernel]:>10.1f} "
              f"{100 * ns / whole:>6.1f}%")
    print(f"{'all kernels':<44} {whole / 1e6:>10.3f} {sum(launches.values()):>9}")


if __name__ == "__main__":
    main()
