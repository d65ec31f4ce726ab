"""Every number a model file's readers pass to a calibration or a map is checked first (its JSON type and the range
a fit's entry checks enforce), and an arithmetic error of a rebuilt calibration is a typed refusal naming the
record: a tampered file is a FileError (exit 3 on the command line) naming the field, never a ZeroDivisionError,
an OverflowError or an AssertionError. The schema a model file embeds holds every key its writer writes; the
report's constants table says how each constant was established."""

import copy
import json
import math

import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.cli import main
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError
from dpcvx.privacy.gradient_descent import GradientCalibration
from dpcvx.release.serialization import model_from_dict

X, Y = synthetic_classification(n=300, d=3, random_state=0)
NARROW = np.random.default_rng(7).normal(0.2, 0.01, (3000, 3))  # enough rows for the range search
Y_NARROW = np.clip((NARROW - 0.2) @ np.array([30.0, -20.0, 10.0]), -1, 1)
MAKERS = {
    "adassp ranged": lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, mechanism="adassp",
                                                      random_state=0).fit(NARROW, Y_NARROW).model_,
    "gradient ranged": lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, random_state=0).fit(
        NARROW, Y_NARROW).model_,
    "adassp standardised": lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, column_statistics=True,
                                                            random_state=0).fit(NARROW, Y_NARROW).model_,
    "objective float-safe": lambda: dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm=1.0, float_safe=True).fit(
        X, Y, 1.0, "objective", random_state=0),
    "gaussian output": lambda: dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm=1.0).fit(
        X, Y, 1.0, "output", delta=1e-6, random_state=0),
}


@pytest.fixture(scope="module")
def files():
    return {name: dpcvx.release.serialization.model_to_dict(make()) for name, make in MAKERS.items()}


def edited(data, path, value):
    data = copy.deepcopy(data)
    target = data
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return data


COLUMN_N = ("certificate", "column_statistics", "n")
CALIBRATION = ("certificate", "calibration")
# (file, field, tampered value, the refusal's words): each crashed with an untyped error, or loaded, before the fix
TAMPERED = [
    ("adassp ranged", COLUMN_N, 0, r"certificate\.column_statistics\.n must be a positive integer"),
    ("gradient ranged", COLUMN_N, 0, r"certificate\.column_statistics\.n must be a positive integer"),
    ("adassp standardised", COLUMN_N, 0, r"certificate\.column_statistics\.n must be a positive integer"),
    ("gradient ranged", (*CALIBRATION, "steps"), 10**30, r"certificate\.calibration\.steps must be dpcvx's public"),
    ("gradient ranged", (*CALIBRATION, "steps"), 21, r"certificate\.calibration\.steps must be dpcvx's public"),
    ("adassp ranged", (*CALIBRATION, "dim"), 1e-300, r"certificate\.calibration\.dim must be an integer"),
    ("adassp ranged", (*CALIBRATION, "dim"), 1e300, r"certificate\.calibration\.dim must be an integer"),
    ("adassp standardised", ("preprocessing", "row_map", "norm_bound"), 1e-300,
     r"preprocessing\.row_map\.norm_bound=1e-300 is outside the range"),
    ("objective float-safe", (*CALIBRATION, "tol"), None, r"calibration\.tol is missing or null"),
    ("objective float-safe", (*CALIBRATION, "tol"), KeyError, r"calibration\.tol is missing or null"),
    ("objective float-safe", (*CALIBRATION, "dim"), 5.0, r"certificate\.calibration\.dim must be an integer"),
    ("gaussian output", (*CALIBRATION, "dim"), 4.0, r"certificate\.calibration\.dim must be an integer"),
    ("gaussian output", (*CALIBRATION, "n"), 300.0, r"certificate\.calibration\.n must be an integer"),
]


@pytest.mark.parametrize("name, path, value, words", TAMPERED,
                         ids=[f"{name}:{path[-1]}={value!r}"[:60] for name, path, value, _ in TAMPERED])
def test_a_tampered_number_is_refused_naming_its_field(files, tmp_path, name, path, value, words):
    target = tmp_path / "edited.json"
    target.write_text(json.dumps(edited(files[name], path, value)))
    with pytest.raises(FileError, match=words):
        dpcvx.load(target)


def test_the_untampered_files_load(files):
    for data in files.values():
        model_from_dict(copy.deepcopy(data))


def test_an_arithmetic_error_of_a_rebuilt_calibration_is_refused_naming_the_record(files, monkeypatch):
    """The one guard where every kind's reader rebuilds its calibration: a number no field check caught."""
    def overflowing(cls, record, facts):
        raise OverflowError("cannot fit 'int' into an index-sized integer")

    monkeypatch.setattr(GradientCalibration, "from_record", classmethod(overflowing))
    with pytest.raises(dpcvx.InputError, match=r"certificate\.calibration cannot be recomputed from its recorded "
                                               r"numbers \(OverflowError"):
        model_from_dict(copy.deepcopy(files["gradient ranged"]))


def test_the_command_line_reports_a_tampered_file_with_exit_status_3(files, tmp_path, capsys):
    target = tmp_path / "edited.json"
    target.write_text(json.dumps(edited(files["gradient ranged"], COLUMN_N, 0)))
    assert main(["report", str(target)]) == 3
    err = capsys.readouterr().err
    assert "certificate.column_statistics.n" in err and "Traceback" not in err


# --- the schema a model file embeds: every key its writer writes ------------------------------------------------


@pytest.fixture(scope="module")
def with_schema():
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 1), dpcvx.NumericColumn("b", 0, 1),
                                 dpcvx.NumericColumn("c", 0, 1)), norm=1.0)
    model = dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm=1.0).fit(X, Y, 1.0, random_state=0)
    return dpcvx.release.serialization.model_to_dict(model, schema)


SCHEMA = ("preprocessing", "schema")


@pytest.mark.parametrize("path, value, words", [
    ((*SCHEMA, "norm"), KeyError, r"lacks keys \['norm'\]"),
    ((*SCHEMA, "strict"), KeyError, r"lacks keys \['strict'\]"),
    ((*SCHEMA, "constant_feature"), KeyError, r"lacks keys \['constant_feature'\]"),
    ((*SCHEMA, "encoding"), KeyError, r"lacks keys \['encoding'\]"),
    ((*SCHEMA, "columns", 0, "source"), KeyError, r"lacks keys \['columns\[0\]\.source'\]"),
    ((*SCHEMA, "version"), 2.0, r"version must be an integer"),
])
def test_an_embedded_schema_lacking_a_key_is_refused(with_schema, path, value, words):
    with pytest.raises(dpcvx.InputError, match=r"preprocessing\.schema: " + words):
        model_from_dict(edited(with_schema, path, value))


def test_an_embedded_version_1_schema_has_no_encoding_key(with_schema):
    """A schema of encoding "unit" is written as version 1, without the key: read by its version."""
    unit = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 1), dpcvx.NumericColumn("b", 0, 1),
                               dpcvx.NumericColumn("c", 0, 1)), norm=1.0, encoding="unit")
    data = dpcvx.release.serialization.model_to_dict(model_from_dict(copy.deepcopy(with_schema)), unit)
    assert "encoding" not in data["preprocessing"]["schema"]
    assert model_from_dict(data).schema.encoding == "unit"


# --- the report's constants: how each was established -------------------------------------------------------------


def test_the_report_says_how_each_linear_constant_was_established(with_schema):
    model = model_from_dict(copy.deepcopy(with_schema))
    section = next(section for section in model.report().sections if section.anchor == "auditor")
    table = next(block.content for block in section.blocks if block.kind == "table"
                 and block.content[0] == ["constant", "value", "how established"])
    established = {row[0]: row[2] for row in table[1]}
    conditions = {"L": "lipschitz", "c": "curvature", "m": "strong_convexity"}
    for name, condition in conditions.items():
        recorded = model.certificate.verification.condition(condition)
        assert established[name] == f"condition {condition}, {recorded.method}: {recorded.detail}"
    words = "an input of the fit, not proved (how it was chosen: Public inputs)"
    assert all(established[name] == words for name in ("R", "lam", "n", "d"))


def test_the_report_says_what_r_is_with_an_intercept(tmp_path):
    """With an intercept the theorems' R is sqrt(R^2 + s^2) (1.16964 for the rows' R = 1 and s = 0.606675), and
    "Public inputs" lists the rows' R = 1: the row of R says how the two are one, on a fitted and a loaded model."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (500, 3))
    fitted = dpcvx.DPLogisticRegression(random_state=0).fit(X, (X[:, 0] > 0).astype(int)).model_
    for model in (fitted, dpcvx.load(dpcvx.save(fitted, tmp_path / "m.json"))):
        section = next(section for section in model.report().sections if section.anchor == "auditor")
        table = next(block.content for block in section.blocks if block.kind == "table"
                     and block.content[0] == ["constant", "value", "how established"])
        rows = {row[0]: row for row in table[1]}
        s = model.certificate.intercept_scaling
        assert float(rows["R"][1]) == pytest.approx(math.hypot(1.0, s), rel=1e-5)
        assert rows["R"][2] == (f"sqrt(R^2 + s^2) of the rows' bound R = 1 and the intercept's feature s = {s:g}: "
                                "inputs of the fit, not proved (how they were chosen: Public inputs)")
