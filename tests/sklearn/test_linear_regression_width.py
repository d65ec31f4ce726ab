"""A private linear regression wider than WIDEST weights warns CostWarning before anything is read or charged.

Sparse DPLinearRegression() goes to AdaSSP, which holds dense d x d matrices and decomposes one in time cubic in d:
on a sparse 100,000 x 20,000 X (3.6 M stored values) a fit had not finished after 10 minutes at 6.6 GB (probe,
session 61). The rule is public: the width, plus the intercept. A warning, not a refusal: a wide fit is slow, not
wrong, and the warning comes before the charge, so interrupting then spends nothing.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import sparse

import dpcvx
from dpcvx.models.linear_regression import WIDEST, too_wide
from dpcvx.privacy.accountant import PrivacyAccountant


def _sparse(n: int, d: int) -> sparse.csr_matrix:
    rows = np.arange(n)
    return sparse.csr_matrix((np.full(n, 0.5), (rows, rows % d)), shape=(n, d))


@pytest.mark.parametrize("settings", [{}, {"mechanism": "adassp"}, {"fit_intercept": False}])
def test_a_sparse_x_too_wide_is_warned_of_before_the_charge_naming_its_memory(settings):
    width = WIDEST if settings.get("fit_intercept", True) else WIDEST + 1  # WIDEST + 1 weights either way
    accountant = PrivacyAccountant(5.0, 1e-3)
    X, y = _sparse(60, width), np.linspace(-1.0, 1.0, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dpcvx.CostWarning)  # as an error, the warning stops the fit where it is said
        with pytest.raises(dpcvx.CostWarning, match=r"10,001 weights.*0\.8 GB each.*Nothing is charged yet"):
            dpcvx.DPLinearRegression(accountant=accountant, random_state=0, **settings).fit(X, y)
    assert accountant.ledger == []


def test_dense_rows_too_wide_are_warned_of_by_the_learner_too():
    accountant = PrivacyAccountant(5.0, 1e-3)
    learner = dpcvx.PrivateLinearRegression(1.0, 1.0, fit_intercept=True)
    X = np.zeros((20, WIDEST))
    X[np.arange(20), np.arange(20)] = 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error", dpcvx.CostWarning)
        with pytest.raises(dpcvx.CostWarning, match="slow above 10,000 weights"):
            learner.fit(X, np.zeros(20), 1.0, 1e-6, accountant=accountant)
    assert accountant.ledger == []


def test_the_rule_is_of_the_width_alone():
    assert too_wide(WIDEST) is None and too_wide(1) is None
    assert "sparse X is no cheaper" in too_wide(WIDEST + 1, True)
    assert "sparse" not in too_wide(WIDEST + 1, False).split("Fixes")[0]
