"""Headless Chromium driven over the DevTools protocol on a pipe (stdlib only, no network).

``--remote-debugging-pipe`` makes Chromium read NUL-terminated JSON commands from fd 3 and
write responses and events to fd 4, so no port and no websocket client are needed.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-extensions", "--hide-scrollbars", "--mute-audio"]


class Browser:
    """One Chromium process with one page; ``with Browser() as b: b.open(url)``."""

    def __init__(self) -> None:
        if CHROMIUM is None:
            raise RuntimeError("chromium is not installed")
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_browser_read, self._to_browser = os.pipe()
        self._from_browser, from_browser_write = os.pipe()
        # the child sees fd 3 = commands in, fd 4 = responses out
        # move the child's ends above fd 10 first, so that "3<&R 4>&W" cannot clobber them
        high_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
        os.close(to_browser_read)
        os.close(from_browser_write)
        to_browser_read, from_browser_write = high_read, high_write
        shell = f'exec "$@" 3<&{to_browser_read} 4>&{from_browser_write}'
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", shell, "chromium", CHROMIUM, *FLAGS, "--remote-debugging-pipe",
             f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(to_browser_read, from_browser_write))
        os.close(to_browser_read)
        os.close(from_browser_write)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"],
                                 flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method: str, *, session: bool = False, timeout: float = 60,
             **params: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def wait_event(self, method: str, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read(deadline)
            if event.get("method") == method:
                return event
            self.events.append(event)

    def _read(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))

    def open(self, url: str, width: int, height: int = 900) -> float:
        """Load ``url`` at a viewport size; the seconds until the load event."""
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                  height=height, deviceScaleFactor=1, mobile=False)
        self.events.clear()
        started = time.monotonic()
        self.call("Page.navigate", session=True, url=url)
        self.wait_event("Page.loadEventFired", timeout=120)
        return time.monotonic() - started

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        path.write_bytes(base64.b64decode(data))

    def console_errors(self) -> list[str]:
        return [json.dumps(e["params"])[:300] for e in self.events
                if e.get("method") in ("Runtime.exceptionThrown", "Log.entryAdded")
                or (e.get("method") == "Runtime.consoleAPICalled"
                    and e["params"].get("type") == "error")]

