"""One-vs-rest releases with ``PrivateMulticlassERM(PrivateERM(..., float_safe=True), classes)``.

Each class's release is a float-safe linear release (tests/privacy/test_float_safe_linear.py proves
each kind). What is new here: with (epsilon, delta) output perturbation the per-class noise is a
discrete Gaussian, which is not a Gaussian mechanism, so the float version's Gaussian composition
(Dong, Roth and Su) has no proof for it; the classes compose in zCDP (k rho_c <= rho). The support
attack in the manner of Mironov is run on one class's coordinates with the per-class noise: the raw
double Gaussian of the float split falls to it, the discrete Gaussian release does not. The
multiclass certificate names the guarantee; the loader refuses a class whose guarantee was edited.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from support_attack import GAUSSIAN_BRANCHES, inverse_gaussian, on_lattice, raw_attack

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.privacy.calibrate_gaussian import gaussian_output_perturbation
from dpcvx.privacy.composition import one_vs_rest_budget
from dpcvx.privacy.exact_sampling import GeneratorSource
from dpcvx.privacy.lattice_output import LatticeGaussianOutput, lattice_point, zcdp_rho

K, N, D, LAM, EPS, DELTA = 3, 300, 2, 0.1, 1.0, 1e-6
CLASSES = (0, 1, 2)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(6)
    X = rng.uniform(-1, 1, (N, D)) / np.sqrt(2)
    return X, np.digitize(X[:, 0], [-0.2, 0.2])


@pytest.fixture(scope="module")
def gaussian_release(data):
    X, y = data
    learner = PrivateMulticlassERM(dpcvx.PrivateERM(lam=LAM, data_norm=1.0, float_safe=True), CLASSES)
    return learner.fit(X, y, EPS, "output", delta=DELTA, random_state=2)


@pytest.mark.parametrize(("k", "eps", "delta"), [(3, 1.0, 1e-6), (10, 0.1, 1e-8)])
def test_discrete_gaussian_classes_compose_in_zcdp_with_the_largest_class_epsilon(k, eps, delta):
    eps_c, delta_c, composition = one_vs_rest_budget(k, eps, delta, "output", float_safe=True)
    assert delta_c == delta and "zCDP" in composition
    assert k * zcdp_rho(eps_c, delta_c) <= zcdp_rho(eps, delta)
    # the check has power: a class epsilon 1e-6 larger breaks it (the split is the largest that holds)
    assert k * zcdp_rho(eps_c * (1 + 1e-6), delta_c) > zcdp_rho(eps, delta)


@pytest.mark.slow  # about 2.3 s: an attack by sampling
def test_one_class_coordinates_resist_the_support_attack_that_breaks_the_raw_split():
    eps_c, delta_c, _ = one_vs_rest_budget(K, EPS, DELTA, "output", float_safe=True)
    base = gaussian_output_perturbation(N, LAM, eps_c, delta_c, L=1, R=1, m=1, tol=1e-10, dim=D)
    secret = np.array([0.3, -0.7])
    other = secret + base.sensitivity / np.sqrt(D) * np.ones(D)  # neighbours' minimisers at the sensitivity
    raw = lambda k: inverse_gaussian(k, base.sigma)  # noqa: E731 - the raw double sampler of the float split
    assert raw_attack(secret, other, raw, GAUSSIAN_BRANCHES) >= 60
    calibration = LatticeGaussianOutput(base)
    source = GeneratorSource(np.random.default_rng(4))
    released = [calibration.release(secret, calibration.draw_release_noise(secret.size, source))[0] for _ in range(200)]
    assert all(on_lattice(value, calibration.spacing) for vector in released for value in vector)
    shift = np.subtract(lattice_point(secret, calibration.spacing), lattice_point(other, calibration.spacing))
    assert int(shift @ shift) <= calibration.steps and calibration.steps / (2 * calibration.sigma2) <= calibration.rho


def test_the_multiclass_certificate_names_the_guarantee_and_every_class_is_on_its_lattice(gaussian_release):
    certificate = gaussian_release.certificate
    assert certificate.float_guarantee.value == "exact"
    assert "floating point: exact" in str(certificate) and "zCDP" in certificate.composition
    for row, one in zip(gaussian_release.coef_, certificate.per_class, strict=True):
        assert one.calibration.to_dict()["noise"] == "discrete-gaussian"
        assert all(on_lattice(value, one.calibration.to_dict()["lattice"]) for value in row)


def test_the_loader_refuses_an_edited_class_guarantee_or_composition(gaussian_release, tmp_path):
    path = dpcvx.save(gaussian_release, tmp_path / "release.json")
    data = json.loads(path.read_text())
    assert dpcvx.load(path).certificate.float_guarantee.value == "exact"
    for edit, message in ((lambda d: d["per_class"][1]["certificate"]["calibration"].update(
                               float_guarantee="mitigation-only"), "float_guarantee"),
                          (lambda d: d.update(composition=one_vs_rest_budget(K, EPS, DELTA, "output")[2]),
                           "composition|budget split")):
        edited = json.loads(json.dumps(data))
        edit(edited)
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(InputError, match=message):
            dpcvx.load(tmp_path / "edited.json")


def test_pure_epsilon_float_safe_classes_keep_basic_composition(data):
    X, y = data
    learner = PrivateMulticlassERM(dpcvx.PrivateERM(lam=LAM, data_norm=1.0, float_safe=True), CLASSES)
    model = learner.fit(X, y, EPS, "objective", random_state=3)
    assert model.certificate.float_guarantee.value == "dithered-lattice"
    assert model.certificate.class_epsilon == pytest.approx(EPS / K)
