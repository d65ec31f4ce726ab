"""The perturbed objective over row blocks: exact Newton on inputs larger than memory.

:class:`BlockwiseObjective` is :class:`~dpcvx.solvers.objective.PerturbedObjective`
with every product with X computed block by block over a
:class:`~dpcvx.data.blocks.RowBlocks`. Nothing of X is held but one block;
the gradient and the d x d Hessian are accumulated over the blocks
(X^T diag(l'') X = sum_b X_b^T diag(l''_b) X_b). Newton's method
(:func:`dpcvx.solvers.linear.newton`) runs on it unchanged: the same public
gradient bound, the same optimality check in double precision, and so the
same approximate-minimiser cover.

Passes. The step's pass computes the margins at the full step afresh, X (w + d)
(the margin change per unit step is their difference from z: one product, as
X d was), and the loss gradient there (``margin_change``). When
Newton takes the full step, as it does near the optimum, the next
gradient costs no pass (nor, where its slope proves the decrease, F's value:
:func:`dpcvx.solvers.linear._slope_descends`), and those margins are bitwise the ones
:meth:`BlockwiseObjective.margins` gives at w + d (the same blocks, the same
operations, in the same order), so the final check on fresh margins needs no
pass of its own either (:meth:`BlockwiseObjective.full_step_margins`). For a
Dask input the full-step margins are z + X d, formed on the workers (the fresh
ones would be a second n-vector there, for a pass saved once per solve).
A full Hessian is one more pass, except the one Newton asks ahead
(:attr:`BlockwiseObjective.hessian_ahead`): the step's pass forms it at the full
step from the blocks in cache (:class:`_AheadGram`), bitwise the one its own
pass would give there.

Record weights. A fit with ``weights`` (s_i in [0, w_max]: ``sample_weight``, ``class_weight``) hands each
block its part of them beside its labels, and every block's l, l' and l'' is weighed by the functions the
objective of the rows in memory uses (:func:`~dpcvx.solvers.objective.weighted`,
:func:`~dpcvx.solvers.objective.record_curvature`, :func:`~dpcvx.solvers.objective.weighted_squares`; docs/theory.md,
section 23). Not on Dask (refused before the charge: :meth:`dpcvx.solvers.choice.SolverChoice.check`).

Memory. A memmap narrower than ``KEPT_MIN_DIM`` columns keeps no n-vector: its margins are
:class:`RowMargins`, recomputed by each pass from the block it reads, so a solve holds one block, the
labels (one bit a row, :class:`~dpcvx.validation.SignBits`) and the d x d Hessian; wider inputs and rows in memory
keep theirs. Record weights are one float64 n-vector more (8 bytes a row), held in memory for the whole solve.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data.blocks import (
    Recomputed,
    RowBlocks,
    Shipped,
    Vector,
    cache_block_rows,
    elementwise,
    is_out_of_core,
    same_vector,
)
from ..progress import NoProgress, Progress
from .objective import (
    PerturbedObjective,
    _gram_upper,
    block_hessian_product,
    block_margins,
    block_margins_and_gradient,
    evenly_spaced,
    hessian_sample_size,
    mean_sample,
    record_curvature,
    row_product,
    transposed_product,
    weighted,
    weighted_squares,
    zero_margins,
)

__all__ = ["BlockwiseObjective", "RowMargins", "KEPT_MIN_DIM"]

SYRK_BLOCKS = 8  # an all-rows Hessian reads in-memory rows 8 cache blocks at a time (BLAS runs faster on tall blocks)
KEPT_MIN_DIM = 100  # a memmap narrower than this keeps no n-vector: its margins are recomputed (RowMargins)


@dataclass(frozen=True, eq=False)
class RowMargins(Recomputed):
    """The margins z = y (X a) at a point a (the residuals X a - y of a regression), or with ``change`` their change
    per unit step along a, y (X a) (X a for a regression): never held, each block's part computed as a pass reads the
    block.

    A solve over a memmap narrower than ``KEPT_MIN_DIM`` columns holds these in place of its n-vectors. Newton
    keeps about eight float64 n-vectors (margins at w and at the full step, their change, the offset's margins,
    the line search's temporaries), 64 bytes a row against the row's 8 d: beyond a tenth of the file below
    d = 80 (on a 160 MB file: 0.42 of it at 1,000,000 x 20, 0.17 at 400,000 x 50, 0.08 at 200,000 x 100;
    benchmarks/results/input_memory_session11_after.md). Recomputed, each margin costs its block's product
    again, in the pass that reads the block for the gradient, the Hessian or F's value; the margins Newton adds,
    z(w) + t dz(d), are z(w + t d), Newton's next point, computed afresh (the same w + t d to the bit)."""

    point: np.ndarray
    blocks: RowBlocks
    labels: np.ndarray
    regression: bool
    change: bool = False

    def part(self, start: int, block: np.ndarray) -> np.ndarray:
        return self.at(block, slice(start, start + block.shape[0]))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """The n values, by one pass over the blocks (for a test or a caller that needs them all; a solve never
        asks)."""
        values = np.concatenate([self.part(start, block) for start, block, _ in self.blocks.blocks()])
        return values if dtype is None else values.astype(dtype)

    def at(self, block: np.ndarray, rows: slice | np.ndarray) -> np.ndarray:
        """The entries of ``rows``, ``block`` those rows as mapped (:func:`block_margins`, or the change)."""
        y = self.labels[rows]
        if self.signed_zeros:  # X 0 = 0 needs no product (the cold start): the same margins up to the sign of zero
            return zero_margins(y, self.regression)
        if not self.change:
            return block_margins(block, self.point, y, self.regression)
        product = row_product(block, self.point)
        return product if self.regression else y * product

    @property
    def signed_zeros(self) -> bool:
        """Whether these are the margins y * 0 of a margin loss at a = 0, all +0 or -0 (:func:`_at_signed_zeros`)."""
        return not self.change and not self.regression and not np.any(self.point)

    def __add__(self, other: Any) -> Any:
        """z(a) + dz(b) = z(a + b): the margins at a plus a change along b are the margins at a + b (anything else
        is added to the values)."""
        if not isinstance(other, RowMargins):
            return NotImplemented
        assert not self.change and other.change, "margins plus a change"
        return RowMargins(self.point + other.point, self.blocks, self.labels, self.regression)

    def __rmul__(self, scale: float) -> RowMargins:
        assert self.change, "a change per unit step scales"
        return RowMargins(scale * self.point, self.blocks, self.labels, self.regression, change=True)


@dataclass
class BlockwiseObjective(PerturbedObjective):
    """F = n J_b with X read in row blocks (``blocks``); ``X`` is unused (an empty placeholder)."""

    y: Vector  # the labels: of a memmap or Dask X one bit a row (:class:`~dpcvx.validation.SignBits`), read by parts
    blocks: RowBlocks | None = None
    passes: int = 0  # passes over the data so far (for progress only; never released)
    bar: Progress = field(default_factory=NoProgress)  # the passes when asked (their count follows the data)
    _fused: tuple[Vector, np.ndarray] | None = None  # (full-step margins, their loss gradient)
    _fresh: bool = False  # the full-step margins of _fused are X (w + d) computed afresh (not z + X d)
    _y: Vector | None = None  # the labels as the blocks hold them
    _s: Vector | None = None  # the record weights as the blocks hold them (None without weights)
    _zero: np.ndarray | None = None  # the margins at w = 0 of a margin loss, all +-0 (:func:`_at_signed_zeros`)
    _kept: tuple[int, np.ndarray | None] | None = None  # the Hessian subsample (:meth:`_sample_rows`)
    hessian_ahead: bool = False  # the next step's pass forms the all-rows Hessian at its full step (set by newton)
    _ahead: tuple[Vector, np.ndarray] | None = None  # (those margins, the float32 loss Hessian there)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self._blocks().on_dask:  # the derivatives go to the workers in every task
            self.loss = dataclasses.replace(self.loss, **{name: Shipped(getattr(self.loss, name))
                                                          for name in ("value", "first", "second")})

    def _blocks(self) -> RowBlocks:
        assert self.blocks is not None, "a BlockwiseObjective needs its row blocks"
        return self.blocks

    @property
    def unkept(self) -> bool:
        """Whether the margins are recomputed, never held (:class:`RowMargins`): a memmap narrower than
        ``KEPT_MIN_DIM`` columns (public: the input's kind and width)."""
        return isinstance(self._blocks().source, np.memmap) and self.dim < KEPT_MIN_DIM

    def _gram_blocks(self) -> RowBlocks:
        """The blocks an all-rows Hessian reads: ``SYRK_BLOCKS`` cache blocks at a time (:meth:`RowBlocks.coarser`),
        but cache blocks where no n-vector is held (:attr:`unkept`), whose scaled copy would weigh more than
        one."""
        return self._blocks() if self.unkept else self._blocks().coarser(SYRK_BLOCKS)

    def _ahead_gram(self) -> _AheadGram:
        """The buffer in which a step's pass forms the all-rows Hessian ahead (:attr:`hessian_ahead`): as tall as
        :meth:`hessian`'s blocks (:meth:`_gram_blocks`), or all n rows when fewer."""
        return _AheadGram(min(self._gram_blocks().block_rows, self.n), self.dim, self.loss.second)

    @property
    def _offset_wanted(self) -> np.ndarray | None:
        """The offset's margins are an n-vector: not computed where none is held (:attr:`unkept`)."""
        return None if self.unkept else super()._offset_wanted

    @property
    def n(self) -> int:
        return self._blocks().shape[0]

    @property
    def dim(self) -> int:
        return self._blocks().shape[1]

    @property
    def can_subsample(self) -> bool:
        """Never for a Dask input: there every Newton iteration costs a round trip to the workers, so
        fewer iterations from all-rows Hessians beat more from subsampled ones (measured on 400,000 x 50:
        6 iterations instead of 13, 1.6 s instead of 2.2 s even on the local scheduler)."""
        return super().can_subsample and not self._blocks().on_dask

    def every(self, margins: Any, step: int) -> np.ndarray | None:
        """Every ``step``-th row's margins; recomputed margins (:class:`RowMargins`) from those rows, read alone
        (:meth:`RowBlocks.take`, no pass)."""
        if not isinstance(margins, RowMargins):
            return super().every(margins, step)
        rows = np.arange(0, self.n, step)
        return margins.at(self._blocks().take(rows), rows)

    def _mean_rows(self, precise: bool) -> list[np.ndarray]:
        """The rows of :meth:`PerturbedObjective.mean_preconditioner` (:func:`mean_sample`), read alone
        (:meth:`RowBlocks.take`, no pass)."""
        sample = np.concatenate([np.arange(rows.start, min(rows.stop, self.n))
                                 for rows in mean_sample(self.n, self.dim, precise)])
        return [self._blocks().take(sample)]

    def _sample_rows(self) -> tuple[int, np.ndarray | None]:
        """The size of the Hessian subsample of evenly spaced rows (:func:`evenly_spaced`), read directly (no pass),
        and for rows in memory their float32 copy, filled a cache block at a time; None for a memmap, whose sampled
        rows :meth:`_sample_gram` reads again by blocks for each Hessian: no copy of the sample is held (8 MB for
        10,000 rows at d = 200, beside the 12 MB a default estimator's fit on a 100,000 x 200 memmap grows by), nor
        its row indices (computed a block at a time)."""
        if self._kept is None:
            size = hessian_sample_size(self.n, self.dim)
            blocks, kept = self._blocks(), None
            if not is_out_of_core(blocks.source):
                kept = np.empty((size, self.dim), np.float32)
                step = cache_block_rows(self.dim)
                for a in range(0, size, step):
                    kept[a:a + step] = blocks.take(evenly_spaced(self.n, size, slice(a, a + step)))
            self._kept = (size, kept)
        return self._kept

    def _sample_gram(self, z: np.ndarray | RowMargins) -> np.ndarray:
        """(n / m) sum over the m sampled rows of l''(z_i) x_i x_i^T in float32 (upper triangle at least): one
        Gram product of the kept sample scaled (:func:`_scaled_gram`), or for a memmap's sample one per cache block
        of it read again, scaled into one buffer and added in row order."""
        size, kept = self._sample_rows()
        step = self._blocks().block_rows if kept is None else size
        scratch: list[np.ndarray] = []

        def term(a: int) -> np.ndarray:
            index = evenly_spaced(self.n, size, slice(a, a + step))
            block = self._blocks().take(index) if kept is None else kept[a:a + step]
            margins = z.at(block, index) if isinstance(z, RowMargins) else z[index]
            return _scaled_gram(block, np.sqrt(self._second(margins, index) * (self.n / size)), True, scratch)

        return functools.reduce(operator.add, (term(a) for a in range(0, size, step))).astype(np.float64)

    def _pass(self) -> None:
        self.passes += 1
        self.bar.update()

    def _labels(self) -> Vector:
        """y as the blocks hold it (on the workers for a Dask input: sent once per solve)."""
        if self._y is None:
            self._y = self._blocks().vector(self.y)
        return self._y

    def _weights(self) -> Vector | None:
        """The record weights s as the blocks hold them (the n-vector itself but on Dask, which refuses weights;
        None without weights): each pass hands a block its part beside its labels."""
        if self._s is None and self.weights is not None:
            self._s = self._blocks().vector(self.weights)
        return self._s

    def margins(self, w: np.ndarray) -> Vector:
        """z = y X w (or X w - y), and in the same pass the loss gradient at z (module docstring); with
        :attr:`unkept`, the margins at w recomputed by the passes that read them (no pass here)."""
        if self.unkept:
            return RowMargins(w, self._blocks(), self._labels(), self.regression)
        if not np.any(w):  # X 0 = 0 needs no pass (the cold start): the same margins up to the sign of zero
            zero = elementwise(functools.partial(zero_margins, regression=self.regression), self._labels())
            if not self.regression and isinstance(zero, np.ndarray):
                self._zero = zero
            return zero
        self._pass()
        regression, first_derivative = self.regression, self.loss.first

        def step(block: np.ndarray, y: np.ndarray, s: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
            return block_margins_and_gradient(block, y, w, first_derivative, regression, s)

        z, parts = self._blocks().map(step, self._labels(), self._weights(), keep=True)
        self._fused, self._fresh = (z, _sum(parts)), False
        return z

    def margin_change(self, direction: np.ndarray) -> Vector:
        """How the margins move per unit step along d, and in the same pass the margins and loss gradient
        at the full step w + d (module docstring). After a gradient at w (its margins z) the one product
        is X (w + d), the change its difference from z (:meth:`PerturbedObjective.margin_change`); on Dask, X d.
        With :attr:`hessian_ahead` (asked for this pass only) and X (w + d) afresh, also the all-rows float32
        loss Hessian there (:class:`_AheadGram`), which :meth:`hessian` then takes without a pass."""
        if self.unkept:
            return self._recomputed_change(direction)
        self._pass()
        regression, first_derivative = self.regression, self.loss.first
        base = self._base
        fresh = base is not None and not self._blocks().on_dask
        target = direction if base is None else base[0] + direction  # bitwise Newton's w + 1.0 * d (when fresh)
        offset = None if self._blocks().on_dask else self._offset_wanted
        ahead = self._ahead_gram() if fresh and self.hessian_ahead else None
        self.hessian_ahead = False

        if base is not None and base[1] is not self._zero:
            self._zero = None  # the cold start's margins are left behind: n floats the rest of the solve never reads
        # the full-step margins and the offset's margins written into their n-vectors block by block (rows in memory
        # or a memmap, whose blocks come in order), not kept per block and then joined (a second n-vector each)
        full_out = np.empty(self.n) if fresh else None
        moved_out = None if offset is None else np.empty(self.n)
        rows = [0]  # the next block's first row

        def step(block: np.ndarray, y: np.ndarray, s: np.ndarray | None,
                 *margins: np.ndarray) -> tuple[np.ndarray, Any]:
            a = rows[0]
            rows[0] = b = a + block.shape[0]
            # the offset's margins (PerturbedObjective.offset) while the block is in cache: the first step's pass
            # over rows in memory or a memmap (not Dask)
            if moved_out is not None and offset is not None:
                moved_out[a:b] = row_product(block, offset)
            if full_out is not None:  # X (w + d) afresh, and the change from z (one product, as X d would be)
                full = full_out[a:b]
                full[:] = block_margins(block, target, y, regression)
                change = full - margins[0]
                if ahead is not None:
                    ahead.add(block, full, s)
            else:
                change = row_product(block, direction) if regression else y * row_product(block, direction)
                if not margins:
                    return change, None
                full = margins[0] + change
            first = weighted(first_derivative(full), s)
            return change, block.T @ (first if regression else y * first)

        change, parts = self._blocks().map(step, self._labels(), self._weights(),
                                           *(() if base is None else (base[1],)), keep=True)
        if moved_out is not None:
            self._keep_offset(moved_out)
        self._fused, self._fresh, self._ahead = None, False, None
        if base is not None:
            full = full_out if full_out is not None else base[1] + change
            self._fused = (full, _sum(parts))
            self._fresh = fresh
            if ahead is not None:
                self._ahead = (full, ahead.total())
        return change

    def _recomputed_change(self, direction: np.ndarray) -> RowMargins:
        """:meth:`margin_change` with :attr:`unkept`: the change is recomputed (:class:`RowMargins`), and the step's
        pass computes the loss gradient (and the Hessian asked ahead) at the full step, on its margins afresh."""
        labels, regression, first_derivative = self._labels(), self.regression, self.loss.first
        change = RowMargins(direction, self._blocks(), labels, regression, change=True)
        self._fused, self._fresh, self._ahead, asked = None, False, None, self.hessian_ahead
        self.hessian_ahead = False
        if self._base is None:
            return change
        ahead = self._ahead_gram() if asked else None
        self._pass()
        target = self._base[0] + direction  # bitwise Newton's w + 1.0 * d
        full = RowMargins(target, self._blocks(), labels, regression)

        def step(block: np.ndarray, y: np.ndarray, s: np.ndarray | None) -> np.ndarray:
            margins, term = block_margins_and_gradient(block, y, target, first_derivative, regression, s)
            if ahead is not None:
                ahead.add(block, margins, s)
            return term

        self._fused, self._fresh = (full, self._blocks().sum(step, labels, self._weights())), True
        if ahead is not None:
            self._ahead = (full, ahead.total())
        return change

    def full_step_margins(self) -> Vector | None:
        """The margins at w + d of the last step's pass when computed afresh (bitwise ``margins(w + d)``), else
        None."""
        return self._fused[0] if self._fresh and self._fused is not None else None

    def full_step_gradient_terms(self, w_next: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """The gradient terms at w_next = w + d on the fresh margins of the last step's pass (no pass), or None."""
        margins = self.full_step_margins()
        return None if margins is None else self.gradient_terms(w_next, margins)

    def _block_loss(self, z: Vector | None = None) -> Callable[[np.ndarray, np.ndarray | None], float]:
        """sum s l(z) over one block's margins and record weights (a task's function: module level, the loss
        shipped once); l at the two signed zeros only when ``z`` are the margins at w = 0
        (:func:`_at_signed_zeros`)."""
        return functools.partial(_loss_sum, value=self._at(self.loss.value, z))

    def _at(self, function: Callable[[np.ndarray], np.ndarray], z: Vector | None) -> Callable[[np.ndarray], Any]:
        """``function`` of the loss, or, on the margins at w = 0 of a margin loss, the same values from its two
        evaluations at +0 and -0 (:func:`_at_signed_zeros`)."""
        if z is None or (z is not self._zero and not (isinstance(z, RowMargins) and z.signed_zeros)):
            return function
        return functools.partial(_at_signed_zeros, values=function(np.array([0.0, -0.0])))

    def _loss_total(self, z: Vector) -> float:
        """sum_i s_i l(z_i) as block sums added in block order, computed where z lives (no pass over X), and only
        when Newton's line search asks for F's value (:func:`dpcvx.solvers.linear._slope_descends`); a pass over X
        for margins recomputed (:attr:`unkept`)."""
        if isinstance(z, RowMargins):
            self._pass()
        return float(self._blocks().total(self._block_loss(z), z, self._weights()))

    def _change_squares(self, change: Any) -> float | None:
        """sum_i s_i dz_i^2, by a pass over X for a recomputed change (:class:`RowMargins`: dz_i^2 = (x_i . d)^2):
        asked only where the step overshoots, in place of the two passes of F's values at both ends."""
        if not isinstance(change, RowMargins):
            return super()._change_squares(change)
        self._pass()

        def squares(block: np.ndarray, s: np.ndarray | None) -> float:
            product = row_product(block, change.point)
            return float(np.sum(np.square(product))) if s is None else weighted_squares(product, s)

        return float(self._blocks().sum(squares, self._weights()))

    def _loss_gradient(self, z: Vector) -> np.ndarray:
        """X^T (y l'(z)): from the step's pass when z are its full-step margins, else one pass."""
        fused = self._fused
        if fused is not None and same_vector(fused[0], z):
            return fused[1].copy()
        self._pass()
        regression, first_derivative = self.regression, self._at(self.loss.first, z)

        def step(block: np.ndarray, y: np.ndarray, margins: np.ndarray, s: np.ndarray | None) -> np.ndarray:
            first = weighted(first_derivative(margins), s)
            return transposed_product(block, first if regression else y * first)  # read from memory

        return self._blocks().sum(step, self._labels(), z, self._weights())

    def gradient_terms(self, w: np.ndarray, margins: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        z = self.margins(w) if margins is None else margins
        self._base = (w, z)
        return self._terms(w, self._loss_gradient(z))

    def hessian(self, w: np.ndarray, margins: np.ndarray | None = None, *,
                single: bool = False, subsample: bool = False) -> np.ndarray:
        """Upper triangle of sum_b X_b^T diag(l''_b) X_b + n Lam (alpha I + M) + n Delta I, or the subsample's.

        Each block's term is one Gram product of the block scaled by sqrt(l''), in single
        precision when ``single`` (a float32 copy of one block at a time); in single precision at the margins of
        the last step's pass that formed it ahead (:attr:`hessian_ahead`), that one, with no pass.
        """
        z = self.margins(w) if margins is None else margins
        if subsample and self.can_subsample:  # never on Dask: z is in memory
            return self._regularized(self._sample_gram(z))
        if single and self._ahead is not None and same_vector(self._ahead[0], z):
            return self._regularized(self._ahead[1].astype(np.float64))
        self._pass()
        blocks = self._gram_blocks()
        scratch: list[np.ndarray] | None = None if blocks.on_dask else []  # a task's block is scaled on its worker
        gram = functools.partial(_weighted_gram, single=single, second=self.loss.second, scratch=scratch)
        return self._regularized(blocks.sum(gram, z, self._weights()).astype(np.float64))

    def fresh_gradient_terms(self, w: np.ndarray) -> tuple[Vector, tuple[np.ndarray, ...]]:
        """(margins at w afresh, the gradient there): :meth:`margins` computes both in its one pass."""
        margins = self.margins(w)
        return margins, self.gradient_terms(w, margins)

    @property
    def steps_from_products(self) -> bool:
        """False: the step's pass (:meth:`margin_change`) also computes the gradient at the full step."""
        return False

    def hessian_product(self, w: np.ndarray, v: np.ndarray,
                        margins: np.ndarray | None = None) -> tuple[np.ndarray, Vector]:
        """(H v, y * (X v)) in one pass (the change kept where the blocks live)."""
        z = self.margins(w) if margins is None else margins
        curvature, regression = self.curvature(z), self.regression
        self._pass()

        def step(block: np.ndarray, c: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            term, product = block_hessian_product(block, c, v)
            return (product if regression else y * product), term

        change, terms = self._blocks().map(step, curvature, self._labels(), keep=True)
        return self._regularized_product(_sum(terms), v), change

    def hessian_vector(self, w: np.ndarray, v: np.ndarray, margins: np.ndarray | None = None) -> np.ndarray:
        """H v in one pass: X_b^T (l''_b * (X_b v)) per block, while the block is in cache."""
        z = self.margins(w) if margins is None else margins
        curvature = self.curvature(z)
        self._pass()
        return self._regularized_product(
            self._blocks().sum(lambda block, c: block_hessian_product(block, c, v)[0], curvature), v)


def _at_signed_zeros(z: np.ndarray, values: np.ndarray) -> np.ndarray:
    """f(z) for margins that are all +0 or -0 (y * 0, the margins at w = 0), given ``values`` = f([+0, -0]): a
    function of the loss is elementwise, so its values at z are those two, placed by the sign bit. Two
    evaluations instead of n: the cold start's loss and gradient at w = 0 cost one pass of l and one of l'
    over the rows, about a seventh of the transcendental functions of a 1e5 x 20 fit."""
    return np.where(np.signbit(z), values[1], values[0])


def _loss_sum(z: np.ndarray, s: np.ndarray | None, value: Callable[[np.ndarray], np.ndarray]) -> float:
    """sum s l(z) over one block (``s`` its record weights, None for 1)."""
    return float(np.sum(weighted(value(z), s)))


def _weighted_gram(block: np.ndarray, z: np.ndarray, s: np.ndarray | None, single: bool,
                   second: Callable[[np.ndarray], np.ndarray], scratch: list[np.ndarray] | None = None) -> np.ndarray:
    """:func:`_scaled_gram` with r = :func:`_curvature_roots` (module level: a Dask task pickles it by reference)."""
    return _scaled_gram(block, _curvature_roots(second, z, s), single, scratch)


def _curvature_roots(second: Callable[[np.ndarray], np.ndarray], z: np.ndarray, s: np.ndarray | None) -> np.ndarray:
    """sqrt(max(l''(z), 0) s) (a verified convex loss has l'' >= 0; ``s`` the block's record weights, None for 1:
    :func:`~dpcvx.solvers.objective.record_curvature`)."""
    return np.sqrt(record_curvature(second, z, s))


def _scaled_gram(block: np.ndarray, roots: np.ndarray, single: bool,
                 scratch: list[np.ndarray] | None = None) -> np.ndarray:
    """(diag(r) block)^T (diag(r) block), its upper triangle at least (:func:`_gram_upper`), r = ``roots``. The
    scaled block is written into ``scratch``'s array when given (:func:`_scratch_rows`; blocks read here, not on
    Dask)."""
    weighted = _scratch_rows(scratch, block.shape, np.float32 if single else np.float64)
    if not single:
        return _gram_upper(np.multiply(block, roots[:, None], out=weighted))
    return _gram_upper(_scaled_single(block, roots, weighted))


def _scaled_single(block: np.ndarray, roots: np.ndarray, out: np.ndarray) -> np.ndarray:
    """diag(r) block in float32, written into ``out``: cast, then scaled in float32 (numpy's mixed float64 *
    float64 -> float32 loop is unvectorised, 2.5 times slower: 3.3 ms against 1.3 ms for a 10,480 x 200 chunk of
    an all-rows Hessian)."""
    np.copyto(out, block, casting="same_kind")
    out *= roots.astype(np.float32)[:, None]
    return out


class _AheadGram:
    """The all-rows float32 loss Hessian sum_b X_b^T diag(l''(z_b)) X_b formed by the step's pass from its
    cache blocks, in order, as they pass: each is cast and scaled (:func:`_scaled_single`) into its rows of one
    buffer as tall as :meth:`BlockwiseObjective.hessian`'s blocks (``rows``: ``SYRK_BLOCKS`` cache blocks of rows in
    memory, or all n rows when fewer), and each full buffer (the last one as far as filled) is one Gram product, the
    terms added in order. The same float32 operands, products and sums as :meth:`BlockwiseObjective.hessian`'s own
    pass at the same margins: the same Hessian to the bit, without reading X again."""

    def __init__(self, rows: int, dim: int, second: Callable[[np.ndarray], np.ndarray]) -> None:
        self.buffer = np.empty((rows, dim), np.float32)
        self.filled = 0
        self.second = second
        self.sum: np.ndarray | None = None

    def add(self, block: np.ndarray, z: np.ndarray, s: np.ndarray | None) -> None:
        """Scale the next block (its margins ``z``, its record weights ``s``, None for 1) into the buffer; a Gram
        product once the buffer is full."""
        _scaled_single(block, _curvature_roots(self.second, z, s),
                       self.buffer[self.filled:self.filled + len(block)])
        self.filled += len(block)
        if self.filled == len(self.buffer):
            self._flush()

    def _flush(self) -> None:
        if self.filled:
            term = _gram_upper(self.buffer[:self.filled])
            self.sum = term if self.sum is None else self.sum + term
            self.filled = 0

    def total(self) -> np.ndarray:
        """The Hessian's upper triangle at least, float32 (the rows of every block added)."""
        self._flush()
        assert self.sum is not None, "a Hessian needs at least one block"
        return self.sum


def _scratch_rows(scratch: list[np.ndarray] | None, shape: tuple[int, ...], dtype: type) -> np.ndarray:
    """An uninitialised array of ``shape``: the leading rows of ``scratch``'s one array, allocated on first use
    and again only for a taller block, so an all-rows Hessian writes its scaled blocks into one buffer; a new
    array without ``scratch``. At 1e5 x 200 in float32 (10,480-row blocks, one thread; a one-off timing, least
    of 42 runs in six alternating processes each, load 3.5): 110 ms with a new array per block, 99 ms
    with one buffer; the Hessian is bitwise the same."""
    if scratch is None:
        return np.empty(shape, dtype)
    if not scratch or scratch[0].shape[0] < shape[0] or scratch[0].shape[1:] != shape[1:] or scratch[0].dtype != dtype:
        scratch[:] = [np.empty(shape, dtype)]
    return scratch[0][:shape[0]]


def _sum(parts: Iterable[np.ndarray]) -> np.ndarray:
    """The blocks' terms added in block order."""
    return functools.reduce(operator.add, parts)
