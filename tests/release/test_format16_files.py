"""Files of format version 16 load as they were written: logistic Gaussian objective perturbations (replace-one, and
add/remove at n_public = 600) written by dpcvx at commit 6cd0583d (the last to write version 16) through
``dpcvx.save``, with the certificate text, decision values and predictions that dpcvx computed
(``fixtures/format16/expected.json``). That dpcvx calibrated every loss by the general profile of docs/theory.md,
section 12.3; version 17 states the one-sign profile (``"loss_slope": "one-signed"``) where the certificate proves l'
of one sign, which a fit of the logistic loss now does. A version 16 file holds neither the statement nor the
condition, so it loads with the general profile and its sigma as written, and saved again it stays so."""

import json
from pathlib import Path

import numpy as np
import pytest
from former_texts import former_text

import dpcvx
from dpcvx import losses
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

FORMAT16 = Path(__file__).parent / "fixtures" / "format16"
EXPECTED = json.loads((FORMAT16 / "expected.json").read_text())
GENERAL = " by the general profile of section 12.3 (valid whatever the sign of l')"


@pytest.mark.parametrize("name", ["objective", "add_remove"])
def test_a_version_16_gaussian_objective_file_loads_with_the_general_profile(name, as_written, as_recorded,
                                                                             unversioned, tmp_path):
    source = FORMAT16 / f"{name}.json"
    data = json.loads(source.read_text())
    assert data["format_version"] == 16 and data["sha256"] == file_digest(data)
    recorded = data["certificate"]["calibration"]
    assert (recorded["mechanism"], recorded["noise"]) == ("objective", "gaussian") and "loss_slope" not in recorded
    assert "slope_sign" not in {c["name"] for c in data["certificate"]["verification"]["conditions"]}
    loaded = dpcvx.load(source)
    calibration = loaded.certificate.calibration
    assert not calibration.one_signed_slope and calibration.sigma == recorded["sigma"]
    # the text as written, with the profile now named
    text = EXPECTED[name]["certificate"].replace(" (sum form), Delta", f" (sum form){GENERAL}, Delta")
    assert former_text(loaded.certificate) == text != EXPECTED[name]["certificate"]
    rows = np.array(EXPECTED["rows"])
    as_written(np.asarray(loaded.decision_function(rows)), EXPECTED[name]["decision"])
    as_written(loaded.predict(rows), EXPECTED[name]["predict"])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION and rewritten["sha256"] == file_digest(rewritten)
    as_recorded(unversioned(rewritten), unversioned(data))  # nothing else differs: still the general profile
    assert dpcvx.load(tmp_path / "again.json").certificate.calibration.sigma == recorded["sigma"]


@pytest.mark.usefixtures("gaussian_objective")  # the Gaussian machinery on a small fixture
def test_a_fit_of_the_same_loss_now_takes_the_one_sign_profile():
    """The fixture's loss and inputs fitted by this dpcvx: the one-sign profile, a smaller sigma."""
    data = json.loads((FORMAT16 / "objective.json").read_text())
    rng = np.random.default_rng(16)
    X = rng.uniform(-0.5, 0.5, (600, 2))
    y = np.where(X[:, 0] - X[:, 1] + rng.normal(0, 0.2, 600) > 0, 1.0, -1.0)
    model = dpcvx.PrivateERM(losses.logistic(), lam=1e-2, data_norm=1.0).fit(X, y, 1.0, "objective", delta=1e-6,
                                                                           random_state=0)
    calibration = model.certificate.calibration
    assert calibration.one_signed_slope and calibration.to_dict()["loss_slope"] == "one-signed"
    assert calibration.sigma < data["certificate"]["calibration"]["sigma"]


def test_a_version_16_file_edited_to_state_the_one_sign_profile_is_refused(tmp_path):
    data = json.loads((FORMAT16 / "objective.json").read_text())
    data["certificate"]["calibration"]["loss_slope"] = "one-signed"
    data["sha256"] = file_digest(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(dpcvx.exceptions.FileError, match="does not prove that l' has one sign"):
        dpcvx.load(tmp_path / "edited.json")
