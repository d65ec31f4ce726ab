"""The noise warning's lam advice asks the public rule lam='auto' only where the rule is offered: for an L1 penalty (m =
0) the rule refuses, and its InputError escaped the warning after the fit's charge, so a fit the accountant had paid
for raised "lam='auto' needs a strongly convex regularizer" (with a numeric lam) and released nothing. Now the fit
returns its model and the warning speaks without that clause."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning

RNG = np.random.default_rng(0)
X = RNG.uniform(-0.4, 0.4, size=(400, 30))
Y = (X[:, 0] + 0.2 * RNG.standard_normal(400) > 0.1).astype(int)


@pytest.mark.parametrize("penalty", ["l1", "l2"])
def test_a_noisy_fit_under_a_given_lam_is_released_whatever_the_penalty(penalty):
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator = dpcvx.DPLogisticRegression(epsilon=0.05, lam=1e-4, penalty=penalty, random_state=1).fit(
            X, Y, accountant=accountant)
    assert len(accountant.ledger) == 1 and estimator.predict(X).shape == (400,)
    noise = [str(w.message) for w in caught if issubclass(w.category, NoiseDominatesWarning)]
    assert len(noise) == 1
    # the rule's value is advised where the rule is offered (m > 0), and not otherwise
    assert ("lam='auto' (the default) would choose" in noise[0]) == (penalty == "l2")
