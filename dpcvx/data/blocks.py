"""Row blocks: inputs larger than memory, read and mapped block by block.

``PrivateERM.fit`` takes a ``numpy.memmap`` or a Dask array or DataFrame
(chunked by rows) as X. Such an input is never loaded whole. A
:class:`RowBlocks` reads ``block_rows`` rows at a time:

- from the memmap's slice;
- or from the Dask array's row chunks, computed by whatever scheduler is active (a
  ``dask.distributed`` Client included).

The solver's passes use :meth:`RowBlocks.map`: a function of one mapped block (and
the block's parts of n-vectors) is evaluated for every block, and only its small
results (d numbers, a d x d matrix) come back. For a Dask input each evaluation is a
task on the chunk, so on a cluster the data never leaves the workers; for a memmap it
runs here, block after block. The results are combined in block order either way, so
the arithmetic is the same.

n-vectors (labels, margins, curvatures) of a Dask input are :class:`BlockVector`:
one part per chunk, persisted where the chunk lives (``dask.persist``: futures on a
``dask.distributed`` cluster). Their arithmetic (a sum, a scalar multiple, an
elementwise function, a sum of a function) runs as tasks on the parts, so a pass
sends w or a direction (d numbers) to the workers and gets d numbers or a d x d matrix
back: the n-vector never travels. :meth:`RowBlocks.map` with ``keep=True`` keeps the
first result of each block as such a part. For a memmap or in-memory rows the
n-vectors are numpy arrays, sliced by block.

It maps them by the public :class:`~dpcvx.data.rows.RowMap` (feature map, clipping to R,
intercept column) on the fly. Memory is O(block_rows x d), beside the solver's O(n)
vectors and O(d^2) Hessian.

A memmap whose map changes its rows (a feature map, the private ranges' standardiser, a row clipped, a dtype other
than float64) is mapped once, in the validation pass, into a temporary file of the mapped rows
(:meth:`RowBlocks.checked_blocks`), which the solver's passes then read as views: mapping every block on every pass
made such a fit 2 to 6 times slower than in memory. The file has no name (``tempfile.TemporaryFile``, in
``tempfile.gettempdir()``): it is gone when the fit lets go of the blocks, on an error too, and its pages are
page cache, not the process's anonymous memory. Where it cannot be written the blocks are mapped on every pass,
as before.

The data contract is checked lazily, in one validation pass before anything
is charged (:meth:`RowBlocks.validate`), with the same typed errors as an
in-memory input and the global row index: a chunk with a NaN, a row above
the norm bound with ``clip=False``, a chunk whose width differs. Nothing is
released when a check fails. Every chunk is checked, and a refusal names the
lowest-indexed failing chunk's first offending row, whichever chunk's task
ended first (a memmap's blocks are read in order: the same refusal).

A Dask graph is computed again on every pass, and the proofs are about one data
set: the validation pass keeps each chunk's fingerprint (:func:`chunk_fingerprint`)
and every later read of the chunk compares it before any value is used, raising
:class:`~dpcvx.exceptions.SourceChangedError` on a difference (an unseeded
``map_blocks``, a store written during the fit). A memmap is read in place: its
file must not be written during the fit (docs/scale.md); its reads are not
compared, so that they cost what they did.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import operator
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InputError, SourceChangedError, call_memo
from ..tables import NonFiniteError, non_finite_error
from ..validation import check_matrix, not_two_dimensional
from .rows import NormBoundError, RowMap

__all__ = ["RowBlocks", "BlockVector", "Recomputed", "Shipped", "elementwise", "same_vector", "is_dask",
           "is_out_of_core", "by_row_blocks", "as_row_blocks", "cache_block_rows", "MEMMAP_BLOCK_SHARE",
           "BLOCK_ROW_VECTORS", "chunk_fingerprint", "source_changed"]

BlockFunction = Callable[..., Any]

# A block of this size stays in a core's cache (L2, or the L3 it shares) between its two products. Measured
# during development (one fused step pass and one Hessian-vector pass, CPU time, on the sweep's sizes):
# 2 MB blocks beat 512 KB ones at every width (fewer Python calls per pass); 4 MB ones were no faster.
CACHE_BLOCK_BYTES = 1 << 21
#: A memmap's mapped blocks are copies, and a fit holds one of them and its float32 copy for the Hessian at its peak:
#: a block is at most this fraction of the file's bytes (but at least ``CACHE_BLOCK_BYTES`` / 8), so that the peak
#: stays a small part of a file of a few tens of MB too. With 2 MB blocks a 32 MB file (200,000 x 20) grew by 0.11 to
#: 0.15 of its size. The smaller blocks cost a Python call per block and pass, which a file this small pays in
#: microseconds. (In memory, blocks are views: cache-sized whatever the array.)
MEMMAP_BLOCK_SHARE = 1 / 32
#: float64 n_b-vectors a pass over a memmap holds beside its block (margins, l', l'' and a product): on narrow rows
#: they weigh as much as the block, so a memmap's block rows count them. Sized by the block's columns alone, 2 MB
#: blocks of a 64 MB file of 5 columns held 2.6 blocks' worth at the fit's peak with the defaults (the mapped block
#: with the intercept column, its float32 copy, the vectors): with the labels 0.103 of the file.
BLOCK_ROW_VECTORS = 4


UNKNOWN_CHUNKS = "a Dask X must be 2-D with known row chunks (use to_dask_array(lengths=True))"


def cache_block_rows(width: int, nbytes: float = float("inf")) -> int:
    """Rows per block such that a float64 block of ``width`` columns is about ``CACHE_BLOCK_BYTES``, or for a memmap
    of ``nbytes`` bytes beyond one such block, such that the block and the ``BLOCK_ROW_VECTORS`` float64
    n_b-vectors a pass holds beside it are about ``MEMMAP_BLOCK_SHARE`` of the file when that is less than
    ``CACHE_BLOCK_BYTES`` (and ``CACHE_BLOCK_BYTES`` / 8 at least). A file of one block is read in one, as rows in
    memory are: its fit is the in-memory fit bit for bit."""
    if math.isinf(nbytes) or nbytes <= CACHE_BLOCK_BYTES:
        return max(256, CACHE_BLOCK_BYTES // (8 * max(width, 1)))
    size = min(CACHE_BLOCK_BYTES, max(CACHE_BLOCK_BYTES // 8, int(min(nbytes * MEMMAP_BLOCK_SHARE, 1 << 62))))
    return max(256, size // (8 * (max(width, 1) + BLOCK_ROW_VECTORS)))


def take_rows(X: Any, rows: np.ndarray) -> Any:
    """X's rows at the indices ``rows``, copied, row-major: for a C-contiguous array numpy's take along the rows, the
    values fancy indexing X[rows] gives, about twice as fast on narrow rows (in a one-off timing, 100,000 evenly
    spaced rows of a 1,000,000 x 20 array in 6.3 ms against 11.6 ms; the same from 200 columns on). Any other array
    (a Fortran-order memmap, a strided view) by fancy indexing, which reads only those rows: numpy's take first
    makes the whole array C-contiguous, a copy of the whole file for a memmap. A sparse matrix's own row indexing."""
    if not isinstance(X, np.ndarray):
        return X[rows]
    if X.flags.c_contiguous:
        return np.take(X, rows, axis=0)
    return np.ascontiguousarray(X[rows])


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))


def _odd_weights(count: int, salt: int) -> np.ndarray:
    """``count`` fixed odd 64-bit weights (a splitmix64 sequence from ``salt``): public constants of the
    fingerprint, the same in every process."""
    x = (np.arange(count, dtype=np.uint64) + np.uint64(salt)) * _MIX[0]
    x = (x ^ (x >> np.uint64(30))) * _MIX[1]
    x = (x ^ (x >> np.uint64(27))) * _MIX[2]
    return (x ^ (x >> np.uint64(31))) | np.uint64(1)


def chunk_fingerprint(raw: Any) -> tuple[Any, ...]:
    """A fingerprint of a chunk's values: its dtype, its shape and sum_ij bits_ij u_j v_i mod 2^64, bits_ij the
    entry's bit pattern as an unsigned integer and u, v fixed odd weights (:func:`_odd_weights`); a dtype of
    another width (complex, text) by a BLAKE2b digest of its bytes.

    Integer addition and products mod 2^64 are exact, in any order: the same values give the same fingerprint
    whatever the chunk's memory layout, alignment or the order the sums run in (no false alarm), where a float sum
    may differ in its last bit. Each weight is odd, so invertible mod 2^64: a change of one entry always changes
    the fingerprint, and the weights of the positions differ, so moved rows or entries do too (but for changes
    cancelling mod 2^64 against these fixed weights: about one chance in 2^64 for a change not aimed at them). It
    costs about one product X @ w of the chunk (integer, no copy), where a cryptographic digest cost 4 to 10 of
    them (sha1 and blake2b measured on 10^6 x 10 rows: 98 and 212 ms, X @ w 23 ms)."""
    raw = np.asarray(raw)
    if raw.dtype.hasobject:  # values a check read as numbers (an object column of floats): compared as such
        raw = raw.astype(np.float64)
    if raw.ndim == 2 and raw.dtype.kind in "fiub" and raw.dtype.itemsize in (1, 2, 4, 8):
        bits = raw.view(f"u{raw.dtype.itemsize}")
        total = np.dot(np.dot(bits, _odd_weights(raw.shape[1], 1 << 40)), _odd_weights(raw.shape[0], 0))
        return raw.dtype.str, raw.shape, int(total)
    return raw.dtype.str, raw.shape, hashlib.blake2b(np.ascontiguousarray(raw).tobytes(), digest_size=16).digest()


def is_dask(X: Any) -> bool:
    """Whether X is a Dask array or DataFrame (its chunks computed by a scheduler, possibly on other machines)."""
    return type(X).__module__.split(".")[0] == "dask"


def is_out_of_core(X: Any) -> bool:
    """Whether X is read by blocks: a numpy.memmap or a Dask array or DataFrame."""
    return isinstance(X, np.memmap) or is_dask(X)


def _dask_array(X: Any) -> Any:
    """A Dask DataFrame as a Dask array with known row-chunk sizes (an array as it is)."""
    if hasattr(X, "to_dask_array"):
        return X.to_dask_array(lengths=True)
    return X


def by_row_blocks(X: Any, step: int, function: Callable[[Any], np.ndarray]) -> np.ndarray:
    """``function``'s values of X's rows ``step`` at a time from row 0, joined along the rows: a numpy array's blocks
    are its slices, a Dask input's are computed one at a time (by the active scheduler), so a prediction holds one
    block of X, never all of it. A NaN or infinite entry that ``function`` refuses in a block
    (:class:`~dpcvx.tables.NonFiniteError`) is named by its row in the whole of X. X is 2-D with a row
    (:func:`public_shape`)."""
    rows = _dask_array(X)
    parts = []
    for start in range(0, int(rows.shape[0]), step):
        block = rows[start:start + step]
        try:
            parts.append(function(block.compute() if is_dask(block) else block))
        except NonFiniteError as error:
            raise non_finite_error(error.name, start + error.row, error.column) from None
    return np.concatenate(parts)


def input_shape(X: Any) -> tuple[int, ...]:
    """X's shape as integers, read without a pass over the rows: a Dask DataFrame's row count (lazy in its own shape)
    from its partitions' lengths, as :class:`RowBlocks` reads it (:func:`_dask_array`); a Dask array of unknown row
    chunks refused as RowBlocks refuses it. Every fit that takes a Dask X reads its n here."""
    if not is_dask(X):
        return tuple(int(size) for size in np.shape(X))
    array = _dask_array(X)
    if any(np.isnan(size) for size in array.shape):
        raise InputError(UNKNOWN_CHUNKS)
    return tuple(int(size) for size in array.shape)


def public_shape(X: Any) -> tuple[int, int] | None:
    """(rows, columns) of X when its shape states them without a value being read (an array, a memmap, a sparse
    matrix, a table, a Dask input: :func:`input_shape`) and is 2-D with a row and a column; else None (a list, whose
    shape is its values'; an empty or 1-D X, which the conversion refuses)."""
    shape = input_shape(X) if hasattr(X, "shape") else ()
    return (int(shape[0]), int(shape[1])) if len(shape) == 2 and min(shape) >= 1 else None


def matrix_shape(X: Any) -> tuple[int, int]:
    """(rows, columns) of X: its :func:`public_shape`, the width a fit is planned and verified at before its rows are
    read; another X is converted, and refused as every fit refuses it (:func:`dpcvx.validation.check_matrix`)."""
    shape = public_shape(X)
    if shape is None:
        rows, columns = check_matrix(X).shape
        return int(rows), int(columns)
    return shape


@dataclass(frozen=True)
class BlockVector:
    """An n-vector of a Dask input as one persisted part per chunk (module docstring).

    ``key`` names how it was computed: two vectors with the same key hold the same
    numbers bitwise (the same operations on the same parts), which lets the solver
    recognise the margins a fused pass already used without comparing n numbers.
    """

    parts: tuple[Any, ...]
    sizes: tuple[int, ...]
    key: tuple[Any, ...]

    def apply(self, function: Callable[..., np.ndarray], *others: BlockVector, name: Any = None) -> BlockVector:
        """function(part, *others' parts) for each part, computed where the parts live."""
        import dask

        parts = dask.persist(*(dask.delayed(function)(*group)
                               for group in zip(self.parts, *(o.parts for o in others), strict=True)))
        key = (next(_KEYS) if name is None else name, self.key, *(o.key for o in others))
        return BlockVector(tuple(parts), self.sizes, key)

    def __add__(self, other: BlockVector) -> BlockVector:
        return self.apply(operator.add, other, name="+")

    def __rmul__(self, scale: float) -> BlockVector:
        if scale == 1.0:
            return self
        return self.apply(functools.partial(operator.mul, float(scale)), name=("*", float(scale)))

    def total(self, function: Callable[..., Any], *others: BlockVector | None) -> Any:
        """The sum of function(part, *others' parts) over the parts, in part order (one number per part comes back;
        a None of ``others`` gives None parts)."""
        import dask

        groups = zip(self.parts, *((None,) * len(self.parts) if o is None else o.parts for o in others), strict=True)
        return functools.reduce(operator.add, dask.compute(*(dask.delayed(function)(*group) for group in groups)))


_KEYS = itertools.count()  # a fresh key for each vector computed by a pass


class Recomputed:
    """An n-vector that is never held: a pass computes each block's part from the block as it reads it. Passes
    over a memmap take it as they take an array (:meth:`RowBlocks.map`, :meth:`RowBlocks.sum`,
    :meth:`RowBlocks.total`); a narrow memmap's margins are such vectors
    (:class:`dpcvx.solvers.blockwise.RowMargins`)."""

    def part(self, start: int, block: np.ndarray) -> np.ndarray:
        """The entries of rows start .. start + len(block), ``block`` those rows as mapped."""
        raise NotImplementedError


def _parts(vectors: tuple[Any, ...], start: int, block: np.ndarray) -> tuple[np.ndarray | None, ...]:
    """Each vector's part for the block of rows from ``start``: a slice, or computed (:class:`Recomputed`); None
    for a None vector (record weights a fit has not)."""
    stop = start + block.shape[0]
    return tuple(None if v is None else v.part(start, block) if isinstance(v, Recomputed) else v[start:stop]
                 for v in vectors)


class Shipped:
    """A function pickled once, then sent to the workers as those bytes in every task.

    The loss derivatives are generated functions: cloudpickle takes about 50 ms for
    each, and a pass has one task per chunk. Calls go to the function unchanged.
    """

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self._pickled: bytes | None = None

    def __call__(self, *args: Any) -> Any:
        return self.function(*args)

    def __reduce__(self) -> tuple[Any, tuple[bytes]]:
        if self._pickled is None:
            import cloudpickle  # a dependency of dask, which is in use whenever a task is pickled

            self._pickled = cloudpickle.dumps(self.function)
        return _unpickle, (self._pickled,)


def _unpickle(pickled: bytes) -> Callable[..., Any]:
    import pickle

    return pickle.loads(pickled)  # noqa: S301 - bytes this process pickled (Shipped.__reduce__)
# An n-vector: a numpy array, or a BlockVector for a Dask input. Typed Any: the solver uses both alike
# (+, a scalar multiple, the objective's methods), and PerturbedObjective's numpy signatures stay as they are.
Vector = Any


def elementwise(function: Callable[..., np.ndarray], z: Vector, *others: Vector) -> Vector:
    """function(z, *others) entry by entry: part by part where a :class:`BlockVector` lives."""
    if isinstance(z, BlockVector):
        return z.apply(function, *others)
    return function(z, *others)


def same_vector(a: Vector, b: Vector) -> bool:
    """Whether a and b hold the same numbers: by key for BlockVectors (:class:`BlockVector`), a
    :class:`Recomputed` vector only as itself, else compared."""
    if a is b:
        return True
    if isinstance(a, Recomputed) or isinstance(b, Recomputed):
        return False
    if isinstance(a, BlockVector) or isinstance(b, BlockVector):
        return isinstance(a, BlockVector) and isinstance(b, BlockVector) and a.key == b.key
    return bool(np.array_equal(a, b))


@dataclass
class RowBlocks:
    """Row blocks of a memmap or Dask input, mapped by ``rows`` when read (module docstring)."""

    source: Any
    rows: RowMap
    block_rows: int = 0  # rows per block of a memmap (0: cache-sized, :func:`cache_block_rows`)
    checked: bool = False  # the source holds mapped, checked float64 rows: blocks are its views
    intercept: bool = False  # checked rows but for the row map's intercept column, appended to each block read
    copied: bool = False  # the source is a temporary file of a memmap's mapped rows (:meth:`checked_blocks`)
    # a Dask source's chunk fingerprints from the validation pass (:func:`chunk_fingerprint`), one per block, that
    # every later read compares (:class:`~dpcvx.exceptions.SourceChangedError`); empty before it
    fingerprints: tuple[Any, ...] = field(default=(), repr=False)
    _bounds: list[tuple[int, int]] = field(init=False, repr=False)
    _width: int = field(init=False, repr=False)  # the mapped width (feature map and intercept)

    def __post_init__(self) -> None:
        if is_dask(self.source):
            self.source = _dask_array(self.source)
            if self.source.ndim != 2 or any(np.isnan(c) for c in self.source.chunks[0]):
                raise InputError(UNKNOWN_CHUNKS)
            if len(self.source.chunks[1]) != 1:
                self.source = self.source.rechunk({1: -1})  # whole rows per block
            edges = np.concatenate([[0], np.cumsum(self.source.chunks[0])]).astype(int)
            self._bounds = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
            if not self.fingerprints:  # the call's first validation pass checked these chunks: every read compares
                self.fingerprints = _known_fingerprints(self._source_key())
        else:
            if np.ndim(self.source) != 2:
                raise not_two_dimensional("X", np.shape(self.source))
            n = self.source.shape[0]
            if not self.block_rows:  # a mapped block is a copy, held with the next one: cache-sized (2 MB), so that
                # a fit whose default draws private ranges (rows mapped on every pass) holds two of them, not 8 MB
                self.block_rows = cache_block_rows(int(self.source.shape[1]), self.source.nbytes)
            self._bounds = [(a, min(a + self.block_rows, n)) for a in range(0, n, self.block_rows)]
        if not self._bounds:
            raise InputError("X is empty: at least one row is needed")
        self._width = (int(self.source.shape[1]) + self.intercept if self.checked
                       else self.rows.dimension(int(self.source.shape[1])))

    @classmethod
    def views(cls, X: np.ndarray, rows: RowMap) -> RowBlocks:
        """Row blocks of mapped, checked float64 rows (in memory, or a memmap that passed
        :meth:`validate` unchanged): cache-sized views, read with no check and no copy."""
        return cls(X, rows, cache_block_rows(X.shape[1]), checked=True)

    def coarser(self, factor: int) -> RowBlocks:
        """Views ``factor`` times as tall (checked rows only; else these blocks): for a compute-bound
        product such as the Hessian's syrk, whose efficiency grows with the block."""
        if not self.checked or self.intercept or self.copied:  # a mapped block is a copy: a taller one costs its
            return self  # memory; a copy's blocks stay those its rows were mapped by: the passes' sums as before
        return RowBlocks(self.source, self.rows, self.block_rows * factor, checked=True, fingerprints=self.fingerprints)

    def trusted(self, clipped: int) -> RowBlocks:
        """After :meth:`validate` found ``clipped`` rows: views of a float64 memmap the row map leaves as it
        is (no feature map, no row clipped), with the intercept column appended to each block as it is read
        (no second check: the validation pass read every row), the chunks of a Dask array the row map leaves
        as they are read with no second check, else these blocks.

        An estimator's fit (``fit_intercept=True``) on a 100,000 x 200 memmap re-checked and re-mapped every
        block on every pass before: RowMap.apply's sums of squares and a copy of the block each time."""
        source = self.source
        unmapped = self.rows.feature_map is None and clipped == 0
        if unmapped and isinstance(source, np.ndarray) and source.dtype == np.float64:
            if self.rows.fit_intercept:
                return RowBlocks(source, self.rows, cache_block_rows(int(source.shape[1]) + 1, source.nbytes),
                                 checked=True, intercept=True)
            return RowBlocks.views(source, self.rows)
        identity = unmapped and not self.rows.fit_intercept
        if identity and is_dask(source) and source.dtype == np.float64:  # the chunks as they are, not mapped: each
            # read compared with the validation pass's fingerprint, so the values are those it checked
            return RowBlocks(source, self.rows, checked=True, fingerprints=self.fingerprints)
        return self

    @property
    def on_dask(self) -> bool:
        """Whether these are a Dask array's chunks (each pass a task per chunk, where it lives)."""
        return is_dask(self.source)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, mapped features): the intercept column included."""
        return int(self.source.shape[0]), self._width

    def _raw(self, start: int, stop: int) -> np.ndarray:
        block = self.source[start:stop]
        if not is_dask(block):
            return np.asarray(block)
        raw = np.asarray(block.compute())
        if self.fingerprints:
            _compare(raw, start, stop, self.fingerprints[self._bounds.index((start, stop))])
        return raw

    def blocks(self, refuse: bool = False) -> Iterator[tuple[int, np.ndarray, int]]:
        """(first row, mapped block, rows clipped in it) for each block, in order, read here."""
        for start, stop in self._bounds:
            yield start, *self._block(start, stop, refuse)

    def _block(self, start: int, stop: int, refuse: bool = False) -> tuple[np.ndarray, int]:
        """(the mapped block of rows start..stop - 1, rows clipped in it), read here."""
        if self.checked:
            return self._appended(self._raw(start, stop)), 0
        return _checked_block(self._raw(start, stop), start, stop, int(self.source.shape[1]), self.rows, refuse)

    def _each(self, function: Callable[[int, np.ndarray], Any]) -> Iterator[Any]:
        """function(first row, mapped block) for each block, in order, read here: each block is let go when its
        call returns, before the next is read. A loop over :meth:`blocks` holds the block it last gave while the
        next is mapped, two blocks at once: a fit whose defaults map every block on every pass (a memmap with the
        private ranges' standardiser) held 2.2 MB more at its peak, 0.03 of a 80 MB file."""
        return (function(start, self._block(start, stop)[0]) for start, stop in self._bounds)

    def vector(self, values: np.ndarray) -> Vector:
        """An n-vector as passes take it: persisted parts where the chunks live (Dask), else ``values``."""
        if not is_dask(self.source):
            return values
        import dask

        parts = dask.persist(*(dask.delayed(np.array(values[a:b])) for a, b in self._bounds))
        return BlockVector(tuple(parts), tuple(b - a for a, b in self._bounds), (next(_KEYS),))

    def total(self, function: Callable[..., Any], z: Vector, *others: Vector) -> Any:
        """The sum of function(part of z, *its parts of ``others``) over the blocks, in block order (where z lives;
        a pass over the blocks for a :class:`Recomputed` z)."""
        if isinstance(z, BlockVector):
            return z.total(function, *others)
        if isinstance(z, Recomputed):
            return functools.reduce(operator.add, self._each(lambda start, block: function(*_parts((z, *others),
                                                                                                  start, block))))
        return functools.reduce(operator.add, (function(z[a:b], *(None if o is None else o[a:b] for o in others))
                                               for a, b in self._bounds))

    def map(self, function: BlockFunction, *vectors: Vector, keep: bool = False) -> Any:
        """[function(mapped block, *its parts of ``vectors``) for each block], in block order.

        For a Dask input every call is a task on its chunk, run by the active
        scheduler (module docstring); otherwise the blocks are read here. With
        ``keep``, function returns (an n_b-vector, a small result) and map returns
        (the n-vector of the first, a list of the second): for a Dask input a
        :class:`BlockVector` that stays on the workers.
        """
        if is_dask(self.source):
            return self._tasks(function, vectors, keep=keep)
        calls = self._each(lambda start, block: (start, function(block, *_parts(vectors, start, block))))
        if not keep:
            return [result for _, result in calls]
        # the n-vector filled block by block as the results come: never the blocks' parts and their join at once
        kept: np.ndarray | None = None
        small = []
        for start, (part, result) in calls:
            part = np.asarray(part)
            if kept is None:
                kept = np.empty(self.shape[0], dtype=part.dtype)
            kept[start:start + part.shape[0]] = part
            small.append(result)
        return kept, small

    def sum(self, function: BlockFunction, *vectors: Vector) -> Any:
        """The sum of function(mapped block, *its parts of ``vectors``) over the blocks, added in block order as
        :meth:`map` would give them; a memmap's results are added as they come, so one block's d x d Hessian
        term is held at a time, not one per block (12 MB at 100,000 x 200 rows in 4 MB blocks)."""
        if is_dask(self.source):
            return functools.reduce(operator.add, self._tasks(function, vectors))
        return functools.reduce(operator.add, self._each(lambda start, block: function(block,
                                                                                      *_parts(vectors, start, block))))

    def _tasks(self, function: BlockFunction, vectors: tuple[Vector, ...], keep: bool = False) -> Any:
        """One Dask task per chunk (compared with its fingerprint, mapped where it lives); computed together, or
        with ``keep`` persisted, only the second result of each coming back."""
        import dask

        width = int(self.source.shape[1])
        chunks = self._chunks()
        tasks = [dask.delayed(_block_task)(chunk, start, stop, width, None if self.checked else self.rows,
                                           self._fingerprint(i), function,
                                           *(v.parts[i] if isinstance(v, BlockVector)
                                             else None if v is None else v[start:stop] for v in vectors))
                 for i, (chunk, (start, stop)) in enumerate(zip(chunks, self._bounds, strict=True))]
        if not keep:
            return list(dask.compute(*tasks))
        done = dask.persist(*tasks)
        kept = dask.persist(*(dask.delayed(operator.getitem)(task, 0) for task in done))
        small = dask.compute(*(dask.delayed(operator.getitem)(task, 1) for task in done))
        return BlockVector(tuple(kept), tuple(b - a for a, b in self._bounds), (next(_KEYS),)), list(small)

    def _source_key(self) -> tuple[Any, ...]:
        """The Dask source's name (a token of its graph) and chunk bounds: the key of its fingerprints in the
        call's memo."""
        return "dask chunk fingerprints", self.source.name, tuple(self._bounds)

    def _fingerprint(self, block: int) -> Any:
        """The validation pass's fingerprint of the block (None before that pass)."""
        return self.fingerprints[block] if self.fingerprints else None

    def _chunks(self) -> list[Any]:
        """The Dask array's non-empty row chunks, as delayed objects (one per block)."""
        return [chunk for chunk, size in zip(self.source.to_delayed().ravel(), self.source.chunks[0], strict=True)
                if size > 0]

    def take(self, indices: np.ndarray) -> np.ndarray:
        """The mapped rows at ``indices`` (sorted): a subsample read without a pass over the data."""
        if is_dask(self.source):  # each chunk's rows picked where it lives: only they travel (no shuffle)
            import dask

            picks = [(chunk, a, b, indices[(indices >= a) & (indices < b)] - a, self._fingerprint(i))
                     for i, (chunk, (a, b)) in enumerate(zip(self._chunks(), self._bounds, strict=True))]
            raw = np.concatenate(dask.compute(*(dask.delayed(_picked_rows)(*pick) for pick in picks
                                                if pick[3].size)))
        elif self.intercept:  # read an eighth of a block at a time into the copy: no second copy of the subsample
            out, part = self._intercept_buffer(indices.size), self._part_rows()
            for a in range(0, indices.size, part):
                out[a:a + part, :-1] = take_rows(self.source, indices[a:a + part])
            return out
        elif not self.checked and self.rows.maps_rows_alone:  # mapped an eighth of a block at a time into the rows
            return self._mapped_rows(indices)  # returned: never the whole subsample raw beside them
        else:
            raw = take_rows(self.source, indices)
        if self.checked:
            return np.asarray(raw)
        return np.asarray(self.rows.apply(np.asarray(raw))[0])

    def _mapped_rows(self, indices: np.ndarray) -> np.ndarray:
        """The mapped rows at ``indices`` of a memmap whose row map maps each row alone, read and mapped a part at a
        time into one row-major array: the rows :meth:`RowMap.apply` gives the whole subsample, bit for bit (each
        row's map, norm and clipping factor are functions of that row alone), without the subsample's raw copy
        held beside its mapped one (2 MB more at the peak of a fit with the defaults' standardiser: a Hessian's
        sample is read a cache block at a time)."""
        part = self._part_rows()
        out = np.empty((indices.size, self._width))
        for a in range(0, indices.size, part):
            out[a:a + part] = self.rows.apply(take_rows(self.source, indices[a:a + part]))[0]
        return out

    def _part_rows(self) -> int:
        """Rows of a subsample read at a time into the rows :meth:`take` returns: an eighth of a block, so that the
        raw rows read (a copy, whatever the file) add an eighth of a block to the peak, not a block (a Hessian's
        sample of a memmap with the intercept column held 2 MB of raw rows beside its 2 MB copy: 0.06 of a 32 MB
        file)."""
        return max(1, self.block_rows // 8)

    def _appended(self, block: np.ndarray) -> np.ndarray:
        """A checked block as the solver reads it: with the intercept column appended, or as it is."""
        if not self.intercept:
            return block
        out = self._intercept_buffer(block.shape[0])
        out[:, :-1] = block
        return out

    def _intercept_buffer(self, rows: int) -> np.ndarray:
        """``rows`` mapped rows to fill, the intercept column s set: row-major, as RowMap.apply makes them (the
        same layout, and so the same products bit for bit, as a re-mapped block)."""
        out = np.empty((rows, self._width))
        out[:, -1] = self.rows.intercept_scaling
        return out

    def checked_blocks(self, refuse: bool) -> tuple[RowBlocks, int]:
        """(the blocks the solver's passes read, the rows clipped (private)) after one validation pass
        (:meth:`validate`): :meth:`trusted` blocks, or for a memmap whose blocks would be mapped on every pass
        (a feature map, a dtype other than float64, a row clipped) the mapped rows written once to a temporary
        file and read as views of it (:meth:`_mapped_copy`; module docstring), with the same block bounds, so
        that every pass adds the same numbers in the same order as when each block was mapped again."""
        if not isinstance(self.source, np.memmap):
            clipped = self.validate(refuse)
            return self.trusted(clipped), clipped
        if self.rows.feature_map is not None or self.source.dtype != np.float64:  # mapped on every pass: copied
            return self._mapped_copy(refuse)  # in the validation pass
        clipped = self.validate(refuse)
        blocks = self.trusted(clipped)
        if blocks is not self:  # views, the intercept column appended or not
            return blocks, clipped
        return self._mapped_copy(refuse)[0], clipped  # rows clipped: mapped once more, into the copy

    def mapped_copy(self) -> RowBlocks:
        """For rows :meth:`validate` checked already, a memmap's, these blocks read as views of their mapped rows
        written once to a temporary file, the same bounds (:meth:`_mapped_copy`): for a loop that reads every block
        many times (DPLinearRegression's descent); these blocks themselves where that file cannot be written, or
        when they are not a memmap's."""
        if not isinstance(self.source, np.memmap) or self.checked:
            return self
        return self._mapped_copy(refuse=False)[0]

    def _mapped_copy(self, refuse: bool) -> tuple[RowBlocks, int]:
        """The validation pass (:meth:`validate`) writing each mapped block to a temporary file, then (those rows
        read as checked views of the file, the rows clipped). These blocks and the rows clipped where the file
        cannot be written (no space: ``OSError``) or a mapped block is not row-major (as views of the copy
        are), where the passes map every block as before. The file is unnamed (``tempfile.TemporaryFile``):
        closed here, it lives as long as the views' mapping and no longer, whatever error ends the fit."""
        clipped, file = 0, _scratch_file()
        try:
            for start, stop in self._bounds:
                block, count = self._block(start, stop, refuse)
                clipped += count
                if file is not None and not (block.dtype == np.float64 and block.flags.c_contiguous
                                             and block.shape == (stop - start, self._width)):
                    file.close()
                    file = None
                if file is not None:
                    try:
                        file.write(block.data.cast("B"))
                    except OSError:
                        file.close()
                        file = None
                del block  # let go before the next block is mapped (:meth:`_each`)
            if file is None:
                return self, clipped
            try:
                file.flush()
                copy = np.memmap(file, dtype=np.float64, mode="r", shape=self.shape)
            except (OSError, ValueError):  # (ValueError: a file shorter than the rows, if a write fell short)
                return self, clipped
        finally:
            if file is not None:
                file.close()  # the mapping keeps what it maps
        return RowBlocks(copy, self.rows, self.block_rows, checked=True, copied=True), clipped

    def validate(self, refuse: bool) -> int:
        """One pass over the data: every check of the data contract; returns the rows clipped (private). A Dask
        source's chunks are all checked, their refusals compared by block (the lowest-indexed failing block's is
        raised, whichever task failed first), and their fingerprints kept for the later reads."""
        if is_dask(self.source):
            import dask

            width = int(self.source.shape[1])
            outcomes = dask.compute(*(dask.delayed(_validation_task)(chunk, start, stop, width, self.rows, refuse)
                                      for chunk, (start, stop) in zip(self._chunks(), self._bounds, strict=True)))
            for outcome in outcomes:
                if isinstance(outcome, InputError):
                    raise outcome
            fingerprints = tuple(fingerprint for _, fingerprint in outcomes)
            if self.fingerprints:  # another fit of this call checked the chunks first: they must hold its values
                for (start, stop), known, seen in zip(self._bounds, self.fingerprints, fingerprints, strict=True):
                    if known != seen:
                        raise source_changed(start, stop)
            self.fingerprints = fingerprints
            memo = call_memo()
            if memo is not None:
                memo[self._source_key()] = fingerprints
            return int(sum(clipped for clipped, _ in outcomes))
        return sum(self._block(start, stop, refuse)[1] for start, stop in self._bounds)  # each block let go (_each)


def _checked_block(raw: Any, start: int, stop: int, width: int, rows: RowMap,
                   refuse: bool) -> tuple[np.ndarray, int]:
    """The data contract of one block (shape, finite values, norm bound) and its mapped rows.

    RowMap.apply checks the values (finite, then the norm bound) from the block's row sums of squares,
    which it also clips by: one read of the block, where a finite check here, the input check's sum and
    the norms made three (the validation pass over a 300,000 x 500 memmap: 0.067 s instead of 0.155 s,
    one BLAS thread). A NaN or infinity of a block (of X or of the feature map's output), and with ``refuse`` its
    first row beyond the norm bound, are named by their row in the whole input; the first is the
    :class:`~dpcvx.tables.NonFiniteError` of :func:`~dpcvx.tables.non_finite_error`, the one refusal that an
    ndarray, a table or a sparse X gets (a memmap or Dask X got a plain InputError in other words).
    """
    raw = np.asarray(raw)
    if raw.ndim != 2 or raw.shape != (stop - start, width):
        raise InputError(f"rows {start}..{stop - 1} of X have shape {raw.shape}, not "
                         f"({stop - start}, {width}): mismatched chunks")
    try:
        mapped, clipped = rows.apply(raw, refuse=refuse)
    except NonFiniteError as error:  # X's or the feature map's entry, by its row in the whole input, in the one words
        raise non_finite_error(error.name, start + error.row, error.column) from None
    except NormBoundError as error:  # the block's first row beyond R, named in the whole input
        where = f"in rows {start}..{stop - 1} of X: "
        raise NormBoundError(error.count, start + error.row, error.norm_bound, where) from None
    except InputError as error:
        raise _within(error, start, stop) from None
    return np.asarray(mapped), clipped


def _scratch_file() -> Any:
    """An unnamed temporary file for a memmap's mapped rows (:meth:`RowBlocks.checked_blocks`), in
    ``tempfile.gettempdir()``; None where none can be made."""
    try:
        return tempfile.TemporaryFile(prefix="dpcvx-rows-")
    except OSError:
        return None


def _within(error: InputError, start: int, stop: int) -> InputError:
    """The error of one block, saying which rows its row numbers count from."""
    return InputError(f"in rows {start}..{stop - 1} of X (row numbers below are within that "
                      f"block, counted from {start}): {error}")


def _known_fingerprints(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """The fingerprints of the chunks ``key`` names that a validation pass of the running call kept (:func:`call_memo`),
    or none."""
    memo = call_memo()
    return () if memo is None else memo.get(key, ())


def source_changed(start: int, stop: int) -> SourceChangedError:
    """The refusal of a Dask chunk, rows start..stop - 1, whose values differ from those its call's validation
    pass checked: the cause, the fix, and what became of the budget."""
    return SourceChangedError(
        f"rows {start}..{stop - 1} of X computed other values than in the validation pass that checked them: a "
        "Dask X must compute the same values on every pass (persist it with X = X.persist(), or seed its "
        "randomness; a store must not be written during the fit). Nothing was released. If the fit had charged "
        "its budget before this pass (the solvers of PrivateERM, DPLogisticRegression and DPHuberRegressor do, "
        "before their passes), the charge stands, as the conservative choice; the event is covered by no privacy "
        "proof (the rows are not one data set), so do not publish anything of this fit")


def _compare(raw: np.ndarray, start: int, stop: int, fingerprint: Any) -> None:
    """Refuse a chunk whose values differ from those the validation pass checked (its ``fingerprint``; None:
    nothing to compare), before any of them is used."""
    if fingerprint is not None and chunk_fingerprint(raw) != fingerprint:
        raise source_changed(start, stop)


def _validation_task(raw: Any, start: int, stop: int, width: int, rows: RowMap,
                     refuse: bool) -> tuple[int, Any] | InputError:
    """One Dask task of the validation pass: (rows clipped, the chunk's fingerprint), or the chunk's refusal
    returned, not raised, so that the pass can raise the lowest-indexed block's (:meth:`RowBlocks.validate`)."""
    raw = np.asarray(raw)
    try:
        clipped = _checked_block(raw, start, stop, width, rows, refuse)[1]
    except InputError as error:
        return error
    return clipped, chunk_fingerprint(raw)


def _block_task(raw: Any, start: int, stop: int, width: int, rows: RowMap | None, fingerprint: Any,
                function: BlockFunction, *slices: np.ndarray) -> Any:
    """One Dask task of a pass after the validation: compare the chunk with its fingerprint, map it where it
    lives (``rows`` None: the chunk as it is, :meth:`RowBlocks.trusted`; else clipped again), then apply
    ``function``."""
    raw = np.asarray(raw)
    _compare(raw, start, stop, fingerprint)
    mapped = raw if rows is None else _checked_block(raw, start, stop, width, rows, False)[0]
    return function(mapped, *slices)


def _picked_rows(raw: Any, start: int, stop: int, pick: np.ndarray, fingerprint: Any) -> np.ndarray:
    """The rows ``pick`` of a chunk (:meth:`RowBlocks.take`), compared with its fingerprint first."""
    raw = np.asarray(raw)
    _compare(raw, start, stop, fingerprint)
    return raw[pick]


def as_row_blocks(X: Any, rows: RowMap) -> RowBlocks:
    """X as row blocks (see :func:`is_out_of_core`)."""
    return RowBlocks(X, rows)
