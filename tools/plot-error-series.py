#!/usr/bin/env python3
"""Plots the error of `caustica bench quality --samples-series` runs against samples and seconds.

    tools/plot-error-series.py OUT.svg LABEL=RUN.json [LABEL=RUN.json ...]

Each JSON's "series" gives, after each sample count, the root mean square error over all pixels
and the median seconds a frame took to reach it. Runs whose labels share the text before the
first space (the scene) share a colour; "progressive" runs are drawn solid, others dashed. Two
log-log panels: error against samples and error against seconds. The output is SVG, written with
the standard library alone (no plotting package is needed).
"""
import json
import math
import os
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"]
PANEL_W, PANEL_H, MARGIN_L, MARGIN_B, MARGIN_T, GAP = 420, 300, 70, 50, 30, 40
LEGEND_W = 260


def read_runs(arguments):
    runs = []
    for argument in arguments:
        label, sep, path = argument.partition("=")
        if not sep:
            sys.exit(f"plot-error-series.py: {argument}: expected LABEL=FILE.json")
        try:
            with open(path) as f:
                series = json.load(f)["series"]
        except (OSError, ValueError, KeyError) as e:
            sys.exit(f"plot-error-series.py: {path}: cannot read a bench quality series ({e})")
        points = [(p["samples"], p["seconds"], p["root_mean_square"]) for p in series]
        if any(v <= 0 for point in points for v in point):
            sys.exit(f"plot-error-series.py: {path}: samples, seconds and errors must be positive to plot on log axes")
        runs.append((label, points))
    return runs


def log_range(values):
    low, high = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    return low, max(high, low + 1)


def panel(x0, title, runs, column, colour_of, x_label):
    """One log-log panel at x offset x0: error (y) against column 0 (samples) or 1 (seconds)."""
    xs = [p[column] for _, points in runs for p in points]
    ys = [p[2] for _, points in runs for p in points]
    (xl, xh), (yl, yh) = log_range(xs), log_range(ys)

    def px(x):
        return x0 + MARGIN_L + (math.log10(x) - xl) / (xh - xl) * PANEL_W

    def py(y):
        return MARGIN_T + (yh - math.log10(y)) / (yh - yl) * PANEL_H

    out = [f'<text x="{x0 + MARGIN_L + PANEL_W / 2}" y="18" text-anchor="middle" font-size="14">{title}</text>',
           f'<rect x="{x0 + MARGIN_L}" y="{MARGIN_T}" width="{PANEL_W}" height="{PANEL_H}" fill="none" '
           f'stroke="#444"/>']
    for e in range(xl, xh + 1):
        x = px(10 ** e)
        out.append(f'<line x1="{x}" y1="{MARGIN_T}" x2="{x}" y2="{MARGIN_T + PANEL_H}" stroke="#ddd"/>')
        out.append(f'<text x="{x}" y="{MARGIN_T + PANEL_H + 16}" text-anchor="middle" font-size="11">1e{e}</text>')
    for e in range(yl, yh + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{x0 + MARGIN_L}" y1="{y}" x2="{x0 + MARGIN_L + PANEL_W}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + MARGIN_L - 6}" y="{y + 4}" text-anchor="end" font-size="11">1e{e}</text>')
    out.append(f'<text x="{x0 + MARGIN_L + PANEL_W / 2}" y="{MARGIN_T + PANEL_H + 36}" text-anchor="middle" '
               f'font-size="12">{x_label}</text>')
    out.append(f'<text x="{x0 + 16}" y="{MARGIN_T + PANEL_H / 2}" text-anchor="middle" font-size="12" '
               f'transform="rotate(-90 {x0 + 16} {MARGIN_T + PANEL_H / 2})">RMSE (all pixels)</text>')
    for label, points in runs:
        colour, dash = colour_of(label)
        path = " ".join(f"{px(p[column]):.1f},{py(p[2]):.1f}" for p in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2" '
                   f'stroke-dasharray="{dash}"/>')
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out_path, runs = sys.argv[1], read_runs(sys.argv[2:])
    scenes = []
    for label, _ in runs:
        scene = label.split(" ")[0]
        if scene not in scenes:
            scenes.append(scene)

    def colour_of(label):
        colour = COLOURS[scenes.index(label.split(" ")[0]) % len(COLOURS)]
        return colour, "none" if "progressive" in label else "6,4"

    width = 2 * (MARGIN_L + PANEL_W) + GAP + LEGEND_W
    height = MARGIN_T + PANEL_H + MARGIN_B + 10
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    svg += panel(0, "error against samples", runs, 0, colour_of, "samples per pixel")
    svg += panel(MARGIN_L + PANEL_W + GAP, "error against time", runs, 1, colour_of, "seconds")
    legend_x = 2 * (MARGIN_L + PANEL_W) + GAP + 10
    for i, (label, _) in enumerate(runs):
        colour, dash = colour_of(label)
        y = MARGIN_T + 10 + 18 * i
        svg.append(f'<line x1="{legend_x}" y1="{y}" x2="{legend_x + 30}" y2="{y}" stroke="{colour}" '
                   f'stroke-width="2" stroke-dasharray="{dash}"/>')
        svg.append(f'<text x="{legend_x + 36}" y="{y + 4}" font-size="12">{label}</text>')
    svg.append("</svg>")
    with open(out_path + ".tmp", "w") as f:
        f.write("\n".join(svg) + "\n")
    os.replace(out_path + ".tmp", out_path)


if __name__ == "__main__":
    main()
