"""The farm on a local Ray cluster of three CPU workers: a short sequence of the pool at 160x90 on
the CPU, compared byte for byte with one caustica render; a worker killed in the middle of a task;
--resume; and a still split into sample ranges."""

import json
import os
import struct
import subprocess
import zlib

import pytest

from caustica_farm import cli

FRAMES = "0:7"
SMALL = ["--width", "160", "--height", "90", "--photons", "20000"]


def _farm(caustica, scene, pattern, *extra):
    return cli.main([scene, "-o", pattern, "--caustica", caustica, "--device", "cpu", *SMALL, *extra])


def _render(caustica, scene, pattern, *extra):
    subprocess.run([caustica, "render", scene, "-o", pattern, "--device", "cpu", *SMALL, *extra], check=True,
                   capture_output=True)


@pytest.fixture(scope="module")
def reference(caustica, scene, tmp_path_factory):
    """The sequence as one caustica render writes it."""
    folder = tmp_path_factory.mktemp("reference")
    _render(caustica, scene, str(folder / "f_%04d.png"), "--frames", FRAMES, "--samples", "2")
    return folder


def _same_files(folder, reference):
    names = sorted(n for n in os.listdir(reference))
    assert sorted(n for n in os.listdir(folder) if n.endswith(".png")) == names
    for name in names:
        assert (folder / name).read_bytes() == (reference / name).read_bytes(), name
    assert not [n for n in os.listdir(folder) if n.startswith(".")], "a temporary file was left"


def test_sequence_equals_one_render(ray_cluster, caustica, scene, reference, tmp_path):
    assert _farm(caustica, scene, str(tmp_path / "f_%04d.png"), "--frames", FRAMES, "--samples", "2",
                 "--chunk", "3") == 0
    _same_files(tmp_path, reference)
    manifest = json.loads((tmp_path / "caustica-farm.json").read_text())
    assert manifest["finished"] is True
    assert [e["frame"] for e in manifest["frames"]] == list(range(8))
    for e in manifest["frames"]:
        assert e["size"] == os.path.getsize(e["file"]) and len(e["sha256"]) == 64
        assert e["host"] and e["seconds"] >= 0


def test_a_worker_killed_mid_task_still_gives_the_whole_sequence(ray_cluster, caustica, scene, reference, tmp_path,
                                                                 monkeypatch):
    marker = tmp_path / "killed"
    monkeypatch.setenv(cli.KILL_VARIABLE, f"1:{marker}")
    out = tmp_path / "out"
    assert _farm(caustica, scene, str(out / "f_%04d.png"), "--frames", FRAMES, "--samples", "2", "--chunk", "3") == 0
    assert marker.exists(), "no worker was killed"
    _same_files(out, reference)


def test_resume_skips_finished_frames(ray_cluster, caustica, scene, reference, tmp_path, capfd):
    for name in ("f_0002.png", "f_0005.png"):
        (tmp_path / name).write_bytes((reference / name).read_bytes())
    os.utime(tmp_path / "f_0002.png", (1, 1))
    assert _farm(caustica, scene, str(tmp_path / "f_%04d.png"), "--frames", FRAMES, "--samples", "2", "--resume") == 0
    assert "skipping 2 existing files (--resume)" in capfd.readouterr().err
    assert os.stat(tmp_path / "f_0002.png").st_mtime == 1, "a finished frame was written again"
    _same_files(tmp_path, reference)
    manifest = json.loads((tmp_path / "caustica-farm.json").read_text())
    assert [e["frame"] for e in manifest["frames"]] == [0, 1, 3, 4, 6, 7]


def test_bad_input_is_refused_before_any_task(ray_cluster, caustica, scene, tmp_path, capfd):
    assert _farm(caustica, scene, str(tmp_path / "f_%04d.tif"), "--frames", "0:1") == 2
    assert "unsupported image type" in capfd.readouterr().err
    assert _farm(caustica, scene, str(tmp_path / "f_%04d.png"), "--gpus", "2") == 2
    assert os.listdir(tmp_path) == []


def _png_rgb(data: bytes) -> bytes:
    """The 8-bit RGB values of a PNG file as caustica writes it (truecolour, not interlaced)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        chunks[kind] = chunks.get(kind, b"") + data[position + 8:position + 8 + length]
        position += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, colour) == (8, 2)
    raw, stride, rows, previous = zlib.decompress(chunks[b"IDAT"]), 3 * width, [], bytearray(3 * width)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - 3] if i >= 3 else 0, previous[i]
            c = previous[i - 3] if i >= 3 else 0
            predictor = [0, a, b, (a + b) // 2, min((a, b, c), key=lambda v: (abs(a + b - c - v), (a, b, c).index(v)))]
            line[i] = (line[i] + predictor[kind]) & 0xFF
        rows.append(bytes(line))
        previous = line
    return b"".join(rows)


def test_still_from_sample_ranges(ray_cluster, caustica, scene, tmp_path):
    """One range: the single process's still, byte for byte. Three ranges: byte for byte the same
    ranges rendered apart and combined; against the single process's one float sum, rounding only,
    at most one level of the 8-bit PNG (the promise of docs/farm.md)."""
    still = ["--frames", "3", "--samples", "8"]
    _render(caustica, scene, str(tmp_path / "one.png"), *still)
    assert _farm(caustica, scene, str(tmp_path / "single" / "s.png"), *still, "--ranges", "1") == 0
    assert (tmp_path / "single" / "s.png").read_bytes() == (tmp_path / "one.png").read_bytes()

    assert _farm(caustica, scene, str(tmp_path / "split" / "s.png"), *still, "--ranges", "3") == 0
    manifest = json.loads((tmp_path / "split" / "caustica-farm.json").read_text())
    assert [p["samples"] for p in manifest["frames"][0]["parts"]] == [[0, 2], [2, 5], [5, 8]]
    parts = []
    for first, end in ((5, 8), (0, 2), (2, 5)):
        parts.append(str(tmp_path / f"part_{first}.exr"))
        _render(caustica, scene, parts[-1], *still, "--sample-range", f"{first}:{end}")
    subprocess.run([caustica, "combine", *parts, "-o", str(tmp_path / "combined.png")], check=True,
                   capture_output=True)
    assert (tmp_path / "split" / "s.png").read_bytes() == (tmp_path / "combined.png").read_bytes()
    split, one = _png_rgb((tmp_path / "split" / "s.png").read_bytes()), _png_rgb((tmp_path / "one.png").read_bytes())
    assert len(split) == len(one) == 160 * 90 * 3
    assert max(abs(a - b) for a, b in zip(split, one)) <= 1
