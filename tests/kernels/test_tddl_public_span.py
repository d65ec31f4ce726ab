"""TDDL minimised over span phi(Z): the Nystrom features of the public sample (issue 20, item 4)."""

import warnings
from dataclasses import replace

import numpy as np
import pytest

import dpcvx
import dpcvx.models.tddl as tddl_module
from dpcvx.data.kernels import RBFKernel
from dpcvx.data.nystrom import NystromFeatures
from dpcvx.exceptions import InputError
from dpcvx.models.release_audit import release_diff
from dpcvx.models.tddl import TDDL
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.float_guarantee import FloatGuarantee
from dpcvx.solvers.gram import DenseGram, FactoredGram
from dpcvx.solvers.kernel import KernelERM
from dpcvx.verification.kernel_loss import resolve_loss


def circle_task(n, seed, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    return X, np.where(rng.random(n) < noise, -y, y)


@pytest.mark.parametrize("rows", [None, np.array([0, 2, 3, 5, 6])])
def test_woodbury_solve_equals_the_dense_solve(rows):
    rng = np.random.default_rng(0)
    factor = rng.normal(size=(8, 3))
    count = 8 if rows is None else rows.size
    weights, shift, rhs = rng.normal(size=count), rng.uniform(0.01, 100, size=count), rng.normal(size=count)
    dense = DenseGram(factor @ factor.T).shifted_solver(weights, shift, rows)(rhs)
    factored = FactoredGram(factor).shifted_solver(weights, shift, rows)(rhs)
    np.testing.assert_allclose(factored, dense, rtol=1e-10)
    np.testing.assert_allclose(FactoredGram(factor).diagonal(), np.diag(factor @ factor.T))


def test_nystrom_features_reproduce_the_kernel_on_the_landmarks_and_keep_the_bound():
    kernel = RBFKernel(2.0)
    Z, _ = circle_task(40, 1)
    X, _ = circle_task(200, 2)
    features = NystromFeatures(kernel, Z)
    psi_Z = features.transform(Z)
    np.testing.assert_allclose(psi_Z @ psi_Z.T, kernel.gram(Z, Z), atol=1e-10)
    psi = features.transform(X, np.ones(200))
    assert np.all(np.linalg.norm(psi, axis=1) <= kernel.feature_bound)
    # a projection: <psi(x), psi(z)> = k(x, z) for landmarks z
    np.testing.assert_allclose(psi @ psi_Z.T, kernel.gram(X, Z), atol=1e-8)


@pytest.mark.parametrize("loss", ["logistic", "hinge", "huber_hinge:h=0.5"])
def test_with_the_training_rows_as_landmarks_the_minimiser_is_the_exact_one(loss):
    # span phi(X) holds the exact minimiser (representer theorem): both routes must agree
    X, y = circle_task(150, 0)
    Z, _ = circle_task(30, 5)
    kernel, verified = RBFKernel(2.0), resolve_loss(loss)
    exact = KernelERM(X, y, kernel=kernel, loss=verified, lam=0.1)
    restricted = KernelERM(X, y, kernel=kernel, loss=verified, lam=0.1, landmarks=X)
    np.testing.assert_allclose(restricted.predict(Z), exact.predict(Z), atol=10 * exact.tolerance)
    assert restricted.report.distance_bound <= restricted.tolerance


def test_public_span_release_has_the_same_calibration_and_records_the_span():
    X, y = circle_task(400, 0)
    Z, _ = circle_task(60, 7)
    training = TDDL(RBFKernel(2.0), lam=0.1, loss="logistic", span="training")
    public = TDDL(RBFKernel(2.0), lam=0.1, loss="logistic", span="public")
    a = training.fit(X, y, 1.0, 1e-6, Z=Z, random_state=3)
    b = public.fit(X, y, 1.0, 1e-6, Z=Z, random_state=3)
    calibration_a, calibration_b = a.certificate.calibration, b.certificate.calibration
    assert calibration_a.minimiser_span == "training" and calibration_b.minimiser_span == "public"
    assert replace(calibration_a, minimiser_span="public") == calibration_b
    # the same public sample, a smaller subspace: the releases differ but predict alike
    X_test, y_test = circle_task(2000, 9)
    assert abs(public.score(X_test, y_test) - training.score(X_test, y_test)) < 0.05


def test_public_span_release_saves_loads_and_neighbours_differ_only_in_the_privatised_part(tmp_path):
    X, y = circle_task(300, 0)
    Z, _ = circle_task(50, 7)
    X2, y2 = X.copy(), y.copy()
    X2[4], y2[4] = -X[4], -y[4]
    learner = TDDL(RBFKernel(2.0), lam=0.1, loss="hinge", span="public")
    a = learner.fit(X, y, 1.0, Z=Z, random_state=1)
    b = TDDL(RBFKernel(2.0), lam=0.1, loss="hinge", span="public").fit(X2, y2, 1.0, Z=Z, random_state=1)
    assert release_diff(a, b) == []
    dpcvx.save(a, tmp_path / "tddl.json")
    loaded = dpcvx.load(tmp_path / "tddl.json")
    assert loaded.certificate.calibration.minimiser_span == "public"
    np.testing.assert_array_equal(loaded.decision_function(Z), a.decision_function(Z))


@pytest.mark.parametrize(("size", "expected"), [(40, "public"), (299, "public"), (300, "training"), (400, "training")])
def test_auto_span_is_span_phi_z_when_n_exceeds_the_public_sample(size, expected):
    """span="auto" kept the exact O(n^3) solve up to 10,000 training rows, 4 to 20 times slower than span phi(Z)
    from 1,000 to 4,000 rows (probe S, session 62): it now minimises over span phi(Z) when n > |Z|
    (benchmarks/tddl_span_rule.py, criterion v2). The choice reads public sizes only, so replace-one neighbours
    (the same n) get the same span."""
    X, y = circle_task(300, 0)
    X2, y2 = X.copy(), y.copy()
    X2[4], y2[4] = -X[4], -y[4]  # a replace-one neighbour
    Z, _ = circle_task(size, 7)
    learner = TDDL(RBFKernel(2.0), lam=0.1, loss="logistic")
    with warnings.catch_warnings():
        # Z larger than X at size 400: the public-sample note
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        spans = {learner.fit(rows, labels, 1.0, Z=Z, random_state=0).certificate.calibration.minimiser_span
                 for rows, labels in ((X, y), (X2, y2))}
    assert spans == {expected}
    assert learner.get_params()["span"] == "auto"


def test_auto_span_under_float_safe_keeps_the_whole_rkhs_up_to_the_row_limit(monkeypatch):
    """float_safe=True is exact over the whole RKHS only: its "auto" keeps the former rule (training up to
    AUTO_PUBLIC_SPAN_ROWS rows), so n > |Z| does not turn an exact guarantee into a mitigation."""
    X, y = circle_task(300, 0)
    Z, _ = circle_task(40, 7)
    learner = TDDL(RBFKernel(2.0), lam=0.1, loss="logistic", float_safe=True)
    learner.fit(X, y, 1.0, Z=Z, random_state=0)
    assert learner.calibration_.base.minimiser_span == "training"
    assert learner.calibration_.guarantee == FloatGuarantee.EXACT
    monkeypatch.setattr(tddl_module, "AUTO_PUBLIC_SPAN_ROWS", 299)
    learner.fit(X, y, 1.0, Z=Z, random_state=0)
    assert learner.calibration_.base.minimiser_span == "public"


def test_an_unknown_span_is_refused_before_anything_is_charged():
    X, y = circle_task(100, 0)
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="span must be"):
        TDDL(RBFKernel(2.0), lam=0.1, span="landmarks").fit(X, y, 1.0, Z=X[:10], accountant=accountant)
    assert accountant.ledger == []


def test_a_public_span_fit_decomposes_the_public_gram_matrix_once(monkeypatch):
    """Over span phi(Z) the Nystrom features and the post-processing need the eigendecomposition of the same K_Z:
    it is computed once (O(|Z|^3)), and the post-processing's solution is the one of its own decomposition, bit for
    bit (eigh of the same matrix)."""
    import dpcvx.privacy.kernel_calibrate as kernel_calibrate

    X, y = circle_task(300, 31)
    Z, _ = circle_task(40, 32)
    calls = []
    real = kernel_calibrate.eigh

    def counting(matrix, *args, **kwargs):
        calls.append(np.asarray(matrix).shape)
        return real(matrix, *args, **kwargs)

    monkeypatch.setattr(kernel_calibrate, "eigh", counting)
    release = TDDL("rbf", gamma=2.0, lam=0.1, loss="huber_hinge:h=0.5", span="public").fit(
        X, y, 1.0, Z=Z, random_state=0)
    assert calls == [(40, 40)]
    monkeypatch.setattr(kernel_calibrate, "eigh", real)
    kernel, radius = RBFKernel(2.0), release.certificate.constants.C
    targets = np.random.default_rng(33).normal(size=40)
    shared = tddl_module.ConstrainedLeastSquares(kernel.gram(Z, Z), radius,
                                                 NystromFeatures(kernel, Z).take_spectrum())
    own = tddl_module.ConstrainedLeastSquares(kernel.gram(Z, Z), radius)
    assert np.array_equal(shared.solve(targets), own.solve(targets))
    features = NystromFeatures(kernel, Z)
    assert features.take_spectrum() is not None and features.take_spectrum() is None  # held once, then dropped
    with pytest.raises(InputError, match="spectrum must be"):
        tddl_module.ConstrainedLeastSquares(kernel.gram(Z, Z), radius, (np.ones(3), np.eye(3)))
