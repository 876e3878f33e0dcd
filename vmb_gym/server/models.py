"""The wire types of ``vmb serve``: OpenEnv pydantic ``Action`` / ``Observation`` / ``State``.

An action carries the structured call (``name`` + ``arguments``), a list of them (``calls``) or
the env's text form (``text``: a JSON call or the Python-call form of the gold answers). An
observation carries the env's text observation and the step's ``info`` (JSON-safe; the final
step's ``info`` holds ``metrics``, ``episode_stats`` and whatever else the env reports, e.g.
``reward_components``).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from vmb_gym.server.openenv_api import Action, Observation, State

__all__ = ["ToolCall", "VmbAction", "VmbObservation", "VmbState", "env_call"]

_CALL_KEYS = frozenset(("name", "arguments"))


class ToolCall(BaseModel):
    """One tool call: a tool name and its keyword arguments."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=200, description="tool name, e.g. 'carcontrol_seat_set_heating_level'")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's keyword arguments")


class VmbAction(Action):
    """One env action: exactly one of ``name`` (+ ``arguments``), ``calls`` or ``text``."""

    name: str | None = Field(default=None, min_length=1, max_length=200, description="tool name of a single call")
    arguments: dict[str, Any] = Field(default_factory=dict, description="arguments of the single call")
    calls: list[ToolCall] | None = Field(default=None, min_length=1, description="several calls in one step")
    text: str | None = Field(default=None, min_length=1, description="the env's text form of the action")

    @model_validator(mode="after")
    def _one_form(self) -> VmbAction:
        given = [f for f in ("name", "calls", "text") if getattr(self, f) is not None]
        if len(given) != 1:
            # PydanticCustomError (not ValueError): its error details stay JSON-serialisable on the wire
            raise PydanticCustomError("action_form", "expected exactly one of 'name', 'calls' or 'text', got {given}",
                                      {"given": ", ".join(given) or "none"})
        if self.arguments and self.name is None:
            raise PydanticCustomError("action_form",
                                      "'arguments' goes with 'name'; put per-call arguments inside 'calls'")
        return self

    def may_search(self) -> bool:
        """Whether running the action may search memory (slow the first time a scenario is indexed)."""
        if self.text is not None:
            return "search_memory" in self.text
        if self.calls is not None:
            return any(c.name == "search_memory" for c in self.calls)
        return self.name == "search_memory"

    def to_env_action(self) -> Any:
        """The action in the form ``VehicleMem-v0.step`` takes."""
        if self.text is not None:
            return self.text
        if self.calls is not None:
            return [{"name": c.name, "arguments": dict(c.arguments)} for c in self.calls]
        return {"name": self.name, "arguments": dict(self.arguments)}


def env_call(data: Any) -> tuple[Any, bool]:
    """A step's action (its JSON ``data``) in the env's form, and whether it may search memory.

    A plain single call (``{"name": str, "arguments": {...}}``, the common case) is taken as it
    is: the same checks :class:`VmbAction` makes on it, without building the model. Everything
    else goes through :class:`VmbAction`.

    Raises:
        pydantic.ValidationError: ``data`` is not a valid :class:`VmbAction`.
    """
    if type(data) is dict and data.keys() <= _CALL_KEYS:
        name, arguments = data.get("name"), data.get("arguments", {})
        if type(name) is str and 1 <= len(name) <= 200 and type(arguments) is dict:
            return {"name": name, "arguments": arguments}, name == "search_memory"
    action = VmbAction.model_validate(data)
    return action.to_env_action(), action.may_search()


class VmbObservation(Observation):
    """The env's observation after ``reset`` or ``step``."""

    text: str = Field(description="the env's text observation")
    task_id: str | None = Field(default=None, description="the episode's task (request) id")
    step: int = Field(default=0, description="steps taken in this episode")
    truncated: bool = Field(default=False, description="the episode ended at the step limit")
    info: dict[str, Any] = Field(default_factory=dict, description="the env's info dict (JSON-safe)")


class VmbState(State):
    """The session's state: episode id and step count (OpenEnv's fields) plus the episode's task."""

    task_id: str | None = Field(default=None, description="the current task id")
    env_id: str = Field(default="VehicleMem-v0", description="the Gymnasium id served")
    data: str = Field(default="default", description="the data spec of the session's env")
    memory: str = Field(default="none", description="the memory module (the store of the stream env)")
    done: bool = Field(default=True, description="no episode is running")
    reward: float | None = Field(default=None, description="the final reward of the last finished episode")
