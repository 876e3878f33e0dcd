"""The learned stream writer's cue mask (issue #17): ``keep`` is masked for lines that show a masked lexicon cue."""

from __future__ import annotations

import argparse
import re

import pytest

from vmb_agents.stream.features import cue_pattern, masked_lines
from vmb_agents.stream.learned import StreamWriteEnv, load_stream_writer
from tests.agents.stream.test_stream_sb3 import tiny_scenario
from vmb_gym.envs.vehicle_mem_stream import VehicleMemStreamEnv
from vmb_gym.errors import ConfigError

SHIPPED_CUES = ("hypothetical", "elsewhere", "question")
LINES = [
    {"line_id": 1, "speaker": "Mara Quinn", "text": "From now on keep the seat heating at level 2 for me."},
    {"line_id": 2, "speaker": "Mara Quinn", "text": "I wonder what the seat heating at level 3 would feel like."},
    {"line_id": 3, "speaker": "Leo Brandt", "text": "In the rental I had the fan at level 5."},
    {"line_id": 4, "speaker": "Leo Brandt", "text": "Should the fan go to level 4"},
    {"line_id": 5, "speaker": "Leo Brandt", "text": "Can we stop for coffee?"},
]


def test_masked_lines_read_only_the_named_lexicon_cues() -> None:
    assert masked_lines(cue_pattern(SHIPPED_CUES), LINES) == [False, True, True, False, True]
    assert masked_lines(cue_pattern(("question",)), LINES) == [False, False, False, False, True]
    assert masked_lines(cue_pattern(()), LINES) == [False] * 5
    with pytest.raises(ConfigError, match=r"unknown line cue\(s\) \['bogus'\]"):
        cue_pattern(("question", "bogus"))


def test_the_rl_env_masks_keep_on_a_cued_line_and_takes_a_keep_there_as_skip() -> None:
    """Line 2 of the tiny timeline ("Did anyone feed the cat this morning?") is a question."""
    env = StreamWriteEnv(data=[tiny_scenario()], mask_cues=("question",))
    env.reset(seed=0)
    masks, kept, done, info = [], [], False, {}
    while not done:
        masks.append(env.action_masks().tolist())
        _, _, done, _, info = env.step(1)
        kept.append(info["kept"])
    assert masks == [[True, True], [True, False], [True, True], [True, True], [True, True]]
    assert kept == [True, False, True, True, True]
    assert info["episode_stats"]["lines_stored"] == 4
    with pytest.raises(ConfigError, match="unknown line cue"):
        StreamWriteEnv(data=[tiny_scenario()], mask_cues=("nope",))


def _stored_texts(writer) -> list[str]:
    env = VehicleMemStreamEnv("default", files=[1], max_chunk_steps=64)
    obs, info = env.reset(seed=0, options={"scenario_id": env.scenario_ids[0]})
    writer.reset(obs, info)
    view = dict(info)
    while True:
        obs, _, term, trunc, info = env.step(writer.act(obs, view))
        view = info
        if term or trunc:
            break
    assert info["episode_stats"]["store_tokens"] <= 2000
    return [e.text for e in env.store.entries if e.status == "active"]


def test_the_shipped_writer_masks_hypotheticals_other_cars_and_questions() -> None:
    """``sb3:stream`` records its mask in the sidecar; unmasked, the same model stores such lines on file 1."""
    writer = load_stream_writer("stream")
    assert writer.mask_cues == SHIPPED_CUES
    pattern = re.compile(cue_pattern(SHIPPED_CUES).pattern, re.IGNORECASE)
    masked_run = _stored_texts(writer)
    assert masked_run and not [t for t in masked_run if pattern.search(t)]
    writer.mask_cues, writer._mask = (), None  # the writer shipped before the mask
    unmasked_run = _stored_texts(writer)
    assert [t for t in unmasked_run if pattern.search(t)]


def test_the_trainer_flag_takes_a_comma_separated_list() -> None:
    pytest.importorskip("sb3_contrib")
    from vmb_agents.train.common import args_from_namespace
    from vmb_agents.train.stream_writer import Args, add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert Args().mask_cues == ""
    args = args_from_namespace(Args, parser.parse_args(["--mask-cues", "hypothetical,question"]))
    assert args.mask_cues == "hypothetical,question"
