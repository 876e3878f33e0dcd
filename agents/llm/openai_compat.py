"""A policy on any OpenAI-compatible chat-completions endpoint, with the official agent loop.

Requests go through the official ``openai`` SDK (``pip install 'vmb_gym[llm]'``): ``POST
{base_url}/chat/completions`` with ``tools`` and ``tool_choice="auto"``, temperature 0 and
``max_tokens`` 8192 by default (the official settings, spec §2.2). The SDK's conventions hold:

* the endpoint is the ``base_url`` option, else the ``OPENAI_BASE_URL`` environment variable,
  else ``https://api.openai.com/v1`` (so ``OPENAI_BASE_URL=http://127.0.0.1:8000/v1 vmb eval
  --policy openai:MODEL ...`` talks to a local server);
* the key is read from ``OPENAI_API_KEY`` (or the variable ``api_key_env`` names) at each
  request and sent as ``Authorization: Bearer ...``; without it no ``Authorization`` header is
  sent (local servers). It is never stored on the object, shown in ``repr`` or written into
  results or error messages. An endpoint that always needs a key (:data:`KEYED_HOSTS`, the
  public OpenAI API) is refused at construction when the variable is unset, rather than
  failing every request after its retries.

Infrastructure failures (connection errors, timeouts, 5xx/429 after ``max_retries`` retries with
exponential backoff ``backoff * 2**attempt``, malformed replies, rejected requests) raise
:class:`EndpointError`, so an evaluation can record them apart from policy failures. The SDK's
own retries are off: the retry loop here is the one whose delays are documented.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from typing import Any

from vmb_agents.llm.chat import FINISH, ToolChatPolicy
from vmb_gym.errors import ConfigError, VmbError
from vmb_gym.memory.llm import ChatReply, Messages, Tools

log = logging.getLogger(__name__)

__all__ = ["BASE_URL_ENV", "DEFAULT_BASE_URL", "KEYED_HOSTS", "EndpointError", "EndpointOptions", "OpenAIClient",
           "OpenAIPolicy", "check_api_key", "resolve_base_url", "to_openai_messages"]

#: HTTP statuses worth retrying (overload, rate limit, gateway trouble, request timeout).
RETRY_STATUSES = frozenset({408, 409, 429, 500, 502, 503, 504})


class EndpointError(VmbError):
    """The model endpoint failed (after retries): an infrastructure failure, not a policy one.

    Attributes:
        status: the last HTTP status, when there was one.
        attempts: how many requests were made.
    """

    def __init__(self, message: str, *, status: int | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = attempts


def to_openai_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Transcript messages in the wire format: tool-call ``arguments`` as JSON strings, ids on calls."""
    out: list[dict[str, Any]] = []
    last_ids: list[str] = []
    for n, m in enumerate(messages):
        msg = {k: v for k, v in m.items() if k in ("role", "content", "tool_calls", "tool_call_id", "name")}
        if msg.get("role") == "assistant" and msg.get("tool_calls"):
            calls = []
            last_ids = []
            for k, tc in enumerate(msg["tool_calls"]):
                fn = tc.get("function", tc)
                args = fn.get("arguments", {})
                call_id = str(tc.get("id") or f"call_{n}_{k}")
                last_ids.append(call_id)
                calls.append({"id": call_id, "type": "function", "function": {
                    "name": fn.get("name", ""),
                    "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)}})
            msg["tool_calls"] = calls
            if msg.get("content") is None:
                msg["content"] = ""
        elif msg.get("role") == "tool":
            if not msg.get("tool_call_id") and last_ids:
                msg["tool_call_id"] = last_ids.pop(0)
            if msg.get("name") is None:
                msg.pop("name", None)
            if not isinstance(msg.get("content"), str):
                msg["content"] = json.dumps(msg.get("content"), ensure_ascii=False)
        out.append(msg)
    return out


#: The default endpoint root (the SDK's).
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The environment variable the SDK reads the endpoint root from.
BASE_URL_ENV = "OPENAI_BASE_URL"


#: Hosts that answer nothing without a key: a missing key is a configuration error there.
KEYED_HOSTS = frozenset({"api.openai.com"})


def resolve_base_url(base_url: str | None = None) -> str:
    """The endpoint root, as the SDK picks it: ``base_url``, else ``$OPENAI_BASE_URL``, else the default."""
    return base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL


def check_api_key(base_url: str, api_key_env: str = "OPENAI_API_KEY") -> None:
    """Fail at once when ``base_url`` is an endpoint that needs a key (:data:`KEYED_HOSTS`) and ``$api_key_env`` is
    unset.

    Raises:
        ConfigError: the key is missing; the message says how to set it or use a local server.
    """
    from urllib.parse import urlsplit

    host = (urlsplit(base_url).hostname or "").lower()
    if host in KEYED_HOSTS and not os.environ.get(api_key_env):
        raise ConfigError(
            f"{base_url} needs an API key, but ${api_key_env} is not set; fix: export {api_key_env}=..., or use "
            f"a local OpenAI-compatible server: base_url=http://HOST:PORT/v1 (in vmb eval: --policy-kwargs "
            f"'{{\"base_url\": \"http://127.0.0.1:8000/v1\"}}') or ${BASE_URL_ENV}")


@dataclass(frozen=True)
class EndpointOptions:
    """How to reach and ask an OpenAI-compatible endpoint (one list for the client and the policy).

    Attributes:
        base_url: endpoint root, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended);
            None (default): ``$OPENAI_BASE_URL``, else :data:`DEFAULT_BASE_URL`.
        api_key_env: environment variable holding the key (no ``Authorization`` header when unset).
        timeout: seconds per request.
        max_retries: retries after the first attempt for retryable failures.
        backoff: first retry delay in seconds; each further retry doubles it.
        temperature: sampling temperature (official: 0).
        max_tokens: reply budget (official: 8192).
        extra_body: more request fields (e.g. ``{"enable_thinking": False}``).
    """

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 3
    backoff: float = 3.0
    temperature: float = 0.0
    max_tokens: int = 8192
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        base_url = resolve_base_url(self.base_url)
        if not base_url.startswith(("http://", "https://")):
            where = "" if self.base_url else f" (from ${BASE_URL_ENV})"
            raise ConfigError(f"base_url must start with http:// or https://, got {base_url!r}{where}")
        if self.timeout <= 0:
            raise ConfigError(f"timeout must be > 0 seconds, got {self.timeout}")
        if not isinstance(self.max_retries, int) or self.max_retries < 0:
            raise ConfigError(f"max_retries must be an integer >= 0, got {self.max_retries!r}")
        if self.backoff < 0:
            raise ConfigError(f"backoff must be >= 0 seconds, got {self.backoff}")
        set_ = object.__setattr__  # frozen: normalise once here
        set_(self, "base_url", base_url.rstrip("/"))
        for name, kind in (("timeout", float), ("backoff", float), ("temperature", float), ("max_tokens", int)):
            set_(self, name, kind(getattr(self, name)))
        set_(self, "extra_body", dict(self.extra_body or {}))

    @classmethod
    def from_kwargs(cls, **kwargs: Any) -> EndpointOptions:
        """Options from keyword arguments (``extra_body=None`` means none).

        Raises:
            ConfigError: a keyword is not an option (the message names the accepted ones).
        """
        accepted = [f.name for f in fields(cls)]
        unknown = sorted(set(kwargs) - set(accepted))
        if unknown:
            raise ConfigError(f"unknown endpoint option(s) {', '.join(unknown)}; accepted: {', '.join(accepted)}")
        if kwargs.get("extra_body") is None:
            kwargs.pop("extra_body", None)
        return cls(**kwargs)


class OpenAIClient:
    """A chat-completions client with function calling (a memory-module LLM backend too).

    Args:
        model: model name sent in each request.
        base_url: endpoint root; None (default): ``$OPENAI_BASE_URL``, else :data:`DEFAULT_BASE_URL`.
        **options: the other :class:`EndpointOptions` fields (``api_key_env``, ``timeout``,
            ``max_retries``, ``backoff``, ``temperature``, ``max_tokens``, ``extra_body``).

    Raises:
        ConfigError: an empty model name, a bad or unknown option, or no key for an endpoint that
            needs one (see :func:`check_api_key`).
    """

    def __init__(self, model: str, base_url: str | None = None, **options: Any) -> None:
        if not model:
            raise ConfigError("model must be a non-empty model name")
        self.model = model
        self.options = EndpointOptions.from_kwargs(base_url=base_url, **options)
        check_api_key(self.options.base_url, self.options.api_key_env)
        self.requests_made = 0
        self._sdk: Any = None  # the openai.OpenAI client, built on first use (not pickled)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_sdk"] = None  # an HTTP client does not pickle; a copy builds its own
        return state

    def _client(self) -> Any:
        """The SDK client (one per object; thread-safe, so :meth:`OpenAIPolicy.chat_many` shares it)."""
        if self._sdk is None:
            try:
                import openai
            except ImportError as exc:
                raise ConfigError(f"the openai package is missing ({exc}); fix: pip install 'vmb_gym[llm]'") from exc
            # The key goes with each request (see _auth_headers); the client holds a placeholder.
            self._sdk = openai.OpenAI(api_key="unused", base_url=self.base_url, timeout=self.options.timeout,
                                      max_retries=0)
        return self._sdk

    @property
    def base_url(self) -> str:
        """The endpoint root (no trailing slash)."""
        return self.options.base_url

    @property
    def api_key_env(self) -> str:
        """The environment variable holding the key."""
        return self.options.api_key_env

    def __repr__(self) -> str:
        o = self.options
        return (f"OpenAIClient(model={self.model!r}, base_url={o.base_url!r}, api_key_env={o.api_key_env!r}, "
                f"timeout={o.timeout}, max_retries={o.max_retries})")

    def _scrub(self, text: str) -> str:
        key = os.environ.get(self.api_key_env)
        return text.replace(key, "***") if key else text

    def _auth_headers(self) -> dict[str, Any]:
        """The request's ``Authorization`` header: the key read now, or none at all when it is unset."""
        from openai import Omit

        key = os.environ.get(self.api_key_env)
        return {"Authorization": f"Bearer {key}" if key else Omit()}

    def request_body(self, messages: Messages, tools: Tools | None) -> dict[str, Any]:
        """The JSON body of one chat-completions request."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(messages),
            "temperature": self.options.temperature,
            "max_tokens": self.options.max_tokens,
        }
        if tools:
            body["tools"] = list(tools)
            body["tool_choice"] = "auto"
        body.update(self.options.extra_body)
        return body

    def _post_once(self, body: dict[str, Any]) -> tuple[int | None, dict[str, Any] | None, str]:
        """One request through the SDK: (status, decoded reply or None, error text)."""
        import openai

        self.requests_made += 1
        client = self._client()
        known = {k: body[k] for k in ("model", "messages", "temperature", "max_tokens", "tools", "tool_choice")
                 if k in body}
        extra = {k: v for k, v in body.items() if k not in known}
        try:
            raw = client.chat.completions.with_raw_response.create(
                **known, extra_body=extra or None, extra_headers=self._auth_headers())
            status, payload = raw.status_code, raw.http_response.content
        except openai.APITimeoutError:
            return None, None, f"no reply within {self.options.timeout:g} s"
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            return None, None, f"connection failed: {type(cause).__name__}: {self._scrub(str(cause))}"
        except openai.APIStatusError as exc:
            detail = exc.response.text[:300] if exc.response is not None else ""
            return exc.status_code, None, f"HTTP {exc.status_code}: {self._scrub(detail)}"
        try:
            decoded = json.loads(payload)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            start = self._scrub(payload[:80].decode("utf-8", "replace"))
            return status, None, f"malformed JSON reply ({exc}); body starts {start!r}"
        if not isinstance(decoded, dict) or not isinstance(decoded.get("choices"), list) or not decoded["choices"]:
            return status, None, "the reply has no choices"
        return status, decoded, ""

    def complete(self, messages: Messages, tools: Tools | None = None) -> dict[str, Any]:
        """The decoded chat-completions reply, with retries.

        Raises:
            EndpointError: every attempt failed, or the endpoint rejected the request (4xx).
        """
        body = self.request_body(messages, tools)
        attempts = 0
        status: int | None = None
        error = ""
        for attempt in range(self.options.max_retries + 1):
            attempts += 1
            status, decoded, error = self._post_once(body)
            if decoded is not None:
                return decoded
            retryable = status is None or status in RETRY_STATUSES or 200 <= status < 300
            if not retryable or attempt == self.options.max_retries:
                break
            delay = self.options.backoff * (2 ** attempt)
            log.warning("chat request to %s failed (%s); retry %d/%d in %.1f s", self.base_url, error,
                        attempt + 1, self.options.max_retries, delay)
            time.sleep(delay)
        raise EndpointError(f"{self.base_url}/chat/completions failed after {attempts} attempt(s): {error}",
                            status=status, attempts=attempts)

    def chat(self, messages: Messages, tools: Tools | None = None) -> ChatReply:
        """One reply: ``{"content", "tool_calls": [{"id", "name", "arguments"}], "parse_errors", "usage",
        "finish_reason"}``.

        Tool-call arguments that are not valid JSON become ``{}`` (official behaviour) and are
        named in ``parse_errors``.

        Raises:
            EndpointError: see :meth:`complete`.
        """
        decoded = self.complete(messages, tools)
        choice = decoded["choices"][0] if isinstance(decoded["choices"][0], dict) else {}
        message = choice.get("message") or {}
        calls = []
        errors = []
        for tc in message.get("tool_calls") or []:
            fn = tc.get("function") or {}
            raw = fn.get("arguments")
            if isinstance(raw, dict):
                args = raw
            else:
                try:
                    args = json.loads(raw) if raw else {}
                except (json.JSONDecodeError, TypeError):
                    args = {}
                    errors.append(f"arguments of {fn.get('name')} are not valid JSON: {str(raw)[:80]!r}")
                if not isinstance(args, dict):
                    errors.append(f"arguments of {fn.get('name')} are not a JSON object")
                    args = {}
            calls.append({"id": tc.get("id"), "name": str(fn.get("name", "")), "arguments": args})
        usage = decoded.get("usage") or {}
        return {
            "content": message.get("content") or "",
            "tool_calls": calls,
            "parse_errors": errors,
            "usage": {"prompt_tokens": int(usage.get("prompt_tokens") or 0),
                      "completion_tokens": int(usage.get("completion_tokens") or 0)},
            "finish_reason": choice.get("finish_reason"),
        }


class OpenAIPolicy(ToolChatPolicy):
    """The official agent loop on an OpenAI-compatible endpoint.

    Args:
        model: model name sent in each request.
        base_url: endpoint root; None (default): ``$OPENAI_BASE_URL``, else :data:`DEFAULT_BASE_URL`.
        max_turns: most model turns per episode (official: 10).
        memory: optional :class:`~vmb_agents.llm.memory_prompt.MemoryPrompter`.
        on_endpoint_error: ``"raise"`` (default: :class:`EndpointError` leaves :meth:`act`) or
            ``"finish"`` (official: stop the episode and score the state reached; the failure is
            counted in ``stats["endpoint_errors"]``).
        workers: threads for :meth:`act_batch`.
        **endpoint: the other :class:`EndpointOptions` fields, passed to :class:`OpenAIClient`.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        *,
        max_turns: int = 10,
        memory: Any | None = None,
        on_endpoint_error: str = "raise",
        workers: int = 8,
        **endpoint: Any,
    ) -> None:
        super().__init__(max_turns=max_turns, memory=memory)
        if on_endpoint_error not in ("raise", "finish"):
            raise ConfigError(f"on_endpoint_error must be 'raise' or 'finish', got {on_endpoint_error!r}")
        self.client = OpenAIClient(model, base_url, **endpoint)
        self.on_endpoint_error = on_endpoint_error
        self.workers = max(1, int(workers))

    def __repr__(self) -> str:
        return f"OpenAIPolicy(client={self.client!r}, max_turns={self.max_turns})"

    def chat(self, messages: Messages, tools: Tools | None = None) -> ChatReply:
        """One reply from the endpoint (see :meth:`OpenAIClient.chat`)."""
        return self.client.chat(messages, tools)

    def chat_many(self, requests: Sequence[tuple[Messages, Tools]]) -> list[ChatReply]:
        """Replies to several requests, sent concurrently."""
        if len(requests) <= 1 or self.workers == 1:
            return [self.chat(m, t) for m, t in requests]
        with ThreadPoolExecutor(max_workers=min(self.workers, len(requests))) as pool:
            return list(pool.map(lambda r: self.chat(*r), requests))

    def act(self, observation: str, info: dict[str, Any]) -> Any:
        """One model turn; an endpoint failure raises or finishes (see ``on_endpoint_error``)."""
        try:
            return super().act(observation, info)
        except EndpointError:
            if self.on_endpoint_error == "raise":
                raise
            self.state.done = True
            self.state.stats["endpoint_errors"] = self.state.stats.get("endpoint_errors", 0) + 1
            self.state.stats["stop_reason"] = "endpoint_error"
            return FINISH
