"""The perturbed ERM objective of Algorithm 2 (and, with b = 0, Delta = 0, plain ERM).

    J_b(w) = (1/n) sum_i l(y_i w^T x_i) + Lam N(w) + (1/n) b^T w + (Delta/2) ||w||^2

(Chaudhuri, Monteleoni, Sarwate, JMLR 2011, Algorithm 2, step 4). The solvers
work on F = n J_b, whose gradient does not shrink with n (so absolute
tolerances inside Newton's method keep their meaning).

Optimality residual. With the four gradient terms

    g_loss = (1/n) sum_i y_i l'(z_i) x_i,   g_reg = Lam grad N(w),
    g_noise = b / n,                         g_extra = Delta w,

the relative residual is ||g_loss + g_reg + g_noise + g_extra|| divided by
||g_loss|| + ||g_reg|| + ||g_noise|| + ||g_extra|| (0 when both are 0). It is
the fraction of the gradient's scale left uncancelled, a number in [0, 1],
independent of how the data or the objective are scaled.
"""

from __future__ import annotations

import functools
import importlib
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sparse
from scipy.linalg.blas import dsyrk

from ..data.blocks import cache_block_rows, elementwise, take_rows
from ..data.rows import Matrix
from ..verification.problem import LossDerivatives, Quadratic

WIDE_SAMPLE_MIN_DIM = 100  # from this width on, a Hessian subsample of up to WIDE_SAMPLE_PER_FEATURE rows a feature
WIDE_SAMPLE_PER_FEATURE = 50
WIDE_SAMPLE_FLOPS = 20  # ... while its m d^2 multiply-adds stay within this many times a pass's n d entries
JACOBI_SPREAD = 0.1  # a sparse X's Jacobi preconditioner is skipped when the loss moves diag(H) by less
SUBSAMPLE_MIN_ENTRIES = 300_000  # subsampled Hessians only for an X of more entries n d than this
MEAN_SAMPLE_ROWS = 500  # the rows' mean direction for CG's preconditioner is read on at least this many rows
MEAN_SAMPLE_PER_FEATURE = 0.5  # ... and this many a feature (centred rows: the sampled ||u||^2 about d / m of q)
MEAN_SAMPLE_RUNS = 16  # ... in this many runs of consecutive rows, evenly spaced
MEAN_PRECISE_ROWS = 4000  # ... and where it has one, on this many rows for the direction itself
CURVATURE_SAMPLE_ROWS = 500  # rows (in MEAN_SAMPLE_RUNS runs) of the sampled curvature that fixes a step pass's length
MEAN_DIRECTION_RATIO = 10.0  # ... and preconditions CG where its curvature is this many times the other directions'
SPARSE_GRAM_WIDTH = 6  # a CSR's Hessian by dense row blocks where d is at most this many times its entries a row
SPARSE_GRAM_ENTRIES = 1 << 16  # ... blocks of about this many dense entries (512 KB)

__all__ = ["PerturbedObjective", "Residual", "DiagonalPlusRankOne", "mean_sample", "relative_residual",
           "evenly_spaced", "hessian_sample_size", "block_hessian_product", "block_margins",
           "block_margins_and_gradient", "block_gradient", "weighted", "record_curvature", "weighted_squares",
           "transposed_product", "row_product", "BLOCK_READ_WIDTHS", "StepPass"]
# EINSUM_WIDTHS and ROW_PRODUCT_WIDTHS are not exported: their values are the processor's (AVX-512 or not), and the
# API page (docs/make_api.py), the same on every machine, lists values; their rule is in the comment where they are set


@dataclass(frozen=True)
class Residual:
    """||grad J_b(w)|| absolute, and relative to the gradient's scale."""

    absolute: float
    relative: float


@dataclass(frozen=True)
class DiagonalPlusRankOne:
    """M = diag(D) + b u u^T (D > 0, b >= 0): a preconditioner inverted in O(d) by Sherman and Morrison's formula.

        M^-1 r = D^-1 r - b (u . D^-1 r) / (1 + b u . D^-1 u) D^-1 u

    (Sherman and Morrison 1950)."""

    diagonal: np.ndarray
    vector: np.ndarray
    weight: float

    def solve(self, r: np.ndarray) -> np.ndarray:
        """M^-1 r."""
        scaled = self.vector / self.diagonal
        shrink = self.weight * float(scaled @ r) / (1.0 + self.weight * float(self.vector @ scaled))
        return r / self.diagonal - shrink * scaled


def mean_sample(n: int, d: int, precise: bool = False) -> list[slice]:
    """The rows :meth:`PerturbedObjective.mean_preconditioner` reads: ``MEAN_SAMPLE_RUNS`` runs of consecutive rows,
    evenly spaced, of at least ``MEAN_SAMPLE_ROWS`` rows and ``MEAN_SAMPLE_PER_FEATURE`` a feature in all, or
    ``MEAN_PRECISE_ROWS`` when ``precise`` (all rows when n is fewer). Runs, not single rows at a stride: read cold
    from memory, 1,000 rows of a 20,000 x 1,000 X took 1.3 ms in 16 runs against 3.0 ms one row in 20 (a one-off
    timing). With ``MEAN_DIRECTION_RATIO`` = 10 the sampling noise of centred rows' mean, about d / m of the
    others' curvature, stays a fifth of the threshold."""
    return row_runs(n, MEAN_PRECISE_ROWS if precise else max(MEAN_SAMPLE_ROWS, int(MEAN_SAMPLE_PER_FEATURE * d)))


def row_runs(n: int, rows: int) -> list[slice]:
    """About ``rows`` of n rows (all when n is fewer) as ``MEAN_SAMPLE_RUNS`` runs of consecutive rows, evenly
    spaced (:func:`mean_sample`'s rows)."""
    rows = min(n, rows)
    length = -(-rows // MEAN_SAMPLE_RUNS)
    starts = np.unique(np.linspace(0, n - length, MEAN_SAMPLE_RUNS).astype(np.intp)) if length < n else [0]
    return [slice(int(a), int(a) + length) for a in starts]


def _sample_moments(runs: list[np.ndarray]) -> tuple[np.ndarray, float] | None:
    """(the rows' mean u, their mean squared norm q less ||u||^2) over all rows of ``runs``; None for no row."""
    count = sum(run.shape[0] for run in runs)
    if count == 0:
        return None
    mean = functools.reduce(operator.add, (np.sum(run, axis=0) for run in runs)) / count
    return mean, max(sum(float(np.einsum("ij,ij->", run, run)) for run in runs) / count - float(mean @ mean), 0.0)


def hessian_sample_size(n: int, d: int) -> int:
    """Rows in a subsampled Hessian: 2 n / d (its m d^2 flops are then 2 n d, half a pass's), at least 20 per
    feature and 1000; from ``WIDE_SAMPLE_MIN_DIM`` columns on at least ``WIDE_SAMPLE_PER_FEATURE`` per feature
    while m d^2 <= ``WIDE_SAMPLE_FLOPS`` n d; never more than n.

    Its relative error is about sqrt(d / m), and so is the factor by which a
    step from it shrinks the residual near the optimum (full Hessians take over
    there, ``solvers.SUBSAMPLE_UNTIL``). At d = 20 that is a tenth of the rows:
    error 0.05 instead of 0.2 with 20 d rows; with the first step's line minimum
    (:func:`dpcvx.solvers.linear._line_minimum`), 6 Newton iterations instead of 9
    at 1e5 x 20 and 5 instead of 10 at 1e6 x 20 (benchmarks/results/speed_sweep*.md).
    From d = 100 on the 20 d rows are the larger count, and a subsampled step cut the
    residual by only 2 to 3 at 1e5 x 200 (4,000 rows); 50 d rows (10,000) cut it by 5 to
    8 there: 1 to 3 reads of X fewer on six or seven of the family's eight generators
    (benchmarks/results/family_sweep_round14_perf10_*.md). Their sgemm (m d^2 multiply-adds, compute
    bound) then costs about a quarter of a pass (n d entries read from memory) on the
    benchmark machine; the bound m d^2 <= 20 n d keeps it so at larger d / n (at
    1e5 x 400 the 20 d rows stay). At d >= 100 that bound is at most n / 5, so
    :attr:`PerturbedObjective.can_subsample` (m <= n / 4) answers as with 20 d rows.
    """
    rows = max(1000, 20 * d, 2 * n // max(d, 1))
    if d >= WIDE_SAMPLE_MIN_DIM:
        rows = max(rows, min(WIDE_SAMPLE_PER_FEATURE * d, WIDE_SAMPLE_FLOPS * n // d))
    return min(n, rows)


def evenly_spaced(n: int, size: int, part: slice = slice(None)) -> np.ndarray:
    """``size`` row indices evenly spaced over n rows, the first and the last among them (size >= 2): the Hessian
    subsample's rows, and the samples that decide whether records repeat (:mod:`dpcvx.solvers.distinct`); or their
    ``part`` (a slice of the ``size``), computed alone, so that a pass over a memmap's sample holds a block's
    indices, not the sample's (1.6 bytes a row at 1,000,000 x 10, a fiftieth of the file). The values are numpy's
    ``linspace(0, n - 1, size)`` truncated: i (n - 1) / (size - 1) for i < size - 1, then n - 1."""
    start, stop, _ = part.indices(size)
    if size < 2:
        return np.zeros(max(stop - start, 0), dtype=np.intp)
    values = np.arange(start, stop, dtype=np.float64) * ((n - 1) / (size - 1))
    if stop == size and stop > start:
        values[-1] = n - 1
    return values.astype(np.intp)


def zero_margins(y: np.ndarray, regression: bool) -> np.ndarray:
    """The margins at w = 0: -y for a regression, else y * 0 (module level: a Dask task runs it)."""
    products = np.zeros(y.shape[0])
    return products - y if regression else y * products


def _gram_upper(A: np.ndarray) -> np.ndarray:
    """A^T A, its upper triangle at least (what a Cholesky factorisation with ``lower=False`` reads), without
    copying A: float64 by BLAS dsyrk (the upper triangle, half the flops), float32 by sgemm (the whole matrix).
    OpenBLAS's ssyrk is slower than its sgemm at every shape the solver forms (one thread, this machine's
    AVX-512 kernels): 2.0 ms against 1.3 ms for 100,000 x 20, 6.2 ms against 5.8 ms for 10,480 x 200 (a
    Hessian chunk at 1e5 x 200), 10.7 ms against 9.7 ms for 5,240 x 400; dsyrk and dgemm are within 10 %."""
    if A.dtype == np.float32:
        return A.T @ A
    if A.flags.f_contiguous:
        return dsyrk(1.0, A, trans=1, lower=0)
    if A.flags.c_contiguous:  # A^T is column-major: the same memory, no copy
        return dsyrk(1.0, A.T, trans=0, lower=0)
    return dsyrk(1.0, np.asfortranarray(A), trans=1, lower=0)


def _sparse_gram(X: sparse.csr_matrix, curvature: np.ndarray) -> np.ndarray:
    """X^T diag(curvature) X of a CSR: where X is narrow against its entries a row (d at most ``SPARSE_GRAM_WIDTH``
    times nnz / n; one-hot codes of a few categorical columns), by dense row blocks of about ``SPARSE_GRAM_ENTRIES``
    entries, each scaled by sqrt(curvature) and added by dsyrk (:func:`_gram_upper`), then made whole; else scipy's
    sparse product. On a 200,000 x 24 CSR of eight one-hot columns, scipy's product (sparse conversions and two
    products) took 79 ms a Hessian and the blocks 19 ms (least of 7, one thread, the machine shared with another
    job): the Hessians were most of that fit."""
    n, d = X.shape
    if d > SPARSE_GRAM_WIDTH * X.nnz / max(n, 1):
        return np.asarray((X.T @ sparse.diags(curvature) @ X).todense())
    step = max(1, SPARSE_GRAM_ENTRIES // max(d, 1))
    H = np.zeros((d, d))
    for a in range(0, n, step):
        block = X[a:a + step].toarray()
        block *= np.sqrt(curvature[a:a + step])[:, None]
        H += _gram_upper(block)
    return np.triu(H) + np.triu(H, 1).T  # the whole matrix, as scipy's product gives it


def block_hessian_product(block: np.ndarray, curvature: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X_b^T (l''_b * (X_b v)), X_b v): one row block's term of the loss Hessian times v, both products while
    the block is in cache (so a Hessian-vector pass reads X from memory once, not twice), and the block's
    product X_b v (CG keeps it: the margins' change along its direction, :meth:`PerturbedObjective.hessian_product`).

    Measured (one BLAS thread, H v at 3e5 x 500, 2 MB blocks; benchmarks/results/hessian_blocks.md):
    0.054 s row-major and 0.070 s column-major, against 0.085 s and 0.077 s for the two whole-matrix
    products. The block terms are added in block order; that sum's rounding is the one of
    docs/theory.md section 23 (a sum of at most B terms, then of ceil(n / B) block results), and it
    only shapes a Newton direction."""
    product = row_product(block, v)
    return block.T @ (curvature * product), product


#: Widths at which a row-major block's products read from memory are faster by numpy than by BLAS gemv:
#: X_b^T u by einsum (EINSUM_WIDTHS) and X_b v by vecdot (ROW_PRODUCT_WIDTHS). Measured by
#: ``python -m benchmarks.row_products --repeats 11`` (benchmarks/results/row_products.md: one thread, 2 MB
#: blocks, 2e7 entries in all, medians of 11; numpy 2.4, OpenBLAS 0.3.31 with its Haswell kernels, the AVX2
#: machine of the benchmarks). numpy / BLAS, X_b^T u: 0.73 at d = 100, 0.81 at 200, 0.97 at 300, then 1.15 at
#: 400, 1.36 at 500, 1.35 at 1,000, 1.45 at 2,000; X_b v: 0.76, 0.80, 0.95, then 1.09, 1.17, 1.22 and 1.37
#: (one outlier, 0.80 at 700). At 20 and 32 BLAS is faster (X_b^T u 1.51, 1.22); the lower end was not moved. An earlier
#: machine (OpenBLAS's SkylakeX kernels) had numpy faster up to 1,024 columns (X^T u at 3e5 x 500: 40.8 against
#: 73.6 ms). From cache (the second product of a fused pass) BLAS is as fast or faster at every width.
#: On a processor with AVX-512 (:func:`_avx512`; OpenBLAS runs its SkylakeX kernels there) vecdot is the faster
#: X_b v up to ``BLOCK_READ_WIDTHS``' end, 1,024 columns (benchmarks/results/row_products_perf16.md, the command
#: above with ``--widths 200 300 400 500 700 1000 1500``: vecdot / BLAS 0.45 at 200, 0.57 at 300, 0.59 at 400,
#: 0.89 at 500, 0.76 at 700, 0.73 at 1,000, 1.00 at 1,500; a second run with ``--repeats 15``, at load 5: 0.47 at
#: 300, 0.51 at 400, 0.72 at 500, 0.67 at 700, 0.59 at 1,000), and so is the first product of the fused Hessian
#: product (:func:`block_hessian_product`; ``python -m benchmarks.hessian_blocks --sizes 3e5x500 2e4x1000
#: --repeats 9``, row-major 2 MB blocks, two runs per tree alternating, medians at load 4.6 to 4.8: 0.249, 0.175
#: -> 0.174, 0.133 s at 3e5 x 500; 0.028, 0.021 -> 0.023, 0.019 s at 2e4 x 1e3). einsum's X_b^T u there moved
#: from run to run (1.08, 0.64 at 500; 1.15, 0.59 at 700; 0.96, 0.77 at 1,000), but in whole fits it is the faster
#: (``python -m benchmarks.speed_ab`` with vecdot alone as before, benchmarks/results/speed_ab_perf16_einsum.md,
#: dpcvx / lbfgs, medians of three processes: 1.36 -> 1.27 at 3e5 x 500 balance 2 %, 1.02 -> 0.93, 1.31 -> 1.22 and
#: 1.37 -> 1.22 at 2e4 x 1e3 isotropic, balance 2 % and noisy), so ``EINSUM_WIDTHS`` follows the same rule.
#: Widths at which :meth:`PerturbedObjective.matvec` and :meth:`PerturbedObjective.rmatvec` read a row-major X by
#: cache-sized row blocks (each block's product by :func:`row_product` or :func:`transposed_product`): the sums
#: of docs/theory.md section 23, and margins bitwise those of the final check's blocks; else one product.
BLOCK_READ_WIDTHS = (48, 1024)

#: X^T u of a sparse X, or of a dense X not summed by cache-sized row blocks (another layout, a width outside
#: ``BLOCK_READ_WIDTHS``), is a sum of row blocks of this many rows, added in order, when X has more rows: one
#: product sums each coordinate over all |D| rows in the order BLAS or scipy choose, whose worst-case rounding
#: gamma_{|D|} |D| L R exceeds the half of gamma = tol N L R kept for it beyond |D| = 4.5e5 at tol_D = 1e-10; by these
#: blocks it is gamma_{B + ceil(|D| / B)} |D| L R, within it for every |D| up to 2.5e10 (docs/theory.md section 23).
SUM_BLOCK_ROWS = 1 << 16


def _avx512() -> bool:
    """Whether numpy found the AVX-512 instructions of Skylake-X and later on this processor (where OpenBLAS, too,
    runs its SkylakeX kernels): a property of the machine, never of the data."""
    features = getattr(importlib.import_module("numpy._core._multiarray_umath"), "__cpu_features__", {})
    return bool(features.get("AVX512_SKX", False))


ROW_PRODUCT_WIDTHS = (48, BLOCK_READ_WIDTHS[1] if _avx512() else 300)
EINSUM_WIDTHS = ROW_PRODUCT_WIDTHS


def _row_major_within(block: np.ndarray, widths: tuple[int, int]) -> bool:
    """Whether ``block`` is row-major with a width in ``widths`` (both ends included)."""
    return bool(block.flags.c_contiguous) and widths[0] <= block.shape[1] <= widths[1]


def _transposed_csr_rows(X: sparse.csr_matrix, rows: slice) -> sparse.csc_matrix:
    """X[rows]^T for a CSR matrix X and a slice of step 1: a CSC matrix on views of X's data and indices
    (scipy's row slicing, its transpose and its constructors from the three arrays copy them: a second X held through
    the solve, or a copy of each block at every product)."""
    start, stop = X.indptr[rows.start], X.indptr[rows.stop]
    block = sparse.csc_matrix((X.shape[1], rows.stop - rows.start), dtype=X.dtype)
    block.data, block.indices = X.data[start:stop], X.indices[start:stop]
    block.indptr = X.indptr[rows.start:rows.stop + 1] - start
    return block


def transposed_product(block: np.ndarray, u: np.ndarray) -> np.ndarray:
    """X_b^T u for a dense row block read from memory: numpy's einsum where it is faster (``EINSUM_WIDTHS``, a
    row-major block), else BLAS. einsum adds the block's rows in order; the sum's rounding is the one of
    docs/theory.md section 23 (a sum of at most B terms per block, then of the blocks' results)."""
    return np.einsum("ij,i->j", block, u) if _row_major_within(block, EINSUM_WIDTHS) else block.T @ u


def row_product(block: np.ndarray, v: np.ndarray) -> np.ndarray:
    """X_b v for a dense row block read from memory: numpy's vecdot (a dot product per row) where it is faster
    (``ROW_PRODUCT_WIDTHS``, a row-major block), else BLAS; each entry a dot product of d terms either way.
    Every margin of a row-major X within ``BLOCK_READ_WIDTHS``, fresh or of a step, is computed by this one
    function on the same blocks, so margins computed twice at one point agree to the bit."""
    return np.vecdot(block, v) if _row_major_within(block, ROW_PRODUCT_WIDTHS) else block @ v


def block_margins(block: np.ndarray, w: np.ndarray, y: np.ndarray, regression: bool) -> np.ndarray:
    """One block's margins y (X_b w), or residuals X_b w - y: the one formula of every fresh margin by blocks."""
    return row_product(block, w) - y if regression else y * row_product(block, w)


def block_margins_and_gradient(block: np.ndarray, y: np.ndarray, w: np.ndarray, first: Callable[[Any], Any],
                               regression: bool, s: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(z_b, X_b^T u_b): one row block's margins (:func:`block_margins`) and its term of the loss gradient,
    u = y * s l'(z) (or s l'(z); ``s`` the block's record weights, None for 1), both while the block is in cache."""
    z = block_margins(block, w, y, regression)
    return z, block_gradient(block, y, z, first, regression, s)


def block_gradient(block: np.ndarray, y: np.ndarray, z: np.ndarray, first: Callable[[Any], Any],
                   regression: bool, s: np.ndarray | None = None) -> np.ndarray:
    """One row block's term of the loss gradient at its margins z: X_b^T u_b, u = y * s l'(z) (or s l'(z); ``s``
    the block's record weights, None for 1)."""
    derivative = weighted(first(z), s)
    return block.T @ (derivative if regression else y * derivative)


def weighted(values: np.ndarray, s: np.ndarray | None) -> np.ndarray:
    """s_i times each record's value of l, l' or l'' (``values``), or the values themselves without record weights
    (None): the one product by which every path, on all rows in memory or block by block, weighs its records."""
    return values if s is None else s * values


def record_curvature(second: Callable[[Any], Any], z: np.ndarray, s: np.ndarray | None) -> np.ndarray:
    """max(l''(z_i), 0) s_i (l'' >= 0 for a verified convex loss; ``s`` the records' weights, None for 1): the
    loss Hessian's diagonal weights, of the rows in memory and of each row block."""
    return weighted(np.maximum(second(z), 0.0), s)


def weighted_squares(change: np.ndarray, s: np.ndarray) -> float:
    """sum_i s_i dz_i^2 over records with weights ``s``: the weighted curvature ceiling's sum
    (:meth:`PerturbedObjective.curvature_ceiling`), of the rows in memory and of each row block."""
    return float(s @ np.square(change))


def add_terms(terms: Sequence[np.ndarray]) -> np.ndarray:
    """The gradient: its terms added in order."""
    return functools.reduce(operator.add, terms)


def _norm(v: np.ndarray) -> float:
    """||v||_2 of a vector as numpy's norm computes it, sqrt(v . v), without its checks (5 us a call, five
    calls an iteration: 3 % of a fit at 1e4 x 20)."""
    return math.sqrt(float(v @ v))


def relative_residual(terms: Sequence[np.ndarray], n: int) -> Residual:
    """Residual from the gradient terms of F = n J_b (pass n = 1 for terms of J_b itself)."""
    total = _norm(add_terms(terms))
    scale = sum(_norm(term) for term in terms)
    return Residual(absolute=total / n, relative=0.0 if total == 0 else total / scale)


@dataclass(frozen=True)
class StepPass:
    """What :meth:`PerturbedObjective.step_pass` computed in its one read of X: H v (None without ``hessian``),
    the margins' change along v (y * X v; None where it was not needed), the margins' change along CG's whole
    direction, the margins at the full step and the gradient terms there."""

    product: np.ndarray | None
    along: np.ndarray | None
    change: np.ndarray
    margins: np.ndarray
    terms: tuple[np.ndarray, ...]


@dataclass
class PerturbedObjective:
    """F(w) = n J_b(w) for a quadratic regularizer N(w) = 0.5 w^T H w + g^T w.

    For a dense X the Hessian's X^T diag(l'') X is one symmetric rank-k
    update (:func:`_gram_upper`: BLAS dsyrk, or sgemm in single precision), in whichever
    memory order X has: no copy of X is made for it. ``hessian(..., single=True)``
    does that update in single precision (a float32 copy of X is made on first
    use): the Hessian only shapes Newton's direction, while the gradient, the
    line search and the residual stay in double precision, so the minimiser
    found is as exact.

    ``hessian(..., subsample=True)`` builds the same matrix from m =
    ``hessian_sample_size(n, d)`` evenly spaced rows, scaled by n/m (Byrd, Chin,
    Neveitt and Nocedal 2011; Roosta-Khorasani and Mahoney 2016): a cheaper,
    inexact Newton direction for large n, for the same reason.
    """

    X: Matrix
    y: np.ndarray
    loss: LossDerivatives
    regularizer: Quadratic
    lam: float
    noise: np.ndarray
    extra_reg: float = 0.0
    regression: bool = False  # z = w^T x - y (a loss of the residual); else the margin y w^T x
    curvature_bound: float = np.inf  # the verified c >= l'' (public; decides only whether Jacobi pays)
    weights: np.ndarray | None = None  # record weights s_i in [0, w_max]: F's loss is sum_i s_i l(z_i) (None: 1)
    column_scale: np.ndarray | None = None  # public scales of X's columns (RowMap.column_scale; None: all alike)
    # a vector u whose margins y * (X u) (X u for a regression) the solve also computes where that costs little:
    # a sparse X's first product as X [v, u] in one read; by row blocks while the block is in cache (the first
    # step's pass of a BlockwiseObjective, a dense X's first Hessian product). The release noise's move, for the
    # training-rows check (dpcvx.models.fit_plan). NOT PRIVATE
    offset: np.ndarray | None = None
    offset_margins: np.ndarray | None = field(init=False, repr=False, default=None)
    _dense: bool = field(init=False, repr=False)
    _X_single: np.ndarray | None = field(init=False, repr=False, default=None)
    _sample: tuple[np.ndarray, Matrix] | None = field(init=False, repr=False, default=None)
    _curvature: tuple[np.ndarray, np.ndarray] | None = field(init=False, repr=False, default=None)
    _X_squared: Matrix | None = field(init=False, repr=False, default=None)
    _base: tuple[np.ndarray, Any] | None = field(init=False, repr=False, default=None)  # (w, margins) of a gradient
    _full: np.ndarray | None = field(init=False, repr=False, default=None)  # margins at w + d of margin_change
    _jacobi: np.ndarray | None = field(init=False, repr=False, default=None)  # the last diag(H) for CG
    _jacobi_pays: bool | None = field(init=False, repr=False, default=None)
    _moments: tuple[np.ndarray, float] | tuple[()] | None = field(init=False, repr=False, default=None)  # _row_moments
    # CG was slow without a preconditioner on this solve's dense rows (:func:`dpcvx.solvers.linear._sampled_factor`)
    cg_slow: bool = field(init=False, repr=False, default=False)
    _row_block_sums: list[tuple[slice, Any]] | None = field(init=False, repr=False, default=None)  # _sum_blocks

    def __post_init__(self) -> None:
        self._dense = not sparse.issparse(self.X)

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    def _first(self, z: np.ndarray) -> np.ndarray:
        """s_i l'(z_i) (l' without weights)."""
        return weighted(self.loss.first(z), self.weights)

    def _second(self, z: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """max(l''(z_i), 0) s_i over all records, or over ``rows`` when ``z`` is their margins only."""
        s = self.weights if self.weights is None or rows is None else self.weights[rows]
        return record_curvature(self.loss.second, z, s)

    def margins(self, w: np.ndarray) -> np.ndarray:
        """z_i: the margins y_i w^T x_i, or the residuals w^T x_i - y_i of a regression (X 0 = 0: no product)."""
        if not np.any(w):
            return zero_margins(self.y, self.regression)
        return self.matvec(w) - self.y if self.regression else self.y * self.matvec(w)

    @property
    def _offset_wanted(self) -> np.ndarray | None:
        """The :attr:`offset` u while no pass has computed its margins yet (else None)."""
        return self.offset if self.offset_margins is None else None

    def _keep_offset(self, product: np.ndarray) -> None:
        """Keep the :attr:`offset`'s margins from X u (a new n-vector, taken over): y * (X u), multiplied in place, or
        X u for a regression."""
        self.offset_margins = product if self.regression else np.multiply(self.y, product, out=product)

    def matvec(self, v: np.ndarray) -> Any:
        """X v: a row-major X within ``BLOCK_READ_WIDTHS`` by cache-sized row blocks (:func:`row_product`), the
        same block boundaries as :meth:`fresh_gradient_terms`'s, so its margins agree to the bit; else one
        product. A sparse X's first product also gives the :attr:`offset`'s margins: X [v, u] in one read
        (scipy's csr_matvecs sums each row's entries in the order csr_matvec does: the same X v)."""
        if self._dense and _row_major_within(self.X, BLOCK_READ_WIDTHS):
            return np.concatenate([row_product(self.X[rows], v) for rows in self._row_slices()])
        offset = self._offset_wanted
        if offset is not None and not self._dense:
            both = np.asarray(self.X @ np.column_stack([v, offset]))
            self._keep_offset(np.ascontiguousarray(both[:, 1]))
            return np.ascontiguousarray(both[:, 0])
        return self.X @ v

    def rmatvec(self, u: np.ndarray) -> np.ndarray:
        """X^T u: a row-major X within ``BLOCK_READ_WIDTHS`` as a sum of cache-sized row blocks
        (:func:`transposed_product`; the rounding of docs/theory.md section 23), else one product."""
        if self._dense and _row_major_within(self.X, BLOCK_READ_WIDTHS):
            return functools.reduce(operator.add, (transposed_product(self.X[rows], u[rows])
                                                   for rows in self._row_slices()))
        if self.n > SUM_BLOCK_ROWS:  # one product's rounding grows with all the rows: by blocks (section 23)
            return functools.reduce(operator.add, (np.asarray(transposed @ u[rows]).ravel()
                                                   for rows, transposed in self._sum_blocks()))
        return np.asarray(self.X.T @ u).ravel()

    def _sum_blocks(self) -> list[tuple[slice, Any]]:
        """The row blocks of ``SUM_BLOCK_ROWS`` rows :meth:`rmatvec` sums a sparse (or another dense layout's) X^T u
        over, in order, each with its rows of X transposed: a dense X's view, a CSR matrix's rows as a CSC matrix on
        the same data and indices (:func:`_transposed_csr_rows`: no copy of X), another sparse format's rows as scipy
        slices them. Made once."""
        if self._row_block_sums is None:
            X, step = self.X, SUM_BLOCK_ROWS
            slices = [slice(a, min(a + step, self.n)) for a in range(0, self.n, step)]
            if sparse.issparse(X) and X.format == "csr":
                self._row_block_sums = [(rows, _transposed_csr_rows(X, rows)) for rows in slices]
            else:
                self._row_block_sums = [(rows, X[rows].T) for rows in slices]
        return self._row_block_sums

    def _row_slices(self) -> list[slice]:
        """The cache-sized row blocks of a dense X (:func:`dpcvx.data.blocks.cache_block_rows`), in order."""
        step = cache_block_rows(self.dim)
        return [slice(a, a + step) for a in range(0, self.n, step)]

    def _terms(self, w: np.ndarray, loss_term: np.ndarray) -> tuple[np.ndarray, ...]:
        """The four gradient terms of F given the loss's, X^T u: loss, regularizer, noise, extra."""
        n = self.n
        return loss_term, n * self.lam * self.regularizer.gradient(w), self.noise, n * self.extra_reg * w

    def margin_change(self, direction: np.ndarray) -> np.ndarray:
        """How the z_i move per unit step along ``direction`` (they are affine in w).

        After a gradient at w (its margins z), the product computed is X (w + d): the margins
        at the full step afresh (:meth:`full_step_margins`), and the change is their difference
        from z. One product either way; a full step then lands on fresh margins, which the final
        check needs (no product of its own).
        """
        self._full = None
        if self._base is None:
            return self.change_along(direction)
        w, z = self._base
        self._full = self.margins(w + direction)  # bitwise Newton's w + 1.0 * d
        return self._full - z

    def change_along(self, v: np.ndarray) -> np.ndarray:
        """The margins' change per unit step along v: y * (X v), or X v for a regression (one product)."""
        product = self.matvec(v)
        return product if self.regression else self.y * product

    def full_step_margins(self) -> Any:
        """The margins at w + d computed afresh by the last ``margin_change(d)``, or None."""
        return self._full

    def full_step_gradient_terms(self, w_next: np.ndarray) -> tuple[np.ndarray, ...] | None:
        """The gradient terms at w_next = w + d when the last ``margin_change(d)`` computed them with no product
        of their own, else None: in memory it computes only the margins (:class:`BlockwiseObjective`'s step pass
        brings the gradient too)."""
        return None

    def line_derivatives(self, w: np.ndarray, direction: np.ndarray, margins: np.ndarray, change: np.ndarray,
                         t: float) -> tuple[float, float]:
        """phi'(t) and phi''(t) of phi(t) = F(w + t d), where z + t dz are the margins at w + t d (``change``
        = dz): sum_i l'(z_i) dz_i + n Lam grad N . d + b . d + n Delta (w + t d) . d, and
        sum_i l''(z_i) dz_i^2 + n Lam d . H_N d + n Delta ||d||^2. No product with X."""
        z, point, n = margins + t * change, w + t * direction, self.n
        first = (float(self._first(z) @ change) + n * self.lam * float(self.regularizer.gradient(point) @ direction)
                 + float(self.noise @ direction) + n * self.extra_reg * float(point @ direction))
        return first, float(self._second(z) @ np.square(change)) + self.quadratic_curvature(direction)

    def quadratic_curvature(self, direction: np.ndarray) -> float:
        """The curvature along d of F's quadratic part, n Lam d . H_N d + n Delta ||d||^2: a lower bound on
        phi''(t) of phi(t) = F(w + t d) for every t, the loss's part being convex (no product with X)."""
        n = self.n
        return (n * self.lam * float(direction @ self.regularizer.hessian_vector(direction))
                + n * self.extra_reg * float(direction @ direction))

    def curvature_ceiling(self, direction: np.ndarray, change: Any) -> float:
        """An upper bound on phi''(t) of phi(t) = F(w + t d) for every t: c sum_i s_i dz_i^2 + the quadratic
        part's curvature (:meth:`quadratic_curvature`), with c >= l'' the verified ``curvature_bound`` and dz =
        ``change`` the margins' change along d (dz_i^2 = (x_i^T d)^2, as y_i^2 = 1). The sum is raised by (n + 4)
        units of rounding, more than its rounding error and that of c's float (a sum of n nonnegative terms is
        within (n - 1) eps of its value in any order). inf without a verified c or for margins held on Dask
        workers."""
        squares = self._change_squares(change) if np.isfinite(self.curvature_bound) else None
        if squares is None:
            return np.inf
        slack = 1.0 + (self.n + 4) * np.finfo(float).eps
        return self.curvature_bound * squares * slack + self.quadratic_curvature(direction)

    def _change_squares(self, change: Any) -> float | None:
        """sum_i s_i dz_i^2 of the margins' change dz when it is in memory, else None."""
        if not isinstance(change, np.ndarray):
            return None
        return float(change @ change) if self.weights is None else weighted_squares(change, self.weights)

    def value(self, w: np.ndarray, margins: np.ndarray | None = None) -> float:
        z = self.margins(w) if margins is None else margins
        n = self.n
        return (
            self._loss_total(z)
            + n * self.lam * self.regularizer.value(w)
            + float(self.noise @ w)
            + 0.5 * n * self.extra_reg * float(w @ w)
        )

    def _loss_total(self, z: np.ndarray) -> float:
        """sum_i s_i l(z_i)."""
        return float(np.sum(weighted(self.loss.value(z), self.weights)))

    def gradient_terms(self, w: np.ndarray, margins: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """The four gradient terms of F (each n times those of J_b): loss, regularizer, noise, extra."""
        z = self.margins(w) if margins is None else margins
        self._base = (w, z)
        return self._terms(w, self.rmatvec(self._first(z) if self.regression else self.y * self._first(z)))

    def fresh_gradient_terms(self, w: np.ndarray) -> tuple[Any, tuple[np.ndarray, ...]]:
        """(the margins at w afresh, :meth:`gradient_terms` there): the check that ends a solve.

        A dense X is read once, by cache-sized row blocks (:func:`block_margins_and_gradient`: X_b w, then
        X_b^T u_b while the block is in cache), where the margins and the gradient apart read it twice: at
        300,000 x 500, 0.09 s instead of 0.13 s. The block terms are added in block order (the rounding of
        docs/theory.md section 23)."""
        if not self._dense or not np.any(w) or self.weights is not None:  # weighted: the two products
            margins = self.margins(w)
            return margins, self.gradient_terms(w, margins)
        parts = [block_margins_and_gradient(self.X[rows], self.y[rows], w, self.loss.first, self.regression)
                 for rows in self._row_slices()]
        margins = np.concatenate([part[0] for part in parts])
        self._base = (w, margins)
        return margins, self._terms(w, functools.reduce(operator.add, (part[1] for part in parts)))

    def gradient(self, w: np.ndarray, margins: np.ndarray | None = None) -> np.ndarray:
        return add_terms(self.gradient_terms(w, margins))

    def residual(self, w: np.ndarray, margins: np.ndarray | None = None) -> Residual:
        """The residual at w: on the given margins, else on fresh ones (:meth:`fresh_gradient_terms`, the
        computation that ends a solve)."""
        terms = self.fresh_gradient_terms(w)[1] if margins is None else self.gradient_terms(w, margins)
        return relative_residual(terms, self.n)

    @property
    def dense(self) -> bool:
        """Whether X is a dense array (not a sparse matrix)."""
        return self._dense

    @property
    def can_subsample(self) -> bool:
        """Whether a subsampled Hessian is at least four times cheaper than the full one, on an X of more than
        ``SUBSAMPLE_MIN_ENTRIES`` entries n d (public: X's shape).

        Below that size a Newton iteration's fixed cost (its Python, a factorisation, the step's pass over
        a few MB) outweighs what the subsample saves on the Hessian's n d^2 float32 multiply-adds, and
        all-rows Hessians from the first step take fewer iterations. Measured with ``python -m
        benchmarks.speed_ab`` (benchmarks/results/speed_ab_small_n*.md): at 10,000 x 20 (200,000 entries)
        faster on six of the family's eight generators, within the spread on the other two; at 20,000 x 20 and
        10,000 x 50 (400,000 and 500,000) mixed, so they keep the subsample. Only below 100 columns does it change
        a path: from 100 columns on, m >= 20 d rows are more than n / 4 at these sizes."""
        return self.n * self.dim > SUBSAMPLE_MIN_ENTRIES and self.n >= 4 * hessian_sample_size(self.n, self.dim)

    def _sampled_rows(self) -> tuple[np.ndarray, Matrix]:
        """(row indices, float32 rows) of the Hessian subsample: evenly spaced rows."""
        if self._sample is None:
            size = hessian_sample_size(self.n, self.dim)
            rows = evenly_spaced(self.n, size)
            sampled = take_rows(self.X, rows)
            if self._dense:
                sampled = sampled.astype(np.float32)  # in its order: a transposing cast cost 2.6 ms at 4,000 x 200
            self._sample = (rows, sampled)
        return self._sample

    def hessian(self, w: np.ndarray, margins: np.ndarray | None = None, *,
                single: bool = False, subsample: bool = False) -> np.ndarray:
        """Hessian X^T diag(l'') X + n Lam (alpha I + M) + n Delta I (generalised at kinks of l'').

        For dense X only the upper triangle is filled (enough for a Cholesky
        factorisation with ``lower=False``).
        """
        z = self.margins(w) if margins is None else margins
        if subsample and self.can_subsample:
            rows, sampled = self._sampled_rows()
            curvature = self._second(z[rows], rows) * (self.n / rows.size)
            H = self._gram(sampled, curvature, single=self._dense)
        else:
            H = self._gram(None, self._second(z), single)
        return self._regularized(H)

    def _regularized(self, H: np.ndarray) -> np.ndarray:
        """The loss Hessian H plus n Lam (alpha I + M) + n Delta I, in place."""
        n, diagonal = self.n, np.arange(self.dim)
        if self.regularizer.dense is None:
            H[diagonal, diagonal] += self._regularizer_diagonal()
        else:  # alpha I + diag(diagonal) + dense (hessian_diagonal holds diag(dense) already: not added twice)
            H += n * self.lam * self.regularizer.hessian(self.dim)
            H[diagonal, diagonal] += n * self.extra_reg
        return H

    def _gram(self, sampled: Matrix | None, curvature: np.ndarray, single: bool) -> np.ndarray:
        """X^T diag(curvature) X over all rows, or over ``sampled`` rows (upper triangle if dense)."""
        if sampled is not None and not self._dense:
            return _sparse_gram(sampled, curvature)
        if sampled is not None:
            weights = np.sqrt(curvature).astype(np.float32)[:, None]
            return _gram_upper(sampled * weights).astype(np.float64)
        if self._dense and single:
            if self._X_single is None:
                self._X_single = self.X.astype(np.float32)
            weights = np.sqrt(curvature).astype(np.float32)[:, None]
            return _gram_upper(self._X_single * weights).astype(np.float64)
        if self._dense:
            return _gram_upper(self.X * np.sqrt(curvature)[:, None])
        return _sparse_gram(self.X, curvature)

    def _regularizer_diagonal(self) -> np.ndarray:
        """n Lam diag(H_N) + n Delta: the diagonal of F's regularizer terms (diag(dense) included, as
        ``Quadratic.hessian_diagonal`` holds it)."""
        return self.n * self.lam * self.regularizer.hessian_diagonal(self.dim) + self.n * self.extra_reg

    def scale_preconditioner(self, margins: Any) -> np.ndarray | DiagonalPlusRankOne | None:
        """CG's preconditioner from the rows' scales: the rows' mean direction where the features share one
        (:meth:`mean_preconditioner`), else a positive diagonal from public column scales s_j (:attr:`column_scale`),
        else None:

            M_jj = S s_j + n (Lam diag(H_N)_j + Delta),   S = sum_i l''(z_i),

        an estimate of diag(H)_jj = sum_i l''(z_i) x_ij^2 + n (Lam diag(H_N)_j + Delta) that reads no row of X:
        exact for an intercept column (x_ij = c in every row, s_j = c^2), and for a feature column the value its
        entries give on average when the rows lie on the public bound. With an intercept column the Hessian has
        one curvature about c^2 d / R^2 times the others' (the mean direction), and an unpreconditioned CG
        spends a product on it in every Newton direction (docs/performance.md, round 15). Only CG's direction
        depends on M: products, gradients and the stopping test stay exact."""
        if not isinstance(margins, np.ndarray):
            return None
        mean = self.mean_preconditioner(margins)
        if mean is not None or self.column_scale is None:
            return mean
        diagonal = float(np.sum(self.curvature(margins))) * self.column_scale + self._regularizer_diagonal()
        return diagonal if bool(np.all(np.isfinite(diagonal) & (diagonal > 0))) else None

    def mean_preconditioner(self, margins: np.ndarray) -> DiagonalPlusRankOne | None:
        """M = a I + n Lam diag(H_N) + n Delta I + S u u^T, an estimate of the Hessian for rows that share a mean
        direction u (un-centred columns: positive entries, binary or one-hot codes), with S = sum_i l''(z_i) and
        a = S (q - ||u||^2) / d, where u and q are the rows' mean and mean squared norm on evenly spaced runs of
        rows, at least ``MEAN_SAMPLE_ROWS`` and ``MEAN_SAMPLE_PER_FEATURE`` a feature (:func:`mean_sample`,
        computed once a solve): X^T diag(l'') X
        ~ S (u u^T + C) with C the rows' covariance, taken as its trace over d times I. Where the mean direction's
        curvature S ||u||^2 is more than ``MEAN_DIRECTION_RATIO`` times the others' (a plus the regularizer's
        least), a CG without M spends its first products on it: its residual test, relative to a gradient the
        mean direction dominates, stopped it before the other directions were resolved, and the damped Newton
        steps that followed cost iterations. Elsewhere (centred rows, where the sample's ||u||^2 is about d / m of
        q), or for a sparse X, None: CG as before.

        With an intercept column (:attr:`column_scale` given: the mapped rows' last column, of value c), the test
        reads the features' part of u, the features' d - 1 columns share a, and the intercept's own entry of the
        diagonal is the regularizer's alone (a constant column has no spread about its mean): M's intercept entry
        is then S c^2 plus the regularizer's, the public diagonal's, and M also holds the coupling S c u_f between
        the intercept and the features' mean u_f, which the diagonal alone left to CG (positive rows with an
        intercept at 20,000 x 1,000: 9 Newton iterations under the diagonal, 5 under M, in an in-process trace).
        Where the features share no mean direction the public diagonal serves as before. Only CG's direction
        depends on M (any
        positive definite M): products, gradients and the stopping test stay exact, and the sample is read by the
        solver like any row of X (NOT PRIVATE, never released).

        Measured with ``python -m benchmarks.speed_ab`` (benchmarks/results/speed_ab_mean_direction*.md; the
        held-out generators of ``python -m benchmarks.family_sweep --held-out``; docs/performance.md, round 19),
        dpcvx / lbfgs: positive 0.70 -> 0.53 and one-hot 0.73 -> 0.63 at 20,000 x 1,000, binary 0.83 -> 0.72 and
        one-hot 0.97 -> 0.79 at 300,000 x 500; the family's own (centred) generators take the same path.
        """
        if self._moments is None:
            self._moments = self._row_moments()
        if not self._moments:  # (): never above the others' curvature, whatever S (:meth:`_row_moments`)
            return None
        mean, spread = self._moments
        total = float(np.sum(self.curvature(margins)))
        features, diagonal = self._features(), self._regularizer_diagonal()  # a new array
        diagonal[:features] += total * spread / features  # not the intercept column's: no spread about its mean
        if not (np.isfinite(total) and total >= 0 and bool(np.all(np.isfinite(diagonal) & (diagonal > 0)))):
            return None
        shared = mean[:features]
        if not total * float(shared @ shared) > MEAN_DIRECTION_RATIO * float(np.min(diagonal[:features])):
            return None
        return DiagonalPlusRankOne(diagonal, mean, total)

    def _features(self) -> int:
        """The feature columns: all but the intercept column that :attr:`column_scale` states (RowMap appends it
        last), else all."""
        return self.dim - 1 if self.column_scale is not None else self.dim

    def _row_moments(self) -> tuple[np.ndarray, float] | tuple[()]:
        """(u, q - ||u||^2) of :meth:`mean_preconditioner`'s sample, or () where the features' ||u_f||^2 <=
        ``MEAN_DIRECTION_RATIO`` (q - ||u||^2) / (their number): then S ||u_f||^2 stays below the threshold for
        every S, the regularizer's curvature only adding to the others'. Where the sample shows a mean direction,
        u and q are taken again on ``MEAN_PRECISE_ROWS`` rows: the direction's error is then a few percent (on
        one-hot codes of 8 categories, sqrt(7 / m) of ||u||), where 500 rows left 12 % and the deflation gained
        less."""
        moments = _sample_moments(self._mean_rows(precise=False))
        if moments is None:
            return ()
        features = self._features()
        shared = moments[0][:features]
        if not float(shared @ shared) > MEAN_DIRECTION_RATIO * moments[1] / features:
            return ()
        return _sample_moments(self._mean_rows(precise=True)) or ()

    def _mean_rows(self, precise: bool) -> list[np.ndarray]:
        """The rows :meth:`mean_preconditioner` reads (:func:`mean_sample`): views of a dense X, none of a sparse
        one."""
        return [self.X[rows] for rows in mean_sample(self.n, self.dim, precise)] if self._dense else []

    def hessian_diagonal(self, w: np.ndarray, margins: np.ndarray | None = None) -> np.ndarray:
        """diag(H) = sum_i l''(z_i) x_ij^2 + n Lam diag(alpha I + M) + n Delta: a Jacobi preconditioner."""
        z = self.margins(w) if margins is None else margins
        out = np.asarray(self._squared().T @ self._second(z)).ravel()
        out += self._regularizer_diagonal()
        return out

    def _squared(self) -> Matrix:
        """X's squared entries, kept: nnz floats sharing X's indices when sparse."""
        if self._X_squared is None:
            self._X_squared = np.square(self.X) if self._dense else sparse.csr_matrix(
                (np.square(self.X.data), self.X.indices, self.X.indptr), shape=self.X.shape)
        return self._X_squared

    @property
    def jacobi_pays(self) -> bool:
        """Whether diag(H) is worth a pass per Newton direction as CG's preconditioner: for a sparse X only
        (dense rows take none), and only when the loss can move diag(H) by more than ``JACOBI_SPREAD`` of
        its smallest regularizer term: c max_j ||X_:j||^2 > JACOBI_SPREAD n (Lam min diag(H_N) + Delta),
        with c the verified curvature bound (l'' <= c). Otherwise diag(H) is within that factor of a
        multiple of the identity, whose preconditioning is none. Decided once, from the column norms
        (one product with the squared entries, which are kept only when the diagonal pays), and asked by
        CG only once it is slow without a preconditioner (``cg.JACOBI_SLOW``): on the speed sweep's
        CSR CG never is, and the decision's pass and squares (about 12 ms of 150) are saved.

        Measured on the speed sweep's CSR (200,000 x 100,000, 20 nonzeros a row, Lam 1e-4, eps 1):
        c max_j ||X_:j||^2 = 1.2 against n Lam = 20; without the diagonal the solve took 4 Newton
        iterations instead of 5 and no diagonal pass (0.15 s against 0.19 s). On Adult's one-hot columns
        (a column's squared norm up to n / 14) the diagonal spans orders of magnitude and is kept."""
        if self._dense:
            return False
        if self._jacobi_pays is None:
            n = self.n
            floor = float(np.min(self._regularizer_diagonal()))
            columns = np.asarray(self._squared().T @ np.ones(n)).ravel()  # (np.bincount over the indices: 3x slower)
            self._jacobi_pays = not self.curvature_bound * float(np.max(columns)) <= JACOBI_SPREAD * floor
            if not self._jacobi_pays:
                self._X_squared = None  # nnz floats no diagonal will read
        return self._jacobi_pays

    @property
    def jacobi_decided(self) -> bool:
        """Whether :attr:`jacobi_pays` is known without a pass: always for dense rows, after its first call
        for a sparse X."""
        return self._dense or self._jacobi_pays is not None

    def jacobi(self, w: np.ndarray, margins: np.ndarray, reuse: bool) -> np.ndarray:
        """diag(H) as CG's preconditioner: the last one computed when ``reuse`` (near the optimum H barely
        moves, and any positive diagonal keeps CG exact), else computed at w."""
        if self._jacobi is None or not reuse:
            self._jacobi = self.hessian_diagonal(w, margins)
        return self._jacobi

    def curvature_along(self, w: np.ndarray, v: np.ndarray, change: np.ndarray, margins: np.ndarray) -> float:
        """v^T H v from the margins' change dz along v (no X^T product): sum_i l''(z_i) dz_i^2 + n Lam v^T H_N v
        + n Delta ||v||^2 (dz_i^2 = (x_i^T v)^2, as y_i^2 = 1), with l'' as :meth:`hessian_product` takes it."""
        n = self.n
        return (float(self.curvature(margins) @ np.square(change))
                + n * self.lam * float(v @ self.regularizer.hessian_vector(v)) + n * self.extra_reg * float(v @ v))

    def estimated_curvature_along(self, v: np.ndarray, margins: np.ndarray) -> float:
        """An estimate of v^T H v from m = ``CURVATURE_SAMPLE_ROWS`` rows in runs of consecutive rows (:func:`row_runs`;
        views of a dense X): (n / m) sum_{i in sample} l''(z_i) (x_i^T v)^2 plus the quadratic part's curvature, exact
        (:meth:`quadratic_curvature`). For the step length of :meth:`step_pass`, which must be known before
        its read of X: it shapes only the Newton direction (the gradient there is computed exactly).

        Its error depends on the rows sampled, not on d: 500 rows cost 2.5 % of a pass at 20,000 x 1,000. A
        relative error e in the curvature gives CG's step 1 / (1 + e) of its exact length, and that step keeps
        1 - e^2 / (1 + e)^2 of the exact step's decrease of the quadratic model: nothing at e = -1/2, and less than
        nothing below. Where the sampled rows carry little of the curvature (outliers of a Huber loss) e is near -1,
        so CG checks the estimate against the exact curvature after the read (``cg.SAMPLED_CURVATURE``)."""
        curvature, total, rows = self.curvature(margins), 0.0, 0
        for run in row_runs(self.n, CURVATURE_SAMPLE_ROWS):
            product = row_product(self.X[run], v) if self._dense else np.asarray(self.X[run] @ v).ravel()
            total += float(curvature[run] @ np.square(product))
            rows += product.size
        return total * (self.n / rows) + self.quadratic_curvature(v)

    @property
    def fuses_step(self) -> bool:
        """Whether :meth:`step_pass` reads X once for CG's step and the gradient at Newton's full step: a dense X
        in memory, without record weights."""
        return self._dense and self.fuses_fresh_step

    @property
    def fuses_fresh_step(self) -> bool:
        """Whether CG's last step may leave out its product X p_k where Newton's step can end the solve: X in
        memory (dense or sparse), without record weights. The fresh margins at w + d, which that step needs
        anyway, then come from :meth:`step_pass` with a sampled step length, and X p_k is not computed."""
        return self.weights is None and self.steps_from_products

    def step_pass(self, w: np.ndarray, v: np.ndarray, alpha: float, margins: np.ndarray,
                  change: np.ndarray | None, w_next: np.ndarray, *, hessian: bool, fresh: bool) -> StepPass:
        """CG's step ``alpha`` along v and the gradient terms at w_next = w + d (d CG's direction with that step)
        in one read of a dense X by cache-sized row blocks (:attr:`fuses_step`), for a step length known
        before the read (:meth:`estimated_curvature_along`).

        Per block, while it is in cache: X_b v (unless ``fresh`` without ``hessian``: it is not needed), the
        Hessian's term X_b^T (l'' * X_b v) when ``hessian`` (:func:`block_hessian_product`'s two products,
        for CG's residual where the step may not be its last), the margins at w_next, and the loss gradient's
        term X_b^T (y * l'(z_b)) there. The margins are ``margins`` + the change (``change`` + alpha y * X v,
        the sum CG keeps, as Newton's full step adds it), or with ``fresh`` X_b w_next afresh
        (:func:`block_margins`, bitwise the margins of :meth:`fresh_gradient_terms`' blocks: the check that
        ends a solve reads them). Apart, the step's X v and the gradient read X twice (``change_along`` and
        ``gradient_terms``), or three times with fresh margins. The block terms are added in block order (the
        rounding of docs/theory.md section 23, as :meth:`fresh_gradient_terms`).

        A sparse X has no row blocks to share: it takes only ``fresh`` without ``hessian``
        (:attr:`fuses_fresh_step`), the margins at w_next and the gradient there by
        :meth:`fresh_gradient_terms`, which is the product X p_k fewer than CG's step and that check apart."""
        if not self._dense:
            assert fresh and not hessian, "a sparse X's step pass computes fresh margins only"
            z_next, terms = self.fresh_gradient_terms(w_next)
            self._full = z_next
            return StepPass(None, None, z_next - margins, z_next, terms)
        curvature = self.curvature(margins) if hessian else None
        offset = self._offset_wanted if hessian else None
        hessians: list[np.ndarray] = []
        offsets: list[np.ndarray] = []
        alongs: list[np.ndarray] = []
        changes: list[np.ndarray] = []
        nexts: list[np.ndarray] = []
        gradient: np.ndarray | None = None
        for rows in self._row_slices():
            block, y = self.X[rows], self.y[rows]
            product: np.ndarray | None
            step_change: np.ndarray | None = None
            if curvature is not None:
                term, product = block_hessian_product(block, curvature[rows], v)
                hessians.append(term)
            else:
                product = None if fresh else row_product(block, v)
            if offset is not None:
                offsets.append(row_product(block, offset))
            if product is not None:
                along = product if self.regression else y * product
                step_change = alpha * along if change is None else change[rows] + alpha * along
                alongs.append(along)
                changes.append(step_change)
            if fresh:
                z, term = block_margins_and_gradient(block, y, w_next, self.loss.first, self.regression)
            else:
                assert step_change is not None  # (X_b v is read for the updated margins)
                z = margins[rows] + step_change
                term = block_gradient(block, y, z, self.loss.first, self.regression)
            nexts.append(z)
            gradient = term if gradient is None else gradient + term
        assert gradient is not None
        z_next = np.concatenate(nexts)
        if offsets:
            self._keep_offset(np.concatenate(offsets))
        product_v = self._regularized_product(functools.reduce(operator.add, hessians), v) if hessians else None
        along_v = np.concatenate(alongs) if alongs else None
        total_change = np.concatenate(changes) if changes else z_next - margins
        self._base = (w_next, z_next)
        self._full = z_next if fresh else None
        return StepPass(product_v, along_v, total_change, z_next, self._terms(w_next, gradient))

    def every(self, margins: Any, step: int) -> np.ndarray | None:
        """Every ``step``-th row's margins (rows 0, step, 2 step, ...) when they are in memory, else None (held on
        Dask workers)."""
        return margins[::step] if isinstance(margins, np.ndarray) else None

    def curvature(self, z: np.ndarray) -> np.ndarray:
        """l''(z), kept for the margins last asked for (CG's products all share the margins of one step)."""
        if self._curvature is None or self._curvature[0] is not z:
            self._curvature = (z, weighted(elementwise(self.loss.second, z), self.weights))
        return self._curvature[1]

    def hessian_vector(self, w: np.ndarray, v: np.ndarray, margins: np.ndarray | None = None) -> np.ndarray:
        """Hessian times v without forming the Hessian: X^T (l'' * (X v)) + n Lam H_N v + n Delta v."""
        return self.hessian_product(w, v, margins)[0]

    def hessian_product(self, w: np.ndarray, v: np.ndarray,
                        margins: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(H v, the margins' change per unit step along v: y * (X v), or X v for a regression).

        The change comes with the product for free (X v is one of its two products): CG adds up its
        directions' changes into the change along the Newton direction, so that a step costs no product
        of its own (:attr:`steps_from_products`). A dense X is read once, by cache-sized row blocks
        (:func:`block_hessian_product`, in block order), the first such read also giving the :attr:`offset`'s
        margins while each block is in cache; a sparse X by its two products. (l'' is even in y for a margin
        loss, since y^2 = 1: the Hessian is X^T diag(l'') X.)"""
        z = self.margins(w) if margins is None else margins
        curvature = self.curvature(z)
        if self._dense:
            offset = self._offset_wanted
            parts = []
            for rows in self._row_slices():
                block = self.X[rows]
                term, change = block_hessian_product(block, curvature[rows], v)
                parts.append((term, change, None if offset is None else row_product(block, offset)))
            out = functools.reduce(operator.add, (part[0] for part in parts))
            product = np.concatenate([part[1] for part in parts])
            if offset is not None:
                self._keep_offset(np.concatenate([part[2] for part in parts]))
        else:
            product = np.asarray(self.X @ v).ravel()
            out = np.asarray(self.X.T @ (curvature * product)).ravel()
        return self._regularized_product(out, v), product if self.regression else self.y * product

    @property
    def fuses_gradient(self) -> bool:
        """Whether :meth:`hessian_product_and_gradient` reads X once for its two products: a sparse X in
        memory, whose X^T U of two columns (scipy's csc_matvecs) takes 7.3 ms against 2 x 5.7 ms for two
        products on the speed sweep's 200,000 x 100,000 CSR."""
        return not self._dense

    def hessian_product_and_gradient(self, w: np.ndarray, v: np.ndarray, change: np.ndarray, margins: np.ndarray,
                                     w_next: np.ndarray, margins_next: np.ndarray,
                                     ) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
        """(H v at w, :meth:`gradient_terms` at w_next), with ``change`` the margins' change along v
        (:meth:`change_along`) and ``margins_next`` the margins at w_next: the two X^T products as one,
        X^T [l''(z) * X v, y * l'(z_next)] (X v = y * change, y^2 = 1). For a sparse X
        (:attr:`fuses_gradient`)."""
        product = change if self.regression else self.y * change
        first = self._first(margins_next)
        columns = np.column_stack([self.curvature(margins) * product, first if self.regression else self.y * first])
        both = np.asarray(self.X.T @ columns)
        self._base = (w_next, margins_next)
        return self._regularized_product(np.ascontiguousarray(both[:, 0]), v), self._terms(
            w_next, np.ascontiguousarray(both[:, 1]))

    def _regularized_product(self, out: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The loss Hessian's product ``out`` plus n Lam H_N v + n Delta v, in place."""
        n = self.n
        out += n * self.lam * self.regularizer.hessian_vector(v) + n * self.extra_reg * v
        return out

    @property
    def steps_from_products(self) -> bool:
        """Whether a CG direction's step takes its margin change from CG's products (no product of its own).

        True in memory: :meth:`margin_change` would cost a product with X (half a pass) per Newton
        iteration, saved for one product of fresh margins before the solve stops. False for
        :class:`~dpcvx.solvers.blockwise.BlockwiseObjective`, whose step pass also brings the gradient at
        the full step (one read of X either way)."""
        return True
