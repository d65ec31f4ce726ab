"""A binary classifier's public threshold is saved with its release as the decision cut (optional top-level
``decision_cut``): the loaded model predicts what the estimator predicted at any threshold (issue 43's promise), a
file of threshold 0.5 is written as before, and an edited cut is refused by name."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import dpcvx
from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import FileError, InputError
from dpcvx.release.serialization import model_from_dict, model_to_dict

pytest.importorskip("sklearn")
from sklearn.exceptions import NotFittedError  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402

from dpcvx import DPERMClassifier, DPHuberSVM, DPLinearRegression, DPLogisticRegression  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning"),
              pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")]

RNG = np.random.default_rng(11)
X = RNG.normal(size=(2000, 3))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
Y = (X[:, 0] + 0.3 * RNG.normal(size=2000) > 0.6).astype(int)  # about a fifth positive


@pytest.mark.parametrize("estimator", [
    DPLogisticRegression(threshold=0.3, random_state=0),
    DPLogisticRegression(threshold=0.7, random_state=0),
    DPLogisticRegression(threshold="prior", class_prior=(0.8, 0.2), random_state=0),
    DPLogisticRegression(threshold="prior", class_prior="private", random_state=0),
    DPHuberSVM(threshold=0.3, random_state=0),
    DPERMClassifier(loss="logistic", threshold=0.7, random_state=0),
], ids=["0.3", "0.7", "public prior", "private prior", "huber svm", "erm"])
def test_a_loaded_model_predicts_what_the_estimator_predicted_at_its_threshold(tmp_path, estimator):
    estimator.fit(X, Y)
    at_zero = np.where(estimator.decision_function(X) > 0, *estimator.classes_[::-1])
    assert np.any(at_zero != estimator.predict(X))  # the threshold moves some rows
    # model_ predicts at the estimator's cut, and is saved as the estimator is (it was cut 0, no names, no warning)
    assert estimator.model_.decision_cut == estimator.decision_cut_
    assert np.array_equal(estimator.model_.predict(X), estimator.predict(X))
    path = dpcvx.save(estimator, tmp_path / "model.json")
    assert dpcvx.save(estimator.model_, tmp_path / "release.json").read_text() == path.read_text()
    assert json.loads(path.read_text())["decision_cut"] == estimator.decision_cut_ != 0
    loaded = dpcvx.load(path)
    assert loaded.decision_cut == estimator.decision_cut_
    assert np.array_equal(loaded.predict(X), estimator.predict(X))
    assert loaded.score(X, Y) == estimator.score(X, Y)
    assert np.array_equal(loaded.decision_function(X), estimator.decision_function(X))  # the scores unchanged
    assert dpcvx.save(loaded, tmp_path / "again.json").read_text() == path.read_text()  # the cut saved again


def test_the_cut_is_the_current_thresholds(tmp_path):
    estimator = DPLogisticRegression(threshold=0.3, random_state=0).fit(X, Y)
    assert estimator.decision_cut_ == pytest.approx(math.log(0.3 / 0.7), rel=1e-15)
    release = estimator.model_
    estimator.set_params(threshold=0.6)   # post-processing: no refit
    assert estimator.decision_cut_ == pytest.approx(math.log(0.6 / 0.4), rel=1e-15)
    assert estimator.model_ is release and release.decision_cut == estimator.decision_cut_  # model_ follows it
    assert np.array_equal(estimator.model_.predict(X), estimator.predict(X))
    loaded = dpcvx.load(dpcvx.save(estimator, tmp_path / "model.json"))
    assert np.array_equal(loaded.predict(X), estimator.predict(X))


def test_a_pipeline_is_saved_with_its_estimators_cut(tmp_path):
    schema = PublicSchema((NumericColumn("age", 17, 90), CategoricalColumn("job", ("a", "b", "c"))))
    table = {"age": RNG.uniform(17, 90, 2000), "job": np.array(["a", "b", "c", "a"] * 500, dtype=object)}
    labels = (table["age"] + RNG.normal(0, 10, 2000) > 70).astype(int)
    pipeline = make_pipeline(schema, DPLogisticRegression(threshold=0.25, random_state=0)).fit(table, labels)
    loaded = dpcvx.load(dpcvx.save(pipeline, tmp_path / "pipeline.json"))
    rows = loaded.schema.transform(table)
    assert np.any(np.where(pipeline.decision_function(table) > 0, 1, 0) != pipeline.predict(table))
    assert np.array_equal(pipeline[-1].model_.predict(rows), pipeline.predict(table))
    assert np.array_equal(loaded.predict(rows), pipeline.predict(table))


@pytest.mark.parametrize("threshold", [0.5, None])
def test_a_file_at_threshold_one_half_is_written_as_before(tmp_path, threshold):
    """No key at the default threshold: the estimator's file is its release's, byte for byte (the release
    fingerprints, tests/release/release_fingerprints.py, check the writer's text itself)."""
    estimator = DPLogisticRegression(random_state=0, **({} if threshold is None else {"threshold": threshold}))
    estimator.fit(X, Y)
    assert estimator.decision_cut_ == 0.0
    text = dpcvx.save(estimator, tmp_path / "model.json").read_text()
    assert "decision_cut" not in text
    assert text == dpcvx.save(estimator.model_, tmp_path / "release.json").read_text()
    assert dpcvx.load(tmp_path / "model.json").decision_cut == 0.0


def test_a_release_object_is_saved_with_its_own_cut(tmp_path):
    estimator = DPLogisticRegression(random_state=0).fit(X, Y)
    release = estimator.model_
    release.decision_cut = -1.25
    assert release.predictor.decision_cut == -1.25
    assert np.array_equal(release.predict(X), np.where(release.decision_function(X) > -1.25, 1, 0))
    loaded = dpcvx.load(dpcvx.save(release, tmp_path / "model.json"))
    assert loaded.decision_cut == -1.25 and np.array_equal(loaded.predict(X), release.predict(X))


def test_only_a_fitted_classifier_has_a_cut_and_one_vs_rest_has_k():
    with pytest.raises(NotFittedError):
        getattr(DPLogisticRegression(threshold=0.3), "decision_cut_")  # noqa: B009 - the property raises
    multiclass = DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, np.arange(2000) % 3)
    assert np.array_equal(multiclass.decision_cut_, np.zeros(3))  # the largest score (threshold 0.5)


def _binary_file(tmp_path):
    estimator = DPLogisticRegression(threshold=0.3, random_state=0).fit(X, Y)
    return json.loads(dpcvx.save(estimator, tmp_path / "model.json", overwrite=True).read_text())


@pytest.mark.parametrize("value, message", [
    ("-0.8", "decision_cut must be a number"),
    (True, "decision_cut must be a number"),
    (None, "decision_cut must be a number"),
    ([0.1], "decision_cut must be a number"),
    ({"float": 0.1}, "decision_cut must be a number"),
])
def test_an_edited_cut_is_refused_by_name(tmp_path, value, message):
    data = _binary_file(tmp_path)
    data["decision_cut"] = value
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match=message):
        dpcvx.load(tmp_path / "edited.json")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_a_cut_that_is_not_finite_is_refused_by_name(tmp_path, value):
    data = _binary_file(tmp_path)
    data["decision_cut"] = value
    with pytest.raises(InputError, match="decision_cut must be finite"):
        model_from_dict(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))  # Infinity/NaN: not JSON, refused by the reader
    with pytest.raises(FileError):
        dpcvx.load(tmp_path / "edited.json")
    release = model_from_dict(_binary_file(tmp_path))
    release.decision_cut = value
    with pytest.raises(InputError, match="decision_cut must be finite"):
        model_to_dict(release)


def _multiclass():
    return DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, np.arange(2000) % 3)


def _regression():
    return DPLinearRegression(random_state=0).fit(X, X[:, 0])


def _kernel():
    from dpcvx.models.tddl import TDDL

    labels = np.where(Y[:200] == 1, 1.0, -1.0)
    return TDDL("rbf", gamma=2.0, lam=0.1, loss="huber_hinge:h=0.5").fit(X[:200, :2] / 2, labels, 1.0,
                                                                      Z=X[:20, :2] / 2, random_state=0)


@pytest.mark.parametrize("fitted, kind", [(_multiclass, "multiclass"), (_regression, "regression"),
                                          (_kernel, "kernel")])
def test_a_cut_is_refused_on_a_file_that_is_not_a_binary_classifier(tmp_path, fitted, kind):
    model = fitted()
    data = json.loads(dpcvx.save(model, tmp_path / "model.json").read_text())
    # a multiclass release takes k cuts, one a class (tests/models/test_multiclass_prior.py), never one number
    refused = "must be a list of 3 numbers" if kind == "multiclass" else f"a {kind} release takes no decision_cut"
    for value in (0.5, 0):
        data["decision_cut"] = value
        (tmp_path / "edited.json").write_text(json.dumps(data))
        with pytest.raises(FileError, match=refused):
            dpcvx.load(tmp_path / "edited.json")
    release = getattr(model, "model_", model)
    with pytest.raises(InputError, match=refused):
        model_to_dict(release, decision_cut=0.5)


def test_a_private_priors_cut_is_declared_a_function_of_the_released_count():
    """The release-file audit: with class_prior='private' the cut moves with the count, and only with it."""
    from dpcvx.models.release_audit import audit_release_file

    y2 = Y.copy()
    y2[np.flatnonzero(Y == 1)[0]] = 0   # the count moves
    result = audit_release_file(DPLogisticRegression(threshold="prior", class_prior="private"), X, Y,
                                epsilon=1.0, seed=3, neighbour=(X, y2))
    assert result.clean, str(result)
    assert "decision_cut" in result.derived


def test_a_tuned_estimator_s_release_keeps_its_cut_in_the_tuning_result():
    """TuningResult.to_dict holds the selected release in its file form: the selected estimator's cut goes with it,
    as dpcvx.save writes it, so the release read back from the result predicts what the estimator predicts."""
    result = dpcvx.tune(DPLogisticRegression(threshold=0.3), X, Y, {"lam": [1e-3, 1e-2]}, epsilon=1.0,
                        random_state=0)
    written = result.to_dict()["model"]
    assert written["decision_cut"] == result.model.decision_cut_ != 0
    assert np.array_equal(model_from_dict(written).predict(X), result.model.predict(X))
