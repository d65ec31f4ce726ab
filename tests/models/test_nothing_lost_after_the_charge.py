"""A call refused spends nothing; a call charged releases (docs/theory.md, section 7.1). Each case here was refused
or lost its release after the accountant was charged."""

import warnings

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ClippingWarning, InputError, TrainingRowsWarning


def _data(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, 0)


def _log_one_plus_exp(z):
    return cp.log(1 + cp.exp(-z))  # convex (the verifier proves it) but not DCP: log of a convex expression


@pytest.mark.parametrize("multiclass", [False, True])
def test_a_loss_cvxpy_cannot_pose_is_refused_before_the_charge(multiclass):
    """whether the objective is DCP is a fact of the declaration: CVXPY's DCPError came after the charge."""
    X, y = _data()
    learner = dpcvx.PrivateERM(loss=_log_one_plus_exp, lam=1e-2, data_norm=1.0, classes=(0, 1), solver="cvxpy")
    accountant = dpcvx.PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="DCP.*solver='auto'"):
        if multiclass:
            labels = np.digitize(X[:, 1], [-0.3, 0.3])
            dpcvx.PrivateMulticlassERM(learner.set_params(classes=(-1, 1)), classes=(0, 1, 2)).fit(
                X, labels, 3.0, accountant=accountant, random_state=0)
        else:
            learner.fit(X, y, 1.0, accountant=accountant, random_state=0)
    assert accountant.ledger == []
    released = dpcvx.PrivateERM(loss=_log_one_plus_exp, lam=1e-2, data_norm=1.0, classes=(0, 1)).fit(
        X, y, 1.0, random_state=0)  # Newton on the verified derivatives takes it
    assert released.coef_.shape == (3,)


@pytest.mark.parametrize("setting", [{"column_statistics": True}, {"class_weight": "balanced"},
                                     {"class_prior": "private", "fit_intercept": True}])
def test_a_composite_fit_shows_its_clipping_note_before_the_charge(setting):
    """A composite fit (a private draw before the fit) held the checks' ClippingWarning until its release: under an
    "error" filter it raised after the charge (spent 1.0, no model). It is shown before the charge, as a plain fit's,
    and never raised: raised before the charge, it refused the call on one row's norm (docs/theory.md, section 30)."""
    X, y = _data(3000, 4)
    X[2900] *= 50  # one row beyond R = 1
    accountant = dpcvx.PrivacyAccountant(10.0)
    learner = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, classes=(0, 1), **setting)
    shown_first: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error", ClippingWarning)
        warnings.showwarning = lambda message, *rest: shown_first.append(str(message))
        learner.fit(X, y, 1.0, accountant=accountant, random_state=0)
    assert accountant.spent.epsilon == 1.0
    assert len(shown_first) == 1 and "1 of 3000 rows" in shown_first[0]
    with warnings.catch_warnings(record=True) as shown:  # once, not again after the charge
        warnings.simplefilter("always")
        learner.fit(X, y, 1.0, random_state=0)
    assert sum(issubclass(w.category, ClippingWarning) for w in shown) == 1


def test_a_release_warning_under_an_error_filter_does_not_lose_the_release():
    """TrainingRowsWarning (random labels) raised after the charge under an "error" filter: the accountant had
    spent 5 and PrivateERM.fit returned nothing. The warning is shown and the model returned."""
    X, _ = _data(2000, 3)
    y = np.random.default_rng(3).integers(0, 2, size=2000)
    accountant = dpcvx.PrivacyAccountant(10.0)
    shown: list[type] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.showwarning = lambda message, category, *rest, **named: shown.append(category)
        model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, classes=(0, 1)).fit(X, y, 5.0, accountant=accountant,
                                                                              random_state=0)
    assert TrainingRowsWarning in shown and model.coef_.shape == (3,) and accountant.spent.epsilon == 5.0


def _square_only(A, B):
    if A.shape[0] != B.shape[0]:
        raise ValueError("square Gram matrices only")
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))


def test_a_kernel_that_fails_on_the_predictions_shapes_is_refused_before_the_charge():
    """A callable kernel met the cross Gram K(Z, X) (TDDL's released predictions, PINP's queries) only after the
    charge: TDDL spent 5 and raised; PINP spent its whole budget and then refused every query."""
    X, labels = _data(150, 2)
    y = 2.0 * labels - 1
    Z = X[:20] * 0.9
    for fit in (lambda acc: dpcvx.TDDL(_square_only, lam=0.1, feature_bound=1.0).fit(
                    X, y, 5.0, Z=Z, accountant=acc, random_state=0),
                lambda acc: dpcvx.PINP(_square_only, lam=0.1, feature_bound=1.0, max_queries=5).fit(
                    X, y, 5.0, accountant=acc, random_state=0)):
        accountant = dpcvx.PrivacyAccountant(10.0)
        with pytest.raises(InputError, match="kernel callable failed on arrays of shapes"):
            fit(accountant)
        assert accountant.ledger == []
