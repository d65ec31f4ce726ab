"""Saved models: bit-identical round trips, registry-only feature maps, and refusal of tampered files."""

import json

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification
from dpcvx.release import serialization
from dpcvx.release.records.row_map import schema_record


@pytest.fixture(scope="module")
def data():
    X, y = synthetic_classification(n=1500, d=4, random_state=2)
    return X[:1000], y[:1000], X[1000:], y[1000:]


@pytest.fixture(scope="module")
def model(data):
    X, y, _, _ = data
    return dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True).fit(X, y, epsilon=0.5, random_state=0)


def saved(model, tmp_path, **kwargs) -> dict:
    path = dpcvx.save(model, tmp_path / "model.json", overwrite=True, **kwargs)  # a scratch file, saved again
    return json.loads(path.read_text())


def write(tmp_path, data) -> str:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("loss", [losses.logistic(), losses.huber_hinge(0.3)], ids=["logistic", "huber"])
@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("intercept", [False, True])
def test_round_trip_predicts_bit_for_bit(data, tmp_path, loss, mechanism, intercept):
    X, y, X_test, _ = data
    erm = dpcvx.PrivateERM(loss=loss, data_norm=0.8, fit_intercept=intercept, intercept_scaling=0.5)
    with pytest.warns(dpcvx.ClippingWarning):  # rows up to norm 1 against R = 0.8
        original = erm.fit(X, y, epsilon=0.7, mechanism=mechanism, random_state=1)
    path = dpcvx.save(original, tmp_path / "model.json")
    loaded = dpcvx.load(path)
    rows = np.vstack([X_test, 3 * X_test])  # rows beyond R are clipped identically
    assert np.array_equal(loaded.decision_function(rows), original.decision_function(rows))
    assert np.array_equal(loaded.predict(rows), original.predict(rows))
    assert np.array_equal(loaded.coef_, original.coef_) and loaded.intercept_ == original.intercept_
    assert loaded.classes_.tolist() == original.classes_.tolist()
    assert loaded.rows == original.rows and not hasattr(loaded, "solve_info")
    assert loaded.schema is None
    # the certificate is data: to_dict round-trips, the report reads the same
    assert loaded.certificate.to_dict() == json.loads(json.dumps(original.certificate.to_dict()))
    assert str(loaded.certificate) == str(original.certificate)
    assert isinstance(loaded.certificate, dpcvx.ReleaseCertificate)
    assert loaded.certificate.mechanism == mechanism and loaded.epsilon == 0.7
    # saving a loaded model writes the same file
    assert dpcvx.save(loaded, tmp_path / "again.json").read_text() == path.read_text()


def test_irrational_constants_round_trip(data, tmp_path):
    X, y, X_test, _ = data
    P = np.diag([2.0, 3.0, 5.0, 7.0])
    problems = {
        "irrational": dpcvx.PrivateERM(regularizer=lambda w: 0.5 * np.sqrt(2) * cp.sum_squares(w),
                                       data_norm=1.0),  # m = sqrt(2)
        "float": dpcvx.PrivateERM(regularizer=lambda w: cp.quad_form(w, P), data_norm=1.0),  # m ~ 4
    }
    constants = {}
    for name, erm in problems.items():
        original = erm.fit(X[:300], y[:300], epsilon=1.0, random_state=0)
        loaded = dpcvx.load(dpcvx.save(original, tmp_path / f"{name}.json"))
        assert loaded.certificate.to_dict() == json.loads(json.dumps(original.certificate.to_dict()))
        assert str(loaded.certificate) == str(original.certificate)
        assert np.array_equal(loaded.decision_function(X_test), original.decision_function(X_test))
        constants[name] = original.certificate.to_dict()["constants"]
    assert constants["float"]["m"]["float"] == pytest.approx(4.0)  # exact "4" or a float shaded down
    assert constants["irrational"]["m"]["float"] == pytest.approx(np.sqrt(2))  # "sqrt(2)" or a close rational


def test_file_has_the_documented_keys(model, tmp_path):
    data = saved(model, tmp_path)
    assert set(data) == {"format", "format_version", "kind", "library_version", "mechanism", "epsilon",
                         "delta", "classes", "privatised", "preprocessing", "certificate", "tuning", "sha256"}
    assert data["format"] == "dpcvx-model" and data["format_version"] == 20 and data["kind"] == "linear"
    assert data["tuning"] is None  # not selected by dpcvx.tune
    assert set(data["privatised"]) == {"coef", "intercept"} and len(data["privatised"]["coef"]) == 4
    assert data["library_version"] == dpcvx.__version__
    assert data["preprocessing"]["row_map"] == {"norm_bound": 1.0, "fit_intercept": True,
                                                "intercept_scaling": 1.0, "feature_map": None}
    certificate = data["certificate"]
    assert certificate["constants"]["c"] == {"exact": "1/4", "float": 0.25}
    assert "solve" not in certificate and certificate["neighbours"]
    text = json.dumps(data)
    for statistic in ("residual", "iterations", "seconds", "status"):  # measured on the private data
        assert f'"{statistic}"' not in text
    assert certificate["verification"]["allows"] == {"output": True, "objective": True}
    assert {c["name"] for c in certificate["verification"]["conditions"]} >= {"lipschitz", "curvature"}


def test_string_classes_and_schema_round_trip(tmp_path):
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("age", 17, 90),
                                 dpcvx.CategoricalColumn("sex", ("Female", "Male"))))
    table = {"age": np.array([20, 35, 50, 70] * 50), "sex": np.array(["Male", "Female"] * 100)}
    labels = np.where(table["age"] > 40, "yes", "no")
    X = schema.transform(table)
    original = dpcvx.PrivateERM(data_norm=1.0, classes=("no", "yes")).fit(X, labels, epsilon=1.0,
                                                                         random_state=0)
    loaded = dpcvx.load(dpcvx.save(original, tmp_path / "m.json", schema=schema))
    assert loaded.schema == schema
    assert np.array_equal(loaded.predict(loaded.schema.transform(table)), original.predict(X))
    assert set(loaded.predict(X)) <= {"no", "yes"}


class Halve:
    """A public feature map for the tests: x -> x / 2."""

    norm_bound = 0.5

    def transform(self, X):
        return np.asarray(X) / 2

    def to_dict(self):
        return {"type": "Halve"}

    @classmethod
    def from_dict(cls, data):
        assert data == {"type": "Halve"}
        return cls()


def test_feature_map_is_restored_through_the_registry(data, tmp_path, monkeypatch):
    X, y, X_test, _ = data
    original = dpcvx.PrivateERM(feature_map=Halve()).fit(X, y, epsilon=1.0, random_state=0)
    with pytest.raises(dpcvx.InputError, match="unknown feature map type 'Halve'"):
        dpcvx.save(original, tmp_path / "m.json")  # not registered: refused at save time
    monkeypatch.setitem(serialization._FEATURE_MAPS, "Halve", Halve.from_dict)
    path = dpcvx.save(original, tmp_path / "m.json")
    loaded = dpcvx.load(path)
    assert isinstance(loaded.rows.feature_map, Halve)
    assert np.array_equal(loaded.decision_function(X_test), original.decision_function(X_test))
    monkeypatch.delitem(serialization._FEATURE_MAPS, "Halve")
    with pytest.raises(dpcvx.InputError, match="unknown feature map type 'Halve'.*register_feature_map"):
        dpcvx.load(path)


def test_register_feature_map_checks_its_arguments():
    with pytest.raises(dpcvx.InputError, match="type_name"):
        serialization.register_feature_map("", Halve.from_dict)
    with pytest.raises(dpcvx.InputError, match="callable"):
        serialization.register_feature_map("Halve", "Halve.from_dict")


def test_random_fourier_features_round_trip(data, tmp_path):
    kernels = pytest.importorskip("dpcvx.data.kernels")
    X, y, X_test, _ = data
    features = kernels.RandomFourierFeatures("rbf", gamma=1.0, n_components=20, random_state=0)
    original = dpcvx.PrivateERM(feature_map=features).fit(X, y, epsilon=1.0, random_state=0)
    loaded = dpcvx.load(dpcvx.save(original, tmp_path / "m.json"))
    assert np.array_equal(loaded.decision_function(X_test), original.decision_function(X_test))


def test_loading_executes_nothing(model, tmp_path):
    marker = tmp_path / "executed"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    data = saved(model, tmp_path)
    data["__reduce__"] = ["builtins.eval", [payload]]
    with pytest.raises(dpcvx.InputError, match=r"unknown keys \['__reduce__'\]"):
        dpcvx.load(write(tmp_path, data))
    data = saved(model, tmp_path)
    data["preprocessing"]["row_map"]["feature_map"] = {"type": "builtins:eval", "source": payload}
    with pytest.raises(dpcvx.InputError, match="unknown feature map type 'builtins:eval'"):
        dpcvx.load(write(tmp_path, data))
    assert not marker.exists()


def edit(path, value):
    def apply(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return apply


def delete(key):
    return lambda data: data.pop(key)


ONE_COLUMN = {"format": "dpcvx-schema", "version": 1, "norm": 1.0, "strict": False, "constant_feature": False,
              "columns": [{"name": "age", "kind": "numeric", "lo": 0, "hi": 1, "source": ""}]}


def add_schema(data):
    """A schema where the model was saved without one, recorded in the certificate as the writer records one."""
    data["preprocessing"]["schema"] = ONE_COLUMN
    data["certificate"]["schema"] = schema_record(ONE_COLUMN)


def fail_condition(data):
    for condition in data["certificate"]["verification"]["conditions"]:
        if condition["name"] == "lipschitz":
            condition["passed"] = False


@pytest.mark.parametrize("change, message", [
    (edit(["format"], "pickle"), "not a dpcvx model file"),
    (edit(["format_version"], serialization.MODEL_FORMAT_VERSION + 1),
     f"format_version {serialization.MODEL_FORMAT_VERSION + 1} was written by a newer dpcvx than this one"),
    (delete("tuning"), r"lacks keys \['tuning'\]"),
    (edit(["kind"], "quadratic"), "kind\" must be one of \\['linear', 'kernel', 'multiclass', 'regression'\\]"),
    (delete("kind"), "kind\" must be one of"),
    (edit(["kind"], "kernel"), "unknown keys"),
    (delete("privatised"), r"lacks keys \['privatised'\]"),
    (edit(["privatised", "coef"], [1.0, "2"]), r"privatised.coef\[1\] must be a number"),
    (edit(["privatised", "coef"], [1.0, float("nan"), 0.0, 0.0]), "holds NaN, which is not standard JSON"),
    (edit(["privatised", "coef"], [1.0, 1e400, 0.0, 0.0]), "holds Infinity, which is not standard JSON"),
    (edit(["privatised", "coef"], []), "coef must be a non-empty list"),
    (edit(["privatised", "coef"], [1.0, 2.0]), "privatised.coef has 2 weights and an intercept but the "
                                              "certificate states d = 5"),
    (edit(["epsilon"], 5.0), "epsilon is 5.0 but the certificate records 0.5"),
    (edit(["mechanism"], "output"), "mechanism is 'output' but the certificate"),
    (edit(["classes"], [1, 1]), "classes must be 2 different labels"),
    (edit(["privatised", "intercept"], "0"), "privatised.intercept must be a number"),
    (edit(["preprocessing", "row_map", "norm_bound"], 10.0), "norm_bound is 10.0 but the certificate"),
    (edit(["preprocessing", "row_map", "fit_intercept"], False), "fit_intercept is False"),
    (edit(["preprocessing", "schema"], {"format": "dpcvx-schema"}), "not a dpcvx schema"),
    (edit(["preprocessing", "schema"], ONE_COLUMN), r"preprocessing.schema holds a schema, but certificate.schema "
                                                   "is missing"),
    (add_schema, "the schema encodes 1 features"),
    (edit(["certificate", "mechanism"], "laplace"), "certificate.mechanism must be one of"),
    (edit(["certificate", "verification", "allows", "objective"], False), "the file has been edited"),
    (fail_condition, "the file has been edited"),
    (edit(["certificate", "calibration", "mechanism"], "output"), "calibration.mechanism is 'output'"),
    (edit(["format_version"], 1), "format_version 1 was written by a development version of dpcvx"),
    (edit(["format_version"], 3), "format_version 3 was written by a development version of dpcvx"),
    (edit(["certificate", "solve"], {"iterations": 7}), "certificate.solve holds solver statistics"),
    (edit(["solve"], {"residual": 1e-12}), "solve holds solver statistics measured on the private data"),
    (edit(["certificate", "calibration", "residual"], 1e-12), "calibration.residual is not part of a dpcvx"),
    (edit(["certificate", "constants", "L"], 1.0), "constants.L must be a JSON object"),
    (edit(["certificate", "verification", "conditions"], {}), "conditions must be a list"),
])
def test_tampered_files_are_refused(model, tmp_path, change, message):
    data = saved(model, tmp_path)
    change(data)
    with pytest.raises(dpcvx.InputError, match=message):
        dpcvx.load(write(tmp_path, data))


def test_files_of_an_earlier_format_version_are_refused(model, tmp_path):
    """Versions 1 to 3 came from development commits before the first release: refused with the reason,
    whatever else the file holds (docs/model-files.md, compatibility)."""
    saved_data = saved(model, tmp_path)
    saved_data.pop("kind")
    saved_data["format_version"] = 2
    with pytest.raises(dpcvx.exceptions.FileError, match="format_version 2 was written by a development version"
                                                         ".*Refit the model and save it"):
        dpcvx.load(write(tmp_path, saved_data))


def test_a_file_of_a_newer_format_version_says_to_upgrade(model, tmp_path):
    """A model file of format version 12 (and a schema of version 3) read as "not a dpcvx model file", where
    docs/model-files.md promises "refused: upgrade dpcvx"; a schema's version 2.0 was read as 2."""
    from dpcvx.data.preprocessing import PublicSchema

    data = saved(model, tmp_path)
    data["format_version"] = serialization.MODEL_FORMAT_VERSION + 1
    with pytest.raises(dpcvx.exceptions.FileError, match=f"format_version {serialization.MODEL_FORMAT_VERSION + 1} "
                                                         "was written by a newer dpcvx than this one.*upgrade dpcvx"):
        dpcvx.load(write(tmp_path, data))
    schema = {"format": "dpcvx-schema", "version": 3, "columns": [{"name": "a", "kind": "numeric", "lo": 0, "hi": 1}]}
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    with pytest.raises(dpcvx.exceptions.FileError, match=f"schema file {path}: schema version 3 was written by a "
                                                         "newer dpcvx"):
        PublicSchema.load(path)
    path.write_text(json.dumps({**schema, "version": 2.0}))
    with pytest.raises(dpcvx.exceptions.FileError, match="not a dpcvx schema"):
        PublicSchema.load(path)


def test_unreadable_files_are_refused(model, tmp_path):
    with pytest.raises(dpcvx.InputError, match="does not exist"):
        dpcvx.load(tmp_path / "missing.json")
    (tmp_path / "text.json").write_text("not json")
    with pytest.raises(dpcvx.InputError, match="not valid JSON"):
        dpcvx.load(tmp_path / "text.json")
    (tmp_path / "binary.json").write_bytes(b"\x80\x81\xfe")
    with pytest.raises(dpcvx.InputError, match="not UTF-8"):
        dpcvx.load(tmp_path / "binary.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(dpcvx.InputError, match="must be a JSON object"):
        dpcvx.load(tmp_path / "list.json")
    text = dpcvx.save(model, tmp_path / "m.json").read_text()
    (tmp_path / "twice.json").write_text(text.replace('"delta": 0.0,', '"delta": 0.0, "delta": 0.0,', 1))
    with pytest.raises(dpcvx.InputError, match=r"repeats keys \['delta'\]"):
        dpcvx.load(tmp_path / "twice.json")


def test_only_private_releases_are_saved(data, model, tmp_path):
    X, y, _, _ = data
    baseline = dpcvx.PrivateERM(data_norm=1.0).fit_nonprivate(X, y)
    with pytest.raises(dpcvx.InputError, match="non-private LinearModel"):
        dpcvx.save(baseline, tmp_path / "m.json")
    with pytest.raises(dpcvx.InputError, match="schema must be a PublicSchema"):
        dpcvx.save(model, tmp_path / "m.json", schema={"columns": []})
    wrong = dpcvx.PublicSchema((dpcvx.NumericColumn("age", 0, 1),))
    with pytest.raises(dpcvx.InputError, match="the schema encodes 1 features but the model has 4"):
        dpcvx.save(model, tmp_path / "m.json", schema=wrong)
    with pytest.raises(dpcvx.InputError, match="cannot write"):
        dpcvx.save(model, tmp_path / "no" / "such" / "m.json")


def set_epsilon(value, calibration=False):
    def apply(data):
        data["epsilon"] = data["certificate"]["epsilon"] = value
        if calibration:
            data["certificate"]["calibration"]["epsilon"] = value
    return apply


def scale_calibration(key, factor):
    def apply(data):
        data["certificate"]["calibration"][key] *= factor
    return apply


def set_constant(key, value):
    def apply(data):
        data["certificate"]["constants"][key] = {"exact": str(value), "float": float(value)}
    return apply


@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("change, message", [
    (set_epsilon(0.0), r"certificate.epsilon must be finite and positive, got 0.0"),
    (set_epsilon(-1.0), r"certificate.epsilon must be finite and positive, got -1.0"),
    (set_epsilon(5.0), r"certificate.calibration.epsilon is 0.5 but the certificate states 5.0"),
    (set_epsilon(5.0, calibration=True), r"certificate.calibration.(epsilon_prime|beta): recorded "
                                         r"[0-9.e-]+, recomputed [0-9.e-]+ from n, lam, epsilon, .*L, R, m"),
    (scale_calibration("beta", 1.5), r"certificate.calibration.beta: recorded"),
    (scale_calibration("beta", 1 + 1e-9), r"certificate.calibration.beta: recorded"),
    (scale_calibration("lam", 10), r"certificate.calibration.lam is 0.01 but the certificate states 0.001"),
    (lambda data: data["certificate"]["calibration"].pop("beta"), r"certificate.calibration.beta is missing"),
    (lambda data: data["certificate"]["calibration"].pop("L"), r"certificate.calibration.L is missing"),
    (lambda data: data["certificate"]["calibration"].update(n=10), "calibration.n is 10 but the certificate"),
    (set_constant("n", 10), "calibration.n is 1000 but the certificate states 10"),
    (set_constant("L", 0.5), "constants.L is 0.5 but the verified condition lipschitz gives 1.0"),
    (lambda data: data["certificate"]["constants"].pop("lam"), "certificate.constants.lam is missing"),
    (lambda data: data.update(delta=1.0) or data["certificate"].update(delta=1.0),
     r"certificate.delta must lie in \[0, 1\)"),
    # a pure objective perturbation may state delta > 0 (chosen over the Gaussian ones, docs/theory.md 12.5), but
    # only where the fit at that delta would choose it: a pure file's delta edited is refused (its curve, the pure
    # part, is the same at every delta; the choice at the edited delta is the Gaussian one)
    (lambda data: data.update(delta=0.1) or data["certificate"].update(delta=0.1),
     "certificate.delta must be 0 for the pure-epsilon output perturbation|certificate.privacy_curve is not the "
     "curve of the recorded calibration|at that delta a fit of this problem releases the Gaussian"),
    (lambda data: data["certificate"].update(neighbours=""),
     "certificate.neighbours must be one of 'replace-one', 'add-remove'; got ''"),
    (lambda data: data["certificate"].update(effective_norm_bound=2.0), "constants.R is 1.0 but the effective"),
    (lambda data: data["certificate"]["calibration"].update(beta="3"), "calibration.beta: recorded '3'"),
    (lambda data: data["certificate"]["calibration"].update(beta=True), "calibration.beta must be a number"),
])
def test_calibration_is_recomputed_on_load(data, tmp_path, mechanism, change, message):
    X, y, _, _ = data
    model = dpcvx.PrivateERM(data_norm=1.0).fit(X, y, epsilon=0.5, mechanism=mechanism, random_state=0)
    saved_data = saved(model, tmp_path)
    dpcvx.load(write(tmp_path, saved_data))  # untouched: accepted
    change(saved_data)
    with pytest.raises(dpcvx.InputError, match=message) as error:
        dpcvx.load(write(tmp_path, saved_data))
    assert isinstance(error.value, dpcvx.exceptions.FileError)


@pytest.mark.parametrize("cut", ["tru", "fals", "nul", "-", "1.", "2.5e", "1e-"])
def test_a_file_cut_inside_a_literal_or_number_is_called_truncated(model, tmp_path, cut):
    """The file cut in half ended inside ``true`` under the minimum versions (a float printed otherwise moved the
    half): the error sat at the literal's start, not at the end, and the refusal did not say the file ends early."""
    text = dpcvx.save(model, tmp_path / "m.json").read_text()
    cut_file = tmp_path / "cut.json"
    cut_file.write_text(text[: text.index('"passed": ') + len('"passed": ')] + cut)
    with pytest.raises(dpcvx.exceptions.FileError, match="not valid JSON.*truncated"):
        dpcvx.load(cut_file)


def test_loader_errors_are_typed(model, tmp_path):
    """Hostile bytes never escape as raw Python errors: each is a FileError naming the problem."""
    text = dpcvx.save(model, tmp_path / "m.json").read_text()
    cases = {
        "nested.json": ("[" * 100_000 + "]" * 100_000, "nests JSON"),
        "deep_object.json": ('{"a":' * 40 + "1" + "}" * 40, "nests JSON more than 32 levels"),
        "huge_int.json": (text.replace('"delta": 0.0', '"delta": 1' + "0" * 5000, 1), "integer of 5001 digits"),
        "truncated.json": (text[: len(text) // 2], "not valid JSON.*truncated"),
        "list.json": ("[1, 2]", "the model file must be a JSON object, got list"),
        "string.json": ('"model"', "must be a JSON object, got str"),
        "empty.json": ("", "not valid JSON"),
        "nan.json": (text.replace('"delta": 0.0', '"delta": NaN', 1), "holds NaN"),
    }
    for name, (content, message) in cases.items():
        (tmp_path / name).write_text(content)
        with pytest.raises(dpcvx.exceptions.FileError, match=message):
            dpcvx.load(tmp_path / name)
    (tmp_path / "latin1.json").write_bytes(text.replace("0.0", "0.0\xe9", 1).encode("latin-1"))
    with pytest.raises(dpcvx.exceptions.FileError, match="not UTF-8 text"):
        dpcvx.load(tmp_path / "latin1.json")
    with pytest.raises(dpcvx.exceptions.FileError, match="is a directory"):
        dpcvx.load(tmp_path)
    deep = json.loads(text)
    nested = deep["certificate"]["verification"]
    for _ in range(5000):
        nested = nested.setdefault("x", {})
    with pytest.raises(dpcvx.InputError, match="nest more than 32 levels"):
        serialization.model_from_dict(deep)
    with pytest.raises(dpcvx.InputError, match="too large for a floating-point number"):
        data = json.loads(text)
        data["epsilon"] = 10 ** 400
        serialization.model_from_dict(data)
