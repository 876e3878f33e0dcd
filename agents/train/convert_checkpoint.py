"""``vmb train convert-checkpoint``: rewrite an SB3 zip checkpoint as safetensors + JSON, once.

An SB3 zip (``NAME.zip``: SB3's own format, and this project's before sidecar format 3) holds a
pickle, which runs code when it is loaded; so the conversion loads it only with
``--trust-checkpoint``. It writes ``OUT.safetensors`` (the policy's weights) and ``OUT.vmb.json``
(the old sidecar's entries and the model record), which load without running code and act as
the zip did (:func:`vmb_agents.sb3.checkpoint.convert_checkpoint`)::

    vmb train convert-checkpoint runs/old/final.zip --trust-checkpoint            # runs/old/final.safetensors
    vmb train convert-checkpoint runs/old/final.zip --out runs/new/final --trust-checkpoint
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from vmb_agents.sb3.checkpoint import TRUST_FLAG, convert_checkpoint, sidecar_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``vmb train convert-checkpoint``."""
    parser.add_argument("checkpoint", help="the SB3 zip checkpoint: NAME or NAME.zip (its NAME.vmb.json beside it)")
    parser.add_argument("--out", default=None,
                        help="NAME of the converted checkpoint (default: beside the zip, same name; the sidecar is "
                             "rewritten and the zip is no longer read)")
    parser.add_argument(TRUST_FLAG, action="store_true",
                        help="load the zip: a pickle, which runs any code its author put in it (only for a file from "
                             "a trusted source)")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Convert the checkpoint and print where the new files went."""
    parser = argparse.ArgumentParser(prog="vmb train convert-checkpoint", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    path = convert_checkpoint(args.checkpoint, args.out, trust_checkpoint=args.trust_checkpoint)
    summary = {"checkpoint": str(path), "sidecar": str(sidecar_path(path)), "from": args.checkpoint}
    print(json.dumps(summary, indent=1))
    return summary
