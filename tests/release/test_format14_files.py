"""Files of format version 14 load as they were written: a regression file of noisy gradient descent (mechanism
gradient-ranged, n epsilon / d = 1,000) written by dpcvx at commit 0463eed2 (the last to write version 14) through
``dpcvx.save``, with the certificate text, decision values and predictions that dpcvx computed
(``fixtures/format14/expected.json``). Version 15 lets the calibration record the steps' heavy-ball momentum
(``momentum``); version 14 took plain steps, so the step from version 14 changes the version only
(records.upgrade). A version 14 file whose calibration holds a momentum was not written by dpcvx, and is refused."""

import json
from pathlib import Path

import pytest

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.privacy.gradient_descent import MOMENTUM, descent_momentum
from dpcvx.release.records.header import file_digest

FORMAT14 = Path(__file__).parent / "fixtures" / "format14"
EXPECTED = json.loads((FORMAT14 / "expected.json").read_text())


def test_the_fixture_is_a_version_14_descent_at_an_n_that_now_takes_the_momentum():
    data = json.loads((FORMAT14 / "descent.json").read_text())
    assert data["format_version"] == 14 and data["kind"] == "regression" and data["sha256"] == file_digest(data)
    calibration = data["certificate"]["calibration"]
    assert data["certificate"]["mechanism"] == "gradient-ranged" and "momentum" not in calibration
    n, d = data["certificate"]["column_statistics"]["n"], len(data["privatised"]["coef"])
    assert descent_momentum(n, data["epsilon"], d) == MOMENTUM  # a fit of this dpcvx there takes it


def test_a_version_14_descent_loads_predicts_as_written_and_states_plain_steps(loads_as_written, tmp_path):
    loads_as_written(FORMAT14, EXPECTED, "descent")
    loaded = dpcvx.load(FORMAT14 / "descent.json")
    assert loaded.certificate.calibration.momentum == 0.0
    assert "momentum" not in loaded.certificate.calibration.describe()
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert "momentum" not in rewritten["certificate"]["calibration"]


def test_a_version_14_file_that_records_a_momentum_is_refused(tmp_path):
    data = json.loads((FORMAT14 / "descent.json").read_text())
    data["certificate"]["calibration"]["momentum"] = MOMENTUM
    data["sha256"] = file_digest(data)  # as an editor would make it again
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="holds momentum in a file of format version 14"):
        dpcvx.load(tmp_path / "edited.json")
