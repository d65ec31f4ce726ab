"""Model files written by dpcvx at commit 94f329f (format_version 3) keep loading, predicting and certifying
honestly. Future changes to the format must keep every fixture in tests/release/fixtures/v3 loading
(written once by tests/release/fixtures/make_v3.py at that commit).

Honest: a release whose library added raw double noise (AdaSSP, TDDL) is read as "legacy-raw-double", never as
a floating-point guarantee it did not have; every migrated record carries its legacy marker."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.privacy.float_guarantee import FloatGuarantee
from dpcvx.release.multiclass_model import PrivateMulticlassModel
from dpcvx.release.records import migrate

FIXTURES = Path(__file__).parent / "fixtures" / "v3"
PREDICTIONS = json.loads((FIXTURES / "predictions.json").read_text())["models"]
LOADABLE = sorted(name for name in PREDICTIONS if name != "pinp")
RAW_DOUBLE = {"adassp", "tddl"}  # the 94f329f library added their noise in raw doubles and rounded nothing


def calibrations(model):
    """The calibration record(s) of a loaded release (one per class for a multiclass release)."""
    if isinstance(model, PrivateMulticlassModel):
        return [one.calibration for one in model.certificate.per_class]
    return [model.certificate.calibration]


def dishonesty(name, model):
    """What the loaded certificate claims beyond what the 94f329f release did (empty when honest)."""
    problems = []
    expected = FloatGuarantee.LEGACY_RAW_DOUBLE if name in RAW_DOUBLE else FloatGuarantee.MITIGATION_ONLY
    for calibration in calibrations(model):
        if calibration.get("float_guarantee") != expected.value:
            problems.append(f"float_guarantee {calibration.get('float_guarantee')!r}, the release had {expected}")
        if not str(calibration.get("legacy", "")).startswith("legacy file ("):
            problems.append("no legacy marker")
        # TDIL's default rounds release no noisy double (then as now): it has no grid
        if expected is FloatGuarantee.MITIGATION_ONLY and name != "tdil" and calibration.get("release_grid") is None:
            problems.append("mitigation claimed without the grid the release was rounded to")
    if expected.statement not in str(model.certificate):
        problems.append("the printed certificate does not state the floating-point status")
    if "legacy file (" not in str(model.certificate):
        problems.append("the printed certificate has no legacy marker")
    return problems


@pytest.mark.parametrize("name", LOADABLE)
def test_a_v3_file_loads_and_predicts_exactly_as_the_old_model(name):
    path = FIXTURES / f"{name}.json"
    before = path.read_bytes()
    model = dpcvx.load(path)
    expected = PREDICTIONS[name]
    # the 94f329f library evaluated every input as a column-major copy. The last bits of a d-term dot product
    # depend on the BLAS kernel (OpenBLAS picks it by processor: Haswell and SkylakeX kernels sum in another
    # order) and on the memory order, so both layouts are held to the rounding bound of the dot product
    # (|error| <= d u sum |x_j w_j|, d <= 15 terms of at most 2 here: below 1e-14), class labels exactly
    X = np.asfortranarray(expected["input"])
    for layout in (X, np.ascontiguousarray(X)):
        np.testing.assert_allclose(np.asarray(model.decision_function(layout)),
                                   np.array(expected["decision_function"]), rtol=0, atol=1e-14)
        predicted = np.asarray(model.predict(layout))
        if predicted.dtype.kind == "f":  # a regression predicts its decision function
            np.testing.assert_allclose(predicted, np.array(expected["predict"]), rtol=0, atol=1e-14)
        else:
            assert predicted.tolist() == expected["predict"]
    assert path.read_bytes() == before  # loading never changes the user's file


@pytest.mark.parametrize("name", LOADABLE)
def test_a_v3_certificate_states_what_the_old_release_guaranteed(name):
    assert dishonesty(name, dpcvx.load(FIXTURES / f"{name}.json")) == []


def test_a_migration_that_claims_the_new_guarantee_for_raw_double_noise_is_caught(monkeypatch):
    broken = tuple(migrate.Migration(m.record, {**m.fields, "float_guarantee": "mitigation-only"}
                                     if m.record == "AdaSSP" else m.fields, m.why, m.applies)
                   for m in migrate.MIGRATIONS)
    monkeypatch.setattr(migrate, "MIGRATIONS", broken)
    monkeypatch.setattr(migrate, "_BY_NOTE", {m.note: m for m in broken})
    assert any("float_guarantee" in problem for problem in dishonesty("adassp", dpcvx.load(FIXTURES / "adassp.json")))


@pytest.mark.parametrize("name", LOADABLE)
def test_a_loaded_v3_model_saved_again_loads_with_the_same_legacy_certificate(name, tmp_path):
    model = dpcvx.load(FIXTURES / f"{name}.json")
    again = dpcvx.load(dpcvx.save(model, tmp_path / "again.json"))
    assert calibrations(again) == calibrations(model)
    X = np.array(PREDICTIONS[name]["input"])
    np.testing.assert_array_equal(np.asarray(again.decision_function(X)), np.asarray(model.decision_function(X)))


def edited(tmp_path, name, change):
    data = json.loads((FIXTURES / f"{name}.json").read_text())
    change(data)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("name, change, match", [
    ("linear_objective_pure", lambda d: d["certificate"]["calibration"].update(beta=1.0), "beta"),
    ("linear_output_gaussian", lambda d: d["certificate"]["calibration"].update(sigma=0.5), "sigma"),
    ("adassp", lambda d: d["certificate"]["calibration"].update(unit_sigma=0.5), "edited"),
    ("tddl", lambda d: d["certificate"]["calibration"].update(scale=0.5), "scale"),
    ("tdil", lambda d: d["certificate"]["calibration"].update(rounds=3), "edited"),
    # a migrated field given by hand: the record is not an older one, and incomplete
    ("tddl", lambda d: d["certificate"]["calibration"].update(float_guarantee="mitigation-only"), "release_grid"),
    # a legacy marker the loader did not write
    ("linear_output_pure", lambda d: d["certificate"]["calibration"].update(legacy="legacy file (trust me)"),
     "legacy is 'legacy file \\(trust me\\)', which no migration"),
])
def test_an_edited_v3_file_is_still_refused(tmp_path, name, change, match):
    with pytest.raises(FileError, match=match):
        dpcvx.load(edited(tmp_path, name, change))


def test_a_migrated_record_saved_again_cannot_then_claim_a_floating_point_guarantee(tmp_path):
    model = dpcvx.load(FIXTURES / "adassp.json")
    path = dpcvx.save(model, tmp_path / "adassp.json")
    data = json.loads(path.read_text())
    assert data["certificate"]["calibration"]["float_guarantee"] == "legacy-raw-double"
    data["certificate"]["calibration"]["float_guarantee"] = "mitigation-only"
    path.write_text(json.dumps(data))
    with pytest.raises(FileError, match="edited"):
        dpcvx.load(path)


def test_a_v3_pinp_file_is_refused_naming_why_and_what_to_do(tmp_path):
    path = tmp_path / "pinp.json"
    shutil.copy(FIXTURES / "pinp.json", path)
    with pytest.raises(FileError, match=r"PINP.*continuous Laplace.*cannot be recomputed.*Refit PINP") as error:
        dpcvx.load(path)
    assert str(path) in str(error.value)
    assert path.read_bytes() == (FIXTURES / "pinp.json").read_bytes()


def test_format_version_1_is_still_refused(tmp_path):
    path = edited(tmp_path, "linear_objective_pure", lambda d: d.update(format_version=1))
    with pytest.raises(FileError, match="solver statistics"):
        dpcvx.load(path)


def test_a_current_file_that_lacks_a_field_is_refused_not_read_as_legacy(tmp_path):
    """Files written since carry format_version 4: only version 2 and 3 files are migrated, so stripping the
    floating-point fields of a new file (to pass it off as an older, weaker release) is an edit."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(rng.random(200) < 0.5, -1.0, 1.0)
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    path = dpcvx.save(model, tmp_path / "current.json")
    data = json.loads(path.read_text())
    assert data["format_version"] == 4
    del data["certificate"]["calibration"]["float_guarantee"]
    path.write_text(json.dumps(data))
    with pytest.raises(FileError, match="float_guarantee"):
        dpcvx.load(path)
    data["format_version"] = 3  # the same record declared older is read as the older release it then is
    path.write_text(json.dumps(data))
    assert dpcvx.load(path).certificate.calibration["float_guarantee"] == FloatGuarantee.MITIGATION_ONLY.value
