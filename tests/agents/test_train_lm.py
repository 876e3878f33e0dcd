"""The LM trainer: prompts and oracle targets, padding/log-prob plumbing, a tiny end-to-end run, the CLI hook."""

from __future__ import annotations

import argparse
import csv
import json
import math

import gymnasium as gym
import pytest
import torch

import vmb_gym  # noqa: F401
from agents.llm.chat import parse_tool_calls
from agents.train.lm import (
    Args,
    TaskPrompter,
    add_lm_arguments,
    args_from_namespace,
    completion_logprobs,
    encode_prompt,
    generate,
    load_model,
    main,
    pad_batch,
    render_calls,
    stop_ids,
)
from vmb_gym.errors import ConfigError


@pytest.fixture(scope="module")
def env() -> gym.Env:
    return gym.make("VehicleMem-v0", files=[1], memory="gold")


@pytest.fixture(scope="module")
def tiny(env: gym.Env):
    torch.set_num_threads(1)
    return load_model(Args(threads=1), env)


def test_render_calls_round_trip() -> None:
    calls = [{"name": "carcontrol_seat_set_heating_level", "arguments": {"seat": "driver", "level": 2}},
             {"name": "carcontrol_music_play", "arguments": {}}]
    assert parse_tool_calls(render_calls(calls)).calls == calls


def test_prompter_oracle_target_scores_one(env: gym.Env) -> None:
    prompter = TaskPrompter(env, "compact")
    task_id = env.unwrapped.tasks.queries[0].task_id
    messages = prompter.messages(task_id)
    assert messages[0]["role"] == "system" and "User preference memory" in messages[1]["content"]
    text, oracle_reward = prompter.target(task_id)
    assert oracle_reward == pytest.approx(1.0)
    reward, metrics = prompter.score(task_id, text)
    assert reward == pytest.approx(1.0) and metrics["format_ok"]
    reward, metrics = prompter.score(task_id, "I cannot help")
    assert not metrics["format_ok"] and reward < 1.0
    full = TaskPrompter(env, "full").messages(task_id)
    assert "Available modules" in full[0]["content"]
    with pytest.raises(ConfigError):
        TaskPrompter(env, "other")


def test_pad_batch_layout() -> None:
    ids, attn, pos, cmask = pad_batch([[5, 6, 7], [8]], [[1, 2], [3]], pad_id=0, device=torch.device("cpu"))
    assert ids.tolist() == [[5, 6, 7, 1, 2], [0, 0, 8, 3, 0]]
    assert attn.tolist() == [[1, 1, 1, 1, 1], [0, 0, 1, 1, 0]]
    assert pos[1, 2:4].tolist() == [0, 1]
    assert cmask.tolist() == [[1.0, 1.0], [1.0, 0.0]]


def test_greedy_tokens_are_argmax_under_training_forward(env: gym.Env, tiny) -> None:
    """Left padding and position ids agree between ``generate`` and the training forward pass."""
    model, tok = tiny
    model.eval()
    prompter = TaskPrompter(env, "compact")
    ids = [q.task_id for q in env.unwrapped.tasks.queries[:2]]
    prompts = [encode_prompt(tok, prompter.messages(t), 200) for t in ids]
    prompts[1] = prompts[1][-120:]  # different lengths: real left padding
    outs = generate(model, tok, prompts, max_new_tokens=6, temperature=0.0, stops=stop_ids(tok, model),
                    device=torch.device("cpu"))
    batch = pad_batch(prompts, outs, tok.pad_token_id, torch.device("cpu"))
    with torch.no_grad():
        logp = completion_logprobs(model, *batch[:3], batch[3].shape[1])
        full = model(input_ids=batch[0], attention_mask=batch[1], position_ids=batch[2]).logits
    c_len = batch[3].shape[1]
    for row, out in enumerate(outs):
        predicted = full[row, -c_len - 1:-1].argmax(-1)[: len(out)].tolist()
        assert predicted == out
    assert torch.all(logp <= 0)


def test_tiny_end_to_end(tmp_path) -> None:
    args = Args(model="tiny", out=str(tmp_path), train_files="1", eval_files="2", sft_episodes=8, sft_epochs=1,
                grpo_steps=2, prompts_per_step=2, group_size=2, max_new_tokens=12, max_prompt_tokens=256,
                eval_episodes=2, threads=1, kl_beta=0.05, inner_epochs=2, reward="esm")
    summary = main(args)
    rows = list(csv.DictReader((tmp_path / "grpo_log.csv").open()))
    assert [int(r["step"]) for r in rows] == [1, 2]  # one row per GRPO step
    assert all(0.0 <= float(r["mean_reward"]) <= 1.0 for r in rows)
    for key in ("mean_reward", "std_reward", "groups_with_signal", "format_rate", "kl", "loss", "esm"):
        assert all(math.isfinite(float(r[key])) for r in rows), key
    assert all(0.0 <= float(r["groups_with_signal"]) <= 1.0 and float(r["kl"]) >= -1e-6 for r in rows)
    # --reward reaches the env: the logged reward is the exact-state-match rate
    assert all(float(r["mean_reward"]) == pytest.approx(float(r["esm"])) for r in rows)
    assert (tmp_path / "reward_curve.png").stat().st_size > 1000
    assert len(list(csv.DictReader((tmp_path / "sft_log.csv").open()))) == 1
    saved = json.loads((tmp_path / "summary.json").read_text())
    for key in ("before", "after_sft", "after_grpo"):
        assert set(saved[key]) >= {"reward", "esm", "format_rate"}
    assert summary["grpo_reward_last_quarter"] >= 0.0
    from transformers import AutoModelForCausalLM, AutoTokenizer

    AutoModelForCausalLM.from_pretrained(tmp_path / "final")
    assert AutoTokenizer.from_pretrained(tmp_path / "final").chat_template


def test_cli_hook_parses_flags() -> None:
    parser = argparse.ArgumentParser()
    add_lm_arguments(parser)
    args = args_from_namespace(parser.parse_args(["--model", "tiny", "--sft-episodes", "3", "--grpo-steps", "4",
                                                  "--out", "x", "--kl-beta", "0.1", "--backend", "trl"]))
    assert (args.sft_episodes, args.grpo_steps, args.out, args.kl_beta, args.backend) == (3, 4, "x", 0.1, "trl")
    assert args.reward == "f1_change"
    assert args_from_namespace(parser.parse_args(["--reward", "f1_positive"])).reward == "f1_positive"
    with pytest.raises(SystemExit):
        parser.parse_args(["--backend", "nope"])
    with pytest.raises(SystemExit):
        parser.parse_args(["--reward", "nope"])


def test_bad_model_and_backend(tmp_path) -> None:
    with pytest.raises(ConfigError, match="--backend"):
        main(Args(out=str(tmp_path), backend="nope"))
    with pytest.raises(ConfigError, match="--model"):
        main(Args(out=str(tmp_path), model=str(tmp_path / "missing"), train_files="1", eval_files="2", threads=1))
