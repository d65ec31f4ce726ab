"""Tables dpcvx cannot read are refused with a typed error naming the table or the column and the fix, on every
path (the schema, the API, the estimators at fit and predict): a polars LazyFrame (a query, its rows not computed)
and a column of nested values (polars List, Array, Struct; pyarrow list, struct; a pandas column of lists or
arrays). Before, the schema raised a bare TypeError or ValueError and the estimators quoted scikit-learn's
"Reshape your data" advice, the wrong fix."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import CategoricalColumn, DPLinearRegression, DPLogisticRegression, NumericColumn, PrivateERM, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.models.linear_regression import PrivateLinearRegression

pl = pytest.importorskip("polars")

X = np.tile([[0.1, 0.2], [0.3, -0.1]], (50, 1))
Y01 = np.arange(100) % 2
SCHEMA = PublicSchema([NumericColumn("a", 0, 1), NumericColumn("b", -1, 1)], norm=1.0)
FITS = {
    "PublicSchema.transform": lambda table: SCHEMA.transform(table),
    "PrivateERM": lambda table: PrivateERM(data_norm=1.0).fit(table, 2 * Y01 - 1, 1.0, random_state=0),
    "DPLogisticRegression": lambda table: DPLogisticRegression(random_state=0).fit(table, Y01),
    "DPLinearRegression": lambda table: DPLinearRegression(random_state=0).fit(table, X[:, 0]),
    "PrivateLinearRegression": lambda table: PrivateLinearRegression(1.0, 1.0).fit(table, X[:, 0], 1.0, 1e-6),
}


@pytest.mark.parametrize("entry", FITS)
def test_a_lazy_frame_is_refused_naming_the_fix(entry):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing reads its schema (polars warns of the cost)
        with pytest.raises(InputError, match=r"polars LazyFrame.*collect it first \(frame\.collect\(\)\)"):
            FITS[entry](pl.DataFrame(X, schema=["a", "b"]).lazy())


def test_an_estimator_refuses_a_lazy_frame_at_predict():
    estimator = DPLogisticRegression(random_state=0).fit(pl.DataFrame(X, schema=["a", "b"]), Y01)
    with pytest.raises(InputError, match="polars LazyFrame"):
        estimator.predict(pl.DataFrame(X, schema=["a", "b"]).lazy())


def _nested_tables() -> list:
    """Tables whose column 'b' holds a list, an array or a struct in each entry."""
    pa = pytest.importorskip("pyarrow")
    tables = [pl.DataFrame({"a": X[:, 0], "b": [[v] for v in X[:, 1]]}),
              pl.DataFrame({"a": X[:, 0], "b": pl.Series([[v, v] for v in X[:, 1]], dtype=pl.Array(pl.Float64, 2))}),
              pl.DataFrame({"a": X[:, 0], "b": [{"x": v} for v in X[:, 1]]}),
              pa.table({"a": X[:, 0], "b": [[v] for v in X[:, 1]]})]
    return tables


@pytest.mark.parametrize("entry", FITS)
def test_a_column_of_nested_values_is_refused_naming_it(entry):
    for table in _nested_tables():
        with pytest.raises(InputError, match=r"column 'b' holds nested values \(.*\): lists, arrays and structs are "
                                             "not a column type dpcvx encodes"):
            FITS[entry](table)


@pytest.mark.parametrize("column", [NumericColumn("b", -1, 1, missing=0.0), CategoricalColumn("b", ["x"])])
def test_a_pandas_column_of_lists_or_arrays_is_refused_by_its_row(column):
    pd = pytest.importorskip("pandas")
    arrays = np.empty(3, dtype=object)
    arrays[:] = [np.array([0.5]), np.array([0.2]), np.array([0.1])]
    schema = PublicSchema([column], norm=1.0)
    for values, row in ((arrays, 0), (["x", [1, 2], "x"], 1)):
        with pytest.raises(InputError, match=rf"column 'b' holds a list or an array in row {row} \(the value is not "
                                             "shown: it is data\\): nested values"):
            schema.transform(pd.DataFrame({"b": values}))


def test_a_series_as_x_is_refused_naming_its_type():
    # scikit-learn's text quotes the type ("got <class 'pandas.Series'>"), which is not data: it was masked as
    # "<class <a value, not shown: it is data>>" (an audit)
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=r"X must be 2-D \(n samples x d features\), got a Series of shape \(10,\)"):
        DPLogisticRegression().fit(pd.Series(np.zeros(10)), np.zeros(10, dtype=int))


def test_a_missing_label_of_a_nullable_column_is_refused_without_numpy_s_cast_warning():
    # scikit-learn's label kind cast the NaN to an integer: numpy's "invalid value encountered in cast" came out
    # beside the refusal (an audit)
    pd = pytest.importorskip("pandas")
    y = pd.Series([0, 1] * 25, dtype="Int64")
    y[3] = pd.NA
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match="first at row 3"):
            DPLogisticRegression().fit(np.zeros((50, 3)), y)


@pytest.mark.parametrize("entry", [np.datetime64("2020-01-01"), np.timedelta64(5, "D")])
def test_a_numpy_date_or_duration_among_numbers_is_refused_by_its_position(entry):
    # numpy's float conversion read 2020-01-01 as 18262 (days) and 5 days as 5.0, where a column of that dtype or a
    # pandas Timestamp entry is refused (an audit)
    pd = pytest.importorskip("pandas")
    column = np.array([0.1, 0.2, entry, 0.3], dtype=object)
    with pytest.raises(InputError, match="X column 'c' holds a (date|timedelta) that is not a number in row 2"):
        DPLogisticRegression().fit(pd.DataFrame({"a": [0.1, 0.2, 0.3, 0.4], "c": column}), [0, 1, 0, 1])
    with pytest.raises(InputError, match="holds a (date|timedelta) that is not a number in row 2"):
        DPLogisticRegression().fit(column.reshape(-1, 1), [0, 1, 0, 1])
    with pytest.raises(InputError, match="y holds a (date|timedelta) that is not a number in row 2"):
        DPLinearRegression(label_bound=1.0).fit(np.zeros((4, 2)), column)


def test_a_date_target_is_refused_by_its_dtype():
    dates = np.array(["2020-01-01"] * 4, dtype="datetime64[D]")  # read as days since 1970 before
    for learner in (DPLinearRegression(label_bound=1.0), dpcvx.DPHuberRegressor(label_bound=1.0)):
        with pytest.raises(InputError, match="y has dtype datetime64"):
            learner.fit(np.zeros((4, 2)), dates)
