"""BATCH: progress on stderr for long runs: a bar on a terminal (rich, imported only when
shown), else a line every few seconds (a CI log shows the run is alive)."""

from __future__ import annotations

import sys
import time
from typing import Any

DELAY_SECONDS = 1.0
TICK_SECONDS = 10.0  # between two progress lines when stderr is not a terminal


class Progress:
    """Shows a bar once a run has taken longer than a second (``enabled``, on a terminal), or
    (``ticking``) prints a line every ``TICK_SECONDS``; silent otherwise. ``label`` says what
    the run does (checking, converting)."""

    def __init__(self, total: int, enabled: bool, *, label: str = "converting",
                 color: bool = True, ticking: bool = False) -> None:
        self.total = total
        self.enabled = enabled and total > 1
        self.ticking = ticking and not self.enabled
        self.label = label
        self.color = color
        self.started = self.said = time.monotonic()
        self.done = 0
        self._bar: Any = None
        self._task: Any = None

    def advance(self, count: int = 1) -> None:
        self.done += count
        if self.ticking:
            now = time.monotonic()
            if now - self.said >= TICK_SECONDS:
                self.said = now
                of = f" of {self.total}" if self.total else ""
                files = "file" if self.done == 1 and not self.total else "files"
                print(f"{self.label}: {self.done}{of} {files} done ({now - self.started:.0f}s)",
                      file=sys.stderr, flush=True)
            return
        if not self.enabled:
            return
        if self._bar is None and time.monotonic() - self.started > DELAY_SECONDS \
                and self.done < self.total:
            self._start()
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        self._bar = Progress(self.label, BarColumn(), MofNCompleteColumn(),
                             TimeRemainingColumn(),
                             console=Console(stderr=True, no_color=not self.color),
                             transient=True)
        self._task = self._bar.add_task("files", total=self.total, completed=self.done)
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
