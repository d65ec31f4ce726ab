"""Record weights over a memmap's row blocks: every formula of BlockwiseObjective weighs each record's l, l' and l''
by its s_i, as the objective of the rows in memory does (docs/theory.md, sections 21 and 23).

Each quantity Newton reads (the gradient that decides release, F's value, the all-rows Hessian in double and single
precision and formed ahead by a step's pass, the subsampled Hessian, the curvature ceiling of the step test) is
compared with the weighted objective of the same rows in memory, and the gradient with one written here with numpy;
at the narrow width (margins recomputed by each pass) and at the kept one.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from dpcvx import losses
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.solvers import linear, objective
from dpcvx.solvers.blockwise import KEPT_MIN_DIM, BlockwiseObjective
from dpcvx.solvers.objective import PerturbedObjective
from dpcvx.verification.verifier import verify_loss, verify_regularizer

LAM = 1e-3


def _gradient(X: np.ndarray, y: np.ndarray, s: np.ndarray, w: np.ndarray) -> np.ndarray:
    """grad F of F(w) = sum_i s_i log(1 + exp(-y_i w^T x_i)) + n Lam ||w||^2 / 2, independently of dpcvx."""
    return -X.T @ (s * y * expit(-y * (X @ w))) + X.shape[0] * LAM * w


def _close_in_single(H: np.ndarray, reference: np.ndarray) -> None:
    """float32 Hessians: within 1e-5 of the reference's largest entry (their sums run in other orders)."""
    np.testing.assert_allclose(np.triu(H), np.triu(reference), rtol=0, atol=1e-5 * np.abs(reference).max())


def _objectives(X: np.ndarray, y: np.ndarray, s: np.ndarray | None) -> tuple[BlockwiseObjective, PerturbedObjective]:
    d = X.shape[1]
    derivatives = verify_loss(losses.logistic()).derivatives
    quadratic = verify_regularizer(None, d).analysis.quadratic
    blocks = RowBlocks(X, RowMap(norm_bound=1.0), block_rows=700, checked=True)  # several blocks, a short last one
    blockwise = BlockwiseObjective(np.empty((0, d)), y, derivatives, quadratic, LAM, np.zeros(d), weights=s,
                                   curvature_bound=0.25, blocks=blocks)
    return blockwise, PerturbedObjective(np.asarray(X), y, derivatives, quadratic, LAM, np.zeros(d), weights=s,
                                         curvature_bound=0.25)


@pytest.fixture(params=[10, KEPT_MIN_DIM], ids=["recomputed margins", "kept margins"])
def weighted_memmap(request, rows_in_ball, tmp_path):
    n, d = 8_000, request.param
    X, _ = rows_in_ball(n, d, seed=d)
    rng = np.random.default_rng(d)
    y = np.where(rng.random(n) < expit(X @ (3.0 * rng.normal(size=d))), 1.0, -1.0)
    np.save(tmp_path / "X.npy", X)
    return np.load(tmp_path / "X.npy", mmap_mode="r"), y, rng.uniform(0.0, 3.0, n), rng.normal(size=d)


def test_every_blockwise_formula_weighs_the_records_as_in_memory(weighted_memmap, monkeypatch):
    monkeypatch.setattr(objective, "SUBSAMPLE_MIN_ENTRIES", 0)  # a subsampled Hessian at this size too
    X, y, s, w = weighted_memmap
    blockwise, memory = _objectives(X, y, s)
    assert blockwise.can_subsample and memory.can_subsample
    assert blockwise.unkept == (X.shape[1] < KEPT_MIN_DIM)
    for point in (np.zeros_like(w), w):  # the cold start's signed zeros, and a point
        independent = _gradient(np.asarray(X), y, s, point)
        np.testing.assert_allclose(blockwise.gradient(point), independent, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(blockwise.value(point), memory.value(point), rtol=1e-13)
    assert not np.allclose(_objectives(X, y, None)[0].gradient(w), blockwise.gradient(w), rtol=1e-3)  # s matters
    np.testing.assert_allclose(np.triu(blockwise.hessian(w)), np.triu(memory.hessian(w)), rtol=1e-12)
    _close_in_single(blockwise.hessian(w, single=True), memory.hessian(w, single=True))
    _close_in_single(blockwise.hessian(w, subsample=True), memory.hessian(w, subsample=True))


def test_a_weighted_step_pass_gives_the_full_step_gradient_hessian_and_ceiling_of_the_rows_in_memory(
        weighted_memmap):
    """The step's pass computes the gradient at w + d and, asked ahead, the all-rows Hessian there; the step test's
    curvature ceiling sums s_i dz_i^2 (a pass over the blocks where the change is recomputed)."""
    X, y, s, w = weighted_memmap
    blockwise, memory = _objectives(X, y, s)
    direction = 0.1 * np.roll(w, 1)
    blockwise.gradient_terms(w)
    blockwise.hessian_ahead = True
    change = blockwise.margin_change(direction)
    terms = blockwise.full_step_gradient_terms(w + direction)
    assert terms is not None
    np.testing.assert_allclose(sum(terms), _gradient(np.asarray(X), y, s, w + direction), rtol=1e-12, atol=1e-9)
    passes = blockwise.passes
    _close_in_single(blockwise.hessian(w + direction, blockwise.full_step_margins(), single=True),
                     memory.hessian(w + direction, single=True))
    assert blockwise.passes == passes  # the Hessian the step's pass formed ahead
    memory.gradient_terms(w)
    expected = memory.curvature_ceiling(direction, memory.margin_change(direction))
    np.testing.assert_allclose(blockwise.curvature_ceiling(direction, change), expected, rtol=1e-12)


def test_a_weighted_blockwise_solve_reaches_the_weighted_certified_minimiser(weighted_memmap):
    X, y, s, _ = weighted_memmap
    blockwise, memory = _objectives(X, y, s)
    gamma = 1e-9 * X.shape[0]
    w, info = linear.newton(blockwise, gradient_tolerance=gamma)
    assert info.status == "converged"
    assert np.linalg.norm(_gradient(np.asarray(X), y, s, w)) <= gamma  # certified by an independent gradient
    np.testing.assert_allclose(w, linear.newton(memory, gradient_tolerance=gamma)[0], rtol=1e-8, atol=1e-10)
