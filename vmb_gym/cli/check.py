"""``vmb check``: the shipped contract checkers (:mod:`vmb_gym.testing`) from the command line.

    vmb check memory NAME           # a registered memory module, entry-point ones included
    vmb check env [ENV_ID]          # check_vmb_env: check_env, determinism, pickling, malformed actions
    vmb check policy SPEC           # check_policy: reset/act, readable actions, ends in time, seeded

Each check prints one line, ``PASS  what`` or ``FAIL  what: why``; the exit status is 0 when all
passed and 1 when one failed. An unknown memory module, env id or policy is an error line (exit 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable

from vmb_gym.cli.eval_cmd import _json_object

HELP = "Check a memory module, an env or a policy against vmb_gym's contracts (one PASS/FAIL line per check)."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``vmb check``."""
    sub = parser.add_subparsers(dest="what", metavar="WHAT", required=True)
    memory = sub.add_parser("memory", help="check_memory_module on a registered memory module",
                            formatter_class=parser.formatter_class)
    memory.add_argument("name", help="the module's registered name (bm25, ..., or one of the 'vmb_gym.memory' "
                                     "entry-point group)")
    memory.add_argument("--memory-kwargs", type=_json_object, default={}, help="JSON object of the module's options")
    env = sub.add_parser("env", help="check_vmb_env on a registered env", formatter_class=parser.formatter_class)
    env.add_argument("env_id", nargs="?", default="VehicleMem-v0", help="Gymnasium id")
    env.add_argument("--bombard", type=int, default=200, help="malformed actions step() must accept")
    env.add_argument("--seed", type=int, default=0, help="seed of the rollouts and the malformed actions")
    policy = sub.add_parser("policy", help="check_policy on VehicleMem-v0", formatter_class=parser.formatter_class)
    policy.add_argument("spec", help="oracle, noop, random, rules, hf:PATH, openai:MODEL or sb3:CHECKPOINT")
    policy.add_argument("--memory", default="bm25", help="the env's memory module")
    policy.add_argument("--data", default="default", help="scenario set ('default', 'official:DIR' or a folder)")
    policy.add_argument("--tasks", type=int, default=3, help="episodes checked (the first tasks of the set)")
    policy.add_argument("--seed", type=int, default=0, help="seed of the episodes")
    policy.add_argument("--policy-kwargs", type=_json_object, default={}, help="JSON object of policy options")


def run(args: argparse.Namespace) -> int:
    """Run the chosen checks; 0 when every one passed, 1 otherwise."""
    from vmb_gym.testing import ContractError

    checks = {"memory": _run_memory, "env": _run_env, "policy": _run_policy}[args.what](args)
    ran = failed = 0
    for name, check in checks:
        ran += 1
        try:
            check()
        except ContractError as exc:
            failed += 1
            print(f"FAIL  {name}: {exc}", flush=True)
        else:
            print(f"PASS  {name}", flush=True)
    subject = {"memory": "name", "env": "env_id", "policy": "spec"}[args.what]
    print(f"{args.what} {getattr(args, subject)}: {ran - failed} of {ran} checks passed")
    return 1 if failed else 0


def _run_memory(args: argparse.Namespace) -> Iterable[tuple[str, Callable[[], None]]]:
    from vmb_gym.memory.registry import check_memory
    from vmb_gym.testing import memory_checks

    name = check_memory(args.name, **args.memory_kwargs)  # an unknown name or option: one error line
    return memory_checks(name, **args.memory_kwargs)


def _run_env(args: argparse.Namespace) -> Iterable[tuple[str, Callable[[], None]]]:
    from vmb_gym.testing import check_vmb_env

    _check_env_id(args.env_id)  # an unregistered id: one error line, not Gymnasium's traceback
    what = f"{args.env_id}: check_env, seeded determinism, pickling, {args.bombard} malformed actions"
    return [(what, lambda: check_vmb_env(args.env_id, seed=args.seed, bombard_actions=args.bombard))]


def _check_env_id(env_id: str) -> None:
    """Raise a :class:`~vmb_gym.errors.ConfigError` unless Gymnasium has ``env_id`` registered.

    ``MODULE:ID`` imports ``MODULE`` first, as ``gym.make`` does. The message lists vmb_gym's env
    ids with a "did you mean" (matched ignoring case: ``vehiclemem-v0`` -> ``VehicleMem-v0``).
    """
    import importlib

    import gymnasium as gym

    from vmb_gym import ENVS
    from vmb_gym.errors import ConfigError
    from vmb_gym.names import did_you_mean, match_name

    module, _, name = env_id.rpartition(":")
    if module:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            raise ConfigError(f"env {env_id!r}: cannot import {module!r} ({exc}); fix: install the package that "
                              f"registers it, or give one of vmb_gym's envs {', '.join(ENVS)}") from None
    if name in gym.registry:
        return
    same = match_name(name, ENVS)  # the same id but for case: suggest it alone
    hint = (did_you_mean(same or name, [same] if same else ENVS)
            or "; fix: give one of those, or the id of an env registered with Gymnasium")
    raise ConfigError(f"no env registered as {env_id!r}; vmb_gym registers {', '.join(ENVS)}{hint}")


def _run_policy(args: argparse.Namespace) -> Iterable[tuple[str, Callable[[], None]]]:
    import gymnasium as gym

    from vmb_agents.factory import check_policy as check_spec
    from vmb_agents.factory import make_policy
    from vmb_gym.testing import check_policy

    check_spec(args.spec, args.policy_kwargs)  # an unknown spec or a missing module: one error line
    env = gym.make("VehicleMem-v0", data=args.data, memory=args.memory)
    task_ids = [q.task_id for q in env.unwrapped.tasks.queries[: max(1, args.tasks)]]  # type: ignore[attr-defined]
    what = (f"{args.spec} on {len(task_ids)} task(s) of {args.data} ({args.memory} memory): reset/act, readable "
            "actions, ends within the step limit, same actions under one seed")
    return [(what, lambda: check_policy(lambda e: make_policy(args.spec, e, **args.policy_kwargs), env,
                                        seed=args.seed, task_ids=task_ids))]
