"""GRPO rollouts for TRL's ``GRPOTrainer`` (its ``rollout_func``): every episode of a step sampled together.

TRL's own multi-turn path (``environment_factory``) calls ``model.generate`` once per turn on the
whole left-padded conversation so far, so each turn pays the prefill of everything before it again,
and a batch decodes until its longest reply ends (up to ``max_completion_length`` tokens a turn).
:class:`EnvRollouts` runs the same episodes on the same envs
(:class:`~vmb_agents.llm.trl_env.CompactToolEnv`), with the same token layout (the tool results are
TRL's ``_get_tool_suffix_ids``), through :class:`~vmb_agents.llm.kv_decode.PrefixCacheDecoder`:

* the G rollouts of a prompt share one prefill of it, and every turn computes only its new tokens
  (the model's last reply and the tool result): each conversation's KV cache is kept across turns;
* all live episodes decode together, ``max_new_tokens`` tokens a turn at most;
* an episode ends at a reply without a tool call, a reply cut at ``max_new_tokens``, the env's end
  (``finish`` or the step limit), ``max_turns`` or ``max_completion_length``.

TRL then does the rest of the step as usual (group advantages, the clipped loss on the model's tokens
only: ``env_mask`` is 0 on tool results, the optimiser). The env's reward comes back as the column
``env_reward`` and its named components (:data:`~vmb_gym.envs.rewards.REWARD_COMPONENTS`) as one
column each, read by :class:`RolloutField` reward functions (TRL logs ``rewards/<name>/mean``).
"""

from __future__ import annotations

import copy
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from vmb_gym.envs.rewards import REWARD_COMPONENTS

__all__ = ["EnvRollouts", "RolloutField", "env_trainer_class"]

log = logging.getLogger(__name__)


class RolloutField:
    """A TRL reward function that returns a column :class:`EnvRollouts` gave (``env_reward`` or a component)."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.__name__ = key  # TRL names the reward column after it

    def __call__(self, *args: Any, **kwargs: Any) -> list[float | None]:
        """The column's value of each rollout."""
        return [None if v is None else float(v) for v in kwargs[self.key]]


def reward_functions() -> tuple[list[RolloutField], list[float]]:
    """The reward functions and weights of a step: the env's reward (weight 1) and each component (logged, 0)."""
    funcs = [RolloutField("env_reward")] + [RolloutField(c) for c in REWARD_COMPONENTS]
    return funcs, [1.0] + [0.0] * len(REWARD_COMPONENTS)


def env_trainer_class() -> type:
    """``GRPOTrainer`` that hands each step's dataset rows (their ``task_id``) to its ``rollout_func``."""
    from trl import GRPOTrainer

    class EnvGRPOTrainer(GRPOTrainer):
        """TRL's trainer; :attr:`rollout_rows` holds the rows of the batch being generated."""

        rollout_rows: list[dict[str, Any]] = []

        def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
            self.rollout_rows = list(inputs)
            return super()._generate_and_score_completions(inputs)

    return EnvGRPOTrainer


class EnvRollouts:
    """``rollout_func`` of TRL's ``GRPOTrainer``: the episodes of a step, sampled together with kept KV caches.

    Args:
        env_factory: builds one :class:`~vmb_agents.llm.trl_env.CompactToolEnv` (kept and reused across steps).
        tokenizer: the model's tokenizer with the compact template (:func:`vmb_agents.llm.compact_view.install`).
        max_new_tokens: most tokens of one model turn.
        max_turns: most model turns of an episode.
        max_completion_length: most completion tokens (replies and tool results) of an episode.
        temperature: sampling temperature (0: greedy, for tests).
        seed: seed of the sampling generator.
    """

    def __init__(self, env_factory: Callable[[], Any], tokenizer: Any, *, max_new_tokens: int, max_turns: int,
                 max_completion_length: int, temperature: float, seed: int = 0) -> None:
        import torch

        self.env_factory = env_factory
        self.tokenizer = tokenizer
        self.max_new_tokens = int(max_new_tokens)
        self.max_turns = int(max_turns)
        self.max_completion_length = int(max_completion_length)
        self.temperature = float(temperature)
        self.generator = torch.Generator().manual_seed(seed)
        self.envs: list[Any] = []
        #: per call: seconds, model turns, tokens computed / reused by the prefill, tool calls and failures
        self.log: list[dict[str, float]] = []

    def __call__(self, prompts: Sequence[list[dict[str, Any]]], trainer: Any) -> dict[str, Any]:
        """The rollouts of ``prompts`` (the rows of ``trainer.rollout_rows``) in TRL's ``rollout_func`` format."""
        rows = getattr(trainer, "rollout_rows", None) or [{} for _ in prompts]
        model = trainer.model
        was_training = model.training
        model.eval()
        try:
            return self.run(model, prompts, [r.get("task_id") for r in rows], trainer.eos_token_ids,
                            trainer._get_tool_suffix_ids)
        finally:
            model.train(was_training)

    def run(self, model: Any, prompts: Sequence[list[dict[str, Any]]], task_ids: Sequence[str | None],
            stop_ids: Sequence[int], suffix_ids: Callable[[list[dict[str, Any]]], list[int]]) -> dict[str, Any]:
        """Episodes of ``task_ids``, each starting from its prompt; ``suffix_ids(tool_messages)`` tokenises tool
        results (TRL's ``_get_tool_suffix_ids``)."""
        from vmb_agents.llm.compact_view import compact_tools
        from vmb_agents.llm.kv_decode import PrefixCacheDecoder

        t0 = time.monotonic()
        while len(self.envs) < len(prompts):
            self.envs.append(self.env_factory())
        envs = self.envs[:len(prompts)]
        starts = [_first_messages(p, env.reset(task_id=tid)) for p, env, tid in zip(prompts, envs, task_ids,
                                                                                     strict=True)]
        prompt_ids = [list(self.tokenizer.apply_chat_template(m, tools=compact_tools(), add_generation_prompt=True,
                                                              tokenize=True, return_dict=True)["input_ids"])
                      for m in starts]
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else stop_ids[0]
        decoder = PrefixCacheDecoder(model, stop_ids, pad, max_entries=max(16, len(prompts)))
        episodes = [_Episode(env, ids) for env, ids in zip(envs, prompt_ids, strict=True)]
        turns = 0
        while turns < self.max_turns and any(e.live for e in episodes):
            live = [e for e in episodes if e.live]
            t1 = time.monotonic()
            replies = decoder.generate([e.context for e in live], self.max_new_tokens, temperature=self.temperature,
                                       generator=self.generator)
            log.debug("turn %d: %d episodes, replies of %s tokens, %.1f s (prompt tokens computed so far %d)", turns,
                      len(live), [len(r) for r in replies], time.monotonic() - t1, decoder.computed_tokens)
            for episode, reply in zip(live, replies, strict=True):
                ended = bool(reply) and reply[-1] in set(stop_ids)
                calls = self.calls(self.tokenizer.decode(reply, skip_special_tokens=True)) if ended else []
                episode.answer(reply, calls, suffix_ids, self.max_completion_length)
            turns += 1
        out: dict[str, Any] = {"prompt_ids": prompt_ids, "completion_ids": [e.completion for e in episodes],
                               "logprobs": None, "env_mask": [e.mask for e in episodes],
                               "env_reward": [e.env.get_reward() for e in episodes]}
        for c in REWARD_COMPONENTS:
            out[c] = [e.env.reward_components.get(c) for e in episodes]
        self.log.append({"seconds": time.monotonic() - t0, "turns": turns, "episodes": len(episodes),
                         "computed_tokens": decoder.computed_tokens, "reused_tokens": decoder.reused_tokens,
                         "tool_calls": sum(e.calls for e in episodes),
                         "tool_failures": sum(e.failures for e in episodes)})
        return out

    def calls(self, text: str) -> list[dict[str, Any]]:
        """The tool calls of a finished reply's text (the compact view's four tools)."""
        from vmb_agents.llm.chat import parse_tool_calls
        from vmb_agents.llm.compact_view import COMPACT_TOOL_NAMES

        return parse_tool_calls(text, list(COMPACT_TOOL_NAMES)).calls


def _first_messages(prompt: list[dict[str, Any]], observation: str | None) -> list[dict[str, Any]]:
    """The prompt with the env's first observation appended to its last message (as TRL does with ``reset``)."""
    messages = copy.deepcopy(list(prompt))
    if observation:
        messages[-1]["content"] = str(messages[-1].get("content") or "") + observation
    return messages


class _Episode:
    """One rollout: its env, the tokens so far (``context``), the completion and its model-token mask."""

    def __init__(self, env: Any, prompt_ids: list[int]) -> None:
        self.env = env
        self.context = list(prompt_ids)
        self.completion: list[int] = []
        self.mask: list[int] = []
        self.live = True
        self.calls = 0
        self.failures = 0

    def answer(self, reply: list[int], calls: list[dict[str, Any]],
               suffix_ids: Callable[[list[dict[str, Any]]], list[int]], max_completion: int) -> None:
        """Take the model's ``reply`` and its tool ``calls``, run them and append their results; end the episode
        when due (no call, the env's end, the length limit)."""
        self.completion += reply
        self.mask += [1] * len(reply)
        self.context += reply
        if not calls:
            self.live = False
            return
        messages = [self._run(call) for call in calls]
        more = suffix_ids(messages)
        if self.env._done or len(self.completion) + len(more) >= max_completion:
            self.live = False
            return
        self.completion += more
        self.mask += [0] * len(more)
        self.context += more

    def _run(self, call: dict[str, Any]) -> dict[str, Any]:
        """One tool call on the env, as TRL's tool loop runs it: a failure's text is the result."""
        from vmb_agents.llm.compact_view import COMPACT_TOOL_NAMES

        self.calls += 1
        name = str(call.get("name", ""))
        try:
            if name not in COMPACT_TOOL_NAMES:
                raise ValueError(f"Tool {name} not found.")
            result: Any = getattr(self.env, name)(**dict(call.get("arguments") or {}))
        except Exception as exc:  # noqa: BLE001 - the model's call is the input; its error is the tool's answer
            self.failures += 1
            result = {"error": str(exc)}
        return {"role": "tool", "name": name, "content": str(result)}
