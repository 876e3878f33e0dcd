"""``RemoteToolEnv``: the in-process TRL adapter's tools and rewards, over a ``vmb serve`` session."""

from __future__ import annotations

import inspect
from functools import partial

import pytest

from vmb_agents.llm.trl_env import VehicleMemToolEnv
from vmb_gym.server.tool_episode import ToolEpisode, with_vehicle_tools
from vmb_gym.server.trl import RemoteToolEnv

from .conftest import TOKEN


def _trl_tool_names(cls: type) -> list[str]:
    """The tools TRL's GRPOTrainer exposes (its discovery rule: public functions of the class)."""
    return [n for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
            if n not in ("reset", "get_reward") and not n.startswith("_")]


def test_same_tools_and_schemas_as_the_in_process_adapter() -> None:
    from transformers.utils import get_json_schema

    assert _trl_tool_names(RemoteToolEnv) == _trl_tool_names(VehicleMemToolEnv)
    remote, local = RemoteToolEnv("http://127.0.0.1:9"), VehicleMemToolEnv(files=[1])  # no connection until reset
    for name in _trl_tool_names(RemoteToolEnv):
        assert get_json_schema(getattr(remote, name)) == get_json_schema(getattr(local, name)), name
    every = with_vehicle_tools(RemoteToolEnv, "all", name="RemoteAll")
    assert len([n for n in _trl_tool_names(every) if n.startswith("carcontrol_")]) == 111
    assert issubclass(every, ToolEpisode)


def test_remote_episodes_equal_in_process(server_url: str) -> None:
    local = VehicleMemToolEnv(memory="gold", seed=0)
    queries = local.env.unwrapped.tasks.queries
    with RemoteToolEnv(server_url, token=TOKEN, memory="gold") as remote:
        for q in (queries[0], queries[3], queries[11]):
            assert remote.reset(task_id=q.task_id, prompt=[]) == local.reset(task_id=q.task_id, prompt=[])
            assert remote.list_module_tools("seat") == local.list_module_tools("seat")
            for call in q.gold_calls:
                assert remote.call_vehicle(call.name, dict(call.arguments)) == local.call_vehicle(
                    call.name, dict(call.arguments)
                )
            assert remote.carcontrol_seat_set_heating_level(seat="driver", level=1) == \
                local.carcontrol_seat_set_heating_level(seat="driver", level=1)
            assert remote.get_reward() == local.get_reward()  # both finished by get_reward
            assert remote.reward_components == local.reward_components and remote.reward_components
            assert "episode is over" in remote.finish()
        remote.reset()  # the seeded cycle, as in-process
        local.reset()
        assert remote.task_id == local.task_id
    assert "reset() was not called" in RemoteToolEnv(server_url, token=TOKEN).finish()


@pytest.mark.slow
def test_grpo_trainer_step_against_vmb_serve(server_url: str, tmp_path) -> None:
    """One GRPOTrainer step on CPU, a tiny model built from a config, the rollouts on the server."""
    pytest.importorskip("trl")
    datasets = pytest.importorskip("datasets")
    from trl import GRPOConfig, GRPOTrainer
    from trl.chat_template_utils import qwen2_5_chat_template

    from vmb_agents.train.lm import build_tiny_model

    model, tok = build_tiny_model(seed=0)
    tok.chat_template = qwen2_5_chat_template
    tok.padding_side = "left"
    rows = [{"prompt": [{"role": "user", "content": ""}], "task_id": "1_0"}]
    config = GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                        max_completion_length=8, beta=0.0, logging_steps=1, save_strategy="no", report_to=[],
                        use_cpu=True, max_tool_calling_iterations=2, seed=0)
    trainer = GRPOTrainer(
        model=model,
        processing_class=tok,
        args=config,
        train_dataset=datasets.Dataset.from_list(rows),
        environment_factory=partial(RemoteToolEnv, server_url, token=TOKEN, memory="gold"),
    )
    trainer.train()
    logged = [e for e in trainer.state.log_history if "rewards/RemoteToolEnv/mean" in e]
    assert [e["step"] for e in logged] == [1]
    assert 0.0 <= logged[0]["rewards/RemoteToolEnv/mean"] <= 1.0
