"""A single-line progress bar on stderr: plans done / total, nodes written, rate."""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 28


class ProgressLine:
    def __init__(self, *, total: int, enabled: bool, stream: TextIO | None = None) -> None:
        self.total = total
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def update(self, *, done: int, nodes: int) -> None:
        if not self.enabled:
            return
        seconds = self.elapsed()
        filled = WIDTH * done // max(1, self.total)
        bar = "#" * filled + "-" * (WIDTH - filled)
        rate = nodes / seconds if seconds > 0 else 0.0
        line = (
            f"\rdemo [{bar}] {done}/{self.total} plans | {nodes:,} nodes | "
            f"{rate:,.0f} nodes/s | {seconds:,.0f}s "
        )
        self.stream.write(line)
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
