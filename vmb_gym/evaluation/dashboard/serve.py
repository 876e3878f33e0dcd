"""Serving a built dashboard on localhost with the standard library's ``http.server``."""

from __future__ import annotations

import functools
import os
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["make_server", "serve_site"]


class _QuietHandler(SimpleHTTPRequestHandler):
    """Serves files of one folder; logs nothing per request."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def make_server(site: str | os.PathLike[str], port: int = 8000, host: str = "127.0.0.1") -> ThreadingHTTPServer:
    """An HTTP server for the files of ``site`` on ``host:port`` (``port=0``: any free port)."""
    handler = functools.partial(_QuietHandler, directory=os.fspath(site))
    return ThreadingHTTPServer((host, port), handler)


def serve_site(site: str | os.PathLike[str], port: int = 8000) -> None:
    """Serve ``site`` on 127.0.0.1 until Ctrl-C."""
    server = make_server(site, port)
    host, bound = server.server_address[:2]
    print(f"serving {os.fspath(site)} at http://{host}:{bound}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
