"""Hessian-vector products: the row-block form equals the whole-matrix one, and CG computes no extra one.

Row blocks compute H v = sum_b X_b^T (l''_b * (X_b v)) + n Lam v while each block is in cache
(``block_hessian_product``: the row blocks of a memmap or row-major array, and the blocks of a dense
in-memory X of either memory order); the whole-matrix form, written here with numpy and scipy's
sigmoid, is X^T (l'' * (X v)) + n Lam v. They differ only in the order of the additions, so they agree
to a few ulps of sum_i |x_ij| l''_i |x_i^T v| (docs/theory.md section 23, the rounding of block sums):
the tolerance below is 1e-12 of that scale, on row- and column-major X and on a block size that does
not divide n. Dropping one block (a broken variant) is far outside it.

Conjugate gradients take one Hessian-vector product (one pass over X) per iteration and none besides,
and in memory they return the margins' change along their direction, y * (X d), from those products:
a Newton step then needs no product of its own.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse
from scipy.special import expit

import dpcvx.solvers.cg as krylov
import dpcvx.solvers.linear as linear
import dpcvx.solvers.objective as objective_module
from dpcvx import losses
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap
from dpcvx.solvers.blockwise import BlockwiseObjective
from dpcvx.solvers.objective import PerturbedObjective
from dpcvx.verification.verifier import verify_loss, verify_regularizer

LAM = 1e-3
N, D = 2_000, 30
BLOCK_ROWS = 333  # 2,000 = 6 x 333 + 2: the last block is short


def _args(y: np.ndarray, d: int) -> tuple:
    return (y, verify_loss(losses.logistic()).derivatives, verify_regularizer(None, d).analysis.quadratic, LAM,
            np.zeros(d))


def _blockwise(X: np.ndarray, y: np.ndarray, drop_last: bool = False) -> BlockwiseObjective:
    blocks = RowBlocks(X, RowMap(norm_bound=1.0), BLOCK_ROWS, checked=True)
    if drop_last:  # the broken variant: one block's rows never enter the sum
        blocks._bounds = blocks._bounds[:-1]
    return BlockwiseObjective(X[:0], *_args(y, X.shape[1]), blocks=blocks)


def _in_memory(X: np.ndarray, y: np.ndarray, monkeypatch, drop_last: bool = False) -> PerturbedObjective:
    """The in-memory objective, its dense X read by blocks of BLOCK_ROWS rows."""
    monkeypatch.setattr(objective_module, "cache_block_rows", lambda width: BLOCK_ROWS)
    if drop_last:  # the broken variant: the short last block contributes nothing
        product = objective_module.block_hessian_product
        def dropped(block, c, v):
            term, change = product(block, c, v)
            return term * (block.shape[0] == BLOCK_ROWS), change

        monkeypatch.setattr(objective_module, "block_hessian_product", dropped)
    return PerturbedObjective(X, *_args(y, X.shape[1]))


def _at(X: object, y: np.ndarray, w: np.ndarray) -> tuple[PerturbedObjective, np.ndarray, np.ndarray]:
    """(the in-memory objective of X, its margins at w, its gradient there)."""
    objective = PerturbedObjective(X, *_args(y, D))
    margins = objective.margins(w)
    return objective, margins, objective.gradient(w, margins)


@pytest.fixture
def problem(rows_in_ball) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    X, y = rows_in_ball(N, D, seed=3)
    rng = np.random.default_rng(4)
    return X, y, rng.normal(size=D), rng.normal(size=D)


def _whole(X: np.ndarray, y: np.ndarray, w: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, float]:
    """(X^T (l'' * (X v)) + n Lam v, the rounding scale max_j sum_i |x_ij| l''_i |x_i^T v|), independently
    of dpcvx: l''(z) = sigma(z) sigma(-z) for l(z) = log(1 + e^-z)."""
    z = y * (X @ w)
    curvature = expit(z) * expit(-z)
    scale = float((np.abs(X).T @ (curvature * np.abs(X @ v))).max())
    return X.T @ (curvature * (X @ v)) + X.shape[0] * LAM * v, scale


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("path", ["row-blocks", "in-memory"])
def test_row_block_product_equals_the_whole_matrix_product(problem, order, path, monkeypatch):
    X, y, w, v = problem
    X = np.asarray(X, order=order)
    assert N % BLOCK_ROWS != 0
    objective = _blockwise(X, y) if path == "row-blocks" else _in_memory(X, y, monkeypatch)
    plain, scale = _whole(X, y, w, v)
    np.testing.assert_allclose(objective.hessian_vector(w, v), plain, rtol=0, atol=1e-12 * scale)
    if path == "row-blocks":
        assert objective.passes == 2  # the margins at w, then one pass for H v


@pytest.mark.parametrize("path", ["row-blocks", "in-memory"])
def test_a_dropped_block_is_outside_the_tolerance(problem, path, monkeypatch):
    X, y, w, v = problem
    broken = (_blockwise(X, y, drop_last=True) if path == "row-blocks"
              else _in_memory(X, y, monkeypatch, drop_last=True))
    plain, scale = _whole(X, y, w, v)
    assert np.max(np.abs(broken.hessian_vector(w, v) - plain)) > 1e3 * 1e-12 * scale


@pytest.mark.parametrize("path", ["column-major", "row-blocks", "sparse"])
def test_cg_computes_one_product_per_iteration_and_tracks_the_margin_change(problem, path, monkeypatch):
    """CG's direction meets its forcing, with one Hessian-vector product (one pass) per iteration, and the
    change it returns is y * (X d) (the product the Newton step then saves)."""
    X, y, w, _ = problem
    if path == "column-major":
        objective = PerturbedObjective(np.asfortranarray(X), *_args(y, D))
    elif path == "sparse":
        objective = PerturbedObjective(sparse.csr_matrix(X), *_args(y, D))
    else:
        objective = _blockwise(X, y)
    margins = objective.margins(w)
    gradient = objective.gradient(w, margins)
    products = []
    for name in ("hessian_vector", "hessian_product"):
        original = getattr(objective, name)
        monkeypatch.setattr(objective, name, lambda *a, original=original, **k: products.append(1) or original(*a, **k))
    direction, change, _ = krylov.preconditioned_cg(objective, w, margins, gradient, 1e-8, None, track_change=True)
    assert 1 <= len(products) <= D
    H = np.stack([objective.hessian_product(w, e, margins)[0] for e in np.eye(D)], axis=1)
    assert np.linalg.norm(H @ direction + gradient) <= 1e-8 * np.linalg.norm(gradient)
    scale = np.abs(X).sum(axis=1).max() * np.abs(direction).max()
    np.testing.assert_allclose(change, y * (X @ direction), rtol=0, atol=1e-12 * scale)
    untracked, none, _ = krylov.preconditioned_cg(objective, w, margins, gradient, 1e-8, None)
    assert none is None and np.array_equal(untracked, direction)


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_newton_step_from_cg_takes_no_product_of_its_own(problem, monkeypatch, task):
    """In memory, the step along a CG direction takes its margin change from CG (no margin_change product),
    and the point it returns meets the gradient bound on fresh margins (the dense objective's gradient); a
    regression's change is X d (its residuals X w - y), a classifier's y * X d."""
    X, y, _, _ = problem
    regression = task == "regression"
    loss = losses.squared_error() if regression else losses.logistic()
    args = (y, verify_loss(loss).derivatives, *_args(y, D)[2:])
    objective = PerturbedObjective(sparse.csr_matrix(X), *args, regression=regression)
    start = np.full(D, 0.1)
    margins = objective.margins(start)
    direction, change, _ = krylov.preconditioned_cg(objective, start, margins, objective.gradient(start, margins),
                                                  1e-6, None, track_change=True)
    np.testing.assert_allclose(change, X @ direction if regression else y * (X @ direction), rtol=0,
                               atol=1e-12 * np.abs(X).sum(axis=1).max() * np.abs(direction).max())
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 0)  # every direction from CG
    monkeypatch.setattr(objective, "margin_change", lambda *_: pytest.fail("a product the CG change saves"))
    w, info = linear.newton(objective, gradient_tolerance=1e-8)
    assert info.converged
    plain = PerturbedObjective(X, *args, regression=regression)
    assert np.linalg.norm(plain.gradient(w)) <= 0.5e-8


@pytest.mark.parametrize("preconditioner", ["none", "diagonal", "cholesky"])
@pytest.mark.parametrize("forcing", [0.3, 0.05, 1e-3])
def test_cg_takes_the_iterates_of_textbook_preconditioned_cg(problem, preconditioner, forcing):
    """The direction is scipy's cg's (the same iterates, in exact arithmetic and to rounding here) after as
    many products, for each preconditioner. A CG whose search direction aliased its residual (M = I returned
    the residual itself, then updated in place) still met its forcing, but with more products and other
    directions: this test fails on it."""
    from scipy.sparse.linalg import LinearOperator, cg

    X, y, w, _ = problem
    objective = PerturbedObjective(np.asfortranarray(X), *_args(y, D))
    margins = objective.margins(w)
    gradient = objective.gradient(w, margins)
    H = np.stack([objective.hessian_vector(w, e, margins) for e in np.eye(D)], axis=1)
    diagonal = np.diag(H) * np.linspace(0.5, 2.0, D)  # any positive diagonal (not H's own)
    given = {"none": None, "diagonal": diagonal, "cholesky": krylov.cho_factor(np.triu(H + np.diag(diagonal)))}
    inverse = {"none": None, "diagonal": LinearOperator((D, D), matvec=lambda r: r / diagonal, dtype=float),
               "cholesky": LinearOperator((D, D), matvec=lambda r: krylov.cho_solve(given["cholesky"], r),
                                          dtype=float)}
    ours_products, theirs_products = [], []
    original = objective.hessian_vector
    objective.hessian_vector = lambda *a, **k: ours_products.append(1) or original(*a, **k)
    ours, _, _ = krylov.preconditioned_cg(objective, w, margins, gradient, forcing, given[preconditioner])
    operator = LinearOperator((D, D), matvec=lambda v: theirs_products.append(1) or H @ v, dtype=float)
    theirs, _ = cg(operator, -gradient, rtol=forcing, atol=0.0, M=inverse[preconditioner])
    assert len(ours_products) == len(theirs_products)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9 * np.linalg.norm(theirs))


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_newtons_first_step_from_zero_is_cgs_first_step_from_one_product(problem, monkeypatch, task):
    """Where every direction comes from CG, the first step from zero is CG's first step alpha (-g), alpha =
    ||g||^2 / g^T H g (here against an independent H v), from one product X g and no X^T product; the
    solve still ends on the gradient bound. An alpha from n Lam alone (the curvature without l'') fails."""
    X, y, _, _ = problem
    regression = task == "regression"
    loss = losses.squared_error() if regression else losses.logistic()
    args = (y, verify_loss(loss).derivatives, *_args(y, D)[2:])
    objective = PerturbedObjective(sparse.csr_matrix(X), *args, regression=regression)
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 0)
    w = np.zeros(D)
    margins = objective.margins(w)
    gradient = objective.gradient(w, margins)
    products = []
    monkeypatch.setattr(objective, "hessian_product", lambda *_: pytest.fail("CG's product"))
    monkeypatch.setattr(objective, "matvec", lambda v: products.append(1) or X @ v)
    direction, change = linear._cauchy_step(objective, w, margins, gradient)
    assert products == [1]
    H_g = PerturbedObjective(X, *args, regression=regression).hessian_vector(w, gradient, margins)
    alpha = float(gradient @ gradient) / float(gradient @ H_g)
    np.testing.assert_allclose(direction, -alpha * gradient, rtol=1e-10)
    np.testing.assert_allclose(change, -alpha * (X @ gradient if regression else y * (X @ gradient)), rtol=1e-10)
    monkeypatch.undo()
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 0)
    solved, info = linear.newton(PerturbedObjective(sparse.csr_matrix(X), *args, regression=regression),
                                 gradient_tolerance=1e-8)
    assert info.converged
    assert np.linalg.norm(PerturbedObjective(X, *args, regression=regression).gradient(solved)) <= 0.5e-8


@pytest.mark.parametrize("path", ["column-major", "sparse"])
def test_cgs_predicted_last_step_takes_only_x_p_and_lands_on_cgs_iterate(problem, path, monkeypatch):
    """In memory, once a step's residual contraction predicts that the next step meets the forcing, CG takes
    that step from X p alone (no Hessian product): its iterate is textbook CG's after as many steps (alpha_k
    = rho_k / p_k^T H p_k, here against H built from independent products), and the forcing holds. An
    alpha whose curvature lacks l'' (the broken variant) lands elsewhere."""
    X, y, w, _ = problem
    objective = PerturbedObjective(np.asfortranarray(X) if path == "column-major" else sparse.csr_matrix(X),
                                   *_args(y, D))
    margins = objective.margins(w)
    gradient = objective.gradient(w, margins)
    H = np.stack([PerturbedObjective(X, *_args(y, D)).hessian_vector(w, e, margins) for e in np.eye(D)], axis=1)
    products = []
    original = objective.hessian_product
    monkeypatch.setattr(objective, "hessian_product", lambda *a: products.append(1) or original(*a))
    forcing = 1e-6
    direction, change, _ = krylov.preconditioned_cg(objective, w, margins, gradient, forcing, None, track_change=True)
    steps = len(products) + 1  # the last from X p alone
    assert len(products) >= 2
    d, r = np.zeros(D), -gradient.copy()
    p, rho = r.copy(), float(r @ r)
    for _ in range(steps):  # textbook CG (Nocedal and Wright, Algorithm 5.2)
        alpha = rho / float(p @ H @ p)
        d, r = d + alpha * p, r - alpha * (H @ p)
        rho, previous = float(r @ r), rho
        p = r + (rho / previous) * p
    np.testing.assert_allclose(direction, d, rtol=1e-8, atol=1e-12 * np.abs(d).max())
    assert np.linalg.norm(H @ direction + gradient) <= forcing * np.linalg.norm(gradient)
    np.testing.assert_allclose(change, y * (X @ direction), rtol=0, atol=1e-10 * np.abs(change).max())



@pytest.mark.parametrize("task", ["classification", "regression"])
def test_the_fused_product_is_the_hessian_product_and_the_gradient_at_the_next_point(problem, task):
    """X^T [l'' * X v, y * l'(z')] in one product: H v at w and the gradient terms at w' (on margins z'), as
    the two products apart give them (a sparse X)."""
    X, y, w, v = problem
    regression = task == "regression"
    loss = losses.squared_error() if regression else losses.logistic()
    args = (y, verify_loss(loss).derivatives, *_args(y, D)[2:])
    objective = PerturbedObjective(sparse.csr_matrix(X), *args, regression=regression)
    assert objective.fuses_gradient and not PerturbedObjective(X, *args, regression=regression).fuses_gradient
    margins, w_next = objective.margins(w), w + 0.3 * v
    change = objective.change_along(v)
    product, terms = objective.hessian_product_and_gradient(w, v, change, margins, w_next, margins + 0.3 * change)
    expected, _ = objective.hessian_product(w, v, margins)
    np.testing.assert_allclose(product, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    for ours, theirs in zip(terms, objective.gradient_terms(w_next, objective.margins(w_next)), strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12 * max(np.abs(theirs).max(), 1.0))


def test_cg_brings_the_next_gradient_only_when_it_stops_after_its_first_step(problem, monkeypatch):
    """With next_gradient, a CG that stops after its first step returns the gradient terms at w + d (the
    margins of Newton's full step) from that step's X^T product, and no Hessian product of its own; one
    that goes on returns none; a dense X is never asked."""
    X, y, w, _ = problem
    objective, margins, gradient = _at(sparse.csr_matrix(X), y, w)
    calls = []
    original = objective.hessian_product
    monkeypatch.setattr(objective, "hessian_product", lambda *a: calls.append(1) or original(*a))
    loose = 0.9  # met by the first step
    direction, change, terms = krylov.preconditioned_cg(objective, w, margins, gradient, loose, None,
                                                        track_change=True, next_gradient=True)
    assert terms is not None and not calls
    H = np.stack([objective.hessian_vector(w, e, margins) for e in np.eye(D)], axis=1)
    assert np.linalg.norm(H @ direction + gradient) <= loose * np.linalg.norm(gradient)
    expected = objective.gradient(w + direction, margins + change)
    np.testing.assert_allclose(linear.add_terms(terms), expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())
    plain, _, none = krylov.preconditioned_cg(objective, w, margins, gradient, loose, None, track_change=True)
    assert none is None
    np.testing.assert_allclose(plain, direction, rtol=1e-12, atol=1e-14 * np.abs(direction).max())
    _, _, dropped = krylov.preconditioned_cg(objective, w, margins, gradient, 1e-6, None, track_change=True,
                                             next_gradient=True)
    assert dropped is None and calls  # CG went on: its later steps' products
    # a dense X reads each row block once for CG's step and the gradient there (step_pass), not by two X^T products
    dense = PerturbedObjective(X, *_args(y, D))
    monkeypatch.setattr(dense, "hessian_product_and_gradient", lambda *_: pytest.fail("a dense X fuses by blocks"))
    step, change, terms = krylov.preconditioned_cg(dense, w, margins, gradient, loose, None, track_change=True,
                                                   next_gradient=True)
    assert terms is not None
    expected = dense.gradient(w + step, margins + change)
    np.testing.assert_allclose(linear.add_terms(terms), expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose(margins + change, dense.margins(w + step), rtol=1e-10, atol=1e-12)


def test_newton_takes_the_gradient_cg_brought_and_lands_where_it_did_without(problem, monkeypatch):
    """On a sparse X with every direction from CG, the gradients CG's first steps brought replace Newton's
    own products (fewer gradient_terms calls) and the solve meets the same bound on fresh margins."""
    X, y, _, _ = problem
    monkeypatch.setattr(linear, "DENSE_NEWTON_MAX_DIM", 0)
    args = (*_args(y, D)[:3], 0.05, _args(y, D)[4])  # Lam 0.05: H near n Lam I, CG's first steps meet the forcing
    solves = {}
    for fused in (True, False):
        objective = PerturbedObjective(sparse.csr_matrix(X), *args)
        if not fused:
            monkeypatch.setattr(PerturbedObjective, "fuses_gradient", property(lambda self: False))
        calls = []
        original = objective.gradient_terms
        monkeypatch.setattr(objective, "gradient_terms",
                            lambda *a, calls=calls, original=original, **k: calls.append(1) or original(*a, **k))
        w, info = linear.newton(objective, gradient_tolerance=1e-8)
        assert info.converged
        assert np.linalg.norm(PerturbedObjective(X, *args).gradient(w)) <= 0.5e-8
        solves[fused] = (w, len(calls), info.iterations)
    assert solves[True][1] < solves[False][1]
    np.testing.assert_allclose(solves[True][0], solves[False][0], rtol=0, atol=1e-8)


@pytest.mark.parametrize("order", ["C", "F"])
def test_a_step_pass_computes_what_its_parts_compute_apart(problem, order, monkeypatch):
    """CG's step and the gradient at Newton's full step in one read (step_pass), against the methods it
    replaces: H v and the change along v as hessian_product gives them, bitwise (the same blocks and
    formulas); the margins z + (change + alpha y X v) as CG and Newton add them, bitwise; the gradient there as
    gradient_terms gives it (another summation order: to 1e-12 of its scale); and with fresh margins, the
    margins and gradient terms of fresh_gradient_terms at w + d, bitwise (the check that ends a solve)."""
    X, y, w, v = problem
    X = np.asarray(X, order=order)
    objective = _in_memory(X, y, monkeypatch)
    assert objective.fuses_step
    margins = objective.margins(w)
    previous = 0.3 * objective.change_along(v[::-1].copy())  # CG's change along its earlier steps
    alpha, d_before = 0.7, 0.3 * v[::-1]
    w_next = w + (d_before + alpha * v)
    landed = objective.step_pass(w, v, alpha, margins, previous, w_next, hessian=True, fresh=False)
    product, along = objective.hessian_product(w, v, margins)
    assert np.array_equal(landed.product, product) and np.array_equal(landed.along, along)
    assert np.array_equal(landed.change, previous + alpha * along)
    assert np.array_equal(landed.margins, margins + landed.change)
    expected = linear.add_terms(objective.gradient_terms(w_next, margins + landed.change))
    scale = float(np.abs(X).sum(axis=0).max())
    np.testing.assert_allclose(linear.add_terms(landed.terms), expected, rtol=0, atol=1e-12 * scale)
    fresh = objective.step_pass(w, v, alpha, margins, previous, w_next, hessian=False, fresh=True)
    fresh_margins, fresh_terms = objective.fresh_gradient_terms(w_next)
    assert np.array_equal(fresh.margins, fresh_margins) and fresh.product is None and fresh.along is None
    assert all(np.array_equal(a, b) for a, b in zip(fresh.terms, fresh_terms, strict=True))
    objective.step_pass(w, v, alpha, margins, previous, w_next, hessian=False, fresh=True)
    assert np.array_equal(objective.full_step_margins(), fresh_margins)  # Newton's full step lands on them
    objective.step_pass(w, v, alpha, margins, previous, w_next, hessian=True, fresh=False)
    assert objective.full_step_margins() is None  # updated margins are not fresh ones
    np.testing.assert_allclose(fresh.change, fresh_margins - margins, rtol=0, atol=0)
    assert not PerturbedObjective(sparse.csr_matrix(X), *_args(y, D)).fuses_step  # a CSR: no row blocks


def test_the_step_length_comes_from_a_sample_of_the_curvature(problem, rows_in_ball):
    """The curvature along v that fixes step_pass's step before its read: exact (to rounding) where the sample
    holds every row, and within a tenth of v^T H v on 20,000 rows in the ball, where it reads 500 of them."""
    X, y, w, v = problem
    small = PerturbedObjective(X[:400], *_args(y[:400], D))
    z = small.margins(w)
    exact = small.curvature_along(w, v, small.change_along(v), z)
    assert small.estimated_curvature_along(v, z) == pytest.approx(exact, rel=1e-12)
    X, y = rows_in_ball(20_000, D, seed=5)
    large = PerturbedObjective(X, *_args(y, D))
    z = large.margins(w)
    exact = large.curvature_along(w, v, large.change_along(v), z)
    loss_part = exact - large.quadratic_curvature(v)
    assert abs(large.estimated_curvature_along(v, z) - exact) <= 0.1 * loss_part


def test_a_sparse_cg_step_that_can_end_the_solve_leaves_out_its_own_product(problem, monkeypatch):
    """On a CSR, where Newton's step can end the solve (``fresh``), CG's predicted last step takes its length from
    the sampled curvature and no product X p_k of its own: the fresh margins at w + d and the gradient there,
    which that step needs anyway, are its one read (before: X p_k, then those two products)."""
    X, y, w, _ = problem
    objective, margins, gradient = _at(sparse.csr_matrix(X), y, w)
    calls = []
    original = objective.change_along
    monkeypatch.setattr(objective, "change_along", lambda v: calls.append(1) or original(v))
    direction, change, terms = krylov.preconditioned_cg(objective, w, margins, gradient, 1e-6, None,
                                                        track_change=True, fresh=True)
    assert terms is not None and not calls
    fresh_margins, fresh_terms = objective.fresh_gradient_terms(w + direction)
    assert np.array_equal(objective.full_step_margins(), fresh_margins)
    assert all(np.array_equal(a, b) for a, b in zip(terms, fresh_terms, strict=True))
    np.testing.assert_allclose(margins + change, fresh_margins, rtol=0, atol=1e-12)
    H = np.stack([objective.hessian_vector(w, e, margins) for e in np.eye(D)], axis=1)
    assert np.linalg.norm(H @ direction + gradient) <= 1e-3 * np.linalg.norm(gradient)  # a sampled last step


@pytest.mark.parametrize("kind", ["dense", "sparse"])
def test_a_sampled_curvature_far_from_the_exact_one_gives_cg_its_exact_step(problem, kind, monkeypatch):
    """Where the sampled rows carry little of the curvature (outliers of a Huber loss, rows a logistic loss saturates),
    the last step's guessed length is far off: the exact curvature, from the read's own X p_k (or the fresh margins'
    change), is checked, and outside ``SAMPLED_CURVATURE`` CG takes its exact step and returns no gradient (an audit
    found 3 to 8 times the Newton iterations, and a fit that failed after its charge, without this check). The
    direction is then the one CG takes without the fused read."""
    X, y, w, _ = problem
    matrix = X if kind == "dense" else sparse.csr_matrix(X)
    objective, margins, gradient = _at(matrix, y, w)
    plain, plain_change, _ = krylov.preconditioned_cg(objective, w, margins, gradient, 1e-6, None, track_change=True)
    estimate = objective.estimated_curvature_along
    monkeypatch.setattr(objective, "estimated_curvature_along", lambda v, z: 0.005 * estimate(v, z))
    for options in ({"fresh": True}, {"next_gradient": True}) if kind == "dense" else ({"fresh": True},):
        direction, change, terms = krylov.preconditioned_cg(objective, w, margins, gradient, 1e-6, None,
                                                            track_change=True, **options)
        assert terms is None, options
        np.testing.assert_allclose(direction, plain, rtol=1e-9, atol=1e-12 * np.abs(plain).max())
        np.testing.assert_allclose(change, plain_change, rtol=1e-7, atol=1e-10 * np.abs(plain_change).max())


def test_a_guessed_first_step_that_misses_the_forcing_returns_no_gradient(problem, monkeypatch):
    """CG's first step on a dense X lands at a guessed length; where that length misses the forcing but the exact one
    meets it, CG stops at the exact step, and the gradient its read computed (at the guessed point, where Newton does
    not go) is not returned."""
    X, y, w, _ = problem
    objective, margins, gradient = _at(X, y, w)
    estimate = objective.estimated_curvature_along
    monkeypatch.setattr(objective, "estimated_curvature_along", lambda v, z: 0.05 * estimate(v, z))
    loose = 0.9  # met by the exact first step, not by one twenty times its length
    direction, change, terms = krylov.preconditioned_cg(objective, w, margins, gradient, loose, None,
                                                        track_change=True, next_gradient=True)
    exact, _, _ = krylov.preconditioned_cg(objective, w, margins, gradient, loose, None, track_change=True)
    assert terms is None
    np.testing.assert_allclose(direction, exact, rtol=1e-12, atol=1e-14 * np.abs(exact).max())
    np.testing.assert_allclose(margins + change, objective.margins(w + direction), rtol=1e-10, atol=1e-12)
