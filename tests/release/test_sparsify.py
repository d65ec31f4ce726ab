"""Exact zeros for L1 / elastic-net releases by a public-rule threshold: post-processing, charged nothing.

The release itself has no exact zeros (the noise reaches every weight); ``sparsify`` zeroes
|w_j| <= threshold (or keeps the k largest), changes predictions only as documented
(|delta w^T x| <= threshold ||x_Z||_1; rows zero on Z unchanged), records the rule in the
certificate, survives save/load, and leaves epsilon, delta and the accountant as they were.
"""

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


def ELASTIC_NET(w):
    return 0.05 * cp.norm1(w) + 0.5 * cp.sum_squares(w)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(600, 8))
    X[:, 4:] *= 0.05  # weak features: the non-private minimiser zeroes them
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, :2] @ np.array([1.0, -1.0]) + 0.1 * rng.normal(size=600) > 0, 1, -1)


@pytest.fixture(scope="module")
def released(data):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = dpcvx.PrivateERM(regularizer=ELASTIC_NET, lam=0.1, data_norm=1.0, fit_intercept=True)
    return learner.fit(X, y, 1.0, random_state=0, accountant=accountant), accountant, learner


def test_the_release_has_no_exact_zeros_and_says_so(data, released):
    X, y = data
    model, _, learner = released
    assert np.count_nonzero(learner.fit_nonprivate(X, y).coef_ == 0) >= 2  # the minimiser is sparse
    assert np.count_nonzero(model.coef_ == 0) == 0  # the release is not
    assert "no exact zeros" in str(model.certificate) and "sparsify" in str(model.certificate)


def test_threshold_gives_exact_zeros_at_no_privacy_cost(data, released):
    X, _ = data
    model, accountant, _ = released
    spent = accountant.spent
    threshold = 0.05
    sparse = model.sparsify(threshold)
    small = np.abs(model.coef_) <= threshold
    assert small.any() and not small.all()
    assert np.all(sparse.coef_[small] == 0) and np.array_equal(sparse.coef_[~small], model.coef_[~small])
    assert sparse.intercept_ == model.intercept_
    assert accountant.spent == spent  # nothing charged
    assert (sparse.epsilon, sparse.delta) == (model.epsilon, model.delta)
    assert sparse.certificate.calibration == model.certificate.calibration
    assert sparse.certificate.post_processing and "0.05" in sparse.certificate.post_processing[0]
    assert "post-processing: weights with |w_j| <= 0.05 set to 0" in str(sparse.certificate)
    assert model.certificate.post_processing == () and np.count_nonzero(model.coef_ == 0) == 0  # unchanged
    # predictions: |change of w^T x + b| <= threshold ||x_Z||_1, and exactly equal on rows zero on Z
    change = np.abs(sparse.decision_function(X) - model.decision_function(X))
    assert np.all(change <= threshold * np.abs(X[:, small]).sum(axis=1) * (1 + 1e-12) + 1e-15)
    rows = X.copy()
    rows[:, small] = 0.0
    assert np.array_equal(sparse.decision_function(rows), model.decision_function(rows))
    assert np.array_equal(sparse.predict(rows), model.predict(rows))


def test_keep_k_keeps_the_k_largest_weights(released):
    model, _, _ = released
    top = model.sparsify(keep=3)
    assert np.count_nonzero(top.coef_) == 3
    assert set(np.flatnonzero(top.coef_)) == set(np.argsort(-np.abs(model.coef_))[:3])
    assert "all but the 3 largest |w_j| set to 0" in top.certificate.post_processing[0]


def test_the_rule_survives_save_and_load(released, tmp_path):
    model, _, _ = released
    sparse = model.sparsify(0.05)
    dpcvx.save(sparse, tmp_path / "sparse.json")
    loaded = dpcvx.load(tmp_path / "sparse.json")
    assert np.array_equal(loaded.coef_, sparse.coef_)
    assert loaded.certificate.post_processing == sparse.certificate.post_processing


@pytest.mark.parametrize("arguments", [{}, {"threshold": 0.1, "keep": 2}, {"threshold": -1.0},
                                       {"threshold": float("nan")}, {"keep": 99}, {"keep": 1.5}])
def test_a_rule_is_exactly_one_public_number(released, arguments):
    model, _, _ = released
    with pytest.raises(InputError):
        model.sparsify(**arguments)

