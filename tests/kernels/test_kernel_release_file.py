"""Kernel releases in the one model file format (version 3, "kind": "kernel"): save, load, refuse edits."""

import json

import numpy as np
import pytest

import dpcvx
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.release.kernel_model import PrivateKernelModel

LOSS = "huber_hinge:h=0.5"


def circle_task(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


@pytest.fixture(scope="module")
def releases():
    X, y = circle_task(200, 1)
    Z, _ = circle_task(25, 2)
    tddl = TDDL("rbf", gamma=2.0, lam=0.1, loss=LOSS).fit(X, y, 1.0, Z=Z, random_state=0)
    tddl_gaussian = TDDL("poly", degree=2, input_bound=1.0, lam=0.1, loss=LOSS).fit(
        X, y, 1.0, 1e-6, Z=Z, random_state=0)
    tdil = TDIL("linear", lam=0.1, input_bound=1.0, loss=LOSS).fit(X, y, 200.0, 1e-6, random_state=3)
    curator = PINP("rbf", gamma=4.0, lam=0.1, max_queries=6, loss=LOSS).fit(X, y, 1e4, 1e-6, random_state=4)
    curator.decision_function(Z[:6])
    return {"TDDL": tddl, "TDDL gaussian": tddl_gaussian, "TDIL": tdil, "PINP": curator.release()}


@pytest.mark.parametrize("name", ["TDDL", "TDDL gaussian", "TDIL", "PINP"])
def test_kernel_release_round_trip(releases, name, tmp_path):
    release = releases[name]
    path = dpcvx.save(release, tmp_path / "release.json")
    data = json.loads(path.read_text())
    assert data["format_version"] == 20 and data["kind"] == "kernel"
    assert data["certificate"]["algorithm"] == name.split()[0]
    loaded = dpcvx.load(path)
    assert isinstance(loaded, PrivateKernelModel) and loaded.kind == "kernel"
    X_new = np.random.default_rng(5).uniform(-0.7, 0.7, (50, 2))
    np.testing.assert_array_equal(loaded.decision_function(X_new), release.decision_function(X_new))
    assert loaded.certificate.to_dict() == json.loads(json.dumps(release.certificate.to_dict()))
    assert str(loaded.certificate) == str(release.certificate)
    assert loaded.outputs == release.outputs
    assert dpcvx.save(loaded, tmp_path / "again.json").read_text() == path.read_text()


def edit(path, value):
    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return change


@pytest.mark.parametrize("change, message", [
    (edit(["certificate", "calibration", "scale"], lambda s: s / 2), "calibration.scale: recorded"),
    (edit(["certificate", "constants", "R_phi", "value"], 0.5), "constants.R_phi: recorded 0.5"),
    (edit(["certificate", "constants", "L", "value"], 0.5), "L.exact is .1., which does not state the constant 0.5"),
    (edit(["certificate", "constants", "n", "value"], 10_000), "constants.exact_sensitivity: recorded"),
    (edit(["certificate", "constants", "gamma", "value"], 1.0), "constants.gamma: recorded 1.0"),
    (edit(["certificate", "calibration", "epsilon"], 10.0), "calibration.epsilon is 10.0"),
    (edit(["epsilon"], 10.0), "epsilon is 10.0 but the certificate records 1.0"),
    (edit(["predictor", "centers"], lambda rows: [[2 * v for v in row] for row in rows]),
     "calibration.test_operator_norm: recorded"),
    (edit(["predictor", "kernel", "gamma"], 9.0), "predictor.kernel differs"),
    (edit(["certificate", "neighbours"], "add-remove"), "neighbours"),
    (edit(["certificate", "calibration", "solve_report"], 3), "calibration.solve_report"),
    (edit(["privatised", "iterations"], 3), "unknown keys \\['iterations'\\]"),
    (edit(["certificate", "algorithm"], "SVM"), "certificate.algorithm must be one of"),
    (edit(["algorithm"], "TDIL"), "algorithm is 'TDIL' but the certificate records 'TDDL'"),
])
def test_edited_kernel_files_are_refused(releases, tmp_path, change, message):
    data = json.loads(dpcvx.save(releases["TDDL"], tmp_path / "release.json").read_text())
    change(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(dpcvx.InputError, match=message):
        dpcvx.load(tmp_path / "edited.json")


def test_edited_round_parameters_are_refused(releases, tmp_path):
    for name, key in (("TDIL", "threshold"), ("PINP", "answer_noise")):
        data = json.loads(dpcvx.save(releases[name], tmp_path / "release.json", overwrite=True).read_text())
        data["certificate"]["calibration"][key] *= 0.5
        (tmp_path / "edited.json").write_text(json.dumps(data))
        with pytest.raises(dpcvx.InputError, match=f"calibration.{key}: recorded"):
            dpcvx.load(tmp_path / "edited.json")


def test_a_pinp_transcript_no_run_could_write_is_refused(releases, tmp_path):
    """A curator answers at most T = max_queries queries, each 0 until its first update: the loader accepted 500
    answers under T = 30, and nonzero answers with no update (an attacker probe, sixty-second session)."""
    data = json.loads(dpcvx.save(releases["PINP"], tmp_path / "release.json").read_text())
    assert len(data["privatised"]["answers"]) == 6
    edits = [lambda d: d["privatised"]["answers"].append(0.0)]  # a seventh answer under T = 6
    if data["privatised"]["updates_used"] == 0:
        edits.append(lambda d: d["privatised"]["answers"].__setitem__(0, 5.0))
    for change in edits:
        edited = json.loads(json.dumps(data))
        change(edited)
        edited.pop("sha256", None)
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(dpcvx.InputError, match="the file has been edited"):
            dpcvx.load(tmp_path / "edited.json")


def test_pinp_release_names_its_floating_point_guarantee_and_the_loader_rechecks_it(releases, tmp_path):
    """PINP (rbf) answers on a lattice with exact noise: "exact"; an edited name or lattice constant is refused."""
    data = json.loads(dpcvx.save(releases["PINP"], tmp_path / "release.json").read_text())
    calibration = data["certificate"]["calibration"]
    assert calibration["float_guarantee"] == "exact" and calibration["evaluation_error"] > 0
    assert "floating point: exact" in str(releases["PINP"].certificate)
    for key, value in (("float_guarantee", "mitigation-only"), ("float_guarantee", "bogus"),
                       ("lattice_sensitivity", calibration["lattice_sensitivity"] - 1),
                       ("evaluation_error", 0.0), ("lattice", calibration["lattice"] * 2)):
        edited = json.loads(json.dumps(data))
        edited["certificate"]["calibration"][key] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(dpcvx.InputError, match=f"calibration.{key}: recorded"):
            dpcvx.load(tmp_path / "edited.json")


def test_a_fitted_pinp_is_saved_through_its_release_not_refitted(tmp_path):
    """dpcvx.save of a fitted PINP names its transcript (curator.release()), as as_opendp_measurement calls PINP an
    interactive curator: the old 'not fitted ... fit it first' sent the user to spend the budget again. It is
    refused also after a release(), whose model_ may predate later queries; nothing is written or charged."""
    X, y = circle_task(60, 3)
    accountant = dpcvx.PrivacyAccountant(1e4, 1e-5)
    curator = PINP("rbf", gamma=4.0, lam=0.1, max_queries=3, loss=LOSS).fit(X, y, 1e4, 1e-6, random_state=4,
                                                                              accountant=accountant)
    spent = accountant.spent
    path = tmp_path / "pinp.json"
    for _ in range(2):
        with pytest.raises(dpcvx.InputError, match=r"PINP is an interactive curator: .* save its transcript so "
                                                    r"far, dpcvx.save\(curator.release\(\), path\)") as refusal:
            dpcvx.save(curator, path)
        assert "not fitted" not in str(refusal.value) and not path.exists() and accountant.spent == spent
        curator.release()
    assert dpcvx.load(dpcvx.save(curator.release(), path)).certificate.epsilon == curator.model_.certificate.epsilon
    with pytest.raises(dpcvx.InputError, match="PINP is not fitted"):
        dpcvx.save(PINP("rbf", gamma=4.0, lam=0.1, max_queries=3), tmp_path / "unfitted.json")
