"""Serving a built dashboard on localhost with the standard library's ``http.server``."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from vmb_gym.progress import progress_log

__all__ = ["make_server", "serve_site"]


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves files of one folder; logs nothing per request."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def make_server(site: str | os.PathLike[str], port: int = 8000, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server for the files of ``site`` on ``host:port`` (``port=0``: any free port)."""
    handler = functools.partial(_QuietHandler, directory=os.fspath(site))
    return ThreadingHTTPServer((host, port), handler)


def serve_site(site: str | os.PathLike[str], port: int = 8000, *,
               announce: Callable[[str], object] | None = None) -> None:
    """Serve ``site`` on 127.0.0.1 until Ctrl-C.

    ``announce`` gets the line saying where (``serving DIR at http://HOST:PORT/ (Ctrl-C stops)``);
    by default it is a :mod:`vmb_gym.progress` note (``vmb dashboard --serve`` prints it on stdout).
    """
    server = make_server(site, port)
    host, bound = server.server_address[:2]
    line = f"serving {os.fspath(site)} at http://{host!s}:{bound}/ (Ctrl-C stops)"
    (announce or progress_log.info)(line)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
