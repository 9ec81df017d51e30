"""The farm's pieces that need no cluster: chunks, sample ranges, atomic files, the manifest and the
bar, and caustica's plan of a job."""

import io
import json
import os
import subprocess

import pytest

from caustica_farm import output, plan, task
from caustica_farm.progress import Progress


def test_frame_chunks_are_consecutive_runs_of_at_most_n():
    assert plan.frame_chunks([0, 1, 2, 3, 4], 2) == [[0, 1], [2, 3], [4]]
    assert plan.frame_chunks([0, 1, 3, 4, 5, 9], 4) == [[0, 1], [3, 4, 5], [9]]
    assert plan.frame_chunks([], 3) == []


def test_sample_ranges_cover_the_samples_in_order():
    for samples in (1, 2, 7, 64):
        for parts in (1, 3, 8, 100):
            ranges = plan.sample_ranges(samples, parts)
            assert ranges[0][0] == 0 and ranges[-1][1] == samples
            assert all(a < b for a, b in ranges)
            assert all(ranges[i][1] == ranges[i + 1][0] for i in range(len(ranges) - 1))
            assert len(ranges) == min(samples, parts)


def test_write_atomically_leaves_only_the_whole_file(tmp_path):
    target = tmp_path / "sub" / "frame.png"
    output.write_atomically(str(target), b"x" * 1000)
    output.write_atomically(str(target), b"second")
    assert target.read_bytes() == b"second"
    assert os.listdir(target.parent) == ["frame.png"]


def test_manifest_keeps_frames_whose_files_exist_on_resume(tmp_path):
    kept, gone = tmp_path / "f_0.png", tmp_path / "f_1.png"
    kept.write_bytes(b"a")
    manifest = output.Manifest(str(tmp_path / "m.json"), {"arguments": []}, resume=False)
    manifest.add(output.entry(0, str(kept), b"a", "host-a", 1.5))
    manifest.add(output.entry(1, str(gone), b"b", "host-b", 2.5))
    manifest.save()
    document = json.loads((tmp_path / "m.json").read_text())
    assert document["frames"][0] == {"frame": 0, "file": str(kept), "size": 1, "host": "host-a", "seconds": 1.5,
                                     "sha256": "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"}
    resumed = output.Manifest(str(tmp_path / "m.json"), {"arguments": []}, resume=True)
    assert sorted(resumed.frames) == [0]


def test_folders_of_dead_workers_are_removed(tmp_path):
    dead_pid = subprocess.Popen(["true"])  # a process that is gone
    dead_pid.wait()
    (tmp_path / f"caustica-farm-{dead_pid.pid}-abc").mkdir()
    (tmp_path / f"caustica-farm-{os.getpid()}-def").mkdir()
    (tmp_path / "caustica-farm-x").mkdir()
    task.remove_folders_of_dead_workers(str(tmp_path))
    assert sorted(os.listdir(tmp_path)) == [f"caustica-farm-{os.getpid()}-def", "caustica-farm-x"]


def test_progress_off_a_terminal_prints_every_tenth():
    stream = io.StringIO()
    bar = Progress(20, "frames", stream)
    for _ in range(20):
        bar.advance()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11  # the first item, then every tenth
    assert lines[-1].startswith("farm [##############################] 20/20 frames, ")
    assert "frames/min" in lines[-1] and lines[-1].endswith(" left")


def test_the_plan_comes_from_caustica(caustica, scene, tmp_path):
    (tmp_path / "p_0001.png").write_bytes(b"done")
    job = plan.make_plan(caustica, [scene, "-o", str(tmp_path / "p_%04d.png"), "--frames", "0:3", "--resume"])
    assert [t.frame for t in job.render] == [0, 2, 3]
    assert [t.frame for t in job.skip] == [1]
    assert job.render[0].path == str(tmp_path / "p_0000.png")
    assert not job.still
    assert plan.make_plan(caustica, [scene, "-o", str(tmp_path / "s.exr"), "--frames", "5"]).still
    with pytest.raises(plan.InputFailure, match="unsupported image type"):
        plan.make_plan(caustica, [scene, "-o", str(tmp_path / "p_%04d.tif")])
