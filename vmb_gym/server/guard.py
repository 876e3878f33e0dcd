"""The ASGI guard in front of ``vmb serve``: bearer token and request-size cap, HTTP and WebSocket.

* Token: when set, every HTTP request and every WebSocket handshake must carry
  ``Authorization: Bearer TOKEN``; otherwise HTTP gets ``401`` and the handshake is refused
  (``403``) before a session is made. Tokens are compared in constant time and never logged.
* Size: an HTTP body over ``max_request_bytes`` gets ``413``; a WebSocket message over it gets
  an error message (``{"type": "error", "data": {"code": "PAYLOAD_TOO_LARGE", ...}}``) and is
  dropped, and the session goes on.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson
from starlette.websockets import WebSocketDisconnect

__all__ = ["GuardMiddleware", "PAYLOAD_TOO_LARGE", "UNAUTHORIZED", "json_response", "rpc_error"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Error code of an oversized WebSocket message.
PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
#: Error code (HTTP body ``code``) of a missing or wrong token.
UNAUTHORIZED = "UNAUTHORIZED"


class _TooLarge(Exception):
    """An HTTP body grew past the cap while it was read."""


class GuardMiddleware:
    """Wraps an ASGI app with the token check and the size cap.

    Args:
        app: the wrapped app.
        token: the bearer token every request must carry (None: no check).
        max_request_bytes: the largest HTTP body or WebSocket message accepted.
    """

    def __init__(self, app: ASGIApp, *, token: str | None, max_request_bytes: int) -> None:
        self.app = app
        self._token = f"Bearer {token}".encode() if token else None
        self.max_request_bytes = int(max_request_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Check the request, then hand it to the app with a size-checking ``receive``."""
        kind = scope.get("type")
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if not self._authorized(scope):
            if kind == "http":
                await json_response(send, 401, _for_path(scope, {
                    "detail": "missing or wrong bearer token: send 'Authorization: Bearer <token>' with the "
                              "server's --token (or its $VMB_SERVE_TOKEN)", "code": UNAUTHORIZED}))
            else:
                await receive()  # the websocket.connect event
                await send({"type": "websocket.close", "code": 1008, "reason": "missing or wrong bearer token"})
            return
        if kind == "http":
            await self._http(scope, receive, send)
        else:
            try:
                await self.app(scope, self._ws_receive(receive, send), send)
            except WebSocketDisconnect:
                pass  # the client left without a close message: its session is already cleaned up

    def _authorized(self, scope: Scope) -> bool:
        if self._token is None:
            return True
        given = dict(scope.get("headers") or []).get(b"authorization", b"")
        return hmac.compare_digest(given, self._token)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit = self.max_request_bytes
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await json_response(send, 413, _for_path(scope, _too_large(int(declared), limit)))
            return
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message.get("type") == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await json_response(send, 413, _for_path(scope, _too_large(seen, limit)))

    def _ws_receive(self, receive: Receive, send: Send) -> Receive:
        limit = self.max_request_bytes

        async def guarded() -> Message:
            while True:
                message = await receive()
                if message.get("type") != "websocket.receive":
                    return message
                text = message.get("text") or ""
                size = len(message.get("bytes") or b"") + (len(text) if 4 * len(text) <= limit else len(text.encode()))
                if size <= limit:
                    return message
                error = {"type": "error", "data": {"code": PAYLOAD_TOO_LARGE, **_too_large(size, limit)}}
                await send({"type": "websocket.send", "text": orjson.dumps(error).decode()})

        return guarded


def rpc_error(message: str, code: int = -32000) -> dict[str, Any]:
    """A JSON-RPC error response (no id) carrying ``message``: what an MCP client shows of a refused request."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}


def _for_path(scope: Scope, body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as the path's clients read it: a JSON-RPC error on ``/mcp`` (the MCP endpoint), else as it is."""
    if str(scope.get("path", "")).rstrip("/") != "/mcp":
        return body
    return rpc_error(str(body.get("detail") or body.get("message")))


def _too_large(size: int, limit: int) -> dict[str, Any]:
    return {"message": f"request of {size} bytes is over the server's limit of {limit} bytes "
                       "(vmb serve --max-request-bytes)", "size": size, "limit": limit}


async def json_response(send: Send, status: int, body: dict[str, Any]) -> None:
    """Answer an HTTP request with ``body`` as JSON and ``status``."""
    payload = orjson.dumps(body)
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]})
    await send({"type": "http.response.body", "body": payload})
