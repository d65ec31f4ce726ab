"""Files of format version 12 load as they were written: one of each kind whose curve names a private draw other than a
quantile (a class count, column ranges on a Huber SVM, column sums with a private class prior, DPHuberRegressor's
label range), written by dpcvx at commit 97e3199 (the last to write version 12) through ``dpcvx.save``, with the
certificate text, decision values and predictions that dpcvx computed (``fixtures/format12/expected.json``). Version
12 named every such part "private bound (exponential-mechanism quantile)"; version 13 names each by what it drew, and
the step from version 12 renames each part of a file as dpcvx wrote it by its certificate's record of the draw
(records.upgrade: the step from version 12). A part named otherwise is refused."""

import json
from pathlib import Path

import pytest

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.records.header import file_digest

FORMAT12 = Path(__file__).parent / "fixtures" / "format12"
EXPECTED = json.loads((FORMAT12 / "expected.json").read_text())
# the names dpcvx.privacy.privacy_curve.DrawnPart states, written out; version 12 wrote QUANTILE for each draw
FIT, QUANTILE = "the fit at the drawn bounds", "private bound (exponential-mechanism quantile)"
COUNT, RANGES = "private class count (discrete Laplace)", "private column ranges (discrete Laplace histograms)"
SUMS = "private column sums and sums of squares (discrete Laplace)"
LABEL = "private label range (discrete Laplace histogram)"
NAMES = {"class_count": [COUNT, FIT], "column_ranges": [RANGES, FIT], "column_sums": [COUNT, SUMS, FIT],
         "label_range": [RANGES, LABEL, FIT]}


def test_the_fixtures_are_version_12_files_that_named_every_draw_a_quantile():
    files = {name: json.loads((FORMAT12 / f"{name}.json").read_text()) for name in NAMES}
    assert sorted(path.stem for path in FORMAT12.glob("*.json") if path.stem != "expected") == sorted(NAMES)
    assert {data["format_version"] for data in files.values()} == {12}
    assert all(data["sha256"] == file_digest(data) for data in files.values())
    for name, data in files.items():
        assert [part["what"] for part in data["certificate"]["privacy_curve"]["parts"]] == \
            [QUANTILE] * (len(NAMES[name]) - 1) + [FIT]


@pytest.mark.parametrize("name", NAMES)
def test_a_version_12_file_loads_predicts_as_written_and_names_its_draws(name, loads_as_written, tmp_path):
    loads_as_written(FORMAT12, EXPECTED, name)
    loaded = dpcvx.load(FORMAT12 / f"{name}.json")
    assert [part.what for part in loaded.certificate.privacy_curve.parts] == NAMES[name]
    assert all(what in loaded.report().to_markdown() for what in NAMES[name])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert [part["what"] for part in rewritten["certificate"]["privacy_curve"]["parts"]] == NAMES[name]


@pytest.mark.parametrize("edit", ["a free lunch", SUMS])
def test_a_version_12_file_whose_draw_was_named_otherwise_is_refused(edit, tmp_path):
    """Only the quantile's name, the one version 12 wrote, is renamed: a part edited to another name (its digest made
    again, as an editor would) is kept, and refused."""
    data = json.loads((FORMAT12 / "class_count.json").read_text())
    data["certificate"]["privacy_curve"]["parts"][0]["what"] = edit
    data["sha256"] = file_digest(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="certificate.privacy_curve is not the curve of the recorded calibration"):
        dpcvx.load(tmp_path / "edited.json")


def test_an_edited_version_12_file_is_refused_though_its_step_made_a_new_digest(tmp_path):
    """The step makes the digest again only of a file that is as dpcvx wrote it: an edit is not laundered."""
    data = json.loads((FORMAT12 / "column_ranges.json").read_text())
    data["decision_cut"] = 0.5  # a field no other check compares: the digest refuses it
    (tmp_path / "cut.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="sha256 records .*: the file was changed after dpcvx wrote it"):
        dpcvx.load(tmp_path / "cut.json")
