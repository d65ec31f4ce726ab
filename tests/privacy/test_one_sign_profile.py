"""PrivateERM's Gaussian objective perturbation uses the one-sign profile of docs/theory.md section 12.3 exactly when
the verified certificate proves that l' has one sign (condition slope_sign), and the general profile otherwise.

An auditor found every fit calibrated by the general (folded) profile: for the logistic loss at n = 2000,
Lam = 1e-3, epsilon = 0.5, delta = 1e-6, sigma 21.498 (replace-one) and 10.749 (add/remove) where the proof needs
20.7275 and 10.3637. The fact flows on the verified problem into the calibration, its record (``loss_slope``), the
certificate text and the model file, whose reader recomputes sigma with the profile the record states and refuses a
statement the verified conditions do not back."""

from __future__ import annotations

import json

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError
from dpcvx.privacy.calibrate_gaussian import gaussian_objective_perturbation
from dpcvx.privacy.objective_gaussian import objective_gaussian_sigma
from dpcvx.release.records.header import file_digest

AUDIT = {"replace-one": 20.7275, "add-remove": 10.3637}  # the auditor's one-sign sigmas (n = 2000, Lam = 1e-3)
GENERAL = {"replace-one": 21.498, "add-remove": 10.749}  # and the general profile's, which the fit used


def _fit(loss, neighbours="replace-one", n=2000, **options):
    X, y = synthetic_classification(n=n, d=5, random_state=0)
    extra = {"n_public": n} if neighbours == "add-remove" else {}
    return dpcvx.PrivateERM(loss, lam=1e-3, data_norm=1.0, **options).fit(
        X, y, epsilon=0.5, mechanism="objective", delta=1e-6, neighbours=neighbours, random_state=0, **extra)


@pytest.mark.usefixtures("gaussian_objective")  # the Gaussian machinery on a small fixture
@pytest.mark.parametrize("neighbours", ["replace-one", "add-remove"])
def test_the_logistic_loss_is_calibrated_by_the_one_sign_profile(neighbours):
    model = _fit(losses.logistic(), neighbours)
    calibration = model.certificate.calibration
    assert model.certificate.verification.one_signed_slope
    assert calibration.one_signed_slope and calibration.objective.monotone_loss
    assert calibration.objective.analysis == "rdp-objective-perturbation" and calibration.extra_reg == 0.0
    assert calibration.sigma == pytest.approx(AUDIT[neighbours], rel=1e-4)
    # the calibration's own function at the objective's share, with the one-sign profile; the general one is larger
    shares = dict(epsilon=calibration.objective.epsilon, delta=calibration.objective.delta, n=2000, lipschitz=1.0,
                  smoothness=0.25, norm_bound=1.0, lam_m=1e-3, neighbours=neighbours)
    # (the fit's search bisects to the last double: the same sigma to 1e-11)
    assert calibration.sigma == pytest.approx(objective_gaussian_sigma(**shares, monotone_loss=True), rel=1e-11)
    general = objective_gaussian_sigma(**shares, monotone_loss=False)
    assert general == pytest.approx(GENERAL[neighbours], rel=1e-4) and general > 1.03 * calibration.sigma
    # the record and the certificate text say which profile, and that l' <= 0 was proved, and how
    assert calibration.to_dict()["loss_slope"] == "one-signed"
    text = str(model.certificate)
    assert "by the one-sign profile of section 12.3" in text
    assert any(line.split()[:4] == ["slope_sign", "l'", "<=", "0"] and "symbolic" in line
               for line in text.splitlines())


@pytest.mark.parametrize("loss", [
    lambda z: cp.logistic(z) + cp.logistic(-z) - 0.5 * z,  # smooth, convex, l' = tanh(z/2) - 1/2: both signs
    lambda z: cp.huber(z - 1, 1) / 2,  # a Huber loss of the margin: C^1 only, refused below; checked by the verifier
])
def test_a_loss_whose_slope_changes_sign_keeps_the_general_profile(loss):
    certificate = dpcvx.verify(loss)
    assert certificate.condition("slope_sign").passed is False and not certificate.one_signed_slope
    if not certificate.allows("objective", 1e-6):
        return
    model = _fit(loss)
    calibration = model.certificate.calibration
    assert not calibration.one_signed_slope and "loss_slope" not in calibration.to_dict()
    shares = dict(epsilon=calibration.objective.epsilon, delta=calibration.objective.delta, n=2000,
                  lipschitz=model.certificate.constants.L, smoothness=model.certificate.constants.c,
                  norm_bound=1.0, lam_m=1e-3, ridge=calibration.extra_reg)
    assert calibration.sigma == pytest.approx(objective_gaussian_sigma(**shares, monotone_loss=False), rel=1e-11)
    assert "by the general profile of section 12.3" in str(model.certificate)


@pytest.mark.usefixtures("gaussian_objective")  # the Gaussian machinery on a small fixture
def test_an_unproved_sign_keeps_the_general_profile(monkeypatch):
    """Nothing proved the sign (sympy and the validated bounds cut short): the general profile, even for a loss
    whose l' has one sign; an estimate never counts."""
    from dpcvx.verification import certificate as certificate_module

    monkeypatch.setattr(certificate_module.Certificate, "one_signed_slope", property(lambda self: False))
    calibration = _fit(losses.logistic()).certificate.calibration
    assert not calibration.one_signed_slope and "loss_slope" not in calibration.to_dict()
    assert calibration.sigma == pytest.approx(GENERAL["replace-one"], rel=1e-4)


@pytest.mark.usefixtures("gaussian_objective")  # the Gaussian machinery on a small fixture
def test_a_regression_keeps_the_general_profile():
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (500, 3))
    y = X @ np.array([1.0, -0.5, 0.2]) + rng.normal(0, 0.1, 500)
    model = dpcvx.PrivateERM(lambda r: cp.logistic(-r), lam=1e-2, data_norm=1.0, label_bound=2.0,
                             task="regression").fit(
        X, y, 1.0, "objective", delta=1e-6, random_state=0)
    assert not model.certificate.verification.one_signed_slope
    assert not model.certificate.calibration.one_signed_slope


def test_the_calibration_takes_the_flag_from_the_verified_problem():
    one = gaussian_objective_perturbation(2000, 1e-3, 0.5, 1e-6, 0.25, L=1.0, R=1.0, m=1.0, tol=1e-10, dim=5,
                                          one_signed_slope=True)
    general = gaussian_objective_perturbation(2000, 1e-3, 0.5, 1e-6, 0.25, L=1.0, R=1.0, m=1.0, tol=1e-10, dim=5)
    assert one.sigma == pytest.approx(AUDIT["replace-one"], rel=1e-4) and one.sigma < general.sigma
    assert general.sigma == pytest.approx(GENERAL["replace-one"], rel=1e-4)
    with pytest.raises(dpcvx.exceptions.InputError, match="one_signed_slope"):
        gaussian_objective_perturbation(2000, 1e-3, 0.5, 1e-6, 0.25, L=1.0, R=1.0, m=1.0, tol=1e-10, dim=5,
                                        one_signed_slope="yes")


# --- the model file -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("one-sign") / "logistic.json"
    model = _fit(losses.logistic(), n=600)
    dpcvx.save(model, path)
    return model, json.loads(path.read_text())


def _write(tmp_path, data, reseal=True):
    if reseal:
        data["sha256"] = file_digest(data)  # as an editor would make it again: the checks refuse it, not the digest
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


def test_a_one_sign_file_round_trips(saved, tmp_path):
    model, data = saved
    assert data["certificate"]["calibration"]["loss_slope"] == "one-signed"
    loaded = dpcvx.load(_write(tmp_path, json.loads(json.dumps(data)), reseal=False))
    assert loaded.certificate.calibration.one_signed_slope
    assert loaded.certificate.calibration.sigma == model.certificate.calibration.sigma
    assert str(loaded.certificate) == str(model.certificate)
    np.testing.assert_array_equal(loaded.coef_, model.coef_)


def test_a_file_whose_statement_was_removed_is_refused(saved, tmp_path):
    data = json.loads(json.dumps(saved[1]))
    del data["certificate"]["calibration"]["loss_slope"]
    with pytest.raises(FileError, match="does not state loss_slope"):
        dpcvx.load(_write(tmp_path, data))


def test_a_file_whose_sigma_follows_an_edited_statement_is_refused(saved, tmp_path):
    """The statement removed and sigma moved to the general profile's: the verified condition still proves the sign,
    and a fit would have used it."""
    data = json.loads(json.dumps(saved[1]))
    calibration = data["certificate"]["calibration"]
    del calibration["loss_slope"]
    with pytest.raises(FileError, match="does not state loss_slope"):
        dpcvx.load(_write(tmp_path, data))


@pytest.mark.parametrize("value", ["general", "one signed", 1])
def test_a_statement_of_another_value_is_refused(saved, tmp_path, value):
    data = json.loads(json.dumps(saved[1]))
    data["certificate"]["calibration"]["loss_slope"] = value
    with pytest.raises(FileError, match="loss_slope"):
        dpcvx.load(_write(tmp_path, data))


def test_a_statement_the_conditions_do_not_prove_is_refused(saved, tmp_path):
    """The one-sign statement kept, the slope_sign condition removed or made unproved: the loader refuses it before it
    recomputes sigma with the profile stated."""
    for edit in ("remove", "unproved", "estimate"):
        data = json.loads(json.dumps(saved[1]))
        conditions = data["certificate"]["verification"]["conditions"]
        index = next(i for i, c in enumerate(conditions) if c["name"] == "slope_sign")
        if edit == "remove":
            del conditions[index]
        elif edit == "unproved":
            conditions[index].update(passed=None, value=None, method="none")
        else:
            conditions[index]["method"] = "estimate"
        with pytest.raises(FileError, match="does not prove that l' has one sign"):
            dpcvx.load(_write(tmp_path, data))


def test_a_statement_added_to_a_general_file_is_refused(tmp_path):
    """A file of a loss whose slope changes sign, edited to state the one-sign profile (its sigma kept, or not)."""
    loss = lambda z: cp.logistic(z) + cp.logistic(-z) - 0.5 * z  # noqa: E731
    model = _fit(loss, n=600)
    dpcvx.save(model, tmp_path / "general.json")
    data = json.loads((tmp_path / "general.json").read_text())
    data["certificate"]["calibration"]["loss_slope"] = "one-signed"
    with pytest.raises(FileError, match="does not prove that l' has one sign"):
        dpcvx.load(_write(tmp_path, data))
