"""TDDL: noise calibration, the noise actually added, the constrained least squares, utility."""

import math

import cvxpy as cp
import numpy as np
import pytest
from scipy import integrate, sparse, stats

import dpcvx.models.tddl as tddl_module
from dpcvx.data.kernels import LinearKernel, RBFKernel
from dpcvx.exceptions import ClippingWarning, InputError
from dpcvx.models.tddl import TDDL, ConstrainedLeastSquares
from dpcvx.privacy.calibration import Noise
from dpcvx.privacy.gaussian import analytic_gaussian_sigma, gaussian_delta
from dpcvx.solvers.kernel import KernelERM
from dpcvx.verification.kernel_loss import resolve_loss

LOSS = "huber_hinge:h=0.5"  # C^1: the fast Newton route keeps these tests quick


def circle_task(n, seed, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    return X, np.where(rng.random(n) < noise, -y, y)


def hand_calibration(n, lam, L, R, epsilon, Z, kernel):
    """The derivation of docs/theory.md (section 11, K4), computed independently of dpcvx."""
    sensitivity = (1 + 2e-3) * 2 * L * R / (lam * n)
    gram = kernel.gram(Z, Z)
    top = float(np.linalg.eigvalsh(gram).max())
    norms = np.sqrt(np.diag(gram))
    l1 = sensitivity * min(norms.sum(), math.sqrt(len(Z) * top))
    l2 = sensitivity * math.sqrt(top)
    return l1, l2, l1 / epsilon


def collinear_points(count, seed):
    scale = np.random.default_rng(seed).random(count)
    return scale[:, None] * np.array([[0.6, 0.8]])


@pytest.mark.parametrize("kernel, public, branch", [
    (RBFKernel(30.0), lambda: circle_task(80, 1)[0], "operator"),  # sqrt(T lambda_max) < sum ||phi||
    (LinearKernel(1.0), lambda: collinear_points(80, 1), "sum"),  # aligned points of varied norm
])
def test_laplace_scale_matches_hand_computation(kernel, public, branch):
    X, y = circle_task(300, 0)
    Z = public()
    learner = TDDL(kernel, lam=0.1, loss=LOSS)
    learner.fit(X, y, 0.7, Z=Z, random_state=0)
    l1, l2, scale = hand_calibration(300, 0.1, 1.0, 1.0, 0.7, Z, kernel)
    calibration = learner.calibration_
    assert calibration.mechanism == "laplace"
    sum_is_smaller = calibration.sum_of_test_norms < math.sqrt(80) * calibration.test_operator_norm
    assert sum_is_smaller == (branch == "sum")
    assert calibration.l1_sensitivity == pytest.approx(l1, rel=1e-9)
    assert calibration.l2_sensitivity == pytest.approx(l2, rel=1e-9)
    assert calibration.scale == pytest.approx(scale, rel=1e-9)
    assert calibration.scale >= scale  # rounded in the safe direction
    assert calibration.l2_sensitivity <= calibration.weight_sensitivity * math.sqrt(80)  # <= sqrt(T) R s


def test_gaussian_scale_matches_an_independent_privacy_computation():
    X, y = circle_task(300, 0)
    Z, _ = circle_task(80, 1)
    epsilon, delta = 0.8, 1e-5
    learner = TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS)
    learner.fit(X, y, epsilon, delta, Z=Z, random_state=0)
    _, l2, _ = hand_calibration(300, 0.1, 1.0, 1.0, epsilon, Z, RBFKernel(2.0))
    calibration = learner.calibration_
    assert calibration.mechanism == "gaussian"
    assert calibration.l2_sensitivity == pytest.approx(l2, rel=1e-9)
    sigma = calibration.scale

    def hockey_stick(noise_sd):  # delta(eps) = integral of max(0, p(x) - e^eps q(x)), by quadrature
        def density(x):
            return max(0.0, stats.norm.pdf(x, 0, noise_sd)
                       - math.exp(epsilon) * stats.norm.pdf(x, l2, noise_sd))
        return integrate.quad(density, -40 * noise_sd, 40 * noise_sd, points=[0, l2], limit=400,
                              epsabs=1e-13)[0]

    assert hockey_stick(sigma) <= delta * (1 + 1e-4)
    assert hockey_stick(sigma * 0.999) > delta  # and it is the smallest such sigma
    classical = l2 * math.sqrt(2 * math.log(1.25 / delta)) / epsilon  # valid for epsilon < 1
    assert sigma < classical


def test_analytic_gaussian_for_large_epsilon():
    sigma = analytic_gaussian_sigma(1.0, 5.0, 1e-6)
    assert gaussian_delta(sigma, 1.0, 5.0) <= 1e-6 < gaussian_delta(sigma * 0.9999, 1.0, 5.0)
    with pytest.raises(InputError, match="delta"):
        analytic_gaussian_sigma(1.0, 1.0, 0.0)


@pytest.mark.slow
@pytest.mark.parametrize("delta, distribution", [(0.0, "laplace"), (1e-6, "norm")])
def test_added_noise_has_the_calibrated_distribution(monkeypatch, delta, distribution):
    """Record the noisy predictions inside fit and test them against the calibrated law."""
    recorded = []
    original = tddl_module.perturb_predictions

    def recording(predictions, calibration, rng):
        noisy = original(predictions, calibration, rng)
        recorded.append((np.array(predictions), noisy, calibration.scale))
        return noisy

    monkeypatch.setattr(tddl_module, "perturb_predictions", recording)
    X, y = circle_task(300, 2)
    Z, _ = circle_task(1500, 3)
    TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS).fit(X, y, 2.0, delta, Z=Z, random_state=4)
    (exact, noisy, scale), = recorded
    model = KernelERM(X, y, kernel=RBFKernel(2.0), loss=resolve_loss(LOSS), lam=0.1)
    np.testing.assert_allclose(exact, model.predict(Z), atol=1e-12)  # noise is added to <w*, phi(z)>
    standardized = (noisy - exact) / scale
    assert stats.kstest(standardized, distribution).pvalue > 1e-3
    # the spread, to 10%: E|b| = scale (Laplace) or scale sqrt(2/pi) (Gaussian)
    expected = 1.0 if distribution == "laplace" else math.sqrt(2 / math.pi)
    assert np.mean(np.abs(standardized)) == pytest.approx(expected, rel=0.1)


def secular_solution(gram, targets, radius):
    """argmin ||K a - t|| s.t. a^T K a <= C^2 in closed form: c_j = sqrt(l_j) t_j / (l_j + mu)."""
    eigenvalues, vectors = np.linalg.eigh(gram)
    keep = eigenvalues > 1e-10 * eigenvalues.max()
    lam_k, rotated = eigenvalues[keep], vectors[:, keep].T @ targets
    def coordinates(mu):
        return np.sqrt(lam_k) * rotated / (lam_k + mu)
    if np.linalg.norm(coordinates(0.0)) <= radius:
        mu = 0.0
    else:
        low, high = 0.0, 1.0
        while np.linalg.norm(coordinates(high)) > radius:
            high *= 2
        for _ in range(200):
            mid = (low + high) / 2
            low, high = (mid, high) if np.linalg.norm(coordinates(mid)) > radius else (low, mid)
        mu = high
    return vectors[:, keep] @ (np.sqrt(lam_k) * coordinates(mu))  # predictions K a


@pytest.mark.parametrize("size", [0.001, 50.0])  # inactive and active constraint
def test_constrained_least_squares_respects_the_constraint(size):
    rng = np.random.default_rng(5)
    Z = rng.uniform(-1, 1, (60, 2))
    Z[30:] = Z[:30]  # duplicated points: K_Z is singular
    gram = RBFKernel(3.0).gram(Z, Z)
    radius = 2.0
    problem = ConstrainedLeastSquares(gram, radius)
    assert problem.rank <= 30
    for _repeat in range(2):  # the template is reused with new targets
        targets = size * rng.normal(size=60)
        coef = problem.solve(targets)
        assert coef @ gram @ coef <= radius**2 * (1 + 1e-8)
        assert problem.residual < 1e-5
        reference = secular_solution(gram, targets, radius)
        np.testing.assert_allclose(gram @ coef, reference, atol=1e-5 * max(1.0, np.abs(reference).max()))
    if size > 1:
        assert coef @ gram @ coef == pytest.approx(radius**2, rel=1e-6)  # active


def test_constrained_least_squares_input_errors():
    with pytest.raises(InputError, match="square"):
        ConstrainedLeastSquares(np.ones((2, 3)), 1.0)
    with pytest.raises(InputError, match="zero"):
        ConstrainedLeastSquares(np.zeros((3, 3)), 1.0)
    with pytest.raises(InputError, match="length 3"):
        ConstrainedLeastSquares(np.eye(3), 1.0).solve(np.ones(4))
    for radius in (-1.0, 0.0, float("nan"), float("inf"), "1", None):  # cvxpy's own ValueError or TypeError before
        with pytest.raises(InputError, match="radius"):
            ConstrainedLeastSquares(np.eye(3), radius)


@pytest.mark.parametrize("gram, match", [
    ("x", "gram must hold real numbers"),  # numpy's float conversion raised a bare ValueError
    (np.zeros((0, 0)), "non-empty"),  # the empty spectrum's max raised a bare ValueError
    (sparse.eye(3, format="csr"), "dense"),  # a bare TypeError before
    (np.array([[1.0, 0.5], [0.0, 1.0]]), "symmetric"),  # was read as its symmetric part without a word
    (-np.eye(3), "positive semidefinite"),  # was refused as "zero"
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "eigenvalue -1"),  # its negative eigenvalue was dropped without a word
])
def test_a_matrix_that_is_no_gram_matrix_is_refused_by_name(gram, match):
    with pytest.raises(InputError, match=match):
        ConstrainedLeastSquares(gram, 1.0)


def test_targets_that_are_no_numbers_are_refused_by_name():
    with pytest.raises(InputError, match="targets must hold real numbers"):
        ConstrainedLeastSquares(np.eye(2), 1.0).solve(["a", "b"])


@pytest.mark.slow
def test_accuracy_approaches_the_non_private_model_as_epsilon_grows():
    X, y = circle_task(1000, 6)
    Z, _ = circle_task(150, 7)
    X_test, y_test = circle_task(2000, 8)
    lam, gamma = 0.05, 4.0
    exact = KernelERM(X, y, kernel=RBFKernel(gamma), loss=resolve_loss(LOSS), lam=lam)
    baseline = float(np.mean(np.where(exact.predict(X_test) >= 0, 1, -1) == y_test))
    assert baseline > 0.85
    accuracy = {}
    for epsilon in (0.03, 1.0, 100.0):
        scores = [TDDL("rbf", gamma=gamma, lam=lam, loss=LOSS)
                  .fit(X, y, epsilon, Z=Z, random_state=seed).score(X_test, y_test) for seed in range(3)]
        accuracy[epsilon] = float(np.mean(scores))
    assert accuracy[0.03] < accuracy[1.0] < accuracy[100.0]
    assert accuracy[0.03] < baseline - 0.15  # the noise is real
    assert accuracy[100.0] >= baseline - 0.02
    gaussian = TDDL("rbf", gamma=gamma, lam=lam, loss=LOSS).fit(X, y, 1.0, 1e-6, Z=Z, random_state=0)
    assert gaussian.score(X_test, y_test) >= accuracy[1.0] - 0.05  # (epsilon, delta): L2 noise


def test_released_predictor_is_public_data_only(tmp_path):
    import dpcvx

    X, y = circle_task(200, 9)
    Z, _ = circle_task(40, 10)
    learner = TDDL("rbf", gamma=2.0, lam=0.1, loss="hinge")
    release = learner.fit(X, y, 1.0, Z=Z, random_state=1)
    predictor = learner.predictor_
    assert release is learner.model_ and release.predictor is predictor
    np.testing.assert_array_equal(predictor.centers, Z)
    assert learner.constraint_radius_ == pytest.approx(math.sqrt(2 / 0.1))  # hinge: sqrt(2 l(0)/lam)
    assert predictor.rkhs_norm <= learner.constraint_radius_ * (1 + 1e-6)
    loaded = dpcvx.load(dpcvx.save(release, tmp_path / "tddl.json"))
    X_new = np.random.default_rng(11).uniform(-1, 1, (30, 2))
    np.testing.assert_array_equal(loaded.decision_function(X_new), learner.decision_function(X_new))
    assert loaded.epsilon == 1.0 and loaded.certificate.calibration.mechanism is Noise.LAPLACE
    report = learner.diagnostics_["solve_report"]  # the curator's diagnostics, not the release
    assert report.distance_bound <= report.tolerance
    assert "solve_report" not in (tmp_path / "tddl.json").read_text()
    assert set(release.predict(X_new)) <= {-1.0, 1.0}


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")  # 200 rows, epsilon 1: noise > 12.65
def test_polynomial_kernel_clips_rows_beyond_the_public_bound():
    X, y = circle_task(200, 12)
    X[:3] *= 10  # beyond input_bound = 1
    Z, _ = circle_task(30, 13)
    with pytest.warns(ClippingWarning, match="3 of 200"):
        learner = TDDL("poly", degree=3, input_bound=1.0, lam=0.1, loss=LOSS)
        learner.fit(X, y, 1.0, Z=Z, random_state=0)
    assert pytest.approx(2 ** 1.5) == learner.calibration_.R  # (B^2 + 1)^(p/2)


def test_tddl_input_errors():
    X, y = circle_task(50, 14)
    with pytest.raises(InputError, match="features"):
        TDDL("rbf", gamma=1.0, lam=0.1, loss=LOSS).fit(X, y, 1.0, Z=np.zeros((5, 3)))
    with pytest.raises(InputError, match="-1 or \\+1"):
        TDDL("rbf", gamma=1.0, lam=0.1, loss=LOSS).fit(X, (y + 1) / 2, 1.0, Z=X)
    with pytest.raises(InputError, match="delta"):
        TDDL("rbf", gamma=1.0, lam=0.1, loss=LOSS).fit(X, y, 1.0, 1.5, Z=X)
    with pytest.raises(InputError, match="epsilon"):
        TDDL("rbf", gamma=1.0, lam=0.1, loss=LOSS).fit(X, y, 0.0, Z=X)
    with pytest.raises(InputError, match="keyword Z="):  # the old positional public sample
        TDDL("rbf", gamma=1.0, lam=0.1, loss=LOSS).fit(X, y, X, Z=X)
    with pytest.raises(InputError, match=r"TDDL has no parameter\(s\) \['epsilon'\].*epsilon, delta and "
                       "random_state go to fit"):  # the budget left the constructor
        TDDL("rbf", gamma=1.0, lam=0.1, epsilon=1.0)
    with pytest.raises(InputError, match="not fitted"):
        TDDL("rbf", gamma=1.0, lam=0.1).predict(X)


def test_closed_form_replaces_a_failed_conic_solve(monkeypatch):
    # Found by the kernel benchmark: with noise large against C, Clarabel can fail outright.
    rng = np.random.default_rng(11)
    Z = rng.normal(size=(40, 3))
    gram = Z @ Z.T + 0.5
    radius = 2.0
    targets = 500.0 * rng.normal(size=40)
    solver = tddl_module.ConstrainedLeastSquares(gram, radius)
    conic = solver.solve(targets)
    assert solver.method == "cvxpy:CLARABEL"

    def failing(*args, **kwargs):
        raise cp.SolverError("Solver 'CLARABEL' failed")

    monkeypatch.setattr(solver.problem, "solve", failing)
    closed = solver.solve(targets)
    assert solver.method == "closed form" and solver.residual <= 1e-10
    assert closed @ gram @ closed <= radius**2 * (1 + 1e-9)
    np.testing.assert_allclose(gram @ closed, gram @ conic, atol=1e-5 * np.abs(gram @ conic).max())


def test_the_budget_is_given_to_fit_and_charged_once_per_fit():
    import dpcvx

    X, y = circle_task(120, 20)
    Z, _ = circle_task(15, 21)
    learner = TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    learner.check_fit_inputs(X, y, 0.5, Z=Z, accountant=accountant)  # checks only
    assert accountant.ledger == []
    first = learner.fit(X, y, 0.5, Z=Z, random_state=0, accountant=accountant)
    assert [tuple(entry.cost) for entry in accountant.ledger] == [(0.5, 0.0)]
    second = learner.fit(X, y, 1.0, 1e-6, Z=Z, random_state=0, accountant=accountant)
    assert [tuple(entry.cost) for entry in accountant.ledger] == [(0.5, 0.0), (1.0, 1e-6)]
    assert (first.epsilon, first.delta, second.epsilon, second.delta) == (0.5, 0.0, 1.0, 1e-6)
    assert first.certificate.calibration.mechanism is Noise.LAPLACE
    assert second.certificate.calibration.mechanism is Noise.GAUSSIAN
    assert "epsilon" not in learner.get_params() and "random_state" not in learner.get_params()
    with pytest.raises(dpcvx.BudgetExceededError):  # over budget: refused, nothing solved or drawn
        learner.fit(X, y, 1.0, Z=Z, random_state=0, accountant=accountant)
    assert len(accountant.ledger) == 2 and learner.model_ is second


def test_the_loss_is_verified_once_per_learner(monkeypatch):
    """One verified KernelLoss flows to calibration, solver and certificate; refitting the
    same learner (as tune does after check_fit_inputs) does not verify again."""
    import dpcvx.models.kernel_learner as kernel_learner

    calls = []
    original = kernel_learner.resolve_loss

    def counting(loss, *, time_limit=None):
        calls.append(loss)
        return original(loss, time_limit=time_limit)

    monkeypatch.setattr(kernel_learner, "resolve_loss", counting)
    X, y = circle_task(120, 22)
    learner = TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS)
    learner.check_fit_inputs(X, y, 1.0, Z=X[:10])
    release = learner.fit(X, y, 1.0, Z=X[:10], random_state=0)
    learner.fit(X, y, 2.0, Z=X[:10], random_state=1)
    assert calls == [LOSS]
    assert release.certificate.loss == learner._settings()[2].text
    learner.set_params(loss="logistic")
    learner.fit(X, y, 1.0, Z=X[:10], random_state=0)
    assert calls == [LOSS, "logistic"]
