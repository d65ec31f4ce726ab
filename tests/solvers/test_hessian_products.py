"""Hessian-vector products: the row-block form equals the whole-matrix one, and CG computes no extra one.

Row blocks compute H v = sum_b X_b^T (l''_b * (X_b v)) + n Lam v while each block is in cache
(``block_hessian_product``: the row blocks of a memmap or row-major array, and the blocks of a dense
in-memory X of either memory order); the whole-matrix form, written here with numpy and scipy's
sigmoid, is X^T (l'' * (X v)) + n Lam v. They differ only in the order of the additions, so they agree
to a few ulps of sum_i |x_ij| l''_i |x_i^T v| (docs/theory.md section 23, the rounding of block sums):
the tolerance below is 1e-12 of that scale, on row- and column-major X and on a block size that does
not divide n. Dropping one block (a broken variant) is far outside it.

Conjugate gradients take one Hessian-vector product (one pass over X) per iteration and none besides:
scipy's LinearOperator, when not told its dtype, applies the operator once to find it.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.linalg import LinearOperator
from scipy.special import expit

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
        monkeypatch.setattr(objective_module, "block_hessian_product",
                            lambda block, c, v: product(block, c, v) * (block.shape[0] == BLOCK_ROWS))
    return PerturbedObjective(X, *_args(y, X.shape[1]))


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
