"""Demonstration observations stored as their non-zero entries: exact, a fraction of the dense size.

A slot-design observation is ``N_SLOT_ACTIONS x row`` float32 features (35,632 floats, 142 KB),
about 9% of them non-zero (empty slots are zero rows). The 800-household run's 31,751 demonstration
states took 4.5 GB dense, and 9 GB while ``np.stack`` copied them. :class:`SparseRows` keeps each
row as the columns (``uint16`` while the width allows) and float32 values (unchanged) of its
non-zero entries, about 6 bytes per entry, and never copies the whole set (no stacking, no CSR
``vstack`` at the first read); indexing gives dense float32 rows back, so ``rows[idx]`` is bit for
bit the array ``np.stack`` would have held:

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
    """Float32 rows of one width, each kept as its non-zero entries; dense on indexing.

    Args:
        width: the length of every row.
        rows: rows to append at once (each of length ``width``).

    Indexing with an int gives one dense row; with a slice, a list or an int array, a dense
    ``(len, width)`` float32 array (a copy). Iterating gives the dense rows in order.
    """

    dtype = np.dtype(np.float32)

    def __init__(self, width: int, rows: Iterable[np.ndarray] = ()) -> None:
        self.width = int(width)
        self._column_type = np.dtype(np.uint16) if self.width <= 1 << 16 else np.dtype(np.int64)
        self._columns: list[np.ndarray] = []
        self._values: list[np.ndarray] = []
        for row in rows:
            self.append(row)

    def append(self, row: np.ndarray) -> None:
        """Add one row (any float array of length ``width``; stored as float32).

        Raises:
            ConfigError: the row's length is not ``width``.
        """
        flat = np.asarray(row, dtype=np.float32).reshape(1, -1)[0]
        if flat.shape[0] != self.width:
            raise ConfigError(f"a row of {self.width} values was expected, found {flat.shape[0]}; every "
                              "demonstration state must have the observation space's width")
        columns = np.flatnonzero(flat)
        self._columns.append(columns.astype(self._column_type))
        self._values.append(flat[columns])

    def __len__(self) -> int:
        return len(self._values)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, width)``, as the dense array would have."""
        return (len(self), self.width)

    @property
    def nbytes(self) -> int:
        """Bytes held by the rows' columns and values."""
        return sum(c.nbytes + v.nbytes for c, v in zip(self._columns, self._values, strict=True))

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, (int, np.integer)):
            return self[np.array([int(key)])][0]
        n = len(self)
        idx = np.arange(n)[key] if isinstance(key, slice) else np.asarray(key, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < -n or idx.max() >= n):
            raise IndexError(f"row index out of range for {n} rows")
        out = np.zeros((idx.size, self.width), dtype=np.float32)
        for k, i in enumerate(idx.tolist()):
            out[k, self._columns[i]] = self._values[i]
        return out

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self[i]
