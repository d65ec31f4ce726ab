"""Row blocks: inputs larger than memory, read and mapped block by block.

``PrivateERM.fit`` takes a ``numpy.memmap`` or a Dask array or DataFrame
(chunked by rows) as X. Such an input is never loaded whole. A
:class:`RowBlocks` reads ``block_rows`` rows at a time:

- from the memmap's slice;
- or from the Dask array's row chunks, computed by whatever scheduler is active (a
  ``dask.distributed`` Client included).

It maps them by the public :class:`~dpcvx.data.rows.RowMap` (feature map, clipping to R,
intercept column) on the fly. Memory is O(block_rows x d), beside the solver's O(n)
vectors and O(d^2) Hessian.

The data contract is checked lazily, in one validation pass before anything
is charged (:meth:`RowBlocks.validate`), with the same typed errors as an
in-memory input and the global row index: a chunk with a NaN, a row above
the norm bound with ``clip=False``, a chunk whose width differs. Nothing is
released when a check fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InputError
from .rows import RowMap

__all__ = ["RowBlocks", "is_out_of_core", "as_row_blocks", "BLOCK_ROWS"]

BLOCK_ROWS = 65_536


def _is_dask(X: Any) -> bool:
    return type(X).__module__.split(".")[0] == "dask"


def is_out_of_core(X: Any) -> bool:
    """Whether X is read by blocks: a numpy.memmap or a Dask array or DataFrame."""
    return isinstance(X, np.memmap) or _is_dask(X)


def _dask_array(X: Any) -> Any:
    """A Dask DataFrame as a Dask array with known row-chunk sizes (an array as it is)."""
    if hasattr(X, "to_dask_array"):
        return X.to_dask_array(lengths=True)
    return X


@dataclass
class RowBlocks:
    """Row blocks of a memmap or Dask input, mapped by ``rows`` when read (module docstring)."""

    source: Any
    rows: RowMap
    block_rows: int = BLOCK_ROWS
    _bounds: list[tuple[int, int]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if _is_dask(self.source):
            self.source = _dask_array(self.source)
            if self.source.ndim != 2 or any(np.isnan(c) for c in self.source.chunks[0]):
                raise InputError("a Dask X must be 2-D with known row chunks (use to_dask_array(lengths=True))")
            if len(self.source.chunks[1]) != 1:
                self.source = self.source.rechunk({1: -1})  # whole rows per block
            edges = np.concatenate([[0], np.cumsum(self.source.chunks[0])]).astype(int)
            self._bounds = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
        else:
            if np.ndim(self.source) != 2:
                raise InputError(f"X must be 2-D (n samples x d features), got shape {np.shape(self.source)}")
            n = self.source.shape[0]
            self._bounds = [(a, min(a + self.block_rows, n)) for a in range(0, n, self.block_rows)]
        if not self._bounds:
            raise InputError("X is empty: at least one row is needed")

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, mapped features): the intercept column included."""
        return int(self.source.shape[0]), self.rows.dimension(int(self.source.shape[1]))

    def _raw(self, start: int, stop: int) -> np.ndarray:
        block = self.source[start:stop]
        if _is_dask(block):
            block = block.compute()
        return np.asarray(block)

    def blocks(self, refuse: bool = False) -> Iterator[tuple[int, np.ndarray, int]]:
        """(first row, mapped block, rows clipped in it) for each block, in order."""
        for start, stop in self._bounds:
            raw = self._raw(start, stop)
            if raw.ndim != 2 or raw.shape[1] != self.source.shape[1]:
                raise InputError(f"rows {start}..{stop - 1} of X have shape {raw.shape}, not "
                                 f"({stop - start}, {self.source.shape[1]}): mismatched chunks")
            if raw.dtype.kind in "biuf" and not np.all(np.isfinite(raw)):
                i, j = (int(v) for v in np.argwhere(~np.isfinite(raw))[0])
                raise InputError(f"X contains NaN or infinite values, first at row {start + i}, column {j}; "
                                 "remove or impute them first")
            try:
                mapped, clipped = self.rows.apply(raw, refuse=refuse)
            except InputError as error:
                raise InputError(f"in rows {start}..{stop - 1} of X (row numbers below are within that "
                                 f"block, counted from {start}): {error}") from None
            yield start, np.asarray(mapped), clipped

    def take(self, indices: np.ndarray) -> np.ndarray:
        """The mapped rows at ``indices`` (sorted): a subsample read without a pass over the data."""
        raw = self.source[indices]
        raw = np.asarray(raw.compute() if _is_dask(raw) else raw)
        return np.asarray(self.rows.apply(raw)[0])

    def validate(self, refuse: bool) -> int:
        """One pass over the data: every check of the data contract; returns the rows clipped (private)."""
        return sum(clipped for _, _, clipped in self.blocks(refuse))


def as_row_blocks(X: Any, rows: RowMap) -> RowBlocks:
    """X as row blocks (see :func:`is_out_of_core`)."""
    return RowBlocks(X, rows)
