"""One progress bar for a whole farm job on stderr: items done, the rate per minute and an estimate
of the time left. On a terminal it redraws one line; otherwise it prints a line at every tenth."""

import sys
import time


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"


class Progress:
    def __init__(self, total: int, unit: str, stream=sys.stderr):
        self.total, self.unit, self.stream = total, unit, stream
        self.done = 0
        self.start = time.monotonic()
        self.terminal = stream.isatty()
        self.last_tenth = -1
        self.stopped = False

    def advance(self, count: int = 1) -> None:
        self.done += count
        tenth = self.done * 10 // self.total if self.total else 10
        if self.terminal or tenth != self.last_tenth:
            self._draw(final=not self.terminal)
        self.last_tenth = tenth

    def finish(self) -> None:
        if self.terminal:
            self._draw(final=True)

    def line(self) -> str:
        elapsed = time.monotonic() - self.start
        per_minute = self.done / elapsed * 60 if elapsed > 0 else 0.0
        left = (self.total - self.done) / per_minute * 60 if per_minute > 0 else 0.0
        width = 30
        filled = self.done * width // self.total if self.total else width
        return (f"farm [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {self.unit}, "
                f"{per_minute:.1f} {self.unit}/min, {_duration(left)} left")

    def _draw(self, final: bool) -> None:
        if self.stopped:
            return
        try:
            self.stream.write(("\r" if self.terminal else "") + self.line() + ("\n" if final else ""))
            self.stream.flush()
        except OSError:  # a reader of stderr that went away stops the bar, not the job
            self.stopped = True
