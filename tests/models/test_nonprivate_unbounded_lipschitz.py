"""fit_nonprivate with a loss whose L is infinite (the squared error over unbounded residuals: no constraint set
bounds w) raised a bare ValueError ("cannot convert float NaN to integer", attacker probe P1 F2): its gradient
tolerance tol n L R was infinite, and the descent budget's G_0 = L R over it NaN. The budget is now proved only at a
finite L (solvers.budget.descent_rate), and the tolerance falls back to L = 1 as for an unproved L; on a path
without a budget the infinite tolerance had returned a "converged" zero."""

import numpy as np
import pytest

import dpcvx


@pytest.mark.parametrize("settings", [{}, {"solver": "cvxpy"}, {"fit_intercept": True}, {"lam": 1e-6}])
def test_the_least_squares_baseline_is_fitted(settings):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = X @ np.ones(3) / 2
    learner = dpcvx.PrivateERM(dpcvx.losses.squared_error(), data_norm=1.0, task="regression", label_bound=1.0,
                               **settings)
    model = learner.fit_nonprivate(X, y)
    assert learner.diagnostics_.converged and np.isfinite(learner.diagnostics_.gradient_tolerance)
    lam = settings.get("lam", 1e-3)  # the ridge moves the minimiser by O(lam)
    np.testing.assert_allclose(model.coef_, 0.5, atol=10 * lam)
