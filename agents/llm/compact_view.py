"""A chat view a small model can hold: a short system prompt, four tools, compact tool results.

The official prompt (:mod:`vmb_gym.envs`) lists 23 modules and the tool schemas in JSON, and a
``list_module_tools`` result is the module's full JSON schema list: thousands of tokens before
the model has read the request. A 135M model's context (and a CPU's time) is better spent on
the memory. :class:`CompactView` is the same episode in fewer tokens:

* the system prompt is three sentences and the tools are one line each (``name(params):
  description``), rendered by :data:`COMPACT_TEMPLATE` (ChatML, as SmolLM2 and Qwen use);
* four tools: ``search_memory(query, top_k)``, ``list_module_tools(module_name)``,
  ``call_vehicle(name, arguments)`` (any of the 111 functions) and ``finish()``. Their schemas
  come from the methods of :class:`vmb_gym.envs.tool_episode.ToolEpisode` (the tools TRL's
  ``GRPOTrainer`` sees through :class:`vmb_agents.llm.trl_env.CompactToolEnv`), so supervised data,
  GRPO rollouts and evaluation render the same text;
* tool results are short: the memory lines, one ``name(params): description`` line per module
  function (names without the ``carcontrol_`` prefix every function shares; ``call_vehicle``
  accepts both forms), ``ok`` or the error of a vehicle call.

A search's text is rendered from its structured hits, the step's ``info["memory_hits"]`` (:func:`step_hits`,
:func:`render_search`), never by re-reading the env's rendered ``memory_text``: the policy loop
(:class:`vmb_agents.llm.chat.ToolChatPolicy`), the TRL envs (:mod:`vmb_agents.llm.trl_env`) and the teacher episodes
(:mod:`vmb_agents.train.lm_data`) hand each search's hits to :meth:`CompactView.tool_content`.

``CompactView(tags=True)`` (``view="compact_tagged"``) also ends each memory line with the vehicle
functions it speaks of (``(about: HUD_set_height_level)``, :func:`setting_tags`): the simulator's
vocabulary read on the line, the retrieval hint tool-use systems give a small model in place of the
whole catalogue. Official requests rarely name the setting ("my usual calming atmosphere"); the
person's earlier line does, in words a 135M model does not map to one of 111 functions by itself.

``CompactView(depth=16, shown=8)`` searches 16 deep and shows the model the 8 best-ranked hits (each hit costs the
chat model its tokens at every later turn); a reader that reads more lines than the model can afford to
(:mod:`vmb_agents.llm.line_reader`) reads the whole search from the episode's
:class:`~vmb_agents.reader.reading.Reading`, and the saved transcript keeps it in the ``tool`` message's ``hits`` field
(:meth:`CompactView.tool_extras`).

``CompactView(evidence=True)`` (``view="compact_evidence"``) searches deeper (:data:`EVIDENCE_TOP_K` lines
whatever ``top_k`` the model asks) and shows only the lines a learned line prior reads as someone's real setting
for this car (:func:`evidence_choice`: the shipped ``sb3:slots`` checkpoint's ``vocab`` prior, fitted on generated
households only), at most :data:`EVIDENCE_LINES`. The generated histories bury each preference under vans,
rentals, relatives' cars and hypotheticals that name the same setting; a 135M model reads six lines, not twenty.

Calls are written ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, the format TRL's
response parser for Qwen templates reads (:func:`install`). The official prompt stays the
default of :class:`vmb_agents.llm.hf.HFPolicy` (``view="official"``) for comparability with the paper.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from vmb_agents.reader.reading import hit_from_record, line_text
from vmb_gym.memory.records import minute_stamp

if TYPE_CHECKING:
    from vmb_gym.memory import MemoryHit

#: The header the env writes above a context module's memory.
MEMORY_HEADER = "User preference memory:\n"

__all__ = ["COMPACT_SYSTEM", "COMPACT_TEMPLATE", "EVIDENCE_LINES", "EVIDENCE_THRESHOLD", "EVIDENCE_TOP_K", "NO_MEMORY",
           "TAG_OPEN", "VIEWS", "CompactView", "compact_tools", "context_block", "evidence_choice", "evidence_prior",
           "install", "placed", "render_result", "render_search", "setting_tags", "shown_bodies", "shown_hits",
           "step_hits", "view_named"]

#: The compact views by name (``HFPolicy(view=...)``, ``vmb train lm --view``).
VIEWS = ("compact", "compact_tagged", "compact_evidence")

def _module_names() -> str:
    from vmb_gym.vehicle.schema import MODULE_KEYS

    return ", ".join(MODULE_KEYS)


#: The system prompt of the compact view: the episode's order and the 23 module names (a small
#: model copies a module name from here, then a function name from the listing, then a value from
#: the memory hits, instead of composing any of them).
COMPACT_SYSTEM = (
    "You are the car's assistant. Several people share this car; their preferences are in the household "
    "memory. List the module's functions, search the memory for the person and the setting, call the "
    "functions with the remembered values, then finish.\nModules: " + _module_names() + "."
)

#: ChatML with one-line tools, ``<tool_call>`` JSON calls and ``<tool_response>`` results; the
#: assistant turns are inside ``{% generation %}`` so TRL's ``assistant_only_loss`` can mask the rest.
COMPACT_TEMPLATE = (
    "{% set nl = '\\n' %}"
    "{% if messages and messages[0]['role'] == 'system' %}{% set sys = messages[0]['content'] %}"
    "{% else %}{% set sys = '" + COMPACT_SYSTEM.replace("'", "\\'") + "' %}{% endif %}"
    "<|im_start|>system{{ nl }}{{ sys }}"
    "{% if tools %}{{ nl }}Tools:"
    "{% for t in tools %}{% set f = t['function'] if t['function'] is defined else t %}"
    "{% set props = f['parameters']['properties'] if f['parameters'] is defined and "
    "f['parameters']['properties'] is defined else {} %}"
    "{{ nl }}- {{ f['name'] }}({{ props.keys() | join(', ') }}): {{ f['description'] }}"
    "{% endfor %}{{ nl }}Call tools as <tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>."
    "{% endif %}<|im_end|>{{ nl }}"
    "{% for m in messages %}"
    "{% if m['role'] == 'user' %}<|im_start|>user{{ nl }}{{ m['content'] }}<|im_end|>{{ nl }}"
    "{% elif m['role'] == 'assistant' %}<|im_start|>assistant{{ nl }}{% generation %}"
    "{% if m['content'] %}{{ m['content'] }}{% endif %}"
    "{% for tc in m['tool_calls'] or [] %}{% set fn = tc['function'] if tc['function'] is defined else tc %}"
    "<tool_call>{{ nl }}{\"name\": \"{{ fn['name'] }}\", \"arguments\": "
    "{% if fn['arguments'] is string %}{{ fn['arguments'] }}{% else %}{{ fn['arguments'] | tojson }}{% endif %}}"
    "{{ nl }}</tool_call>"
    "{% endfor %}<|im_end|>{% endgeneration %}{{ nl }}"
    "{% elif m['role'] == 'tool' %}<|im_start|>user{{ nl }}<tool_response>{{ nl }}{{ m['content'] }}{{ nl }}"
    "</tool_response><|im_end|>{{ nl }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant{{ nl }}{% endif %}"
)

#: The tools of the compact view, in prompt order (methods of ToolEpisode).
COMPACT_TOOL_NAMES: tuple[str, ...] = ("search_memory", "list_module_tools", "call_vehicle", "finish")


@lru_cache(maxsize=1)
def _schemas() -> tuple[dict[str, Any], ...]:
    from transformers.utils import get_json_schema

    from vmb_gym.envs.tool_episode import ToolEpisode

    return tuple(get_json_schema(getattr(ToolEpisode, name)) for name in COMPACT_TOOL_NAMES)


def compact_tools() -> list[dict[str, Any]]:
    """The four tool schemas (``{"type": "function", "function": {...}}``), from ToolEpisode's methods."""
    return copy.deepcopy(list(_schemas()))


#: The prefix of every vehicle function name; the compact view leaves it out (``seat_set_heating_level``).
VEHICLE_PREFIX = "carcontrol_"


def short_name(name: str) -> str:
    """A vehicle function name as the compact view writes it (without ``carcontrol_``)."""
    return name.removeprefix(VEHICLE_PREFIX)


def full_name(name: str) -> str:
    """The env's name of a function the compact view wrote short (other names unchanged)."""
    if name.startswith(VEHICLE_PREFIX) or name in COMPACT_TOOL_NAMES or "_" not in name:
        return name
    return VEHICLE_PREFIX + name


def _signature(schema: Mapping[str, Any]) -> str:
    fn = schema.get("function", schema)
    params = ", ".join((fn.get("parameters") or {}).get("properties") or {})
    description = str(fn.get("description") or "").strip()
    first = description.split(". ")[0].rstrip(".")
    return f"{short_name(str(fn.get('name')))}({params}): {first}"


def render_result(name: str, result: Any, tags: bool = False, evidence: bool = False, shown: int = 0,
                  hits: Sequence[MemoryHit] | None = None) -> str:
    """The compact text of one tool result (what the model reads in the ``tool`` message).

    A successful ``search_memory`` is rendered from its structured ``hits`` (the env's ``info["memory_hits"]`` for
    the call, :func:`step_hits`) by :func:`render_search`: ``tags``, ``evidence`` and ``shown`` as there.

    Raises:
        ValueError: a successful ``search_memory`` result without its ``hits``.
    """
    if not isinstance(result, Mapping):
        return json.dumps(result, ensure_ascii=False)
    if result.get("success") is False:
        return "error: " + str(result.get("error") or result.get("message") or "the call failed")
    if name == "search_memory":
        if hits is None:
            raise ValueError("a search_memory result is rendered from its structured hits (the step's "
                             "info['memory_hits'], compact_view.step_hits); expected hits=..., found none")
        return render_search(hits, tags, evidence, shown)
    if name == "list_module_tools":
        return "\n".join(_signature(t) for t in result.get("tools") or [] if isinstance(t, Mapping))
    if name == "finish":
        return "done"
    return "ok"


#: What a search without hits shows.
NO_MEMORY = "no matching memory"


def step_hits(info: Mapping[str, Any]) -> list[tuple[MemoryHit, ...] | None]:
    """Per call record of a step (``info["calls"]``): the hits of a successful ``search_memory`` call (its
    ``info["memory_hits"]`` group, best first), None for any other call."""
    groups = iter(info.get("memory_hits") or ())
    out: list[tuple[MemoryHit, ...] | None] = []
    for record in info.get("calls") or ():
        result = record.get("result")
        found = record.get("name") == "search_memory" and isinstance(result, Mapping) and result.get("success")
        group = next(groups, None) if found else None
        out.append(tuple(hit_from_record(r) for r in group.get("hits") or ()) if group is not None else None)
    return out


def placed(hit: MemoryHit) -> bool:
    """Whether the view can order ``hit`` among others: it has a time stamp and renders on one line. A search with a
    hit that is not placed (a layered fact with its revisions spans lines) is shown as the env ranks it, whole (no
    time order, no shown limit, no evidence filter)."""
    return hit.timestamp is not None and len(hit.render().splitlines()) == 1


def shown_hits(hits: Sequence[MemoryHit], evidence: bool = False, shown: int = 0, prior: Any = None) -> list[MemoryHit]:
    """The hits a ``search_memory`` message shows, in its order: the evidence view's (:func:`evidence_choice`), else
    the first ``shown`` by rank (0: all), oldest first (ties in rank order); every hit in rank order when one is not
    :func:`placed`.

    The env ranks hits by relevance; the compact view lists them in time order, so the latest statement of a person
    (a correction, the setting they settled on) is always the lowest of theirs, a position a small model can read.
    """
    hits = list(hits)
    if not all(placed(h) for h in hits):
        return hits
    chosen = evidence_choice(hits, prior) if evidence else hits[:shown] if shown else hits
    return sorted(chosen, key=lambda h: minute_stamp(h.timestamp))


def _lines(rank: int, hit: MemoryHit, tags: bool) -> tuple[str, str | None, list[str]]:
    """A shown hit's first line (``3. [2025-02-27 13:24] Frank Yamada: text``, with its ``(about: ...)`` tag when
    ``tags``), that line's body without rank and time stamp (None for a hit without a time stamp) and its further
    lines (a hit that spans lines is tagged on its first)."""
    first, *rest = f"{rank}. {hit.render()}".splitlines()
    body = first.split("] ", 1)[-1] if hit.timestamp is not None else None
    found = setting_tags(body) if tags and body is not None else []
    tag = f"{TAG_OPEN}{', '.join(found)})" if found else ""
    return first + tag, None if body is None else body + tag, rest


def render_search(hits: Sequence[MemoryHit], tags: bool = False, evidence: bool = False, shown: int = 0) -> str:
    """The ``tool`` message text of a search with ``hits`` (best first): :func:`shown_hits` numbered from 1, one a line
    (``3. [2025-02-27 13:24] Frank Yamada: text``); ``tags``: a hit's line ends with the functions it speaks of
    (``(about: HUD_set_height_level)``, :func:`setting_tags`); :data:`NO_MEMORY` when there is none."""
    if not hits:
        return NO_MEMORY
    chosen = shown_hits(hits, evidence, shown)
    if not tags:
        return "\n".join(f"{k}. {h.render()}" for k, h in enumerate(chosen, 1))
    lines: list[str] = []
    for k, h in enumerate(chosen, 1):
        first, _, rest = _lines(k, h, tags)
        lines += [first, *rest]
    return "\n".join(lines)


def shown_bodies(hits: Sequence[MemoryHit], tags: bool = False, evidence: bool = False, shown: int = 0) -> list[str]:
    """The lines :func:`render_search` shows, each hit's first line without its rank and time stamp (``Frank Yamada:
    text``, with its tag); a hit without a time stamp keeps its whole line; ``[NO_MEMORY]`` when there is no hit."""
    if not hits:
        return [NO_MEMORY]
    out: list[str] = []
    for k, h in enumerate(shown_hits(hits, evidence, shown), 1):
        first, body, rest = _lines(k, h, tags)
        out += [first if body is None else body, *rest]
    return out


#: What :func:`render_search` puts between a memory line and its functions (the tag ends with ``)``).
TAG_OPEN = " (about: "

#: The least vocabulary score (:func:`vmb_agents.reader.score_apis`) of a function a memory line is tagged with (a
#: function's or its module's name said in the line), and the most tags per line.
TAG_MIN_SCORE = 2.0
MAX_TAGS = 2


def setting_tags(body: str) -> list[str]:
    """The vehicle functions (short names, best first) a memory line speaks of, at most :data:`MAX_TAGS`."""
    from vmb_agents.reader import score_apis

    scores = score_apis(body)
    best = sorted((api for api, s in scores.items() if s >= TAG_MIN_SCORE), key=lambda api: (-scores[api], api))
    return [short_name(api) for api in best[:MAX_TAGS]]


#: The evidence view's search depth (``top_k`` of every ``search_memory``), the most lines it shows, and the least
#: line-prior probability of a line it shows.
EVIDENCE_TOP_K = 20
EVIDENCE_LINES = 6
EVIDENCE_THRESHOLD = 0.5


def evidence_prior() -> Any:
    """The line prior :func:`evidence_choice` reads: the shipped ``sb3:slots`` checkpoint's (a ``vocab``
    :class:`~vmb_agents.sb3.slots.line_prior.LinePrior` fitted on generated train households; AUC 0.90 on official
    gold evidence; :func:`~vmb_agents.sb3.slots.line_prior.shipped_prior`).

    Raises:
        ConfigError: the shipped checkpoint's sidecar is missing or holds no line prior.
    """
    from vmb_agents.sb3.slots.line_prior import shipped_prior

    return shipped_prior()


def evidence_choice(hits: Sequence[MemoryHit], prior: Any = None, *, threshold: float = EVIDENCE_THRESHOLD,
                    limit: int = EVIDENCE_LINES) -> list[MemoryHit]:
    """The hits (best first) that ``prior`` (default :func:`evidence_prior`) scores at least ``threshold``, at most
    ``limit`` of them (the best scored), in the env's order; when none passes, the first ``limit`` hits."""
    hits = list(hits)
    if not hits:
        return []
    scores = (prior or evidence_prior()).many([line_text(h).split(": ", 1)[-1] for h in hits])
    best = sorted(range(len(hits)), key=lambda i: -scores[i])[:limit]
    kept = sorted(i for i in best if scores[i] >= threshold) or list(range(min(limit, len(hits))))
    return [hits[i] for i in kept]


def install(tokenizer: Any) -> Any:
    """Put :data:`COMPACT_TEMPLATE` on ``tokenizer`` and TRL's ``<tool_call>`` response parser; returns it."""
    tokenizer.chat_template = COMPACT_TEMPLATE
    try:
        from trl.chat_template_utils import _SUPPORTS_RESPONSE_TEMPLATE, qwen3_schema, qwen3_template
    except ImportError:  # TRL absent: rendering works, TRL's parser is not needed
        return tokenizer
    if _SUPPORTS_RESPONSE_TEMPLATE:
        tokenizer.response_template = qwen3_template
    else:
        tokenizer.response_schema = qwen3_schema
    return tokenizer


class CompactView:
    """How a chat policy sees an env episode in the compact view (see the module docstring).

    It turns the env's reset info into the first messages and tools, a model call into an env
    call (``call_vehicle(name, arguments)`` -> ``{"name": name, "arguments": arguments}``) and
    an env call record into the ``tool`` message text.
    """

    template = COMPACT_TEMPLATE
    grows_tools = False

    def __init__(self, tags: bool = False, evidence: bool = False, depth: int = 0, shown: int = 0) -> None:
        if tags and evidence:
            from vmb_gym.errors import ConfigError

            raise ConfigError("a compact view is tagged or evidence-filtered, not both; expected one of tags=True, "
                              "evidence=True, found both")
        self.tags = bool(tags)
        self.evidence = bool(evidence)
        #: every ``search_memory`` returns this many hits whatever ``top_k`` the model writes (0: the model's)
        self.depth = int(depth)
        #: a ``search_memory`` message shows the model the first ``shown`` hits (0: all); :meth:`tool_extras` the rest
        self.shown = int(shown)

    @property
    def name(self) -> str:
        """The view's name (:data:`VIEWS`): ``"compact_tagged"``, ``"compact_evidence"`` or ``"compact"``."""
        return VIEWS[1] if self.tags else VIEWS[2] if self.evidence else VIEWS[0]

    def start(self, observation: str, info: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The first messages (system, the request) and the four tools.

        A context memory module's block (``User preference memory:``, e.g. ``gold``) that the env
        put at the top of its system message is kept, after the compact system prompt.
        """
        messages = list(info.get("messages") or [])
        request = str(info.get("request") or "") or _last_user(messages) or observation
        system = COMPACT_SYSTEM
        context = context_block(str(messages[0].get("content") or "") if messages else "")
        if context:
            system += "\n\n" + context
        return [{"role": "system", "content": system}, {"role": "user", "content": request}], compact_tools()

    def to_env_call(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The env call a model call stands for."""
        if name == "call_vehicle":
            inner = arguments.get("arguments")
            if isinstance(inner, str):
                try:
                    inner = json.loads(inner)
                except json.JSONDecodeError:
                    pass
            return {"name": full_name(str(arguments.get("name", ""))),
                    "arguments": inner if isinstance(inner, Mapping) else {}}
        if (self.evidence or self.depth) and name == "search_memory":
            return {"name": name, "arguments": {**arguments, "top_k": self.depth or EVIDENCE_TOP_K}}
        return {"name": name, "arguments": dict(arguments)}

    def tool_content(self, name: str, result: Any, hits: Sequence[MemoryHit] | None = None) -> str:
        """The ``tool`` message text for a call's result; ``hits``: a successful search's structured hits (best first,
        :func:`step_hits`), which its text is rendered from (:func:`render_search`)."""
        return render_result(name, result, self.tags, self.evidence, self.shown, hits)

    def tool_extras(self, name: str, result: Any, hits: Sequence[MemoryHit] | None = None) -> dict[str, str]:
        """Fields of the ``tool`` message besides its text, which chat templates do not render: ``hits``, every hit of
        a ``search_memory`` whose text shows only the first :attr:`shown` (in the text's form); else none."""
        if name != "search_memory" or not self.shown:
            return {}
        return {"hits": render_result(name, result, self.tags, self.evidence, hits=hits)}


def view_named(name: str) -> CompactView:
    """The compact view called ``name`` (one of :data:`VIEWS`).

    Raises:
        ConfigError: another name (the message lists them).
    """
    if name not in VIEWS:
        from vmb_gym.errors import ConfigError

        raise ConfigError(f"unknown compact view {name!r}; expected one of {', '.join(VIEWS)}")
    return CompactView(tags=name == "compact_tagged", evidence=name == "compact_evidence")


def context_block(system: str) -> str:
    """The ``User preference memory:`` block at the top of the env's system message ("" when none)."""
    if not system.startswith(MEMORY_HEADER):
        return ""
    head = system.split("\n\nAvailable modules:", 1)[0]
    block, _, _role = head.rpartition("\n\n")
    return block.strip()


def _last_user(messages: Sequence[Mapping[str, Any]]) -> str:
    users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
    return users[-1] if users else ""
