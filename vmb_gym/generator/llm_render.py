"""The verified LLM renderer: rewrite each conversation of a generated history with a chat model.

``vmb generate --renderer openai:MODEL`` (any OpenAI-compatible endpoint) or ``--renderer
hf:PATH`` generates scenarios with the offline renderer and then passes each one through
:class:`LLMRenderer`, a post-pass over :func:`~vmb_gym.generator.writer.build_scenario`'s output:

1. the history is read back into lines and grouped into conversations
   (:func:`~vmb_gym.generator.render_verify.conversations`);
2. each conversation's lines (speaker, text, and the wording each must keep) are sent to the chat
   backend, which answers a JSON list with one rewritten text per line;
3. the reply is verified (:func:`~vmb_gym.generator.render_verify.verify`): same line count,
   every value-bearing line still states its value and keeps its names, no other value stated
   for a setting the queries ask or the sidecar mentions, no line repeating another line of the
   conversation (a shifted copy would put words in the wrong mouth), no empty or multi-line text. Times and speakers
   are never the model's:
   only the texts are replaced, so the sidecar's line ids and times stay aligned;
4. a conversation that fails is asked again once (the request names what was wrong), then falls
   back to the offline text. :class:`RenderStats` counts rendered, re-rendered and fallback
   conversations; they go in each scenario's ``meta.generator.llm_render`` and the set's
   ``render_manifest.json``.

Gold memories (``qa_data`` ``gold_memory`` and ``meta`` evidence texts) are rewritten from the new
line texts, and ``meta.generator.paraphrased`` turns true (this post-pass replaced the old
per-line paraphrase hook of the builder). Replies are cached by content (:mod:`vmb_gym.generator.render_cache`), so a
rerun
is resumable. A failed request (timeout, HTTP error, malformed reply) is a failed attempt, never
a crash. The backend is any :class:`~vmb_gym.memory.llm.ChatBackend`; the API key is the
backend's business and is never written here (error texts are scrubbed of it).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from vmb_gym.generator.render_cache import ReplyCache, request_key
from vmb_gym.generator.render_verify import (
    LineRule,
    TalkLine,
    ValueReader,
    conversations,
    line_rules,
    parse_history,
    render_line,
    verify,
    vocabulary_reader,
    watched_apis,
)
from vmb_gym.generator.writer import GeneratedScenario
from vmb_gym.memory.llm import ChatBackend

__all__ = ["LLMRenderer", "RenderStats", "parse_reply", "render_messages"]

SYSTEM_PROMPT = (
    "You rewrite short conversations that members of a household have in and around their car, so they read "
    "like real people talking: natural turns, reactions to what the other person said, hedges, small everyday "
    "details. Keep every line's speaker, meaning and order. Reply with a JSON list of strings, one per line, "
    "and nothing else."
)


@dataclass
class RenderStats:
    """Counts of one renderer run (summed over the scenarios it rendered)."""

    conversations: int = 0
    rendered: int = 0
    re_rendered: int = 0
    fallback: int = 0
    requests: int = 0
    cached_replies: int = 0
    endpoint_errors: int = 0
    lines: int = 0
    lines_changed: int = 0
    failures: Counter[str] = field(default_factory=Counter)

    def add(self, other: RenderStats) -> None:
        """Add another run's counts to these."""
        for k, v in asdict(other).items():
            if k == "failures":
                self.failures.update(other.failures)
            else:
                setattr(self, k, getattr(self, k) + v)

    def to_json(self) -> dict[str, Any]:
        """The counts as a JSON object (failure kinds sorted by count)."""
        out = asdict(self)
        out["failures"] = dict(self.failures.most_common())
        return out


def render_messages(lines: Sequence[TalkLine], rules: Mapping[int, LineRule]) -> list[dict[str, str]]:
    """The chat request for one conversation: the system prompt and the numbered lines."""
    n = len(lines)
    people = sorted({line.speaker for line in lines})
    rows = []
    for k, line in enumerate(lines, start=1):
        keep = rules.get(line.index, LineRule()).keep
        extra = f"   KEEP: {', '.join(json.dumps(w, ensure_ascii=False) for w in keep)}" if keep else ""
        rows.append(f"{k}. {line.speaker}: {json.dumps(line.text, ensure_ascii=False)}{extra}")
    user = (
        f"A conversation between {' and '.join(people)} ({n} lines). Rewrite each line as natural speech.\n"
        f"Rules:\n"
        f"- exactly {n} lines, in the same order, each still said by the same person;\n"
        f"- a line marked KEEP must contain each quoted phrase exactly as written, about the same person or "
        f"thing;\n"
        f"- do not add a vehicle setting or a value to a line that has none; questions, hypotheticals and other "
        f"people's cars stay what they are;\n"
        f"- no speaker names or times in front of the text, no line breaks inside a line.\n"
        f"Lines:\n" + "\n".join(rows) + f"\nAnswer with a JSON list of {n} strings."
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


_FENCE = re.compile(r"^```[a-zA-Z]*\s*|\s*```$")


_NUMBERED = re.compile(r"^\s*(\d+)[.)]\s+(?:[^:\"]{1,60}:\s*)?(.+?)\s*$")


def _numbered(text: str) -> list[str] | None:
    """The texts of a reply in the request's own numbered form (``1. Name: "text"``), or None."""
    rows = [m for m in map(_NUMBERED.match, text.splitlines()) if m]
    if not rows or [int(m.group(1)) for m in rows] != list(range(1, len(rows) + 1)):
        return None
    out = []
    for m in rows:
        item = m.group(2)
        if item.startswith('"'):
            try:
                item = json.JSONDecoder().raw_decode(item)[0]
            except json.JSONDecodeError:
                item = item.strip('"')
        out.append(str(item))
    return out


def parse_reply(content: str, lines: Sequence[TalkLine]) -> list[str]:
    """The rewritten texts of a reply: a JSON list of strings (perhaps fenced), else the request's
    numbered form (small models often answer in it); speaker prefixes are dropped.

    Raises:
        ValueError: the reply holds neither.
    """
    text = _FENCE.sub("", content.strip())
    start, end = text.find("["), text.rfind("]")
    items: Any = None
    error = "no JSON list"
    if 0 <= start < end:
        try:
            items = json.loads(text[start:end + 1])
        except json.JSONDecodeError as exc:
            error = exc.msg
    if items is None:
        items = _numbered(text)
    if items is None:
        raise ValueError(f"malformed reply: {error}")
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise ValueError("malformed reply: not a list of strings")
    out = []
    for k, item in enumerate(items):
        item = item.strip()
        if k < len(lines):
            for name in (lines[k].speaker, lines[k].speaker.split()[0]):
                if item.startswith(name + ":"):
                    item = item[len(name) + 1:].strip()
                    break
        out.append(item)
    return out


def _failure_kind(problem: str) -> str:
    for kind in ("malformed", "endpoint", "expected", "must contain", "must still state", "watched setting",
                 "repeats", "empty", "line break"):
        if kind in problem:
            return {"expected": "line count", "must contain": "kept wording", "must still state": "value",
                    "watched setting": "added value", "repeats": "repeated line"}.get(kind, kind)
    return "other"


def _scrub(text: str) -> str:
    key = os.environ.get("OPENAI_API_KEY")
    return text.replace(key, "***") if key else text


class LLMRenderer:
    """Rewrite the conversations of generated scenarios with a chat backend, verified.

    Args:
        backend: the chat model (e.g. ``make_chat_backend("openai:MODEL")``).
        model: the model's name in the cache key and the sidecar (e.g. ``"openai:MODEL"``).
        endpoint: where the model is served (e.g. the base URL); part of the cache key only.
        reader: value reader of the verifier (default: the simulator vocabulary).
        rerenders: requests after the first for a conversation that fails (default 1).
        cache: reply cache; None: no cache.
        progress: show a tqdm bar over conversations.
        max_lines: longest conversation part sent in one request.
    """

    def __init__(self, backend: ChatBackend, model: str, *, endpoint: str = "",
                 reader: ValueReader = vocabulary_reader, rerenders: int = 1, cache: ReplyCache | None = None,
                 progress: bool = True, max_lines: int = 24) -> None:
        self.backend = backend
        self.model = model
        self.endpoint = endpoint
        self.reader = reader
        self.rerenders = max(0, int(rerenders))
        self.cache = cache
        self.progress = progress
        self.max_lines = max_lines
        self.stats = RenderStats()

    def __call__(self, scenario: GeneratedScenario) -> GeneratedScenario:
        """The scenario with its history rewritten (see the module docstring)."""
        return self.render(scenario)[0]

    def render(self, scenario: GeneratedScenario) -> tuple[GeneratedScenario, RenderStats]:
        """The rewritten scenario and the counts of this scenario (also added to :attr:`stats`)."""
        from tqdm.auto import tqdm

        lines = parse_history(scenario.history)
        rules = line_rules(scenario.meta, lines, self.reader)
        watched = watched_apis(scenario.meta)
        stats = RenderStats()
        texts = [line.text for line in lines]
        groups = conversations(lines, max_lines=self.max_lines)
        bar = tqdm(groups, desc=f"render scenario {scenario.scenario_id}", unit="conv", disable=not self.progress,
                   leave=False)
        for group in bar:
            new = self.render_conversation(group, rules, watched, stats)
            for line, text in zip(group, new, strict=False):
                texts[line.index] = text
        stats.conversations = len(groups)
        stats.lines = len(lines)
        stats.lines_changed = sum(t != line.text for t, line in zip(texts, lines, strict=True))
        self.stats.add(stats)
        return self._apply(scenario, lines, texts, stats), stats

    def render_conversation(self, lines: Sequence[TalkLine], rules: Mapping[int, LineRule], watched: set[str],
                            stats: RenderStats) -> list[str]:
        """The verified rewrite of one conversation, or its original texts (counted in ``stats``)."""
        messages = render_messages(lines, rules)
        for attempt in range(self.rerenders + 1):
            content, problems = self._ask(messages, stats)
            new: list[str] = []
            if not problems:
                try:
                    new = parse_reply(content, lines)
                    problems = verify(lines, new, rules, watched, self.reader)
                except ValueError as exc:
                    problems = [str(exc)]
            if not problems:
                if attempt == 0:
                    stats.rendered += 1
                else:
                    stats.re_rendered += 1
                return new
            stats.failures.update({_failure_kind(p) for p in problems})
            messages = list(messages[:2]) + [
                {"role": "assistant", "content": content},
                {"role": "user", "content": "That answer was rejected: " + "; ".join(problems[:6])
                 + f". Answer again with a JSON list of exactly {len(lines)} strings that follows every rule."}]
        stats.fallback += 1
        return [line.text for line in lines]

    def _ask(self, messages: list[dict[str, str]], stats: RenderStats) -> tuple[str, list[str]]:
        """A reply text (cached or requested) and, when the request failed, why."""
        key = request_key(f"{self.model}@{self.endpoint}" if self.endpoint else self.model, messages)
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                stats.cached_replies += 1
                return cached, []
        stats.requests += 1
        try:
            reply = self.backend.chat(messages)
            content = reply.get("content") if isinstance(reply, Mapping) else None
            if not isinstance(content, str):
                raise TypeError(f"the reply has no text content: {str(reply)[:80]!r}")
        except Exception as exc:  # noqa: BLE001  (any backend failure is a failed attempt, never a crash)
            stats.endpoint_errors += 1
            return "", [f"endpoint failed: {type(exc).__name__}: {_scrub(str(exc))[:200]}"]
        if self.cache is not None:
            self.cache.put(key, content)
        return content, []

    def _apply(self, sc: GeneratedScenario, lines: Sequence[TalkLine], texts: Sequence[str],
               stats: RenderStats) -> GeneratedScenario:
        history = "".join(render_line(line, t) + "\n" for line, t in zip(lines, texts, strict=True))
        meta = json.loads(json.dumps(sc.meta))
        qa = json.loads(json.dumps(sc.qa))
        items = qa.get("related_to_vehicle_preference", [])
        for q, item in zip(meta.get("queries", []), items, strict=False):
            for ev in q.get("evidence", []):
                old_text = ev["text"]
                for lid in ev.get("line_ids", []):
                    line = lines[lid - 1]
                    quoted = f"\"{line.text}\""
                    if old_text.endswith(quoted):
                        ev["text"] = old_text[: len(old_text) - len(quoted)] + f"\"{texts[lid - 1]}\""
                item["gold_memory"] = item.get("gold_memory", "").replace(old_text, ev["text"])
        gen = meta.setdefault("generator", {})
        gen["paraphrased"] = stats.lines_changed > 0
        gen["llm_render"] = {"model": self.model, **stats.to_json()}
        return replace(sc, history=history, qa=qa, meta=meta)
