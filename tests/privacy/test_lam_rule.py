"""lam="auto": a public rule (dpcvx.privacy.lam_rule, docs/theory.md section 25)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dpcvx
from dpcvx import PrivateERM
from dpcvx.exceptions import InputError
from dpcvx.privacy import lam_rule
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.calibrate import output_perturbation
from dpcvx.privacy.noise import sample_l2_laplace


def _rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * (1 + 1e-12)
    return X, np.where(rng.random(n) < 0.3, 1.0, -1.0)


def test_two_data_sets_of_the_same_shape_get_the_same_lam():
    """The rule reads n, d and the public settings, never the values: different rows and labels
    (here all one label against random labels) give the same lam and the same record."""
    first, labels = _rows(400, 5, 0)
    second = _rows(400, 5, 1)[0] * 0.5
    records = []
    for X, y in ((first, labels), (second, np.ones(400))):
        model = PrivateERM(lam="auto", data_norm=1.0).fit(X, y, 0.5, random_state=0)
        records.append(model.certificate.lam_rule)
        assert model.certificate.constants["lam"] == records[-1].lam
    assert records[0] == records[1]
    assert records[0].rule == lam_rule.RULE
    # and it is what the public method computes without any data
    assert PrivateERM(lam="auto", data_norm=1.0).choose_lam(400, 5, 0.5).lam == records[0].lam


def _scaling_holds(choose) -> bool:
    """Pure-epsilon objective perturbation: the noise term ~ d^2 / (n^2 eps^2 s), so the chosen
    s = Lam is about 2 L R d / (n eps W) once eps' ~ eps: 10 times n or 10 times eps divides Lam by
    about 10 (within the grid's factor 10^(1/8) either side)."""
    base = choose(20_000, 1.0)
    ratios = (base / choose(200_000, 1.0), base / choose(20_000, 10.0))
    return all(10 / 10 ** 0.25 <= ratio <= 10 * 10 ** 0.25 for ratio in ratios)


def test_lam_falls_like_one_over_n_epsilon_as_derived(monkeypatch):
    learner = PrivateERM(lam="auto", data_norm=1.0)
    assert _scaling_holds(lambda n, eps: learner.choose_lam(n, 20, eps).lam)
    # a broken bound whose noise term forgets the 1/n^2 of the sum form is caught
    honest = lam_rule.excess_risk_bound

    def broken(calibration, *, n, **kwargs):
        noise, bias = honest(calibration, n=n, **kwargs)
        return noise * n * n / 1e8, bias

    monkeypatch.setattr(lam_rule, "excess_risk_bound", broken)
    assert not _scaling_holds(lambda n, eps: learner.choose_lam(n, 20, eps).lam)


def _monotone(choose) -> bool:
    """Lam never rises as epsilon or n grows (more privacy budget or more rows: less noise per record)."""
    epsilons, sizes = (0.1, 1.0, 10.0), (300, 3000, 100_000)
    by_eps = [[choose(n, eps) for eps in epsilons] for n in sizes]
    by_n = [[choose(n, eps) for n in sizes] for eps in epsilons]
    return all(a >= b for row in by_eps + by_n for a, b in zip(row, row[1:], strict=False))


@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_lam_never_rises_with_epsilon_or_n(monkeypatch, mechanism):
    learner = PrivateERM(lam="auto", data_norm=1.0)

    def choose(n: int, eps: float) -> float:
        return learner.choose_lam(n, 20, eps, mechanism).lam

    assert _monotone(choose)
    # a broken bound whose noise term grows like n (n^3 times the 1/n^2 of the averaged form) is caught
    honest = lam_rule.excess_risk_bound

    def broken(calibration, *, n, **kwargs):
        noise, bias = honest(calibration, n=n, **kwargs)
        return noise * n**3 / 1e12, bias

    monkeypatch.setattr(lam_rule, "excess_risk_bound", broken)
    assert not _monotone(choose)


def test_lam_rises_with_the_width_and_with_delta_zero_against_gaussian_noise():
    """More columns mean more noise (E||b|| = d / beta): a larger Lam. At d = 200 the Gaussian
    noise (E||b|| ~ sigma sqrt(d)) is smaller than the pure noise, so its Lam is smaller."""
    learner = PrivateERM(lam="auto", data_norm=1.0)
    assert learner.choose_lam(5000, 200, 1.0).lam > learner.choose_lam(5000, 5, 1.0).lam
    assert learner.choose_lam(5000, 200, 1.0, delta=1e-8).lam < learner.choose_lam(5000, 200, 1.0).lam


def test_noise_moments_match_the_sampler():
    """E||b|| = d / beta and E||b||^2 = d (d + 1) / beta^2 for density ~ exp(-beta ||b||) (seeded, 4000
    draws, 5% tolerance); the wrong Gaussian-style moment sqrt(d) / beta is rejected by the same check."""
    d, calibration = 7, output_perturbation(100, 0.1, 1.5)
    beta = calibration.beta
    assert beta == pytest.approx(7.5)
    rng = np.random.default_rng(0)
    norms = np.array([np.linalg.norm(sample_l2_laplace(d, beta, rng)) for _ in range(4000)])
    moments = calibration.noise_moments(d)
    assert np.mean(norms) == pytest.approx(moments.first, rel=0.05)
    assert np.mean(norms**2) == pytest.approx(moments.second, rel=0.05)
    assert np.mean(norms) != pytest.approx(math.sqrt(d) / beta, rel=0.05)


def test_certificate_records_the_rule_and_the_file_round_trips_it(tmp_path):
    X, y = _rows(300, 4, 2)
    model = PrivateERM(lam="auto", data_norm=1.0, comparator_norm=3.0).fit(X, y, 1.0, random_state=0)
    record = model.certificate.lam_rule
    assert record.comparator_norm == 3.0 and record.lam in lam_rule.LAM_GRID
    assert "chosen by the public rule" in str(model.certificate)
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    assert dpcvx.load(path).certificate.lam_rule == record
    # an edited value is refused
    saved = json.loads(path.read_text())
    saved["certificate"]["lam_rule"]["lam"] = 0.5
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="lam_rule.lam"):
        dpcvx.load(path)


def test_a_numeric_lam_records_no_rule():
    X, y = _rows(200, 3, 3)
    assert PrivateERM(lam=1e-2, data_norm=1.0).fit(X, y, 1.0, random_state=0).certificate.lam_rule is None


def test_auto_lam_is_charged_once_at_epsilon():
    X, y = _rows(300, 4, 4)
    accountant = PrivacyAccountant(epsilon=2.0)
    PrivateERM(lam="auto", data_norm=1.0).fit(X, y, 0.7, accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1
    assert accountant.spent.epsilon == pytest.approx(0.7, abs=1e-15)


def test_the_constraint_ball_is_the_comparator_norm():
    import cvxpy as cp

    learner = PrivateERM(lam="auto", data_norm=1.0, constraints=lambda w: [cp.norm(w, 2) <= 6.0])
    assert learner.choose_lam(1000, 4, 1.0).comparator_norm == 6.0


def test_auto_lam_is_refused_where_it_has_no_meaning():
    X, y = _rows(50, 3, 5)
    with pytest.raises(InputError, match="fit_nonprivate"):
        PrivateERM(lam="auto", data_norm=1.0).fit_nonprivate(X, y)
    with pytest.raises(InputError, match="lam"):
        PrivateERM(lam="automatic", data_norm=1.0).fit(X, y, 1.0)
    with pytest.raises(InputError, match="comparator_norm"):
        PrivateERM(lam="auto", data_norm=1.0, comparator_norm=-1.0).fit(X, y, 1.0)


def test_auto_intercept_scaling_minimises_the_bound_product():
    """s^2 = R B0 / W minimises (R^2 + s^2)(W^2 + B0^2 / s^2), the factor the rule's optimal bound scales with;
    s = 1 (the former default) does not at R = 1 and the default W."""
    R = 1.0
    W = lam_rule.default_comparator_norm(R)
    B0 = lam_rule.INTERCEPT_PRIOR

    def product(s: float) -> float:
        return (R * R + s * s) * (W * W + B0 * B0 / (s * s))

    chosen = lam_rule.intercept_scaling(R)
    grid = np.geomspace(1e-3, 1e3, 2001)
    assert product(chosen) <= min(product(float(s)) for s in grid) * (1 + 1e-9)
    assert product(1.0) > product(chosen) * 1.01
    assert lam_rule.intercept_scaling(2.0) == pytest.approx(2 * chosen)     # scales with R at the default W


def test_auto_intercept_scaling_is_resolved_in_the_release(tmp_path):
    X, y = _rows(300, 4, 6)
    learner = PrivateERM(lam="auto", data_norm=1.0, fit_intercept=True, intercept_scaling="auto")
    model = learner.fit(X, y, 1.0, random_state=0)
    s = lam_rule.intercept_scaling(1.0)
    assert model.certificate.intercept_scaling == s
    assert model.certificate.effective_norm_bound == pytest.approx(math.sqrt(1 + s * s))
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    np.testing.assert_array_equal(dpcvx.load(path).decision_function(X), model.decision_function(X))


def test_the_intercept_joins_the_comparator_as_the_scaling_rule_assumes():
    """With an intercept column s the rows grow to R' = sqrt(R^2 + s^2) and the comparator (u, b), ||u|| <= W
    = COMPARATOR_SCALE / R (the features' bound), |b| <= B0, is (u, b / s): the rule weighs the bias with
    W' = sqrt(W^2 + (B0 / s)^2), the norm intercept_scaling's s minimises R' W' over (section 25.7). The
    former W = COMPARATOR_SCALE / R', smaller than both, chose Lam 1.37 times too large at R = 1."""
    B0 = lam_rule.INTERCEPT_PRIOR
    for R, s, comparator in ((1.0, "auto", None), (2.0, 0.5, None), (1.0, 1.0, 3.0)):
        learner = PrivateERM(lam="auto", data_norm=R, fit_intercept=True, intercept_scaling=s,
                             comparator_norm=comparator)
        scaling = learner.row_map().intercept_scaling
        W = lam_rule.default_comparator_norm(R) if comparator is None else comparator
        joined = math.hypot(W, B0 / scaling)
        choice = learner.choose_lam(30_000, 100, 0.1)
        assert choice.comparator_norm == pytest.approx(joined, rel=1e-15)
        former = lam_rule.default_comparator_norm(math.hypot(R, scaling)) if comparator is None else comparator
        assert choice.comparator_norm > former
        assert choice.bias == pytest.approx(choice.lam * joined**2 / 2, rel=1e-12)  # the bias is weighed with W'
    # without an intercept, and under a constraint ball (it bounds the whole vector), W is unchanged
    assert PrivateERM(lam="auto", data_norm=2.0).choose_lam(1000, 4, 1.0).comparator_norm == 4.0
    import cvxpy as cp

    ball = PrivateERM(lam="auto", data_norm=1.0, fit_intercept=True, constraints=lambda w: [cp.norm(w, 2) <= 6.0])
    assert ball.choose_lam(1000, 4, 1.0).comparator_norm == 6.0


def test_least_squares_on_a_ball_takes_auto_lam_with_the_radius_as_comparator():
    X, y = _rows(400, 3, 7)
    model = dpcvx.DPLinearRegression(mechanism="objective", weight_bound=3.0, lam="auto", random_state=0).fit(X, y)
    assert model.model_.certificate.lam_rule.comparator_norm == 3.0
    with pytest.raises(InputError, match="lam > 0"):
        dpcvx.DPLinearRegression(mechanism="objective", weight_bound=3.0, lam="often").fit(X, y)
    with pytest.raises(InputError, match="'auto' or a number"):  # "auto" is AdaSSP's own ridge (section 25.9)
        dpcvx.DPLinearRegression(lam="often").fit(X, y)


def test_auto_lam_keeps_no_state_on_the_learner():
    """The chosen value travels with the fit (certificate.constants['lam']), never as learner state: checking
    inputs, or fitting twice at different epsilons, leaves the declaration as it was."""
    X, y = _rows(300, 4, 8)
    erm = PrivateERM(lam="auto", data_norm=1.0)
    before = dict(vars(erm))
    erm.check_fit_inputs(X, y, epsilon=0.5)
    assert vars(erm) == before
    low = erm.fit(X, y, 0.2, random_state=0).certificate.constants["lam"]
    high = erm.fit(X, y, 5.0, random_state=0).certificate.constants["lam"]
    assert low > high and erm.lam == "auto"


@pytest.mark.parametrize("settings", [
    {"epsilon": 1.0, "n": 2_000}, {"epsilon": 0.05, "n": 300}, {"epsilon": 10.0, "n": 50_000},
    {"epsilon": 1.0, "n": 2_000, "mechanism": "output"}, {"epsilon": 1.0, "n": 2_000, "delta": 1e-8},
    {"epsilon": 0.3, "n": 800, "delta": 1e-7, "mechanism": "output"},
])
@pytest.mark.slow  # about 2 s (the default run's 5-minute limit)
def test_the_rule_skips_only_lams_whose_bias_reaches_the_best_bound(monkeypatch, settings):
    """The rule does not calibrate a Lam whose bias alone reaches the best bound found (its bound could not
    be smaller): it chooses what a scan of every Lam of the grid chooses (the first smallest bound), with
    fewer calibrations."""
    from dpcvx.models import fit_plan

    settings = {"mechanism": "objective", "delta": 0.0, **settings}
    scans: list[tuple] = []
    calls = {"pruned": 0}

    def recorded(calibrate_at, *args, **kwargs):
        def counted(lam):
            calls["pruned"] += 1
            return calibrate_at(lam)

        scans.append((calibrate_at, args, kwargs))
        return lam_rule.choose_lam(counted, *args, **kwargs)

    monkeypatch.setattr(fit_plan, "choose_lam", recorded)
    learner = PrivateERM(lam="auto", data_norm=1.0)
    chosen = learner.choose_lam(settings["n"], 10, settings["epsilon"], settings["mechanism"],
                                delta=settings["delta"])
    calibrate_at, args, kwargs = scans[0]
    every = []
    for lam in lam_rule.LAM_GRID:  # one Lam at a time: nothing to skip
        try:
            every.append(lam_rule.choose_lam(calibrate_at, *args, **{**kwargs, "grid": (lam,)}))
        except InputError:
            continue
    best = min(every, key=lambda choice: choice.bound)  # the first of the smallest, as the rule keeps it
    assert (chosen.lam, chosen.bound) == (best.lam, best.bound)
    assert calls["pruned"] < len(lam_rule.LAM_GRID)


def _proved_budget_of_the_choice(learner: PrivateERM, n: int, d: int, epsilon: float, mechanism: str,
                                 delta: float) -> int | None:
    """The proved iteration budget a fit of the rule's Lam gets from its plan (None: the path is unproved), as the
    plan's checks compute it before the charge."""
    plan, n = learner._public_plan(n, d, epsilon, mechanism, delta, "replace-one", None)
    calibrated = plan.calibrate(n)
    gamma = calibrated.calibration.gradient_tolerance
    assert gamma is not None
    return plan.solver.proved_budget(plan.problem, calibrated.lam, calibrated.calibration.extra_reg, plan.rows, n,
                                     gamma, plan.start)


@pytest.mark.parametrize("n, d, epsilon, mechanism, delta", [
    (10**6, 3, 10.0, "objective", 0.0), (10**6, 3, 10.0, "objective", 1e-9), (1000, 3, 1e3, "objective", 0.0),
    (10**6, 20, 1e3, "output", 0.0), (300, 4, 1e4, "objective", 0.0), (45_222, 105, 1.0, "objective", 0.0)])
def test_the_rule_chooses_a_lam_whose_solve_path_is_proved(n, d, epsilon, mechanism, delta):
    """Where n epsilon is large the bound's minimiser lies at the grid's small end, whose proved iteration budget
    exceeds MAX_PROVED_ITERATIONS (an unproved path: refused inside a composite procedure, unguarded outside one):
    the rule takes the smallest Lam above it whose path is proved (docs/theory.md, section 25.3)."""
    learner = PrivateERM(lam="auto", data_norm=1.0)
    assert _proved_budget_of_the_choice(learner, n, d, epsilon, mechanism, delta) is not None


def test_the_defaults_at_a_large_epsilon_fit_with_private_column_statistics():
    """DPLogisticRegression's defaults draw private column statistics (a composite procedure: only proved paths)
    and choose lam by the rule; at epsilon 10^4 the rule's Lam used to have no proved path, so the estimator refused
    its own defaults and advised raising lam."""
    X, y = _rows(300, 4, 3)
    accountant = PrivacyAccountant(epsilon=1e4)
    model = dpcvx.DPLogisticRegression(epsilon=1e4, accountant=accountant).fit(X, y > 0)
    assert np.all(np.isfinite(model.coef_)) and accountant.spent.epsilon == pytest.approx(1e4)
