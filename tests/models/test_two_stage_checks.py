"""The fits that charge once for a private statistic and the fit at it (a private bound, class count, column
statistics or prior; :func:`dpcvx.fit_private_norm`; the quantile's own draw) check ``random_state`` and their budget
share before the charge, as a plain fit does: a refused call leaves the ledger as it was, with a typed error naming
the parameter, and a share is one Python float whatever its numeric type."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.quantile import private_norm_bound


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of norm at most 1, their -1/+1 labels and regression targets in [-1, 1]."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X[:, 0] > 0, 1, -1), np.clip(X @ np.array([0.5, -0.3, 0.2]), -1, 1)


def _erm(**settings) -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(loss="logistic", lam=0.1, **settings)


#: (name, fit(accountant, random_state, **share)) of every path that charges for a statistic and the fit at it
TWO_STAGE = {
    "data_norm='private'": lambda a, seed, **share: _erm(data_norm="private", norm_range=(0.5, 4), **share).fit(
        *_data()[:2], 1.0, accountant=a, random_state=seed),
    "label_bound='private'": lambda a, seed, **share: dpcvx.PrivateERM(
        loss="huber_regression", task="regression", lam=0.1, data_norm=1, label_bound="private",
        label_range=(0.5, 4), **share).fit(_data()[0], _data()[2], 1.0, accountant=a, random_state=seed),
    "class_weight='balanced'": lambda a, seed, **share: _erm(data_norm=1, class_weight="balanced", **share).fit(
        *_data()[:2], 1.0, accountant=a, random_state=seed),
    "column_statistics='ranges'": lambda a, seed, **share: _erm(data_norm=1, column_statistics="ranges",
                                                                **share).fit(*_data()[:2], 1.0, accountant=a,
                                                                             random_state=seed),
    "class_prior='private'": lambda a, seed, **share: _erm(data_norm=1, fit_intercept=True, class_prior="private",
                                                           **share).fit(*_data()[:2], 1.0, accountant=a,
                                                                        random_state=seed),
    "fit_private_norm": lambda a, seed, **share: dpcvx.fit_private_norm(
        _erm(), *_data()[:2], 1.0, r_min=0.5, r_max=4, accountant=a, random_state=seed, **share),
}

#: the parameter of each path's budget share
SHARE = {"data_norm='private'": "norm_share", "label_bound='private'": "norm_share",
         "class_weight='balanced'": "class_count_share", "column_statistics='ranges'": "column_statistics_share",
         "class_prior='private'": "class_count_share", "fit_private_norm": "share"}

BAD_SEEDS = ["0", -1, 1.5, True, float("nan"), [0], np.random.RandomState(0), np.random.SeedSequence(0)]


@pytest.mark.parametrize("path", TWO_STAGE)
def test_a_bad_random_state_is_refused_before_the_charge(path):
    """Each was charged the full epsilon, then refused by resolve_rng after the charge."""
    for seed in BAD_SEEDS:
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match="random_state"):
            TWO_STAGE[path](accountant, seed)
        assert accountant.ledger == [], (path, seed)


def test_the_quantile_draw_refuses_a_bad_random_state_before_its_charge():
    X = _data()[0]
    for seed in BAD_SEEDS:
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        with pytest.raises(InputError, match="random_state"):
            private_norm_bound(X, epsilon=1.0, r_min=0.5, r_max=4, accountant=accountant, random_state=seed)
        assert accountant.ledger == [], seed


@pytest.mark.parametrize("quantile", ["0.5", True, 1e-320, 1.5])
def test_the_quantile_draw_checks_its_quantile_as_a_fraction(quantile):
    """A str quantile raised an untyped TypeError from the comparison."""
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="quantile"):
        private_norm_bound(_data()[0], epsilon=1.0, r_min=0.5, r_max=4, quantile=quantile, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("path", TWO_STAGE)
@pytest.mark.parametrize("share", ["0.1", True, 1e-320, 1e-13, 1.0])
def test_a_bad_share_is_refused_naming_it_before_the_charge(path, share):
    """fit_private_norm's share="0.1" raised an untyped TypeError, and a share whose part of epsilon is below the
    least budget was refused naming that part as "epsilon" (share=1e-320: "epsilon=9.99989e-321")."""
    name = SHARE[path]
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=rf"^{name}\b"):
        TWO_STAGE[path](accountant, 0, **{name: share})
    assert accountant.ledger == []


@pytest.mark.parametrize("share", [True, "0.1", 1e-320, 1e-13])
def test_fit_private_norm_refuses_a_share_as_private_erm_refuses_norm_share(share):
    """One check of both: share=True and norm_share=True had different messages."""
    messages = []
    for path in ("data_norm='private'", "fit_private_norm"):
        with pytest.raises(InputError) as refused:
            TWO_STAGE[path](dpcvx.PrivacyAccountant(epsilon=10.0), 0, **{SHARE[path]: share})
        messages.append(str(refused.value))
    assert messages[0] == messages[1].replace("share", "norm_share")


@pytest.mark.parametrize("path", TWO_STAGE)
def test_a_numpy_share_is_the_python_float_of_its_value(path):
    """class_count_share=np.float32(0.2) was charged, then raised a bare TypeError (Fraction of a float32 part);
    every share is now one Python float, so the parts are those of float(share)."""
    name, share = SHARE[path], np.float32(0.2)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    released = TWO_STAGE[path](accountant, 0, **{name: share})
    certificate = released.model.certificate if path == "fit_private_norm" else released.certificate
    fit_epsilon = released.fit_epsilon if path == "fit_private_norm" else certificate.epsilon
    assert type(fit_epsilon) is float and fit_epsilon == 1.0 - float(share)
    assert accountant.spent.epsilon == pytest.approx(1.0)


def test_the_estimator_takes_a_numpy_class_count_share():
    """The auditor's case: DPLogisticRegression, class_weight="balanced", class_count_share=np.float32(0.2)."""
    X, y, _ = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = dpcvx.DPLogisticRegression(lam=0.1, classes=(-1, 1), column_statistics=False, class_weight="balanced",
                                       class_count_share=np.float32(0.2), random_state=0).fit(
        X, y, accountant=accountant)
    assert model.certificate_.weights.private_count["epsilon"] == float(np.float32(0.2))
    assert len(accountant.ledger) == 1
