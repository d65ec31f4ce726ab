"""CG beyond DENSE_NEWTON_MAX_DIM columns on rows that share a mean direction: the rank-one preconditioner.

Un-centred columns (positive entries, binary or one-hot codes) give the Hessian one curvature many times the others',
along the rows' mean; CG's residual test, relative to a gradient that direction dominates, stopped it before the
other directions were resolved, and damped Newton steps followed. PerturbedObjective.mean_preconditioner estimates
the Hessian as a multiple of I plus S u u^T (u the rows' mean on a row sample) and CG inverts it by Sherman-Morrison.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcvx import PrivateERM, losses
from dpcvx.solvers.cg import preconditioner_solve
from dpcvx.solvers.linear import DENSE_NEWTON_MAX_DIM
from dpcvx.solvers.objective import DiagonalPlusRankOne, PerturbedObjective

D = DENSE_NEWTON_MAX_DIM + 100  # every Newton direction comes from CG


def positive_rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Entries uniform in [0, 1] / sqrt(d) (un-centred: the mean carries about 3/4 of a row's squared norm), labels
    of a logistic model on the centred rows."""
    rng = np.random.default_rng(seed)
    X = rng.random(size=(n, d)) / np.sqrt(d)
    margins = (X - X.mean(axis=0)) @ rng.normal(size=d) * 6.0
    return X, np.where(rng.random(n) < 1 / (1 + np.exp(-margins)), 1.0, -1.0)


def test_the_solve_inverts_the_diagonal_plus_rank_one():
    rng = np.random.default_rng(0)
    diagonal, vector = rng.uniform(0.5, 2.0, 7), rng.normal(size=7)
    preconditioner = DiagonalPlusRankOne(diagonal, vector, 3.0)
    matrix = np.diag(diagonal) + 3.0 * np.outer(vector, vector)
    r = rng.normal(size=7)
    np.testing.assert_allclose(matrix @ preconditioner_solve(preconditioner)(r), r, rtol=1e-12, atol=1e-12)


def _without_mean(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mean direction withheld (an intercept column's public diagonal then serves, as before)."""
    monkeypatch.setattr(PerturbedObjective, "mean_preconditioner", lambda self, margins: None)


def _fits(X: np.ndarray, y: np.ndarray, fits_with_and_without, fit_intercept: bool = False):
    """(Hessian products, Newton iterations, released weights) with and without the mean direction."""
    fits = fits_with_and_without(X, y, _without_mean, 3, lam=1e-4, fit_intercept=fit_intercept)
    # both are certified stops of the same objective with the same noise: the same release up to the solver's gamma
    np.testing.assert_allclose(fits[True][2], fits[False][2], atol=1e-6)
    return fits


@pytest.mark.parametrize("seed", [0, 1])
def test_uncentred_rows_take_fewer_products_with_their_mean_direction(seed, fits_with_and_without):
    fits = _fits(*positive_rows(8000, D, seed), fits_with_and_without)
    (with_mean, iterations, _), (without, iterations0, _) = fits[True], fits[False]
    # measured: 7 products and 6 iterations against 9 and 6 (both seeds; 10 and 8 before a failed full step's
    # second trial came from the line's minimum, linear._line_damping)
    assert with_mean <= without - 2 and iterations <= iterations0, fits


@pytest.mark.parametrize("seed", [0, 1])
def test_with_an_intercept_the_features_mean_direction_is_coupled_to_it(seed, fits_with_and_without):
    """The public diagonal preconditions the intercept's own curvature but not the features' mean direction nor its
    coupling to the intercept: M holds both."""
    fits = _fits(*positive_rows(8000, D, seed), fits_with_and_without, fit_intercept=True)
    (with_mean, iterations, _), (without, iterations0, _) = fits[True], fits[False]
    # measured: 6 products and 6 iterations against 12 and 6 (seed 0), 5 and 5 against 14 and 6 (seed 1); 15 and 7
    # for seed 0 before CG's step and the next gradient shared a read (step_pass)
    assert with_mean <= without - 2 and iterations <= iterations0, fits


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_centred_rows_keep_their_path(fit_intercept, rows_in_ball, fits_with_and_without):
    """u ~ 0 on centred rows: M ~ a multiple of I, which leaves CG's iterates (and their count) as they were; with an
    intercept column (whose mean is its value) the features' mean decides, and the public diagonal serves."""
    fits = _fits(*rows_in_ball(8000, D, 0), fits_with_and_without, fit_intercept)
    assert fits[True][:2] == fits[False][:2], fits


def test_the_mean_is_read_on_a_sample_of_rows_in_memory_only(rows_in_ball):
    X, y = positive_rows(5000, 8, 0)
    learner = PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0)
    problem = learner._verified(8)
    assert problem.derivatives is not None and problem.quadratic is not None
    objective = PerturbedObjective(X, y, problem.derivatives, problem.quadratic, 1e-4, np.zeros(8))
    margins = objective.margins(np.full(8, 0.1))
    preconditioner = objective.mean_preconditioner(margins)
    assert isinstance(preconditioner, DiagonalPlusRankOne)
    np.testing.assert_allclose(preconditioner.vector, X.mean(axis=0), rtol=0.05)  # 1,000 of 5,000 rows
    assert preconditioner.weight == pytest.approx(float(np.sum(objective.curvature(margins))))
    assert objective.scale_preconditioner(margins) is not None
    assert objective.scale_preconditioner(objective.margins(np.zeros(8)).tolist()) is None  # not in memory


def test_a_memmap_reads_its_sample_alone_and_finds_the_same_direction(tmp_path, monkeypatch):
    X, y = positive_rows(6000, D, 0)
    np.save(tmp_path / "X.npy", X)
    mapped = np.load(tmp_path / "X.npy", mmap_mode="r")
    found: list[DiagonalPlusRankOne] = []
    original = PerturbedObjective.mean_preconditioner

    def recorded(self: PerturbedObjective, margins: np.ndarray) -> DiagonalPlusRankOne | None:
        result = original(self, margins)
        if result is not None:
            found.append(result)
        return result

    monkeypatch.setattr(PerturbedObjective, "mean_preconditioner", recorded)
    learner = PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0)
    learner.fit(mapped, y, epsilon=1.0, random_state=3)
    assert learner.diagnostics_.converged and found
    np.testing.assert_allclose(found[0].vector, X.mean(axis=0), rtol=0.05)  # 4,000 of 6,000 rows, read by take
