"""The stream room: memory writers for ``VehicleMemStream-v0`` and the reader they share.

* :mod:`agents.stream.reader`: :class:`~agents.stream.reader.StreamReader`, the fixed rule reader
  every writer is paired with at a request;
* :mod:`agents.stream.writers`: the :class:`~agents.stream.writers.Writer` contract (budget,
  overflow) and the baseline writers (everything, nothing, rules, layered);
* :mod:`agents.stream.features`: what the learned writer sees of a line;
* :mod:`agents.stream.learned`: :class:`~agents.stream.learned.StreamWriteEnv` (keep/skip per
  line for SB3) and :class:`~agents.stream.learned.SB3StreamWriter` with its checkpoints;
* :mod:`agents.stream.imitation`: the evidence-label warm start and the budget calibration;
* :mod:`agents.stream.factory`: :func:`~agents.stream.factory.make_writer` from a writer spec.

Nothing is imported here; torch and SB3 load only when a model is built or loaded.
"""
