"""The stream-writer training script's flags: one per Args field, its docstring the help, defaults kept."""

from __future__ import annotations

import argparse
import dataclasses

import pytest

pytest.importorskip("sb3_contrib")

from vmb_agents.train.common import args_from_namespace, field_docs
from vmb_agents.train.stream_writer import Args, add_arguments


def test_every_field_has_help_and_the_flags_give_the_defaults() -> None:
    docs = field_docs(Args)
    assert set(docs) == {f.name for f in dataclasses.fields(Args)}
    assert docs["budget"] == "memory budget: stored tokens per timeline"
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = args_from_namespace(Args, parser.parse_args([]))
    assert args == Args()
    assert (args.batch_size, args.n_epochs, args.gamma, args.clip_range, args.net_arch) == (256, 4, 0.999, 0.1, "64,64")
    assert args.png == ""  # the curve goes under --out, never into docs/
    tuned = args_from_namespace(Args, parser.parse_args(["--budget", "500", "--keep", "last", "--net-arch", "32"]))
    assert (tuned.budget, tuned.keep, tuned.net_arch) == (500, "last", "32")
    with pytest.raises(SystemExit):
        parser.parse_args(["--keep", "first"])
