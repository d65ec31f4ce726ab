"""Estimators: the noise warning (output perturbation, regressors, the user's line), weights without their
public bound refused with a typed error (tests/models/test_weights.py tests the weighted fits),
and regression's pure-epsilon route, label range and clipping advice."""

import json
import re
import warnings

import numpy as np
import pytest
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import ClippingWarning, InputError, NoiseDominatesWarning, UnsupportedWeightsError
from dpcvx.sklearn.regressors import DPHuberRegressor, DPLinearRegression

CLASSIFIERS = (dpcvx.DPLogisticRegression, dpcvx.DPHuberSVM, dpcvx.DPERMClassifier)


@pytest.fixture(scope="module")
def data():
    X, y = synthetic_classification(n=3000, d=5, random_state=1)
    return X, (y > 0).astype(int)


def regression_data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    y = 150.0 + 80.0 * (X @ np.array([1.0, -1.0, 0.5, 0.0])) + rng.normal(scale=5.0, size=n)
    return X, y   # labels in about [110, 190], far from 0


def noise_warnings(caught):
    return [w for w in caught if issubclass(w.category, NoiseDominatesWarning)]


# -- NoiseDominatesWarning ------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_output_perturbation_warns_when_its_noise_swamps_a_useful_margin(cls, data):
    """Output perturbation at epsilon 0.1 on 300 rows: the noise moves a typical decision by more than
    three times what a model of the comparator norm reaches (the rule of docs/theory.md, section 21);
    the release scores at or below the majority rate (0.51; non-private: 0.89)."""
    X, y = data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator = cls(mechanism="output", epsilon=0.1, random_state=0).fit(X[:300], y[:300])
    found = noise_warnings(caught)
    assert len(found) == 1 and found[0].filename == __file__
    assert "moves a prediction by about" in str(found[0].message)
    with warnings.catch_warnings():   # and the same estimator with 30 times the budget is quiet
        warnings.simplefilter("error", NoiseDominatesWarning)
        cls(mechanism="output", epsilon=3.0, random_state=0).fit(X[:300], y[:300])
    majority = max(y.mean(), 1 - y.mean())
    assert estimator.score(X, y) <= majority + 0.01   # the release it warned about is no better than majority


def test_noise_warning_points_at_the_callers_line_through_scikit_learn_wrappers(data):
    X, y = data
    pipeline = make_pipeline(FunctionTransformer(), dpcvx.DPLogisticRegression(mechanism="output", epsilon=0.1,
                                                                               random_state=0))
    X, y = X[:300], y[:300]
    for call in (lambda: pipeline.fit(X, y), lambda: cross_val_score(pipeline, X, y, cv=2)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        found = noise_warnings(caught)
        assert found and all(w.filename == __file__ for w in found), [w.filename for w in found]


@pytest.mark.slow  # about 8 s: proves a Huber loss at m = 50 that the shipped catalogue does not hold
def test_regressor_output_perturbation_warns_at_the_callers_line():
    X, y = regression_data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPHuberRegressor(mechanism="output", label_bound=(0, 300), m=50, lam=1e-3, random_state=0).fit(X, y)
    found = noise_warnings(caught)
    assert len(found) == 1 and found[0].filename == __file__
    assert "see lam='auto': lam='auto' (the default) would choose lam=" in str(found[0].message)


def test_noise_warning_reads_no_data(data):
    """The same public shape warns the same, whatever the labels (all one class, or the real ones)."""
    X, y = data[0][:300], data[1][:300]
    texts = set()
    for labels in (y, np.ones_like(y), np.zeros_like(y)):
        with pytest.warns(NoiseDominatesWarning) as caught:
            dpcvx.DPLogisticRegression(mechanism="output", epsilon=0.1, random_state=0).fit(X, labels)
        texts.add(str(noise_warnings(caught)[0].message))
    assert len(texts) == 1


# -- weights -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", [*CLASSIFIERS, DPLinearRegression, DPHuberRegressor], ids=lambda c: c.__name__)
def test_sample_weight_is_refused_with_a_typed_error_naming_the_bound(make, data):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(UnsupportedWeightsError, match=r"sample_weight.*PUBLIC bound sample_weight_bound=w_max") \
            as caught:
        make().fit(X, y, sample_weight=np.ones(len(y)), accountant=accountant)
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, InputError)
    assert accountant.ledger == []   # refused before anything is spent


MATHEMATICAL_LAYER = {
    "PrivateERM": lambda X, y, **kw: dpcvx.PrivateERM(lam=0.1, data_norm=1.0, classes=(0, 1)).fit(X, y, 1.0, **kw),
    "PrivateMulticlassERM": lambda X, y, **kw: dpcvx.PrivateMulticlassERM(
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0), (0, 1, 2)).fit(X, y, 1.0, **kw),
    "PrivateLinearRegression": lambda X, y, **kw: dpcvx.PrivateLinearRegression(1.0, 1.0).fit(
        X, y.astype(float), 1.0, 1e-6, **kw),
    "TDDL": lambda X, y, **kw: dpcvx.TDDL(lam=0.1).fit(X, 2 * y - 1, 1.0, Z=X[:5], **kw),
    "TDIL": lambda X, y, **kw: dpcvx.TDIL(lam=0.1, input_bound=1.0).fit(X, 2 * y - 1, 1.0, **kw),
    "PINP": lambda X, y, **kw: dpcvx.PINP(lam=0.1, max_queries=10).fit(X, 2 * y - 1, 1.0, **kw),
}


@pytest.mark.parametrize("fit", MATHEMATICAL_LAYER.values(), ids=MATHEMATICAL_LAYER.keys())
def test_the_learners_fit_refuses_sample_weight_with_the_typed_error_before_spending(fit, data):
    # the estimators' typed refusal holds for the learners beneath them too: they raised a bare
    # TypeError ("unexpected keyword argument") that names no bound
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(UnsupportedWeightsError, match=r"sample_weight.*PUBLIC bound sample_weight_bound=w_max"):
        fit(X, y, sample_weight=np.ones(len(y)), accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda cls: cls.__name__)
def test_class_weight_is_a_parameter_the_release_records(cls, data):
    X, y = data
    estimator = cls(class_weight={0: 0.5, 1: 1.0}, random_state=0)
    assert estimator.get_params()["class_weight"] == {0: 0.5, 1: 1.0}
    estimator.fit(X, y)
    assert estimator.certificate_.weights.class_weights == ((0, 0.5), (1, 1.0))


# -- regression ----------------------------------------------------------------------------------------


def test_delta_zero_names_the_pure_options_and_selects_one_with_a_weight_bound():
    X, y = regression_data()
    with pytest.raises(InputError, match=r"pure epsilon.*weight_bound=W.*DPHuberRegressor"):
        DPLinearRegression(delta=0, label_bound=(0, 300)).fit(X, y)
    with pytest.raises(InputError, match=r"Pure epsilon options"):
        dpcvx.PrivateLinearRegression(1.0, 1.0).fit(X, np.clip(y / 300, -1, 1), 1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        model = DPLinearRegression(delta=0, weight_bound=400.0, lam=1e-2, label_bound=(0, 300),
                                   random_state=0).fit(X, y)
    assert model.certificate_.delta == 0 and model.certificate_.mechanism == "objective"


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
def test_label_range_is_centred_by_its_public_shift_and_shifted_back(tmp_path):
    X, y = regression_data()
    # plain AdaSSP (the shift is what is tested; its score at this seed is the one the assertion below was set at)
    ranged = DPLinearRegression(label_bound=(50.0, 250.0), random_state=3, column_statistics=False).fit(X, y)
    centred = DPLinearRegression(label_bound=100.0, random_state=3, column_statistics=False).fit(X, y - 150.0)
    np.testing.assert_array_equal(ranged.coef_, centred.coef_)       # the same noise, the same fit
    assert ranged.intercept_ == pytest.approx(centred.intercept_ + 150.0)
    np.testing.assert_allclose(ranged.predict(X), centred.predict(X) + 150.0)
    assert ranged.certificate_.label_bound == 100.0
    assert ranged.score(X, y) > 0.5                                  # the symmetric default B = 1 clips all
    path = tmp_path / "model.json"
    dpcvx.save(ranged.model_, path)
    np.testing.assert_allclose(dpcvx.load(path).predict(X), ranged.predict(X))
    assert json.loads(path.read_text())["kind"] == "regression"      # the same file format
    with pytest.raises(InputError, match="lo < hi"):
        DPLinearRegression(label_bound=(2.0, 1.0)).fit(X, y)


def test_clipping_warning_gives_the_count_and_the_fix():
    """scikit-learn's diabetes target (25 .. 346) under the default label_bound=1: every label is
    clipped, and the warning says how many and which public bound to declare instead."""
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    for estimator in (DPLinearRegression(random_state=0), DPHuberRegressor(random_state=0)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            estimator.fit(X, y)
        clipping = [w for w in caught if issubclass(w.category, ClippingWarning)]
        assert len(clipping) == 1 and clipping[0].filename == __file__
        text = str(clipping[0].message)
        assert f"{len(y)} of {len(y)} labels" in text and "label_bound=(lo, hi)" in text


def test_noise_warning_under_lam_auto_does_not_advise_lam_auto(data):
    """Audit: under lam='auto' the advice was to 'choose lam by its documented rule (see lam='auto': lam='auto' chose
    lam=... here)', the setting already in use; it now names the value the rule chose, and no lam remedy."""
    X, y = data[0][:300], data[1][:300]
    with pytest.warns(NoiseDominatesWarning) as caught:
        dpcvx.DPLogisticRegression(mechanism="output", epsilon=0.1, random_state=0).fit(X, y)
    text = str(noise_warnings(caught)[0].message)
    assert "documented rule" not in text and "see lam='auto'" not in text
    assert re.search(r"use fewer features \(lam='auto' already chose lam=[0-9.e+-]+ here, by its public rule\)$",
                     text), text
