"""Every field of a model file is checked by its type before it is used: a list, an object, a flag or a text where
the file holds a number (or the reverse) is a FileError naming the field, never a raw Python error and never a
value Python takes for another (``true`` for 1, ``6.0`` for 6, ``"0.5"`` for 0.5)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One saved file of each record this test edits: name -> its JSON data."""
    directory = tmp_path_factory.mktemp("typed")
    X, y = synthetic_classification(n=600, d=3, random_state=0)
    y01 = (y > 0).astype(int)
    rng = np.random.default_rng(1)
    Xk = rng.uniform(-1, 1, (200, 2)) / np.sqrt(2)
    yk = np.where((Xk**2).sum(axis=1) < 0.25, 1.0, -1.0)
    curator = PINP("rbf", gamma=4.0, lam=0.1, max_queries=6, loss="huber_hinge:h=0.5").fit(Xk, yk, 1e4, 1e-6,
                                                                                           random_state=4)
    curator.decision_function(Xk[:6])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        models = {
            "linear": dpcvx.DPLogisticRegression(random_state=0).fit(X, y01),
            "balanced": dpcvx.DPLogisticRegression(class_weight="balanced", random_state=0).fit(X, y01),
            "multiclass": dpcvx.DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, np.arange(600) % 3),
            "statistics": dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, column_statistics=True).fit(
                X, y, epsilon=1.0, random_state=0),
            "ranges": dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, column_statistics="ranges").fit(
                X, y, epsilon=1.0, random_state=0),
            "adassp": dpcvx.DPLinearRegression(random_state=0).fit(X, X @ [1.0, 2.0, 3.0]),
            "pinp": curator.release(),
            "tddl": TDDL("rbf", gamma=2.0, lam=0.1, loss="huber_hinge:h=0.5").fit(Xk, yk, 1.0, Z=Xk[:25],
                                                                                  random_state=0),
            "tdil": TDIL("linear", lam=0.1, input_bound=1.0, loss="huber_hinge:h=0.5").fit(
                Xk, yk, 200.0, 1e-6, random_state=3),
        }
    return {name: json.loads(dpcvx.save(model, directory / f"{name}.json").read_text())
            for name, model in models.items()}


def _set(data: dict, path: tuple, value: object) -> dict:
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return data


@pytest.mark.parametrize("name, path, value, message", [
    ("linear", ("format_version",), [6], r"format_version must be an integer, got \[6\]"),
    ("linear", ("format_version",), {"v": 6}, r"format_version must be an integer, got \{'v': 6\}"),
    ("linear", ("format_version",), True, "format_version must be an integer, got True"),
    ("linear", ("format_version",), 6.0, "format_version must be an integer, got 6.0"),
    ("linear", ("format_version",), 1.0, "format_version must be an integer, got 1.0"),
    ("linear", ("kind",), ["linear"], r'"kind" must be one of .*, got \[\'linear\'\]'),
    ("linear", ("kind",), {"linear": 1}, '"kind" must be one of'),
    ("multiclass", ("per_class", 1, "format_version"), [6], r"per_class\[1\]: format_version must be an integer"),
    ("multiclass", ("per_class", 1, "classes"), [-1, True], r"per_class\[1\]: classes must list 2 labels of one type"),
    ("balanced", ("certificate", "weights", "private_count", "floor"), True, "the count must lie in"),
    ("balanced", ("certificate", "verification", "allows", "objective"), 1, "verification.allows says"),
    # 2^-2000 is no double; a huge count of bits (10**30) would take the caps' isqrt(4^bits d) for ever
    ("statistics", ("certificate", "column_statistics", "lattice_bits"), 2000, "lattice_bits at most 1074"),
    ("statistics", ("preprocessing", "row_map", "feature_map", "centre"), {"v": 6},
     "preprocessing.row_map.feature_map is not a saved ColumnStandardiser"),
    ("adassp", ("privatised", "coef"), 2.5, "privatised.coef must be a non-empty list of numbers"),
    ("adassp", ("preprocessing",), {"v": 6}, "preprocessing has unknown keys"),
    ("adassp", ("certificate", "data_norm"), "1.0", "certificate.data_norm must be a number"),
    ("adassp", ("certificate", "intercept_scaling"), True, "certificate.intercept_scaling must be a number"),
    ("adassp", ("certificate", "calibration", "epsilon"), True, "certificate.calibration.epsilon: recorded True"),
    ("pinp", ("privatised", "answers", 0), "0.5", r"privatised.answers\[0\] must be a number"),
    ("pinp", ("privatised", "updates_used"), 5.0, "privatised.updates_used must be an integer"),
    ("tddl", ("epsilon",), True, "epsilon is True but the certificate records 1.0"),
    ("tdil", ("privatised", "rounds_used"), True, "privatised.rounds_used must be an integer"),
    ("tdil", ("privatised", "certified"), 1, "privatised.certified must be true or false"),
    ("tdil", ("certificate", "kernel", "input_bound"), True, "predictor.kernel differs from certificate.kernel"),
    ("ranges", ("preprocessing", "row_map", "feature_map", "multiplier", 0), True,
     "multiplier must be a list of numbers"),
    ("statistics", ("preprocessing", "row_map", "feature_map", "centre", 0), "0.5", "centre must be a list of numbers"),
])
def test_a_field_of_the_wrong_type_is_refused_by_name(files, tmp_path, name, path, value, message):
    path_ = tmp_path / "edited.json"
    path_.write_text(json.dumps(_set(json.loads(json.dumps(files[name])), path, value)))
    with pytest.raises(dpcvx.exceptions.FileError, match=message):
        dpcvx.load(path_)


def test_every_saved_file_still_loads(files, tmp_path):
    """The checks refuse edits only: each unedited file loads."""
    for name, data in files.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        assert dpcvx.load(path).kind in ("linear", "multiclass", "regression", "kernel")


def test_a_kernel_parameter_that_is_a_flag_is_refused_on_both_sides(files, tmp_path):
    """The same flag in the predictor's and the certificate's kernel (their comparison passes): the kernel's own
    reader refuses it, where the kernel took true for an input bound of 1."""
    data = json.loads(json.dumps(files["tdil"]))
    for side in ("predictor", "certificate"):
        data[side]["kernel"]["input_bound"] = True
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(dpcvx.exceptions.FileError, match="input_bound must be a number"):
        dpcvx.load(path)


@pytest.mark.parametrize("name", ["ranges", "statistics"])
@pytest.mark.parametrize("field", ["centre", "multiplier"])
def test_a_feature_map_other_than_the_one_its_statistics_give_is_refused(files, tmp_path, name, field):
    """A classifier's saved feature map is recomputed from the released statistics its certificate records (the
    ranges' map, the sums' map) and must be it, as an AdaSSP file's must be the map of its sums: an edited map, of
    numbers of the right type, is refused."""
    data = json.loads(json.dumps(files[name]))
    values = data["preprocessing"]["row_map"]["feature_map"][field]
    values[0] = values[0] * 1.5 + 0.25
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with pytest.raises(dpcvx.exceptions.FileError, match="is not the map certificate.column_statistics gives"):
        dpcvx.load(path)
