"""A ``vmb serve`` app run by uvicorn in a thread of the test process, on a free loopback port."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest

pytest.importorskip("openenv")

from vmb_gym.server.app import ServeConfig, create_vmb_app

TOKEN = "test-token"


def free_port() -> int:
    """A TCP port nobody listens on (loopback)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running_server(config: ServeConfig) -> Iterator[str]:
    """Serve ``config`` (its port replaced by a free one) until the block ends; yields the base URL."""
    import uvicorn

    config = replace(config, port=free_port())
    app = create_vmb_app(config)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=config.port, log_level="warning",
                                           ws_max_size=4 * config.max_request_bytes))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="package")
def server_url() -> Iterator[str]:
    """One server for the package's tests: default data, bm25 and gold memory, a token, small caps."""
    config = ServeConfig(data=("default",), memory=("bm25", "gold"), token=TOKEN, max_sessions=8,
                         max_request_bytes=64 * 1024)
    with running_server(config) as url:
        yield url
