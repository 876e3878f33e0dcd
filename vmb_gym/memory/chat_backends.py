"""Chat backends by spec string, for the LLM-built memories (``summary``, ``key_value``).

``make_memory("summary", llm="openai:gpt-4o-mini")`` (and ``vmb eval --memory summary
--memory-llm openai:gpt-4o-mini``) turns the spec ``KIND:ARG`` into a
:class:`~vmb_gym.memory.llm.ChatBackend` with the factory registered for ``KIND``. A spec is a
plain string, so it is saved in ``config.json`` and travels to worker processes; the backend is
built where the memory is.

vmb_gym ships no model client (``agents`` imports vmb_gym, never the reverse): importing
:mod:`vmb_agents.factory` registers ``openai:MODEL`` (an OpenAI-compatible endpoint,
``$OPENAI_BASE_URL``) and ``hf:PATH`` (a local Hugging Face model). The ``vmb`` commands import
it, and so does every worker that unpickles its policy factory. Anyone can add a kind::

    register_chat_backend("mine", lambda arg: MyBackend(arg))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vmb_gym.errors import ConfigError
from vmb_gym.memory.llm import ChatBackend
from vmb_gym.names import did_you_mean, match_name

__all__ = [
    "ChatBackendFactory",
    "chat_backend_kinds",
    "check_chat_backend",
    "make_chat_backend",
    "register_chat_backend",
    "resolve_llm",
]

#: ``factory(arg) -> ChatBackend`` for a spec ``KIND:ARG``.
ChatBackendFactory = Callable[[str], ChatBackend]

_BACKENDS: dict[str, ChatBackendFactory] = {}
_FLAG_HINT = "pass --memory-llm openai:MODEL or --memory-llm hf:PATH to vmb eval"


def register_chat_backend(kind: str, factory: ChatBackendFactory, *, replace: bool = True) -> None:
    """Make ``KIND:ARG`` specs build ``factory(ARG)``.

    Raises:
        ValueError: ``kind`` is taken and ``replace`` is false.
    """
    if not replace and kind in _BACKENDS:
        raise ValueError(f"chat backend {kind!r} is already registered; pass replace=True to override it")
    _BACKENDS[kind] = factory


def chat_backend_kinds() -> list[str]:
    """The registered spec kinds, sorted (``hf`` and ``openai`` once :mod:`vmb_agents.factory` is imported)."""
    return sorted(_BACKENDS)


def check_chat_backend(spec: str) -> tuple[str, str]:
    """``(kind, arg)`` of a spec ``KIND:ARG`` whose kind is registered (builds nothing).

    Raises:
        ConfigError: the spec has no ``KIND:`` or nothing after it, or ``KIND`` is not registered.
    """
    kind, sep, arg = str(spec).strip().partition(":")
    if not sep or not arg.strip():
        raise ConfigError(f"expected an LLM spec KIND:ARG such as openai:gpt-4o-mini or hf:/models/qwen, "
                          f"found {spec!r}")
    known = chat_backend_kinds()
    found = match_name(kind, known)
    if found is None:
        hint = did_you_mean(kind, known)
        raise ConfigError(f"unknown LLM backend kind {kind!r} in {spec!r}; known: {', '.join(known) or 'none'}"
                          f" (import vmb_agents.factory to register openai and hf){hint}")
    return found, arg.strip()


def make_chat_backend(spec: str) -> ChatBackend:
    """The backend a spec ``KIND:ARG`` names (e.g. ``openai:gpt-4o-mini``, ``hf:/models/qwen``).

    Raises:
        ConfigError: as :func:`check_chat_backend`.
    """
    kind, arg = check_chat_backend(spec)
    return _BACKENDS[kind](arg)


def resolve_llm(llm: ChatBackend | str | None, memory: str) -> Any:
    """The backend the LLM-built memory ``memory`` uses: ``llm`` itself, or built from its spec.

    Raises:
        ConfigError: ``llm`` is None (the message names ``--memory-llm``) or a bad spec.
    """
    if llm is None:
        raise ConfigError(f"{memory} memory needs an LLM backend to build it; {_FLAG_HINT}, or in Python "
                          f"make_memory({memory!r}, llm=<ChatBackend or 'openai:MODEL'>)")
    if isinstance(llm, str):
        return make_chat_backend(llm)
    return llm
