"""One plan per fit, one plan per tuned candidate (issue 41): :class:`dpcvx.models.fit_plan.FitPlan`."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models import failure
from dpcvx.models.fit_plan import FitPlan


@pytest.fixture
def counted(monkeypatch):
    """Counts of plans made (FitPlan constructed) and executed on the data (rehearsals apart)."""
    counts = {"planned": 0, "executed": 0, "rehearsed": 0}
    init, execute = FitPlan.__init__, FitPlan.execute

    def planned(self, *args, **kwargs):
        counts["planned"] += 1
        init(self, *args, **kwargs)

    def executed(self, *args, **kwargs):
        counts["rehearsed" if failure.rehearsing() else "executed"] += 1
        return execute(self, *args, **kwargs)

    monkeypatch.setattr(FitPlan, "__init__", planned)
    monkeypatch.setattr(FitPlan, "execute", executed)
    return counts


def _data(n: int = 300, d: int = 4, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) / np.sqrt(d)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X @ np.ones(d) + 0.3 * rng.normal(size=n) > 0, 1, -1)


@pytest.mark.parametrize("lam", [1e-2, "auto"])
def test_a_fit_plans_once(counted, lam):
    X, y = _data()
    dpcvx.PrivateERM(lam=lam, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    assert counted == {"planned": 1, "executed": 1, "rehearsed": 0}
    dpcvx.DPLogisticRegression(lam=lam, random_state=0).fit(X, y > 0)
    assert counted == {"planned": 2, "executed": 2, "rehearsed": 0}


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_tune_plans_each_candidate_once_and_fits_every_run_from_its_plan(counted, procedure):
    X, y = _data()
    grid = {"lam": [1e-3, 1e-2, 1e-1]}
    result = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, grid, epsilon=1.0, procedure=procedure,
                        random_state=31)
    runs = 3  # Algorithm 4: each candidate fitted once on its part
    if procedure == "full-data":
        runs = result.diagnostics_["runs"]
        assert runs > 3  # seeded: more runs than candidates, so a plan per run would be seen
    assert counted == {"planned": 3, "executed": runs, "rehearsed": 3}


ESTIMATOR_CANDIDATES = {  # the estimator, its labels from (X, y), the classes each fit solves for
    "binary": (lambda: dpcvx.DPLogisticRegression(), lambda X, y: (y > 0).astype(int), 1),
    "one-vs-rest": (lambda: dpcvx.DPLogisticRegression(classes=(0, 1, 2)),
                    lambda X, y: np.where(X[:, 1] > 0.2, 2, (y > 0).astype(int)), 3),
    # the shipped loss (no proof at a new threshold); without the label's range, whose learner at each run's released
    # B' is built by that run's fit (docs/theory.md, section 34.1): the plan counted here is the plain fit's
    "regressor": (lambda: dpcvx.DPHuberRegressor(m=1.0, column_statistics=False),
                  lambda X, y: np.clip(X @ np.ones(X.shape[1]), -1, 1), 1),
}


@pytest.mark.slow
@pytest.mark.parametrize("procedure", ["full-data", "split"])
@pytest.mark.parametrize("case", sorted(ESTIMATOR_CANDIDATES))
def test_tune_plans_each_estimator_candidate_once(counted, procedure, case):
    """Estimator candidates (budget in the constructor, dpcvx.BudgetInConstructor) are planned once each too, and
    every run fits a copy of the estimator from its plan, with a fresh seed per run."""
    estimator, labels, classes = ESTIMATOR_CANDIDATES[case]
    X, y = _data()
    grid = {"lam": [0.1, 0.3, 1.0]}  # lams whose noise does not dominate: that warning's advice plans a lam="auto"
    result = dpcvx.tune(estimator(), X, labels(X, y), grid, epsilon=30.0, procedure=procedure, random_state=31)
    runs = 3
    if procedure == "full-data":
        runs = result.diagnostics_["runs"]
        assert runs > 3
    assert counted == {"planned": 3, "executed": classes * runs, "rehearsed": classes * 3}
    assert type(result.model) is type(estimator()) and result.model.lam == result.params["lam"]
    assert isinstance(result.model.random_state, int)  # the run's own seed, drawn from tune's generator


def test_a_plan_executes_as_fit_does_and_refuses_before_the_charge():
    X, y = _data()
    erm = dpcvx.PrivateERM(lam="auto", data_norm=1.0, fit_intercept=True)
    plan = erm.plan(X, y, epsilon=0.5)
    assert plan.classes == (-1, 1) and plan.width == X.shape[1] + 1
    fitted = erm.fit(X, y, epsilon=0.5, random_state=3)
    planned = plan.fit(X, y, random_state=3)
    assert np.array_equal(fitted.coef_, planned.coef_) and fitted.intercept_ == planned.intercept_
    assert planned.certificate.constants == fitted.certificate.constants
    # other rows of the same width: calibrated at their own n, the same public plan
    assert plan.fit(X[:100], y[:100], random_state=3).certificate.constants.n == 100
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="width"):
        plan.fit(X[:, :2], y, accountant=accountant, random_state=3)
    assert accountant.ledger == []


BAD_SETTINGS = {"lam": -1.0, "comparator_norm": 0.0, "fit_intercept": "yes", "clip": 1, "strict": None,
                "regularizer": 0.5, "constraints": [], "allow_estimates": "no", "verbose": 2,
                "allow_large_delta": "true", "column_statistics": "yes",
                "solver": "nope", "tol": 10.0,
                "max_iter": 0, "cvxpy_solver": "NOPE", "cvxpy_options": {1: 2},
                # each checked whatever the other settings (before: only when the setting that reads it asked)
                "data_norm": "large", "norm_range": (1.0, "a"), "norm_share": 1.5, "task": "ranking",
                "label_bound": -1.0, "label_range": "wide", "intercept_scaling": 1e100, "float_safe": "False",
                "sample_weight_bound": float("nan"), "class_count_share": 0.0, "column_statistics_share": 1.0,
                "time_limit": -1.0, "feature_map": object()}


def test_every_declared_setting_is_checked_once_at_the_entry_naming_it():
    """The constraints table (erm_inputs.SETTINGS) declares these settings; a bad value of each is refused by
    plan (fit's checks) before anything is charged, with a message that names the parameter."""
    from dpcvx.models.erm_inputs import SETTINGS

    assert set(BAD_SETTINGS) == set(SETTINGS)
    X, y = _data(n=50)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    for name, value in BAD_SETTINGS.items():
        learner = dpcvx.PrivateERM(data_norm=1.0).set_params(**{name: value})
        with pytest.raises(InputError, match=name):
            learner.fit(X, y, epsilon=1.0, accountant=accountant)
    assert accountant.ledger == []
    assert dpcvx.PrivateERM(lam="auto", tol=1e-8, max_iter=5000, cvxpy_options={"max_iter": 5},
                            solver="cvxpy", data_norm=1.0).check_fit_inputs(X, y) == (-1, 1)


def test_a_subclass_that_replaces_fit_is_tuned_through_its_fit(counted):
    class Logged(dpcvx.PrivateERM):
        fits = 0

        def fit(self, *args, **kwargs):
            type(self).fits += 1
            return super().fit(*args, **kwargs)

    X, y = _data()
    assert not Logged(data_norm=1.0).plans_first and dpcvx.PrivateERM(data_norm=1.0).plans_first
    result = dpcvx.tune(Logged(data_norm=1.0), X, y, {"lam": [1e-2, 1e-1]}, epsilon=1.0, random_state=31)
    assert Logged.fits == result.diagnostics_["runs"] + 2  # every run and every rehearsal went through its fit


@pytest.mark.parametrize("mechanism, delta", [("objective", 0.0), ("output", 1e-6)])
def test_one_vs_rest_plans_once_for_its_k_fits(counted, mechanism, delta):
    X, y = _data()
    labels = np.where(X[:, 1] > 0.2, 2, (y > 0).astype(int))
    model = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0), (0, 1, 2)).fit(
        X, labels, 3.0, mechanism, delta=delta, random_state=0, accountant=dpcvx.PrivacyAccountant(epsilon=5.0,
                                                                                                  delta=1e-5))
    assert counted == {"planned": 1, "executed": 3, "rehearsed": 0} and model.coef_.shape == (3, X.shape[1])


CLASSIFIER_BAD_PARAMETERS = {  # the classifiers' parameters that PrivateERM's table checks, and their budget's
    "lam": 1e300, "data_norm": "large", "norm_range": "wide", "norm_share": 1.5, "fit_intercept": "yes",
    "intercept_scaling": 0.0, "clip": 1, "solver": "nope", "float_safe": "False",
    "allow_large_delta": "no", "sample_weight_bound": float("nan"), "class_count_share": 0.0,
    "column_statistics_share": 1.5, "epsilon": 0.0, "delta": 1.0, "mechanism": "laplace", "split": "half",
    "neighbours": "all", "n_public": 0.5, "accountant": 5}
ESTIMATOR_BAD_PARAMETERS = {  # each estimator's declared table (_parameters): a bad value of every entry
    "DPLogisticRegression": {"threshold": 1.5, "penalty": "l3", "l1_ratio": 2.0, "column_statistics": "always",
                             **CLASSIFIER_BAD_PARAMETERS},
    "DPHuberSVM": {"threshold": 0.0, "column_statistics": "sums", **CLASSIFIER_BAD_PARAMETERS},
    "DPLinearRegression": {"mechanism": "laplace", "lam": -1.0, "weight_bound": 0.0, "float_safe": "yes",
                           "epsilon": 0, "delta": float("nan"), "neighbours": "bogus", "norm_share": 1.5,
                           "column_statistics": 0, "n_public": 1.5, "accountant": "ledger"},
    "DPHuberRegressor": {"m": "wide", "column_statistics": "range", "epsilon": None, "delta": -0.1, "neighbours": None,
                         "float_safe": 1, "norm_share": 0, "lam": -1.0, "mechanism": "laplace", "n_public": 0,
                         "sample_weight_bound": float("nan"), "accountant": {}},
}


@pytest.mark.parametrize("name", sorted(ESTIMATOR_BAD_PARAMETERS))
def test_every_declared_estimator_parameter_is_checked_at_the_entry_naming_it(name):
    """The estimators' own parameters are a declared table checked once at fit (and plan), before anything is
    charged; the learner's settings stay PrivateERM's (erm_inputs.SETTINGS), one rule in one place."""
    estimator = getattr(dpcvx, name)
    bad = ESTIMATOR_BAD_PARAMETERS[name]
    assert set(bad) == set(estimator._parameters)
    X, y = _data(n=50)
    labels = np.clip(X[:, 0], -1, 1) if "Regress" in name else (y > 0).astype(int)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    for parameter, value in bad.items():
        with pytest.raises(InputError, match=parameter):
            estimator(**{parameter: value}).fit(X, labels, accountant=accountant)
        with pytest.raises(InputError, match=parameter):
            estimator(**{parameter: value}).plan(X, labels) if hasattr(estimator, "plan") else (
                estimator(**{parameter: value}).fit(X, labels))
    assert accountant.ledger == []


def test_least_squares_on_a_ball_leaves_lam_above_zero_to_private_erm():
    """lam > 0 of mechanism='objective' is PrivateERM's rule: one message for one rule."""
    X, y = _data(n=50)
    with pytest.raises(InputError, match="lam must be finite and positive, got 0.0"):
        dpcvx.DPLinearRegression(mechanism="objective", weight_bound=1.0, lam=0.0).fit(X, np.clip(X[:, 0], -1, 1))


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")  # standardised rows clipped onto R
def test_a_fit_with_private_column_statistics_plans_once(counted):
    """The released map is the plan's one late-bound part: every check before the one charge, planned once."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, column_statistics=True).fit(
        X, y, epsilon=1.0, random_state=0, accountant=accountant)
    assert counted == {"planned": 1, "executed": 1, "rehearsed": 0} and len(accountant.ledger) == 1
    assert model.rows.feature_map is not None and model.certificate.column_statistics is not None
    dpcvx.DPLogisticRegression(column_statistics=True, random_state=0).fit(X, y > 0)
    assert counted == {"planned": 2, "executed": 2, "rehearsed": 0}


def test_the_budget_adapter_keeps_the_learner_contracts_check():
    """A composite procedure (a private bound, a private class count) asks its learner's ``check_fit_inputs``
    before its one charge; the adapter of an estimator answers it from its plan: the public classes, or the
    refusal of the fit, charging nothing (dpcvx.models.contract)."""
    X, y = _data(200, 3)
    labels = (y > 0).astype(int)
    adapter = dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression, lam=1e-2)
    assert adapter.check_fit_inputs(X, labels, 1.0) == (0, 1)
    with pytest.raises(InputError):
        adapter.check_fit_inputs(X, np.where(labels > 0, 7, 0), 1.0)


@pytest.fixture
def adassp_counted(monkeypatch):
    """Counts of AdaSSP plans made, calibrations computed (the learner's ``calibrate`` hook) and executions."""
    from dpcvx.models.linear_regression import AdaSSPPlan, PrivateLinearRegression

    counts = {"planned": 0, "calibrated": 0, "executed": 0, "rehearsed": 0}
    init, calibrate, execute = AdaSSPPlan.__init__, PrivateLinearRegression.calibrate, AdaSSPPlan.execute

    def planned(self, *args, **kwargs):
        counts["planned"] += 1
        init(self, *args, **kwargs)

    def calibrated(self, *args, **kwargs):
        counts["calibrated"] += 1
        return calibrate(self, *args, **kwargs)

    def executed(self, *args, **kwargs):
        counts["rehearsed" if failure.rehearsing() else "executed"] += 1
        return execute(self, *args, **kwargs)

    monkeypatch.setattr(AdaSSPPlan, "__init__", planned)
    monkeypatch.setattr(PrivateLinearRegression, "calibrate", calibrated)
    monkeypatch.setattr(AdaSSPPlan, "execute", executed)
    return counts


def _regression(n: int = 300, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d)) / np.sqrt(d)
    return X, np.clip(X @ np.linspace(0.5, -0.3, d) + 0.1 * rng.standard_normal(n), -1, 1)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("column_statistics", [False, True])
def test_an_adassp_plan_is_made_and_calibrated_once_and_executes_as_fit_does(adassp_counted, column_statistics):
    """AdaSSP's checks and calibration read public inputs only: planned and calibrated once, every fit of the
    plan (other rows of the width, a numeric intercept scale) executes without either; bit-identical to fit."""
    X, y = _regression()
    learner = dpcvx.PrivateLinearRegression(1.0, 1.0, fit_intercept=True, column_statistics=column_statistics)
    fitted = learner.fit(X, y, 1.0, 1e-6, random_state=4)
    assert adassp_counted == {"planned": 1, "calibrated": 1, "executed": 1, "rehearsed": 0}
    plan = learner.plan(X, y, 1.0, 1e-6)
    planned = plan.fit(X, y, random_state=4)
    assert np.array_equal(planned.coef_, fitted.coef_) and planned.intercept_ == fitted.intercept_
    assert planned.certificate.to_dict() == fitted.certificate.to_dict()
    for rows in (slice(0, 100), slice(100, 250)):
        plan.fit(X[rows], y[rows], random_state=4)
    assert adassp_counted == {"planned": 2, "calibrated": 2, "executed": 4, "rehearsed": 0}
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(InputError, match="columns"):
        plan.fit(X[:, :2], y, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
def test_the_estimators_adassp_plan_scales_the_intercept_at_each_fits_n(adassp_counted):
    """DPLinearRegression(mechanism="adassp")'s intercept scale is AdaSSP's public rule at the fit's n: one plan, one
    calibration per n, each fit of it identical to the estimator's fit on those rows."""
    X, y = _regression(3000)
    plan = dpcvx.DPLinearRegression(epsilon=1.0, mechanism="adassp").plan(X, y)
    for rows in (slice(0, 3000), slice(0, 1500), slice(1500, 1650)):  # s = 0.45, 0.72 and 1 (the rule's cap)
        fitted = dpcvx.DPLinearRegression(epsilon=1.0, mechanism="adassp", random_state=5).fit(X[rows], y[rows])
        planned = plan.fit(X[rows], y[rows], random_state=5)
        assert np.array_equal(planned.coef_, fitted.coef_) and planned.intercept_ == fitted.intercept_
        assert planned.certificate_.intercept_scaling == fitted.certificate_.intercept_scaling
    assert adassp_counted["planned"] == 4 and adassp_counted["calibrated"] == 3 + 3  # each fit's, the plan's once per s
    assert len({fit.intercept_scaling for fit in (plan.plan.calibrate(n)[0] for n in (3000, 1500, 150))}) == 3


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("learner", ["PrivateLinearRegression", "DPLinearRegression"])
def test_tune_plans_each_adassp_candidate_once(adassp_counted, learner):
    X, y = _regression(400)
    grid = {"lam": [0.0, 0.01, 0.1]}
    tuned = (lambda lam: dpcvx.PrivateLinearRegression(1.0, 1.0, lam=lam)) if learner == "PrivateLinearRegression" \
        else dpcvx.DPLinearRegression()
    result = dpcvx.tune(tuned, X, y, grid, epsilon=1.0, delta=1e-6, procedure="split", random_state=31)
    # one calibration per candidate, its rehearsal and its run fitted from it (DPLinearRegression's intercept rule
    # gives s = 1 at the part's 133 rows and the rehearsal's 64); a plan per run would calibrate 6 times
    assert adassp_counted == {"planned": 3, "calibrated": 3, "executed": 3, "rehearsed": 3}
    assert result.params["lam"] in grid["lam"]


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("statistics", [True, "ranges"])
def test_tune_plans_a_candidate_with_column_statistics_once_and_binds_each_runs_map(counted, statistics):
    """The released map is the one late-bound part of a fit with private column statistics (the sums' map or the
    histograms' ranges): tune plans each candidate once (a StandardisedPlan over one FitPlan) and every run binds its
    own released map to it; one charge of the whole budget."""
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    result = dpcvx.tune(lambda lam: dpcvx.PrivateERM(data_norm=1.0, lam=lam, column_statistics=statistics), X, y,
                        {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=1.0, procedure="full-data", random_state=31,
                        accountant=accountant)
    runs = result.diagnostics_["runs"]
    assert runs > 3 and counted == {"planned": 3, "executed": runs, "rehearsed": 3}
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    record = result.model.certificate.column_statistics
    assert record is not None and ("cells" in record) == (statistics == "ranges")


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
def test_a_private_bound_plan_checks_once_and_plans_once_per_drawn_bound(counted):
    """A fit with a private bound: its checks at the grid's two ends once, then one plan per drawn R (a public
    point of the grid), reused by every later fit that draws it; each fit identical to the learner's own fit."""
    X, y = _data()
    learner = dpcvx.PrivateERM(data_norm="private", norm_range=(0.25, 4.0), lam=1e-2)
    plan = learner.plan(X, y, epsilon=1.0)
    assert counted["planned"] == 2  # the checks at R = 0.25 and R = 4
    drawn = set()
    for seed in range(6):
        model = plan.fit(X, y, random_state=seed)
        drawn.add(model.certificate.private_bound["bound"])
        assert np.array_equal(model.coef_, learner.fit(X, y, 1.0, random_state=seed).coef_)
    assert counted["planned"] == 2 + len(drawn) + 6 * 3  # the plan's, and each of the learner's 6 fits: 3 each
    counts = dict(counted)
    result = dpcvx.tune(lambda lam: dpcvx.PrivateERM(data_norm="private", norm_range=(0.25, 4.0), lam=lam), X, y,
                        {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=1.0, procedure="full-data", random_state=31)
    runs, planned = result.diagnostics_["runs"], counted["planned"] - counts["planned"]
    assert runs > 3 and planned <= 3 * 2 + 3 * 5 < 2 * 3 + 3 * (runs + 3)  # once per (candidate, R), not per run


COUNT_CANDIDATES = {"weights": dict(class_weight="balanced"), "weights, lam=auto": dict(class_weight="balanced"),
                    "offset": dict(class_prior="private", fit_intercept=True),
                    "ranges, weights": dict(class_weight="balanced", column_statistics="ranges"),
                    "ranges, offset": dict(class_prior="private", fit_intercept=True, column_statistics="ranges")}


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("case", sorted(COUNT_CANDIDATES))
def test_tune_plans_a_candidate_with_a_private_class_count_once_and_binds_each_runs_rates(counted, case):
    """A private class count's rates are post-processing bound to the fit's one plan (the balanced weights and s_bar,
    or the offset's centred ridge): tune plans each candidate once (a RatesPlan over one FitPlan; after the columns'
    ranges, a StandardisedPlan over that RatesPlan, each run binding its map then its rates), not once per run;
    one charge of the whole budget; each fit from the plan is the learner's own fit, bit for bit."""
    X, y = _data()
    grid = {"lam": ["auto", 1e-2, 1e-1] if "auto" in case else [1e-3, 1e-2, 1e-1]}
    make = lambda lam: dpcvx.PrivateERM(data_norm=1.0, lam=lam, **COUNT_CANDIDATES[case])  # noqa: E731
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    result = dpcvx.tune(make, X, y, grid, epsilon=1.0, procedure="full-data", random_state=31, accountant=accountant)
    runs = result.diagnostics_["runs"]
    assert runs > 3 and counted == {"planned": 3, "executed": runs, "rehearsed": 3}
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    assert result.model.certificate.weights.private_count is not None
    assert (result.model.certificate.column_statistics is not None) == ("ranges" in case)
    plan = make(grid["lam"][0]).plan(X, y, epsilon=1.0)
    for seed in range(3):
        model, own = plan.fit(X, y, random_state=seed), make(grid["lam"][0]).fit(X, y, 1.0, random_state=seed)
        assert np.array_equal(model.coef_, own.coef_) and np.array_equal(model.intercept_, own.intercept_)
        assert str(model.certificate) == str(own.certificate)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
# the classifiers' default "auto" draws the ranges at these rows: class_weight="balanced" composes them with a count
@pytest.mark.parametrize("params", [dict(class_prior="private", threshold="prior", column_statistics=False),
                                    dict(class_weight="balanced"),
                                    dict(column_statistics="ranges"),
                                    dict(data_norm="private", norm_range=(0.25, 4.0))])
def test_tune_plans_each_estimator_candidate_that_draws_first_once(counted, params):
    """An estimator candidate whose fit first draws (a class count, column statistics, a bound) is planned once
    through its EstimatorPlan over the learner's composite plan (a bound: once per drawn point of its grid)."""
    X, y = _data()
    result = dpcvx.tune(dpcvx.DPLogisticRegression(**params), X, y > 0, {"lam": [0.1, 0.3, 1.0]}, epsilon=30.0,
                        procedure="full-data", random_state=31)
    runs = result.diagnostics_["runs"]
    assert runs > 3 and counted["executed"] == runs and counted["rehearsed"] == 3
    if "class_weight" in params:  # the default drew the ranges and a class count, composed in one charge
        certificate = result.model.certificate_
        assert certificate.column_statistics is not None and certificate.weights.private_count is not None
    if "norm_range" in params:  # the checks at the grid's two ends, then one plan per (candidate, drawn R)
        assert counted["planned"] <= 3 * 2 + 3 * 5 < 2 * 3 + 3 * (runs + 3)
    else:
        assert counted["planned"] == 3


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("learner", [dict(data_norm=1.0, column_statistics=True),
                                     dict(data_norm="private", norm_range=(0.25, 4.0)),
                                     dict(data_norm=1.0, class_weight="balanced"),
                                     dict(data_norm=1.0, class_weight="balanced", column_statistics="ranges"),
                                     dict(data_norm=1.0, class_prior="private", fit_intercept=True)])
def test_a_composite_plan_fitted_on_other_rows_refuses_them_before_its_charge(learner):
    """With an accountant, a composite's plan checks the rows it is given before its one charge, as the plan
    checked its own: a refused call spends nothing."""
    X, y = _data()
    plan = dpcvx.PrivateERM(lam=1e-2, **learner).plan(X, y, epsilon=1.0)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="classes|labels"):
        plan.fit(X, np.where(y > 0, 7, -1), accountant=accountant)
    assert accountant.ledger == []
    plan.fit(X[:200], y[:200], accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("binary", [dict(class_weight="balanced"), dict(class_prior="private", fit_intercept=True)])
def test_tune_plans_a_one_vs_rest_candidate_that_draws_first_once(counted, binary):
    """One-vs-rest over a binary learner that first draws a class count (its weights or its offset): the candidate's
    k problems share one composite plan, made once (before the one charge); each run's k fits draw their own count
    from it. A plan per run (or per class) would be seen: runs > 3."""
    X, y = _data()
    labels = np.where(X[:, 1] > 0.2, 2, (y > 0).astype(int))
    make = lambda lam: dpcvx.PrivateMulticlassERM(  # noqa: E731
        dpcvx.PrivateERM(data_norm=1.0, lam=lam, **binary), (0, 1, 2))
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    result = dpcvx.tune(make, X, labels, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=3.0, procedure="full-data",
                        random_state=31, accountant=accountant)
    runs = result.diagnostics_["runs"]
    assert runs > 3 and counted == {"planned": 3, "executed": 3 * runs, "rehearsed": 3 * 3}
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 3.0
    plan = make(1e-2).plan(X, labels, 3.0)
    assert counted["planned"] == 4
    model, own = plan.fit(X, labels, random_state=5), make(1e-2).fit(X, labels, 3.0, random_state=5)
    assert np.array_equal(model.coef_, own.coef_) and str(model.certificate) == str(own.certificate)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("params", [dict(data_norm="private", norm_range=(0.25, 4.0)),
                                    dict(label_bound="private", label_range=(0.25, 4.0), m=0.3)])
def test_tune_plans_each_huber_candidate_with_a_private_bound_once_per_drawn_bound(counted, params):
    """DPHuberRegressor candidates that draw a private R (or B) first are planned through their EstimatorPlan over the
    learner's BoundPlan: its checks at the grid's two ends, then one plan per (candidate, drawn bound), not per run."""
    from dpcvx.models.tuning import ClippedSquaredError

    X, y = _data()
    target = np.clip(X @ np.ones(X.shape[1]), -1, 1)
    result = dpcvx.tune(dpcvx.DPHuberRegressor(**params), X, target, {"lam": [0.1, 0.3, 1.0]}, epsilon=30.0,
                        procedure="full-data", random_state=31, score=ClippedSquaredError(bound=4.0))
    runs = result.diagnostics_["runs"]
    assert runs > 3 and counted["executed"] == runs and counted["rehearsed"] == 3
    assert counted["planned"] <= 3 * 2 + 3 * 5 < 2 * 3 + 3 * (runs + 3)


def test_lam_auto_is_chosen_once_per_public_inputs(monkeypatch):
    """A fit with lam="auto" reuses the rule's choice made for the same public inputs (other rows, other noise);
    another public input (epsilon, n) calibrates the grid afresh; each choice is the public rule's
    (PrivateERM.choose_lam)."""
    from dpcvx.models import fit_plan

    calibrated = []
    real = fit_plan.calibrate_linear

    def counted(*args, **kwargs):
        calibrated.append(kwargs["n"])
        return real(*args, **kwargs)

    monkeypatch.setattr(fit_plan, "calibrate_linear", counted)
    monkeypatch.setattr(fit_plan, "_RULE_CHOICES", {})
    rng = np.random.default_rng(7)
    X, y = rng.normal(size=(400, 5)) / 8, rng.choice([-1.0, 1.0], 400)
    learner = dpcvx.PrivateERM(lam="auto", data_norm=1.0)

    def fit_calibrations(rows: slice, epsilon: float, seed: int) -> int:
        """The calibrations the fit made; its Lam is checked against the public rule's."""
        before = len(calibrated)
        model = learner.fit(X[rows], y[rows], epsilon=epsilon, random_state=seed)
        made = len(calibrated) - before
        assert model.certificate.constants.lam == learner.choose_lam(len(y[rows]), 5, epsilon).lam
        return made

    assert fit_calibrations(slice(0, 200), 1.0, 0) > 1
    assert fit_calibrations(slice(200, 400), 1.0, 1) == 0  # other rows, the same public inputs: the choice reused
    assert fit_calibrations(slice(0, 200), 2.0, 2) > 1  # another epsilon: chosen afresh
    assert fit_calibrations(slice(0, 300), 1.0, 3) > 1  # another n
    assert fit_calibrations(slice(100, 300), 2.0, 4) == 0


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("case", ["PrivateERM", "balanced", "DPLogisticRegression", "DPHuberRegressor", "prior",
                                  "private prior", "elasticnet", "l1", "ball"])
def test_a_plan_pickles_and_its_copy_releases_what_the_plan_releases(case):
    """pickle.dumps(plan) raised AttributeError ("Can't pickle local object 'compile_code.<locals>.evaluate'", and
    for the Huber regressor 'scaled_huber.<locals>.<lambda>'): a verified loss's derivatives are objects now, a
    compiled expression pickled as its text and compiled again when read. The estimators' own regularizers and
    constraint were closures too until the fifty-eighth session (a public prior's centred ridge, 'centred_ridge.
    <locals>.ridge'; the L1 and elastic-net penalties; DPLinearRegression's weight ball): values now."""
    import pickle

    from dpcvx.demo import synthetic_classification

    X, y = synthetic_classification(n=600, d=4, random_state=0)
    labels = {"DPHuberRegressor": X[:, 0], "ball": X[:, 0], "PrivateERM": y, "balanced": y}.get(case,
                                                                                               (y > 0).astype(int))
    make = {"PrivateERM": lambda: dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).plan(X, y, epsilon=1.0),
            "balanced": lambda: dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, class_weight="balanced").plan(
                X, y, epsilon=1.0),
            "DPLogisticRegression": lambda: dpcvx.DPLogisticRegression(epsilon=1.0).plan(X, labels),
            "DPHuberRegressor": lambda: dpcvx.DPHuberRegressor(epsilon=1.0, m=0.3).plan(X, labels),
            "prior": lambda: dpcvx.DPLogisticRegression(epsilon=1.0, class_prior=(0.3, 0.7)).plan(X, labels),
            "private prior": lambda: dpcvx.DPLogisticRegression(epsilon=1.0, class_prior="private").plan(X, labels),
            "elasticnet": lambda: dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-2, penalty="elasticnet",
                                                             l1_ratio=0.5).plan(X, labels),
            "l1": lambda: dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-2, penalty="l1").plan(X, labels),
            "ball": lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=0.0, weight_bound=3.0, lam=1e-2,
                                                     mechanism="objective", label_bound=1.0).plan(X, labels)}[case]
    plan = make()
    copy = pickle.loads(pickle.dumps(plan))
    model, again = (getattr(fitted, "model_", fitted) for fitted in (plan.fit(X, labels, random_state=2),
                                                                      copy.fit(X, labels, random_state=2)))
    np.testing.assert_array_equal(model.coef_, again.coef_)
    assert model.certificate.to_dict() == again.certificate.to_dict()


@pytest.mark.parametrize("case", ["PrivateERM", "DPLogisticRegression", "TDDL"])
def test_a_used_plan_or_learner_pickles_without_the_solvers_statistics(case):
    """A plan holds its learner, and a fit set the learner's ``diagnostics_`` (NOT PRIVATE: iterations, timings, the
    residual measured on the private rows): a plan used on D pickled the residual 1.716e-08 and on its neighbour D'
    1.768e-08 (an attacker probe). A used plan's pickle, and a copy or pickle of a fitted learner, now hold no
    diagnostics_ (the data owner's stay on the learner in this process)."""
    import copy
    import pickle

    from dpcvx.demo import synthetic_classification

    X, y = synthetic_classification(n=400, d=4, random_state=0)
    if case == "TDDL":
        learner = dpcvx.TDDL(kernel="linear", lam=0.1, input_bound=1.0)
        learner.fit(X, y, epsilon=1.0, Z=X[:20], random_state=1)
        held = [learner]
    elif case == "PrivateERM":
        plan = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).plan(X, y, epsilon=1.0)
        plan.fit(X, y, random_state=1)
        held = [plan, plan.learner]
    else:
        plan = dpcvx.DPLogisticRegression(epsilon=1.0, column_statistics=False).plan(X, (y > 0).astype(int))
        plan.fit(X, (y > 0).astype(int), random_state=1)
        held = [plan, plan.learner]
    assert held[-1].diagnostics_ is not None  # the data owner's, in this process
    for holder in held:
        data = pickle.dumps(holder)
        assert b"diagnostics_" not in data and b"SolveInfo" not in data and b"Diagnostics" not in data
        assert not hasattr(copy.deepcopy(held[-1]), "diagnostics_")
