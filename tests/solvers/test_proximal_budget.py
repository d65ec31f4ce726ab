"""The proximal path's proved budget (dpcvx.solvers.budget, "The composite path"; docs/theory.md, section 7.1).

Proximal Newton is safeguarded by the proximal gradient step T(w) = prox_{g / beta}(w - grad f / beta): with
Newton's steps broken (its model minimiser returns the point it starts from, so no Newton step ever descends), the
safeguard alone must still reach the public bound within the budget, where the unproved solver stalled, and a fit
then failed after the charge.
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.exceptions import InputError
from dpcvx.solvers import proximal
from dpcvx.solvers.budget import descent_rate
from dpcvx.solvers.choice import CompositeTerm
from dpcvx.solvers.objective import PerturbedObjective
from dpcvx.verification.verifier import verify_problem

DECLARATIONS = {
    "l1": (lambda w: cp.norm1(w), None),
    "elastic net": (lambda w: cp.norm1(w) + 0.5 * cp.sum_squares(w), None),
    "group": (lambda w: cp.norm(w[:2], 2) + cp.norm(w[2:], 2) + 0.5 * cp.sum_squares(w), None),
    "ball": (None, lambda w: [cp.norm(w, 2) <= 0.5]),
    "box": (lambda w: cp.norm1(w) + 0.5 * cp.sum_squares(w), lambda w: [w >= 0.05, w <= 1.0]),
}


@pytest.fixture
def newton_broken(monkeypatch):
    """Newton's model minimiser returns its start: every Newton direction is zero, so only the safeguard moves."""
    monkeypatch.setattr(proximal, "_model_minimiser", lambda gradient, matvec, w, g, step, start, tolerance: w)


def _rows(n: int = 300, d: int = 5, seed: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X @ np.arange(1.0, d + 1) + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)


@pytest.mark.parametrize("name", sorted(DECLARATIONS))
def test_the_safeguard_alone_reaches_the_bound_within_the_budget(name, newton_broken):
    regularizer, constraints = DECLARATIONS[name]
    X, y = _rows()
    n, d = X.shape
    problem = verify_problem(losses.logistic(), regularizer, dim=d, constraints=constraints)
    assert problem.kst12
    lam, extra_reg, noise = 0.05, 0.02, np.random.default_rng(0).normal(size=d)
    objective = PerturbedObjective(X, y, problem.derivatives, problem.smooth_quadratic, lam, noise, extra_reg,
                                   curvature_bound=problem.curvature)
    g = CompositeTerm(n * lam * problem.l1_weight, problem.constraint_set,
                      tuple((np.array(indices), n * lam * weight) for indices, weight in problem.groups))
    gamma = 1e-9 * n  # the public bound on ||s|| in the sum-form scale
    rate = descent_rate(problem, lam, extra_reg, 1.0)
    assert rate is not None and rate.nonsmooth is not None
    budget = rate.budget(None, noise, n, gamma)
    w, info = proximal.proximal_newton(objective, g, gradient_tolerance=gamma, max_iter=budget, beta=rate.beta,
                                       mu=rate.mu)
    assert info.converged and info.iterations <= budget
    assert info.iterations > 10  # the safeguard's steps did the work (a Newton solve takes under ten)
    # the release is the minimiser to the distance its certificate proves: ||w - w*|| <= (gamma / 2) / mu_F
    exact, reference = proximal.proximal_newton(objective, g, gradient_tolerance=1e-3 * gamma,
                                                max_iter=budget * 3, beta=rate.beta)
    assert reference.converged
    mu_f = n * (lam * problem.strong_convexity + extra_reg)
    assert np.linalg.norm(w - exact) <= 0.5 * gamma / mu_f + 0.5e-3 * gamma / mu_f
    if problem.constraint_set is not None:
        assert problem.constraint_set.contains(w)


def test_the_budget_doubles_the_smooth_bound_and_starts_on_the_set():
    d = 4
    smooth = descent_rate(verify_problem(losses.logistic(), dim=d), 0.1, 0.0, 1.0)
    composite = descent_rate(verify_problem(losses.logistic(), lambda w: 0.3 * cp.norm1(w) + 0.5 * cp.sum_squares(w),
                                            dim=d), 0.1, 0.0, 1.0)
    assert smooth is not None and composite is not None and smooth.nonsmooth is None
    # at w_0 = 0 the L1 term's subgradient 0 adds nothing: the same G_0, the certificate's bound doubles it
    assert composite.start_gradient_bound(None, 0.0, 10) == smooth.start_gradient_bound(None, 0.0, 10)
    start, target = smooth.start_gradient_bound(None, 0.0, 10), 0.5e-6 / 10
    assert composite.budget(None, None, 10, 1e-6) == (smooth.iterations(2 * start, target)
                                                      + composite.accelerated_iterations(start, target) + 1)
    assert composite.accelerated_iterations(start, target) < smooth.iterations(2 * start, target)
    # a start off zero adds Lam a ||sign(w_0)||; a box that excludes zero moves the start onto the set
    start = np.array([1.0, 0.0, -2.0, 0.0])
    assert composite.start_gradient_bound(start, 0.0, 10) > smooth.start_gradient_bound(start, 0.0, 10)
    boxed = descent_rate(verify_problem(losses.logistic(), lambda w: cp.norm1(w) + 0.5 * cp.sum_squares(w), dim=d,
                                        constraints=lambda w: [w >= 0.5, w <= 1.0]), 0.1, 0.0, 1.0)
    assert boxed is not None and boxed.nonsmooth is not None
    np.testing.assert_array_equal(boxed.nonsmooth.start(None), np.full(d, 0.5))


@pytest.mark.parametrize("name", ["l1", "ball"])
def test_a_fit_whose_newton_steps_fail_still_releases(name, newton_broken):
    # before the proximal path had a proved budget, this fit stalled after the charge ("stalled": SolverError),
    # an event whose probability the data decide (docs/theory.md, section 7.1)
    regularizer, constraints = DECLARATIONS[name]
    X, y = _rows(n=400)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    erm = dpcvx.PrivateERM(loss=losses.logistic(), regularizer=regularizer, constraints=constraints, lam=0.05,
                           data_norm=1.0)
    model = erm.fit(X, y, epsilon=1.0, mechanism="objective", accountant=accountant, random_state=0)
    assert erm.diagnostics_.converged and np.all(np.isfinite(model.coef_))
    assert len(accountant.ledger) == 1


def test_a_proximal_budget_beyond_the_limit_is_refused_before_the_charge():
    # as on the smooth path (section 7.1): m Lam + Delta tiny against c R^2, gradient steps no practical safeguard
    X, y = _rows(n=50_000, d=20, seed=1)
    accountant = dpcvx.PrivacyAccountant(epsilon=20.0)
    erm = dpcvx.PrivateERM(loss=losses.logistic(), regularizer=lambda w: cp.norm1(w) + 0.5 * cp.sum_squares(w),
                           lam=1e-9, data_norm=1.0)
    with pytest.raises(InputError, match="proved iteration budget above"):
        erm.fit(X, y, epsilon=10.0, mechanism="objective", accountant=accountant, random_state=0)
    assert accountant.ledger == []


def test_after_newton_stalls_v_fista_takes_about_the_square_root_of_the_plain_steps(newton_broken):
    # an attacker probe: an elastic net on 50 rows of 100 columns at mu / beta 1.7e-5 ran 1,085,777 plain proximal
    # gradient steps (75 s) after Newton's steps stalled; V-FISTA from the stall takes about sqrt(beta / mu) as many
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 100))
    X /= np.maximum(1, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=50) > 0, 1.0, -1.0)
    n, d = X.shape
    problem = verify_problem(losses.logistic(), lambda w: 0.01 * cp.norm1(w) + 0.495 * cp.sum_squares(w), dim=d)
    lam, extra_reg = 1e-5, 1e-6
    noise = 1e-3 * rng.normal(size=d)
    objective = PerturbedObjective(X, y, problem.derivatives, problem.smooth_quadratic, lam, noise, extra_reg,
                                   curvature_bound=problem.curvature)
    g = CompositeTerm(n * lam * problem.l1_weight, None)
    gamma = 1e-10 * n
    rate = descent_rate(problem, lam, extra_reg, 1.0)
    budget = rate.budget(None, noise, n, gamma)
    plain = rate.iterations(rate.start_gradient_bound(None, float(np.linalg.norm(noise)), n), 0.5 * gamma / n)
    assert rate.beta / rate.mu > 1e4 and plain > 10**5
    w, info = proximal.proximal_newton(objective, g, gradient_tolerance=gamma, max_iter=budget, beta=rate.beta,
                                       mu=rate.mu)
    assert info.converged and info.iterations < 0.05 * plain, (info.iterations, plain)
