"""A fast single-query path for the MiniLM encoder: the model exported once to ONNX, run by onnxruntime.

A memory search embeds one short query. Through torch that is a full framework call per query
(about 6 ms on one CPU core); onnxruntime runs the same graph in less than half of that. The
export (about 10 s, once per machine) is kept under ``<vmb cache dir>/onnx/`` and checked
against the torch encoder before use: if any embedding coordinate differs by more than
``1e-4`` the session is not used.

Both packages are optional (``pip install 'vmb_gym[dense]'`` brings them): without them
:func:`onnx_query_encoder` returns ``None`` and the caller stays on torch.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from vmb_gym.memory.cache import cache_dir

log = logging.getLogger(__name__)

#: The largest coordinate difference from the torch encoder that the ONNX session may show.
TOLERANCE = 1e-4
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
_PROBE = "Set the driver's seat heating to level 2 when it is cold at night."
#: Texts of other lengths the export is checked on (the graph is traced on ``_PROBE``).
_CHECKS = (
    _PROBE,
    "Hi",
    ("On rainy evenings Maria wants the wipers on auto, the cabin at 22 degrees, the ambient light purple and "
     "the passenger seat ventilation at its lowest speed, unless the kids are in the back."),
)


def onnx_query_encoder(
    model: Any, model_id: str, reference: Callable[[str], np.ndarray]
) -> Callable[[str], np.ndarray] | None:
    """An ``encode(text) -> (1, dim) unit rows`` function running ``model`` through onnxruntime.

    Args:
        model: the loaded ``SentenceTransformer`` (a mean-pooling BERT such as all-MiniLM-L6-v2).
        model_id: names the cached export.
        reference: the torch encoder of one text, used to check the export.

    Returns:
        The encoder, or ``None`` when onnx / onnxruntime are missing, the export fails or its
        embeddings differ from ``reference`` (each case is logged once).
    """
    try:
        import onnxruntime as ort
    except ImportError:
        log.info("onnxruntime is not installed: dense queries are encoded with torch")
        return None
    path = cache_dir() / "onnx" / f"{model_id.replace('/', '_')}.onnx"
    if not path.exists():
        try:
            _export(model, path)
        except Exception as exc:  # noqa: BLE001  (a missing onnx package, an exporter change: fall back, do not fail)
            log.warning(
                "could not export %s to ONNX (%s: %s); dense queries use torch", model_id, type(exc).__name__, exc
            )
            return None
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1  # one short query: threads cost more than they give
    options.inter_op_num_threads = 1
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # noqa: BLE001  (a truncated or corrupt export: rebuild next time)
        log.warning("the ONNX export %s could not be loaded (%s); it is removed and torch is used", path, exc)
        path.unlink(missing_ok=True)
        return None
    tokenizer = model.tokenizer
    max_length = int(getattr(model, "max_seq_length", 256) or 256)
    wanted = {i.name for i in session.get_inputs()}

    def encode(text: str) -> np.ndarray:
        batch = tokenizer([text], return_tensors="np", truncation=True, max_length=max_length)
        feed = {k: batch[k].astype(np.int64) for k in _INPUTS if k in wanted and k in batch}
        return np.asarray(session.run(None, feed)[0], dtype=np.float32)

    gap = max(float(np.abs(encode(t)[0] - reference(t).reshape(-1)).max()) for t in _CHECKS)
    if gap > TOLERANCE:
        log.warning("the ONNX export of %s differs from torch by %.2g; dense queries use torch", model_id, gap)
        return None
    return encode


def _export(model: Any, path: Path) -> None:
    """Export the transformer plus mean pooling and L2 normalisation to ``path`` (atomically)."""
    import torch

    class _Pooled(torch.nn.Module):
        def __init__(self, encoder: Any) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(out.dtype)
            pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    wrapped = _Pooled(model[0].auto_model).eval()
    sample = model.tokenizer([_PROBE], return_tensors="pt")
    args = tuple(sample[k] for k in _INPUTS)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".onnx.tmp")
    os.close(fd)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes on shape checks that are constant for one unpadded text
            torch.onnx.export(wrapped, args, tmp, input_names=list(_INPUTS), output_names=["embedding"],
                              dynamic_axes={k: {0: "batch", 1: "tokens"} for k in _INPUTS},
                              opset_version=17, dynamo=False)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)
