"""Files of format version 8 that carry a schema load as they were written: one of every kind that carries one (a
binary classifier, one with column statistics' map, one with a feature map of its own, a multiclass classifier, a
Huber regression on a version-1 ("unit") schema, and AdaSSP plain, on private ranges, on standardised columns and
noisy gradient descent on ranges), written by dpcvx at commit eabaf47 (the last to write version 8) through
``dpcvx.save`` of a fitted scikit-learn Pipeline (a PublicSchema and the estimator; the feature-map release with
``schema=``), with the certificate text, decision values and predictions on the first 60 records of its table that
dpcvx computed (``fixtures/format8/expected.json``). Saved again, a file is of the current version and its
certificate records the schema the file holds (records.upgrade: the step from version 8)."""

import json
from pathlib import Path

import numpy as np
import pytest
from former_texts import former_text

import dpcvx
from dpcvx.release.serialization import MODEL_FORMAT_VERSION

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

FORMAT8 = Path(__file__).parent / "fixtures" / "format8"
EXPECTED = json.loads((FORMAT8 / "expected.json").read_text())
KINDS = ["linear", "linear_stats", "rff", "multi", "huber", "linreg", "linreg_ranged", "linreg_standardised",
         "linreg_gradient"]


def certificates(data):
    """The certificates of a file: a multiclass file's per-class ones, else its one."""
    return [entry["certificate"] for entry in data["per_class"]] if "per_class" in data else [data["certificate"]]


def schema_of(data):
    """The schema a file holds: a multiclass file's at the top level, else in its preprocessing."""
    return data["schema"] if "per_class" in data else data["preprocessing"]["schema"]


def test_the_fixtures_are_every_kind_of_file_that_carries_a_schema():
    assert sorted(path.stem for path in FORMAT8.glob("*.json") if path.stem != "expected") == sorted(KINDS)
    files = {name: json.loads((FORMAT8 / f"{name}.json").read_text()) for name in KINDS}
    assert {data["kind"] for data in files.values()} == {"linear", "multiclass", "regression"}
    assert {data["certificate"]["mechanism"] for data in files.values() if "certificate" in data} == {
        "objective", "adassp", "adassp-ranged", "adassp-standardised", "gradient-ranged"}
    assert all(schema_of(data) is not None for data in files.values())
    assert {schema_of(data)["version"] for data in files.values()} == {1, 2}


@pytest.mark.parametrize("name", KINDS)
def test_a_version_8_file_loads_and_predicts_as_written(name, tmp_path, as_written):
    from dpcvx.release.records.row_map import schema_record  # format 9's (imported here: the test runs before it)

    source, expected = FORMAT8 / f"{name}.json", EXPECTED[name]
    data = json.loads(source.read_text())
    assert data["format_version"] == 8 and all("schema" not in certificate for certificate in certificates(data))
    loaded = dpcvx.load(source)
    rows = loaded.schema.transform(EXPECTED["table"])
    assert former_text(loaded.certificate) == expected["certificate"]
    as_written(np.asarray(loaded.decision_function(rows)), expected["decision"])
    as_written(loaded.predict(rows), expected["predict"])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "v10.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION == 20
    assert schema_of(rewritten) == schema_of(data)
    assert [certificate["schema"] for certificate in certificates(rewritten)] == \
        [schema_record(schema_of(data))] * len(certificates(rewritten))
    again = dpcvx.load(tmp_path / "v10.json")
    assert former_text(again.certificate) == expected["certificate"] and again.schema == loaded.schema
    as_written(again.predict(again.schema.transform(EXPECTED["table"])), expected["predict"])
