"""Files of format version 13 load as they were written: a multiclass file written by dpcvx at commit bc31d5b4 (the
last to write version 13) through ``dpcvx.save``, with the certificate text, decision values and predictions that
dpcvx computed (``fixtures/format13/expected.json``). Version 14 records, in a multiclass file, private column
statistics drawn once before the k fits (``column_statistics`` and ``fit_epsilon``); version 13 drew none for
one-vs-rest, so the step from version 13 records both as null (records.upgrade). A version 13 file that holds either
key was not written by dpcvx, and is refused."""

import json
from pathlib import Path

import pytest

import dpcvx
from dpcvx.exceptions import FileError
from dpcvx.release.records.header import file_digest

FORMAT13 = Path(__file__).parent / "fixtures" / "format13"
EXPECTED = json.loads((FORMAT13 / "expected.json").read_text())


def test_the_fixture_is_a_version_13_multiclass_file_without_the_new_keys():
    data = json.loads((FORMAT13 / "one_vs_rest.json").read_text())
    assert data["format_version"] == 13 and data["kind"] == "multiclass" and data["sha256"] == file_digest(data)
    assert not {"column_statistics", "fit_epsilon"} & set(data)


def test_a_version_13_multiclass_file_loads_predicts_as_written_and_records_no_draw(loads_as_written, tmp_path):
    loads_as_written(FORMAT13, EXPECTED, "one_vs_rest")
    loaded = dpcvx.load(FORMAT13 / "one_vs_rest.json")
    assert loaded.certificate.column_statistics is None and loaded.certificate.fit_epsilon is None
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["column_statistics"] is None and rewritten["fit_epsilon"] is None


@pytest.mark.parametrize("key", ["column_statistics", "fit_epsilon"])
def test_a_version_13_file_that_holds_a_key_of_version_14_is_refused(key, tmp_path):
    data = json.loads((FORMAT13 / "one_vs_rest.json").read_text())
    data[key] = None
    data["sha256"] = file_digest(data)  # as an editor would make it again
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match=f"{key} in a multiclass file of format version 13"):
        dpcvx.load(tmp_path / "edited.json")
