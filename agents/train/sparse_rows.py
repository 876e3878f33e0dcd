"""Demonstration observations stored as their non-zero entries: exact, a fraction of the dense size.

A slot-design observation is ``N_SLOT_ACTIONS x row`` float32 features (35,632 floats, 142 KB),
about 9% of them non-zero (empty slots are zero rows). The 800-household run's 31,751 demonstration
states took 4.5 GB dense, and 9 GB while ``np.stack`` copied them. :class:`SparseRows` keeps the
rows in a SciPy CSR array (float32 values, unchanged; about 8 bytes per non-zero entry) and gives
dense float32 rows back on indexing, so ``rows[idx]`` is bit for bit the array ``np.stack`` would
have held:

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
from scipy import sparse

from vmb_gym.errors import ConfigError

__all__ = ["SparseRows"]


class SparseRows:
    """Float32 rows of one width in a CSR array; dense on indexing.

    Args:
        width: the length of every row.
        rows: rows to append at once (each of length ``width``).

    Indexing with an int gives one dense row; with a slice, a list or an int array, a dense
    ``(len, width)`` float32 array (a copy). Iterating gives the dense rows in order.
    """

    dtype = np.dtype(np.float32)

    def __init__(self, width: int, rows: Iterable[np.ndarray] = ()) -> None:
        self.width = int(width)
        self._packed = sparse.csr_array((0, self.width), dtype=np.float32)
        self._pending: list[sparse.csr_array] = []
        for row in rows:
            self.append(row)

    def append(self, row: np.ndarray) -> None:
        """Add one row (any float array of length ``width``; stored as float32).

        Raises:
            ConfigError: the row's length is not ``width``.
        """
        flat = np.asarray(row, dtype=np.float32).reshape(1, -1)
        if flat.shape[1] != self.width:
            raise ConfigError(f"a row of {self.width} values was expected, found {flat.shape[1]}; every "
                              "demonstration state must have the observation space's width")
        self._pending.append(sparse.csr_array(flat))

    def _rows(self) -> sparse.csr_array:
        """The packed rows, with those appended since the last read stacked on."""
        if self._pending:
            self._packed = sparse.vstack([self._packed, *self._pending], format="csr", dtype=np.float32)
            self._pending = []
        return self._packed

    def __len__(self) -> int:
        return self._packed.shape[0] + len(self._pending)

    @property
    def shape(self) -> tuple[int, int]:
        """``(rows, width)``, as the dense array would have."""
        return (len(self), self.width)

    @property
    def nbytes(self) -> int:
        """Bytes held by the packed rows (columns, values, row offsets)."""
        m = self._rows()
        return int(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes)

    def __getitem__(self, key: Any) -> np.ndarray:
        m = self._rows()
        if isinstance(key, (int, np.integer)):
            return self[np.array([int(key)])][0]
        idx = np.arange(len(self))[key] if isinstance(key, slice) else np.asarray(key, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < -len(self) or idx.max() >= len(self)):
            raise IndexError(f"row index out of range for {len(self)} rows")
        return m[idx % max(1, len(self))].toarray()

    def __iter__(self) -> Iterator[np.ndarray]:
        for i in range(len(self)):
            yield self[i]
