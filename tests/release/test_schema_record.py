"""A model file's schema (the public encoder of a table into the model's rows) is covered by its certificate (format
version 9): an edit of the schema, its record removed, or a record where the file holds no schema is refused with a
FileError naming the schema and the record, for every kind of file that carries a schema (the format 8 fixtures,
saved again). The schema's own checks (PublicSchema.from_dict) run first, and its width is checked against every
release's weights, AdaSSP's and a multiclass file's included."""

import copy
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.exceptions import FileError, InputError
from dpcvx.release import serialization

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

FIXTURES = Path(__file__).parent / "fixtures"
KINDS = ["linear", "linear_stats", "rff", "multi", "huber", "linreg", "linreg_ranged", "linreg_standardised",
         "linreg_gradient"]
DIGEST = r"schema is not the schema certificate\.schema records \(its SHA-256 digest differs"


@pytest.fixture(scope="module")
def files():
    """Each format 8 fixture saved by this dpcvx (its schema recorded in its certificate)."""
    loaded = {name: dpcvx.load(FIXTURES / "format8" / f"{name}.json") for name in KINDS}
    return {name: serialization.model_to_dict(model, model.schema) for name, model in loaded.items()}


def certificates(data):
    return [entry["certificate"] for entry in data["per_class"]] if "per_class" in data else [data["certificate"]]


def schema_of(data):
    return data["schema"] if "per_class" in data else data["preprocessing"]["schema"]


def set_schema(data, schema):
    if "per_class" in data:
        data["schema"] = schema
    else:
        data["preprocessing"]["schema"] = schema


def loads(data, tmp_path):
    path = tmp_path / "model.json"
    path.write_text(json.dumps(data))
    return dpcvx.load(path)


def refused(data, tmp_path, match):
    with pytest.raises(FileError, match=match):
        loads(data, tmp_path)


def column(data, name):
    return next(item for item in schema_of(data)["columns"] if item["name"] == name)


def swap(columns, first, second):
    columns[first], columns[second] = columns[second], columns[first]


EDITS = {
    "norm": lambda data: schema_of(data).update(norm=schema_of(data)["norm"] * 2),
    "lower bound": lambda data: column(data, "age").update(lo=20.0),
    "upper bound": lambda data: column(data, "age").update(hi=80.0),
    "category order": lambda data: column(data, "sex").update(categories=["Male", "Female"]),
    "category renamed": lambda data: column(data, "job")["categories"].__setitem__(0, "x"),
    "column renamed": lambda data: column(data, "age").update(name="years"),
    "column order": lambda data: swap(schema_of(data)["columns"], 2, 3),
    "column dropped": lambda data: schema_of(data)["columns"].pop(),
    "column added": lambda data: schema_of(data)["columns"].append(
        {"name": "extra", "kind": "numeric", "lo": 0.0, "hi": 1.0, "source": ""}),
    "strict": lambda data: schema_of(data).update(strict=not schema_of(data)["strict"]),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("name", KINDS)
def test_an_edited_schema_is_refused(files, name, edit, tmp_path):
    data = copy.deepcopy(files[name])
    loads(copy.deepcopy(data), tmp_path)  # the unedited file loads
    EDITS[edit](data)
    refused(data, tmp_path, DIGEST)


@pytest.mark.parametrize("name", KINDS)
def test_a_missing_record_or_a_removed_schema_is_refused(files, name, tmp_path):
    where = "schema" if name == "multi" else r"preprocessing\.schema"
    data = copy.deepcopy(files[name])
    certificates(data)[-1].pop("schema", None)  # a multiclass file's last class
    refused(data, tmp_path, rf"{where} holds a schema, but certificate\.schema is missing")
    data = copy.deepcopy(files[name])
    set_schema(data, None)
    refused(data, tmp_path, rf"{where} is null, but certificate\.schema records the schema")


@pytest.mark.parametrize("name", ["linear", "multi", "linreg"])
def test_a_malformed_record_is_refused(files, name, tmp_path):
    for record, match in (({"sha256": 5}, r"certificate\.schema\.sha256 must be"),
                          ({"sha256": "0" * 64, "columns": 4}, r"certificate\.schema.*unknown keys \['columns'\]"),
                          ("0" * 64, r"certificate\.schema must be a JSON object")):
        data = copy.deepcopy(files[name])
        certificates(data)[0]["schema"] = record
        refused(data, tmp_path, match)


def test_a_record_where_the_file_holds_no_schema_is_refused(tmp_path):
    """A model fitted on arrays holds no schema, and its file no record: one added is refused (a kernel file's
    certificate takes no such key)."""
    record = {"sha256": "0" * 64}
    for name, match in (("linear", r"preprocessing\.schema is null, but certificate\.schema records"),
                        ("linreg", r"preprocessing\.schema is null, but certificate\.schema records"),
                        ("multi", r"schema is null, but certificate\.schema records"),
                        ("tdil", r"unknown keys \['schema'\]")):
        data = serialization.model_to_dict(dpcvx.load(FIXTURES / "format7" / f"{name}.json"))
        assert all("schema" not in certificate for certificate in certificates(data))
        loads(copy.deepcopy(data), tmp_path)
        certificates(data)[0]["schema"] = record
        refused(data, tmp_path, match)


@pytest.mark.parametrize("name", ["linear", "multi", "linreg"])
def test_the_schema_is_read_by_its_own_checks_before_its_record(files, name, tmp_path):
    """An edit to a value no schema takes is refused by PublicSchema's own check, named at the schema's key."""
    where = "schema" if name == "multi" else r"preprocessing\.schema"
    data = copy.deepcopy(files[name])
    schema_of(data)["norm"] = -1.0
    refused(data, tmp_path, rf"{where}: the schema.s norm must be finite and positive, got -1.0")
    data = copy.deepcopy(files[name])
    column(data, "age").update(lo=90.0, hi=17.0)
    refused(data, tmp_path, rf"{where}: column 'age': bounds \(lo, hi\) = \(.*\) is reversed or empty")


def test_a_multiclass_entry_holds_no_schema_of_its_own(files, tmp_path):
    data = copy.deepcopy(files["multi"])
    data["per_class"][1]["preprocessing"]["schema"] = data["schema"]
    refused(data, tmp_path, r"per_class\[1\]: preprocessing\.schema must be null")


def _other_width(data):
    """The file with a schema of one more feature than its model's, recorded as the writer records a schema."""
    from dpcvx.release.records.row_map import schema_record  # format 9's (imported here: the test runs before it)

    wider = copy.deepcopy(schema_of(data))
    wider["columns"].append({"name": "extra", "kind": "numeric", "lo": 0.0, "hi": 1.0, "source": ""})
    set_schema(data, wider)
    for certificate in certificates(data):
        certificate["schema"] = {"sha256": schema_record(wider)["sha256"]}
    return data


@pytest.mark.parametrize("name", ["multi", "linreg"])
def test_a_recorded_schema_of_another_width_is_refused(files, name, tmp_path):
    """The schema's width is the model's for every release without a feature map (a multiclass file's and AdaSSP's
    were not compared before)."""
    refused(_other_width(copy.deepcopy(files[name])), tmp_path, r"the schema encodes 9 features but the model has "
                                                                 r"8 weights")


@pytest.mark.parametrize("estimator", [
    dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, column_statistics=False, random_state=0),
    dpcvx.DPLogisticRegression(epsilon=1.0, classes=(0, 1, 2), column_statistics=False, random_state=0)])
def test_a_release_is_not_saved_with_a_schema_of_another_width(estimator, tmp_path):
    """AdaSSP's and a multiclass release's writers compare the schema's width with the weights, as the others do."""
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (200, 2))
    y = X @ np.array([1.0, -1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = estimator.fit(X, np.digitize(y, [-0.3, 0.3]) if hasattr(estimator, "classes") else y)
    wider = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(name, 0, 1) for name in "abc"))
    with pytest.raises(InputError, match="the schema encodes 3 features but the model has 2 weights"):
        dpcvx.save(model, tmp_path / "model.json", schema=wider)
    assert not (tmp_path / "model.json").exists()


def test_dpcvx_predict_refuses_a_file_whose_schema_was_edited(files, tmp_path, capsys):
    data = copy.deepcopy(files["linear"])
    column(data, "age")["hi"] = 80.0
    model = tmp_path / "model.json"
    model.write_text(json.dumps(data))
    table = tmp_path / "table.csv"
    table.write_text("age,hours,sex,job\n40,20,Male,a\n")
    assert main(["predict", str(model), str(table), "--out", str(tmp_path / "out.csv")]) == 3
    err = capsys.readouterr().err
    assert "preprocessing.schema is not the schema certificate.schema records" in err and "Traceback" not in err
    assert not (tmp_path / "out.csv").exists()
