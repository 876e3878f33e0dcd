"""The training pairs of ``vmb train static-encoder``: requests, their evidence lines and hard negatives."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("bm25s")

from vmb_agents.train.static_encoder import line_text, mine_pairs


def test_pairs_are_request_evidence_line_and_a_visible_non_evidence_negative(scenario):
    rows = mine_pairs([scenario], negatives=1, pool=5, rng=np.random.default_rng(0))
    texts = {line_text(scenario, ln.line_id): ln for ln in scenario.lines}
    by_request = {q.text: q for q in scenario.queries}
    want = sorted((q.text, line_text(scenario, i)) for q in scenario.queries for i in q.evidence_line_ids)
    assert sorted((r["anchor"], r["positive"]) for r in rows) == want  # one pair per evidence line
    for r in rows:
        q = by_request[r["anchor"]]
        negative = texts[r["negative_0"]]
        assert negative.line_id not in q.evidence_line_ids
        assert negative.timestamp <= q.as_of
        assert r["positive"].startswith(texts[r["positive"]].speaker + ": ")


def test_pairs_are_reproducible_and_negatives_come_from_the_pool(scenario):
    first = mine_pairs([scenario], negatives=2, pool=3, rng=np.random.default_rng(7))
    assert first == mine_pairs([scenario], negatives=2, pool=3, rng=np.random.default_rng(7))
    assert all(r["negative_0"] != r["negative_1"] for r in first)
    assert mine_pairs([scenario], negatives=len(scenario.lines), pool=3, rng=np.random.default_rng(0)) == []


def test_vmb_train_static_encoder_is_registered_with_the_out_rule():
    from vmb_gym.cli.train import TRAINERS, trainer_parser

    assert "static-encoder" in TRAINERS
    text = " ".join(trainer_parser("static-encoder").format_help().split())
    for option in ("--out", "--overwrite", "--train-scenarios", "--val-scenarios", "--negatives", "--epochs", "--ship"):
        assert option in text
    assert "not even with --overwrite" in text


def test_shipped_model_records_portable_settings_no_local_paths():
    import json
    from pathlib import Path

    from vmb_gym.memory.static_encoder import CONFIG, SHIPPED_DIR

    settings = json.loads((SHIPPED_DIR / CONFIG).read_text(encoding="utf-8"))["recipe"]["settings"]
    folders = {key: settings[key] for key in ("out", "init", "cache_dir")}
    assert all("/" not in value and not Path(value).is_absolute() for value in folders.values()), folders


def test_portable_settings_keep_folder_names_only():
    from vmb_agents.train.static_encoder import Args, portable_settings

    settings = portable_settings(Args(out="/tmp/x/run1", init="/root/.cache/m2v-256", teacher="/tmp/t/teacher.npz"))
    assert (settings["out"], settings["init"], settings["cache_dir"], settings["teacher"]) == (
        "run1", "m2v-256", "", "teacher.npz")
    assert settings["lr"] == Args().lr


def test_teacher_vectors_come_from_the_cache_without_minilm(tmp_path, monkeypatch):
    from vmb_agents.train import static_encoder as trainer

    rows = [{"anchor": "a", "positive": "b", "negative_0": "c"}, {"anchor": "a", "positive": "d", "negative_0": "b"}]
    vectors = np.eye(4, dtype=np.float32)
    np.savez(tmp_path / "teacher.npz", texts=np.array(["a", "b", "c", "d"]), vectors=vectors)
    monkeypatch.setattr("vmb_gym.memory.retrieval.make_embedder", lambda *a, **k: pytest.fail("MiniLM was loaded"))
    teacher = trainer.teacher_vectors(rows, trainer.Args(teacher=str(tmp_path / "teacher.npz")), tmp_path / "out")
    labelled = trainer.with_teacher(rows, teacher)
    assert labelled[1]["label"] == [1.0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0]  # a, d, b in column order
    assert labelled[1]["positive"] == "d"


def test_teacher_loss_adds_the_similarity_gap_to_the_ranking_loss():
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("sentence_transformers")
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    from vmb_agents.train.static_encoder import ranking_loss
    from vmb_gym.memory import static_encoder as se

    _, tokenizer = se.load_table(se.SHIPPED_DIR, se.read_config(se.SHIPPED_DIR))
    torch.manual_seed(0)
    static = StaticEmbedding(tokenizer, embedding_weights=torch.randn(tokenizer.get_vocab_size(), 8))
    model = st.SentenceTransformer(modules=[static], device="cpu")
    columns = [["seat heater up", "fan speed two"], ["Ann: seat heater on level 3", "Bob: fan at two"],
               ["Ann: nice weather", "Bob: see you"]]
    features = [model.tokenize(texts) for texts in columns]
    with torch.no_grad():
        own = [model(dict(f))["sentence_embedding"] for f in features]
        same = torch.stack(own, dim=1).reshape(2, -1)  # the student as its own teacher: no gap
        mnrl = ranking_loss(model, 0.0)(features, same)
        assert ranking_loss(model, 5.0)(features, same).item() == pytest.approx(mnrl.item(), abs=1e-5)
        other = torch.randn_like(same)
        assert ranking_loss(model, 5.0)(features, other).item() > mnrl.item() + 1e-3
