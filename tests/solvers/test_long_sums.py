"""X^T u of a sparse X, of a column-major X and of widths outside the row-block reads (the gradient that decides
release on those paths, weighted or not) is summed by row blocks of ``SUM_BLOCK_ROWS`` rows, added in order, once X
has more rows (docs/theory.md section 23). One product summed each coordinate over all |D| rows, whose worst-case
rounding gamma_{|D|} |D| L R exceeds the half of gamma = tol N L R kept for it beyond 4.5e5 rows at the default tol;
by blocks the bound is gamma_{B + ceil(|D| / B)} |D| L R. The blocks of a CSR X are views of its arrays."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sparse

from dpcvx import losses
from dpcvx.solvers import objective as objective_module
from dpcvx.solvers.objective import PerturbedObjective
from dpcvx.verification.verifier import verify_loss, verify_regularizer


def _objective(X, d: int) -> PerturbedObjective:
    y = np.where(np.arange(X.shape[0]) % 3 == 0, -1.0, 1.0)
    return PerturbedObjective(X, y, verify_loss(losses.logistic()).derivatives,
                              verify_regularizer(None, d).analysis.quadratic, 1e-3, np.zeros(d))


@pytest.mark.parametrize("kind", ["sparse", "column-major", "narrow row-major"])
def test_a_long_product_is_the_in_order_sum_of_its_row_blocks(kind, monkeypatch):
    monkeypatch.setattr(objective_module, "SUM_BLOCK_ROWS", 1000)  # the rule, at a size a test can afford
    rng = np.random.default_rng(3)
    n, d = 4_500, 6
    dense = rng.uniform(-1, 1, (n, d)) * (rng.random((n, d)) < 0.4)
    X = {"sparse": sparse.csr_matrix(dense), "column-major": np.asfortranarray(dense),
         "narrow row-major": np.ascontiguousarray(dense)}[kind]
    u = rng.normal(size=n) * 10.0 ** rng.integers(-8, 8, size=n)  # magnitudes spread: sums that round differently
    objective = _objective(X, d)
    by_blocks = np.zeros(d)
    for start in range(0, n, 1000):
        by_blocks = by_blocks + np.asarray(dense[start:start + 1000].T @ u[start:start + 1000]).ravel()
    computed = objective.rmatvec(u)
    assert np.all(np.abs(computed - by_blocks) <= 4 * np.finfo(float).eps * (np.abs(dense.T) @ np.abs(u)))
    exact = np.array([math.fsum((dense[:, j] * u).tolist()) for j in range(d)])
    terms = 1000 + math.ceil(n / 1000) + 1
    bound = terms * np.finfo(float).eps / 2 / (1 - terms * np.finfo(float).eps / 2) * (np.abs(dense.T) @ np.abs(u))
    assert np.all(np.abs(computed - exact) <= bound)
    if kind == "sparse":
        blocks = objective._sum_blocks()
        assert len(blocks) == 5 and all(np.shares_memory(block.data, X.data) for _, block in blocks)
        X.has_sorted_indices = False  # not known canonical (the fit's CSR often is not): views still, no copy of X
        blocks = _objective(X, d)._sum_blocks()
        assert all(np.shares_memory(block.data, X.data) for _, block in blocks)


def test_a_short_product_is_one_product():
    rng = np.random.default_rng(4)
    X = sparse.random(500, 8, density=0.3, format="csr", random_state=4)
    u = rng.normal(size=500)
    assert np.array_equal(_objective(X, 8).rmatvec(u), np.asarray(X.T @ u).ravel())
