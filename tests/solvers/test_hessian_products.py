"""Hessian-vector products: the row-block form equals the whole-matrix one, and CG computes no extra one.

Row blocks compute H v = sum_b X_b^T (l''_b * (X_b v)) + n Lam v while each block is in cache; the
whole-matrix form is X^T (l'' * (X v)) + n Lam v. They differ only in the order of the additions, so
they agree to a few ulps of sum_i |x_ij| l''_i |x_i^T v| (docs/theory.md, the rounding bound of block
sums): the tolerance below is 1e-12 of that scale, on row- and column-major X and on a block size that
does not divide n. Dropping one block (a broken variant) is far outside it.

Conjugate gradients take one Hessian-vector product (one pass over X) per iteration and none besides:
scipy's LinearOperator, when not told its dtype, applies the operator once to find it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator

import dpcvx.solvers.linear as linear
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


@pytest.fixture
def problem(rows_in_ball) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    X, y = rows_in_ball(N, D, seed=3)
    rng = np.random.default_rng(4)
    return X, y, rng.normal(size=D), rng.normal(size=D)


def _scale(X: np.ndarray, y: np.ndarray, w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """sum_i |x_ij| l''(z_i) |x_i^T v| per column: what the rounding of the sums is relative to."""
    curvature = verify_loss(losses.logistic()).derivatives.second(y * (X @ w))
    return np.abs(X).T @ (curvature * np.abs(X @ v))


@pytest.mark.parametrize("order", ["C", "F"])
def test_row_block_product_equals_the_whole_matrix_product(problem, order):
    X, y, w, v = problem
    X = np.asarray(X, order=order)
    plain = PerturbedObjective(X, *_args(y, D)).hessian_vector(w, v)
    objective = _blockwise(X, y)
    assert len(objective._blocks()._bounds) == 7 and N % BLOCK_ROWS != 0
    fused = objective.hessian_vector(w, v)
    np.testing.assert_allclose(fused, plain, rtol=0, atol=float(1e-12 * _scale(X, y, w, v).max()))
    assert objective.passes == 2  # the margins at w, then one pass for H v


def test_a_dropped_block_is_outside_the_tolerance(problem):
    X, y, w, v = problem
    plain = PerturbedObjective(X, *_args(y, D)).hessian_vector(w, v)
    broken = _blockwise(X, y, drop_last=True).hessian_vector(w, v)
    assert np.max(np.abs(broken - plain)) > 1e3 * 1e-12 * _scale(X, y, w, v).max()


@pytest.mark.parametrize("path", ["column-major", "row-blocks"])
@pytest.mark.parametrize("probe", [False, True], ids=["dtype-given", "broken-dtype-probe"])
def test_cg_computes_one_product_per_iteration(problem, path, probe, monkeypatch):
    X, y, w, _ = problem
    objective = PerturbedObjective(np.asfortranarray(X), *_args(y, D)) if path == "column-major" \
        else _blockwise(X, y)
    margins = objective.margins(w)
    gradient = objective.gradient(w, margins)
    products, iterations = [], []
    original_product, original_cg = objective.hessian_vector, linear.cg

    def counted_product(*args, **kwargs):
        products.append(1)
        return original_product(*args, **kwargs)

    def counted_cg(*args, **kwargs):
        return original_cg(*args, callback=lambda _: iterations.append(1), **kwargs)

    monkeypatch.setattr(objective, "hessian_vector", counted_product)
    monkeypatch.setattr(linear, "cg", counted_cg)
    if probe:  # the broken variant: the operators' dtype left for scipy to find
        monkeypatch.setattr(linear, "LinearOperator",
                            lambda shape, matvec, dtype=None: LinearOperator(shape, matvec=matvec))
    direction = linear._preconditioned_cg(objective, w, margins, gradient, 1e-8, None)
    assert iterations and len(products) == len(iterations) + (1 if probe else 0)
    H = np.stack([original_product(w, e, margins) for e in np.eye(D)], axis=1)
    assert np.linalg.norm(H @ direction + gradient) <= 1e-8 * np.linalg.norm(gradient)
