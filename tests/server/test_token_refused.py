"""The client says when the server refused its token, against the real ``vmb serve`` app in-process."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from tests.server.conftest import TOKEN, free_port
from vmb_gym.errors import VmbError
from vmb_gym.server.client import TokenRefused, VmbEnvClient


def _connect(url: str, token: str | None) -> None:
    with VmbEnvClient(url, token=token).sync() as env:
        env.reset(task_id="1_0")


@pytest.mark.parametrize(("token", "told"), [(None, "sent no token"), ("wrong", "does not accept")])
def test_a_refused_token_is_named_with_the_fix(server_url: str, token: str | None, told: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VMB_SERVE_TOKEN", raising=False)
    with pytest.raises(TokenRefused) as err:
        _connect(server_url, token)
    text = str(err.value)
    assert "the server at ws://" in text and "refused the token (HTTP 403" in text and told in text
    assert "set VMB_SERVE_TOKEN or pass token=... matching the server's --token" in text
    assert isinstance(err.value, ConnectionError) and isinstance(err.value, VmbError)  # callers' old except still works
    _connect(server_url, TOKEN)  # the right token opens a session


def test_the_token_comes_from_the_environment(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VMB_SERVE_TOKEN", TOKEN)
    _connect(server_url, None)
    monkeypatch.setenv("VMB_SERVE_TOKEN", "stale")
    with pytest.raises(TokenRefused, match="does not accept"):
        _connect(server_url, None)


def test_a_refusal_that_is_not_the_token_stays_a_plain_connection_error(server_url: str) -> None:
    # a wrong path is refused with 403 too, but /health takes the same token: not a token problem
    with pytest.raises(ConnectionError) as err:
        _connect(server_url + "/no-such-prefix", TOKEN)
    assert not isinstance(err.value, TokenRefused) and "could not open a session" in str(err.value)


@pytest.fixture()
def closing_server() -> Iterator[str]:
    """A WebSocket server that accepts the session, then closes it with 1008 for the token (as a guard after accept)."""
    from websockets.asyncio.server import serve

    port = free_port()
    ready, stop = threading.Event(), threading.Event()

    async def handler(ws: object) -> None:
        await ws.recv()  # type: ignore[attr-defined]
        await ws.close(1008, "missing or wrong bearer token")  # type: ignore[attr-defined]

    async def main() -> None:
        async with serve(handler, "127.0.0.1", port):
            ready.set()
            while not stop.is_set():
                await asyncio.sleep(0.02)

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(10)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop.set()
        thread.join(timeout=5)


def test_a_session_closed_for_the_token_says_so(closing_server: str) -> None:
    with pytest.raises(TokenRefused, match=r"session closed with code 1008: missing or wrong bearer token.*"
                                           r"set VMB_SERVE_TOKEN"):
        _connect(closing_server, "wrong")
