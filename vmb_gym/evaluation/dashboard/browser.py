"""Headless Chromium driven over the DevTools protocol, with no dependency beyond the stdlib.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol commands from file
descriptor 3 and writes replies and events to descriptor 4, each message one JSON object
ended by a NUL byte. That is enough to open a page, run JavaScript in it, click with real
mouse events and take screenshots, which is what the dashboard's browser test, its
screenshots and ``scripts/bench.py`` need. The flags are the ones a closed network needs (no
background networking, component updates or sync), and each browser gets a fresh profile.

Example::

    with HeadlessChromium() as browser:
        browser.open("file:///tmp/site/index.html")
        browser.wait_for("document.querySelector('#tasks tbody tr') !== null")
        browser.click("#tasks tbody tr")
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Any

from vmb_gym.errors import ConfigError, VmbError

__all__ = ["BrowserError", "HeadlessChromium", "chromium_flags", "find_chromium"]

#: Binaries tried in order when ``$VMB_CHROMIUM`` is not set.
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


class BrowserError(VmbError):
    """The browser did not start, answered with a protocol error or timed out."""


def find_chromium() -> str | None:
    """Path of a Chromium binary (``$VMB_CHROMIUM`` first, then the usual names), or ``None``."""
    env = os.environ.get("VMB_CHROMIUM")
    if env:
        return env if Path(env).exists() else shutil.which(env)
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def chromium_flags(profile_dir: str, width: int, height: int) -> list[str]:
    """The command-line flags of a headless, offline Chromium with a fresh profile."""
    return [
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
        f"--user-data-dir={profile_dir}", f"--window-size={width},{height}",
        "--remote-debugging-pipe", "about:blank",
    ]


def _spawn(argv: list[str], to_child: int, from_child: int) -> int:
    """Start ``argv`` with ``to_child`` as its descriptor 3 and ``from_child`` as 4; returns the pid.

    ``posix_spawn`` maps the descriptors without running Python in the child (safe in a process
    with threads, unlike ``preexec_fn``); both are first moved above 9 so that neither mapping
    overwrites the other. Standard input and output go to ``/dev/null``.
    """
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_child, from_child)]
    try:
        actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
                   (os.POSIX_SPAWN_DUP2, high[0], 3), (os.POSIX_SPAWN_DUP2, high[1], 4)]
        return os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    finally:
        for fd in high:
            os.close(fd)


def _wait(pid: int, timeout: float) -> bool:
    """Reap ``pid`` within ``timeout`` seconds; ``True`` when it has exited."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return True
        if done:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


class HeadlessChromium:
    """One headless Chromium with one page, driven over the DevTools pipe.

    Args:
        binary: the Chromium executable (default: :func:`find_chromium`).
        width: viewport width in CSS pixels.
        height: viewport height in CSS pixels.
        timeout: seconds any single wait may take before :class:`BrowserError`.

    Raises:
        ConfigError: no Chromium binary was found.
        BrowserError: the browser did not start.
    """

    def __init__(self, binary: str | None = None, *, width: int = 1400, height: int = 900,
                 timeout: float = 30.0) -> None:
        binary = binary or find_chromium()
        if binary is None:
            raise ConfigError("expected a Chromium binary (chromium, google-chrome or $VMB_CHROMIUM), "
                              "found none; install it with `apt-get install -y chromium`")
        self.timeout = timeout
        self._profile = tempfile.mkdtemp(prefix="vmb-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        self._pid = _spawn([binary, *chromium_flags(self._profile, width, height)], to_child_r, from_child_w)
        self._running = True
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        try:
            target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self._session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.send("Page.enable")
            self.send("Runtime.enable")
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        except BaseException:
            self.close()
            raise

    # -- protocol -------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"expected a DevTools message within {self.timeout:.0f} s, found none")
            ready, _, _ = select.select([self._from_child], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("Chromium closed the DevTools pipe (it exited); run it by hand to see why")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(raw)

    def _send(self, method: str, params: dict[str, Any] | None = None,
              session: str | None = None) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self._events.append(reply)

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one DevTools command to the page and return its result."""
        return self._send(method, params, self._session)

    # -- page -----------------------------------------------------------------------------
    def open(self, url: str) -> None:
        """Navigate to ``url`` and wait for its load event."""
        self._events.clear()
        self.send("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self._events):
            self._events.append(self._read_message(deadline))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises are awaited).

        Raises:
            BrowserError: the expression threw.
        """
        result = self.send("Runtime.evaluate",
                           {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            detail = result["exceptionDetails"]
            text = (detail.get("exception") or {}).get("description") or detail.get("text")
            raise BrowserError(f"the page raised: {text}")
        return (result.get("result") or {}).get("value")

    def wait_for(self, condition: str, timeout: float | None = None) -> float:
        """Poll a JavaScript condition until it is true; returns the seconds waited.

        Raises:
            BrowserError: the condition stayed false for ``timeout`` seconds.
        """
        start = time.monotonic()
        limit = self.timeout if timeout is None else timeout
        while not self.evaluate(f"Boolean({condition})"):
            if time.monotonic() - start > limit:
                raise BrowserError(f"expected `{condition}` to become true within {limit:.0f} s; it did not")
            time.sleep(0.02)
        return time.monotonic() - start

    def click(self, selector: str) -> None:
        """Click the first element matching a CSS selector with real mouse events.

        Raises:
            BrowserError: nothing matches the selector.
        """
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        if box is None:
            raise BrowserError(f"expected an element matching {selector!r} to click, found none")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params: dict[str, Any] = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.send("Input.dispatchMouseEvent", params)

    def screenshot(self, path: str | os.PathLike[str], *, full_page: bool = False) -> None:
        """Write a PNG of the viewport (or of the whole page) to ``path``."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1})
        data = self.send("Page.captureScreenshot", params)["data"]
        Path(path).write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """Stop the browser and remove its profile."""
        if self._running:
            try:
                os.write(self._to_child, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
            except OSError:
                pass
            if not _wait(self._pid, 5):
                os.kill(self._pid, signal.SIGKILL)
                _wait(self._pid, 5)
            self._running = False
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> HeadlessChromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
