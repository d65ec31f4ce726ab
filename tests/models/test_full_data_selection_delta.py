"""Full-data selection with delta > 0: the Renyi plan, its charge, its refusals and the post-fit check."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import AssumptionError, BudgetExceededError, InputError
from dpcvx.models import failure
from dpcvx.models.fit_plan import FitPlan
from dpcvx.models.tuning.renyi import calibrate_runs, candidates_rdp, plan_at, run_rdp, score_epsilon
from dpcvx.privacy.privacy_curve import PrivacyCurve, rdp_to_epsilon
from dpcvx.privacy.stopping import StoppingRule, stopping_epsilon

FITS: list[float] = []


@pytest.fixture(autouse=True)
def _count_fits(monkeypatch):
    """Record the epsilon of every fit a PrivateERM executes (:meth:`FitPlan.execute`; tune fits each candidate
    from its one plan) in the module's FITS, the rehearsals on synthetic public rows excluded."""
    FITS.clear()
    execute = FitPlan.execute

    def counted(plan, *args, **kwargs):
        if not failure.rehearsing():  # the rehearsal on synthetic public rows is not a fit of the data
            FITS.append(plan.epsilon)
        return execute(plan, *args, **kwargs)

    monkeypatch.setattr(FitPlan, "execute", counted)


class CheatingERM(dpcvx.PrivateERM):
    """Broken: calibrates its noise for 4 epsilon but states epsilon (its curve is above the claim)."""

    def _calibrate(self, mechanism, n, epsilon, *args, **kwargs):
        return super()._calibrate(mechanism, n, 4 * epsilon, *args, **kwargs)


def _data(n: int = 400, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X @ np.ones(d) + 0.3 * rng.normal(size=n) > 0, 1, -1)


GRID = {"lam": [1e-2, 1e-1]}


def test_delta_selection_charges_its_proved_total_once_and_fits_with_the_calibrated_budget():
    X, y = _data()
    FITS.clear()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    result = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, GRID, epsilon=1.0, delta=1e-6, mechanism="output",
                        mean_runs=6, accountant=accountant, random_state=1)
    certificate = result.certificate
    assert len(accountant.ledger) == 1  # one entry, however many runs: not a composition of the runs
    assert accountant.spent == (certificate.epsilon, 1e-6)
    assert 1.0 - 1e-9 < certificate.epsilon <= 1.0 and certificate.delta == 1e-6
    assert set(FITS) == {certificate.run_epsilon} and len(FITS) == result.diagnostics_["runs"]
    assert certificate.run_epsilon > 1.0 / 3  # more than the pure bound's epsilon / (2 + eta) per fit
    assert result.model.certificate.epsilon == certificate.run_epsilon and result.model.certificate.delta == 1e-6
    # the total is recomputed from the released, public record alone
    released = certificate.to_dict()
    curves = [PrivacyCurve.from_dict(curve) for curve in released["candidate_curves"]]
    rule = StoppingRule(released["eta"], certificate.gamma)
    assert stopping_epsilon(run_rdp(curves, released["score_epsilon"]), rule, 1e-6) == certificate.epsilon
    assert "Renyi" in released["theorem"] and "runs" not in released


@pytest.mark.parametrize("epsilon, delta, mean", [(0.1, 1e-5, 8.0), (1.0, 1e-8, 16.0), (4.0, 1e-6, 40.0)])
def test_the_bisection_meets_the_budget_and_leaves_nothing_on_the_table(epsilon, delta, mean):
    learners = [dpcvx.PrivateERM(data_norm=1.0)] * 3
    keywords = {"mechanism": "output", "delta": delta}
    rule = StoppingRule.with_mean(mean)
    plan = calibrate_runs(learners, keywords, rule, epsilon, delta)
    assert plan.epsilon <= epsilon
    assert stopping_epsilon(run_rdp(plan.curves, plan.score_epsilon), rule, delta) == plan.epsilon
    # a slightly larger per-fit epsilon would overspend: the bisection stopped at the edge
    assert plan_at(learners, keywords, rule, plan.run_epsilon * (1 + 1e-6), delta).epsilon > epsilon
    # the score costs nothing on top of the fits: its curve is under the candidates' at every order
    candidates = candidates_rdp(plan.curves)
    assert np.all(run_rdp(plan.curves, plan.score_epsilon) == candidates)
    assert plan.score_epsilon == score_epsilon(candidates)


def _per_fit_epsilon(total, rule: StoppingRule, epsilon: float, delta: float) -> float:
    """The largest per-fit epsilon (Gaussian output runs) whose ``total(run_rdp, rule)`` is at most epsilon."""
    learners, keywords = [dpcvx.PrivateERM(data_norm=1.0)], {"mechanism": "output", "delta": delta}
    low, high = 1e-4, 4 * epsilon
    for _ in range(40):
        middle = (low + high) / 2
        plan = plan_at(learners, keywords, rule, middle, delta)
        fits = total(run_rdp(plan.curves, plan.score_epsilon), rule) <= epsilon
        low, high = (middle, high) if fits else (low, middle)
    return low


def test_the_per_fit_budget_is_not_cut_by_a_composition_of_the_runs():
    """Quadrupling E[K] (16 -> 64) costs the per-fit epsilon less than 15% (only log terms grow); a broken
    accounting that composes E[K] runs cuts it by about half (a Gaussian's curve grows as 1 / z^2)."""
    epsilon, delta = 1.0, 1e-6

    def theorem(rdp, rule):
        return stopping_epsilon(rdp, rule, delta)

    def composed(rdp, rule):  # broken: the runs composed, E[K] of them
        return rdp_to_epsilon(rule.mean_runs * rdp, delta)

    for total, passes in ((theorem, True), (composed, False)):
        ratio = (_per_fit_epsilon(total, StoppingRule.with_mean(64), epsilon, delta)
                 / _per_fit_epsilon(total, StoppingRule.with_mean(16), epsilon, delta))
        assert (ratio > 0.85) is passes
    plan = calibrate_runs([dpcvx.PrivateERM(data_norm=1.0)], {"mechanism": "output", "delta": delta},
                          StoppingRule.with_mean(64), epsilon, delta)
    assert plan.run_epsilon == pytest.approx(_per_fit_epsilon(theorem, StoppingRule.with_mean(64), epsilon, delta),
                                             rel=1e-6)


@pytest.mark.parametrize("learner, kwargs, error", [
    (dpcvx.PrivateERM(data_norm=1.0), {"mechanism": "objective"}, AssumptionError),  # no Renyi curve
    (dpcvx.PrivateERM(data_norm=1.0, float_safe=True), {"mechanism": "output"}, AssumptionError),
    # a private bound is claimed its composed curve before the fit (tests/models/test_full_data_delta_drawn_parts.py)
    (dpcvx.PrivateERM(data_norm=1.0), {"mechanism": "output", "epsilon": 0.005, "delta": 1e-12}, InputError),
    (dpcvx.PrivateERM(data_norm=1.0), {"mechanism": "output", "epsilon": 5.0}, BudgetExceededError),
])
def test_a_refused_delta_selection_spends_nothing_and_fits_nothing(learner, kwargs, error):
    X, y = _data()
    FITS.clear()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    arguments = {"epsilon": 1.0, "delta": 1e-6, **kwargs}
    with pytest.raises(error) as refusal:
        dpcvx.tune(learner, X, y, GRID, procedure="full-data", accountant=accountant, random_state=0, **arguments)
    assert "Nothing was charged" in str(refusal.value) or error is BudgetExceededError
    assert accountant.ledger == [] and FITS == []


def test_a_learner_without_a_pre_fit_curve_is_refused_naming_why():
    X, y = _data()
    estimator = dpcvx.DPLogisticRegression(mechanism="output", data_norm=1.0, classes=(-1, 1))
    with pytest.raises(AssumptionError, match="Renyi curve before any fit"):
        dpcvx.tune(estimator, X, y, GRID, epsilon=1.0, delta=1e-6)


@pytest.mark.parametrize("learner", [dpcvx.DPLogisticRegression(mechanism="output", data_norm=1.0, classes=(-1, 1)),
                                     dpcvx.PrivateERM(data_norm=1.0)])
def test_a_delta_not_below_one_over_n_is_refused_first_as_every_entry_refuses_it(learner):
    """tune(delta=0.5) on 200 rows answered with the full-data procedure's Renyi-curve AssumptionError (or went on to
    plan), where every other entry, and tune's split procedure, refuse that delta first as an InputError; and
    allow_large_delta=True on every candidate still accepts it knowingly, past this check."""
    X, y = _data(n=200)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=0.9)
    for delta in (0.5, 0.01):
        for procedure in ("full-data", "split"):  # split checked each part's rows alone: 0.01 passed, below 1/66
            with pytest.raises(InputError, match=rf"delta={delta:g} is not below 1/n = 0.005 \(n = 200\)") as refused:
                dpcvx.tune(learner, X, y, GRID, epsilon=1.0, delta=delta, mechanism="output", accountant=accountant,
                           procedure=procedure)
            assert not isinstance(refused.value, AssumptionError)
    assert accountant.ledger == [] and FITS == []
    knowing = dpcvx.PrivateERM(data_norm=1.0, allow_large_delta=True)
    with pytest.raises(AssumptionError, match="Renyi curve before any fit"):  # the procedure's own refusal, next
        dpcvx.tune(knowing, X, y, GRID, epsilon=1.0, delta=0.01, mechanism="objective", accountant=accountant)


def test_a_release_above_its_claimed_curve_is_refused_before_the_charge():
    """A learner whose noise is calibrated for more than it states is caught, nothing released. It was caught after
    the fit, by the check of each fitted model's own curve against the claim, with the budget charged; a release's
    certificate now refuses a calibration made for another epsilon than the one it states (ReleaseCertificate's
    check), so tune's rehearsal on public rows refuses it before anything is charged."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(InputError, match="is not the epsilon its calibration was computed for.*Nothing was charged"):
        dpcvx.tune(CheatingERM(data_norm=1.0), X, y, GRID, epsilon=1.0, delta=1e-6, mechanism="output",
                   mean_runs=4, accountant=accountant, random_state=2)
    assert accountant.ledger == []
