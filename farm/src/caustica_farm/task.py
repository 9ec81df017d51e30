"""One farm task on a Ray worker: runs ``caustica render`` for a chunk of frames or a sample range
into a private folder and returns the files' bytes. The farm's driver writes them under their final
names, so a task that dies leaves nothing half-written anywhere."""

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional

from caustica_farm.plan import InputFailure


class RenderFailed(Exception):
    """caustica failed at run time (exit code 1, a signal): Ray retries the task."""


_PR_SET_PDEATHSIG = 1


def _stop_with_parent() -> None:
    # caustica gets SIGTERM when the worker that started it dies, and removes its temporary file.
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _kill_worker_after_first_output(process: subprocess.Popen, folder: str, marker: str) -> None:
    """Fault injection for tests: on the first attempt (the marker file does not exist yet), kill
    this worker process as soon as the task has written its first output, in the middle of it."""
    with open(marker, "x"):
        pass
    while process.poll() is None and not any(not name.startswith(".") for name in os.listdir(folder)):
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGKILL)


_FOLDER_PREFIX = "caustica-farm-"


def remove_folders_of_dead_workers(parent: str) -> None:
    """A worker that was killed could not remove its task's folder: the folders are named by the
    worker's process id, and those of processes that are gone are removed."""
    for name in os.listdir(parent):
        pid = name[len(_FOLDER_PREFIX):].split("-", 1)[0]
        if not name.startswith(_FOLDER_PREFIX) or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
        except PermissionError:  # alive, another user's
            pass


def render(spec: Dict[str, Any]) -> Dict[str, Any]:
    """spec: caustica (the executable), args (render arguments without -o and --frames), frames
    (consecutive frame numbers), extension (".png", ".exr", ...), sample_range ([a, b] or None),
    kill_marker (fault injection; None normally). Returns the host and, for each frame, its bytes
    and the seconds it took."""
    frames: List[int] = spec["frames"]
    sample_range: Optional[List[int]] = spec.get("sample_range")
    remove_folders_of_dead_workers(tempfile.gettempdir())
    with tempfile.TemporaryDirectory(prefix=f"{_FOLDER_PREFIX}{os.getpid()}-") as folder:
        pattern = os.path.join(folder, "frame_%d" + spec["extension"])
        command = [spec["caustica"], "render", *spec["args"], "-o", pattern, "--frames", f"{frames[0]}:{frames[-1]}"]
        if sample_range:
            command += ["--sample-range", f"{sample_range[0]}:{sample_range[1]}"]
        start = time.time()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=_stop_with_parent)
        if spec.get("kill_marker") and not os.path.exists(spec["kill_marker"]):
            _kill_worker_after_first_output(process, folder, spec["kill_marker"])
        _, errors = process.communicate()
        if process.returncode == 2:
            raise InputFailure(errors.strip())
        if process.returncode != 0:
            raise RenderFailed(f"caustica render exited with {process.returncode} on {socket.gethostname()}: "
                               f"{errors.strip()[-2000:]}")
        outputs = []
        previous = start
        for frame in frames:  # rendered one after another: each took the time since the last
            path = pattern % frame
            finished = os.stat(path).st_mtime
            with open(path, "rb") as file:
                outputs.append({"frame": frame, "bytes": file.read(), "seconds": max(0.0, finished - previous)})
            previous = finished
    return {"host": socket.gethostname(), "outputs": outputs}
