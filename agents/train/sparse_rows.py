"""Demonstration observations stored as their non-zero entries: exact, a fraction of the dense size.

A slot-design observation is ``N_SLOT_ACTIONS x row`` float32 features (35,632 floats, 142 KB),
about 9% of them non-zero (empty slots are zero rows). The 800-household run's 31,751 demonstration
states took 4.5 GB dense, and 9 GB while ``np.stack`` copied them. :class:`SparseRows` keeps each
row's non-zero columns (``uint16`` while the width allows, else ``int32``) and values (float32,
unchanged), about 6 bytes per non-zero entry, and gives dense float32 rows back on indexing, so
``rows[idx]`` is bit for bit the array ``np.stack`` would have held:

    >>> import numpy as np
    >>> rows = SparseRows(4)
    >>> rows.append(np.array([0.0, 0.5, 0.0, -1.0], dtype=np.float32))
    >>> rows.append(np.zeros(4, dtype=np.float32))
    >>> rows[np.array([1, 0])]
    array([[ 0. ,  0. ,  0. ,  0. ],
           [ 0. ,  0.5,  0. , -1. ]], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from vmb_gym.errors import ConfigError

__all__ = ["SparseRows"]


class SparseRows:
    """Float32 rows of one width, stored as non-zero ``(column, value)`` pairs; dense on indexing.

    Args:
        width: the length of every row.
        rows: rows to append at once (each of length ``width``).

    Indexing with an int gives one dense row; with a slice, a list or an int array, a dense
    ``(len, width)`` float32 array (a copy). Iterating gives the dense rows in order.
    """

    dtype = np.dtype(np.float32)

    def __init__(self, width: int, rows: Iterable[np.ndarray] = ()) -> None:
        self.width = int(width)
        self._col_type = np.uint16 if self.width <= np.iinfo(np.uint16).max + 1 else np.int32
        self._cols = np.zeros(0, dtype=self._col_type)
        self._vals = np.zeros(0, dtype=np.float32)
        self._indptr = np.zeros(1, dtype=np.int64)
        self._pending: list[tuple[np.ndarray, np.ndarray]] = []
        for row in rows:
            self.append(row)

    def append(self, row: np.ndarray) -> None:
        """Add one row (any float array of length ``width``; stored as float32).

        Raises:
            ConfigError: the row's length is not ``width``.
        """
        flat = np.asarray(row, dtype=np.float32).reshape(-1)
        if flat.shape[0] != self.width:
            raise ConfigError(f"a row of {self.width} values was expected, found {flat.shape[0]}; every "
                              "demonstration state must have the observation space's width")
        cols = np.flatnonzero(flat)
        self._pending.append((cols.astype(self._col_type), flat[cols]))

    def _pack(self) -> None:
        """Move the rows appended since the last read into the packed arrays."""
        if not self._pending:
            return
        lengths = np.array([len(c) for c, _ in self._pending], dtype=np.int64)
        self._cols = np.concatenate([self._cols, *(c for c, _ in self._pending)])
        self._vals = np.concatenate([self._vals, *(v for _, v in self._pending)])
        self._indptr = np.concatenate([self._indptr, self._indptr[-1] + np.cumsum(lengths)])
        self._pending = []

    def __len__(self) -> int:
        return len(self._indptr) - 1 + len(self._pending)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, width)``, as the dense array would have."""
        return (len(self), self.width)

    @property
    def nbytes(self) -> int:
        """Bytes held by the packed rows (columns, values, row offsets)."""
        self._pack()
        return int(self._cols.nbytes + self._vals.nbytes + self._indptr.nbytes)

    def __getitem__(self, key: Any) -> np.ndarray:
        self._pack()
        if isinstance(key, (int, np.integer)):
            return self[np.array([int(key)])][0]
        idx = np.arange(len(self))[key] if isinstance(key, slice) else np.asarray(key, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < -len(self) or idx.max() >= len(self)):
            raise IndexError(f"row index out of range for {len(self)} rows")
        idx = idx % max(1, len(self))
        starts, ends = self._indptr[idx], self._indptr[idx + 1]
        lengths = ends - starts
        # positions of every stored entry of the chosen rows, row after row
        offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))
        out = np.zeros((len(idx), self.width), dtype=np.float32)
        out[np.repeat(np.arange(len(idx)), lengths), self._cols[offsets].astype(np.int64)] = self._vals[offsets]
        return out

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self[i]
