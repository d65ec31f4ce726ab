"""A memmap narrower than KEPT_MIN_DIM columns is solved without holding an n-vector (issue 44: an estimator's fit
on a memmap grows anonymous memory by less than a tenth of the file, whatever its width).

Newton over row blocks used to keep about eight float64 n-vectors (margins at w and at the full step, their change,
the offset's margins, the line search's temporaries): 64 bytes a row, 0.42 of a 1,000,000 x 20 file. There the
margins are now :class:`~dpcvx.solvers.blockwise.RowMargins`, recomputed by each pass from the block it reads. These
tests pin that such a solve never materialises them, that its memory stays under two n-vectors where the kept
path's does not, and that it reaches the same certified minimiser as the rows in memory.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from scipy.special import expit

import dpcvx.solvers.blockwise as blockwise
import dpcvx.solvers.linear as linear
from dpcvx import losses
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.models import erm_inputs
from dpcvx.solvers.blockwise import KEPT_MIN_DIM, BlockwiseObjective, RowMargins
from dpcvx.verification.verifier import verify_loss, verify_regularizer

LAM = 1e-4


def _objective(X: np.ndarray, y: np.ndarray) -> BlockwiseObjective:
    d = X.shape[1]
    derivatives = verify_loss(losses.logistic()).derivatives
    quadratic = verify_regularizer(None, d).analysis.quadratic
    return BlockwiseObjective(np.empty((0, d)), y, derivatives, quadratic, LAM, np.zeros(d),
                              curvature_bound=0.25, blocks=RowBlocks.views(X, RowMap(norm_bound=1.0)))


def _memmap(tmp_path, X: np.ndarray) -> np.ndarray:
    np.save(tmp_path / "X.npy", X)
    return np.load(tmp_path / "X.npy", mmap_mode="r")


def _gradient(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """grad F, independently of dpcvx: -sum_i y_i sigma(-y_i w^T x_i) x_i + n Lam w."""
    return -X.T @ (y * expit(-y * (X @ w))) + X.shape[0] * LAM * w


def _solve_traced(objective: BlockwiseObjective, gamma: float) -> tuple[np.ndarray, linear.SolveInfo, int]:
    tracemalloc.start()
    try:
        w, info = linear.newton(objective, gradient_tolerance=gamma)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return w, info, peak


@pytest.mark.slow
@pytest.mark.parametrize("generator", ["predicted", "flat"])
def test_a_narrow_memmaps_solve_holds_no_n_vector_and_reaches_the_certified_minimiser(rows_in_ball, tmp_path,
                                                                                      monkeypatch, generator):
    n, d = 600_000, 5  # blocks of 52,428 rows (2 MB): under an n-vector
    X, _ = rows_in_ball(n, d, seed=5)
    rng = np.random.default_rng(6)
    # predicted labels, or labels the rows barely predict (the flat-curvature rule, read on every 64th row)
    logits = X @ (3.0 * rng.normal(size=d)) if generator == "predicted" else 0.05 * X[:, 0]
    y = np.where(rng.random(n) < expit(logits), 1, -1).astype(np.int8)  # as the estimators hand them over
    gamma = 1e-9 * n
    mapped = _memmap(tmp_path, X)

    def never(self, dtype=None, copy=None):
        raise AssertionError("a narrow memmap's solve materialised its margins")

    monkeypatch.setattr(RowMargins, "__array__", never)
    objective = _objective(mapped, y)
    assert objective.unkept
    w, info, peak = _solve_traced(objective, gamma)
    assert info.status == "converged" and info.final_margins is None and info.offset_margins is None
    # certified by an independent gradient, and the minimiser of the rows in memory
    labels = y.astype(float)
    assert np.linalg.norm(_gradient(X, labels, w)) <= gamma
    w_memory, _ = linear.newton(_objective(X, labels), gradient_tolerance=gamma)
    np.testing.assert_allclose(w, w_memory, rtol=1e-7, atol=1e-9)
    # under two float64 n-vectors, blocks (a read of the subsample's rows, its float32 copy) and the labels included
    vector = 8 * n
    assert peak < 2 * vector, f"peak {peak / vector:.1f} n-vectors"
    # the check has teeth: the same solve keeping its n-vectors holds several
    monkeypatch.setattr(blockwise, "KEPT_MIN_DIM", 0)
    kept = _objective(mapped, y)
    assert not kept.unkept
    _, kept_info, kept_peak = _solve_traced(kept, gamma)
    assert kept_info.status == "converged" and kept_peak > 3 * vector


def test_margins_plus_a_change_are_the_margins_at_the_moved_point_computed_afresh(rows_in_ball, tmp_path):
    X, y = rows_in_ball(3_000, 12, seed=7)
    objective = _objective(_memmap(tmp_path, X), y)
    rng = np.random.default_rng(8)
    w, direction, t = rng.normal(size=12), rng.normal(size=12), 0.37
    z = objective.margins(w)
    objective.gradient_terms(w, z)
    change = objective.margin_change(direction)
    moved = z + t * change
    assert isinstance(moved, RowMargins) and np.array_equal(moved.point, w + t * direction)  # Newton's w + t d
    assert np.array_equal(np.asarray(moved), np.asarray(objective.margins(w + t * direction)))
    np.testing.assert_allclose(np.asarray(moved), y * (X @ (w + t * direction)), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.asarray(change), y * (X @ direction), rtol=1e-12, atol=1e-14)
    # the full step's margins and its gradient come from the step's pass, at w + 1.0 d afresh
    full = objective.full_step_margins()
    assert isinstance(full, RowMargins) and np.array_equal(full.point, w + direction)
    np.testing.assert_allclose(objective.full_step_gradient_terms(w + direction)[0],
                               -X.T @ (y * expit(-y * (X @ (w + direction)))), rtol=1e-10, atol=1e-10)
    # the overshoot's curvature bound from sum (x_i . d)^2, by a pass
    bound = objective.curvature_ceiling(direction, change) - objective.quadratic_curvature(direction)
    squares = float(np.sum((X @ direction) ** 2))
    assert 0.25 * squares <= bound <= 0.25 * squares * (1 + 1e-9)


def test_margins_are_kept_from_kept_min_dim_columns_and_for_rows_in_memory(rows_in_ball, tmp_path):
    narrow, y = rows_in_ball(500, KEPT_MIN_DIM - 1, seed=9)
    wide = np.hstack([narrow, np.zeros((500, 1))])
    assert _objective(_memmap(tmp_path, narrow), y).unkept
    assert not _objective(narrow, y).unkept  # rows in memory
    np.save(tmp_path / "wide.npy", wide)
    assert not _objective(np.load(tmp_path / "wide.npy", mmap_mode="r"), y).unkept
    assert isinstance(_objective(narrow, y).margins(np.ones(KEPT_MIN_DIM - 1)), np.ndarray)


def test_the_labels_of_rows_read_by_blocks_are_one_byte_each(rows_in_ball):
    y = np.array(["no", "yes", "yes", "no", "yes"])
    rows = np.zeros((5, 2))
    in_memory = erm_inputs.fit_labels(("no", "yes"), None, y, rows, refuse_excess=False)
    by_blocks = erm_inputs.fit_labels(("no", "yes"), None, y, RowBlocks.views(rows, RowMap(norm_bound=1.0)),
                                      refuse_excess=False)
    assert in_memory.dtype == np.float64 and by_blocks.dtype == np.int8
    assert np.array_equal(in_memory, by_blocks) and np.array_equal(by_blocks, [-1, 1, 1, -1, 1])
