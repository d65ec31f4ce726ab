"""The public decision threshold of the binary estimators: post-processing of the release, checked before any
charge, exact against the decision function (docs/theory.md, section 32)."""

import math

import numpy as np
import pytest

import dpcvx
from dpcvx.privacy.accountant import PrivacyAccountant


@pytest.fixture(scope="module")
def rare():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(6000, 3)) / 2
    logit = -3.5 + 4 * X[:, 0] - 3 * X[:, 1]
    return X, (rng.random(6000) < 1 / (1 + np.exp(-logit))).astype(int)


@pytest.mark.parametrize("threshold", [0.03, 0.5, 0.9])
def test_predict_is_the_decision_at_the_logit_of_the_threshold(rare, threshold):
    X, y = rare
    estimator = dpcvx.DPLogisticRegression(epsilon=3.0, threshold=threshold, random_state=1).fit(X, y)
    scores = estimator.decision_function(X)
    expected = np.where(scores > math.log(threshold / (1 - threshold)), 1, 0)
    assert np.array_equal(estimator.predict(X), expected)
    # the model's own link, to rounding: scipy.special.expit (1.17) differs from 1 / (1 + exp(-s)) in the last bits
    np.testing.assert_allclose(estimator.predict_proba(X)[:, 1], 1 / (1 + np.exp(-scores)), rtol=1e-14, atol=0)
    assert np.array_equal(estimator.model_.predict(X), expected)  # the release predicts at the estimator's cut


def test_the_prior_threshold_raises_balanced_accuracy_on_a_rare_class(rare):
    from sklearn.metrics import balanced_accuracy_score

    X, y = rare
    train, test = slice(0, 4500), slice(4500, None)
    plain, prior = [], []
    for seed in range(3):
        fitted = dpcvx.DPLogisticRegression(epsilon=3.0, random_state=seed).fit(X[train], y[train])
        plain.append(balanced_accuracy_score(y[test], fitted.predict(X[test])))
        fitted.set_params(threshold=0.05)   # a public prior of the rare class, fixed before the fit
        prior.append(balanced_accuracy_score(y[test], fitted.predict(X[test])))
    assert np.mean(prior) > np.mean(plain) + 0.1, (plain, prior)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -0.2, "0.5", True])
def test_a_bad_threshold_is_refused_before_any_charge(rare, threshold):
    X, y = rare
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(dpcvx.InputError, match="threshold must"):
        dpcvx.DPLogisticRegression(threshold=threshold).fit(X, y, accountant=accountant)
    assert accountant.spent.epsilon == 0 and not accountant.ledger


def test_multiclass_takes_no_threshold(rare):
    X, _ = rare
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(dpcvx.InputError, match="binary classification only"):
        dpcvx.DPLogisticRegression(classes=(0, 1, 2), threshold=0.2).fit(X, np.arange(6000) % 3,
                                                                          accountant=accountant)
    assert accountant.spent.epsilon == 0 and not accountant.ledger


def _constant_warnings(estimator, X, y):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, dpcvx.exceptions.ConstantPredictionWarning)]


def test_the_one_class_warning_is_made_at_the_estimators_decision_cut():
    """ConstantPredictionWarning speaks of what predict does. A rare class with threshold="prior": the release is
    negative on every row (the certificate's finding, stated at cut 0), but predict cuts at the prior's log-odds and
    says both classes, so no warning (it used to warn "constant classifier"); at threshold 0.999 (cut 6.9) the same
    release predicts class 0 on every row of the ball, and the warning says so at that cut."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 10)) / np.sqrt(10)
    y = (rng.uniform(size=20000) < 1 / (1 + np.exp(-(-4 + 3 * X[:, 0])))).astype(int)
    prior = dpcvx.DPLogisticRegression(epsilon=1, random_state=1, class_prior="private", threshold="prior")
    assert _constant_warnings(prior, X, y) == []
    assert prior.certificate_.findings  # the release at cut 0 is one-signed: the finding stays, as saved files hold
    assert set(prior.predict(X)) == {0, 1}
    high = dpcvx.DPLogisticRegression(epsilon=1, random_state=1, class_prior="private", threshold=0.999)
    texts = _constant_warnings(high, X, y)
    assert len(texts) == 1 and "at its decision cut 6.9" in texts[0] and "class 0" in texts[0]
    assert set(high.predict(X)) == {0}
