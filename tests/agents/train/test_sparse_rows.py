"""The compact demonstration rows: 6 bytes per non-zero entry at the slot design's width, exact dense rows back
at any width, and negative indices as NumPy reads them."""

from __future__ import annotations

import numpy as np

from vmb_agents.train.sparse_rows import SparseRows


def test_rows_of_the_slot_width_take_six_bytes_per_entry_and_come_back_exact() -> None:
    rng = np.random.default_rng(1)
    dense = np.zeros((5, 35_632), dtype=np.float32)
    picks = rng.random(dense.shape) < 0.09
    dense[picks] = rng.standard_normal(int(picks.sum())).astype(np.float32)
    dense[2, -1] = 1.0  # the last column fits the compact column type
    rows = SparseRows(dense.shape[1], dense)
    nonzero = int(np.count_nonzero(dense))
    assert rows.nbytes == 6 * nonzero and rows.nbytes < dense.nbytes / 7
    assert np.array_equal(rows[np.arange(5)], dense) and np.array_equal(rows[-2], dense[3])
    assert np.array_equal(rows[[4, -5, 4]], dense[[4, 0, 4]])


def test_rows_wider_than_the_compact_columns_come_back_exact() -> None:
    dense = np.zeros((2, 70_000), dtype=np.float32)
    dense[0, [3, 65_536, 69_999]] = [0.25, -1.0, 2.0]
    rows = SparseRows(70_000, dense)
    assert np.array_equal(rows[0:2], dense) and rows.nbytes == 3 * (8 + 4)
