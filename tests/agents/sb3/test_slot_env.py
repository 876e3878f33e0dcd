"""Slot (pointer) design of the SB3 bridge: spaces, masks, the resolver, checkpoints, a smoke run."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

import vmb_gym  # noqa: F401
from vmb_gym.policy import run_episode
from vmb_agents.reader import read_request
from vmb_gym.envs.tool_runtime import hit_record
from vmb_gym.memory import MemoryHit
from vmb_gym.wrappers.catalogue import EpisodeText
from vmb_agents.sb3.slots import (
    N_MEMORY_VALUES,
    N_SLOT_ACTIONS,
    SLOT_FINISH,
    SLOT_SEARCH,
    VALUE_EXPLICIT,
    VALUE_MINIMAL,
    ApiSlot,
    SlotActionWrapper,
    SlotAnalysis,
    SlotCatalogue,
    SlotFeaturizer,
    ValueSlot,
    make_slot_env,
)
from vmb_agents.sb3.checkpoint import save_checkpoint
from vmb_agents.sb3.slots.hits import pool_hits
from vmb_agents.sb3.slots.policy import SlotPointerPolicy, SlotSB3Policy
from vmb_agents.sb3.slots.reading import companion_clause


def _env(data: str, memory: str = "bm25") -> gym.Env:
    return gym.make("VehicleMem-v0", data=data, memory=memory, max_steps=4)


def test_check_env_and_spaces(tiny_data: str) -> None:
    env = make_slot_env(_env(tiny_data))
    assert env.action_space.n == N_SLOT_ACTIONS
    assert env.observation_space.shape == (SlotFeaturizer().dim,)
    check_env(env, skip_render_check=True)


def test_masks_search_first_then_slots(tiny_data: str) -> None:
    env = make_slot_env(_env(tiny_data))
    obs, _ = env.reset(options={"task_id": "1_0"})  # Gary: "Warm my seat the way I like it." (gold level 3)
    mask = env.action_masks()
    assert mask[SLOT_SEARCH] and mask.sum() == 1  # look before acting
    obs, *_ = env.step(SLOT_SEARCH)
    mask = env.action_masks()
    if mask[SLOT_SEARCH]:  # a follow-up round (the first round's hits suggested queries), then no more
        assert mask.sum() == 1
        obs, *_ = env.step(SLOT_SEARCH)
        mask = env.action_masks()
    assert not mask[SLOT_SEARCH] and not mask[SLOT_FINISH]  # every request asks for a change: call first
    inner: SlotActionWrapper = env.env
    cat, analysis = inner.catalogue, inner.analysis
    calls = {i: cat.resolve(i, analysis) for i in np.flatnonzero(mask) if i >= 2}
    assert calls and all(c is not None for c in calls.values())
    assert {"name": "carcontrol_seat_set_heating_level", "arguments": {"level": 3, "seat": "driver"}} in calls.values()
    # a masked call slot is empty or repeats an allowed call
    keys = [repr(sorted(c["arguments"].items())) + c["name"] for c in calls.values()]
    assert len(keys) == len(set(keys))
    # after calling a function, none of its slots stays allowed
    first = next(i for i, c in calls.items() if c["name"] == "carcontrol_seat_set_heating_level")
    obs, *_ = env.step(first)
    after = env.action_masks()
    assert not any(after[i] for i, c in calls.items() if c["name"] == "carcontrol_seat_set_heating_level")
    assert after[SLOT_FINISH]
    assert env.observation_space.contains(obs)


def test_no_memory_search_acts_at_once(tiny_data: str) -> None:
    env = make_slot_env(_env(tiny_data, memory="none"))
    env.reset(options={"task_id": "1_0"})
    mask = env.action_masks()
    assert not mask[SLOT_SEARCH]  # nothing to look up: the first act is a call
    assert mask[2:].any() and not mask[SLOT_FINISH]


def _hand_analysis() -> SlotAnalysis:
    req = read_request("At 9:00 AM, Gary drives: 'Make my seat two levels warmer.'", ["Gary Allen"])
    heat = ApiSlot(api="carcontrol_seat_set_heating_level", request_score=3.0, best_score=5.0, passes=True,
                   rules_choice=True, values=[ValueSlot(value=1, score=5.0), ValueSlot(value=3, score=4.0)],
                   targets=["driver", "passenger", "all"], explicit=None,
                   minimal=("carcontrol_seat_set_heating_mode", {"enabled": True}))
    colour = ApiSlot(api="carcontrol_light_set_ambient_color", request_score=1.0, best_score=2.0, passes=False,
                     rules_choice=False, values=[ValueSlot(value="blue", score=2.0)], targets=[None],
                     explicit="green", minimal=None)
    return SlotAnalysis(request=req, apis=[heat, colour], delta=2, n_hits=3, searched=True)


def test_resolver_turns_each_slot_into_its_call() -> None:
    cat = SlotCatalogue()
    an = _hand_analysis()
    r = cat.resolve
    heat = "carcontrol_seat_set_heating_level"
    assert r(cat.index(0, 0, 0), an) == {"name": heat, "arguments": {"level": 1, "seat": "driver"}}
    assert r(cat.index(0, 1, 1), an) == {"name": heat, "arguments": {"level": 3, "seat": "passenger"}}
    assert r(cat.index(0, 1, 2), an)["arguments"]["seat"] == "all"
    # relative-change copy: 3 + 2 levels, clamped to the range (max 3)
    assert r(cat.index(0, N_MEMORY_VALUES + 0, 0), an)["arguments"]["level"] == 3
    assert r(cat.index(0, 2, 0), an) is None  # no third memory value
    assert r(cat.index(0, VALUE_EXPLICIT, 0), an) is None  # the request states no value
    assert r(cat.index(0, VALUE_MINIMAL, 0), an) == {"name": "carcontrol_seat_set_heating_mode",
                                                      "arguments": {"enabled": True, "seat": "driver"}}
    assert r(cat.index(1, 0, 0), an) == {"name": "carcontrol_light_set_ambient_color", "arguments": {"color": "blue"}}
    assert r(cat.index(1, 0, 1), an) is None  # no selector: only the first target slot
    assert r(cat.index(1, N_MEMORY_VALUES, 0), an) is None  # no relative change of a colour
    assert r(cat.index(1, VALUE_EXPLICIT, 0), an) == {"name": "carcontrol_light_set_ambient_color",
                                                       "arguments": {"color": "green"}}
    assert r(cat.index(1, VALUE_MINIMAL, 0), an) is None
    assert r(cat.index(3, 0, 0), an) is None  # no fourth API
    for i in range(2, N_SLOT_ACTIONS):
        assert cat.unpack(i) and cat.index(*cat.unpack(i)) == i
    # masks follow the resolver; features describe exactly the allowed rows
    ep = EpisodeText(request="x", searched=True)
    mask = cat.mask(an, ep)
    assert not mask[SLOT_FINISH] and not mask[SLOT_SEARCH]  # finish waits for the first call
    called = cat.mask(an, EpisodeText(request="x", searched=True, made_names=["carcontrol_seat_set_heating_level"]))
    assert called[SLOT_FINISH] and not any(called[i] for i in range(2, N_SLOT_ACTIONS)
                                           if (c := r(i, an)) and c["name"] == "carcontrol_seat_set_heating_level")
    empty = SlotAnalysis(request=an.request, apis=[], delta=None, n_hits=0, searched=True)
    assert cat.mask(empty, ep)[SLOT_FINISH]  # no call slot left: finish is the only act
    assert not any(mask[i] for i in range(2, N_SLOT_ACTIONS) if r(i, an) is None)
    assert mask[cat.index(0, 0, 0)] and mask[cat.index(1, VALUE_EXPLICIT, 0)]
    feats = SlotFeaturizer().features(an, ep).reshape(N_SLOT_ACTIONS, -1)
    assert np.all(feats >= -1) and np.all(feats <= 1)
    assert feats[cat.index(3, 0, 0), :3].sum() == 0 and feats[cat.index(0, 0, 0), 2] == 1  # empty vs call row
    assert not np.array_equal(feats[cat.index(0, 0, 0)], feats[cat.index(0, 1, 0)])  # value slots differ


def test_structured_hits_are_read_as_the_text_shows_them_and_companions() -> None:
    stamp = datetime(2025, 3, 1, 8, 0, 42)  # seconds: the text shows the minute, so does the slot design
    hits = [MemoryHit("L3", "Gary Allen: I set the seat heating to level 3. Plus the sunroof lock locked, always.",
                      2.0, stamp, (3,), ("Gary Allen", "Nina Park")),
            MemoryHit("L9", "Nina Park: At night I want blue.", 1.0, datetime(2025, 3, 2, 19, 30), (9,),
                      status="superseded"),
            MemoryHit("L3", "Gary Allen: I set the seat heating to level 3. Plus the sunroof lock locked, always.",
                      1.5, stamp, (3,))]  # the same line again (a second search): pooled once
    pooled = pool_hits([hit_record(h) for h in hits], ["Gary Allen", "Nina Park"])
    assert [h.entry_id for h in pooled] == ["L3", "L9"]
    assert [h.people for h in pooled] == [("Gary Allen",), ("Nina Park",)]  # from the speaker prefix
    assert pooled[0].timestamp == datetime(2025, 3, 1, 8, 0) and pooled[1].text.startswith("Nina Park:")
    assert pooled[1].status == "active" and pooled[1].render() == "[2025-03-02 19:30] Nina Park: At night I want blue."
    clause = companion_clause(pooled[0].text)
    assert clause == "the sunroof lock locked"
    assert SlotCatalogue().classify(clause) == "carcontrol_sunroof_set_locked"


def _hit_form(group: dict) -> list[dict[str, type]]:
    return [{k: type(v) for k, v in h.items()} for h in group["hits"]]


def test_both_envs_emit_the_same_memory_hit_form() -> None:
    search = {"name": "search_memory", "arguments": {"query": "seat heating level", "top_k": 3}}
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25")
    env.reset(seed=0)
    *_, info = env.step(search)
    [group] = info["memory_hits"]
    assert group["query"] == "seat heating level" and len(group["hits"]) == info["calls"][0]["result"]["count"] == 3
    keys = {"entry_id", "text", "score", "timestamp", "line_ids", "people", "layer", "status"}
    assert all(set(h) == keys for h in group["hits"])
    shown = info["calls"][0]["result"]["memory_text"].splitlines()
    assert all(h["text"] in line for h, line in zip(group["hits"], shown, strict=True))
    assert all(h["line_ids"] and h["entry_id"] == f"L{h['line_ids'][0]}" for h in group["hits"])
    *_, info = env.step({"name": "finish", "arguments": {}})
    assert info["memory_hits"] == []  # a step without a search: no group

    # the stream env over the same household, its store (bm25) holding every streamed line
    stream = gym.make("VehicleMemStream-v0", data="default", files=[1], store="bm25", max_query_steps=2)
    _, info = stream.reset(seed=0)
    while info["phase"] == "write":
        store = {"name": "store", "arguments": {"line_ids": [ln["line_id"] for ln in info["lines"]]}}
        _, _, _, _, info = stream.step([store, {"name": "skip", "arguments": {}}] if info["lines"] else
                                       {"name": "skip", "arguments": {}})
    *_, info = stream.step(search)
    [stream_group] = info["memory_hits"]
    assert stream_group["query"] == group["query"] and stream_group["hits"]
    assert _hit_form(stream_group)[0] == _hit_form(group)[0]  # the same keys, each of the same type


def test_catalogue_json_round_trip() -> None:
    cat = SlotCatalogue(api_examples=[("warm my seat", "carcontrol_seat_set_heating_level"),
                                      ("mood lighting", "carcontrol_light_set_ambient_color")])
    again = SlotCatalogue.from_json(cat.to_json())
    assert again.api_examples == cat.api_examples and again.top_k == cat.top_k
    scores = again.api_scores("At 9:00 AM, Gary said: 'warm my seat'", ["Gary Allen"])
    assert max(scores, key=scores.get) == "carcontrol_seat_set_heating_level"


def test_smoke_training_saves_loads_and_runs(tiny_data: str, tmp_path: Path) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from vmb_agents.factory import make_policy

    torch.set_num_threads(1)
    cat = SlotCatalogue()
    env = make_slot_env(_env(tiny_data), catalogue=cat)
    model = MaskablePPO(SlotPointerPolicy, env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    path = save_checkpoint(model, tmp_path / "slot", design="slots", algo="maskable_ppo",
                           meta=SlotSB3Policy.checkpoint_meta(cat))
    raw = _env(tiny_data)
    policy = SlotSB3Policy.load(path, raw)
    ep = run_episode(raw, policy, task_id="1_0")
    assert ep.terminated or ep.truncated
    assert ep.actions[0][0]["name"] == "search_memory"  # the search step comes first
    again = make_policy(f"sb3:{path}", raw)  # what `vmb eval --policy sb3:PATH` does
    assert run_episode(raw, again, task_id="1_1").metrics


def test_bad_layout_is_refused() -> None:
    from vmb_gym.errors import ConfigError

    with pytest.raises(ConfigError):
        SlotCatalogue.from_json({"layout": [1, 2, 3]})


def test_behaviour_cloning_learns_the_demonstrated_slots(tiny_data: str) -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from vmb_agents.train.common import behaviour_clone
    from vmb_agents.train.sb3_slots import collect_slot_demos

    torch.set_num_threads(1)
    torch.manual_seed(0)
    vec = DummyVecEnv([lambda: Monitor(make_slot_env(_env(tiny_data)))])
    demos = collect_slot_demos(vec)
    assert demos[4] == 3 and demos[3] >= 1  # tasks, tasks whose gold calls are all slots
    obs, masks, actions = demos[:3]
    assert actions[0] == SLOT_SEARCH and actions[-1] == SLOT_FINISH and masks[np.arange(len(actions)), actions].all()
    model = MaskablePPO(SlotPointerPolicy, vec, n_steps=16, batch_size=16, seed=0, device="cpu")
    behaviour_clone(model, demos, epochs=60, seed=0, batch_size=8, lr=3e-3)
    dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
    assert (dist.get_actions(deterministic=True).numpy() == actions).mean() == 1.0


def test_a_relative_change_speaks_for_the_call_it_shares_with_another_value() -> None:
    """3 lowered by one is the 2 someone once tried: the mask allows the relative slot of the 3 (its features
    say "the value the request means, changed"), not the plain slot of the weaker 2; without a change, slot order."""
    req = read_request("At 9:00 PM, Gary drives: 'Turn the HUD one level lower than last time.'", ["Gary Allen"])
    hud = ApiSlot(api="carcontrol_HUD_set_brightness_level", request_score=3.0, best_score=9.0, passes=True,
                  rules_choice=True, values=[ValueSlot(value=3, score=9.0), ValueSlot(value=2, score=4.0)],
                  targets=[None])
    an = SlotAnalysis(request=req, apis=[hud], delta=-1, n_hits=2, searched=True)
    cat = SlotCatalogue()
    mask = cat.mask(an, EpisodeText(request="x", searched=True))
    relative, plain = cat.index(0, N_MEMORY_VALUES + 0, 0), cat.index(0, 1, 0)
    assert cat.resolve(relative, an) == cat.resolve(plain, an) == {"name": "carcontrol_HUD_set_brightness_level",
                                                                   "arguments": {"level": 2}}
    assert mask[relative] and not mask[plain]
    assert mask[cat.index(0, 0, 0)]  # the 3 itself stays a choice
    still = SlotAnalysis(request=req, apis=[hud], delta=None, n_hits=2, searched=True)
    assert cat.mask(still, EpisodeText(request="x", searched=True))[plain]
