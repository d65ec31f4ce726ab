"""The public annotations accept the calls the docs teach (session 62, probeC F1).

This module is run by pytest (each call works) and type-checked by the project's mypy configuration
(``[tool.mypy] files`` in pyproject.toml), so an annotation that rejects a documented call fails ``mypy``: the
classes of a classifier given as a tuple of three or as a list (README.md, docs/tutorial-multiclass.md),
``threshold="prior"``, ``dpcvx.verify("logistic")``, a list of columns for PublicSchema and of categories for
CategoricalColumn, and ``dpcvx.load(path).predict_proba(X)`` for a loaded classifier (docs/model-files.md). Each of
these was an error of mypy at the parent commit (``expected "tuple[Any, Any]"``, ``expected "float"``, ``"Release"
has no attribute "predict_proba"``) although it ran.
"""

from __future__ import annotations

from pathlib import Path

import cvxpy as cp
import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

import dpcvx

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")


def _rows(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-0.5, 0.5, (n, 3))


def test_classes_as_a_tuple_of_three_or_a_list_and_threshold_prior() -> None:
    X = _rows(600, 0)
    three = np.digitize(X[:, 0], [-0.2, 0.2])
    multiclass = dpcvx.DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, three)
    assert list(multiclass.classes_) == [0, 1, 2]
    words = np.where(X[:, 1] > 0, "yes", "no")
    listed = dpcvx.DPLogisticRegression(classes=["no", "yes"], random_state=0).fit(X, words)
    assert list(listed.classes_) == ["no", "yes"]
    rare = dpcvx.DPLogisticRegression(classes=(False, True), class_prior="private", threshold="prior",
                                      random_state=0).fit(X, X[:, 2] > 0.3)
    assert rare.predict(X).dtype == bool
    custom = dpcvx.DPERMClassifier(loss=lambda z: cp.logistic(-z), classes=("a", "b", "c"))
    svm = dpcvx.DPHuberSVM(classes=[0, 1, 2])
    assert custom.get_params()["classes"] == ("a", "b", "c") and svm.get_params()["classes"] == [0, 1, 2]
    core = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(loss="logistic", data_norm=1.0), classes=["a", "b", "c"])
    assert core.classes == ("a", "b", "c")
    binary = dpcvx.PrivateERM(loss="logistic", data_norm=1.0, classes=[0, 1])
    model = binary.fit(X, (X[:, 0] > 0).astype(int), 1.0, random_state=0)
    assert set(model.predict(X).tolist()) <= {0, 1}


def test_verify_takes_a_catalogue_name() -> None:
    by_name = dpcvx.verify("logistic")
    by_callable = dpcvx.verify(dpcvx.losses.logistic())
    assert by_name.allows("objective") and by_name.loss == by_callable.loss == "logistic(-z)"


def test_a_schema_of_lists_and_a_loaded_classifiers_probabilities(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"a": rng.uniform(0, 1, 400), "b": rng.choice(["x", "y"], 400)})
    y = (frame["a"] > 0.5).astype(int)
    schema = dpcvx.PublicSchema([dpcvx.NumericColumn("a", 0, 1), dpcvx.CategoricalColumn("b", ["x", "y"])])
    assert schema.columns[1] == dpcvx.CategoricalColumn("b", ("x", "y"))  # kept as tuples
    pipeline = make_pipeline(schema, dpcvx.DPLogisticRegression(random_state=0)).fit(frame, y)
    path = dpcvx.save(pipeline, tmp_path / "model.json")
    loaded = dpcvx.load(path)
    probabilities: np.ndarray = loaded.predict_proba(loaded.schema.transform(frame))
    assert probabilities.shape == (400, 2) and np.allclose(probabilities.sum(axis=1), 1.0)
    np.testing.assert_array_equal(probabilities, pipeline.predict_proba(frame))


def test_a_release_without_a_probability_model_has_no_predict_proba() -> None:
    """The base Release declares predict_proba for the type checker; a regression release still has none."""
    X = _rows(600, 2)
    regression = dpcvx.DPLinearRegression(label_bound=(-1.0, 1.0), random_state=0).fit(X, X[:, 0])
    assert not hasattr(regression.model_, "predict_proba")
    with pytest.raises(AttributeError, match="has no predict_proba"):
        regression.model_.predict_proba(X)


def test_a_relation_by_name_a_solver_callable_and_a_loss_of_prediction_and_label() -> None:
    """docs/accounting.md, docs/mechanisms.md and docs/tutorial-regression.md: errors of mypy at the parent too
    (``expected "Neighbours"``, ``expected "str"``, ``expected "Callable[[Expression], Expression] | str | None"``)."""
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5, neighbours="add-remove")
    assert str(accountant.neighbours) == "add-remove"

    def my_solver(program: cp.Problem, w: cp.Variable) -> None:
        program.solve(solver="CLARABEL")

    X = _rows(300, 3) / 1.5
    y = np.where(X[:, 0] > 0, 1, -1)
    model = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, solver=my_solver).fit_nonprivate(X, y)  # a private fit refuses it
    assert model.coef_.shape == (3,)
    regression = dpcvx.PrivateERM(loss=lambda p, y: cp.square(p - y) / 2, task="regression", label_bound=1.0,
                                  lam=1e-2, data_norm=1.0, constraints=lambda w: [cp.norm(w, 2) <= 1.5])
    assert regression.fit(X, X[:, 0], 1.0, random_state=0).coef_.shape == (3,)
