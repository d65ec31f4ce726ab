"""Loading a TDDL file recomputes lambda_max(K_Z) of its public sample Z without a full eigendecomposition from
``LANCZOS_FROM`` points on (Lanczos and a certified bound,
:func:`~dpcvx.privacy.kernel_calibrate.certified_top_eigenvalue`), and accepts and refuses the files the
eigendecomposition did: its value is an upper bound on lambda_max, within 1e-10 of the fit's, far inside the 1e-9 at
which a recorded number is compared."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import dpcvx
import dpcvx.privacy.kernel_calibrate as kernel_calibrate
from dpcvx.data.kernels import LaplacianKernel, LinearKernel, PolynomialKernel, RBFKernel
from dpcvx.exceptions import InputError
from dpcvx.models.tddl import TDDL
from dpcvx.privacy.kernel_calibrate import (
    LANCZOS_FROM,
    certified_top_eigenvalue,
    deflated_bound,
    gram_spectrum,
    gram_top_eigenvalue_bound,
    top_eigenvalue_bound,
)


def ball(n, width, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, width))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def labels(X, seed):
    y = np.where(X[:, 0] + X[:, 1] ** 2 > 0.2, 1.0, -1.0)
    return np.where(np.random.default_rng(seed).random(X.shape[0]) < 0.05, -y, y)


class Spy:
    """scipy.linalg.eigh as kernel_calibrate calls it, counting the calls."""

    def __init__(self, monkeypatch):
        self.calls = 0
        real = kernel_calibrate.eigh

        def eigh(*args, **kwargs):
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(kernel_calibrate, "eigh", eigh)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    X = ball(150, 3, 0)
    Z = ball(LANCZOS_FROM + 88, 3, 1)
    with warnings.catch_warnings():
        # T = 600 public points: noise dominance is not what is tested
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        release = TDDL("rbf", gamma=1.0, lam=1e-2, loss="logistic", span="training").fit(
            X, labels(X, 2), 1.0, 1e-6, Z=Z, random_state=0)
    path = dpcvx.save(release, tmp_path_factory.mktemp("tddl") / "tddl.json")
    return release, path


def test_load_computes_no_eigendecomposition(saved, monkeypatch):
    release, path = saved
    spy = Spy(monkeypatch)
    loaded = dpcvx.load(path)
    assert spy.calls == 0
    fitted, recomputed = release.certificate.calibration, loaded.certificate.calibration
    for field in ("test_operator_norm", "l1_sensitivity", "l2_sensitivity", "scale"):
        assert getattr(recomputed, field) == pytest.approx(getattr(fitted, field), rel=1e-10, abs=0)
    # the loaded model predicts as the fitted one
    X_new = ball(40, 3, 9)
    np.testing.assert_array_equal(loaded.decision_function(X_new), release.decision_function(X_new))


@pytest.mark.parametrize("factor", [1 - 1e-8, 1 + 1e-8])
def test_an_edited_operator_norm_is_still_refused(saved, tmp_path, factor):
    _, path = saved
    data = json.loads(path.read_text())
    data["certificate"]["calibration"]["test_operator_norm"] *= factor
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    with pytest.raises(InputError, match="test_operator_norm"):
        dpcvx.load(edited)


GRAMS = {  # kernel, input width, whether the certified bound is tight (a separated top eigenvalue)
    "rbf": (RBFKernel(1.0), 5, True),
    "rbf narrow": (RBFKernel(8.0), 5, False),  # a flat spectrum: the fit's eigendecomposition
    "laplacian": (LaplacianKernel(1.0), 3, True),
    "linear": (LinearKernel(input_bound=1.0), 4, True),  # four close eigenvalues, deflated together
    "cubic": (PolynomialKernel(degree=3, offset=1.0, input_bound=1.0), 3, True),
}


@pytest.mark.parametrize("name", list(GRAMS))
def test_the_bound_is_the_fits_upper_bound_or_the_fits_own(name, monkeypatch):
    kernel, width, tight = GRAMS[name]
    Z = ball(LANCZOS_FROM + 40, width, 3)
    gram = kernel.gram(Z, Z)
    fits = top_eigenvalue_bound(gram_spectrum(gram)[0])
    exact = float(np.linalg.eigvalsh((gram + gram.T) / 2).max())
    spy = Spy(monkeypatch)
    bound = gram_top_eigenvalue_bound(gram)
    assert bound >= exact  # an upper bound, as the proof uses
    assert bound == pytest.approx(fits, rel=1e-10, abs=0)
    certified = certified_top_eigenvalue((gram + gram.T) / 2)
    assert (certified is not None) is tight
    assert spy.calls == (0 if tight else 1)  # eigh only where the certified bound is not tight
    if not tight:
        assert bound == fits


def test_a_flat_spectrum_falls_back_to_the_fits_eigendecomposition(monkeypatch):
    """K = I: every unit vector is a top eigenvector and C = the rest is as large as the top; no certified bound
    is tight, and the fit's own value is computed."""
    gram = np.eye(LANCZOS_FROM + 10)
    assert certified_top_eigenvalue(gram) is None
    spy = Spy(monkeypatch)
    assert gram_top_eigenvalue_bound(gram) == top_eigenvalue_bound(gram_spectrum(gram)[0])
    assert spy.calls == 2


def test_the_certified_bound_is_rigorous_when_the_eigenvector_is_poor():
    """The bound holds for any vector (Lanczos' only makes it tight): here the top eigenvalue is nearly double, so
    a vector near the second one still certifies nothing false."""
    rng = np.random.default_rng(4)
    T = LANCZOS_FROM + 20
    basis, _ = np.linalg.qr(rng.standard_normal((T, T)))
    eigenvalues = np.concatenate([[100.0, 100.0 * (1 - 1e-9)], rng.uniform(0, 1, T - 2)])
    gram = (basis * eigenvalues) @ basis.T
    gram = (gram + gram.T) / 2
    bound = certified_top_eigenvalue(gram)
    exact = float(np.linalg.eigvalsh(gram).max())
    assert bound is None or bound >= exact


def test_the_deflated_bound_holds_for_any_vectors():
    """deflated_bound's upper bound is rigorous whatever the vectors: random ones (far from any eigenvector) give a
    loose bound, never one below lambda_max."""
    rng = np.random.default_rng(6)
    gram = PolynomialKernel(degree=3, offset=1.0, input_bound=1.0).gram(ball(300, 3, 7), ball(300, 3, 7))
    exact = float(np.linalg.eigvalsh(gram).max())
    for count in (1, 3, 8):
        vectors, _ = np.linalg.qr(rng.standard_normal((300, count)))
        bound = deflated_bound(gram, vectors)
        assert bound is None or bound[1] >= exact


def test_small_public_samples_load_as_the_fit_computed():
    gram = RBFKernel(1.0).gram(ball(40, 3, 5), ball(40, 3, 5))
    assert gram_top_eigenvalue_bound(gram) == top_eigenvalue_bound(gram_spectrum(gram)[0])


@pytest.mark.parametrize("kernel, width, span, float_safe",
                         [("linear", 2, "training", False), ("rbf", 3, "public", False), ("rbf", 3, "training", True)])
def test_a_loaded_file_saves_back_to_the_same_bytes(kernel, width, span, float_safe, tmp_path):
    """Fit, save, load, save: the same bytes, and the loaded certificate is the fitted one, from ``LANCZOS_FROM``
    public points on (the fit bounds lambda_max(K_Z) with the load's function, not with its own eigendecomposition,
    which differed from the load's certified bound in the last digits)."""
    X = ball(60, width, 10)
    Z = ball(LANCZOS_FROM + 8, width, 11)
    params = {"input_bound": 1.0} if kernel == "linear" else {"gamma": 1.0}
    with warnings.catch_warnings():
        # T = 520 public points: noise dominance is not what is tested
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        release = TDDL(kernel, lam=1e-2, loss="logistic", span=span, float_safe=float_safe, **params).fit(
            X, labels(X, 12), 1.0, 1e-6, Z=Z, random_state=0)
    first = dpcvx.save(release, tmp_path / "first.json")
    loaded = dpcvx.load(first)
    second = dpcvx.save(loaded, tmp_path / "second.json")
    assert loaded.certificate.calibration == release.certificate.calibration
    assert loaded.certificate.to_dict() == release.certificate.to_dict()
    assert str(loaded.certificate) == str(release.certificate)
    assert second.read_bytes() == first.read_bytes()
