"""One error hierarchy for vmb_gym.

Every message says what was expected, what was found and how to fix it. Errors raised
by library code are subclasses of :class:`VmbError`; ``env.step()`` never raises them on
policy input, it turns them into error observations instead.
"""

from __future__ import annotations


class VmbError(Exception):
    """Base class of every error raised by vmb_gym."""


class DataError(VmbError):
    """A data file is missing, malformed or inconsistent.

    Args:
        path: the file that is wrong.
        line: 1-based line number, when one can be named.
        message: what was expected and what was found.
    """

    def __init__(self, path: object, message: str, line: int | None = None) -> None:
        self.path = str(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else self.path
        super().__init__(f"{where}: {message}")


class ActionError(VmbError):
    """A policy action could not be understood (malformed JSON, unknown tool, bad arguments)."""


class ToolCallParseError(ActionError):
    """A text action tried to call a tool and could not be read (a ``parse_error``, counted apart)."""


class ConfigError(VmbError, ValueError):
    """A constructor or command-line option has a value that cannot be used."""


class UnknownMemoryError(ConfigError):
    """A memory module name is not registered."""


class StateError(ConfigError):
    """A saved env state cannot be restored here: another version, env, configuration or task.

    Raised by ``set_state`` (the caller is the trainer, not the policy); the env is left unchanged.
    """
