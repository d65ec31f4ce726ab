"""The perturbed objective over row blocks: exact Newton on inputs larger than memory.

:class:`BlockwiseObjective` is :class:`~dpcvx.solvers.objective.PerturbedObjective`
with every product with X computed block by block over a
:class:`~dpcvx.data.blocks.RowBlocks`. Nothing of X is held but one block;
the gradient and the d x d Hessian are accumulated over the blocks
(X^T diag(l'') X = sum_b X_b^T diag(l''_b) X_b). Newton's method
(:func:`dpcvx.solvers.linear.newton`) runs on it unchanged: the same public
gradient bound, the same optimality check in double precision, and so the
same approximate-minimiser cover.

Passes. The pass that computes the step's margin change X d also computes the
loss gradient at the full step, z + X d (``margin_change``): when Newton's line
search takes the full step, as it does near the optimum, the next gradient
costs no pass. It is bitwise the value a fresh pass gives (the same blocks, the
same operations, in the same order). A full Hessian is one more pass.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg.blas import dsyrk, ssyrk

from ..data.blocks import RowBlocks
from ..progress import NoProgress, Progress
from .objective import PerturbedObjective, _gram_upper, hessian_sample_size

__all__ = ["BlockwiseObjective"]

SYRK_BLOCKS = 8  # an all-rows Hessian reads in-memory rows 8 cache blocks at a time (syrk runs faster on tall blocks)


@dataclass
class BlockwiseObjective(PerturbedObjective):
    """F = n J_b with X read in row blocks (``blocks``); ``X`` is unused (an empty placeholder)."""

    blocks: RowBlocks | None = None
    passes: int = 0  # passes over the data so far (for progress only; never released)
    bar: Progress = field(default_factory=NoProgress)  # counts the passes (public steps) when asked
    _base: np.ndarray | None = None  # the margins of the last gradient
    _fused: tuple[np.ndarray, np.ndarray] | None = None  # (margins at the full step, their loss gradient)

    def _blocks(self) -> RowBlocks:
        assert self.blocks is not None, "a BlockwiseObjective needs its row blocks"
        return self.blocks

    @property
    def n(self) -> int:
        return self._blocks().shape[0]

    @property
    def dim(self) -> int:
        return self._blocks().shape[1]

    def _sampled_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Evenly spaced rows read directly (no pass): the cheap Hessian far from the optimum."""
        if self._sample is None:
            size = hessian_sample_size(self.n, self.dim)
            rows = np.linspace(0, self.n - 1, size).astype(np.intp)
            self._sample = (rows, np.asfortranarray(self._blocks().take(rows), dtype=np.float32))
        return self._sample

    def _pass(self) -> None:
        self.passes += 1
        self.bar.update()

    def _products(self, w: np.ndarray) -> np.ndarray:
        self._pass()
        return np.concatenate(self._blocks().map(lambda block: block @ w))

    def margins(self, w: np.ndarray) -> np.ndarray:
        """z = y X w (or X w - y), and in the same pass the loss gradient at z (module docstring)."""
        if not np.any(w):  # X 0 = 0 needs no pass (the cold start): the same margins up to the sign of zero
            products = np.zeros(self.n)
            return products - self.y if self.regression else self.y * products
        self._pass()
        regression, first_derivative = self.regression, self.loss.first

        def step(block: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            z = block @ w - y if regression else y * (block @ w)
            first = first_derivative(z)
            return z, block.T @ (first if regression else y * first)

        parts = self._blocks().map(step, self.y)
        z = np.concatenate([part[0] for part in parts])
        self._fused = (z, _sum(part[1] for part in parts))
        return z

    def margin_change(self, direction: np.ndarray) -> np.ndarray:
        """X d (times y), and in the same pass the loss gradient at the full step (module docstring)."""
        self._pass()
        base, regression, first_derivative = self._base, self.regression, self.loss.first
        labels = np.ones(self.n) if regression else self.y

        def step(block: np.ndarray, y: np.ndarray, *margins: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            change = block @ direction if regression else y * (block @ direction)
            if not margins:
                return change, None
            first = first_derivative(margins[0] + change)
            return change, block.T @ (first if regression else y * first)

        parts = self._blocks().map(step, labels, *(() if base is None else (base,)))
        change = np.concatenate([part[0] for part in parts])
        self._fused = None if base is None else (base + change, _sum(part[1] for part in parts))
        return change

    def _transpose_product(self, weights: np.ndarray) -> np.ndarray:
        """X^T weights, block by block."""
        self._pass()
        return _sum(self._blocks().map(lambda block, slice_: block.T @ slice_, weights))

    def _loss_gradient(self, z: np.ndarray) -> np.ndarray:
        """X^T (y l'(z)): from the step's pass when z are its full-step margins, else one pass."""
        fused = self._fused
        if fused is not None and np.array_equal(fused[0], z):
            return fused[1].copy()
        first = self.loss.first(z)
        return self._transpose_product(first if self.regression else self.y * first)

    def gradient_terms(self, w: np.ndarray, margins: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        z = self.margins(w) if margins is None else margins
        self._base = z
        n = self.n
        return (
            self._loss_gradient(z),
            n * self.lam * self.regularizer.gradient(w),
            self.noise,
            n * self.extra_reg * w,
        )

    def hessian(self, w: np.ndarray, margins: np.ndarray | None = None, *,
                single: bool = False, subsample: bool = False) -> np.ndarray:
        """Upper triangle of sum_b X_b^T diag(l''_b) X_b + n Lam (alpha I + M) + n Delta I, or the subsample's.

        Each block's term is one syrk on the block scaled by sqrt(l''), in single
        precision when ``single`` (a float32 copy of one block at a time).
        """
        if subsample and self.can_subsample:
            return super().hessian(w, margins, single=single, subsample=True)
        z = self.margins(w) if margins is None else margins
        roots = np.sqrt(np.maximum(self.loss.second(z), 0.0))
        self._pass()
        gram = functools.partial(_weighted_gram, single=single)
        blocks = self._blocks().coarser(SYRK_BLOCKS)
        return self._regularized(_sum(blocks.map(gram, roots)).astype(np.float64))

    def hessian_vector(self, w: np.ndarray, v: np.ndarray, margins: np.ndarray | None = None) -> np.ndarray:
        """H v in one pass: X_b^T (l''_b * (X_b v)) per block, while the block is in cache."""
        z = self.margins(w) if margins is None else margins
        curvature = self.curvature(z)
        self._pass()
        out = _sum(self._blocks().map(lambda block, c: block.T @ (c * (block @ v)), curvature))
        n = self.n
        return out + n * self.lam * self.regularizer.hessian_vector(v) + n * self.extra_reg * v


def _weighted_gram(block: np.ndarray, roots: np.ndarray, single: bool) -> np.ndarray:
    """Upper triangle of (diag(roots) block)^T (diag(roots) block) by syrk (module level: a Dask task
    pickles it by reference)."""
    weighted = np.empty(block.shape, dtype=np.float32 if single else np.float64)
    np.multiply(block, roots[:, None], out=weighted, casting="unsafe")
    return _gram_upper(ssyrk if single else dsyrk, weighted)


def _sum(parts: Iterable[np.ndarray]) -> np.ndarray:
    """The blocks' terms added in block order."""
    return functools.reduce(operator.add, parts)
