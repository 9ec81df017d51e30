#!/usr/bin/env python3
"""Writes scenes/gem-cut.obj: a round brilliant-style gem (16 girdle corners, an octagonal table,
crown and pavilion facets meeting at the culet), 1 unit across the girdle, with flat facets (each
face its own normal), for scenes/gem-dispersion.yaml."""
import math
import os

GIRDLE, TABLE = 16, 8
GIRDLE_R, GIRDLE_H = 0.5, 0.02       # radius and half-thickness of the girdle band
TABLE_R, CROWN_H = 0.28, 0.16         # table radius and its height above the girdle's top
PAVILION_H = 0.43                     # culet depth below the girdle's bottom


def ring(r, y, n, turn=0.0):
    return [(r * math.cos(2 * math.pi * (i + turn) / n), y, r * math.sin(2 * math.pi * (i + turn) / n))
            for i in range(n)]


def main():
    top = ring(GIRDLE_R, GIRDLE_H, GIRDLE)
    bottom = ring(GIRDLE_R, -GIRDLE_H, GIRDLE)
    table = ring(TABLE_R, GIRDLE_H + CROWN_H, TABLE)  # corner k above girdle corner 2k
    culet = (0.0, -GIRDLE_H - PAVILION_H, 0.0)
    faces = [list(reversed(table))]  # the table faces up: counter-clockwise seen from above
    for i in range(GIRDLE):
        j = (i + 1) % GIRDLE
        faces.append([bottom[i], top[i], top[j], bottom[j]])   # girdle band, facing out
        faces.append([bottom[j], bottom[i], culet][::-1])            # pavilion, facing out and down
    for k in range(TABLE):
        a, b = table[k], table[(k + 1) % TABLE]
        g0, g1, g2 = top[2 * k], top[2 * k + 1], top[(2 * k + 2) % GIRDLE]
        faces.append([g0, g1, a][::-1])   # crown facets between the table's edge and the girdle
        faces.append([g1, b, a][::-1])
        faces.append([g1, g2, b][::-1])
    lines = ["# Written by tools/gem_mesh.py: a round brilliant-style gem, flat facets."]
    vertices, normals = [], []
    for f in faces:
        a, b, c = f[0], f[1], f[2]
        u = [b[i] - a[i] for i in range(3)]
        v = [c[i] - a[i] for i in range(3)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        length = math.sqrt(sum(x * x for x in n))
        normals.append([x / length for x in n])
        vertices.extend(f)
    lines += ["v %.6f %.6f %.6f" % p for p in vertices]
    lines += ["vn %.6f %.6f %.6f" % tuple(n) for n in normals]
    first = 1
    for k, f in enumerate(faces):
        lines.append("f " + " ".join("%d//%d" % (first + i, k + 1) for i in range(len(f))))
        first += len(f)
    path = os.path.join(os.path.dirname(__file__), "..", "scenes", "gem-cut.obj")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
