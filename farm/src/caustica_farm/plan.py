"""What a farm job renders: caustica's own plan of the frames, cut into tasks."""

import json
import subprocess
from dataclasses import dataclass
from typing import List, Tuple


class InputFailure(Exception):
    """Bad input that caustica refused (its exit code 2): the job stops, nothing is retried."""


@dataclass
class Target:
    frame: int
    file: str  # the name as the pattern gives it
    path: str  # where it is written: absolute, symbolic links followed


@dataclass
class Plan:
    scene: str
    samples: int
    still: bool  # one frame: its samples are split into ranges
    render: List[Target]
    skip: List[Target]


def make_plan(caustica: str, render_args: List[str]) -> Plan:
    """Asks ``caustica render ARGS --dry-run`` what the render covers: it checks the scene, the
    options and every output target exactly as the render would, so the farm repeats none of it."""
    run = subprocess.run([caustica, "render", *render_args, "--dry-run"], capture_output=True, text=True)
    if run.returncode == 2:
        raise InputFailure(run.stderr.strip())
    if run.returncode != 0:
        raise RuntimeError(f"{caustica} render --dry-run failed (exit {run.returncode}): {run.stderr.strip()}")
    plan = json.loads(run.stdout)
    targets = {key: [Target(t["frame"], t["file"], t["path"]) for t in plan[key]] for key in ("render", "skip")}
    return Plan(plan["scene"], plan["samples"], plan["still"], targets["render"], targets["skip"])


def frame_chunks(frames: List[int], size: int) -> List[List[int]]:
    """The frames (ascending) in chunks of at most ``size`` consecutive frames: each chunk is one
    ``--frames A:B`` range, so frames skipped by --resume split chunks."""
    chunks: List[List[int]] = []
    for frame in frames:
        if chunks and frame == chunks[-1][-1] + 1 and len(chunks[-1]) < size:
            chunks[-1].append(frame)
        else:
            chunks.append([frame])
    return chunks


def sample_ranges(samples: int, parts: int) -> List[Tuple[int, int]]:
    """Samples 0 to samples - 1 in ``parts`` contiguous half-open ranges [a, b), as equal as can
    be (never more parts than samples)."""
    parts = max(1, min(parts, samples))
    bounds = [samples * p // parts for p in range(parts + 1)]
    return [(bounds[p], bounds[p + 1]) for p in range(parts)]
