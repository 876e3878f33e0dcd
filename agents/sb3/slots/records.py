"""The slot design's records: the slots of one episode (:class:`SlotAnalysis`) and what a policy has seen.

:class:`SlotEpisodeText` adds to :class:`~vmb_gym.wrappers.catalogue.EpisodeText` the count of
search rounds and the structured memory hits of every search (``info["memory_hits"]``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from vmb_agents.reader.reading import Reading
from vmb_gym.wrappers.catalogue import EpisodeText


@dataclass
class ValueSlot:
    """One candidate value of an API slot, with the evidence that supports it."""

    value: Any
    score: float  # the rules score of its best mention
    mentions: int = 0
    target_mentions: int = 0
    other_mentions: int = 0
    recency: float = 0.0  # time rank of its latest mention among the API's mentions (0 oldest, 1 latest)
    latest_any: bool = False  # its latest mention is the API's latest mention
    latest_target: bool = False  # ... the latest mention by the target person
    conditions: float = 0.0  # condition words shared with the request (best mention)
    opposite: float = 0.0  # opposite conditions (best mention)
    cues: dict[str, float] = field(default_factory=dict)  # LINE_CUES of its representative mention
    clean: bool = False  # some mention by the target is free of hypothetical / elsewhere / question cues
    rules_top: bool = False  # the rules policy's own choice for this API
    source: str = ""
    sources: list[str] = field(default_factory=list)  # every line that states it (rendered)
    follows: bool = False  # some mention continues an earlier line by the same speaker (a correction)
    rep_target: bool = False  # the representative line is by the target person
    relative: bool = False  # some mention names the relative the request speaks of ("For Joanna, ...")
    request_overlap: float = 0.0  # content words (not setting words) shared with the request, best mention
    latest_clean_target: bool = False  # its latest clean target mention is the latest clean target mention
    latest_clean_any: bool = False  # ... the latest clean mention by anyone
    clean_target_mentions: int = 0
    names_passenger: bool = False  # some mention names another person of the request (a passenger)
    line_hash: Any = None  # hashed words of the representative line (np.ndarray)
    context_overlap: float = 0.0  # word stems shared with the request's situation (outside the quote), best mention
    conditional: bool = False  # some mention states a conditional rule ("when it rains", "one exception")
    cond_match: bool = False  # ... a conditional mention that shares a stem with the request's situation
    cond_miss: bool = False  # ... a conditional mention that shares none
    default_line: bool = False  # some mention states the everyday default ("on an ordinary drive")
    other_cond_match: bool = False  # another value of the API has a matching conditional mention
    # the learned line prior (vmb_agents.line_prior; 0 without one): P(a mention states a real preference)
    prior_target: float = 0.0  # best mention by the target person
    prior_other: float = 0.0  # best mention by someone else
    prior_latest_target: bool = False  # holds the target's latest genuine mention of the API
    prior_latest_any: bool = False  # ... the latest genuine mention by anyone
    prior_margin: float = 0.0  # prior_target minus the best prior_target of the API's other values
    # the learned API prior read on the value's lines: is the line about this setting at all? (retrieval
    # also brings "the head restraint height at 40" to a request for the foot support height)
    setting_prob: float = 0.0  # best P(this API | line) over the value's mentions by the target
    setting_latest_target: bool = False  # holds the target's latest genuine mention among lines about this API
    reason_overlap: float = 0.0  # the quote's reason words ("I've caught the flu again") in a target mention, above
    # the API's least overlapping mention (words every mention shares, the setting's name, cancel out)


@dataclass
class ApiSlot:
    """One candidate API of the episode and its value slots."""

    api: str
    request_score: float
    best_score: float  # best rules candidate score (0 when the hits hold no value)
    passes: bool  # the rules filter keeps it (close to the request's best-named function)
    rules_choice: bool
    values: list[ValueSlot]
    targets: list[str | None]  # selector values (None: the API has no selector)
    explicit: Any = None  # a value the request states itself
    minimal: tuple[str, dict[str, Any]] | None = None
    companion: bool = False  # stated in the same memory line as the rules choice's value
    reason: bool = False  # a line by the target that gives the request's reason states a value of it


@dataclass
class SlotAnalysis:
    """Everything the slot catalogue knows about one episode: the request reading and the slots."""

    request: Any  # vmb_agents.reader.Request
    apis: list[ApiSlot]
    delta: int | None
    n_hits: int
    searched: bool
    followups: list[str] = field(default_factory=list)  # the second search round's queries
    relatives: list[str] = field(default_factory=list)  # names of the relatives the request speaks of
    features: Any = field(default=None, repr=False, compare=False)  # the featuriser's cache of static rows
    calls: Any = field(default=None, repr=False, compare=False)  # resolved calls of the call slots (cache)
    # the first slot of each distinct resolved call: (index, function name, call key) (the mask's cache)
    distinct_calls: Any = field(default=None, repr=False, compare=False)
    # the call keys the relative-change slots resolve to (the mask's cache: the change applies to one call)
    delta_keys: Any = field(default=None, repr=False, compare=False)
    # the hit lines of the values each call sets (call key -> lines: the featuriser's cache)
    set_lines: Any = field(default=None, repr=False, compare=False)


@dataclass
class SlotEpisodeText(EpisodeText):
    """:class:`~vmb_gym.wrappers.catalogue.EpisodeText` that also counts the memory search rounds and
    keeps the structured hits of every search.

    Attributes:
        search_rounds: steps that ran ``search_memory`` calls.
        memory_hits: every hit of the episode's searches, in order, in the env's
            ``info["memory_hits"]`` form (:func:`vmb_gym.envs.tool_runtime.hit_record`).
    """

    search_rounds: int = 0
    memory_hits: list[dict[str, Any]] = field(default_factory=list)
    hits_digest: bytes = field(default=b"", repr=False)  # :func:`hits_key` of ``hits[:hits_digested]``
    hits_digested: int = field(default=0, repr=False)
    #: the episode's :class:`~vmb_agents.reader.reading.Reading` of its request (:meth:`read`)
    reading: Reading | None = field(default=None, repr=False)

    def on_reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Start over (no search round yet, no hits)."""
        super().on_reset(observation, info)
        self.search_rounds = 0
        self.memory_hits = []
        self.hits_digest, self.hits_digested = b"", 0
        self.reading = None

    def on_step(self, observation: str, info: Mapping[str, Any]) -> None:
        """Record the step and its hits; a step with ``search_memory`` calls is one search round."""
        super().on_step(observation, info)
        if any(rec.get("name") == "search_memory" for rec in info.get("calls") or ()):
            self.search_rounds += 1
        for search in info.get("memory_hits") or ():
            self.memory_hits.extend(search["hits"])
        if len(self.hits) > self.hits_digested:
            self.hits_digest = chain_digest(self.hits_digest, self.hits[self.hits_digested:])
            self.hits_digested = len(self.hits)


    def read(self, speakers: Sequence[str]) -> Reading:
        """The episode's reading of its request with ``speakers``: read once, then the same each step."""
        if self.reading is None or self.reading.text != self.request or self.reading.speakers != tuple(speakers):
            self.reading = Reading.of(self.request, speakers)
        return self.reading


def chain_digest(digest: bytes, texts: Sequence[str]) -> bytes:
    """``digest`` extended by ``texts``, one after the other (16 bytes each: no text can run into the next)."""
    for text in texts:
        h = hashlib.blake2b(digest, digest_size=16)
        h.update(text.encode("utf-8", "surrogatepass"))
        digest = h.digest()
    return digest


def hits_key(episode: EpisodeText) -> bytes:
    """A 16-byte digest of the episode's search texts (``episode.hits``, in order): the analysis cache's key.

    A :class:`SlotEpisodeText` keeps it up to date step by step; for another record it is
    computed here.
    """
    if getattr(episode, "hits_digested", -1) == len(episode.hits):
        return episode.hits_digest  # type: ignore[attr-defined,no-any-return]
    return chain_digest(b"", episode.hits)


def search_rounds(episode: EpisodeText) -> int:
    """Memory search rounds of the episode so far (a plain EpisodeText knows only whether it searched)."""
    return int(getattr(episode, "search_rounds", int(episode.searched)))



@dataclass
class EvidencePool:
    """What the value slots of every API read: the request, the pooled hits and their rules candidates.

    Built once per analysis by :func:`vmb_agents.sb3.slots.analysis.analyse`; ``cands`` are the rules
    baseline's candidates (plus the continuations of :func:`vmb_agents.sb3.slots.hits.continuations`,
    whose lines are ``follow_src``), ``by_render`` maps a rendered hit to the hit.
    """

    request: str
    req: Any  # vmb_agents.reader.Request
    speakers: tuple[str, ...]
    hits: list[Any]
    by_render: dict[str, Any]
    cands: list[Any]
    follow_src: set[str]
    req_scores: dict[str, float]
    setting_words: set[str]  # content words of the request's setting
    situation: set[str]  # stems of the request's situation (outside the quote)
    rel_pats: list[Any]  # names of the relatives the request speaks of
    other_pats: list[Any]  # first names of the request's other people
    req_words: set[str]  # the request's content words outside its setting words
    rank_of_time: dict[Any, float]
    line_prior: Any = None
    setting_prior: Any = None
