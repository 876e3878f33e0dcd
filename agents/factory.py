"""Build a policy from a short spec string (the ``--policy`` option of ``vmb eval``).

Specs:

| spec | policy | where it lives |
|---|---|---|
| ``oracle`` | :class:`~agents.baselines.OraclePolicy` (the gold calls) | ``agents.baselines`` |
| ``noop`` | :class:`~agents.baselines.NoopPolicy` | ``agents.baselines`` |
| ``random`` | :class:`~agents.baselines.RandomPolicy` | ``agents.baselines`` |
| ``rules`` | ``RulesPolicy(memory=<env memory name>)`` | ``agents.rules`` |
| ``hf:PATH`` | ``HFPolicy(PATH, ...)`` (a local Hugging Face model folder) | ``agents.hf`` |
| ``openai:MODEL`` | ``OpenAIPolicy(MODEL, ...)`` (an OpenAI-compatible endpoint) | ``agents.openai_compat`` |
| ``sb3:CHECKPOINT`` | a Stable-Baselines3 checkpoint (flat catalogue or slot design, read from its sidecar) | ``vmb_gym.wrappers.sb3``, ``agents.sb3_slots`` |

Optional modules are imported only when their spec is asked for, so a missing optional
dependency never breaks the other policies; asking for it raises a :class:`ConfigError` that
names the module, the error and the fix.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import gymnasium as gym

from vmb_gym.errors import ConfigError

__all__ = ["POLICY_KINDS", "check_policy", "make_policy", "policy_kind"]

#: Accepted spec forms (for help texts and error messages).
POLICY_KINDS: tuple[str, ...] = ("oracle", "noop", "random", "rules", "hf:PATH", "openai:MODEL", "sb3:CHECKPOINT")

_PLAIN = ("oracle", "noop", "random", "rules")
_PREFIXED = ("hf", "openai", "sb3")
#: Names tried, in order, to find the policy adapter of the SB3 bridge.
_SB3_NAMES = ("SB3Policy", "load_sb3_policy", "load_policy")


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
    if text in _PLAIN:
        return text, ""
    kind, sep, arg = text.partition(":")
    if sep and kind in _PREFIXED:
        if not arg.strip():
            raise ConfigError(f"expected {kind}:<value> in policy spec, found {spec!r} with nothing after the colon; "
                              f"e.g. {dict(hf='hf:/models/qwen', openai='openai:gpt-4o-mini', sb3='sb3:runs/ppo.zip')[kind]}")
        return kind, arg.strip()
    raise ConfigError(f"expected a policy spec among {', '.join(POLICY_KINDS)}, found {spec!r}")


def _import(module: str, attr: str, spec: str) -> Any:
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            raise ConfigError(f"policy {spec!r} needs the module {module} ({attr}), which is not available in this "
                              f"installation; fix: install or add {module}, or choose another policy") from exc
        raise ConfigError(f"policy {spec!r}: importing {module} failed because {exc.name!r} is missing; "
                          f"fix: install the optional dependency (e.g. pip install 'vmb_gym[llm]')") from exc
    obj = getattr(mod, attr, None)
    if obj is None:
        raise ConfigError(f"policy {spec!r}: expected {module}.{attr}, found no such name; fix: update {module}")
    return obj


def check_policy(spec: str) -> None:
    """Fail fast when ``spec`` is malformed or its module cannot be imported (builds nothing).

    Raises:
        ConfigError: as :func:`make_policy` would, before any model is loaded.
    """
    kind, _ = policy_kind(spec)
    if kind == "rules":
        _import("agents.rules", "RulesPolicy", spec)
    elif kind == "hf":
        _import("agents.hf", "HFPolicy", spec)
    elif kind == "openai":
        _import("agents.openai_compat", "OpenAIPolicy", spec)
    elif kind == "sb3":
        try:
            mod = importlib.import_module("vmb_gym.wrappers.sb3")
        except ModuleNotFoundError as exc:
            raise ConfigError(f"policy {spec!r} needs vmb_gym.wrappers.sb3 (the SB3 bridge) and its dependencies; "
                              f"import failed: {exc}; fix: install stable-baselines3 or choose another policy") from exc
        if not any(hasattr(mod, n) for n in _SB3_NAMES):
            raise ConfigError(f"policy {spec!r}: expected one of {', '.join(_SB3_NAMES)} in vmb_gym.wrappers.sb3, "
                              "found none; fix: expose a policy adapter there")


def _accepted(factory: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Keep the keyword arguments ``factory`` accepts (all of them when it takes ``**kwargs``)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return dict(kwargs)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(kwargs)
    return {k: v for k, v in kwargs.items() if k in params}


def make_policy(spec: str, env: gym.Env[str, Any], **kw: Any) -> Any:
    """Build the policy named by ``spec`` for ``env``.

    Args:
        spec: one of :data:`POLICY_KINDS` (``"oracle"``, ``"hf:/path/to/model"``, ...).
        env: the env the policy will act in (``OraclePolicy`` reads its tasks, ``rules`` its
            memory name, ``sb3`` its spaces).
        **kw: options passed to the policy constructor when it accepts them (e.g. ``seed``,
            ``schema``, ``temperature``, ``base_url``); options a constructor does not take are
            dropped, so one option set can serve every policy.

    Returns:
        An object with ``reset(observation, info)`` and ``act(observation, info)``.

    Raises:
        ConfigError: unknown spec, or the module that implements it is missing.
    """
    kind, arg = policy_kind(spec)
    unwrapped = env.unwrapped
    if kind == "oracle":
        from agents.baselines import OraclePolicy

        return OraclePolicy(unwrapped.tasks)  # type: ignore[attr-defined]
    if kind == "noop":
        from agents.baselines import NoopPolicy

        return NoopPolicy()
    if kind == "random":
        from agents.baselines import RandomPolicy

        return RandomPolicy(**_accepted(RandomPolicy, kw))
    if kind == "rules":
        cls = _import("agents.rules", "RulesPolicy", spec)
        options = {"memory": getattr(unwrapped, "memory_name", "none"), "source": env, **kw}
        return cls(**_accepted(cls, options))
    if kind == "hf":
        cls = _import("agents.hf", "HFPolicy", spec)
        return cls(arg, **_accepted(cls, kw))
    if kind == "openai":
        cls = _import("agents.openai_compat", "OpenAIPolicy", spec)
        return cls(arg, **_accepted(cls, kw))
    # sb3: the sidecar says which design wrote the checkpoint
    return _load_sb3(spec, arg, env, kw)


def _load_sb3(spec: str, path: str, env: Any, kw: dict[str, Any]) -> Any:
    try:
        from vmb_gym.wrappers.sb3 import SIDECAR_SUFFIX, load_sb3_policy
    except ModuleNotFoundError as exc:
        raise ConfigError(f"policy {spec!r} needs the SB3 bridge and its dependencies; import failed: {exc}; "
                          "fix: install stable-baselines3 and sb3-contrib") from exc
    import json
    from pathlib import Path

    side = Path(path[:-4] if path.endswith(".zip") else path).with_name(
        Path(path[:-4] if path.endswith(".zip") else path).name + SIDECAR_SUFFIX)
    design = None
    if side.is_file():
        try:
            design = json.loads(side.read_text(encoding="utf-8")).get("design")
        except ValueError:
            design = None  # load_sb3_policy reports the unreadable sidecar
    if design == "slots":
        from agents.sb3_slots import load_slot_policy

        return load_slot_policy(path, env, **_accepted(load_slot_policy, kw))
    return load_sb3_policy(path, env, **_accepted(load_sb3_policy, kw))


def _params(factory: Any) -> set[str]:
    try:
        return set(inspect.signature(factory).parameters)
    except (TypeError, ValueError):
        return set()
