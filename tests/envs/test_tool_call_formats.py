"""Every common tool-call format, read by one parser (vmb_gym.envs.tool_call_formats.parse_reply).

One test per family on replies written as models of that family write them, with broken variants
(exact calls, or the exact parse-error message); one end-to-end test per family through ``env.step``
that changes the car as the gold does; the parse_error figure, label and observation.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vmb_gym  # noqa: F401  (registers the ids)
from vmb_agents.llm.chat import parse_tool_calls
from vmb_gym.envs.actions import parse_action
from vmb_gym.envs.tool_call_formats import FORMATS_READ, parse_reply
from vmb_gym.errors import ActionError, ToolCallParseError
from vmb_gym.evaluation.attribution import FAILURE_LABELS, attribute
from vmb_gym.integrations.text_actions import FINISH, reply_action

SEAT = "carcontrol_seat_set_heating_level"
TEMP = "carcontrol_airConditioner_set_temperature"
NAV = "carcontrol_navigation_navigate_to"
HUD = "carcontrol_HUD_switch"


def calls(text: str, tools: Any = None) -> list[tuple[str, dict[str, Any]]]:
    """The calls read from ``text`` (asserting there was no error)."""
    parsed = parse_reply(text, tools)
    assert parsed.errors == [], parsed.errors
    return [(c.name, dict(c.arguments)) for c in parsed.calls]


def errors(text: str, tools: Any = None) -> list[str]:
    """The errors read from ``text`` (asserting no call was read)."""
    parsed = parse_reply(text, tools)
    assert parsed.calls == [], parsed.calls
    return parsed.errors


# ------------------------------------------------------------------------------------------ Qwen / Hermes JSON
HERMES_TWO_BLOCKS = (
    "I'll set the driver's temperature and then start the route to the library.\n"
    "<tool_call>\n"
    '{"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": "driver", "temperature": 22}}\n'
    "</tool_call>\n"
    "<tool_call>\n"
    '{"name": "carcontrol_navigation_navigate_to", "arguments": {"destination": "Riverside Library"}}\n'
    "</tool_call>\n"
    "Both are on their way."
)


def test_hermes_json_blocks() -> None:
    parsed = parse_reply(HERMES_TWO_BLOCKS)
    assert [(c.name, dict(c.arguments)) for c in parsed.calls] == [
        (TEMP, {"zone": "driver", "temperature": 22}), (NAV, {"destination": "Riverside Library"})]
    assert parsed.errors == [] and parsed.family == "hermes"
    assert parsed.content == ("I'll set the driver's temperature and then start the route to the library.\n\n\n"
                              "Both are on their way.")
    # Qwen2.5 thinks first; generation stopped at the stop string, so the last block is not closed.
    assert calls('<think>Gary likes level 3.</think>\n<tool_call>\n{"name": "carcontrol_seat_set_heating_level", '
                 '"arguments": {"seat": "driver", "level": 3}}\n') == [(SEAT, {"seat": "driver", "level": 3})]
    # arguments as JSON text, a fenced block inside the tags
    assert calls('<tool_call>\n```json\n{"name": "carcontrol_HUD_switch", "arguments": "{\\"switch\\": true}"}\n```\n'
                 "</tool_call>") == [(HUD, {"switch": True})]


def test_hermes_json_blocks_broken() -> None:
    assert errors('<tool_call>\n{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", '
                  '"level": 3}\n</tool_call>') == [
        "<tool_call> block 1: malformed JSON (Expecting ',' delimiter at char 89)"]
    # cut off by the token limit inside the JSON
    assert errors('Setting it now.\n<tool_call>\n{"name": "carcontrol_seat_set_heating_level", "argu') == [
        "<tool_call> block 1 (not closed by </tool_call>): malformed JSON (Unterminated string starting at at char 46)"]
    assert errors('<tool_call>{"arguments": {"seat": "driver"}}</tool_call>') == [
        "<tool_call> block 1: the call has no 'name' string (keys: ['arguments'])"]
    assert errors("<tool_call>\n</tool_call>") == [
        '<tool_call> block 1: empty; expected {"name": ..., "arguments": {...}}']
    # an empty code fence inside the tags (found by the never-raises property test) is empty too
    assert errors("<tool_call>```json\n```") == [
        '<tool_call> block 1 (not closed by </tool_call>): empty; expected {"name": ..., "arguments": {...}}']
    assert errors("<tool_call>\n```\n```\n</tool_call>") == [
        '<tool_call> block 1: empty; expected {"name": ..., "arguments": {...}}']
    # a good block is kept next to a broken one (the chat loop runs it; env.step rejects the whole reply)
    parsed = parse_reply(HERMES_TWO_BLOCKS.replace('"Riverside Library"}}', '"Riverside Library"'))
    assert [c.name for c in parsed.calls] == [TEMP]
    assert parsed.errors == ["<tool_call> block 2: malformed JSON (Expecting ',' delimiter at char 94)"]


# ------------------------------------------------------------------------------------------ Qwen3.5 / Qwen3-Coder XML
QWEN3_XML_SEARCH = (
    "I need Gary's seat preference before I change anything.\n\n"
    "<tool_call>\n"
    "<function=search_memory>\n"
    "<parameter=query>\n"
    "Gary seat heating\n"
    "preferred level in the morning\n"
    "</parameter>\n"
    "<parameter=top_k>\n"
    "5\n"
    "</parameter>\n"
    "</function>\n"
    "</tool_call>"
)

QWEN3_XML_SEAT = (
    "<tool_call>\n<function=carcontrol_seat_set_heating_level>\n<parameter=seat>\ndriver\n</parameter>\n"
    "<parameter=level>\n3\n</parameter>\n</function>\n</tool_call>"
)

PROFILE_PARAMS = {"ratio": {"type": "number"}, "prefs": {"type": "object"}, "seats": {"type": "array"},
                  "note": {"type": "string"}, "level": {"type": ["integer", "null"]}, "quiet": {"type": "boolean"}}
PROFILE_TOOL = {"type": "function", "function": {"name": "save_profile",
                                                 "parameters": {"type": "object", "properties": PROFILE_PARAMS}}}


def test_qwen3_xml_function_blocks() -> None:
    parsed = parse_reply(QWEN3_XML_SEARCH)
    assert [(c.name, dict(c.arguments)) for c in parsed.calls] == [
        ("search_memory", {"query": "Gary seat heating\npreferred level in the morning", "top_k": 5})]
    assert parsed.content == "I need Gary's seat preference before I change anything." and parsed.family == "xml"
    # values converted by the env's own schemas (integer, boolean), two blocks in one reply
    hud = ("<tool_call>\n<function=carcontrol_HUD_switch>\n<parameter=switch>\nTrue\n</parameter>\n</function>\n"
           "</tool_call>")
    assert calls(QWEN3_XML_SEAT + "\n" + hud) == [(SEAT, {"seat": "driver", "level": 3}), (HUD, {"switch": True})]
    # by the schemas given: numbers, objects, arrays, a union type; strings stay text, unknown keys stay text
    profile = ("<tool_call>\n<function=save_profile>\n<parameter=ratio>\n0.75\n</parameter>\n"
               '<parameter=prefs>\n{"seat": "driver", "level": 3}\n</parameter>\n<parameter=seats>\n["driver", '
               '"passenger"]\n</parameter>\n<parameter=note>\n42\n</parameter>\n<parameter=level>\nnull\n</parameter>\n'
               "<parameter=quiet>\nfalse\n</parameter>\n<parameter=extra>\n7\n</parameter>\n</function>\n</tool_call>")
    assert calls(profile, [PROFILE_TOOL]) == [("save_profile", {
        "ratio": 0.75, "prefs": {"seat": "driver", "level": 3}, "seats": ["driver", "passenger"], "note": "42",
        "level": None, "quiet": False, "extra": "7"})]
    # a value that does not convert stays text, for the tool to report
    assert calls(QWEN3_XML_SEAT.replace("\n3\n", "\nthree\n")) == [(SEAT, {"seat": "driver", "level": "three"})]
    # Qwen3-Coder without the <tool_call> wrapper
    assert calls("<function=finish>\n</function>") == [("finish", {})]


def test_qwen3_xml_function_blocks_broken() -> None:
    assert errors("<tool_call>\n<function=>\n<parameter=seat>\ndriver\n</parameter>\n</function>\n</tool_call>") == [
        "<tool_call> block 1: <function=NAME> needs a function name, found nothing"]
    assert errors("<tool_call>\n<parameter=level>\n3\n</parameter>\n</tool_call>") == [
        "<tool_call> block 1: expected <function=NAME> inside the block, found '<parameter=level>\\n3\\n</parameter>'"]
    assert errors(QWEN3_XML_SEAT.replace("<parameter=seat>\ndriver\n</parameter>",
                                         "<parameter=level>\n2\n</parameter>")) == [
        "<tool_call> block 1: parameter 'level' of carcontrol_seat_set_heating_level is given twice; "
        "give each parameter once"]
    assert errors(QWEN3_XML_SEAT.replace("<parameter=seat>", "seat is\n<parameter=seat>")) == [
        "<tool_call> block 1: text in carcontrol_seat_set_heating_level outside <parameter=KEY>...</parameter>: "
        "'seat is'"]
    assert errors("<tool_call>\n<function=carcontrol seat>\n</function>\n</tool_call>") == [
        "<tool_call> block 1: <function=NAME> needs a function name, found 'carcontrol seat'"]


# ------------------------------------------------------------------------------------------ Llama 3 / 3.1 / 3.2
def test_llama3_calls() -> None:
    parsed = parse_reply('<|python_tag|>{"name": "carcontrol_seat_set_heating_level", '
                         '"parameters": {"seat": "driver", "level": 3}}<|eom_id|>')
    assert [(c.name, dict(c.arguments)) for c in parsed.calls] == [(SEAT, {"seat": "driver", "level": 3})]
    assert parsed.family == "llama" and parsed.content == ""
    # two JSON calls after the tag, separated by ';'
    assert calls('<|python_tag|>{"name": "list_module_tools", "parameters": {"module_name": "seat"}}; '
                 '{"name": "finish", "parameters": {}}<|eot_id|>') == [
        ("list_module_tools", {"module_name": "seat"}), ("finish", {})]
    # a Python call after the tag, and Llama 3.1's built-in tool form NAME.call(...)
    assert calls('<|python_tag|>carcontrol_HUD_switch(switch=True)<|eom_id|>') == [(HUD, {"switch": True})]
    assert calls('<|python_tag|>brave_search.call(query="Riverside Library opening hours")<|eom_id|>') == [
        ("brave_search", {"query": "Riverside Library opening hours"})]
    # custom tools: plain JSON with "parameters" (and the {"type": "function", ...} variant)
    assert calls('{"name": "carcontrol_seat_set_heating_level", "parameters": {"seat": "driver", "level": 3}}'
                 "<|eot_id|>") == [(SEAT, {"seat": "driver", "level": 3})]
    assert calls('{"type": "function", "name": "carcontrol_navigation_navigate_to", '
                 '"parameters": {"destination": "Riverside Library"}}') == [(NAV, {"destination": "Riverside Library"})]
    # Llama 3.2's pythonic list
    assert calls('[carcontrol_airConditioner_set_temperature(zone="driver", temperature=22), '
                 'carcontrol_navigation_navigate_to(destination="Riverside Library")]<|eot_id|>') == [
        (TEMP, {"zone": "driver", "temperature": 22}), (NAV, {"destination": "Riverside Library"})]


def test_llama3_calls_broken() -> None:
    assert errors('<|python_tag|>{"name": "carcontrol_seat_set_heating_level", "parameters": {"seat": "driver", '
                  '"level": 3}<|eom_id|>') == [
        "<|python_tag|>: malformed JSON (Expecting ',' delimiter at char 90)"]
    assert errors("<|python_tag|><|eom_id|>") == [
        "<|python_tag|>: nothing after the tag; expected a JSON call or name(key=value)"]
    assert errors('<|python_tag|>carcontrol_seat_set_heating_level(seat=driver, level=3)') == [
        "<|python_tag|>: argument 'seat': expected a value (quoted string, number, true/false, null, list or "
        "object), found the bare name 'driver' at column 40; quote it if it is a string: \"driver\""]
    assert errors('[carcontrol_airConditioner_set_temperature(zone="driver", 22)]') == [
        'python list: expected a list of calls like [f(a=1), g(b="x")], found invalid syntax (positional argument '
        "follows keyword argument)"]
    assert errors('[carcontrol_airConditioner_set_temperature(zone="driver", temperature=22), '
                  "carcontrol_navigation_navigate_to(destination=Library)]") == [
        "python list item 2: argument 'destination': expected a value (quoted string, number, true/false, null, "
        "list or object), found the bare name 'Library' at column 47; quote it if it is a string: \"Library\""]
    assert errors('{"name": "carcontrol_seat_set_heating_level", "parameters": {"seat": "driver", "level": 3') == [
        "JSON reply: malformed JSON (Expecting ',' delimiter at char 89)"]


# ------------------------------------------------------------------------------------------ Mistral
def test_mistral_tool_calls() -> None:
    parsed = parse_reply(
        '[TOOL_CALLS][{"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": "driver", '
        '"temperature": 22}, "id": "aB3dE5fG7"}, {"name": "carcontrol_navigation_navigate_to", "arguments": '
        '{"destination": "Riverside Library"}, "id": "hI9jK1lM3"}]</s>')
    assert [(c.name, dict(c.arguments)) for c in parsed.calls] == [
        (TEMP, {"zone": "driver", "temperature": 22}), (NAV, {"destination": "Riverside Library"})]
    assert parsed.family == "mistral"
    # the newer form, one [TOOL_CALLS] per call, with and without [CALL_ID]
    assert calls('[TOOL_CALLS]carcontrol_airConditioner_set_temperature[ARGS]{"zone": "driver", "temperature": 22}'
                 '[TOOL_CALLS]carcontrol_navigation_navigate_to[CALL_ID]c0ffee123[ARGS]'
                 '{"destination": "Riverside Library"}') == [
        (TEMP, {"zone": "driver", "temperature": 22}), (NAV, {"destination": "Riverside Library"})]
    with_prose = parse_reply('Sure, switching the HUD on.[TOOL_CALLS][{"name": "carcontrol_HUD_switch", '
                             '"arguments": {"switch": true}}]')
    assert with_prose.content == "Sure, switching the HUD on." and [c.name for c in with_prose.calls] == [HUD]


def test_mistral_tool_calls_broken() -> None:
    assert errors("[TOOL_CALLS] I'm sorry, I cannot change the seat.") == [
        "[TOOL_CALLS] 1: expected a JSON list of calls or NAME[ARGS]{...} after [TOOL_CALLS]; "
        "found \"I'm sorry, I cannot change the seat.\""]
    assert errors('[TOOL_CALLS][{"name": "carcontrol_HUD_switch", "arguments": {"switch": true,}}]') == [
        "[TOOL_CALLS] 1: malformed JSON (Expecting property name enclosed in double quotes at char 64)"]
    assert errors('[TOOL_CALLS]carcontrol_seat_set_heating_level[ARGS]{"seat": "driver", "level": ') == [
        "[TOOL_CALLS] 1: the arguments of carcontrol_seat_set_heating_level: malformed JSON "
        "(Expecting value at char 27)"]
    assert errors('[TOOL_CALLS][ARGS]{"switch": true}') == [
        "[TOOL_CALLS] 1: expected a JSON list of calls or NAME[ARGS]{...} after [TOOL_CALLS]; found the name ''"]
    assert errors("[TOOL_CALLS]") == [
        "[TOOL_CALLS] 1: expected a JSON list of calls or NAME[ARGS]{...} after [TOOL_CALLS]; found ''"]


# ------------------------------------------------------------------------------------------ OpenAI objects
OPENAI_SEAT = {"id": "call_8fJ2kQ", "type": "function", "function": {
    "name": SEAT, "arguments": json.dumps({"seat": "driver", "level": 3})}}
OPENAI_HUD = {"id": "call_x71bP0", "type": "function", "function": {"name": HUD, "arguments": '{"switch": true}'}}


def test_openai_tool_call_objects() -> None:
    assert calls(json.dumps(OPENAI_SEAT)) == [(SEAT, {"seat": "driver", "level": 3})]
    assert calls(json.dumps([OPENAI_SEAT, OPENAI_HUD])) == [(SEAT, {"seat": "driver", "level": 3}),
                                                            (HUD, {"switch": True})]
    message = {"role": "assistant", "content": None, "tool_calls": [OPENAI_SEAT, OPENAI_HUD]}
    assert calls(json.dumps(message)) == [(SEAT, {"seat": "driver", "level": 3}), (HUD, {"switch": True})]
    # the same objects as actions (not text)
    assert [c.name for c in parse_action(message)] == [SEAT, HUD]
    assert [c.name for c in parse_action([OPENAI_SEAT])] == [SEAT]


def test_openai_tool_call_objects_broken() -> None:
    bad = {**OPENAI_SEAT, "function": {"name": SEAT, "arguments": '{"seat": "driver", "level": }'}}
    assert errors(json.dumps(bad)) == [
        "JSON call 1: the arguments of carcontrol_seat_set_heating_level are not valid JSON "
        "(Expecting value at char 28)"]
    no_name = {"id": "call_1", "type": "function", "function": {"arguments": "{}"}}
    assert errors(json.dumps({"role": "assistant", "tool_calls": [no_name]})) == [
        "JSON call 1: the call has no 'name' string (keys: ['arguments'])"]


# ------------------------------------------------------------------------------------------ the gold's Python form
def test_python_calls() -> None:
    assert calls('carcontrol_airConditioner_set_temperature(zone="driver", temperature=22)\n'
                 'carcontrol_navigation_navigate_to(destination="Riverside Library")') == [
        (TEMP, {"zone": "driver", "temperature": 22}), (NAV, {"destination": "Riverside Library"})]
    parsed = parse_reply('Nina likes 22 degrees.\n```python\ncarcontrol_airConditioner_set_temperature(zone="driver", '
                         "temperature=22)\n```")
    assert [c.name for c in parsed.calls] == [TEMP] and parsed.content == "Nina likes 22 degrees."


def test_python_calls_broken() -> None:
    assert errors("carcontrol_seat_set_heating_level(seat=driver, level=3)") == [
        "python call carcontrol_seat_set_heating_level(...): argument 'seat': expected a value (quoted string, "
        "number, true/false, null, list or object), found the bare name 'driver' at column 40; quote it if it is a "
        "string: \"driver\""]
    assert errors('carcontrol_seat_set_heating_level(seat="driver", level=3') == [
        "python call carcontrol_seat_set_heating_level(...): '(' is not closed on its line; write each call on one "
        "line"]
    assert errors('finish() and that is all') == [
        "python call finish(...): text after the call on its line; write each call alone on its line"]


# ------------------------------------------------------------------------------------------ fences, plain text
def test_fenced_blocks_around_each_family() -> None:
    expected = [(SEAT, {"seat": "driver", "level": 3})]
    for inner in ('{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 3}}',
                  json.dumps([OPENAI_SEAT]),
                  'carcontrol_seat_set_heating_level(seat="driver", level=3)',
                  '<|python_tag|>{"name": "carcontrol_seat_set_heating_level", "parameters": {"seat": "driver", '
                  '"level": 3}}',
                  '[TOOL_CALLS][{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", '
                  '"level": 3}}]',
                  QWEN3_XML_SEAT):
        for lang in ("json", "python", ""):
            assert calls(f"Here is the call:\n```{lang}\n{inner}\n```") == expected, (lang, inner)


def test_plain_text_is_no_call_attempt() -> None:
    for text in ("The seat heating is already at level 3. Done!", '{"answer": 3}', "Note (the seat is warm",
                 "", "<think>maybe carcontrol_x(</think>All set."):
        parsed = parse_reply(text)
        assert not parsed.attempted and parsed.family == "", text
    assert reply_action("The seat heating is already at level 3.") == FINISH


# ------------------------------------------------------------------------------------------ chat loop, adapters
def test_chat_loop_and_adapters_use_the_same_reader() -> None:
    for text in (HERMES_TWO_BLOCKS, QWEN3_XML_SEAT, '[TOOL_CALLS]carcontrol_HUD_switch[ARGS]{"switch": true}'):
        parsed = parse_reply(text)
        chat = parse_tool_calls(text, ["list_module_tools", "finish"])
        assert chat.calls == [c.to_json() for c in parsed.calls] and chat.errors == parsed.errors
        assert reply_action(text) == text and [c.name for c in parse_action(text)] == [c.name for c in parsed.calls]
    broken = "[TOOL_CALLS] nope"
    assert parse_tool_calls(broken).errors == parse_reply(broken).errors and reply_action(broken) == broken


# ------------------------------------------------------------------------------------------ end to end through env.step
def _env(tiny_data: str) -> gym.Env:
    return gym.make("VehicleMem-v0", data=tiny_data)


E2E = {  # task, reply, the fields the gold changes
    "hermes": ("1_2", HERMES_TWO_BLOCKS, {"airConditioner.value.driver.value.temperature": 22,
                                          "navigation.value.current_destination.value.name": "Riverside Library"}),
    "xml": ("1_0", "I'll warm the driver's seat.\n" + QWEN3_XML_SEAT, {"seat.value.driver.value.heating_level": 3}),
    "llama": ("1_0", '<|python_tag|>{"name": "carcontrol_seat_set_heating_level", "parameters": {"seat": "driver", '
                     '"level": 3}}<|eom_id|>', {"seat.value.driver.value.heating_level": 3}),
    "llama32": ("1_2", '[carcontrol_airConditioner_set_temperature(zone="driver", temperature=22), '
                       'carcontrol_navigation_navigate_to(destination="Riverside Library")]<|eot_id|>',
                {"airConditioner.value.driver.value.temperature": 22,
                 "navigation.value.current_destination.value.name": "Riverside Library"}),
    "mistral": ("1_2", '[TOOL_CALLS][{"name": "carcontrol_airConditioner_set_temperature", "arguments": {"zone": '
                       '"driver", "temperature": 22}}, {"name": "carcontrol_navigation_navigate_to", "arguments": '
                       '{"destination": "Riverside Library"}}]</s>',
                {"airConditioner.value.driver.value.temperature": 22,
                 "navigation.value.current_destination.value.name": "Riverside Library"}),
    "openai": ("1_1", json.dumps({"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "carcontrol_light_set_ambient_color",
                                                          "arguments": '{"color": "blue"}'}}]}),
               {"light.value.ambient.value.color": "blue"}),
    "python": ("1_2", 'carcontrol_airConditioner_set_temperature(zone="driver", temperature=22)\n'
                      'carcontrol_navigation_navigate_to(destination="Riverside Library")',
               {"airConditioner.value.driver.value.temperature": 22,
                "navigation.value.current_destination.value.name": "Riverside Library"}),
}


@pytest.mark.parametrize("family", sorted(E2E))
def test_env_step_runs_each_family_as_the_gold(tiny_data: str, family: str) -> None:
    task_id, reply, fields = E2E[family]
    env = _env(tiny_data)
    env.reset(options={"task_id": task_id})
    sim = env.unwrapped.runtime.sim
    assert all(sim.flatten()[k] != v for k, v in fields.items())
    _, _, _, _, info = env.step(reply)
    assert info["action_error"] is None and all(c["result"]["success"] for c in info["calls"])
    after = sim.flatten()
    assert {k: after[k] for k in fields} == fields
    _, reward, terminated, _, info = env.step(FINISH)
    assert terminated and reward == 1.0  # the car ends exactly as the gold leaves it
    assert info["episode_stats"]["parse_errors"] == 0


# ------------------------------------------------------------------------------------------ parse_error
BROKEN = {
    "hermes": '<tool_call>\n{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver"\n</tool_call>',
    "xml": "<tool_call>\n<function=>\n<parameter=level>\n3\n</parameter>\n</function>\n</tool_call>",
    "llama": '<|python_tag|>{"name": "carcontrol_seat_set_heating_level", "parameters": {"seat": "dri',
    "mistral": "[TOOL_CALLS] sorry, no tool fits",
    "openai": json.dumps([{"id": "c1", "type": "function", "function": {"name": SEAT, "arguments": "{seat: 3}"}}]),
    "python": "carcontrol_seat_set_heating_level(seat=driver, level=3)",
}


@pytest.mark.parametrize("family", sorted(BROKEN))
def test_env_step_reports_a_parse_error(tiny_data: str, family: str) -> None:
    env = _env(tiny_data)
    env.reset(options={"task_id": "1_0"})
    before = env.unwrapped.runtime.sim.flatten()
    obs, reward, terminated, _, info = env.step(BROKEN[family])
    expected = parse_reply(BROKEN[family]).errors
    assert expected and info["action_error"] == (
        f"action: parse_error: the tool call could not be read: {'; '.join(expected)}. Fix the call; {FORMATS_READ}")
    assert info["action_error"][:60] in obs and not terminated and reward == 0.0
    assert env.unwrapped.runtime.sim.flatten() == before  # nothing of the reply ran
    env.step({"name": SEAT, "arguments": {"seat": "driver", "level": 3}})
    _, reward, _, _, info = env.step(FINISH)
    stats = info["episode_stats"]
    assert reward == 1.0 and stats["parse_errors"] == 1 and stats["invalid_actions"] == 1
    with pytest.raises(ToolCallParseError):
        parse_action(BROKEN[family])


def test_plain_text_in_env_step_is_no_call_not_a_parse_error(tiny_data: str) -> None:
    env = _env(tiny_data)
    env.reset(options={"task_id": "1_0"})
    _, _, _, _, info = env.step("The seat is already warm.")
    assert info["action_error"] == f"action: found no tool call in the text; {FORMATS_READ}"
    with pytest.raises(ActionError) as caught:
        parse_action("The seat is already warm.")
    assert not isinstance(caught.value, ToolCallParseError)
    _, _, _, _, info = env.step(FINISH)
    assert info["episode_stats"]["parse_errors"] == 0 and info["episode_stats"]["invalid_actions"] == 1


def test_adapters_send_broken_replies_to_the_env_and_plain_text_finishes(tiny_data: str) -> None:
    env = _env(tiny_data)
    env.reset(options={"task_id": "1_0"})
    _, _, terminated, _, info = env.step(reply_action(BROKEN["mistral"]))
    assert not terminated and info["action_error"].startswith("action: parse_error: ")
    _, _, terminated, _, info = env.step(reply_action("I could not find a preference, so I leave the seat."))
    assert terminated and info["episode_stats"]["parse_errors"] == 1


def test_attribution_labels_parse_errors() -> None:
    record = {"metrics": {"exact_match": False, "FP": 0}, "gold_calls": [{"name": SEAT, "arguments": {"level": 3}}],
              "trajectory": {"actions": [], "calls": []}, "episode": {"parse_errors": 2},
              "memory": {"evidence_lines": [3], "provides_search": True, "searches": 0}}
    result = attribute(record)
    assert result is not None
    assert result["label"] == "parse_error"
    assert result["labels"] == ["parse_error", "evidence_not_retrieved", "no_action"]
    assert result["detail"].startswith("2 tool call(s) could not be read")
    assert FAILURE_LABELS[0] == "parse_error"
    without = attribute({**record, "episode": {"parse_errors": 0}})
    assert without is not None and without["label"] == "evidence_not_retrieved"


TOKENS = ["<tool_call>", "</tool_call>", "<function=", "<function=f>", "</function>", "<parameter=",
          "<parameter=level>", "</parameter>", "<|python_tag|>", "<|eom_id|>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]",
          "```json\n", "```", '{"name": "finish"', '"arguments": ', '"parameters": ', "{", "}", "[", "]", "(", ")",
          ",", ";", ":", '"', "\n", " ", "x", "3", "true", "carcontrol_HUD_switch(", "switch=", "finish()", "<think>",
          "</think>"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join))
def test_the_reader_never_raises(text: str) -> None:
    parsed = parse_reply(text)
    assert all(isinstance(e, str) and e for e in parsed.errors)
    try:
        action_calls = parse_action(text)
    except ActionError as exc:
        assert str(exc) and isinstance(exc, ToolCallParseError) == bool(parsed.errors)
    else:
        assert not parsed.errors and [c.name for c in action_calls] == [c.name for c in parsed.calls]
