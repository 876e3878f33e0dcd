"""The slot features' per-step columns (API already called, value on the line of a value already set)
are what a plain loop over every (value, target) slot of an API gives, on states with calls made."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.sb3.slots import SlotCatalogue, make_slot_env
from vmb_agents.sb3.slots.features import BLOCK_GLOBAL, BLOCK_KIND, lines_of_set_values
from vmb_agents.sb3.slots.layout import N_MEMORY_VALUES, N_TARGET_SLOTS, N_VALUE_SLOTS, slot_index


def reference_features(featurizer: Any, analysis: Any, episode: Any) -> np.ndarray:
    """The per-step columns set one slot at a time (the featuriser's static rows and globals taken as they are)."""
    out = featurizer.features(analysis, episode).reshape(featurizer.n_actions, featurizer.row).copy()
    out[:, BLOCK_KIND + BLOCK_GLOBAL + 13] = analysis.features[:, BLOCK_KIND + BLOCK_GLOBAL + 13]
    out[:, featurizer.same_line_column] = analysis.features[:, featurizer.same_line_column]
    made = set(episode.made_names)
    set_lines = lines_of_set_values(analysis, episode.made) if made else set()
    for a, slot in enumerate(analysis.apis):
        for v in range(N_VALUE_SLOTS):
            for t in range(N_TARGET_SLOTS):
                if slot.api in made:
                    out[slot_index(a, v, t), BLOCK_KIND + BLOCK_GLOBAL + 13] = 1.0
        for k, val in enumerate(slot.values):
            if set_lines and not set_lines.isdisjoint([val.source, *val.sources]):
                for v in (k, N_MEMORY_VALUES + k):
                    for t in range(N_TARGET_SLOTS):
                        out[slot_index(a, v, t), featurizer.same_line_column] = 1.0
    return out.reshape(-1)


def test_per_step_columns_match_a_slot_by_slot_loop() -> None:
    env = make_slot_env(gym.make("VehicleMem-v0", data="default", memory="bm25", max_steps=6),
                        catalogue=SlotCatalogue(context=2))
    inner, featurizer = env.env, env.featurizer
    rng = np.random.default_rng(5)
    called = same_line = 0
    for q in env.unwrapped.tasks.queries[:12]:
        obs, _ = env.reset(options={"task_id": q.task_id})
        for _ in range(2):  # each episode twice: the second finds the cached lines of its calls
            done = False
            while not done:
                expected = reference_features(featurizer, inner.analysis, inner.episode)
                assert obs.dtype == np.float32 and np.array_equal(obs, expected)
                rows = obs.reshape(featurizer.n_actions, featurizer.row)
                called += int(rows[:, BLOCK_KIND + BLOCK_GLOBAL + 13].sum() > 0)
                same_line += int(rows[:, featurizer.same_line_column].sum() > 0)
                mask = env.action_masks()
                calls = np.flatnonzero(mask[2:]) + 2
                action = (int(rng.choice(calls)) if len(calls) and rng.random() < 0.8
                          else int(rng.choice(np.flatnonzero(mask))))
                obs, _, terminated, truncated, _ = env.step(action)
                done = terminated or truncated
            obs, _ = env.reset(options={"task_id": q.task_id})
    assert called > 5 and same_line > 0  # both columns were exercised
