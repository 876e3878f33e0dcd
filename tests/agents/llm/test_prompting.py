"""Parsing of model output into calls, rendering of tools, and the official loop over a scripted backend."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import vmb_gym  # noqa: F401 - registers the env
from vmb_gym.policy import run_episode
from vmb_agents.llm.chat import (
    FINISH,
    ToolChatPolicy,
    parse_tool_calls,
    to_text_tool_messages,
    tools_system_block,
    unbatch_infos,
)
from vmb_agents.llm.memory_prompt import MEMORY_HEADER, MemoryPrompter
from vmb_gym.errors import ConfigError

# --------------------------------------------------------------------------------------- parsing


def test_hermes_blocks_several_calls_and_content() -> None:
    text = ('Let me look.\n<tool_call>\n{"name": "list_module_tools", "arguments": {"module_name": "seat"}}\n'
            '</tool_call>\n'
            '<tool_call>{"name": "carcontrol_seat_set_heating_level", '
            '"arguments": "{\\"seat\\": \\"driver\\", \\"level\\": 3}"}</tool_call>')
    r = parse_tool_calls(text)
    assert r.calls == [
        {"name": "list_module_tools", "arguments": {"module_name": "seat"}},
        {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}},
    ]
    assert r.errors == []
    assert r.content == "Let me look."


def test_hermes_block_errors_are_reported_and_good_blocks_kept() -> None:
    text = ('<tool_call>{"name": "finish", "arguments": {}}</tool_call>'
            '<tool_call>{"name": "x", "arguments": {oops}</tool_call>'
            '<tool_call>{"arguments": {}}</tool_call>')
    r = parse_tool_calls(text)
    assert r.calls == [{"name": "finish", "arguments": {}}]
    assert len(r.errors) == 2
    assert "block 2" in r.errors[0] and "malformed JSON" in r.errors[0]
    assert "no 'name'" in r.errors[1]


def test_unclosed_last_block_and_think_removed() -> None:
    text = '<think>maybe {"name": "bad"}</think><tool_call>\n{"name": "finish", "arguments": {}}\n'
    r = parse_tool_calls(text)
    assert r.calls == [{"name": "finish", "arguments": {}}]
    assert r.errors == []


def test_python_call_inside_block() -> None:
    r = parse_tool_calls('<tool_call>carcontrol_seat_set_heating_level(seat="driver", level=-1)</tool_call>')
    assert r.calls == [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": -1}}]


def test_bare_json_object_list_fenced_and_openai_shape() -> None:
    assert parse_tool_calls('{"name": "finish", "arguments": {}}').calls == [{"name": "finish", "arguments": {}}]
    r = parse_tool_calls('[{"name": "a", "parameters": {"x": 1}}, {"function": {"name": "b", "arguments": "{}"}}]')
    assert r.calls == [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]
    r = parse_tool_calls('Here:\n```json\n{"name": "finish", "arguments": null}\n```')
    assert r.calls == [{"name": "finish", "arguments": {}}]
    assert r.content == "Here:"


def test_json_call_embedded_in_prose() -> None:
    r = parse_tool_calls('I will call {"name": "list_module_tools", "arguments": {"module_name": "HUD"}} now. '
                         '{not json}')
    assert r.calls == [{"name": "list_module_tools", "arguments": {"module_name": "HUD"}}]
    assert "I will call" in r.content and "now." in r.content


def test_broken_bare_json_is_an_error() -> None:
    r = parse_tool_calls('{"name": "finish", "arguments": {')
    assert r.calls == []
    assert r.errors and "malformed JSON" in r.errors[0]


def test_python_call_lines_filtered_by_known_tools() -> None:
    text = ('I think:\nlist_module_tools(module_name="seat")\n'
            'carcontrol_seat_set_heating_level(seat="driver", level=2)\nprint(hello)\n')
    r = parse_tool_calls(text, known_tools=["list_module_tools", "finish"])
    assert [c["name"] for c in r.calls] == ["list_module_tools", "carcontrol_seat_set_heating_level"]
    assert r.calls[1]["arguments"] == {"seat": "driver", "level": 2}
    assert r.content == "I think:\nprint(hello)"
    bad = parse_tool_calls('finish(1, 2)', known_tools=["finish"])
    assert bad.calls == [] and bad.errors and "finish" in bad.errors[0]


def test_plain_prose_is_no_call_no_error() -> None:
    r = parse_tool_calls("The seat heating is already on. Done!")
    assert r.calls == [] and r.errors == []
    assert r.content == "The seat heating is already on. Done!"
    assert parse_tool_calls('{"answer": 3}').calls == []


# --------------------------------------------------------------------------------------- rendering

TOOLS = [{"type": "function", "function": {"name": "finish", "description": "End.",
                                           "parameters": {"type": "object", "properties": {}}}}]


def test_text_tool_messages_alternate_and_carry_tools() -> None:
    msgs = [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": {}}}]},
        {"role": "tool", "tool_call_id": "a", "name": "f", "content": '{"success": true}'},
        {"role": "tool", "tool_call_id": "b", "name": "g", "content": '{"success": false}'},
    ]
    out = to_text_tool_messages(msgs, TOOLS)
    assert [m["role"] for m in out] == ["system", "user", "assistant", "user"]
    assert out[0]["content"].startswith("SYS\n\n# Tools")
    assert '"name": "finish"' in out[0]["content"]
    assert out[2]["content"].count("<tool_call>") == 2 and '"arguments": {"x": 1}' in out[2]["content"]
    assert out[3]["content"].count("<tool_response>") == 2
    # Round trip: what the block tells the model to write is what the parser reads.
    assert parse_tool_calls(out[2]["content"]).calls == [{"name": "f", "arguments": {"x": 1}},
                                                         {"name": "g", "arguments": {}}]
    assert "<tool_call>" in tools_system_block(TOOLS)


def test_unbatch_vector_infos() -> None:
    import numpy as np

    infos = {"task_id": np.array(["a", "b"], dtype=object), "_task_id": np.array([True, False]),
             "calls": np.array([None, [1]], dtype=object), "_calls": np.array([False, True])}
    assert unbatch_infos(infos, 2) == [{"task_id": "a"}, {"calls": [1]}]
    assert unbatch_infos([{"a": 1}, {"b": 2}], 2) == [{"a": 1}, {"b": 2}]


# --------------------------------------------------------------------------------------- the loop


class ScriptedPolicy(ToolChatPolicy):
    """A chat policy whose model replies come from a script (records what it was asked)."""

    def __init__(self, replies: list[dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.replies = list(replies)
        self.requests: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []

    def chat(self, messages, tools=None):  # type: ignore[override]
        self.requests.append((list(messages), list(tools or [])))
        return self.replies.pop(0)


def _call(name: str, **args: Any) -> dict[str, Any]:
    return {"name": name, "arguments": args}


@pytest.fixture()
def env(scenarios):
    return gym.make("VehicleMem-v0", data=scenarios, memory="bm25", max_steps=20)


def test_official_loop_grows_tools_and_stops_at_plain_reply(env) -> None:
    policy = ScriptedPolicy([
        {"content": "", "tool_calls": [_call("list_module_tools", module_name="seat")],
         "usage": {"prompt_tokens": 10, "completion_tokens": 3}},
        {"content": "", "tool_calls": [_call("carcontrol_seat_set_heating_level", seat="driver", level=3)],
         "usage": {"prompt_tokens": 20, "completion_tokens": 4}},
        {"content": "Done.", "tool_calls": []},
    ])
    ep = run_episode(env, policy, task_id="1_0")
    assert ep.terminated and ep.reward == pytest.approx(1.0)
    assert ep.actions[-1] == FINISH
    assert [c["name"] for c in ep.calls] == ["list_module_tools", "carcontrol_seat_set_heating_level", "finish"]
    # Second request saw the seat tools and the tool result message paired with the call id.
    msgs, tools = policy.requests[1]
    names = {t["function"]["name"] for t in tools}
    assert {"list_module_tools", "search_memory", "finish", "carcontrol_seat_set_heating_level"} <= names
    assert msgs[-2]["role"] == "assistant" and msgs[-1]["role"] == "tool"
    assert msgs[-1]["tool_call_id"] == msgs[-2]["tool_calls"][0]["id"]
    assert '"Loaded' in msgs[-1]["content"]
    assert policy.stats["prompt_tokens"] == 30 and policy.stats["completion_tokens"] == 7
    assert policy.stats["stop_reason"] == "no_tool_calls" and policy.stats["turns"] == 3


def test_max_turns_finishes_without_asking(env) -> None:
    policy = ScriptedPolicy([{"content": "", "tool_calls": [_call("list_module_tools", module_name="HUD")]}] * 5,
                            max_turns=2)
    ep = run_episode(env, policy, task_id="1_0")
    assert len(policy.requests) == 2
    assert ep.actions[-1] == FINISH and ep.terminated
    assert policy.stats["stop_reason"] == "max_turns"


def test_parse_error_official_stops_feedback_retries(env) -> None:
    bad = {"content": "", "tool_calls": [], "parse_errors": ["<tool_call> block 1: malformed JSON"]}
    official = ScriptedPolicy([bad])
    run_episode(env, official, task_id="1_0")
    assert official.stats["stop_reason"] == "parse_error" and official.stats["parse_errors"] == 1
    fb = ScriptedPolicy([bad, {"content": "", "tool_calls": [_call("finish")]}], feedback_parse_errors=True)
    ep = run_episode(env, fb, task_id="1_0")
    assert ep.terminated and len(fb.requests) == 2
    assert "could not be read" in fb.requests[1][0][-1]["content"]


def test_rejected_action_error_goes_to_every_call(env) -> None:
    # Arguments that are not an object make the env reject the whole action.
    policy = ScriptedPolicy([
        {"content": "", "tool_calls": [_call("list_module_tools", module_name="seat"), {"name": "", "arguments": {}}]},
        {"content": "ok", "tool_calls": []},
    ])
    run_episode(env, policy, task_id="1_0")
    msgs = policy.requests[1][0]
    tool_msgs = [m for m in msgs if m["role"] == "tool"]
    assert len(tool_msgs) == 2
    assert all('"success": false' in m["content"] for m in tool_msgs)


def test_memory_prompter_puts_hits_in_prompt_and_reports_figures(env, scenarios) -> None:
    policy = ScriptedPolicy([{"content": "bye", "tool_calls": []}],
                            memory=MemoryPrompter("bm25", env.unwrapped.tasks, top_k=3))
    run_episode(env, policy, task_id="1_0")
    system = policy.requests[0][0][0]["content"]
    assert system.startswith(MEMORY_HEADER)
    stats = policy.stats
    assert stats["memory_searches"] == 1
    ids = stats["memory_hit_line_ids"][0]
    assert 3 in ids  # the evidence line (level 3)
    assert 4 not in ids  # later than the request (as_of 2025-04-15): never retrieved
    assert stats["memory_tokens"] > 0
    assert stats["memory_audit"]["mrr"] > 0
    # Context modules: the gold memory text verbatim.
    gold = MemoryPrompter("gold", scenarios)
    msgs, fig = gold.augment([{"role": "system", "content": "S"}], {"task_id": "1_0", "scenario_id": 1})
    assert msgs[0]["content"] == MEMORY_HEADER + "Gary prefers seat heating level 3\n\nS"
    assert fig["memory_searches"] == 0 and fig["memory_tokens"] > 0


def test_memory_prompter_config_errors(scenarios) -> None:
    with pytest.raises(ConfigError, match="neither search nor context"):
        MemoryPrompter("none")
    p = MemoryPrompter("bm25")
    with pytest.raises(ConfigError, match="pass data="):
        p.retrieve({"task_id": "1_0", "scenario_id": 1, "as_of": "2025-04-15T08:00:00", "request": "seat"})


def test_memory_module_given_directly_is_wrapped(env, scenarios) -> None:
    from vmb_gym.memory import make_memory

    mem = make_memory("bm25")
    mem.ingest(scenarios[0])
    policy = ScriptedPolicy([{"content": "bye", "tool_calls": []}], memory=mem)
    run_episode(env, policy, task_id="1_0")
    assert policy.stats["memory_searches"] == 1
    assert 3 in policy.stats["memory_hit_line_ids"][0]
    with pytest.raises(ConfigError, match="max_turns"):
        ScriptedPolicy([], max_turns=0)


def test_a_compact_view_shows_the_best_hits_and_keeps_the_whole_search(env) -> None:
    from vmb_agents.llm.compact_view import CompactView

    policy = ScriptedPolicy([{"content": "", "tool_calls": [_call("search_memory", query="seat heating", top_k=1)]},
                             {"content": "", "tool_calls": [_call("finish")]}], view=CompactView(depth=4, shown=1))
    run_episode(env, policy, task_id="1_0")
    message = policy.requests[1][0][-1]
    assert message["role"] == "tool" and message["name"] == "search_memory"
    shown, searched = message["content"].splitlines(), message["hits"].splitlines()
    assert (len(shown), len(searched)) == (1, 2)  # searched 4 deep (the model asked for 1): both seat-heating lines
    bodies = {line.split(". ", 1)[1] for line in searched}
    assert {line.split(". ", 1)[1] for line in shown} <= bodies
