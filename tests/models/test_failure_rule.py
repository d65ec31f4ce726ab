"""The failure rule (docs/theory.md, section 7.1): after the charge, no fit in a composite procedure fails.

Reproduces the audit's findings: a public ``max_iter`` that lets a fit fail on some data and not on
others; a learner whose ``fit`` rejects tune's arguments only when called (the budget charged, every run
failed, ``model=None``); a user's ``np.seterr(all="raise")``; a failure after the charge scored and
swallowed. And shows that the safeguarded Newton of :mod:`dpcvx.solvers.budget` reaches the bound within
its proved budget even when every Newton direction is useless.
"""

from __future__ import annotations

from typing import Any, ClassVar

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError, SolverError
from dpcvx.models import failure
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.solvers import linear
from dpcvx.solvers.budget import descent_rate
from dpcvx.solvers.objective import PerturbedObjective


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    return synthetic_classification(n=600, d=5, random_state=3)


def test_a_max_iter_below_the_proved_budget_is_refused_before_the_charge(data):
    X, y = data
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="proved iteration budget"):
        dpcvx.PrivateERM(lam=1e-3, data_norm=1.0, max_iter=1).fit(X, y, epsilon=1.0, accountant=accountant)
    assert accountant.spent.epsilon == 0.0
    with pytest.raises(InputError, match="proved iteration budget"):
        dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, max_iter=1), X, y, {"lam": [1e-3, 1e-2]}, epsilon=1.0,
                   accountant=accountant, random_state=0)
    assert accountant.spent.epsilon == 0.0 and not accountant.ledger


def _least_accepted(X: np.ndarray, y: np.ndarray, lam: float) -> int:
    """The smallest max_iter a fit accepts: found by refusals alone (nothing is fitted or charged)."""
    low, high = 1, 1
    while True:
        try:
            dpcvx.PrivateERM(lam=lam, data_norm=1.0, max_iter=high).check_fit_inputs(X, y, epsilon=1.0)
            break
        except InputError:
            low, high = high, 2 * high
    while low < high:
        middle = (low + high) // 2
        try:
            dpcvx.PrivateERM(lam=lam, data_norm=1.0, max_iter=middle).check_fit_inputs(X, y, epsilon=1.0)
            high = middle
        except InputError:
            low = middle + 1
    return high


def test_the_smallest_accepted_max_iter_never_fails_with_far_tail_noise_and_useless_newton_steps(monkeypatch):
    """Adversarial: nearly separable duplicated rows, the noise scaled 50-fold (its far tail), and every Newton
    direction replaced by an ascent direction, so that only the safeguard's gradient steps make progress."""
    rng = np.random.default_rng(7)
    base = rng.normal(size=(40, 3))
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    X = np.repeat(base, 5, axis=0)
    y = np.where(X[:, 0] > 0, 1, -1)
    lam = 0.05
    least = _least_accepted(X, y, lam)
    assert least > 1
    with pytest.raises(InputError):
        dpcvx.PrivateERM(lam=lam, data_norm=1.0, max_iter=least - 1).check_fit_inputs(X, y, epsilon=1.0)

    real_direction = linear._newton_direction

    def ascent(objective, w, margins, gradient, *args, **kwargs):  # noqa: ANN001, ANN202
        direction, *rest = real_direction(objective, w, margins, gradient, *args, **kwargs)
        return (np.abs(direction) * np.sign(gradient) + 1e-3 * gradient, None, *rest[1:])

    monkeypatch.setattr(linear, "_newton_direction", ascent)
    real_draw = dpcvx.models.fit_plan.draw_objective_noise

    def far_tail(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        return 50.0 * real_draw(*args, **kwargs)

    monkeypatch.setattr(dpcvx.models.fit_plan, "draw_objective_noise", far_tail)
    for seed in range(3):
        erm = dpcvx.PrivateERM(lam=lam, data_norm=1.0, max_iter=least)
        model = erm.fit(X, y, epsilon=1.0, random_state=seed)
        assert erm.diagnostics_.converged and np.all(np.isfinite(model.coef_))


def test_without_the_safeguard_useless_directions_fail(monkeypatch, data):
    """The safeguard is what makes the test above pass: Newton with ascent directions and no beta stops short."""
    X, y = data
    objective = PerturbedObjective(X, y.astype(float), dpcvx.PrivateERM(data_norm=1.0)._verified(5).derivatives,
                                   dpcvx.PrivateERM(data_norm=1.0)._verified(5).quadratic, 0.05, np.zeros(5))
    monkeypatch.setattr(linear, "_newton_direction",
                        lambda objective, w, margins, gradient, *a, **k: (gradient.copy(), None, None, None))
    tolerance = 1e-8 * X.shape[0]
    _, unguarded = linear.newton(objective, gradient_tolerance=tolerance, max_iter=2000)
    assert not unguarded.converged
    problem = dpcvx.PrivateERM(data_norm=1.0)._verified(5)
    rate = descent_rate(problem, 0.05, 0.0, 1.0)
    assert rate is not None
    budget = rate.budget(None, np.zeros(5), X.shape[0], tolerance)
    _, guarded = linear.newton(objective, gradient_tolerance=tolerance, max_iter=budget, beta=rate.beta)
    assert guarded.converged and guarded.iterations <= budget


@pytest.mark.parametrize("lam", [1e-1, 1e-2])
def test_the_budget_bounds_plain_gradient_descent(lam):
    """The proved budget is an upper bound on what gradient descent with step 1/beta needs (the rate's
    statement), measured on logistic regression with noise: the measured count never exceeds it."""
    X, y = synthetic_classification(n=300, d=4, random_state=11)
    problem = dpcvx.PrivateERM(data_norm=1.0)._verified(4)
    rate = descent_rate(problem, lam, 0.0, 1.0)
    assert rate is not None
    noise = np.random.default_rng(0).normal(size=4) * 3.0
    objective = PerturbedObjective(X, y.astype(float), problem.derivatives, problem.quadratic, lam, noise)
    tolerance = 1e-6 * X.shape[0]
    budget = rate.budget(None, noise, X.shape[0], tolerance)
    w, needed = np.zeros(4), 0
    while np.linalg.norm(objective.gradient(w)) > 0.5 * tolerance:
        w = w - objective.gradient(w) / (X.shape[0] * rate.beta)
        needed += 1
        assert needed <= budget
    assert needed >= 1


class _RaisesOnRealRows:
    """A per-row learner that passes the rehearsal (at most 64 synthetic rows) and raises on more rows: a bug
    of the kind the rule makes impossible in dpcvx's own learners."""

    predicts_per_row: ClassVar[bool] = True

    def __init__(self, c: float = 1.0) -> None:
        self.c = c

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        return {"c": self.c}

    def set_params(self, **params: Any) -> _RaisesOnRealRows:
        self.c = params.get("c", self.c)
        return self

    def fit(self, X: Any, y: Any, epsilon: float, random_state: Any = None) -> Any:
        if X.shape[0] > 64:
            raise FloatingPointError("a private-data-dependent failure")
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.ones(X.shape[0])


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_a_failure_after_the_charge_stops_the_procedure_and_is_never_scored(procedure):
    X, y = synthetic_classification(n=900, d=3, random_state=1)
    with pytest.raises(SolverError, match="failure rule") as caught:
        dpcvx.tune(_RaisesOnRealRows(), X, y, {"c": [1.0, 2.0]}, epsilon=1.0, procedure=procedure, random_state=0)
    assert "private-data-dependent" not in str(caught.value)  # the private error's text is withheld


class _FitTakesNoEpsilon(_RaisesOnRealRows):
    def fit(self, X: Any, y: Any, epsilon: float, random_state: Any = None) -> Any:
        raise TypeError("fit() got an unexpected keyword argument 'mechanism'")


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_a_fit_that_rejects_its_arguments_is_refused_by_the_rehearsal_with_an_empty_ledger(procedure):
    X, y = synthetic_classification(n=900, d=3, random_state=1)
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="synthetic public rows.*unexpected keyword"):
        dpcvx.tune(_FitTakesNoEpsilon(), X, y, {"c": [1.0]}, epsilon=1.0, procedure=procedure, random_state=0,
                   accountant=accountant)
    assert not accountant.ledger


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label's range
def test_a_regressor_is_tuned_or_refused_before_the_charge_never_charged_and_empty():
    """The user's report: tune(DPHuberRegressor(...)) charged, failed every run on a TypeError shown only in a
    DEBUG log, and returned model=None. Now it either releases a model or is refused with nothing charged."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3)) / 3
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))  # inside R = 1: no clipping to report
    y = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.normal(size=400)
    accountant = PrivacyAccountant(epsilon=10.0)
    try:
        result = dpcvx.tune(dpcvx.DPHuberRegressor(data_norm=1.0, label_bound=3.0), X, y, {"lam": [1e-2, 1e-1]},
                            epsilon=1.0, accountant=accountant, random_state=0)
    except InputError:
        assert not accountant.ledger
    else:
        assert result.model is not None and len(accountant.ledger) == 1


def test_a_user_solver_is_refused_inside_tune_before_the_charge(data):
    X, y = data
    accountant = PrivacyAccountant(epsilon=10.0)
    erm = dpcvx.PrivateERM(data_norm=1.0, solver=lambda program, w: program.solve())
    with pytest.raises(InputError, match="user's solver"):
        dpcvx.tune(erm, X, y, {"lam": [1e-2]}, epsilon=1.0, accountant=accountant, random_state=0)
    assert not accountant.ledger


def test_an_elastic_net_is_tuned_on_its_proved_proximal_path(data):
    # the proximal path has a proved budget (dpcvx.solvers.budget, "The composite path"): tune takes an L1 term
    # (until the fifty-eighth session it refused it before the charge, "no proved iteration budget yet")
    X, y = data
    accountant = PrivacyAccountant(epsilon=10.0)
    erm = dpcvx.PrivateERM(data_norm=1.0, regularizer=lambda w: cp.norm1(w) + 0.5 * cp.sum_squares(w))
    result = dpcvx.tune(erm, X, y, {"lam": [1e-2, 1e-1]}, epsilon=1.0, accountant=accountant, random_state=0)
    assert result.model is not None and len(accountant.ledger) == 1


@pytest.mark.parametrize("procedure", ["full-data", "split", None])
def test_numpy_raising_on_overflow_does_not_reach_the_fits(procedure):
    """A public warm start with weights of 1000 puts the first margins at about +-800, where exp underflows and
    overflows: under a user's np.seterr(all="raise") this made every fit raise after the charge (on main before
    the rule: FloatingPointError). Now the fits run to their release, alone and inside tune."""
    X, y = synthetic_classification(n=900, d=3, random_state=2)
    start = dpcvx.PrivateERM(data_norm=1.0, lam=1e-2).fit_nonprivate(X, y)
    start.coef_ = np.array([1000.0, 0.0, 0.0])
    old = np.seterr(all="raise")
    try:
        if procedure is None:
            model = dpcvx.PrivateERM(data_norm=1.0, lam=1e-2).fit(X, y, epsilon=5.0, warm_start=start)
        else:
            model = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [1e-3, 1e-2]}, epsilon=5.0,
                               procedure=procedure, fit_params={"warm_start": start}).model
    finally:
        np.seterr(**old)
    assert model is not None and np.all(np.isfinite(model.coef_))


def test_a_one_vs_rest_fit_refuses_an_unproved_binary_before_the_charge():
    X, y = synthetic_classification(n=300, d=3, random_state=4)
    labels = np.where(y > 0, 2, 0)
    labels[::3] = 1
    accountant = PrivacyAccountant(epsilon=10.0)
    binary = dpcvx.PrivateERM(data_norm=1.0, solver=lambda program, w: program.solve())
    with pytest.raises(InputError, match="user's solver"):
        dpcvx.PrivateMulticlassERM(binary, classes=(0, 1, 2)).fit(X, labels, epsilon=1.0, accountant=accountant)
    assert not accountant.ledger


def test_the_rule_applies_alone_and_inside_a_composite_procedure(data):
    """A plain fit's failure after its charge is a release too (P6 F1, session 71): the same refusal alone and inside
    a procedure, which it names first."""
    X, y = data
    erm = dpcvx.PrivateERM(data_norm=1.0, solver=lambda program, w: program.solve(solver="CLARABEL"))
    with pytest.raises(InputError, match="^PrivateERM is set to a user's solver") as alone:
        erm.check_fit_inputs(X, y, epsilon=1.0)
    with failure.composite("a test procedure"), pytest.raises(InputError) as inside:
        erm.check_fit_inputs(X, y, epsilon=1.0)
    assert str(inside.value) == f"a test procedure: {alone.value}"


def test_a_budget_beyond_the_limit_is_refused_before_the_charge_in_a_plain_fit_too():
    """A budget above MAX_PROVED_ITERATIONS counted as none, and a plain fit then ran Newton unsafeguarded to 100
    steps after its charge: this Huber SVM (h 0.01, lam 1e-6, output perturbation) raised SolverError on the data set
    with one label flipped and released on the other, an event no theorem covers (docs/theory.md, section 7.1). Both
    neighbours are now refused, before anything is charged, by the estimator and the learner alike."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.01
    y = np.where(X[:, 0] > 0, 1, 0)
    flipped = y.copy()
    flipped[1] = 1 - flipped[1]
    for labels in (y, flipped):
        accountant = PrivacyAccountant(epsilon=10.0)
        # the refusal names the estimator the user called (it named its inner "PrivateERM" before)
        with pytest.raises(InputError,
                           match="^DPHuberSVM has .*above 1e\\+07 iterations.*raise lam.*Nothing was charged"):
            dpcvx.DPHuberSVM(h=0.01, lam=1e-6, mechanism="output", random_state=0).fit(X, labels,
                                                                                       accountant=accountant)
        with pytest.raises(InputError, match="^PrivateERM has .*above 1e\\+07 iterations"):
            dpcvx.PrivateERM(loss="huber_hinge:h=0.01", lam=1e-6, data_norm=1.0).fit(
                X, 2 * labels - 1, epsilon=1.0, mechanism="output", accountant=accountant, random_state=0)
        assert accountant.ledger == []


def _budget_at_the_edge(monkeypatch: pytest.MonkeyPatch, X: np.ndarray, y: np.ndarray,
                        **fit: Any) -> list[float | None]:
    """The safeguard's beta of every Newton solve of a fit whose public least budget is exactly the largest proved
    one (``MAX_PROVED_ITERATIONS`` set to it): the plan proves the path, with no margin left."""
    from dpcvx.solvers import choice

    least: list[int] = []
    real = choice.SolverChoice.least_budget

    def recorded(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        value = real(self, *args, **kwargs)
        least.append(value)
        return value

    monkeypatch.setattr(choice.SolverChoice, "least_budget", recorded)
    erm = dpcvx.PrivateERM(lam=1e-3, data_norm=1.0)
    erm.check_fit_inputs(X, y, epsilon=1.0, **fit)
    assert least and least[-1] is not None
    monkeypatch.setattr(choice, "MAX_PROVED_ITERATIONS", least[-1])
    betas: list[float | None] = []
    real_newton = choice.newton

    def spy(objective, **kwargs):  # noqa: ANN001, ANN003, ANN202
        betas.append(kwargs.get("beta"))
        return real_newton(objective, **kwargs)

    monkeypatch.setattr(choice, "newton", spy)
    erm.fit(X, y, epsilon=1.0, random_state=0, **fit)
    return betas


def test_a_start_drawn_from_the_data_keeps_the_plans_proved_path(monkeypatch):
    """Records that repeat are solved on their distinct records first, and Newton on all rows starts at that
    minimiser, a point of the data whose G_0 is larger than the public start's: the path stays the proved one the
    plan checked (the safeguard on, to its budget), never the unproved limit a data set near the edge would get."""
    rng = np.random.default_rng(5)
    base = rng.normal(size=(100, 250))  # 5,000 rows of 250 columns: enough for the grouping to be tried
    base /= 2 * np.linalg.norm(base, axis=1, keepdims=True)
    X = np.repeat(base, 50, axis=0)
    y = np.where(X[:, 0] + 0.1 * rng.normal(size=X.shape[0]) > 0, 1, -1)
    betas = _budget_at_the_edge(monkeypatch, X, y)
    assert len(betas) == 2  # the distinct records' solve (a warm start only: unproved), then all rows
    assert betas[0] is None and betas[1] is not None


def test_the_rows_of_an_add_remove_fit_keep_the_plans_proved_path(monkeypatch):
    """Under add/remove the rows' count is private: the plan proves the path at n_public, and a data set with more
    rows than that (a budget above the edge at its own count) keeps the proved path."""
    X, y = synthetic_classification(n=400, d=4, random_state=2)
    betas = _budget_at_the_edge(monkeypatch, X, y, delta=1e-6, neighbours="add-remove", n_public=300)
    assert betas and all(beta is not None for beta in betas)


@pytest.mark.parametrize("options, procedure", [
    (dict(class_prior="private"),
     r"a fit with the intercept offset from a private class count \(class_prior='private'\)"),
    (dict(class_weight="balanced"), "a fit with balanced class weights from a private count"),
])
def test_an_unproved_fit_after_a_private_count_is_refused_naming_what_the_count_sets(options, procedure):
    """class_prior='private' without class weights sets the intercept offset, not balanced class weights: its
    refusal named 'a fit with balanced class weights from a private count' (a user's solver: unproved)."""
    X, y = synthetic_classification(n=400, d=4, random_state=0)
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=rf"^{procedure}: PrivateERM is set to a user's solver"):
        dpcvx.PrivateERM(lam=1e-3, data_norm=1.0, fit_intercept=True, solver=lambda program, w: program.solve(),
                         **options).fit(
            X, y, epsilon=1.0, accountant=accountant, random_state=0)
    assert not accountant.ledger
