"""Files of format version 9 load as they were written: one of every kind (a binary classifier, one with column
statistics' map, a multiclass classifier, a Huber regression, AdaSSP and noisy gradient descent on ranges, on a
PublicSchema pipeline; a classifier fitted on named columns with a threshold, one with class weights, one on a feature
map of its own (RFF), a model dpcvx.tune selected; TDDL, PINP, TDIL on a net and on the ball, float-safe TDDL),
written by dpcvx at commit 9389d15 (the last to write version 9) through ``dpcvx.save``, with the certificate text,
decision values and predictions that dpcvx computed (``fixtures/format9/expected.json``). A version 9 file holds no
digest: its upgrade step records the one of what it holds. Saved again, a file is of the current version and holds
its digest, and nothing else changed (records.upgrade: the step from version 9)."""

import json
from pathlib import Path

import pytest

import dpcvx
from dpcvx.exceptions import FileError

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

FORMAT9 = Path(__file__).parent / "fixtures" / "format9"
EXPECTED = json.loads((FORMAT9 / "expected.json").read_text())
TABLES = ["linear", "linear_stats", "multi", "huber", "linreg", "linreg_gradient"]
ARRAYS = ["rff", "weighted", "tuned", "tddl", "pinp", "tdil", "tdil_ball", "tddl_safe"]
KINDS = [*TABLES, *ARRAYS, "named"]


def test_the_fixtures_are_every_kind_of_file():
    assert sorted(path.stem for path in FORMAT9.glob("*.json") if path.stem != "expected") == sorted(KINDS)
    files = {name: json.loads((FORMAT9 / f"{name}.json").read_text()) for name in KINDS}
    assert {data["kind"] for data in files.values()} == {"linear", "kernel", "multiclass", "regression"}
    assert {data["format_version"] for data in files.values()} == {9}
    assert all("sha256" not in data for data in files.values())
    assert {"feature_names", "decision_cut"} <= set(files["named"]) and files["tuned"]["tuning"] is not None


@pytest.mark.parametrize("name", KINDS)
def test_a_version_9_file_loads_and_predicts_as_written(name, loads_as_written):
    loads_as_written(FORMAT9, EXPECTED, name)


def test_a_version_9_file_that_holds_a_digest_was_not_written_by_dpcvx(tmp_path):
    """Version 9 wrote no ``sha256``: a file of that version that holds one is refused before any step."""
    data = json.loads((FORMAT9 / "linear.json").read_text())
    (tmp_path / "edited.json").write_text(json.dumps({**data, "sha256": "0" * 64}))
    with pytest.raises(FileError, match="sha256 in a file of format version 9, which no dpcvx of that version wrote"):
        dpcvx.load(tmp_path / "edited.json")
