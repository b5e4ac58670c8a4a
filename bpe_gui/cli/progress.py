"""The progress bar of ``train`` and ``count`` on stderr."""
from __future__ import annotations

import time
from typing import TextIO

from .common import PROG, isatty


class Progress:
    """A progress bar on stderr: redrawn in place on a terminal, a line now and then otherwise."""

    LABELS = {"pretokenize": "pre-tokenizing", "merge": "merging", "count": "counting words",
              "replay": "replaying merges", "solve": "solving", "files": "reading",
              "encode": "encoding"}
    QUIET_S = 0.5  # without a terminal, phases shorter than this print no line

    def __init__(self, stream: TextIO, enabled: bool = True, width: int = 30):
        self.stream = stream
        self.enabled = enabled
        self.tty = enabled and isatty(stream)
        self.width = width
        self.phase: str | None = None
        self.phase_start: float | None = None
        self.last_draw = 0.0
        self.last_decile = -1
        self.open_line = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if phase != self.phase:
            self.end_line()
            self.phase, self.last_decile, self.phase_start = phase, -1, None
        if not total:     # no end known (the mixture's rounds): say how far it got
            self._count(phase, done)
            return
        frac = min(1.0, done / total)
        if self.tty:
            now = time.monotonic()
            if now - self.last_draw < 0.1 and frac < 1.0:
                return
            self.last_draw = now
            filled = int(frac * self.width)
            bar = "#" * filled + "." * (self.width - filled)
            self.stream.write(f"\r{self.LABELS.get(phase, phase):<15} [{bar}] {frac:6.1%}  "
                              f"{amount(done, phase)}/{amount(total, phase)}")
            self.stream.flush()
            self.open_line = True
        else:
            now = time.monotonic()
            if self.phase_start is None:
                self.phase_start = now
            if now - self.phase_start < self.QUIET_S:
                return  # short jobs print nothing; long ones a line per 10%
            decile = int(frac * 10)
            if decile != self.last_decile:
                self.last_decile = decile
                print(f"{PROG}: {self.LABELS.get(phase, phase)} {decile * 10}% "
                      f"({amount(done, phase)}/{amount(total, phase)})", file=self.stream,
                      flush=True)

    def _count(self, phase: str, done: int) -> None:
        label = self.LABELS.get(phase, phase)
        if self.tty:
            self.stream.write(f"\r{label:<15} round {done:,}")
            self.stream.flush()
            self.open_line = True
        elif done and done & (done - 1) == 0:    # rounds 1, 2, 4, 8, ...
            print(f"{PROG}: {label} round {done:,}", file=self.stream, flush=True)

    def end_line(self) -> None:
        if self.open_line:
            self.stream.write("\n")
            self.stream.flush()
            self.open_line = False


def amount(n: int, phase: str) -> str:
    """A progress figure: bytes for pre-tokenizing (as on disk), a count otherwise."""
    if phase in ("pretokenize", "files", "encode"):
        if n >= 1 << 30:
            return f"{n / (1 << 30):.2f} GiB"
        return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB"
    return f"{n:,}"
