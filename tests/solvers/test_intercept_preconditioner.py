"""CG beyond DENSE_NEWTON_MAX_DIM columns with an intercept column: the public column scales' diagonal.

An appended intercept column of value s gives the Hessian one curvature about s^2 d / R^2 times the others'; an
unpreconditioned CG spent a Hessian-vector product on it in every Newton direction. RowMap.column_scale states the
columns' public scales and PerturbedObjective.scale_preconditioner turns them into CG's diagonal.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse

from dpcvx import PrivateERM, losses
from dpcvx.data.rows import RowMap
from dpcvx.solvers.linear import DENSE_NEWTON_MAX_DIM
from dpcvx.solvers.objective import PerturbedObjective

D = DENSE_NEWTON_MAX_DIM + 60  # features; with the intercept column every Newton direction comes from CG


def test_column_scale_is_public_and_exact_for_the_intercept_column():
    rows = RowMap(norm_bound=2.0, fit_intercept=True, intercept_scaling=0.5)
    scale = rows.column_scale(5)
    assert scale is not None
    np.testing.assert_array_equal(scale, [1.0, 1.0, 1.0, 1.0, 0.25])  # R^2 / 4 each feature, s^2 the intercept
    assert RowMap(norm_bound=2.0).column_scale(5) is None  # no intercept: all columns alike, no preconditioner


def test_the_intercept_entry_of_the_diagonal_is_the_hessians_own(rows_in_ball):
    X, y = rows_in_ball(300, 6, 0)
    rows = RowMap(norm_bound=1.0, fit_intercept=True, intercept_scaling=0.7)
    mapped, _ = rows.apply(X)
    learner = PrivateERM(losses.logistic(), lam=1e-2, data_norm=1.0)
    problem = learner._verified(mapped.shape[1])
    assert problem.derivatives is not None and problem.quadratic is not None
    objective = PerturbedObjective(mapped, y, problem.derivatives, problem.quadratic, 1e-2, np.zeros(7),
                                   column_scale=rows.column_scale(7))
    w = np.linspace(-1, 1, 7)
    margins = objective.margins(w)
    diagonal = objective.scale_preconditioner(margins)
    assert diagonal is not None and diagonal.shape == (7,)
    exact = objective.hessian_diagonal(w, margins)
    assert diagonal[-1] == pytest.approx(exact[-1], rel=1e-12)  # every row holds s: no estimate
    assert np.all(diagonal > 0)


def _without_scales(monkeypatch: pytest.MonkeyPatch) -> None:
    """The column scales withheld: no public diagonal for CG."""
    monkeypatch.setattr(RowMap, "column_scale", lambda self, dim: None)


def _unpreconditioned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scales and the rows' mean direction withheld: CG unpreconditioned."""
    _without_scales(monkeypatch)
    monkeypatch.setattr(PerturbedObjective, "mean_preconditioner", lambda self, margins: None)


@pytest.mark.parametrize("seed", [0, 1])
def test_an_intercept_column_costs_cg_no_extra_products(seed, rows_in_ball, fits_with_and_without):
    X, y = rows_in_ball(1500, D, seed)
    fits = fits_with_and_without(X, y, _unpreconditioned, seed, lam=1e-3, fit_intercept=True)
    (with_scales, _, weights), (without, _, weights0) = fits[True], fits[False]
    assert with_scales <= without - 2, (with_scales, without)
    # both are certified stops of the same objective with the same noise: the same release up to the solver's gamma
    np.testing.assert_allclose(weights[:-1], weights0[:-1], atol=1e-6)
    assert weights[-1] == pytest.approx(weights0[-1], abs=1e-6)


def sparse_rows(n: int, d: int, seed: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    """CSR rows of 10 entries on the unit sphere, labels of a linear rule with noise."""
    rng = np.random.default_rng(seed)
    columns = rng.integers(0, d, size=(n, 10))
    values = rng.normal(size=(n, 10))
    values /= np.linalg.norm(values, axis=1)[:, None]
    X = sparse.csr_matrix((values.ravel(), columns.ravel(), np.arange(0, 10 * n + 1, 10)), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sparse.csr_matrix(X.multiply(1 / np.maximum(norms, 1e-12)[:, None]))
    y = np.where(X @ rng.normal(size=d) + 0.1 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def test_a_sparse_intercept_column_is_preconditioned_too(fits_with_and_without):
    X, y = sparse_rows(20000, 2000, 0)
    counts = fits_with_and_without(X, y, _without_scales, 0, lam=1e-4, fit_intercept=True)
    assert counts[True][0] <= counts[False][0] - 2 and counts[True][1] <= counts[False][1], counts  # 5, 6 against 8, 7
