"""as_opendp_measurement: dpcvx fits as OpenDP measurements, composed and refused by OpenDP's compositor."""

import math
import sys

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.opendp_bridge import DATA_DOMAIN, as_opendp_measurement

dp = pytest.importorskip("opendp.prelude")


@pytest.fixture(scope="module")
def data():
    return synthetic_classification(n=500, d=3, random_state=11)


@pytest.fixture(scope="module")
def learner():
    return dpcvx.PrivateERM(lam=1e-2, data_norm=1.0)


def _compositor(measurement, d_mids):
    return dp.c.make_adaptive_composition(measurement.input_domain, measurement.input_metric,
                                          measurement.output_measure, d_in=1, d_mids=d_mids)


def test_two_fits_compose_in_the_adaptive_compositor_and_a_third_is_refused(data, learner):
    measurement = as_opendp_measurement(learner, 0.5)  # noise from OS entropy: each fit draws anew
    assert str(measurement.input_metric) == "ChangeOneDistance()"  # replace-one
    assert str(measurement.output_measure) == "MaxDivergence"
    assert measurement.map(1) == 0.5 and measurement.map(0) == 0.0
    queryable = _compositor(measurement, [0.5, 0.5])(data)
    first, second = queryable(measurement), queryable(measurement)
    X, y = data
    for model in (first, second):
        assert isinstance(model, dpcvx.PrivateModel) and model.epsilon == 0.5
        assert model.score(X, y) > 0.6  # a useful model (n = 500, epsilon = 0.5; about 0.9 here)
    assert not np.array_equal(first.coef_, second.coef_)  # two fits, two draws of the noise
    with pytest.raises(dp.OpenDPException, match="out of queries"):
        queryable(measurement)


def test_a_fit_over_its_share_is_refused_before_it_runs(data, learner):
    calls = []

    class Counting:
        def fit(self, *args, **kwargs):
            calls.append(args)
            return learner.fit(*args, **kwargs)

    queryable = _compositor(as_opendp_measurement(Counting(), 0.5, random_state=0), [0.3, 0.7])(data)
    with pytest.raises(dp.OpenDPException):
        queryable(as_opendp_measurement(Counting(), 0.5, random_state=0))  # 0.5 > the first share 0.3
    assert calls == []  # refused by the map: nothing was fitted, nothing spent


def test_the_metric_is_the_relation_and_another_relation_is_refused(data, learner):
    add_remove = as_opendp_measurement(learner, 0.5, delta=1e-6, neighbours="add-remove", n_public=500,
                                       random_state=0)
    assert str(add_remove.input_metric) == "SymmetricDistance()"
    assert str(add_remove.output_measure) == "Approximate(MaxDivergence)"
    assert add_remove.map(1) == (0.5, 1e-6)
    replace_one = as_opendp_measurement(learner, 0.5, delta=1e-6, random_state=0)
    queryable = _compositor(replace_one, [(0.5, 1e-6), (0.5, 1e-6)])(data)
    with pytest.raises(dp.OpenDPException):
        queryable(add_remove)  # a symmetric-distance measurement in a change-one composition
    model = queryable(replace_one)
    assert model.delta == 1e-6 and model.certificate.privacy_curve.neighbours.value == "replace-one"
    assert add_remove((data[0], data[1])).certificate.privacy_curve.neighbours.value == "add-remove"


def test_distances_beyond_one_cost_group_privacy(learner):
    pure = as_opendp_measurement(learner, 0.4)
    assert pure.map(3) == pytest.approx(1.2)
    approximate = as_opendp_measurement(learner, 0.4, delta=1e-7)
    epsilon, delta = approximate.map(3)
    assert epsilon == pytest.approx(1.2) and delta == pytest.approx(1e-7 * (1 + math.exp(0.4) + math.exp(0.8)))
    assert approximate.map(2) == dpcvx.privacy.neighbours.group_epsilon_delta(0.4, 1e-7)


def test_a_release_that_does_not_match_the_map_is_not_returned(data, learner):
    class Overspending:
        def fit(self, X, y, epsilon, **kwargs):
            return learner.fit(X, y, 2 * epsilon, **kwargs)

    with pytest.raises(dp.OpenDPException, match="not released"):
        as_opendp_measurement(Overspending(), 0.5, random_state=0)(data)


def test_bad_arguments_are_refused_at_construction(learner):
    with pytest.raises(InputError, match="with a fit method"):
        as_opendp_measurement(object(), 0.5)
    with pytest.raises(InputError, match="no accountant"):
        as_opendp_measurement(learner, 0.5, accountant=dpcvx.PrivacyAccountant(1.0))
    with pytest.raises(InputError):
        as_opendp_measurement(learner, -1.0)
    with pytest.raises(InputError, match="neighbours"):
        as_opendp_measurement(learner, 0.5, neighbours="replace-two")
    assert DATA_DOMAIN in str(as_opendp_measurement(learner, 0.5).input_domain)


def test_without_opendp_the_error_names_the_extra(learner, monkeypatch):
    monkeypatch.setitem(sys.modules, "opendp.prelude", None)
    with pytest.raises(ImportError, match=r"dpcvx\[opendp\]"):
        as_opendp_measurement(learner, 0.5)
