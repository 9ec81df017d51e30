#!/usr/bin/env python3
"""Turns the benchmark JSON files that tools/gpu-check.sh writes (bench/*.json) into the markdown
tables of docs/benchmarks.md.

    tools/bench-table.py DIR_WITH_JSON
"""
import json
import pathlib
import sys


def rows(folder, prefix):
    for path in sorted(pathlib.Path(folder).glob(prefix + "*.json")):
        yield path.stem, json.loads(path.read_text())


def ms(t):
    return f"{t['median']:.2f}"


def error(d, key):
    """A relative error, "-" in JSON written before it was measured."""
    return f"{d[key]:.2g}" if key in d else "-"


def timed(d, key, order):
    """A KNN method's time in one query order; "-" in JSON written before it was timed."""
    e = d.get(key)
    return ms(e[order]) if e else "-"


def main(folder):
    print("| scene | triangles | build ms (median) | nodes | leaves | depth | SAH | exact SAH | primary Mrays/s | exact-tree primary Mrays/s | shadow Mrays/s | incoherent Mrays/s | surface Mrays/s | peak MB | hit mismatches |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, d in sorted(rows(folder, "kdtree-"), key=lambda r: r[1]["triangles"]):
        ref = d.get("reference_sah_cost")
        refp = d.get("reference_primary_mrays_per_s")
        surf = d.get("surface_mrays_per_s")  # "-" in JSON written before surface rays were traced
        print(f"| {name[7:]} | {d['triangles']:,} | {ms(d['build_ms'])} | {d['nodes']:,} | {d['leaves']:,} | {d['max_depth']} "
              f"| {d['sah_cost']:.1f} | {f'{ref:.1f}' if ref else '-'} | {d['primary_mrays_per_s']:.0f} "
              f"| {f'{refp:.0f}' if refp else '-'} | {d['shadow_mrays_per_s']:.0f} | {d['incoherent_mrays_per_s']:.0f} "
              f"| {f'{surf:.0f}' if surf is not None else '-'} "
              f"| {d['peak_device_bytes'] / 2**20:.0f} | {d['hit_mismatches']} of {d['hits_checked']} |")
    print()
    print("| distribution | points | queries | k | build ms | node radii ms | KNN coherent ms | KNN random ms | exact KNN coherent ms | exact KNN random ms | exact KNN from r0 coherent ms | exact KNN from r0 random ms | max radius error | exact max radius error | peak MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, d in rows(folder, "photons-"):
        nr = d.get("node_radii_ms")
        print(f"| {d['distribution']} | {d['points']:,} | {d['queries']:,} | {d['k']} | {ms(d['build_ms'])} "
              f"| {ms(nr) if nr else '-'} | {ms(d['knn_ms']['coherent'])} | {ms(d['knn_ms']['random'])} "
              f"| {timed(d, 'exact_knn_ms', 'coherent')} | {timed(d, 'exact_knn_ms', 'random')} "
              f"| {timed(d, 'exact_knn_r0_ms', 'coherent')} | {timed(d, 'exact_knn_r0_ms', 'random')} "
              f"| {d['radius_max_rel_error']:.2g} | {error(d, 'exact_radius_max_rel_error')} "
              f"| {d['peak_device_bytes'] / 2**20:.0f} |")
    print()
    passes = ["animate", "geometry_tree", "photon_trace", "photon_tree", "eye", "bounces", "shadow", "shade", "composite", "total"]
    # ahead: the SMs of the next frame's geometry tree (bench frame --ahead-sms; 0, one frame after another).
    print("| run | scene | device | size | photons (stored) | k | KNN | ahead SMs | " + " | ".join(passes) + " | fps |")
    print("| --- | --- | --- | --- | ---: | ---: | --- | ---: | " + " | ".join("---:" for _ in passes) + " | ---: |")
    for name, d in rows(folder, "frame-"):
        p = d["passes_ms"]
        print(f"| {name.removeprefix('frame-')} | {pathlib.Path(d['scene']).name} | {d['device']} | {d['width']}x{d['height']} "
              f"| {d['photons']:,} ({d['stored_photons']:,}) | {d['k']} | {d.get('knn', '-')} | {d.get('ahead_sms', 0)} | "
              + " | ".join(f"{p[k]:.2f}" for k in passes) + f" | {d['fps']:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
