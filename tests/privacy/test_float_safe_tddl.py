"""TDDL's noisy predictions (``TDDL(..., float_safe=True)``) under the support attack of Mironov (2012).

The secrets are the T predictions Phi_Z^T w~ of TDDL's solver on two neighbouring data sets (row 0
replaced). The raw variant adds numpy's double Laplace (pure epsilon) or a double Gaussian by inversion
((epsilon, delta)), modelled bit for bit (tests/privacy/support_attack.py): many released vectors cannot
occur under the neighbour. The float-safe release puts every prediction on the public lattice with
exact integer noise: every released value is a lattice point, and the exact pmf bounds the ratio
(pure: e^eps for every output; Gaussian: the Renyi bound K_2 / (2 sigma^2) <= rho). The default release
(``float_safe=False``) rounds the raw predictions to the grid 2^-30 of the scale (``perturb_predictions``): the same
attack finds nothing there, and its draws are checked to lie on that grid. The certificate
names the guarantee (exact for the rbf kernel over the training span, mitigation-only for a polynomial
kernel, whose evaluation error dpcvx does not bound) and the loader recomputes it.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from support_attack import GAUSSIAN_BRANCHES, LAPLACE_BRANCHES, inverse_gaussian, numpy_laplace, on_lattice, raw_attack

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.kernel_learner import check_budget
from dpcvx.models.tddl import TDDL, perturb_predictions
from dpcvx.privacy.exact_sampling import GeneratorSource
from dpcvx.privacy.float_guarantee import FloatGuarantee
from dpcvx.privacy.lattice_output import lattice_point
from dpcvx.privacy.lattice_predictions import LatticeTDDL
from dpcvx.privacy.noise import release_grid_spacing

LOSS = "huber_hinge:h=0.5"
N, T = 200, 4


@pytest.fixture(scope="module")
def task():
    """Neighbouring training sets (row 0 replaced) of the circle task, and T public points."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (N + T, 2)) / np.sqrt(2)
    y = np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)
    X, y, Z = X[:N], y[:N], X[N:]
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = X[1], -y[0]
    return (X, y), (X2, y2), Z


def secrets_and_calibration(task, delta):
    """The predictions of TDDL's solver on both neighbours, and the float-safe calibration."""
    (X, y), (X2, y2), Z = task
    learner = TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS, float_safe=True, span="training")
    budget = check_budget(1.0, delta, 0, None)
    secrets = []
    for data, labels in ((X, y), (X2, y2)):
        model, _, _, _, _, calibration = learner._check(data, labels, Z, budget)
        secrets.append(learner.solve_curator_model(model).predict(Z))
    assert np.all(secrets[0] != secrets[1])
    assert np.abs(secrets[0] - secrets[1]).sum() <= calibration.base.l1_sensitivity
    return secrets, calibration


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_raw_double_predictions_fall_to_the_support_attack_and_lattice_predictions_do_not(task, delta):
    (secret, other), calibration = secrets_and_calibration(task, delta)
    base = calibration.base
    if delta == 0:
        raw, branches = (lambda k: numpy_laplace(k, base.scale)), LAPLACE_BRANCHES
    else:
        raw, branches = (lambda k: inverse_gaussian(k, base.scale)), GAUSSIAN_BRANCHES
    assert raw_attack(secret, other, raw, branches, releases=40) >= 12  # delta >= 0.3 (seeded: 38 and 40 of 40)
    # the default (float_safe=False) rounds the same raw predictions to the grid 2^-30 of the scale: nothing found
    grid = release_grid_spacing(base.scale)
    assert raw_attack(secret, other, raw, branches, releases=40, grid=grid) == 0
    drawn = [perturb_predictions(secret, base, np.random.default_rng(seed)) for seed in range(10)]
    assert all(on_lattice(float(value), grid) for vector in drawn for value in vector)  # the grid the attack assumes
    source = GeneratorSource(np.random.default_rng(4))
    released = [calibration.perturb(secret, source) for _ in range(100)]
    assert all(on_lattice(value, calibration.spacing) for vector in released for value in vector)
    steps, neighbour = lattice_point(secret, calibration.spacing), lattice_point(other, calibration.spacing)
    shift = [a - b for a, b in zip(steps, neighbour, strict=True)]
    if delta > 0:
        assert sum(x * x for x in shift) <= calibration.steps
        assert Fraction(calibration.steps) / (2 * Fraction(calibration.sigma2)) <= Fraction(calibration.rho)
        return
    assert sum(abs(x) for x in shift) <= calibration.steps
    for vector in released:
        j = [Fraction(value) / Fraction(calibration.spacing) for value in vector]
        log_ratio = sum(abs(a - b) - abs(a - c) for a, b, c in zip(j, neighbour, steps, strict=True))
        assert abs(log_ratio) / calibration.noise_scale <= Fraction(base.epsilon)


@pytest.mark.parametrize(("kernel", "guarantee"), [({"kernel": "rbf", "gamma": 2.0}, "exact"),
                                                   ({"kernel": "poly", "degree": 2, "input_bound": 1.0},
                                                    "mitigation-only")])
def test_the_certificate_names_the_guarantee_and_the_loader_recomputes_it(task, tmp_path, kernel, guarantee):
    (X, y), _, Z = task
    model = TDDL(lam=0.1, loss=LOSS, float_safe=True, **kernel).fit(X, y, 1.0, Z=Z, random_state=0)
    calibration = model.certificate.calibration
    assert isinstance(calibration, LatticeTDDL) and not calibration.gaussian
    assert calibration.float_guarantee is FloatGuarantee(guarantee)
    assert (calibration.evaluation_error > 0) == (guarantee == "exact")
    assert guarantee.split("-")[0] in str(model.certificate)
    data = json.loads(dpcvx.save(model, tmp_path / "release.json").read_text())
    assert dpcvx.load(tmp_path / "release.json").certificate.calibration == calibration
    edits = [("float_guarantee", "exact" if guarantee != "exact" else "mitigation-only"),
             ("lattice_l1_sensitivity", calibration.steps - 1),
             ("evaluation_error", 0.0 if guarantee == "exact" else 1e-12)]
    for key, value in edits:
        edited = json.loads(json.dumps(data))
        edited["certificate"]["calibration"][key] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(InputError, match=f"calibration.{key}: recorded"):
            dpcvx.load(tmp_path / "edited.json")


def test_the_float_tddl_rounds_to_its_grid_and_names_mitigation_only(task, tmp_path):
    (X, y), _, Z = task
    model = TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS).fit(X, y, 1.0, Z=Z, random_state=0)
    calibration = model.certificate.calibration
    assert not calibration.exact_sampler and calibration.float_guarantee is FloatGuarantee.MITIGATION_ONLY
    record = calibration.to_dict()  # the grid is the record's (the file's) field
    assert "sampler" not in record and record["release_grid"] <= calibration.scale * 2.0**-29
    assert "floating point: mitigation only" in str(model.certificate)
    assert dpcvx.load(dpcvx.save(model, tmp_path / "m.json")).certificate.calibration == calibration
