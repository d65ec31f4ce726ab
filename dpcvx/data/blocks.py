"""Row blocks: inputs larger than memory, read and mapped block by block.

``PrivateERM.fit`` takes a ``numpy.memmap`` or a Dask array or DataFrame
(chunked by rows) as X. Such an input is never loaded whole. A
:class:`RowBlocks` reads ``block_rows`` rows at a time:

- from the memmap's slice;
- or from the Dask array's row chunks, computed by whatever scheduler is active (a
  ``dask.distributed`` Client included).

The solver's passes use :meth:`RowBlocks.map`: a function of one mapped block (and
the block's slices of n-vectors) is evaluated for every block, and only its small
results (n_b numbers, d numbers, a d x d matrix) come back. For a Dask input each
evaluation is a task on the chunk, so on a cluster the data never leaves the
workers; for a memmap it runs here, block after block. The results are combined in
block order either way, so the arithmetic is the same.

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

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InputError
from .rows import RowMap

__all__ = ["RowBlocks", "is_out_of_core", "as_row_blocks", "BLOCK_ROWS", "cache_block_rows"]

BlockFunction = Callable[..., Any]

BLOCK_ROWS = 65_536
CACHE_BLOCK_BYTES = 1 << 19  # a block of this size stays in a core's cache between its two products


def cache_block_rows(width: int) -> int:
    """Rows per block such that a float64 block of ``width`` columns is about ``CACHE_BLOCK_BYTES``."""
    return max(256, CACHE_BLOCK_BYTES // (8 * max(width, 1)))


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
    block_rows: int = 0  # rows per block of a memmap (0: BLOCK_ROWS floats in all, at least cache-sized)
    checked: bool = False  # the source holds mapped, checked float64 rows: blocks are its views
    _bounds: list[tuple[int, int]] = field(init=False, repr=False)
    _width: int = field(init=False, repr=False)  # the mapped width (feature map and intercept)

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
            if not self.block_rows:  # a mapped block is a copy: keep it near BLOCK_ROWS x 8 floats
                self.block_rows = max(BLOCK_ROWS * 8 // max(int(self.source.shape[1]), 1),
                                      cache_block_rows(int(self.source.shape[1])))
            self._bounds = [(a, min(a + self.block_rows, n)) for a in range(0, n, self.block_rows)]
        if not self._bounds:
            raise InputError("X is empty: at least one row is needed")
        self._width = int(self.source.shape[1]) if self.checked else self.rows.dimension(int(self.source.shape[1]))

    @classmethod
    def views(cls, X: np.ndarray, rows: RowMap) -> RowBlocks:
        """Row blocks of mapped, checked float64 rows (in memory, or a memmap that passed
        :meth:`validate` unchanged): cache-sized views, read with no check and no copy."""
        return cls(X, rows, cache_block_rows(X.shape[1]), checked=True)

    def coarser(self, factor: int) -> RowBlocks:
        """Views ``factor`` times as tall (checked rows only; else these blocks): for a compute-bound
        product such as the Hessian's syrk, whose efficiency grows with the block."""
        return RowBlocks(self.source, self.rows, self.block_rows * factor, checked=True) if self.checked else self

    def trusted(self, clipped: int) -> RowBlocks:
        """After :meth:`validate` found ``clipped`` rows: views of a float64 memmap the row map leaves as it
        is (no feature map, no intercept, no row clipped), else these blocks."""
        source = self.source
        identity = self.rows.feature_map is None and not self.rows.fit_intercept and clipped == 0
        if identity and isinstance(source, np.ndarray) and source.dtype == np.float64:
            return RowBlocks.views(source, self.rows)
        return self

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, mapped features): the intercept column included."""
        return int(self.source.shape[0]), self._width

    def _raw(self, start: int, stop: int) -> np.ndarray:
        block = self.source[start:stop]
        if _is_dask(block):
            block = block.compute()
        return np.asarray(block)

    def blocks(self, refuse: bool = False) -> Iterator[tuple[int, np.ndarray, int]]:
        """(first row, mapped block, rows clipped in it) for each block, in order, read here."""
        if self.checked:
            yield from ((start, self.source[start:stop], 0) for start, stop in self._bounds)
            return
        for start, stop in self._bounds:
            mapped, clipped = _checked_block(self._raw(start, stop), start, stop, int(self.source.shape[1]),
                                             self.rows, refuse)
            yield start, mapped, clipped

    def map(self, function: BlockFunction, *vectors: np.ndarray) -> list[Any]:
        """[function(mapped block, *its slices of ``vectors``) for each block], in block order.

        For a Dask input every call is a task on its chunk, run by the active
        scheduler (module docstring); otherwise the blocks are read here.
        """
        if _is_dask(self.source):
            return self._tasks(function, vectors, refuse=False)
        return [function(block, *(v[start:start + block.shape[0]] for v in vectors))
                for start, block, _ in self.blocks()]

    def _tasks(self, function: BlockFunction | None, vectors: tuple[np.ndarray, ...], refuse: bool) -> list[Any]:
        """One Dask task per chunk (checked and mapped where it lives); computed together."""
        import dask

        width = int(self.source.shape[1])
        chunks = [chunk for chunk, size in zip(self.source.to_delayed().ravel(), self.source.chunks[0], strict=True)
                  if size > 0]
        tasks = [dask.delayed(_block_task)(chunk, start, stop, width, self.rows, refuse, function,
                                           *(v[start:stop] for v in vectors))
                 for chunk, (start, stop) in zip(chunks, self._bounds, strict=True)]
        return list(dask.compute(*tasks))

    def take(self, indices: np.ndarray) -> np.ndarray:
        """The mapped rows at ``indices`` (sorted): a subsample read without a pass over the data."""
        raw = self.source[indices]
        if self.checked:
            return np.asarray(raw)
        raw = np.asarray(raw.compute() if _is_dask(raw) else raw)
        return np.asarray(self.rows.apply(raw)[0])

    def validate(self, refuse: bool) -> int:
        """One pass over the data: every check of the data contract; returns the rows clipped (private)."""
        if _is_dask(self.source):
            return int(sum(self._tasks(None, (), refuse)))
        return sum(clipped for _, _, clipped in self.blocks(refuse))


def _checked_block(raw: Any, start: int, stop: int, width: int, rows: RowMap,
                   refuse: bool) -> tuple[np.ndarray, int]:
    """The data contract of one block (shape, finite values, norm bound) and its mapped rows."""
    raw = np.asarray(raw)
    if raw.ndim != 2 or raw.shape != (stop - start, width):
        raise InputError(f"rows {start}..{stop - 1} of X have shape {raw.shape}, not "
                         f"({stop - start}, {width}): mismatched chunks")
    if raw.dtype.kind in "biuf" and not np.all(np.isfinite(raw)):
        i, j = (int(v) for v in np.argwhere(~np.isfinite(raw))[0])
        raise InputError(f"X contains NaN or infinite values, first at row {start + i}, column {j}; "
                         "remove or impute them first")
    try:
        mapped, clipped = rows.apply(raw, refuse=refuse)
    except InputError as error:
        raise InputError(f"in rows {start}..{stop - 1} of X (row numbers below are within that "
                         f"block, counted from {start}): {error}") from None
    return np.asarray(mapped), clipped


def _block_task(raw: Any, start: int, stop: int, width: int, rows: RowMap, refuse: bool,
                function: BlockFunction | None, *slices: np.ndarray) -> Any:
    """One Dask task: check and map the chunk where it lives, then apply ``function`` (None: the
    number of rows clipped, for the validation pass)."""
    mapped, clipped = _checked_block(raw, start, stop, width, rows, refuse)
    return clipped if function is None else function(mapped, *slices)


def as_row_blocks(X: Any, rows: RowMap) -> RowBlocks:
    """X as row blocks (see :func:`is_out_of_core`)."""
    return RowBlocks(X, rows)
