"""Files of format version 10 load as they were written: the format 9 fixtures (one of every kind) loaded and saved
again by dpcvx at commit a75b9bb (the last to write version 10) through ``dpcvx.save``, with the certificate text,
decision values and predictions that dpcvx computed (``fixtures/format10/expected.json``). A version 10 map of
private column statistics read the raw rows, and its step records so (``input_bound`` null): the fixtures' schema
rows lie beyond the learner's R = 1 (norm 1.5), so they are predicted as written only by the raw rows' map, while a
map of this dpcvx's, recorded with the bound R, scales them onto R first (records.upgrade: the step from version
10)."""

import json
from pathlib import Path

import numpy as np
import pytest
from test_format9_files import KINDS  # the version 9 files, saved again by version 10

import dpcvx
from dpcvx.data.rows import RowMap
from dpcvx.exceptions import FileError
from dpcvx.release.records.header import file_digest

FORMAT10 = Path(__file__).parent / "fixtures" / "format10"
EXPECTED = json.loads((FORMAT10 / "expected.json").read_text())
STATISTICS = ["linear_stats", "huber", "linreg_gradient"]  # a row map of private column statistics


def test_the_fixtures_are_every_kind_of_file_as_version_10_wrote_it():
    files = {name: json.loads((FORMAT10 / f"{name}.json").read_text()) for name in KINDS}
    assert sorted(path.stem for path in FORMAT10.glob("*.json") if path.stem != "expected") == sorted(KINDS)
    assert {data["format_version"] for data in files.values()} == {10}
    assert all(data["sha256"] == file_digest(data) for data in files.values())
    with_statistics = [name for name, data in files.items() if data.get("certificate", {}).get("column_statistics")]
    assert sorted(with_statistics) == sorted(STATISTICS)
    assert all(files[name]["preprocessing"]["row_map"]["feature_map"]["type"] == "ColumnStandardiser"
               and "input_bound" not in files[name]["preprocessing"]["row_map"]["feature_map"] for name in STATISTICS)


@pytest.mark.parametrize("name", KINDS)
def test_a_version_10_file_loads_and_predicts_as_written(name, loads_as_written):
    loads_as_written(FORMAT10, EXPECTED, name)


def _written(tmp_path, data: dict, version: int, **bound) -> FileError | object:
    """``data`` as a file of ``version`` with its map's input_bound set (or, given None for ``drop``, removed) and its
    digest made again (an edit only the semantic checks can refuse): the loaded model, or the refusal."""
    edited = json.loads(json.dumps({**data, "format_version": version}))
    saved = edited["preprocessing"]["row_map"]["feature_map"]
    saved.pop("input_bound", None)
    saved.update(bound)
    edited["sha256"] = file_digest(edited)
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    try:
        return dpcvx.load(tmp_path / "edited.json")
    except FileError as error:
        return error


@pytest.mark.parametrize("name", STATISTICS)
def test_a_statistics_map_states_its_input_bound_r_or_null_and_nothing_else(name, tmp_path, recorded_inputs):
    """This dpcvx's statistics map records the bound R and scales the rows beyond R onto it first; null reads the
    rows as they are (a version 10 release, as its step records it); a version 11 map without the key, or with another
    bound, and a version 10 map that holds the key (no version 10 dpcvx wrote it) are edits (a files audit: a v11 map
    with its bound removed loaded and predicted one class)."""
    data = json.loads((FORMAT10 / f"{name}.json").read_text())
    raw = dpcvx.load(FORMAT10 / f"{name}.json")
    rows = np.asarray(recorded_inputs(EXPECTED, name, raw), dtype=float)
    R = data["preprocessing"]["row_map"]["norm_bound"]
    scaled, count = RowMap(norm_bound=R).clip(rows)
    bounded = _written(tmp_path, data, 11, input_bound=R)
    np.testing.assert_array_equal(bounded.decision_function(rows), raw.decision_function(scaled))
    if count:  # rows beyond R (linear_stats, huber: R = 1 under the schema's 1.5): the two maps differ on them
        assert not np.array_equal(bounded.decision_function(rows), raw.decision_function(rows))
    stated = _written(tmp_path, data, 11, input_bound=None)
    np.testing.assert_array_equal(stated.decision_function(rows), raw.decision_function(rows))
    for edit in (_written(tmp_path, data, 11), _written(tmp_path, data, 11, input_bound=2 * R)):
        assert isinstance(edit, FileError) and "feature_map is not the map certificate.column_statistics gives" in str(
            edit)
    added = _written(tmp_path, data, 10, input_bound=R)
    assert isinstance(added, FileError) and "holds input_bound in a file of format version 10" in str(added)


def test_an_edited_version_10_file_is_refused_though_its_step_made_a_new_digest(tmp_path):
    """The step makes the digest again only of a file that is as dpcvx wrote it: an edit is not laundered."""
    data = json.loads((FORMAT10 / "linear_stats.json").read_text())
    data["preprocessing"]["row_map"]["feature_map"]["multiplier"][0] *= 2
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="the file has been edited|the file was changed after dpcvx wrote it"):
        dpcvx.load(tmp_path / "edited.json")
    data = json.loads((FORMAT10 / "linear.json").read_text())
    data["feature_names"] = [f"x{i}" for i in range(8)]  # a field no other check compares: the digest refuses it
    (tmp_path / "named.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="sha256 records .*: the file was changed after dpcvx wrote it"):
        dpcvx.load(tmp_path / "named.json")


def test_the_statistics_count_the_fits_rows(tmp_path):
    """The statistics were drawn from the fit's rows (replace-one, n public): a files audit changed a classifier's
    from 2000 to 7 and the file loaded (a regression's depth, a rule of n, refused it already)."""
    data = json.loads((FORMAT10 / "linear_stats.json").read_text())
    data["certificate"]["column_statistics"]["n"] = 7
    data["sha256"] = file_digest(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match=r"certificate.column_statistics.n is 7 but the certificate states n = "):
        dpcvx.load(tmp_path / "edited.json")
