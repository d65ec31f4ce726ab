"""as_opendp_measurement of a scikit-learn estimator: its own budget, relation and checks; a fresh clone fitted at
each call; an accountant or a fixed seed in its constructor refused (tests/models/test_opendp_bridge.py: learners)."""

import functools

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.opendp_bridge import as_opendp_measurement
from dpcvx.privacy.neighbours import group_epsilon_delta

dp = pytest.importorskip("opendp.prelude")
pytest.importorskip("sklearn")

PAIR = (-1, 1)  # the labels of synthetic_classification


@pytest.fixture(scope="module")
def data():
    return synthetic_classification(n=500, d=3, random_state=11)


@pytest.fixture
def fits(monkeypatch):
    """The estimators DPLogisticRegression.fit is called on (none may run when a measurement or its query is
    refused)."""
    called = []
    fit = dpcvx.DPLogisticRegression.fit

    @functools.wraps(fit)
    def recording(self, *args, **kwargs):
        called.append(self)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(dpcvx.DPLogisticRegression, "fit", recording)
    return called


def _logistic(**params):
    return dpcvx.DPLogisticRegression(data_norm=1.0, classes=PAIR, **params)


def _compositor(measurement, d_mids):
    return dp.c.make_adaptive_composition(measurement.input_domain, measurement.input_metric,
                                          measurement.output_measure, d_in=1, d_mids=d_mids)


def test_an_estimator_composes_each_call_fits_a_fresh_clone_and_a_third_is_refused(data, fits):
    # before: the estimator was refused ("holds its budget in its constructor: wrap the learner it fits")
    estimator = _logistic(epsilon=0.5)
    before = estimator.get_params()
    measurement = as_opendp_measurement(estimator)  # the budget is the estimator's own
    assert str(measurement.input_metric) == "ChangeOneDistance()"
    assert str(measurement.output_measure) == "MaxDivergence"
    assert measurement.map(1) == 0.5 and measurement.map(0) == 0.0
    queryable = _compositor(measurement, [0.5, 0.5])(data)
    first, second = queryable(measurement), queryable(measurement)
    X, y = data
    for fitted in (first, second):
        assert isinstance(fitted, dpcvx.DPLogisticRegression) and fitted is not estimator
        assert fitted.certificate_.epsilon == 0.5 and fitted.model_.certificate is fitted.certificate_
        assert fitted.score(X, y) > 0.6  # a useful model (n = 500, epsilon = 0.5)
    assert fits == [first, second]  # two clones fitted, the user's estimator never
    assert not hasattr(estimator, "model_") and estimator.get_params() == before
    assert not np.array_equal(first.coef_, second.coef_)  # random_state=None: fresh noise at each call
    with pytest.raises(dp.OpenDPException):
        queryable(measurement)  # the budget is spent
    assert len(fits) == 2


def test_an_estimator_over_its_share_is_refused_before_it_fits(data, fits):
    queryable = _compositor(as_opendp_measurement(_logistic(epsilon=0.2)), [0.3, 0.7])(data)
    with pytest.raises(dp.OpenDPException):
        queryable(as_opendp_measurement(_logistic(epsilon=0.5)))  # 0.5 > the first share 0.3
    assert fits == []  # refused by the map: nothing was fitted, nothing spent


def test_estimators_compose_with_a_learner_in_a_basic_composition(data):
    X, y = data
    both = dp.c.make_composition([as_opendp_measurement(_logistic(epsilon=0.3)),
                                        as_opendp_measurement(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0), 0.2)])
    assert both.map(1) == pytest.approx(0.5)
    estimator, model = both(data)
    assert isinstance(estimator, dpcvx.DPLogisticRegression) and isinstance(model, dpcvx.PrivateModel)


def test_the_map_and_the_metric_are_the_estimators_budget_and_relation(data):
    estimator = dpcvx.DPERMClassifier(data_norm=1.0, classes=PAIR, epsilon=0.4, delta=1e-7, neighbours="add-remove",
                                      n_public=500)
    measurement = as_opendp_measurement(estimator)
    assert str(measurement.input_metric) == "SymmetricDistance()"
    assert str(measurement.output_measure) == "Approximate(MaxDivergence)"
    assert measurement.map(1) == (0.4, 1e-7)
    assert measurement.map(3) == group_epsilon_delta(0.4, 1e-7, 3)
    assert measurement(data).certificate_.privacy_curve.neighbours.value == "add-remove"
    regression = as_opendp_measurement(dpcvx.DPLinearRegression(data_norm=1.0, label_bound=1.0))
    assert regression.map(1) == (1.0, 1e-6)  # DPLinearRegression's own defaults


def test_a_budget_given_must_be_the_estimators_own():
    estimator = _logistic(epsilon=0.5, delta=1e-6)
    assert as_opendp_measurement(estimator, 0.5, 1e-6).map(1) == (0.5, 1e-6)
    assert as_opendp_measurement(estimator, 0.5).map(1) == (0.5, 1e-6)  # delta left out: the estimator's
    with pytest.raises(InputError, match=r"epsilon=1\.0 for DPLogisticRegression, whose own epsilon is 0\.5"):
        as_opendp_measurement(estimator, 1.0)
    with pytest.raises(InputError, match=r"delta=0\.0 for DPLogisticRegression, whose own delta is 1e-06"):
        as_opendp_measurement(estimator, 0.5, 0.0)
    with pytest.raises(InputError, match="epsilon must be finite and positive"):
        as_opendp_measurement(estimator, -1.0)


def test_a_learner_still_needs_its_epsilon():
    with pytest.raises(InputError, match="needs epsilon: a learner takes its budget in fit"):
        as_opendp_measurement(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0))


def test_a_learners_seed_follows_the_estimators_rule(data):
    """One rule for a seed in a measurement: a learner's fit option random_state=0 would draw the same noise at each
    call, as an estimator's would; refused unless allow_fixed_seed=True, and then reproducible."""
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)
    with pytest.raises(InputError, match=r"random_state=0: every call .* same noise.*allow_fixed_seed=True"):
        as_opendp_measurement(learner, 0.5, random_state=0)
    seeded = as_opendp_measurement(learner, 0.5, random_state=0, allow_fixed_seed=True)
    assert np.array_equal(seeded(data).coef_, seeded(data).coef_)  # a reproducible experiment
    fresh = as_opendp_measurement(learner, 0.5)
    assert not np.array_equal(fresh(data).coef_, fresh(data).coef_)  # OS entropy: fresh noise at each call


ESTIMATOR_REFUSALS = [  # (the estimator, the fit's options): each refused by check_params, as fit refuses it
    (_logistic(epsilon=-1.0), {}),
    (_logistic(mechanism="bogus"), {}),
    (_logistic(random_state=np.random.default_rng(0)), {}),
    (_logistic(), dict(sample_weight=np.ones(500))),  # weights need the public sample_weight_bound
    (dpcvx.DPLinearRegression(data_norm=1.0, label_bound=1.0), dict(sample_weight=np.ones(500))),
    (dpcvx.DPHuberRegressor(data_norm=1.0, label_bound=1.0, lam=-1.0), {}),
]


@pytest.mark.parametrize("estimator, options", ESTIMATOR_REFUSALS,
                         ids=["epsilon", "mechanism", "generator", "weights", "regression-weights", "huber-lam"])
def test_what_check_params_refuses_is_refused_when_the_measurement_is_made(data, fits, estimator, options):
    X, y = data
    with pytest.raises(InputError) as by_fit:
        type(estimator)(**estimator.get_params()).fit(X, y, **options)
    fits.clear()
    with pytest.raises(InputError) as by_bridge:  # the weights come with the data (weighted=True)
        as_opendp_measurement(estimator, weighted="sample_weight" in options)
    assert str(by_bridge.value) == str(by_fit.value)
    assert fits == []


def test_options_an_estimator_does_not_take_and_add_remove_at_delta_zero_are_refused(fits):
    with pytest.raises(InputError, match=r"DPLogisticRegression.fit\(X, y, \*\*fit_params\).*'neighbours'.*"
                                         r"set them in DPLogisticRegression\(...\)"):
        as_opendp_measurement(_logistic(), neighbours="add-remove")
    with pytest.raises(InputError, match="neighbours='add-remove' is offered for delta > 0"):
        as_opendp_measurement(_logistic(neighbours="add-remove", n_public=500))
    with pytest.raises(InputError, match="takes no accountant"):
        as_opendp_measurement(_logistic(), accountant=dpcvx.PrivacyAccountant(1.0))
    assert fits == []


def test_an_accountant_in_the_constructor_is_refused_and_charged_nothing(fits):
    accountant = dpcvx.PrivacyAccountant(1.0)
    with pytest.raises(InputError, match="accountant= from its constructor.*besides OpenDP's compositor"):
        as_opendp_measurement(_logistic(epsilon=0.5, accountant=accountant))
    assert accountant.ledger == [] and fits == []


def test_a_fixed_seed_is_refused_unless_allowed_and_then_every_call_draws_the_same_noise(data):
    seeded = _logistic(epsilon=0.5, random_state=0)
    with pytest.raises(InputError, match=r"random_state=0: every call .* same noise.*allow_fixed_seed=True"):
        as_opendp_measurement(seeded)
    measurement = as_opendp_measurement(seeded, allow_fixed_seed=True)  # a reproducible experiment
    first, second = measurement(data), measurement(data)
    np.testing.assert_array_equal(first.coef_, second.coef_)  # what the refusal guards a release against


def test_the_measurement_fits_the_estimator_as_it_was_when_made(data):
    estimator = _logistic(epsilon=0.5)
    measurement = as_opendp_measurement(estimator)
    estimator.set_params(epsilon=5.0)  # after: the measurement's map is 0.5, its fits stay at 0.5
    assert measurement(data).certificate_.epsilon == 0.5


def test_a_release_that_does_not_match_the_map_is_not_returned(data, monkeypatch):
    fit = dpcvx.DPLogisticRegression.fit

    def overspending(self, X, y, sample_weight=None, *, accountant=None):
        return fit(self.set_params(epsilon=2 * self.epsilon), X, y, sample_weight, accountant=accountant)

    measurement = as_opendp_measurement(_logistic(epsilon=0.5))
    monkeypatch.setattr(dpcvx.DPLogisticRegression, "fit", overspending)
    with pytest.raises(dp.OpenDPException, match="not released"):
        measurement(data)


def _data_of(estimator, data):
    X, y = data
    if isinstance(estimator, (dpcvx.DPLinearRegression, dpcvx.DPHuberRegressor)):
        return X, np.clip(X @ np.array([0.5, -0.3, 0.2]), -1.0, 1.0)
    return (X, np.arange(X.shape[0]) % 3) if len(estimator.classes) == 3 else (X, y)


@pytest.mark.parametrize("estimator, options", [
    (dpcvx.DPLogisticRegression(data_norm=1.0, classes=(0, 1, 2)), {}),
    (dpcvx.DPHuberSVM(data_norm=1.0, classes=PAIR, delta=1e-6, mechanism="output"), {}),
    (_logistic(sample_weight_bound=2.0, lam=0.1), dict(weighted=True)),
    (dpcvx.DPLinearRegression(data_norm=1.0, label_bound=1.0), {}),
    (dpcvx.DPHuberRegressor(data_norm=1.0, label_bound=1.0, delta=1e-6, neighbours="add-remove", n_public=500), {}),
], ids=["multiclass", "huber-svm", "weights", "linear-regression", "huber-add-remove"])
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # AdaSSP at n = 500
def test_a_good_measurement_of_every_estimator_fits(data, estimator, options):
    X, y = _data_of(estimator, data)
    fitted = as_opendp_measurement(estimator, **options)((X, y, np.full(len(y), 2.0)) if options else (X, y))
    assert type(fitted) is type(estimator) and fitted.certificate_.delta == estimator.delta
    assert np.all(np.isfinite(fitted.predict(X)))
