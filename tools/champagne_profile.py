#!/usr/bin/env python3
"""Prints the (radius, y) profiles of scenes/champagne.yaml: a stemmed coupe with walls 0.015
units thick, and the champagne inside it (the scene scales both by 0.1: a 14 cm glass with 1.5 mm
walls). Both are closed solids of revolution: each profile starts and ends on the axis and walks
with the solid on its left, which gives outward normals."""
import math

WALL = 0.015        # glass thickness of the bowl, metres (scene units)
GAP = 0.001         # champagne surface sits this far inside the glass
BOWL_LOW, BOWL_TOP, FILL = 0.66, 1.40, 1.20
BOWL_POINTS = 32

def outer(y):
    s = (y - BOWL_LOW) / (BOWL_TOP - BOWL_LOW)
    return 0.06 + 0.27 * (1 - (1 - s) ** 2)

def inner(y):
    return outer(y) - WALL

def fmt(points):
    return "[" + ", ".join(f"[{r:.4f}, {y:.4f}]" for r, y in points) + "]"

glass = [(0, 0), (0.35, 0), (0.35, 0.02), (0.05, 0.04), (0.03, 0.10), (0.03, 0.55), (0.06, BOWL_LOW)]
ys = [BOWL_LOW + (BOWL_TOP - BOWL_LOW) * i / BOWL_POINTS for i in range(1, BOWL_POINTS + 1)]
glass += [(outer(y), y) for y in ys]
inner_low = BOWL_LOW + 0.04
inner_ys = [BOWL_TOP - (BOWL_TOP - inner_low) * i / BOWL_POINTS for i in range(BOWL_POINTS + 1)]
glass += [(inner(y), y) for y in inner_ys]
glass += [(0, inner_low)]

liquid_low = inner_low + GAP
liquid_ys = [liquid_low + (FILL - liquid_low) * i / 24 for i in range(25)]  # 24 steps
liquid = [(0, liquid_low)] + [(inner(y) - GAP, y) for y in liquid_ys] + [(0, FILL)]

print("glass:", fmt(glass))
print("liquid:", fmt(liquid))
