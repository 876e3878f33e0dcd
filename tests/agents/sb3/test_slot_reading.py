"""The slot design reads its episode's request once (the episode's Reading) and analyses the structured hits."""

from __future__ import annotations

import gymnasium as gym

import vmb_gym  # noqa: F401  (registers the envs)
from vmb_agents.reader import read_request
from vmb_agents.sb3.slots import SlotCatalogue, speakers_of
from vmb_agents.sb3.slots.records import SlotEpisodeText


def test_the_episode_reads_its_request_once_and_the_analysis_uses_that_reading() -> None:
    env = gym.make("VehicleMem-v0", data="default", files=[1], memory="bm25", max_steps=6)
    obs, info = env.reset(options={"task_id": env.unwrapped.tasks.queries[0].task_id})
    episode, catalogue = SlotEpisodeText(), SlotCatalogue()
    episode.on_reset(obs, info)
    speakers = speakers_of(env, info)
    analysis = catalogue.analyse(episode, speakers)
    reading = episode.reading
    assert reading is not None and reading.text == info["request"]
    assert reading.request == read_request(info["request"], speakers) and analysis.request is reading.request
    assert episode.read(speakers) is reading  # the same reading on every later step of the episode
    obs, info = env.reset(options={"task_id": env.unwrapped.tasks.queries[1].task_id})
    episode.on_reset(obs, info)
    assert episode.reading is None and episode.read(speakers_of(env, info)).text == info["request"]
