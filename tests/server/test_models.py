"""``env_call``: a plain call skips building ``VmbAction`` and gets the same result and the same refusals."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from vmb_gym.server.models import VmbAction, env_call


@pytest.mark.parametrize("data", [
    {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
    {"name": "finish"},
    {"name": "search_memory", "arguments": {"query": "seat heating", "top_k": 2}},
    {"name": "x" * 200, "arguments": {}},
    {"calls": [{"name": "search_memory", "arguments": {"query": "q"}}, {"name": "finish"}]},
    {"text": '{"name": "finish"}'},
    {"name": "finish", "metadata": {"k": 1}},
])
def test_env_call_equals_the_model_path(data: dict) -> None:
    action = VmbAction.model_validate(data)
    assert env_call(data) == (action.to_env_action(), action.may_search())


@pytest.mark.parametrize("data", [
    {"name": ""}, {"name": "x" * 201}, {"name": 3}, {"name": "finish", "arguments": None},
    {"name": "finish", "arguments": [1]}, {"name": "finish", "bogus": 1}, {"arguments": {"a": 1}}, {},
    {"name": "finish", "text": "finish()"},
])
def test_env_call_refuses_what_the_model_refuses(data: dict) -> None:
    with pytest.raises(ValidationError):
        VmbAction.model_validate(data)
    with pytest.raises(ValidationError):
        env_call(data)
