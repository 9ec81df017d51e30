#!/usr/bin/env python3
"""Writes scenes/sky.hdr: a small procedural sky as an equirectangular Radiance HDR image.

A clear sky (deep blue at the zenith, pale at the horizon), a sun with a glow, and a plain ground,
in linear RGB radiance. The mapping is Caustica's (photon/environment.h): row 0 is the zenith, the
centre column looks toward -z, u grows turning toward +x. The sun's direction is printed, for the
directional light that stands for it in scenes/sky.yaml (the environment itself lights nothing).

    tools/make-sky-hdr.py [OUT.hdr]
"""
import math
import sys

WIDTH, HEIGHT = 256, 128
SUN_ELEVATION, SUN_AZIMUTH = math.radians(35.0), math.radians(25.0)  # azimuth from -z toward +x
SUN_RADIUS = math.radians(2.5)
SUN_RADIANCE = (40.0, 36.0, 30.0)
ZENITH, HORIZON, GROUND = (0.12, 0.28, 0.75), (0.78, 0.86, 1.0), (0.32, 0.28, 0.22)


def direction(u, v):
    phi, theta = (u - 0.5) * 2.0 * math.pi, v * math.pi
    return (math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi))


SUN = (math.cos(SUN_ELEVATION) * math.sin(SUN_AZIMUTH), math.sin(SUN_ELEVATION),
       -math.cos(SUN_ELEVATION) * math.cos(SUN_AZIMUTH))


def radiance(d):
    if d[1] < 0.0:  # the ground, darker toward the nadir, with a hazy band at the horizon
        haze = math.exp(d[1] * 12.0)
        return tuple(g * (0.7 + 0.3 * haze) + h * 0.25 * haze for g, h in zip(GROUND, HORIZON))
    t = math.pow(d[1], 0.45)
    sky = [h + (z - h) * t for z, h in zip(ZENITH, HORIZON)]
    angle = math.acos(max(-1.0, min(1.0, sum(a * b for a, b in zip(d, SUN)))))
    if angle < SUN_RADIUS:
        return SUN_RADIANCE
    glow = 0.6 * math.exp(-angle / math.radians(8.0)) + 0.15 * math.exp(-angle / math.radians(40.0))
    return tuple(s + glow * c / SUN_RADIANCE[0] for s, c in zip(sky, SUN_RADIANCE))


def rgbe(c):
    m = max(c)
    if m < 1e-32:
        return bytes(4)
    mantissa, exponent = math.frexp(m)
    scale = mantissa * 256.0 / m
    return bytes([min(255, int(x * scale)) for x in c] + [exponent + 128])


def run_length(channel):
    """Radiance's run-length encoding of one channel of a scanline."""
    out, i = bytearray(), 0
    while i < len(channel):
        run = 1
        while i + run < len(channel) and run < 127 and channel[i + run] == channel[i]:
            run += 1
        if run >= 3:
            out += bytes([128 + run, channel[i]])
            i += run
            continue
        start = i
        while i < len(channel) and i - start < 128:
            if i + 2 < len(channel) and channel[i] == channel[i + 1] == channel[i + 2]:
                break
            i += 1
        out += bytes([i - start]) + bytes(channel[start:i])
    return out


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "scenes/sky.hdr"
    data = bytearray(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + f"-Y {HEIGHT} +X {WIDTH}\n".encode())
    for y in range(HEIGHT):
        row = [rgbe(radiance(direction((x + 0.5) / WIDTH, (y + 0.5) / HEIGHT))) for x in range(WIDTH)]
        data += bytes([2, 2, WIDTH >> 8, WIDTH & 255])
        for c in range(4):
            data += run_length([p[c] for p in row])
    with open(out, "wb") as f:
        f.write(data)
    print(f"wrote {out} ({len(data)} bytes); the sun's light travels along "
          f"[{-SUN[0]:.4f}, {-SUN[1]:.4f}, {-SUN[2]:.4f}]")


if __name__ == "__main__":
    main()
