"""Build a policy from a short spec string (the ``--policy`` option of ``vmb eval``).

Specs:

| spec | policy | where it lives |
|---|---|---|
| ``oracle`` | :class:`~vmb_agents.baselines.OraclePolicy` (the gold calls) | ``vmb_agents.baselines`` |
| ``noop`` | :class:`~vmb_agents.baselines.NoopPolicy` | ``vmb_agents.baselines`` |
| ``random`` | :class:`~vmb_agents.baselines.RandomPolicy` | ``vmb_agents.baselines`` |
| ``rules`` | ``RulesPolicy(memory=<env memory name>)`` | ``vmb_agents.reader`` |
| ``hf:PATH`` | ``HFPolicy(PATH, ...)`` (a local Hugging Face model folder, or a named model) | ``vmb_agents.llm.hf`` |
| ``openai:MODEL`` | ``OpenAIPolicy(MODEL, ...)`` (an OpenAI-compatible endpoint) | ``vmb_agents.llm.openai_compat`` |
| ``sb3:CHECKPOINT`` | a Stable-Baselines3 checkpoint, or a shipped one (``sb3:slots``) | ``vmb_agents.sb3.policies`` |

An ``sb3:`` checkpoint is of the flat catalogue or the slot design (read from its sidecar); the shipped ones are
in ``agents/sb3/checkpoints/``.

Named models (``hf:NAME``, :data:`vmb_agents.llm.hf.NAMED_MODELS`): ``smollm2``, ``smollm2-vmb`` (the fine-tuned
adapter guided by the reader, :data:`~vmb_agents.llm.hf.SMOLLM2_VMB_GUIDE`) and ``smollm2-vmb-unguided`` (the same
model alone; ``hf:smollm2-vmb --policy-kwargs '{"guide": null}'`` is the same).

Optional modules are imported only when their spec is asked for, so a missing optional
dependency never breaks the other policies; asking for it raises a :class:`ConfigError` that
names the module, the error and the fix. Options (``--policy-kwargs``) go to the policy's
constructor; one it does not take is a :class:`ConfigError` that names those it takes. Kinds are
matched ignoring case (``Oracle``, ``OpenAI:gpt-4o-mini``); an unknown one gets a "did you mean".

Importing this module also registers the chat backends ``openai:MODEL`` (an
:class:`~vmb_agents.llm.openai_compat.OpenAIClient`) and ``hf:PATH`` (an
:class:`~vmb_agents.llm.hf.HFPolicy`) with :mod:`vmb_gym.memory.chat_backends`, so the LLM-built
memories take ``llm="openai:MODEL"`` (``vmb eval --memory summary --memory-llm openai:MODEL``);
a worker process that unpickles :func:`make_policy` registers them too.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import gymnasium as gym

from vmb_gym.errors import ConfigError
from vmb_gym.memory.chat_backends import register_chat_backend
from vmb_gym.names import did_you_mean

__all__ = ["POLICY_KINDS", "check_policy", "hf_chat_backend", "make_policy", "openai_chat_backend", "policy_kind"]

#: Accepted spec forms (for help texts and error messages).
POLICY_KINDS: tuple[str, ...] = ("oracle", "noop", "random", "rules", "hf:PATH", "openai:MODEL", "sb3:CHECKPOINT")

_PLAIN = ("oracle", "noop", "random", "rules")
_PREFIXED = ("hf", "openai", "sb3")
_LLM_FIX = "install the optional dependency (e.g. pip install 'vmb_gym[llm]')"
_SB3_FIX = "install stable-baselines3 and sb3-contrib"
#: Policy kinds that run on torch (``make_policy(threads=...)`` sets its threads before building them).
_TORCH_KINDS = ("hf", "sb3")


def policy_kind(spec: str) -> tuple[str, str]:
    """Split a spec into ``(kind, argument)``; validate the kind.

    Args:
        spec: e.g. ``"oracle"`` or ``"openai:gpt-4o-mini"``.

    Returns:
        ``("oracle", "")`` or ``("openai", "gpt-4o-mini")``.

    Raises:
        ConfigError: unknown kind, or a prefixed kind without its argument.
    """
    text = (spec or "").strip()
    if text.lower() in _PLAIN:
        return text.lower(), ""
    kind, sep, arg = text.partition(":")
    kind = kind.lower()
    if sep and kind in _PREFIXED:
        if not arg.strip():
            raise ConfigError(
                f"expected {kind}:<value> in policy spec, found {spec!r} with nothing after the colon; "
                f"e.g. {dict(hf='hf:/models/qwen', openai='openai:gpt-4o-mini', sb3='sb3:runs/ppo.zip')[kind]}"
            )
        return kind, arg.strip()
    raise ConfigError(f"expected a policy spec among {', '.join(POLICY_KINDS)}, found {spec!r}"
                      f"{did_you_mean(text, POLICY_KINDS)}")


def _import(module: str, attr: str, spec: str, fix: str = _LLM_FIX, what: str = "policy") -> Any:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            raise ConfigError(f"{what} {spec!r} needs the module {module} ({attr}), which is not available in this "
                              f"installation; fix: install or add {module}, or choose another {what}") from exc
        raise ConfigError(f"{what} {spec!r}: importing {module} failed because {exc.name!r} is missing; "
                          f"fix: {fix}") from exc
    obj = getattr(mod, attr, None)
    if obj is None:
        raise ConfigError(f"{what} {spec!r}: expected {module}.{attr}, found no such name; fix: update {module}")
    return obj


def check_policy(spec: str, kwargs: dict[str, Any] | None = None, *, trust_checkpoint: bool = False) -> None:
    """Fail fast when ``spec`` is malformed or its module cannot be imported (builds nothing).

    With ``kwargs`` (the policy options), an ``openai:MODEL`` policy's endpoint is checked for the
    API key it needs before any worker starts; an ``sb3:`` checkpoint that is an SB3 zip (a pickle)
    is refused unless ``trust_checkpoint``.

    Raises:
        ConfigError: as :func:`make_policy` would, before any model is loaded.
    """
    kind, _ = policy_kind(spec)
    if kind == "openai" and kwargs is not None:
        from vmb_agents.llm.openai_compat import check_api_key, resolve_base_url

        check_api_key(resolve_base_url(kwargs.get("base_url")), str(kwargs.get("api_key_env") or "OPENAI_API_KEY"))
    if kind == "rules":
        _import("vmb_agents.reader", "RulesPolicy", spec)
    elif kind == "hf":
        _import("vmb_agents.llm.hf", "HFPolicy", spec)
    elif kind == "openai":
        _import("vmb_agents.llm.openai_compat", "OpenAIPolicy", spec)
    elif kind == "sb3":
        _import("vmb_agents.sb3.policies", "load_sb3_policy", spec, _SB3_FIX)
        from vmb_agents.sb3.checkpoint import refuse_pickle

        refuse_pickle(policy_kind(spec)[1], trust_checkpoint)


def _options(spec: str, factory: Any, kw: dict[str, Any], internal: tuple[str, ...] = ()) -> dict[str, Any]:
    """The user options ``kw`` for ``factory``, checked against its signature.

    ``internal`` names the parameters the factory fills itself (the model path, the env); they
    are not user options.

    Raises:
        ConfigError: an option that ``factory`` does not take (the message lists those it takes).
    """
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return dict(kw)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(kw)
    accepted = [name for name, p in params.items()
                if name not in internal and p.kind is not inspect.Parameter.VAR_POSITIONAL]
    unknown = [key for key in kw if key not in accepted]
    if unknown:
        raise ConfigError(f"policy {spec!r} takes no option(s) {', '.join(map(repr, unknown))}; it accepts "
                          f"{', '.join(accepted) or 'none'}; fix: drop or rename them in --policy-kwargs")
    return dict(kw)


def make_policy(spec: str, env: gym.Env[str, Any], *, trust_checkpoint: bool = False, threads: int | None = None,
                **kw: Any) -> Any:
    """Build the policy named by ``spec`` for ``env``; with ``threads``, set torch's CPU threads for it first.

    Args:
        spec: one of :data:`POLICY_KINDS` (``"oracle"``, ``"hf:/path/to/model"``, ...).
        env: the env the policy will act in (``OraclePolicy`` reads its tasks, ``rules`` its
            memory name, ``sb3`` its spaces).
        trust_checkpoint: let ``sb3:PATH`` load an SB3 zip, a pickle that runs any code its author put
            in it (``vmb eval --trust-checkpoint``); the project's safetensors checkpoints need no trust.
        threads: torch's CPU threads in this process (``vmb eval --threads``; :func:`~vmb_agents.threads.apply_threads`)
            set before an ``hf:`` or ``sb3:`` policy is built (the other kinds do not run on torch); None: leave
            them. An ``hf:`` policy's ``decoding={"threads": N}`` wins over it.
        **kw: options of the policy constructor (e.g. ``seed``, ``schema``, ``temperature``,
            ``base_url``); ``oracle`` and ``noop`` take none.

    Returns:
        An object with ``reset(observation, info)`` and ``act(observation, info)``.

    Raises:
        ConfigError: unknown spec, an option the policy does not take (the message lists those
            it takes), the module that implements it is missing, an SB3 zip without ``trust_checkpoint``, or
            ``threads`` below 1.
    """
    kind, arg = policy_kind(spec)
    if threads is not None:
        from vmb_agents.threads import apply_threads, check_threads

        check_threads(threads)
        if kind in _TORCH_KINDS:
            apply_threads(threads)
    unwrapped = env.unwrapped
    if kind == "oracle":
        from vmb_agents.baselines import OraclePolicy

        _options(spec, OraclePolicy, kw, internal=("tasks",))
        return OraclePolicy(unwrapped.tasks)  # type: ignore[attr-defined]
    if kind == "noop":
        from vmb_agents.baselines import NoopPolicy

        _options(spec, NoopPolicy, kw)
        return NoopPolicy()
    if kind == "random":
        from vmb_agents.baselines import RandomPolicy

        return RandomPolicy(**_options(spec, RandomPolicy, kw))
    if kind == "rules":
        cls = _import("vmb_agents.reader", "RulesPolicy", spec)
        options = {"memory": getattr(unwrapped, "memory_name", "none"),
                   **_options(spec, cls, kw, internal=("source",))}
        return cls(source=env, **options)
    if kind == "hf":
        cls = _import("vmb_agents.llm.hf", "HFPolicy", spec)
        return cls(arg, **_options(spec, cls, kw, internal=("model",)))
    if kind == "openai":
        cls = _import("vmb_agents.llm.openai_compat", "OpenAIPolicy", spec)
        return cls(arg, **_options(spec, cls, kw, internal=("model",)))
    # sb3: the sidecar says which design wrote the checkpoint
    return _load_sb3(spec, arg, env, kw, trust_checkpoint)


def eval_policy_factory(threads: int | None, workers: int = 1, *, trust_checkpoint: bool = False) -> Any:
    """:func:`make_policy` as ``vmb eval`` (and the bench's LM row) calls it: with ``threads`` torch threads (None:
    :func:`~vmb_agents.threads.default_threads` for ``workers`` processes) and ``--trust-checkpoint``.

    Raises:
        ConfigError: ``threads`` below 1.
    """
    import functools

    from vmb_agents.threads import check_threads, default_threads

    chosen = check_threads(threads, "--threads") if threads is not None else default_threads(workers)
    return functools.partial(make_policy, threads=chosen, trust_checkpoint=trust_checkpoint)


def _load_sb3(spec: str, path: str, env: Any, kw: dict[str, Any], trust_checkpoint: bool) -> Any:
    load_sb3_policy = _import("vmb_agents.sb3.policies", "load_sb3_policy", spec, _SB3_FIX)
    options = _options(spec, load_sb3_policy, kw, internal=("path", "env", "trust_checkpoint"))
    return load_sb3_policy(path, env, trust_checkpoint=trust_checkpoint, **options)


def openai_chat_backend(model: str) -> Any:
    """The chat backend ``openai:MODEL`` of the LLM-built memories (endpoint from ``$OPENAI_BASE_URL``)."""
    cls = _import("vmb_agents.llm.openai_compat", "OpenAIClient", f"openai:{model}", what="--memory-llm")
    return cls(model)


def hf_chat_backend(path: str) -> Any:
    """The chat backend ``hf:PATH`` of the LLM-built memories (a local Hugging Face model folder)."""
    cls = _import("vmb_agents.llm.hf", "HFPolicy", f"hf:{path}", what="--memory-llm")
    return cls(path)


register_chat_backend("openai", openai_chat_backend)
register_chat_backend("hf", hf_chat_backend)
