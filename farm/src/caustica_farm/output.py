"""Files the farm's driver writes: frames under their final names, through a temporary file in
the same folder and a rename, and the manifest of what was done where."""

import hashlib
import json
import os
import tempfile
import time
from typing import Any, Dict, Optional


def _new_file_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomically(path: str, data: bytes) -> None:
    """Writes ``data`` to a unique temporary file beside ``path``, flushes it to the disk and renames
    it into place: the file under its final name is always whole. An existing file keeps its
    permissions."""
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    mode = os.stat(path).st_mode & 0o7777 if os.path.isfile(path) else _new_file_mode()
    handle, temporary = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".farm")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def entry(frame: int, path: str, data: bytes, host: str, seconds: float) -> Dict[str, Any]:
    return {"frame": frame, "file": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "host": host, "seconds": round(seconds, 3)}


class Manifest:
    """A JSON file that says what was rendered where: for each frame its file, size, SHA-256, host
    and seconds. Rewritten (atomically) after every finished task, so it is current when the job
    stops; with --resume, the entries of frames whose files are still there are kept."""

    def __init__(self, path: str, job: Dict[str, Any], resume: bool):
        self.path = path
        self.job = job
        self.frames: Dict[int, Dict[str, Any]] = {}
        if resume and os.path.isfile(path):
            with open(path) as file:
                for old in json.load(file).get("frames", []):
                    if os.path.isfile(old["file"]):
                        self.frames[old["frame"]] = old

    def add(self, item: Dict[str, Any]) -> None:
        self.frames[item["frame"]] = item

    def save(self, finished: Optional[bool] = None) -> None:
        document = {"job": self.job, "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "finished": bool(finished), "frames": [self.frames[f] for f in sorted(self.frames)]}
        write_atomically(self.path, (json.dumps(document, indent=2) + "\n").encode())
