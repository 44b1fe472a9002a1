"""BATCH: A progress bar on stderr for long runs on a terminal (rich, imported only when shown)."""

from __future__ import annotations

import time
from typing import Any

DELAY_SECONDS = 1.0


class Progress:
    """Shows a bar once a run has taken longer than a second; silent otherwise."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled and total > 1
        self.started = time.monotonic()
        self.done = 0
        self._bar: Any = None
        self._task: Any = None

    def advance(self) -> None:
        self.done += 1
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

        self._bar = Progress("converting", BarColumn(), MofNCompleteColumn(),
                             TimeRemainingColumn(), console=Console(stderr=True),
                             transient=True)
        self._task = self._bar.add_task("files", total=self.total, completed=self.done)
        self._bar.start()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
