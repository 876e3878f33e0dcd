"""The cascade encoder: a fast first stage ranks every line, the second re-ranks its best, lazily."""

from __future__ import annotations

import numpy as np
import pytest

from vmb_gym.errors import ConfigError
from vmb_gym.memory import make_memory
from vmb_gym.memory.cascade import CascadeEncoder, CascadeIndex
from vmb_gym.memory.dense_index import embedding_cache_path
from vmb_gym.memory.retrieval import DenseMemory, HashingEmbedder, make_embedder
from vmb_gym.memory.base import clear_snapshots
from vmb_gym.memory.cache import save_array
from vmb_gym.testing import check_memory_module


class Counting(HashingEmbedder):
    """A hashing embedder that records every text it embeds."""

    def __init__(self, dim: int, tag: str) -> None:
        super().__init__(dim)
        self.model_id = f"{self.model_id}-{tag}"
        self.seen: list[str] = []

    def encode(self, texts):
        self.seen.extend(texts)
        return super().encode(texts)


def cascade(depth: int) -> CascadeEncoder:
    return CascadeEncoder(Counting(32, "first"), Counting(128, "second"), depth=depth)


def ranking(memory, text: str, as_of) -> list[tuple[int, ...]]:
    return [h.line_ids for h in memory.search(text, as_of=as_of, top_k=10)]


def test_the_build_embeds_with_the_first_stage_only_and_a_search_embeds_at_most_depth_lines(scenario):
    enc = cascade(depth=4)
    memory = DenseMemory(embedder=enc, use_disk_cache=False)
    memory.ingest(scenario)
    n = len(scenario.lines)
    assert len(enc.first.seen) == n and enc.second.seen == []
    q = scenario.queries[0]
    memory.search(q.text, as_of=q.as_of, top_k=3)
    lines_embedded = [t for t in enc.second.seen if t != q.text]
    assert 0 < len(lines_embedded) <= 4
    before = len(enc.second.seen)
    memory._dense_index().scores(q.text)  # the same candidates again: only the query is embedded
    assert enc.second.seen[before:] == [q.text]
    assert memory._dense_index().second_stage_lines == len(lines_embedded)


def test_the_best_depth_lines_come_first_in_the_second_stages_order(scenario):
    enc = cascade(depth=3)
    index = CascadeIndex(enc, use_disk_cache=False)
    texts = [ln.text for ln in scenario.lines]
    index.extend(texts)
    query = scenario.queries[0].text
    got = index.scores(query)
    first = enc.first.encode(texts) @ enc.first.encode([query])[0]
    top3 = set(np.argsort(-first, kind="stable")[:3].tolist())
    ours = np.argsort(-got, kind="stable").tolist()
    assert set(ours[:3]) == top3
    second = enc.second.encode(texts) @ enc.second.encode([query])[0]
    assert ours[:3] == sorted(top3, key=lambda i: (-second[i], i))
    rest = [i for i in ours[3:]]
    assert rest == sorted(rest, key=lambda i: (-first[i], i))  # the others keep the first stage's order
    assert got[ours[3]] < got[ours[2]]


def test_depth_past_the_history_ranks_as_the_second_stage_alone(scenario):
    enc = cascade(depth=10_000)
    alone = DenseMemory(embedder=enc.second, use_disk_cache=False)
    both = DenseMemory(embedder=enc, use_disk_cache=False)
    alone.ingest(scenario)
    both.ingest(scenario)
    for q in scenario.queries:
        assert ranking(both, q.text, q.as_of) == ranking(alone, q.text, q.as_of)


def test_candidates_are_drawn_from_the_visible_lines_only(scenario):
    enc = cascade(depth=2)
    memory = DenseMemory(embedder=enc, use_disk_cache=False)
    memory.ingest(scenario)
    early = scenario.lines[5].timestamp
    hits = memory.search("seat heating", as_of=early, top_k=2)
    assert len(hits) == 2 and all(scenario.lines[i - 1].timestamp <= early for h in hits for i in h.line_ids)
    visible = {e.text for e in memory.entries if e.timestamp <= early}
    later = {e.text for e in memory.entries} - visible
    assert enc.second.seen and not later & set(enc.second.seen)


def test_a_whole_history_of_second_stage_rows_on_disk_is_used_and_ranks_the_same(scenario):
    lazy = cascade(depth=3)
    fresh = DenseMemory(embedder=lazy, use_disk_cache=True)
    fresh.ingest(scenario)
    want = [ranking(fresh, q.text, q.as_of) for q in scenario.queries]
    cached = cascade(depth=3)
    texts = [e.text for e in fresh.entries]
    save_array(embedding_cache_path(cached.second, texts), cached.second.encode(texts))
    cached.second.seen.clear()
    clear_snapshots()
    memory = DenseMemory(embedder=cached, use_disk_cache=True)
    memory.ingest(scenario)
    got = [ranking(memory, q.text, q.as_of) for q in scenario.queries]
    assert got == want
    assert set(cached.second.seen) <= {q.text for q in scenario.queries}  # queries only: no line re-embedded


def test_saved_state_restores_the_lazily_filled_rows(scenario):
    enc = cascade(depth=3)
    memory = DenseMemory(embedder=enc, use_disk_cache=False)
    memory.ingest(scenario)
    q = scenario.queries[0]
    memory.search(q.text, as_of=q.as_of, top_k=3)
    payload = memory._payload()
    other = DenseMemory(embedder=enc, use_disk_cache=False)
    other.ingest(scenario)
    other._load_payload(payload)
    index = other._dense_index()
    assert index.have.sum() == memory._dense_index().have.sum() > 0
    np.testing.assert_array_equal(index.second, memory._dense_index().second)


@pytest.mark.parametrize("name", ["dense", "hybrid", "layered"])
def test_every_dense_module_keeps_the_memory_contract_with_a_cascade(name):
    check_memory_module(name, embedder=cascade(depth=4))


def test_the_cascade_is_a_named_encoder_and_its_depth_is_checked():
    pytest.importorskip("safetensors")
    pytest.importorskip("tokenizers")
    enc = make_embedder("cascade")
    assert isinstance(enc, CascadeEncoder) and enc.depth == 100
    assert enc.model_id.startswith("cascade:vmb-static-minilm-") and enc.dim == 384
    assert isinstance(make_memory("hybrid", encoder="cascade")._dense_index(), CascadeIndex)
    with pytest.raises(ConfigError, match="depth must be at least 1"):
        CascadeEncoder(HashingEmbedder(), HashingEmbedder(), depth=0)
