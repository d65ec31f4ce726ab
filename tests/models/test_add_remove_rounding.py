"""Add/remove: gamma = tol n_public L R, but the computed gradient's rounding scales with the rows (theory 23).

The audit found the float check passing while the exact gradient was 2.35 gamma (tol 1e-13, 10^6 rows,
n_public = 10). A fit is now accepted only when the tolerance at the true size, tol n_public / rows, is at
least 1e-13 (the replace-one floor), and refused before anything is charged otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.calibrate import TOL_RANGE


def _data(n: int, d: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, np.where(X @ np.ones(d) + 0.3 * rng.normal(size=n) > 0, 1, -1)


@pytest.mark.skipif(np.finfo(np.longdouble).eps > 1e-18, reason="needs an extended-precision long double")
def test_the_gradient_rounding_scales_with_the_rows_not_with_n_public():
    """10^4 rows, logistic loss (L = R = 1), the loss gradient X^T u as the solver sums it, against a long
    double sum (64-bit mantissa). At tol 1e-13 and n_public = 2 (tol n_public / rows = 2e-17) the rounding
    is above gamma / 2, the half kept for it; at tol n_public / rows = 1e-13 it is below a tenth of it."""
    n, tol = 10_000, TOL_RANGE[0]
    X, y = _data(n)
    w = np.random.default_rng(1).normal(size=X.shape[1])
    u = -y / (1 + np.exp(y * (X @ w)))
    exact = (X.astype(np.longdouble) * u.astype(np.longdouble)[:, None]).sum(axis=0)
    rounding = float(np.linalg.norm((X.T @ u - exact).astype(float)))
    assert rounding > tol * 2 / 2  # gamma / 2 at n_public = 2: the float check cannot certify gamma
    assert rounding < tol * n / 2 / 10  # gamma / 2 at the floor tol n_public / rows = 1e-13


def test_add_remove_below_the_floor_at_the_true_size_is_refused_before_any_charge():
    X, y = _data(1200)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    learner = dpcvx.PrivateERM(data_norm=1.0, lam=0.1)  # tol 1e-10: refused beyond 1,000 n_public rows
    with pytest.raises(InputError, match="too many rows for n_public"):  # 1e-10 * 1 / 1200 < 1e-13
        learner.fit(X, y, 1.0, "output", delta=1e-6, neighbours="add-remove", n_public=1, accountant=accountant)
    assert accountant.ledger == []
    model = learner.fit(X, y, 1.0, "output", delta=1e-6, neighbours="add-remove", n_public=2,  # 1.7e-13
                        accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1 and np.all(np.isfinite(model.coef_))


@pytest.mark.parametrize("rows", [10, 11])
def test_add_remove_refuses_a_tol_whose_rows_refusal_would_come_near_n_public(rows):
    """At tol 1e-13 the refusal above came at |D| > n_public: 10 rows released and 11 refused, at n_public = 10, so
    the refusal told add/remove neighbours apart. A tol below 1e-10 is now refused from tol alone, whatever the
    rows (public), and the rows' refusal needs more than 1,000 n_public rows."""
    X, y = _data(rows)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    for tol in (1e-13, 9.9e-11):
        with pytest.raises(InputError, match="add-remove' takes tol >= 1e-10"):
            dpcvx.PrivateERM(data_norm=1.0, lam=0.1, tol=tol).fit(
                X, y, 1.0, "output", delta=1e-6, neighbours="add-remove", n_public=10, accountant=accountant)
    assert accountant.ledger == []
    # replace-one is unchanged: n is the rows, so the tolerance at the true size is tol itself
    dpcvx.PrivateERM(data_norm=1.0, lam=0.1, tol=1e-13).fit(X, y, 1.0, "output", delta=1e-6, random_state=0)
