"""Parameters set after a fit (docs/theory.md, section 32; the estimators' ``threshold`` doc): the one post-processing
parameter, ``threshold``, takes effect in every method that reads it (predict, predict_proba, score, ``decision_cut_``,
``model_``, ``dpcvx.save``) or is refused there with the fit's InputError; every other parameter takes effect at the
next fit only, so predict and the saved file do not move with it."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ClippingWarning, NoiseDominatesWarning, SmallTableWarning, TrainingRowsWarning

# the fits here are small (n = 500, epsilon 1): their noise, small-table and training-rows notes are not examined
QUIET = (NoiseDominatesWarning, SmallTableWarning, TrainingRowsWarning, ClippingWarning)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.1
    return X, (X[:, 0] > 0).astype(int)


def _fit(estimator, X, y):
    with warnings.catch_warnings():
        for category in QUIET:
            warnings.simplefilter("ignore", category)
        return estimator.fit(X, y)


def _uses(estimator, X, tmp_path):
    """Every method of a fitted classifier that reads its threshold."""
    return {"predict": lambda: estimator.predict(X), "predict_proba": lambda: estimator.predict_proba(X),
            "score": lambda: estimator.score(X, np.zeros(len(X), dtype=int)),
            "decision_cut_": lambda: estimator.decision_cut_, "model_": lambda: estimator.model_,
            "save": lambda: dpcvx.save(estimator, tmp_path / "model.json")}


def test_a_numeric_threshold_set_after_a_one_vs_rest_fit_is_refused_where_it_is_read(data, tmp_path):
    """The fit refuses threshold=0.3 for three classes; set after the fit it was taken silently and predict,
    decision_cut_ and the saved file all cut at 0.5 (attacker probe P2, F1)."""
    X, y = data
    estimator = _fit(dpcvx.DPLogisticRegression(random_state=0, classes=(0, 1, 2)), X, y)
    expected = estimator.predict(X)
    estimator.set_params(threshold=0.3)
    for name, use in _uses(estimator, X, tmp_path).items():
        with pytest.raises(dpcvx.InputError, match="binary classification only"):
            use()
        assert not (tmp_path / "model.json").exists(), name
    estimator.set_params(threshold=0.5)  # the default again: as fitted
    assert np.array_equal(estimator.predict(X), expected)
    np.testing.assert_array_equal(estimator.decision_cut_, np.zeros(3))


def test_a_prior_threshold_set_after_a_one_vs_rest_fit_without_counts_is_refused(data, tmp_path):
    X, y = data
    estimator = _fit(dpcvx.DPLogisticRegression(random_state=0, classes=(0, 1, 2)), X, y)
    estimator.set_params(threshold="prior")
    for name, use in _uses(estimator, X, tmp_path).items():
        with pytest.raises(dpcvx.InputError, match="needs class rates"):
            use()
        assert not (tmp_path / "model.json").exists(), name


def test_a_threshold_set_after_a_binary_fit_takes_effect_everywhere(data, tmp_path):
    X, y = data
    estimator = _fit(dpcvx.DPLogisticRegression(random_state=0), X, y)
    estimator.set_params(threshold=0.3)
    cut = np.log(0.3 / 0.7)
    assert estimator.decision_cut_ == pytest.approx(cut, rel=1e-15)
    expected = np.where(estimator.decision_function(X) > cut, 1, 0)
    assert np.array_equal(estimator.predict(X), expected)
    assert np.array_equal(estimator.model_.predict(X), expected)
    dpcvx.save(estimator, tmp_path / "model.json")
    assert np.array_equal(dpcvx.load(tmp_path / "model.json").predict(X), expected)
    estimator.set_params(threshold=2.0)  # refused where it is read (a binary predict_proba does not read it)
    (tmp_path / "model.json").unlink()
    uses = _uses(estimator, X, tmp_path)
    for name in ("predict", "score", "decision_cut_", "model_", "save"):
        with pytest.raises(dpcvx.InputError, match="threshold must"):
            uses[name]()
    assert not (tmp_path / "model.json").exists()


@pytest.mark.parametrize("later", [{"class_prior": (0.5, 0.5)}, {"class_prior": None},
                                   {"class_weight": "balanced"}, {"fit_intercept": False}, {"data_norm": "private"},
                                   {"class_prior": "private"}])
def test_the_prior_cut_is_the_fits_after_its_class_prior_changes(data, tmp_path, later):
    """threshold="prior" cuts at the log-odds of the offset the release was centred at: a class_prior (or a
    setting that turns the offset off) set after the fit moved the cut to 0 or refused the release's own offset."""
    X, y = data
    estimator = _fit(dpcvx.DPLogisticRegression(random_state=0, class_prior=(0.3, 0.7), threshold="prior"), X, y)
    cut, expected = estimator.decision_cut_, estimator.predict(X)
    assert cut == pytest.approx(np.log(0.7 / 0.3), rel=1e-14)
    estimator.set_params(**later)
    assert estimator.decision_cut_ == cut
    assert np.array_equal(estimator.predict(X), expected)
    assert np.array_equal(estimator.model_.predict(X), expected)
    dpcvx.save(estimator, tmp_path / "model.json")
    assert np.array_equal(dpcvx.load(tmp_path / "model.json").predict(X), expected)


FIT_PARAMETERS = {"epsilon": 0.2, "delta": 1e-3, "lam": 0.5, "data_norm": 3.0, "fit_intercept": False,
                  "class_weight": {0: 1.0, 1: 2.0}, "class_prior": (0.2, 0.8), "random_state": 7,
                  "mechanism": "output", "clip": False, "classes": (1, 0), "neighbours": "add-remove",
                  "n_public": 900, "column_statistics": True}


@pytest.mark.parametrize("cls", [dpcvx.DPLogisticRegression, dpcvx.DPHuberSVM])
@pytest.mark.parametrize("threshold", [0.5, 0.3])
def test_every_other_parameter_set_after_a_fit_changes_nothing_until_the_next_fit(data, cls, threshold):
    """The rule for every parameter but the post-processing ones (``_post_fit_parameters``): predict, the decision
    cut and the release are the fit's until the next fit."""
    X, y = data
    assert cls._post_fit_parameters == ("threshold",)
    estimator = _fit(cls(random_state=0, threshold=threshold), X, y)
    before = (estimator.predict(X), estimator.decision_function(X), estimator.decision_cut_,
              estimator.predict_proba(X) if hasattr(estimator, "predict_proba") else None)
    for name, value in FIT_PARAMETERS.items():
        if name in estimator.get_params():
            estimator.set_params(**{name: value})
    after = (estimator.predict(X), estimator.decision_function(X), estimator.decision_cut_,
             estimator.predict_proba(X) if hasattr(estimator, "predict_proba") else None)
    for old, new in zip(before, after, strict=True):
        np.testing.assert_array_equal(old, new)


@pytest.mark.parametrize("cls", [dpcvx.DPLinearRegression, dpcvx.DPHuberRegressor])
def test_a_regressors_parameters_set_after_a_fit_change_nothing_until_the_next_fit(data, cls):
    """A regressor has no post-processing parameter: its predict reads the release only."""
    X, _ = data
    y = X @ np.array([0.5, -0.3, 0.1])
    estimator = _fit(cls(random_state=0), X, y)
    before = estimator.predict(X)
    later = {"epsilon": 0.2, "lam": 0.5, "data_norm": 3.0, "label_bound": 4.0, "fit_intercept": False,
             "random_state": 7}
    estimator.set_params(**{name: value for name, value in later.items() if name in estimator.get_params()})
    np.testing.assert_array_equal(estimator.predict(X), before)
