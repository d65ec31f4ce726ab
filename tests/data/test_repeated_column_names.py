"""A table whose column names repeat is refused, naming the repeated name, at every entry that reads a table's
columns by name (the schema, the API, the estimators at fit and predict, a loaded model), before anything is
charged. Before, the estimators fitted a pandas frame with columns ["a", "a"] (the budget charged,
``feature_names_in_ = ['a', 'a']``), ``dpcvx.save`` then refused those names, and the frame with its two columns
swapped passed the name check and was predicted wrongly; the schema read the first "a" of a pandas frame or pyarrow
Table, silently. polars refuses repeated names itself."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx import DPLinearRegression, DPLogisticRegression, NumericColumn, PrivateERM, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.models.linear_regression import PrivateLinearRegression

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")

RNG = np.random.default_rng(0)
X = RNG.uniform(0, 0.5, size=(200, 3))
Y01 = (X[:, 0] > 0.25).astype(int)
SCHEMA = PublicSchema([NumericColumn("a", 0, 1)], norm=1.0)
REFUSAL = r"the table's column names repeat \['a'\]: dpcvx reads a table's columns by name, so each column needs"
FITS = {
    "PublicSchema.transform": lambda table, accountant: SCHEMA.transform(table),
    "PrivateERM": lambda table, accountant: PrivateERM(data_norm=1.0).fit(table, 2 * Y01 - 1, 1.0, random_state=0,
                                                                         accountant=accountant),
    "DPLogisticRegression": lambda table, accountant: DPLogisticRegression(random_state=0).fit(
        table, Y01, accountant=accountant),
    "DPLinearRegression": lambda table, accountant: DPLinearRegression(random_state=0).fit(
        table, X[:, 0], accountant=accountant),
    "PrivateLinearRegression": lambda table, accountant: PrivateLinearRegression(1.0, 1.0).fit(
        table, X[:, 0], 1.0, 1e-6, accountant=accountant),
}


def _repeating_tables() -> dict[str, object]:
    """X with the column names a, b, a, as a pandas frame and a pyarrow Table."""
    return {"pandas": pd.DataFrame(X, columns=["a", "b", "a"]),
            "pyarrow": pa.table([pa.array(X[:, j]) for j in range(3)], names=["a", "b", "a"])}


@pytest.mark.parametrize("entry", FITS)
@pytest.mark.parametrize("library", ["pandas", "pyarrow"])
def test_a_table_whose_column_names_repeat_is_refused_before_anything_is_charged(entry, library):
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=REFUSAL):
        FITS[entry](_repeating_tables()[library], accountant)
    assert accountant.ledger == []


def test_an_estimator_and_a_loaded_model_refuse_repeated_names_at_predict(tmp_path):
    """Fitted on distinct names, the predictions refuse a table that repeats one (it could not tell the two apart)."""
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    estimator = DPLogisticRegression(random_state=0).fit(frame, Y01)
    loaded = dpcvx.load(dpcvx.save(estimator, tmp_path / "model.json"))
    for model in (estimator, loaded):
        for table in _repeating_tables().values():
            with pytest.raises(InputError, match=REFUSAL):
                model.predict(table)


def test_a_pipeline_with_a_schema_refuses_repeated_names():
    from sklearn.pipeline import make_pipeline

    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    pipeline = make_pipeline(SCHEMA, DPLogisticRegression(random_state=0, accountant=accountant))
    with pytest.raises(InputError, match=REFUSAL):
        pipeline.fit(pd.DataFrame(X[:, :2], columns=["a", "a"]), Y01)
    assert accountant.ledger == []


def test_repeated_names_are_found_once_each_in_the_order_they_first_repeat():
    """The one check of distinct names (tables, schemas, model files' feature_names, the CLI's --names)."""
    from dpcvx.tables import repeated_names

    assert repeated_names(["b", "a", "b", "a", "c", "b"]) == ["b", "a"]
    assert repeated_names(["a", "b"]) == []
    with pytest.raises(InputError, match=r"column names repeat \[0\]"):
        SCHEMA.transform(pd.DataFrame(X[:, :2], columns=[0, 0]))
