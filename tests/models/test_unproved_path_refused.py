"""A fit whose solve path has no proved iteration budget is refused before its charge, alone as inside composite
procedures (docs/theory.md, section 7.1, "Standalone fits"; the failure rule, :mod:`dpcvx.models.failure`).

An attacker probe of the seventy-first session (P6 F1): the regularizer 0.5 ||w||^2 + log_sum_exp(w) is not quadratic,
so only CVXPY's conic path solves it, which has no proved budget. A plain ``PrivateERM.fit`` charged, and then
released on a data set D and raised ``SolverError`` on D' (one label flipped), deterministically (output perturbation
draws no noise in the solve): the failure event is a release of unbounded privacy loss. Both neighbours are now
refused before anything is charged, by every entry (the learner, the estimators, one-vs-rest, the command line), and a
user's solver likewise. P6 F2: a SolverError raised after the charge carries one fixed text, never the solver's
status, a count of distinct records or a measured gradient norm.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.exceptions import InputError, SolverError
from dpcvx.models.erm_inputs import SOLVE_FAILED, check_solution
from dpcvx.solvers.linear import SolveInfo

REFUSAL = r"conic path alone.*Nothing was charged"


def conic_only(w):
    return 0.5 * cp.sum_squares(w) + cp.log_sum_exp(w)


@pytest.fixture(scope="module")
def neighbours() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The probe's pair: D and D' with the first label flipped (D released, D' failed after the charge)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1, -1)
    return X, y, np.r_[-y[:1], y[1:]]


def _both_refused(fit, labels: tuple[np.ndarray, np.ndarray], match: str) -> None:
    """``fit(labels, accountant, generator)`` refused on D and on D' alike, nothing charged, no noise drawn."""
    accountant = dpcvx.PrivacyAccountant(10.0)
    generator = np.random.default_rng(0)
    state = generator.bit_generator.state
    for y in labels:
        with pytest.raises(InputError, match=match):
            fit(y, accountant, generator)
    assert accountant.spent.epsilon == 0.0 and accountant.ledger == []
    assert generator.bit_generator.state == state


def test_the_probes_conic_only_fit_is_refused_on_both_neighbours(neighbours):
    X, y, flipped = neighbours
    _both_refused(lambda labels, accountant, rng: dpcvx.PrivateERM(
        loss=lambda z: cp.logistic(-z), regularizer=conic_only, lam=1e-5, data_norm=1.0).fit(
        X, labels, epsilon=1.0, mechanism="output", random_state=rng, accountant=accountant),
        (y, flipped), "^PrivateERM would be solved by CVXPY's conic path alone.*quadratic strongly convex "
                      "regularizer.*solver='auto'.*Nothing was charged")


@pytest.mark.parametrize("mechanism", ["output", "objective"])
def test_the_estimator_refuses_it_on_both_neighbours(neighbours, mechanism):
    X, y, flipped = neighbours
    _both_refused(lambda labels, accountant, rng: dpcvx.DPERMClassifier(
        loss="logistic", regularizer=conic_only, lam=1e-5, fit_intercept=False, column_statistics=False,
        epsilon=1.0, mechanism=mechanism, random_state=0, data_norm=1.0).fit(X, (labels > 0).astype(int),
                                                                             accountant=accountant),
        (y, flipped), "^DPERMClassifier would be solved by CVXPY's conic path alone")


def test_a_user_solver_is_refused_on_both_neighbours(neighbours):
    X, y, flipped = neighbours
    _both_refused(lambda labels, accountant, rng: dpcvx.PrivateERM(
        lam=1e-2, data_norm=1.0, solver=lambda program, w: program.solve(solver="CLARABEL")).fit(
        X, labels, epsilon=1.0, random_state=rng, accountant=accountant),
        (y, flipped), "^PrivateERM is set to a user's solver.*Nothing was charged")


def test_one_vs_rest_refuses_it_naming_its_procedure(neighbours):
    X, y, _ = neighbours
    labels = np.where(y > 0, 2, 0)
    labels[::3] = 1
    _both_refused(lambda labels, accountant, rng: dpcvx.PrivateMulticlassERM(
        dpcvx.PrivateERM(regularizer=conic_only, lam=1e-2, data_norm=1.0), classes=(0, 1, 2)).fit(
        X, labels, epsilon=1.0, accountant=accountant, random_state=rng),
        (labels, labels[::-1].copy()), REFUSAL)


def test_the_command_line_refuses_it_before_the_charge_with_exit_3(tmp_path, capsys, monkeypatch):
    """``--regularizer PATH.py`` reaches the same plan: an input error (exit 3), not a solver error after the charge
    (exit 5), and nothing is written."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 1, 200), rng.uniform(0, 1, 200)
    rows = "\n".join(f"{x:.3f},{z:.3f},{'yes' if x > z else 'no'}" for x, z in zip(a, b, strict=True))
    (tmp_path / "train.csv").write_text("a,b,k\n" + rows + "\n")
    (tmp_path / "lse.py").write_text("import cvxpy as cp\n"
                                     "regularizer = lambda w: 0.5 * cp.sum_squares(w) + cp.log_sum_exp(w)\n")
    code = main(["fit", "train.csv", "--target", "k", "--positive", "yes", "--negative", "no", "--numeric", "a:0:1",
                 "--numeric", "b:0:1", "--data-norm", "1", "--regularizer", "lse.py", "--lam", "1e-2",
                 "--epsilon", "1", "--random-state", "0", "--out", "model.json"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "conic path alone" in err and "Nothing was charged" in err
    assert not (tmp_path / "model.json").exists()


@pytest.mark.parametrize("info", [
    SolveInfo(solver="cvxpy:CLARABEL", status="optimal_inaccurate", iterations=7, seconds=0.1, gradient_norm=3e-4,
              gradient_tolerance=1e-4, relative_residual=1e-3),
    SolveInfo(solver="newton", status="stopped on 37 distinct records, then on all rows", iterations=3,
              seconds=0.1, gradient_norm=1.2e-5, gradient_tolerance=1e-6, relative_residual=1e-3),
])
def test_a_solver_error_after_the_charge_has_one_fixed_text(info):
    """P6 F2: the text said the solver, its status ("optimal_inaccurate", a count of distinct records) and, on the
    polish path, a measured gradient norm: functions of the private data, printed by the command line on stderr.
    Now one fixed text; the statistics stay in diagnostics_ (NOT PRIVATE)."""
    with pytest.raises(SolverError) as caught:
        check_solution(np.zeros(3), info)
    assert str(caught.value) == SOLVE_FAILED
    for private in (info.solver, info.status, "distinct", f"{info.gradient_tolerance:.2e}"):
        assert private not in str(caught.value)
    with pytest.raises(SolverError) as caught:
        check_solution(np.array([np.nan, 0.0, 0.0]), info)
    assert str(caught.value) == SOLVE_FAILED
