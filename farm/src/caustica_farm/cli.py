"""caustica-farm: one ``caustica render`` command spread over a Ray cluster.

    caustica-farm SCENE -o out/frame_%04d.png [--frames A:B] [--samples S] [--resume]
                  [--address ADDRESS] [caustica render options ...]

A sequence is cut into chunks of frames, a still into sample ranges; each task runs on a worker
with one GPU (``num_gpus=1``; ``--device cpu``: one CPU) and is retried elsewhere by Ray when its
worker dies or its render fails. Frames are written under their final names by the driver once
complete; a still's ranges come back as float EXR sums that ``caustica combine`` adds in a fixed
order. A manifest (JSON) says what was done where.
"""

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

from caustica_farm import output, plan, task
from caustica_farm.progress import Progress

# Options of caustica render that the farm sets itself for each task.
_FARM_OWNED = ("-o", "--frames", "--resume", "--dry-run", "--gpus", "--shard", "--sample-range", "--samples",
               "--device")
# Fault injection for tests: "N:MARKER" kills the worker of task N mid-task on its first attempt.
KILL_VARIABLE = "CAUSTICA_FARM_KILL_TASK"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="caustica-farm",
        description="Renders a Caustica sequence or still on a Ray cluster: chunks of frames, or sample ranges of "
                    "a still, one GPU a task (one CPU with --device cpu), retried when a worker dies or fails.",
        epilog="Every other option goes to caustica render on the workers (--photons, --width, --seed, ...). "
               "The scene and caustica must be at the same paths on every node.")
    p.add_argument("scene", help="the YAML scene file")
    p.add_argument("-o", dest="output", required=True, metavar="PATTERN",
                   help="output files with a frame number, such as out/frame_%%04d.png (.png, .jpg, .jpeg or .exr)")
    p.add_argument("--frames", metavar="A:B", help="frames A through B (default: the whole animation)")
    p.add_argument("--samples", type=int, default=4, metavar="S", help="samples per pixel (default: 4)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                   help="what each task renders on: one GPU (num_gpus=1), or one CPU for CPU-only clusters "
                        "(default: cuda)")
    p.add_argument("--resume", action="store_true", help="skip frames whose file exists (a re-run of the same job)")
    p.add_argument("--address", default=os.environ.get("RAY_ADDRESS"),
                   help="the Ray cluster (ray.init's address; default: $RAY_ADDRESS, else a local Ray "
                        "started for this job on this machine)")
    p.add_argument("--caustica", default=os.environ.get("CAUSTICA") or shutil.which("caustica"),
                   help="the caustica executable, at this path on every node (default: $CAUSTICA, else caustica on "
                        "the PATH)")
    p.add_argument("--chunk", type=int, default=4, metavar="N",
                   help="frames of a sequence in one task (default: 4)")
    p.add_argument("--ranges", type=int, default=0, metavar="N",
                   help="sample ranges of a still (default: the cluster's GPUs, or CPUs with --device cpu)")
    p.add_argument("--retries", type=int, default=3, metavar="N",
                   help="how often Ray retries a task whose worker died or whose render failed (default: 3)")
    p.add_argument("--manifest", metavar="FILE",
                   help="the JSON record of what was done where (default: caustica-farm.json in the output's "
                        "folder)")
    return p


def _fail(message: str, code: int) -> int:
    print(f"caustica-farm: error: {message}", file=sys.stderr)
    return code


def main(argv: Optional[List[str]] = None) -> int:
    args, forwarded = _parser().parse_known_args(argv)
    for word in forwarded:
        if word.split("=", 1)[0] in _FARM_OWNED:
            return _fail(f"{word}: the farm sets this for each task; it cannot be passed on", 2)
    if not args.caustica:
        return _fail("caustica was not found: put it on the PATH, set $CAUSTICA or give --caustica", 2)
    if args.chunk < 1 or args.ranges < 0 or args.retries < 0:
        return _fail("--chunk must be at least 1, --ranges and --retries at least 0", 2)
    caustica = os.path.abspath(args.caustica)
    render_args = [os.path.abspath(args.scene), *forwarded, "--samples", str(args.samples), "--device", args.device]
    plan_args = [*render_args, "-o", args.output] + (["--frames", args.frames] if args.frames else [])
    try:
        job = plan.make_plan(caustica, plan_args + (["--resume"] if args.resume else []))
    except plan.InputFailure as e:
        print(e, file=sys.stderr)
        return 2

    manifest_path = args.manifest or os.path.join(os.path.dirname(os.path.abspath(args.output)), "caustica-farm.json")
    manifest = output.Manifest(manifest_path, {"caustica": caustica, "arguments": plan_args}, args.resume)
    if job.skip:
        print(f"skipping {len(job.skip)} existing file{'s' if len(job.skip) != 1 else ''} (--resume)", file=sys.stderr)
    if not job.render:
        manifest.save(finished=True)
        print("nothing to render", file=sys.stderr)
        return 0

    import ray  # here: --help and bad input need no cluster

    started_ray = not ray.is_initialized()
    if started_ray:
        ray.init(address=args.address, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    try:
        return _run(ray, args, caustica, render_args, job, manifest)
    except KeyboardInterrupt:
        return _fail("interrupted; finished frames are kept (run again with --resume)", 130)
    finally:
        if started_ray:
            ray.shutdown()


def _run(ray, args, caustica: str, render_args: List[str], job: plan.Plan, manifest: output.Manifest) -> int:
    resources = {"num_gpus": 1, "num_cpus": 0} if args.device == "cuda" else {"num_cpus": 1}
    if args.device == "cuda" and not ray.cluster_resources().get("GPU"):
        return _fail("the Ray cluster has no GPUs (use --device cpu for a CPU-only cluster)", 2)
    remote = ray.remote(task.render).options(max_retries=args.retries, retry_exceptions=[task.RenderFailed],
                                             **resources)
    extension = os.path.splitext(job.render[0].file)[1]
    targets = {t.frame: t for t in job.render}
    base = {"caustica": caustica, "args": render_args}
    if job.still:
        workers = int(ray.cluster_resources().get("GPU" if args.device == "cuda" else "CPU", 1))
        ranges = plan.sample_ranges(job.samples, args.ranges or workers)
        specs = [dict(base, frames=[job.render[0].frame], extension=".exr", sample_range=list(r)) for r in ranges]
        unit, total = "samples", job.samples
    else:
        chunks = plan.frame_chunks([t.frame for t in job.render], args.chunk)
        specs = [dict(base, frames=chunk, extension=extension, sample_range=None) for chunk in chunks]
        unit, total = "frames", len(job.render)
    kill = os.environ.get(KILL_VARIABLE)
    if kill:
        index, marker = kill.split(":", 1)
        specs[int(index)]["kill_marker"] = marker

    print(f"caustica-farm: {total} {unit} of {job.scene} in {len(specs)} tasks on Ray "
          f"({', '.join(f'{k} {v:g}' for k, v in sorted(ray.cluster_resources().items()) if k in ('CPU', 'GPU'))})",
          file=sys.stderr)
    pending = {remote.remote(spec): spec for spec in specs}
    progress = Progress(total, unit)
    parts: List[Dict[str, Any]] = []
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            spec = pending.pop(done[0])
            result = ray.get(done[0])
            if job.still:
                parts.append({"range": spec["sample_range"], "host": result["host"], **result["outputs"][0]})
                progress.advance(spec["sample_range"][1] - spec["sample_range"][0])
                continue
            for out in result["outputs"]:
                target = targets[out["frame"]]
                output.write_atomically(target.path, out["bytes"])
                manifest.add(output.entry(out["frame"], target.path, out["bytes"], result["host"], out["seconds"]))
            manifest.save()
            progress.advance(len(result["outputs"]))
    except plan.InputFailure as e:
        _cancel(ray, pending)
        print(e, file=sys.stderr)
        return 2
    except (task.RenderFailed, ray.exceptions.RayError) as e:
        _cancel(ray, pending)
        manifest.save()
        return _fail(f"a task failed after {args.retries} retries: {e}", 1)
    progress.finish()
    if job.still:
        _combine(caustica, job.render[0], parts, manifest)
    manifest.save(finished=True)
    print(f"caustica-farm: wrote {len(job.render)} file{'s' if len(job.render) != 1 else ''}; manifest "
          f"{manifest.path}", file=sys.stderr)
    return 0


def _cancel(ray, pending) -> None:
    for ref in pending:
        ray.cancel(ref, force=True)


def _combine(caustica: str, target: plan.Target, parts: List[Dict[str, Any]], manifest: output.Manifest) -> None:
    """Adds the sample ranges' float sums with caustica combine (which orders them by their first
    sample, whatever order they finished in) and writes the still."""
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="caustica-farm-") as folder:
        files = []
        for part in parts:
            files.append(os.path.join(folder, f"samples_{part['range'][0]}.exr"))
            with open(files[-1], "wb") as file:
                file.write(part["bytes"])
        subprocess.run([caustica, "combine", *files, "-o", target.path], check=True, stdout=subprocess.DEVNULL)
    with open(target.path, "rb") as file:
        data = file.read()
    item = output.entry(target.frame, target.path, data, socket.gethostname(),
                        sum(p["seconds"] for p in parts) + time.time() - start)
    item["parts"] = [{"samples": p["range"], "host": p["host"], "seconds": round(p["seconds"], 3),
                      "size": len(p["bytes"])} for p in sorted(parts, key=lambda p: p["range"][0])]
    manifest.add(item)
