"""Writing the dashboard: a static site that works offline, from run directories.

The site holds ``index.html`` (the comparison tables and the SVG charts, rendered here),
``assets/`` (the page's script and stylesheet, copied from the package), ``data/index.js``
(one compact row per task: the filters and the task table read it) and ``tasks/tN.js``, one
small file per task with its drill-down, loaded by the page only when the task is opened.
Data files are JavaScript (``window.VMB_DATA = ...`` and ``vmbTask(...)``), not JSON fetched
at run time, so the site also works opened from disk (``file://``), where browsers refuse
``fetch``.

Every string from the runs is escaped: HTML text here with :func:`html.escape`, JSON in the
data files with ``<`` written as ``\\u003c`` (so no ``</script>`` can close a tag), and the page
inserts data with ``textContent`` only.
"""

from __future__ import annotations

import os
import shutil
import string
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from importlib import resources
from pathlib import Path
from typing import Any, cast

import orjson

from vmb_gym.errors import ConfigError
from vmb_gym.evaluation.attribution import FAILURE_LABELS
from vmb_gym.evaluation.compare import Comparison, compare_runs
from vmb_gym.evaluation.dashboard.charts import PALETTE, esm_by_group_svg, tokens_vs_esm_svg
from vmb_gym.evaluation.dashboard.overview import (
    Table,
    attribution_table,
    by_group_table,
    paired_table,
    run_names,
    runs_table,
)
from vmb_gym.evaluation.dashboard.task_detail import (
    HistoryTexts,
    TaskTexts,
    request_and_gold,
    task_payload,
    tasks_by_id,
)
from vmb_gym.evaluation.runs import Run, load_runs

__all__ = ["REQUEST_CHARS", "build_site", "js_data", "render_table"]

#: Characters of a request kept in the task index (the drill-down has the whole text).
REQUEST_CHARS = 240
_STATIC = ("app.js", "style.css")


def js_data(obj: Any) -> bytes:
    """JSON bytes safe to place in a script: ``<`` becomes ``\\u003c`` (``<`` only occurs in strings)."""
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).replace(b"<", b"\\u003c")


def _cell(value: Any, kind: str) -> str:
    if value is None:
        return '<td class="num">-</td>' if kind != "text" else "<td>-</td>"
    if kind == "rate":
        return f'<td class="num">{float(value):.3f}</td>'
    if kind == "num":
        v = float(value)
        return f'<td class="num">{v:.1f}</td>' if abs(v) >= 10 else f'<td class="num">{v:.3f}</td>'
    if kind == "int":
        return f'<td class="num">{int(value)}</td>'
    return f"<td>{escape(str(value))}</td>"


def render_table(table: Table, table_id: str) -> str:
    """An HTML ``<table>`` of a :class:`Table` (every cell escaped)."""
    head = "".join(f'<th class="num">{escape(h)}</th>' if k != "text" else f"<th>{escape(h)}</th>"
                   for h, k in zip(table.headings, table.kinds, strict=False))
    body = "\n".join("<tr>" + "".join(_cell(v, k) for v, k in zip(row, table.kinds, strict=False)) + "</tr>"
                     for row in table.rows)
    if not table.rows:
        body = f'<tr><td colspan="{len(table.headings)}" class="none">nothing to show</td></tr>'
    return (f'<div class="table-wrap"><table id="{escape(table_id)}"><thead><tr>{head}</tr></thead>'
            f"<tbody>\n{body}\n</tbody></table></div>")


def _index(runs: Sequence[Run], tasks: dict[str, list[Any]], texts: TaskTexts) -> dict[str, Any]:
    """The task index: filters' choices and one compact row per task (see ``app.js``)."""
    rows: list[list[Any]] = []
    types: set[str] = set()
    modules: set[str] = set()
    labels: set[str] = set()
    for n, (task_id, cells) in enumerate(tasks.items()):
        first = next((c for c in cells if c is not None and c.modules), None) or next(c for c in cells if c is not None)
        request = request_and_gold(task_id, cells, runs, texts)[0]
        types.add(first.reasoning_type)
        modules.update(first.modules)
        labels.update(c.failure_label for c in cells if c is not None and c.failure_label)
        rows.append([task_id, first.reasoning_type, list(first.modules), request[:REQUEST_CHARS], n,
                     [None if c is None else int(c.exact_match) for c in cells],
                     [None if c is None else c.failure_label for c in cells]])
    ordered_labels = [lb for lb in FAILURE_LABELS if lb in labels] + sorted(labels - set(FAILURE_LABELS))
    names = run_names(runs)
    return {
        "runs": [{"name": name, "policy": r.config.policy, "memory": r.config.memory, "data": r.config.data}
                 for name, r in zip(names, runs, strict=True)],
        "types": sorted(types), "modules": sorted(modules), "labels": ordered_labels,
        "palette": list(PALETTE), "tasks": rows,
    }


def _charts(cmp: Comparison, names: Sequence[str]) -> tuple[str, str]:
    groups = list(cmp.by_reasoning_type)
    values = [[c["esm"] for c in cells] for cells in cmp.by_reasoning_type.values()]
    tokens = [row.get("memory_tokens") for row in cmp.rows]
    esm = [float(row.get("esm") or 0.0) for row in cmp.rows]
    return esm_by_group_svg(groups, names, values), tokens_vs_esm_svg(names, tokens, esm)


def _write_tasks(out: Path, runs: Sequence[Run], tasks: dict[str, list[Any]], texts: TaskTexts) -> None:
    folder = out / "tasks"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    history = HistoryTexts()
    for n, (task_id, cells) in enumerate(tasks.items()):
        payload = task_payload(task_id, cells, runs, history, texts)
        (folder / f"t{n}.js").write_bytes(b"vmbTask(" + js_data(payload) + b");\n")


def _page(runs: Sequence[Run], cmp: Comparison, title: str) -> str:
    names = run_names(runs)
    chart_types, chart_tokens = _charts(cmp, names)
    template = string.Template(resources.files(__package__).joinpath("static/index.html").read_text("utf-8"))
    data = sorted({r.config.data for r in runs})
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    against = list(cmp.settings.get("against") or [])
    reference = ", ".join(against) if against != ["1"] else f"the first run ({names[0]})"
    return template.substitute(
        title=escape(title),
        subtitle=escape(f"{len(runs)} run(s) on {', '.join(data)}"),
        runs_table=render_table(runs_table(cmp, names), "runs"),
        paired_note=escape(f"run - reference on the same tasks; reference: {reference}; "
                           f"{cmp.settings.get('resamples', 0):,} bootstrap resamples, exact sign test"),
        paired_table=render_table(paired_table(cmp, names), "paired"),
        chart_types=chart_types, chart_tokens=chart_tokens,
        types_table=render_table(by_group_table(cmp, names, "reasoning_type"), "by-type"),
        labels_table=render_table(attribution_table(cmp, names), "by-label"),
        modules_table=render_table(by_group_table(cmp, names, "module"), "by-module"),
        footer=escape(f"made by vmb dashboard on {stamp} from: " + ", ".join(str(r.path) for r in runs)),
    )


def build_site(run_dirs: Sequence[str | os.PathLike[str]] | Sequence[Run], out: str | os.PathLike[str], *,
               title: str = "vmb_gym runs", against: Sequence[str] = (), resamples: int = 10_000) -> Path:
    """Write the dashboard of some runs into ``out``; returns the path of ``index.html``.

    Args:
        run_dirs: run directories (``vmb eval`` or ``vmb eval-stream`` outputs) or loaded runs.
        out: the site folder (created; its ``tasks/`` sub-folder is rewritten, nothing else removed).
        title: the page title.
        against: the reference runs of the paired differences, as ``vmb compare --against``
            takes them (default: the first run).
        resamples: bootstrap resamples of the paired intervals.

    Raises:
        ConfigError: no run given, no scored task in any run, or ``against`` names no run.
        DataError: a directory is not a run (see :func:`vmb_gym.evaluation.runs.load_run`).
    """
    items = list(run_dirs)
    runs = [r for r in items if isinstance(r, Run)]
    if len(runs) < len(items):
        runs = load_runs(cast("list[str | os.PathLike[str]]", items))
    if not runs:
        raise ConfigError("expected at least one run directory for the dashboard, found none")
    tasks = tasks_by_id(runs)
    if not tasks:
        raise ConfigError(f"expected scored tasks in the runs, found none in {', '.join(str(r.path) for r in runs)}; "
                          "run vmb eval first")
    cmp = compare_runs(runs, against=against, resamples=resamples)
    site = Path(out)
    (site / "assets").mkdir(parents=True, exist_ok=True)
    (site / "data").mkdir(exist_ok=True)
    static = resources.files(__package__).joinpath("static")
    for name in _STATIC:
        (site / "assets" / name).write_bytes(static.joinpath(name).read_bytes())
    texts = TaskTexts()
    (site / "data" / "index.js").write_bytes(b"window.VMB_DATA = " + js_data(_index(runs, tasks, texts)) + b";\n")
    _write_tasks(site, runs, tasks, texts)
    index = site / "index.html"
    index.write_text(_page(runs, cmp, title), encoding="utf-8")
    return index
