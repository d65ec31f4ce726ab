"""The exact kernel ERM: agreement with CVXPY, certified accuracy, sensitivity, norm bound C."""

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.data.kernels import CallableKernel, LinearKernel, PolynomialKernel, RBFKernel
from dpcvx.exceptions import AssumptionError, InputError, SolverError
from dpcvx.losses import from_spec
from dpcvx.privacy.calibrate import minimiser_sensitivity
from dpcvx.privacy.kernel_calibrate import SOLVE_RTOL, constraint_radius
from dpcvx.solvers.kernel import KernelERM, as_labels, solve_kernel_erm
from dpcvx.verification.kernel_loss import hinge, resolve_loss

LOSSES = ["hinge", "logistic", "huber_hinge:h=0.5"]


def circle_task(n, seed, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    return X, np.where(rng.random(n) < noise, -y, y)


@pytest.mark.slow  # about 6 s: the reference solves of two general losses by CVXPY
@pytest.mark.parametrize("margin_loss", [lambda z: 2 * cp.pos(0.5 - z), lambda z: cp.abs(z - 1)],
                         ids=["scaled shifted hinge", "absolute"])
def test_general_two_piece_losses_agree_with_cvxpy(margin_loss):
    X, y = circle_task(120, 0)
    lam, gram = 1e-2, RBFKernel(3.0).gram(X, X)
    loss = resolve_loss(margin_loss)
    assert loss.pieces is not None and loss.derivatives is None  # the dual route
    solution = solve_kernel_erm(gram, y, lam, loss, SOLVE_RTOL * minimiser_sensitivity(120, loss.lipschitz, 1.0, lam),
                                1.0)
    eigenvalues, vectors = np.linalg.eigh(gram)
    factor = vectors * np.sqrt(np.clip(eigenvalues, 0, None))
    weights = cp.Variable(factor.shape[1])
    objective = cp.sum(margin_loss(cp.multiply(y, factor @ weights))) / 120 + lam / 2 * cp.sum_squares(weights)
    cp.Problem(cp.Minimize(objective)).solve(solver=cp.CLARABEL)
    np.testing.assert_allclose(gram @ solution.coef, factor @ weights.value, atol=2e-4)


def rkhs_distance(kernel, rows_a, coef_a, rows_b, coef_b):
    rows = np.vstack([rows_a, rows_b])
    coef = np.concatenate([coef_a, -coef_b])
    return float(np.sqrt(max(coef @ kernel.gram(rows, rows) @ coef, 0.0)))


@pytest.mark.parametrize("loss_name", LOSSES)
@pytest.mark.parametrize("kernel", [RBFKernel(3.0), PolynomialKernel(3, 1.0), LinearKernel(1.0)])
def test_solver_agrees_with_cvxpy(kernel, loss_name):
    X, y = circle_task(120, 0)
    lam = 1e-2
    gram = kernel.gram(X, X)
    loss = resolve_loss(loss_name)
    tolerance = SOLVE_RTOL * minimiser_sensitivity(len(y), 1.0, kernel.feature_bound, lam)
    solution = solve_kernel_erm(gram, y, lam, loss, tolerance, kernel.feature_bound)
    assert solution.report.distance_bound <= tolerance
    eigenvalues, vectors = np.linalg.eigh(gram)
    factor = vectors * np.sqrt(np.clip(eigenvalues, 0, None))
    weights = cp.Variable(factor.shape[1])
    margin_loss = hinge if loss_name == "hinge" else from_spec(loss_name)
    objective = cp.sum(margin_loss(cp.multiply(y, factor @ weights))) / len(y) \
        + lam / 2 * cp.sum_squares(weights)
    cp.Problem(cp.Minimize(objective)).solve(solver=cp.CLARABEL)
    # both solutions predict alike (Clarabel's own accuracy is about 1e-6)
    np.testing.assert_allclose(gram @ solution.coef, factor @ weights.value, atol=2e-4)


@pytest.mark.parametrize("loss_name", LOSSES)
def test_neighbouring_minimisers_move_at_most_the_sensitivity(loss_name):
    """||w*_D - w*_D'||_H <= 2 L R / (lam n) when one row is replaced (R = 1 for rbf)."""
    kernel, lam, n = RBFKernel(4.0), 0.05, 150
    X, y = circle_task(n, 1)
    loss = resolve_loss(loss_name)
    base = KernelERM(X, y, kernel=kernel, loss=loss, lam=lam)
    bound = minimiser_sensitivity(n, loss.lipschitz, 1.0, lam)
    rng = np.random.default_rng(2)
    largest = 0.0
    for _ in range(6):
        index = rng.integers(n)
        X2, y2 = X.copy(), y.copy()
        X2[index] = rng.uniform(-1, 1, 2)
        y2[index] = -y[index]
        other = KernelERM(X2, y2, kernel=kernel, loss=loss, lam=lam)
        largest = max(largest, rkhs_distance(kernel, X, base._weights, X2, other._weights))
    assert largest <= bound
    assert largest >= 0.05 * bound  # the replacements did move the minimiser


@pytest.mark.parametrize("loss_name", LOSSES)
@pytest.mark.parametrize("lam", [1e-3, 1e-1])
def test_minimiser_norm_is_within_the_constraint_radius(loss_name, lam):
    X, y = circle_task(200, 3)
    kernel = RBFKernel(8.0)
    loss = resolve_loss(loss_name)
    model = KernelERM(X, y, kernel=kernel, loss=loss, lam=lam)
    norm = rkhs_distance(kernel, X, model._weights, X[:0], np.zeros(0))
    radius = constraint_radius(lam, loss.lipschitz, 1.0, loss.value_at_zero, loss.infimum)
    assert norm <= radius
    assert radius <= loss.lipschitz / lam  # never looser than the optimality bound L R / lam
    assert radius < 2 * loss.lipschitz / lam  # the paper's 2 L R / lam


def test_constraint_radius_takes_the_smaller_bound():
    assert constraint_radius(0.5, 1.0, 1.0, 1.0, 0.0) == pytest.approx(2.0)  # L R / lam
    assert constraint_radius(0.01, 1.0, 1.0, 1.0, 0.0) == pytest.approx(np.sqrt(200.0))
    assert constraint_radius(0.01, 2.0, 3.0) == pytest.approx(600.0)  # inf l unknown


def test_solver_reports_its_accuracy():
    X, y = circle_task(100, 4)
    model = KernelERM(X, y, kernel=RBFKernel(2.0), loss=resolve_loss("hinge"), lam=0.1)
    report = model.report
    assert report.method == "dual interior point" and report.residual_name == "duality gap"
    assert report.distance_bound == pytest.approx(np.sqrt(2 * report.residual / 0.1))
    assert report.distance_bound <= report.tolerance
    smooth = KernelERM(X, y, kernel=RBFKernel(2.0), loss=resolve_loss("logistic"), lam=0.1).report
    assert smooth.method == "newton" and smooth.distance_bound == pytest.approx(smooth.residual / 0.1)


def test_unreachable_tolerance_raises_solver_error():
    X, y = circle_task(60, 5)
    gram = RBFKernel(2.0).gram(X, X)
    with pytest.raises(SolverError, match="nothing is released"):
        solve_kernel_erm(gram, y, 0.1, resolve_loss("hinge"), tolerance=0.0, feature_bound=1.0)


@pytest.mark.slow  # about 4 s (proves each named loss): the slow tier runs it
def test_loss_resolution():
    hinge_loss = resolve_loss(lambda z: cp.pos(1 - z))
    assert hinge_loss.lipschitz == 1 and hinge_loss.pieces is not None
    assert (hinge_loss.pieces.a1, hinge_loss.pieces.c1, hinge_loss.pieces.a2, hinge_loss.pieces.c2) \
        == (-1.0, 1.0, 0.0, 0.0)
    assert hinge_loss.value_at_zero == 1 and hinge_loss.infimum == 0
    scaled = resolve_loss(lambda z: 2 * cp.pos(0.5 - z))
    assert scaled.lipschitz == 2 and scaled.pieces is not None and scaled.derivatives is None
    logistic = resolve_loss("logistic")
    assert logistic.derivatives is not None and logistic.value_at_zero == pytest.approx(np.log(2))
    with pytest.raises(AssumptionError, match="lipschitz"):
        resolve_loss(lambda z: cp.square(z))
    with pytest.raises(InputError, match="no exact kernel solver"):
        resolve_loss(lambda z: cp.pos(1 - z) + cp.pos(-z))
    with pytest.raises(InputError, match="loss must be"):
        resolve_loss(3)


def test_label_and_kernel_validation():
    with pytest.raises(InputError, match="-1 or \\+1"):
        as_labels([0, 1, 1], 3)
    # the one standard of every entry: counted and placed, a missing label told apart, text never read as a number
    with pytest.raises(InputError, match=r"^y holds NaN or missing values, first at row 2 \(1 such row\); remove them"):
        as_labels(np.array([1, 0, None, -1], dtype=object), 4)  # a missing label: no label outside the classes
    with pytest.raises(InputError, match=r"y has 1 label\(s\), the first at row 1 .*outside the kernel learners' "
                                         r"classes \(-1, 1\)"):
        as_labels(np.array([1, 0, 1, -1], dtype=object), 4)
    assert as_labels(np.array(["1", "-1.0"]), 2).tolist() == [1.0, -1.0]  # read by value, as every entry reads it
    assert as_labels(np.array([1, -1], dtype=object), 2).tolist() == [1.0, -1.0]
    X = np.random.default_rng(1).uniform(-0.5, 0.5, size=(40, 2))
    labels = np.where(X[:, 0] > 0, 1, -1).astype(object)
    labels[7] = None
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    for learner, options in ((dpcvx.TDDL(gamma=1.0, lam=0.1), {"Z": X[:5]}),
                            (dpcvx.PINP(gamma=1.0, lam=0.1, max_queries=3), {})):
        with pytest.raises(InputError, match=r"^y holds NaN or missing values, first at row 7 \(1 such row\)"):
            learner.fit(X, labels, 1.0, accountant=accountant, **options)
    assert accountant.ledger == []  # refused before the charge
    with pytest.raises(InputError, match=r"^X has 3 rows but y has 2 labels$"):  # the one shape check of labels
        as_labels([1, -1], 3)
    with pytest.raises(InputError, match=r"^y should be a 1d array, got an array of shape \(2, 2\) instead\.$"):
        as_labels([[1, -1], [1, -1]], 2)
    assert as_labels([[1], [-1]], 2).tolist() == [1.0, -1.0]  # a column vector, as every entry takes it
    X = np.random.default_rng(0).normal(size=(5, 2))
    with pytest.raises(InputError, match="not symmetric"):
        KernelERM(X, [1, -1, 1, -1, 1], kernel=CallableKernel(lambda A, B: A @ B.T + A[:, :1], 10.0),
                  loss=resolve_loss("logistic"), lam=0.1)
