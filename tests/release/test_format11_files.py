"""Files of format version 11 load as they were written: the format 10 fixtures (one of every kind) loaded and saved
again by dpcvx at commit 4e16cff (the last to write version 11) through ``dpcvx.save``, with the certificate text,
decision values and predictions that dpcvx computed (``fixtures/format11/expected.json``). Version 12 lets a
gradient-ranged calibration record the level released after the steps and T = 60; a version 11 dpcvx released no
level and took T = 20, so its step changes the version only, and a version 11 file that records either was not
written by dpcvx and is refused (records.upgrade: the step from version 11). The dpcvx at 4e16cff refuses a version 12
file with its "newer dpcvx: upgrade dpcvx" message (checked by hand: tests do not run another checkout)."""

import json
from pathlib import Path

import numpy as np
import pytest
from test_format9_files import KINDS  # the version 9 files, saved again by version 10, then by version 11

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.privacy.gradient_descent import GRADIENT_RANGED, LONG_STEPS, STEPS
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

FORMAT11 = Path(__file__).parent / "fixtures" / "format11"
EXPECTED = json.loads((FORMAT11 / "expected.json").read_text())


def test_the_fixtures_are_every_kind_of_file_as_version_11_wrote_it():
    files = {name: json.loads((FORMAT11 / f"{name}.json").read_text()) for name in KINDS}
    assert sorted(path.stem for path in FORMAT11.glob("*.json") if path.stem != "expected") == sorted(KINDS)
    assert {data["format_version"] for data in files.values()} == {11}
    assert all(data["sha256"] == file_digest(data) for data in files.values())
    gradient = [name for name, data in files.items() if data.get("certificate", {}).get("mechanism") == GRADIENT_RANGED]
    assert gradient == ["linreg_gradient"]
    calibration = files["linreg_gradient"]["certificate"]["calibration"]
    assert calibration["steps"] == STEPS and not any(key.startswith("level") for key in calibration)


@pytest.mark.parametrize("name", KINDS)
def test_a_version_11_file_loads_and_predicts_as_written(name, loads_as_written):
    loads_as_written(FORMAT11, EXPECTED, name)


def _rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    X = rng.uniform(-0.5, 0.5, (n, 4))
    return X, 40 * X[:, 0] - 20 * X[:, 1] + 30 + rng.normal(0, 5, n)


@pytest.mark.parametrize(("n", "fit_intercept", "level", "steps", "cause"), [
    (2000, True, True, STEPS, "holds level, level_share, level_sensitivity, level_sigma, level_grid"),
    (8000, True, True, LONG_STEPS, "holds level, level_share, level_sensitivity, level_sigma, level_grid"),
    (8000, False, False, LONG_STEPS, f"records steps {LONG_STEPS}")])
def test_a_release_with_the_level_or_60_steps_is_version_12_and_not_version_11(n, fit_intercept, level, steps, cause,
                                                                                tmp_path):
    """A files audit: today's gradient-ranged release with the level and T = 60 was written as version 11, and the
    dpcvx that wrote version 11 refused it as edited ("steps must be ... T = 20, got 60"), not as newer. Written as
    version 12 it loads; relabelled version 11 (its digest made again) it is refused, naming what version 11 lacked."""
    X, y = _rows(n)
    model = dpcvx.DPLinearRegression(mechanism="gradient", label_bound=100.0, fit_intercept=fit_intercept,
                                     random_state=0).fit(X, y).model_
    path = dpcvx.save(model, tmp_path / "model.json")
    data = json.loads(path.read_text())
    calibration = data["certificate"]["calibration"]
    assert data["format_version"] == MODEL_FORMAT_VERSION == 20
    assert calibration["steps"] == steps and calibration.get("level", False) is level
    loaded = dpcvx.load(path)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert str(loaded.certificate) == str(model.certificate)
    relabelled = {**data, "format_version": 11}
    relabelled["sha256"] = file_digest(relabelled)
    (tmp_path / "relabelled.json").write_text(json.dumps(relabelled))
    with pytest.raises(FileError, match=f"certificate.calibration {cause} in a file of format version 11, which no "
                                        "version 11 dpcvx wrote .*the file has been edited"):
        dpcvx.load(tmp_path / "relabelled.json")


def test_an_edited_version_11_file_is_refused_though_its_step_made_a_new_digest(tmp_path):
    """The step makes the digest again only of a file that is as dpcvx wrote it: an edit is not laundered."""
    data = json.loads((FORMAT11 / "linear.json").read_text())
    data["feature_names"] = [f"x{i}" for i in range(8)]  # a field no other check compares: the digest refuses it
    (tmp_path / "named.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="sha256 records .*: the file was changed after dpcvx wrote it"):
        dpcvx.load(tmp_path / "named.json")
