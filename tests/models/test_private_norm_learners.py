"""fit_private_norm refuses a learner it cannot run with a typed error, before anything is charged: a class rather
than an instance, or an object without set_params, check_fit_inputs and fit. A dpcvx estimator (no check_fit_inputs:
its own fit draws the bound) is told its own way, data_norm="private". Before, each raised a raw AttributeError or
TypeError ("'DPLogisticRegression' object has no attribute 'check_fit_inputs'", "set_params() missing 1 required
positional argument: 'self'")."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.linear_regression import PrivateLinearRegression

RNG = np.random.default_rng(5)
X = RNG.uniform(-0.3, 0.3, size=(400, 3))
Y = np.where(X[:, 0] > 0, 1, -1)
HEAD = (r"^fit_private_norm takes a learner instance with set_params\(data_norm=\), check_fit_inputs\(X, y, \.\.\.\) "
        r"and fit\(X, y, epsilon=, random_state=\), such as PrivateERM\(\.\.\.\); got ")
CASES = {
    "an estimator": (dpcvx.DPLogisticRegression(),
                     r"DPLogisticRegression, which has no \['check_fit_inputs'\]\. A dpcvx estimator draws its norm "
                     r"bound in its own fit: DPLogisticRegression\(data_norm='private', norm_range=\(r_min, r_max\)\)"
                     r"\. Nothing was charged$"),
    "an estimator's class": (dpcvx.DPHuberRegressor, r"the class DPHuberRegressor, not an instance\. A dpcvx estimator "
                             r"draws its norm bound"),
    "a learner's class": (dpcvx.PrivateERM, r"the class PrivateERM, not an instance\. Nothing was charged$"),
    "AdaSSP": (PrivateLinearRegression(1.0, 1.0), r"PrivateLinearRegression, which has no \['check_fit_inputs'\]\. "
               r"Nothing was charged$"),
    "a feature map": (dpcvx.RandomFourierFeatures(n_components=8, gamma=1.0), r"RandomFourierFeatures, which has no"),
    "an object": (object(), r"object, which has no \['set_params', 'check_fit_inputs', 'fit'\]"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_learner_fit_private_norm_cannot_run_is_refused_before_the_charge(case):
    learner, tail = CASES[case]
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    with pytest.raises(InputError, match=HEAD + tail):
        dpcvx.fit_private_norm(learner, X, Y, 1.0, r_min=0.1, r_max=10.0, accountant=accountant, random_state=0)
    assert accountant.ledger == []


def test_private_erm_is_run_and_charged_once():
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    result = dpcvx.fit_private_norm(dpcvx.PrivateERM(), X, Y, 1.0, r_min=0.1, r_max=10.0, accountant=accountant,
                                    random_state=0)
    assert 0.1 <= result.norm.bound <= 10.0
    assert len(accountant.ledger) == 1
