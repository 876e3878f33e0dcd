"""The stream room: memory writers for ``VehicleMemStream-v0`` and the reader they share.

* :mod:`vmb_agents.stream.reader`: :class:`~vmb_agents.stream.reader.StreamReader`, the fixed rule reader
  every writer is paired with at a request;
* :mod:`vmb_agents.stream.writers`: the :class:`~vmb_agents.stream.writers.Writer` contract (budget,
  overflow) and the baseline writers (everything, nothing, rules, layered);
* :mod:`vmb_agents.stream.features`: what the learned writer sees of a line;
* :mod:`vmb_agents.stream.learned`: :class:`~vmb_agents.stream.learned.StreamWriteEnv` (keep/skip per
  line for SB3) and :class:`~vmb_agents.stream.learned.SB3StreamWriter` with its checkpoints;
* :mod:`vmb_agents.stream.imitation`: the evidence-label warm start and the budget calibration;
* :mod:`vmb_agents.stream.factory`: :func:`~vmb_agents.stream.factory.make_writer` from a writer spec.

Nothing is imported here; torch and SB3 load only when a model is built or loaded.
"""
