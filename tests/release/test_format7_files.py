"""Files of format version 7 load as they were written: one of every kind, written by dpcvx at commit bbb8cc8 (the
last to write version 7) from the rows of test_tampered_files, with the certificate text, decision values and
predictions that dpcvx computed (``fixtures/format7/expected.json``). Saved again, a file is of the current version;
a TDIL net's then records its input dimension, the one its predictor holds (records.upgrade: the step from version
7)."""

import json
from pathlib import Path

import numpy as np
import pytest
from former_texts import former_text

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.serialization import MODEL_FORMAT_VERSION

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

FORMAT7 = Path(__file__).parent / "fixtures" / "format7"
EXPECTED = json.loads((FORMAT7 / "expected.json").read_text())
KINDS = ["linreg", "huber", "linear", "multi", "rff", "tddl", "pinp", "tdil", "tdil_ball", "tddl_safe", "tdil_safe",
         "tdil_net_safe"]


def test_the_fixtures_are_every_kind_of_file():
    assert sorted(path.stem for path in FORMAT7.glob("*.json") if path.stem != "expected") == sorted(KINDS)
    assert {json.loads((FORMAT7 / f"{name}.json").read_text())["kind"] for name in KINDS} == {
        "linear", "kernel", "multiclass", "regression"}


@pytest.mark.parametrize("name", KINDS)
def test_a_version_7_file_loads_and_predicts_as_written(name, tmp_path, as_written):
    source, expected, rows = FORMAT7 / f"{name}.json", EXPECTED[name], np.array(EXPECTED["rows"])
    assert json.loads(source.read_text())["format_version"] == 7
    loaded = dpcvx.load(source)
    assert former_text(loaded.certificate) == expected["certificate"]
    as_written(np.asarray(loaded.decision_function(rows)), expected["decision"])
    as_written(loaded.predict(rows), expected["predict"])
    rewritten = dpcvx.save(loaded, tmp_path / "v10.json")
    assert json.loads(rewritten.read_text())["format_version"] == MODEL_FORMAT_VERSION == 20
    again = dpcvx.load(rewritten)
    assert former_text(again.certificate) == expected["certificate"]
    as_written(again.predict(rows), expected["predict"])


@pytest.mark.parametrize("name", ["tdil", "tdil_net_safe"])
def test_a_version_7_tdil_net_file_saved_again_records_its_dimension(name, tmp_path):
    """The step records the predictor's n_features; the file saved again refuses an edit of it, or its record
    removed."""
    data = json.loads((FORMAT7 / f"{name}.json").read_text())
    assert "n_features" not in data["certificate"] and data["privatised"]["centers"] == []
    rewritten = json.loads(dpcvx.save(dpcvx.load(FORMAT7 / f"{name}.json"), tmp_path / "v10.json").read_text())
    assert rewritten["certificate"]["n_features"] == rewritten["predictor"]["n_features"] == 2
    edits = {"predictor": (lambda data: data["predictor"].update(n_features=5),
                           # the float-safe net's evaluation error reads d first
                           "predictor.n_features is 5 but certificate.n_features records 2|evaluation_error"),
             "record": (lambda data: data["certificate"].pop("n_features"), "certificate.n_features is missing")}
    for edit, match in edits.values():
        edited = json.loads(json.dumps(rewritten))
        edit(edited)
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(FileError, match=match):
            dpcvx.load(tmp_path / "edited.json")
