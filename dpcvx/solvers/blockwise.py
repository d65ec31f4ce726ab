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

from dataclasses import dataclass, field

import numpy as np

from ..data.blocks import RowBlocks
from ..progress import NoProgress, Progress
from .objective import PerturbedObjective, hessian_sample_size

__all__ = ["BlockwiseObjective"]


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
        out = np.empty(self.n)
        for start, block, _ in self._blocks().blocks():
            out[start:start + block.shape[0]] = block @ w
        return out

    def margins(self, w: np.ndarray) -> np.ndarray:
        products = self._products(w)
        return products - self.y if self.regression else self.y * products

    def margin_change(self, direction: np.ndarray) -> np.ndarray:
        """X d (times y), and in the same pass the loss gradient at the full step (module docstring)."""
        self._pass()
        change, loss_gradient, base = np.empty(self.n), np.zeros(self.dim), self._base
        for start, block, _ in self._blocks().blocks():
            stop = start + block.shape[0]
            step = block @ direction
            change[start:stop] = step if self.regression else self.y[start:stop] * step
            if base is not None:
                first = self.loss.first(base[start:stop] + change[start:stop])
                loss_gradient += block.T @ (first if self.regression else self.y[start:stop] * first)
        self._fused = None if base is None else (base + change, loss_gradient)
        return change

    def _transpose_product(self, weights: np.ndarray) -> np.ndarray:
        """X^T weights, block by block."""
        self._pass()
        out = np.zeros(self.dim)
        for start, block, _ in self._blocks().blocks():
            out += block.T @ weights[start:start + block.shape[0]]
        return out

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
        """sum_b X_b^T diag(l''_b) X_b + n Lam (alpha I + M) + n Delta I (double precision), or the subsample's."""
        if subsample and self.can_subsample:
            return super().hessian(w, margins, single=single, subsample=True)
        z = self.margins(w) if margins is None else margins
        curvature = np.maximum(self.loss.second(z), 0.0)
        self._pass()
        H = np.zeros((self.dim, self.dim))
        for start, block, _ in self._blocks().blocks():
            weighted = block * np.sqrt(curvature[start:start + block.shape[0]])[:, None]
            H += weighted.T @ weighted
        n = self.n
        H[np.diag_indices_from(H)] += n * self.lam * self.regularizer.hessian_diagonal(self.dim) + n * self.extra_reg
        if self.regularizer.dense is not None:
            H += n * self.lam * self.regularizer.dense
        return H

    def hessian_vector(self, w: np.ndarray, v: np.ndarray, margins: np.ndarray | None = None) -> np.ndarray:
        z = self.margins(w) if margins is None else margins
        out = self._transpose_product(self.loss.second(z) * self._products(v))
        n = self.n
        return out + n * self.lam * self.regularizer.hessian_vector(v) + n * self.extra_reg * v
