"""Charts of the dashboard as hand-built SVG (no charting library, nothing fetched at view time).

Two charts: ESM by reasoning type across runs (grouped horizontal bars) and memory tokens vs
ESM with one point per run. Each returns an ``<svg>`` string whose text (run names, group
names) is XML-escaped, ready to be inlined into the page.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

__all__ = ["PALETTE", "esm_by_group_svg", "tokens_vs_esm_svg"]

#: One colour per run, in run order (repeats after ten runs); colour-blind-safe (Tableau 10).
PALETTE: tuple[str, ...] = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                            "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")

_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _svg_open(width: float, height: float, title: str) -> str:
    """The ``<svg>`` start tag and the chart's title line."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" role="img" aria-label="{escape(title)}">\n'
            f'<text x="0" y="16" {_FONT} font-size="14" font-weight="600">{escape(title)}</text>')


def _legend(names: Sequence[str], x: float, y: float) -> list[str]:
    out = []
    for i, name in enumerate(names):
        yy = y + 18 * i
        out.append(f'<rect x="{x}" y="{yy - 10}" width="12" height="12" fill="{_colour(i)}"/>')
        out.append(f'<text x="{x + 18}" y="{yy}" {_FONT}>{escape(name)}</text>')
    return out


def esm_by_group_svg(groups: Sequence[str], runs: Sequence[str],
                     values: Sequence[Sequence[float | None]], title: str = "ESM by reasoning type") -> str:
    """Grouped horizontal bars: for each group, one bar per run (``values[group][run]``, 0-1)."""
    label_w, plot_w, bar_h = 160, 300, 12
    group_h = bar_h * len(runs) + 14
    legend_w = 40 + 7 * max((len(r) for r in runs), default=4)
    width = label_w + plot_w + 50 + legend_w
    height = max(60 + group_h * len(groups), 60 + 18 * len(runs))
    parts = [_svg_open(width, height, title)]
    top = 36
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = label_w + plot_w * tick
        parts.append(f'<line x1="{x}" y1="{top - 4}" x2="{x}" y2="{height - 16}" stroke="#ddd"/>')
        parts.append(f'<text x="{x}" y="{height - 2}" {_FONT} text-anchor="middle" fill="#666">{tick:g}</text>')
    for g, (group, row) in enumerate(zip(groups, values, strict=False)):
        y0 = top + g * group_h
        parts.append(f'<text x="{label_w - 8}" y="{y0 + group_h / 2}" {_FONT} text-anchor="end">{escape(group)}</text>')
        for r, value in enumerate(row):
            y = y0 + r * bar_h
            w = plot_w * max(0.0, min(1.0, value or 0.0))
            tip = f"{runs[r]}: {'-' if value is None else f'{value:.3f}'}"
            parts.append(f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{_colour(r)}">'
                         f'<title>{escape(group)} | {escape(tip)}</title></rect>')
            if value is not None:
                parts.append(f'<text x="{label_w + w + 3:.1f}" y="{y + bar_h - 3}" {_FONT} font-size="9" '
                             f'fill="#555">{value:.2f}</text>')
    parts += _legend(runs, label_w + plot_w + 50, top + 6)
    parts.append("</svg>")
    return "\n".join(parts)


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    step = 10 ** math.floor(math.log10(value))
    for m in (1, 2, 2.5, 5, 10):
        if value <= m * step:
            return m * step
    return 10 * step


def tokens_vs_esm_svg(runs: Sequence[str], tokens: Sequence[float | None], esm: Sequence[float],
                      title: str = "Memory tokens vs ESM (one point per run)") -> str:
    """Scatter of mean memory tokens per episode (x) against ESM (y), one labelled point per run."""
    left, plot_w, plot_h, top = 56, 340, 260, 36
    legend_w = 40 + 7 * max((len(r) for r in runs), default=4)
    width, height = left + plot_w + 40 + legend_w, top + plot_h + 44
    x_max = _nice_max(max((t or 0.0 for t in tokens), default=0.0))
    parts = [_svg_open(width, height, title)]
    for i in range(5):
        y = top + plot_h * (1 - i / 4)
        x = left + plot_w * i / 4
        parts.append(f'<line x1="{left}" y1="{y}" x2="{left + plot_w}" y2="{y}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4}" {_FONT} text-anchor="end" fill="#666">{i / 4:g}</text>')
        parts.append(f'<text x="{x}" y="{top + plot_h + 16}" {_FONT} text-anchor="middle" fill="#666">'
                     f'{x_max * i / 4:g}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 4}" {_FONT} text-anchor="middle">'
                 'memory tokens per episode</text>')
    parts.append(f'<text x="12" y="{top + plot_h / 2}" {_FONT} text-anchor="middle" '
                 f'transform="rotate(-90 12 {top + plot_h / 2})">ESM</text>')
    for i, (name, tok, value) in enumerate(zip(runs, tokens, esm, strict=False)):
        cx = left + plot_w * (tok or 0.0) / x_max
        cy = top + plot_h * (1 - max(0.0, min(1.0, value)))
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="{_colour(i)}" stroke="#333">'
                     f'<title>{escape(name)}: {tok or 0:.0f} tokens, ESM {value:.3f}</title></circle>')
    parts += _legend(runs, left + plot_w + 40, top + 6)
    parts.append("</svg>")
    return "\n".join(parts)
