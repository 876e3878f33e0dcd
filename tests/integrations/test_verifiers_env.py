"""The verifiers adapter, offline: verifiers' own loaders find it; a scripted model plays it; rewards equal the
env's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import gymnasium as gym
import pytest

vf = pytest.importorskip("verifiers.v1")

from verifiers.v1.agent import Segment
from verifiers.v1.utils.loaders import environment_class, taskset_class

from vmb_gym.envs.rewards import REWARD_COMPONENTS
from vmb_gym.integrations.verifiers_env import (
    TASKSET_ID,
    VehicleMemTaskset,
    VehicleMemVfEnv,
    load_environment,
)

PACKAGE = Path(__file__).resolve().parents[2] / "environments" / "vmb_vehiclemem"


@pytest.fixture(autouse=True)
def _package_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment package, installed by setup.sh; from the tree when it is not."""
    if "vmb_vehiclemem" not in sys.modules:
        monkeypatch.syspath_prepend(str(PACKAGE))


class ScriptedTrace:
    """What the env writes on a trace: rewards, metrics, info."""

    def __init__(self) -> None:
        self.rewards: dict[str, tuple[float, float]] = {}
        self.metrics: dict[str, float] = {}
        self.info: dict[str, Any] = {}

    def record_reward(self, name: str, value: float, weight: float = 1.0) -> None:
        self.rewards[name] = (float(value), float(weight))

    def record_metrics(self, values: dict[str, float]) -> None:
        self.metrics.update(values)


class ScriptedModel:
    """A verifiers agent whose replies are fixed assistant messages (one per turn); then the exchange ends."""

    def __init__(self, replies: list[Any]) -> None:
        self.replies = list(replies)
        self.user_turns: list[str] = []
        self.trace = ScriptedTrace()

    @contextlib.asynccontextmanager
    async def interaction(self, task: Any):
        model = self

        class Interaction:
            trace = model.trace

            async def turn(self, message: str | None = None) -> Segment:
                model.user_turns.append(message)
                if not model.replies:
                    return Segment(messages=[], terminated=True)
                return Segment(messages=[model.replies.pop(0)])

        yield Interaction()


def _calls(*calls: tuple[str, dict]) -> Any:
    return vf.AssistantMessage(content=None, tool_calls=[
        vf.ToolCall(id=f"call_{i}", name=n, arguments=json.dumps(a)) for i, (n, a) in enumerate(calls)])


def _reference(task_id: str, actions: list[Any]) -> float:
    env = gym.make("VehicleMem-v0", files=[1], memory="gold")
    env.reset(options={"task_id": task_id})
    for a in actions:
        _, reward, terminated, truncated, _ = env.step(a)
        if terminated or truncated:
            return reward
    return env.step({"name": "finish", "arguments": {}})[1]


def _play(env: VehicleMemVfEnv, task: Any, model: ScriptedModel) -> ScriptedTrace:
    asyncio.run(env.run(task, SimpleNamespace(player=model)))
    return model.trace


def test_verifiers_loaders_find_the_package() -> None:
    assert TASKSET_ID == "vmb-vehiclemem"
    assert taskset_class(TASKSET_ID) is VehicleMemTaskset
    assert environment_class(TASKSET_ID) is VehicleMemVfEnv
    env = load_environment(files=[1], memory="gold")
    tasks = list(env.taskset)
    assert [t.data.task_id for t in tasks] == [f"1_{i}" for i in range(len(tasks))] and len(tasks) == 10
    assert tasks[0].data.prompt is None and "<tool_call>" in tasks[0].data.system_prompt


def test_native_tool_calls_score_like_the_env() -> None:
    env = load_environment(files=[1], memory="gold")
    task = next(iter(env.taskset))
    gold = gym.make("VehicleMem-v0", files=[1]).unwrapped.tasks.queries[0].gold_calls
    model = ScriptedModel([_calls(*[(c.name, dict(c.arguments)) for c in gold]),
                           vf.AssistantMessage(content="Done, enjoy the drive.")])
    trace = _play(env, task, model)
    expected = _reference("1_0", [[{"name": c.name, "arguments": dict(c.arguments)} for c in gold]])
    assert trace.rewards["vmb_reward"] == (expected, 1.0) and expected == 1.0
    assert set(trace.metrics) == set(REWARD_COMPONENTS) and trace.metrics["exact_state_match"] == 1.0
    assert trace.info["task_id"] == "1_0"
    assert model.user_turns[0] == gym.make("VehicleMem-v0", files=[1]).unwrapped.tasks.queries[0].text
    assert '"success":true' in model.user_turns[1]  # the observation came back as the next user turn


def test_text_tool_calls_partial_credit_and_early_end() -> None:
    env = load_environment(files=[1], memory="gold", reward={"state_f1_change": 1.0, "invalid_action_rate": -0.2})
    task = list(env.taskset)[1]
    wrong = {"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 1}}
    text = ('<tool_call>{"name": "list_module_tools", "arguments": {"module_name": "seat"}}</tool_call>\n'
            f"<tool_call>{json.dumps(wrong)}</tool_call>")
    model = ScriptedModel([vf.AssistantMessage(content="<tool_call>{broken</tool_call>"),
                           vf.AssistantMessage(content=text)])  # then the exchange ends: scored as reached
    trace = _play(env, task, model)
    ref = gym.make("VehicleMem-v0", files=[1], memory="gold",
                   reward={"state_f1_change": 1.0, "invalid_action_rate": -0.2})
    ref.reset(options={"task_id": task.data.task_id})
    ref.step(["{broken"])
    ref.step([{"name": "list_module_tools", "arguments": {"module_name": "seat"}}, wrong])
    _, expected, _, _, info = ref.step({"name": "finish", "arguments": {}})
    assert trace.rewards["vmb_reward"][0] == pytest.approx(expected)
    assert trace.metrics == info["reward_components"] and trace.metrics["invalid_action_rate"] == pytest.approx(1 / 3)
