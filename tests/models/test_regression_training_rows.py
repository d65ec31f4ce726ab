"""Every regression fit checks its training rows (NOT PRIVATE), the learners' as the estimators' do.

PrivateERM with ``task="regression"`` and PrivateLinearRegression, at their default ``fit_intercept=False`` (the
papers'), released a model worse than the labels' mean on labels centred far from 0 and said nothing: on labels
300 +- 80 under the public bound B = 600, R^2 -13 and -12 on their own training rows. The classifiers' learners
and the regressors (the estimators) warned; now every regression fit warns once, with the cause when its release
predicts w^T x alone. And ``tune`` took a PrivateERM regression for a classifier (its ``classes`` attribute at the
default pair) and refused its labels.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models.training_rows import NO_BETTER_REGRESSION, no_intercept

N, D, BOUND = 4000, 5, 600.0


def _table(centre: float = 300.0) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball and labels centre + x . w + noise (spread about 80), all within [-B, B]."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(N, D))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, centre + X @ rng.normal(0.0, 60.0, D) + rng.normal(0.0, 20.0, N)


def _huber(**settings: object) -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(150.0), lam="auto", data_norm=1.0,
                            label_bound=BOUND, task="regression", **settings)


def _adassp(**settings: object) -> dpcvx.PrivateLinearRegression:
    return dpcvx.PrivateLinearRegression(label_bound=BOUND, data_norm=1.0, **settings)


FITS = {
    "PrivateERM.fit": lambda X, y, **s: _huber(**s).fit(X, y, 1.0, random_state=0),
    "PrivateERM plan": lambda X, y, **s: _huber(**s).plan(X, y, epsilon=1.0).fit(X, y, random_state=0),
    "PrivateLinearRegression.fit": lambda X, y, **s: _adassp(**s).fit(X, y, 1.0, 1e-6, random_state=0),
    "PrivateLinearRegression plan": lambda X, y, **s: _adassp(**s).plan(X, y, 1.0, 1e-6).fit(X, y, random_state=0),
}


def _fitted(fit, X, y, **settings):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = fit(X, y, **settings)
    return model, [str(w.message) for w in caught if issubclass(w.category, TrainingRowsWarning)]


@pytest.mark.parametrize("name", FITS)
def test_a_learner_regression_worse_than_the_mean_warns_once_and_names_the_missing_intercept(name):
    X, y = _table()
    model, texts = _fitted(FITS[name], X, y)
    assert model.score(X, y) < 0  # the release is useless on its training rows (about -12)
    assert len(texts) == 1, texts
    assert NO_BETTER_REGRESSION in texts[0] and no_intercept() in texts[0]
    assert "fit_intercept=True" in texts[0] and "NOT PRIVATE" in texts[0]


@pytest.mark.parametrize("name", FITS)
def test_the_same_learner_with_an_intercept_fits_and_is_silent(name):
    X, y = _table()
    model, texts = _fitted(FITS[name], X, y, fit_intercept=True)
    assert model.score(X, y) > 0.5 and texts == []


def test_labels_centred_at_0_need_no_intercept_and_draw_no_warning():
    X, y = _table(centre=0.0)
    model, texts = _fitted(FITS["PrivateERM.fit"], X, y)
    assert model.score(X, y) > 0.5 and texts == []


def test_a_release_with_an_intercept_that_is_still_useless_is_not_told_of_an_intercept():
    X, y = _table()
    noise = np.random.default_rng(5).normal(300.0, 80.0, N)  # labels that carry no signal: R^2 <= 0 at best
    _, texts = _fitted(lambda X, y: _huber(fit_intercept=True).fit(X, y, 0.05, random_state=0), X, noise)
    assert len(texts) == 1 and NO_BETTER_REGRESSION in texts[0] and no_intercept() not in texts[0]


def test_a_memmap_is_checked_by_blocks(tmp_path):
    X, y = _table()
    path = tmp_path / "rows.npy"
    np.save(path, X)
    rows = np.load(path, mmap_mode="r")
    _, texts = _fitted(FITS["PrivateERM.fit"], rows, y)
    assert len(texts) == 1 and no_intercept() in texts[0]


def test_a_private_label_bound_checks_the_rows_once():
    """The composite (a private bound B', then the fit at it) runs its fit's check once, not its own as well."""
    X, y = _table()
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(150.0), lam="auto", data_norm=1.0,
                               label_bound="private", label_range=(1.0, 1e4), task="regression")
    _, texts = _fitted(lambda X, y: learner.fit(X, y, 1.0, random_state=0), X, y)
    assert len(texts) == 1


def test_an_estimator_warns_once_for_its_learner():
    """The regressor's learner leaves the check to it (its own predictions, the public centre added back)."""
    X, y = _table()
    fit = dpcvx.DPHuberRegressor(epsilon=1.0, fit_intercept=False, label_bound=BOUND, column_statistics=False,
                                 random_state=0).fit
    _, texts = _fitted(lambda X, y: fit(X, y), X, y)
    assert len(texts) == 1 and no_intercept() in texts[0] and "DPHuberRegressor" in texts[0]


def test_tune_takes_a_private_erm_regression_and_never_checks_its_runs():
    X, y = _table()
    accountant = dpcvx.PrivacyAccountant(10.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = dpcvx.tune(_huber(fit_intercept=True), X, y, {"lam": [1e-3, 1e-2]}, 1.0, random_state=0,
                            accountant=accountant)
    assert type(result.model).__name__ == "PrivateRegressionModel" and result.model.score(X, y) > 0.5
    assert accountant.spent.epsilon == pytest.approx(1.0)
    assert not [w for w in caught if issubclass(w.category, TrainingRowsWarning)]


def test_tune_still_refuses_a_classifier_s_labels_outside_its_pair_before_the_charge():
    X, _ = _table()
    accountant = dpcvx.PrivacyAccountant(10.0)
    learner = dpcvx.PrivateERM(loss="logistic", lam=1e-2, data_norm=1.0)  # classes (-1, 1)
    with pytest.raises(dpcvx.InputError, match="outside the declared classes"):
        dpcvx.tune(learner, X, (X[:, 0] > 0).astype(int), {"lam": [1e-3, 1e-2]}, 1.0, accountant=accountant)
    assert accountant.spent.epsilon == 0.0


@pytest.mark.parametrize("fit", [
    lambda X, y, accountant: dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(150.0), data_norm=1.0,
                                              task="regression", label_bound=(0.0, 600.0)).fit(
        X, y, 1.0, accountant=accountant),
    lambda X, y, accountant: dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=[0.0, 600.0]).fit(
        X, y, 1.0, 1e-6, accountant=accountant),
])
def test_a_learner_given_the_estimators_label_range_names_the_public_shift(fit):
    """The estimators take label_bound=(lo, hi); the learners take B on |y|, and said only "must be a positive number,
    got (0, 600) (a tuple)". The refusal now gives the shift, and nothing is charged."""
    X, y = _table()
    accountant = dpcvx.PrivacyAccountant(10.0)
    with pytest.raises(dpcvx.InputError, match=r"not a range.*\(lo \+ hi\) / 2.*label_shifted") as refused:
        fit(X, y, accountant)
    assert "DPLinearRegression and DPHuberRegressor take label_bound=(lo, hi)" in str(refused.value)
    assert accountant.spent.epsilon == 0.0


def test_the_shift_the_refusal_names_fits_the_labels():
    X, y = _table()
    centre = 300.0  # (0 + 600) / 2, public
    model = _huber().set_params(label_bound=centre).fit(X, y - centre, 1.0, random_state=0).label_shifted(centre)
    assert model.score(X, y) > 0.5 and model.certificate.label_shift == centre

