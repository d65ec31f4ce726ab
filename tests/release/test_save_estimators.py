"""dpcvx.save takes a fitted estimator, or a scikit-learn Pipeline of a PublicSchema and a dpcvx estimator, and
keeps the schema; the loaded model predicts what the estimator predicted, probabilities included (issue 43)."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import InputError

pytest.importorskip("sklearn")
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from dpcvx import DPHuberRegressor, DPHuberSVM, DPLinearRegression, DPLogisticRegression  # noqa: E402

pytestmark = [pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning"),
              pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")]

RNG = np.random.default_rng(7)
X = RNG.uniform(0.0, 0.5, size=(300, 3))
Y = (X[:, 0] + X[:, 1] > 0.5).astype(int)
SCHEMA = PublicSchema((NumericColumn("age", 17, 90, missing=17.0), CategoricalColumn("job", ("a", "b", "?"),
                                                                                     missing="?")))
TABLE = {"age": RNG.uniform(17, 90, 300), "job": np.array(["a", "b", "?", "a"] * 75, dtype=object)}
LABELS = (TABLE["age"] > 50).astype(int)


@pytest.mark.parametrize("estimator, labels", [
    (DPLogisticRegression(random_state=0), Y),
    (DPLogisticRegression(classes=(0, 1, 2), random_state=0), np.arange(300) % 3),
    (DPHuberSVM(random_state=0), Y),
    (DPLinearRegression(random_state=0), X[:, 0]),
    (DPHuberRegressor(random_state=0), X[:, 0]),
])
def test_a_saved_estimator_loads_and_predicts_what_it_predicted(tmp_path, estimator, labels):
    estimator.fit(X, labels)
    path = dpcvx.save(estimator, tmp_path / "model.json")
    loaded = dpcvx.load(path)
    assert np.array_equal(loaded.predict(X), estimator.predict(X))
    if hasattr(estimator, "predict_proba"):
        assert np.array_equal(loaded.predict_proba(X), estimator.predict_proba(X))


@pytest.mark.parametrize("estimator, labels", [
    (DPLogisticRegression(threshold=0.3, random_state=0), Y),
    (DPLogisticRegression(classes=(0, 1, 2), random_state=0), np.arange(300) % 3),
    (DPHuberSVM(threshold=0.7, random_state=0), Y),
    (DPLinearRegression(random_state=0), X[:, 0]),
    (DPHuberRegressor(random_state=0), X[:, 0]),
])
def test_the_estimators_release_is_saved_as_the_estimator_is(tmp_path, estimator, labels):
    """estimator.model_ predicts what the estimator predicts (its cut) and keeps its table's names: save(model_)
    writes the file save(estimator) writes (it wrote cut 0 and no names, without a warning)."""
    import warnings

    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(X, columns=["a", "b", "c"])
    estimator.fit(frame, labels)
    whole = dpcvx.save(estimator, tmp_path / "estimator.json")
    assert dpcvx.save(estimator.model_, tmp_path / "release.json").read_text() == whole.read_text()
    assert list(estimator.model_.feature_names_in_) == ["a", "b", "c"]
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")  # the estimator's own scoring warns of none
        assert np.array_equal(estimator.model_.predict(frame), estimator.predict(frame))
    with pytest.raises(InputError, match="feature names should match"):
        estimator.model_.predict(frame[["b", "a", "c"]])


def test_the_loaded_binary_logistic_model_has_the_sigmoid_probabilities():
    estimator = DPLogisticRegression(random_state=1).fit(X, Y)
    scores = estimator.decision_function(X)
    expected = np.column_stack([1 / (1 + np.exp(scores)), 1 / (1 + np.exp(-scores))])
    np.testing.assert_allclose(estimator.model_.predict_proba(X), expected, rtol=1e-12)


def test_a_release_of_another_loss_has_no_predict_proba(tmp_path):
    estimator = DPHuberSVM(random_state=0).fit(X, Y)
    loaded = dpcvx.load(dpcvx.save(estimator, tmp_path / "svm.json"))
    for model in (estimator.model_, loaded):
        assert not hasattr(model, "predict_proba")
        with pytest.raises(AttributeError, match="not the logistic loss"):
            model.predict_proba(X)


def test_a_pipeline_of_a_schema_and_an_estimator_is_saved_with_its_schema(tmp_path):
    pipeline = make_pipeline(SCHEMA, DPLogisticRegression(random_state=0)).fit(TABLE, LABELS)
    loaded = dpcvx.load(dpcvx.save(pipeline, tmp_path / "pipeline.json"))
    assert loaded.schema == SCHEMA
    rows = loaded.schema.transform(TABLE)
    assert np.array_equal(loaded.predict(rows), pipeline.predict(TABLE))
    assert np.array_equal(loaded.predict_proba(rows), pipeline.predict_proba(TABLE))


@pytest.mark.parametrize("estimator, labels", [(DPLogisticRegression(random_state=0), LABELS),
                                               (DPLogisticRegression(classes=(0, 1, 2), random_state=0),
                                                np.arange(300) % 3),
                                               (DPLinearRegression(random_state=0), TABLE["age"] / 90)])
def test_a_loaded_model_given_the_records_its_schema_encodes_says_to_encode_them(tmp_path, estimator, labels):
    """The records are refused as such, with the fix (the model's own schema), not as text to convert or declare
    categorical in a PublicSchema the model already has."""
    pandas = pytest.importorskip("pandas")
    pipeline = make_pipeline(SCHEMA, estimator).fit(TABLE, labels)
    loaded = dpcvx.load(dpcvx.save(pipeline, tmp_path / "pipeline.json"))
    records = pandas.DataFrame(TABLE)
    for method in ("predict", "decision_function"):
        with pytest.raises(InputError, match=r"X holds the records the model's schema encodes \(its columns \['age', "
                                             r"'job'\]\).*pass model.schema.transform\(X\)"):
            getattr(loaded, method)(records)
    with pytest.raises(InputError, match="model.schema.transform"):
        loaded.score(records, labels)
    assert np.array_equal(loaded.predict(loaded.schema.transform(records)), pipeline.predict(TABLE))


NUMERIC = PublicSchema((NumericColumn("a", 0, 10), NumericColumn("b", -1, 1)))


@pytest.mark.parametrize("estimator, labels", [(DPLogisticRegression(random_state=0), LABELS),
                                               (DPLinearRegression(random_state=0), TABLE["age"] / 90)])
def test_a_loaded_model_of_a_numeric_schema_refuses_its_raw_columns(tmp_path, estimator, labels):
    """A table of exactly a numeric schema's raw columns was taken for encoded rows and predicted unlike dpcvx
    predict (a file of dpcvx fit: its schema and no names). It is refused as records, as a table with more columns
    is; the model's own names (a pipeline fitted on named encoded rows, pandas output) still pass."""
    pandas = pytest.importorskip("pandas")
    records = pandas.DataFrame({"a": RNG.uniform(0, 10, 300), "b": RNG.uniform(-1, 1, 300)})
    pipeline = make_pipeline(NUMERIC, estimator).fit(records, labels)
    loaded = dpcvx.load(dpcvx.save(pipeline, tmp_path / "numeric.json"))
    assert list(NUMERIC.feature_names) == ["a:scaled", "b:scaled"]  # never the columns' names
    with pytest.raises(InputError, match=r"X holds the records the model's schema encodes \(its columns \['a', "
                                         r"'b'\]\).*pass model.schema.transform\(X\)"):
        loaded.predict(records)
    assert np.array_equal(loaded.predict(loaded.schema.transform(records)), pipeline.predict(records))
    named = make_pipeline(PublicSchema(NUMERIC.columns).set_output(transform="pandas"), estimator).fit(records, labels)
    reloaded = dpcvx.load(dpcvx.save(named, tmp_path / "named.json"))
    rows = named[0].transform(records)
    assert list(reloaded.feature_names_in_) == ["a:scaled", "b:scaled"]
    assert np.array_equal(reloaded.predict(rows), named.predict(records))


@pytest.mark.parametrize("estimator, labels", [(DPLogisticRegression(random_state=0), LABELS),
                                               (DPLinearRegression(random_state=0), TABLE["age"] / 90)])
def test_the_raw_columns_of_a_numeric_schema_are_never_taken_for_its_encoded_rows(tmp_path, estimator, labels):
    """A pipeline with pandas output fitted its estimator on rows named as the schema's columns (a numeric column's
    encoded feature kept the column's name): the estimator, and the file saved from the pipeline, predicted a table of
    the raw columns as encoded rows without a word (58 % agreement with the pipeline). The encoded features are now
    named name:scaled, so the raw columns are refused by every handle; a file whose names are its schema's columns (one
    written before) refuses every table of those names, records or rows, and takes the schema's rows."""
    import warnings

    pandas = pytest.importorskip("pandas")
    records = pandas.DataFrame({"a": RNG.uniform(0, 10, 300), "b": RNG.uniform(-1, 1, 300)})
    pipeline = make_pipeline(PublicSchema(NUMERIC.columns).set_output(transform="pandas"), estimator)
    pipeline.fit(records, labels)
    rows = pipeline[0].transform(records)
    assert list(rows.columns) == list(pipeline[-1].feature_names_in_) == ["a:scaled", "b:scaled"]
    loaded = dpcvx.load(dpcvx.save(pipeline, tmp_path / "pipeline.json"))
    for handle in (pipeline[-1], pipeline[-1].model_, loaded):
        with pytest.raises(InputError, match="feature names should match|X holds the records"):
            handle.predict(records)
        assert np.array_equal(handle.predict(rows), pipeline.predict(records))
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*feature names")  # the schema's rows have none: no warning
        assert np.array_equal(loaded.predict(loaded.schema.transform(records)), pipeline.predict(records))
    # a file whose names are the schema's columns (as a pipeline's were before): either table is refused
    encoded = pandas.DataFrame(NUMERIC.transform(records), columns=["a", "b"])
    older = type(estimator)(random_state=0).fit(encoded, labels)
    old = dpcvx.load(dpcvx.save(older, tmp_path / "old.json", schema=NUMERIC))
    assert list(old.feature_names_in_) == ["a", "b"]
    for table in (records, encoded):
        with pytest.raises(InputError, match=r"X holds the records the model's schema encodes"):
            old.predict(table)
    assert np.array_equal(old.predict(old.schema.transform(records)), older.predict(encoded))


def test_a_pipeline_with_other_steps_or_an_unfitted_estimator_is_refused_before_writing(tmp_path):
    path = tmp_path / "never.json"
    scaled = make_pipeline(StandardScaler(), DPLogisticRegression(random_state=0)).fit(X, Y)
    with pytest.raises(InputError, match=r"steps are a PublicSchema and a fitted dpcvx estimator.*StandardScaler"):
        dpcvx.save(scaled, path)
    with pytest.raises(InputError, match="DPLogisticRegression is not fitted"):
        dpcvx.save(DPLogisticRegression(), path)
    pipeline = make_pipeline(SCHEMA, DPLogisticRegression(random_state=0)).fit(TABLE, LABELS)
    other = PublicSchema((NumericColumn("age", 0, 100), CategoricalColumn("job", ("a", "b", "?"))))
    with pytest.raises(InputError, match="differs from the pipeline's PublicSchema"):
        dpcvx.save(pipeline, path, schema=other)
    assert not path.exists()


def test_what_is_not_a_release_is_one_input_error_naming_it_and_what_to_save(tmp_path):
    """A fitted scikit-learn model or scaler and fitted random Fourier features were "not fitted ... fit it first"
    (false: fitting again gave the same), a dict or an array an InputError of another class advising model_. Now
    one InputError, not the not-fitted class, naming what it got and the route; an unfitted dpcvx estimator or
    kernel learner stays not fitted."""
    from sklearn.linear_model import LogisticRegression

    from dpcvx.exceptions import NotFittedError

    path = tmp_path / "never.json"
    foreign = {
        "LogisticRegression, a scikit-learn object: it is not private": LogisticRegression().fit(X, Y),
        "StandardScaler, a scikit-learn object: it is not private": StandardScaler().fit(X),
        r"RandomFourierFeatures, a public feature map, not a release\. For random Fourier features, "
        r"PrivateERM\(feature_map=features": dpcvx.RandomFourierFeatures(gamma=1.0, random_state=0).fit(X),
        r"PrivateERM, whose fit returns its release: save that, dpcvx.save\(learner.fit": dpcvx.PrivateERM(lam=0.1),
        "dict; save a fitted dpcvx estimator": {"a": 1},
        "ndarray; save a fitted dpcvx estimator": np.zeros(3),
        "the class DPLogisticRegression, not a fitted object": DPLogisticRegression,
        # a third probe: a schema read "whose fit returns its release: save that"
        r"PublicSchema, the public columns of a table, not a release: save it with the model fitted on its rows, "
        r"dpcvx.save\(model, path, schema=schema\)": dpcvx.PublicSchema([dpcvx.NumericColumn("a", 0, 1)]),
    }
    for what, saved in foreign.items():
        with pytest.raises(InputError, match=f"only private releases can be saved, got {what}") as refused:
            dpcvx.save(saved, path)
        assert not isinstance(refused.value, NotFittedError)
    for learner in (DPLogisticRegression(), dpcvx.TDDL("rbf", lam=0.1, gamma=1.0)):
        with pytest.raises(NotFittedError, match="is not fitted: dpcvx.save writes a release"):
            dpcvx.save(learner, path)
    assert not path.exists()


def test_a_pipeline_of_a_function_transformer_of_the_schema_is_refused_naming_the_schema_step(tmp_path):
    """FunctionTransformer(schema.transform) fits the model make_pipeline(schema, estimator) fits; save and tune
    refuse it, and their refusals name that pipeline (they named none: the guide taught this form)."""
    pandas = pytest.importorskip("pandas")
    from sklearn.preprocessing import FunctionTransformer

    path, frame = tmp_path / "never.json", pandas.DataFrame(TABLE)
    wrapped = make_pipeline(FunctionTransformer(SCHEMA.transform), DPLogisticRegression(random_state=0))
    route = r"FunctionTransformer of schema.transform.*make_pipeline\(schema, estimator\)"
    with pytest.raises(InputError, match=route):
        dpcvx.save(wrapped.fit(frame, LABELS), path)
    assert not path.exists()
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    with pytest.raises(InputError, match=route + ".*Nothing was charged"):
        dpcvx.tune(wrapped, frame, LABELS, {"dplogisticregression__lam": [1e-3]}, 1.0, accountant=accountant)
    assert accountant.spent.epsilon == 0.0
    scaled = make_pipeline(StandardScaler(), DPLogisticRegression(random_state=0)).fit(X, Y)
    with pytest.raises(InputError) as refused:
        dpcvx.save(scaled, path)
    assert "FunctionTransformer" not in str(refused.value)
    direct = make_pipeline(SCHEMA, DPLogisticRegression(random_state=0)).fit(frame, LABELS)
    assert np.array_equal(direct[-1].coef_, wrapped[-1].coef_)
    loaded = dpcvx.load(dpcvx.save(direct, path))
    assert np.array_equal(loaded.predict(loaded.schema.transform(frame)), wrapped.predict(frame))


def test_the_guide_and_the_example_teach_the_pipeline_save_takes():
    """docs/getting-started.md and examples/sklearn_pipeline.py build make_pipeline(schema, estimator), which
    dpcvx.save and dpcvx.tune take, not a FunctionTransformer of schema.transform, which both refuse."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for page in (root / "docs" / "getting-started.md", root / "examples" / "sklearn_pipeline.py"):
        assert "FunctionTransformer(schema.transform)" not in page.read_text(), page
    assert "dpcvx.save(pipeline," in (root / "examples" / "sklearn_pipeline.py").read_text()


def test_a_saved_estimator_keeps_a_schema_passed_by_hand(tmp_path):
    estimator = DPLogisticRegression(random_state=0).fit(SCHEMA.transform(TABLE), LABELS)
    loaded = dpcvx.load(dpcvx.save(estimator, tmp_path / "m.json", schema=SCHEMA))
    assert loaded.schema == SCHEMA
