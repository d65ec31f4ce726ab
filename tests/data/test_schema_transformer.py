"""PublicSchema as a scikit-learn transformer that spends nothing, on pandas, polars and pyarrow tables, with
vectorised missing values (issue 43)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import dpcvx
from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.data import columns
from dpcvx.exceptions import InputError

pd = pytest.importorskip("pandas")

SCHEMA = PublicSchema((NumericColumn("age", 17, 90, missing=17.0, missing_indicator=True),
                       CategoricalColumn("job", ("a", "b", "?"), missing="?"),
                       NumericColumn("hours", 0, 100)), constant_feature=True)
# ages above the bound spread (91 ... 115): one value piled outside the bounds would read as a code (a warning)
FRAME = pd.DataFrame({"age": [age for k in range(25) for age in (20.0, None, 50.0, 91.0 + k)],
                      "job": ["a", "b", None, "?"] * 25,
                      "hours": [10, 20, 30, 40] * 25})
DICT = {"age": FRAME["age"].to_numpy(), "job": np.array(["a", "b", "?", "?"] * 25), "hours": FRAME["hours"].to_numpy()}


def _tables() -> dict:
    tables = {"pandas": FRAME, "dict": DICT}
    try:
        import polars
        tables["polars"] = polars.from_pandas(FRAME)
    except ImportError:
        pass
    try:
        import pyarrow
        tables["pyarrow"] = pyarrow.Table.from_pandas(FRAME, preserve_index=False)
    except ImportError:
        pass
    return tables


def test_every_table_library_gives_the_same_rows():
    expected = SCHEMA.transform(DICT)
    assert expected.shape == (100, SCHEMA.dimension)
    for name, table in _tables().items():
        np.testing.assert_array_equal(SCHEMA.transform(table), expected, err_msg=name)


def test_a_pyarrow_table_is_transformed_not_refused():
    pyarrow = pytest.importorskip("pyarrow")
    table = pyarrow.table({"age": [20.0, None], "job": ["a", None], "hours": [10, 20]})
    rows = SCHEMA.transform(table)
    assert rows.shape == (2, SCHEMA.dimension) and np.all(np.linalg.norm(rows, axis=1) <= 1.0)


def test_fit_reads_nothing_and_returns_the_schema_unchanged():
    class Untouchable:
        def __getattr__(self, name):
            raise AssertionError(f"fit read the data ({name})")

    before = SCHEMA.to_dict()
    assert SCHEMA.fit(Untouchable(), Untouchable()) is SCHEMA
    assert SCHEMA.to_dict() == before
    np.testing.assert_array_equal(SCHEMA.fit_transform(FRAME), SCHEMA.transform(FRAME))


def test_feature_names_out_are_the_schema_features():
    names = SCHEMA.get_feature_names_out()
    assert list(names) == ["age:scaled", "age:missing", "job=a", "job=b", "job=?", "hours:scaled",
                           "constant"]
    assert list(SCHEMA.get_feature_names_out(["age", "job", "hours"])) == list(names)
    with pytest.raises(InputError, match="are not the schema's columns"):
        SCHEMA.get_feature_names_out(["hours", "age", "job"])
    # no names at all: a bare TypeError or numpy's "truth value is ambiguous" before
    for other in (3, np.zeros((3, 1, 1)), [np.zeros(2)] * 3, "agejobhours"):
        with pytest.raises(InputError, match="are not the schema's columns"):
            SCHEMA.get_feature_names_out(other)


@pytest.mark.parametrize("output", ["pandas", "polars"])
def test_set_output_gives_a_dataframe_named_by_the_features(output):
    library = pytest.importorskip(output)
    schema = dataclasses.replace(SCHEMA)
    assert schema.set_output(transform=output) is schema
    frame = schema.transform(FRAME)
    assert isinstance(frame, library.DataFrame)
    assert list(frame.columns) == list(SCHEMA.get_feature_names_out())
    np.testing.assert_array_equal(frame.to_numpy(), SCHEMA.transform(FRAME))
    assert schema == SCHEMA and schema.to_dict() == SCHEMA.to_dict()  # not part of the schema
    schema.set_output(transform="default")
    assert isinstance(schema.transform(FRAME), np.ndarray)
    with pytest.raises(InputError, match="set_output"):
        schema.set_output(transform="arrow")


def test_the_declared_fields_stay_frozen():
    schema = dataclasses.replace(SCHEMA)
    with pytest.raises(dataclasses.FrozenInstanceError):
        schema.norm = 2.0  # type: ignore[misc]
    assert hash(schema) == hash(SCHEMA)


def test_the_schema_is_a_pipeline_step_that_spends_nothing():
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline

    from dpcvx import DPLogisticRegression

    labels = (FRAME["hours"] > 20).to_numpy().astype(int)
    pipeline = make_pipeline(SCHEMA, DPLogisticRegression(random_state=0))
    scores = cross_val_score(pipeline, FRAME, labels, cv=2)
    assert scores.shape == (2,)
    assert clone(pipeline)[0] == SCHEMA
    pipeline.set_output(transform="pandas")
    fitted = pipeline.fit(FRAME, labels)
    assert list(fitted[:-1].transform(FRAME).columns) == list(SCHEMA.get_feature_names_out())


def test_the_vectorised_missing_check_agrees_with_the_value_by_value_rule():
    values = np.array(["a", None, float("nan"), " ? ", "", "b", 3, 2.5, "?x"], dtype=object)
    for tokens in ((), ("",), columns.MISSING_TOKENS):
        expected = [columns._is_missing(value, tokens) for value in values]
        assert columns._missing_mask("c", values, tokens).tolist() == expected
    with_na = np.array(["a", pd.NA, None], dtype=object)  # pandas NA: the value-by-value fallback
    assert columns._missing_mask("c", with_na, ()).tolist() == [False, True, True]


def test_an_empty_numeric_cell_is_a_missing_value_named_by_its_row():
    schema = PublicSchema((NumericColumn("age", 0, 100),))
    with pytest.raises(InputError, match=r"numeric column 'age' holds a missing or non-finite value in row 1"):
        schema.transform({"age": np.array(["5", "", "7"])})
    imputed = PublicSchema((NumericColumn("age", 0, 100, missing=0.0),))
    np.testing.assert_array_equal(imputed.transform({"age": np.array(["50", ""])})[:, 0], [0.0, -0.5])  # centred


CODES = PublicSchema((CategoricalColumn("region", tuple(str(r) for r in range(1, 31)) + ("na",), missing="na"),
                      CategoricalColumn("flag", ("True", "False", "na"), missing="na")))


def _coded_tables() -> dict:
    """The same integer codes and flags, each column with a missing entry, in every library's nullable types."""
    region, flag = [3, 17, None], [True, None, False]
    tables = {"pandas Int64": pd.DataFrame({"region": pd.array(region, dtype="Int64"),
                                            "flag": pd.array(flag, dtype="boolean")}),
              "pandas categorical": pd.DataFrame({"region": pd.Categorical(region), "flag": pd.Categorical(flag)})}
    try:
        tables["pandas arrow"] = pd.DataFrame({"region": pd.array(region, dtype="int64[pyarrow]"),
                                               "flag": pd.array(flag, dtype="bool[pyarrow]")})
        import pyarrow
        tables["pyarrow"] = pyarrow.table({"region": pyarrow.array(region, pyarrow.int64()), "flag": flag})
        tables["pyarrow dictionary"] = pyarrow.table({"region": pyarrow.array(region).dictionary_encode(),
                                                      "flag": pyarrow.array(flag).dictionary_encode()})
    except ImportError:
        pass
    try:
        import polars
        tables["polars"] = polars.DataFrame({"region": region, "flag": flag})
    except ImportError:
        pass
    return tables


def test_nullable_integer_codes_match_their_categories_and_a_null_is_missing():
    """Audit: pandas Int64, a polars or pyarrow integer with a null were read as floats, 3.0, whose text is no
    category: every code encoded as the all-zero block, silently; a pyarrow dictionary lost its nulls."""
    expected = CODES.transform({"region": np.array([3, 17, None], dtype=object),
                                "flag": np.array([True, None, False], dtype=object)})
    assert [list(row).index(1.0) for row in expected[:, :31] > 0] == [2, 16, 30]
    for name, table in _coded_tables().items():
        np.testing.assert_array_equal(CODES.transform(table), expected, err_msg=name)


def test_a_nullable_integer_column_without_missing_values_encodes_as_plain_integers():
    """Audit: pd.read_csv(..., dtype_backend='numpy_nullable') gives Int64 with no NA, which zeroed every row."""
    plain = pd.DataFrame({"region": [3, 17, 30], "flag": [True, False, True]})
    nullable = plain.convert_dtypes(dtype_backend="numpy_nullable")
    assert str(nullable["region"].dtype) == "Int64"
    np.testing.assert_array_equal(CODES.transform(nullable), CODES.transform(plain))
    assert np.count_nonzero(CODES.transform(nullable)[:, :30]) == 3


@pytest.mark.parametrize("strict", [False, True])
def test_whole_floats_against_integer_categories_encode_as_those_categories(strict):
    """Integer codes made floats by a missing value (pandas) are their categories, 3.0 is '3', as each would be in
    an integer column: a float was compared as its text ('3.0'), named and encoded as the all-zero block, so one
    missing record changed every row's block (an attacker probe, sixty-second session). A float that is a category's
    text is that category; a float that is no whole number, or whose integer is no code, is none."""
    schema = dataclasses.replace(CODES, strict=strict)
    encoded = schema.transform(pd.DataFrame({"region": [None, 3.0, 17.0], "flag": [True] * 3}))
    plain = schema.transform(pd.DataFrame({"region": pd.array([None, 3, 17], dtype="Int64"), "flag": [True] * 3}))
    np.testing.assert_array_equal(encoded, plain)
    assert encoded[1, 2] > 0 and encoded[2, 16] > 0
    floats = PublicSchema((CategoricalColumn("grade", ("1.0", "2.5")),), strict=strict)
    assert floats.transform({"grade": np.array([1.0, 2.5])}).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    if not strict:
        assert not floats.transform({"grade": np.array([2.75, 7.0])}).any()


def test_datetime_categories_are_their_day_at_midnight_else_refused():
    """A datetime's text depends on the library and unit (numpy 2020-01-01T00:00, pandas 2020-01-01 00:00): one at
    midnight without a timezone is its day's ISO text (the month 2020-01 its first day); any other is refused."""
    schema = PublicSchema((CategoricalColumn("month", ("2020-01-01", "2020-02-01")),))
    expected = schema.transform({"month": ["2020-01-01"]})
    for table in (pd.DataFrame({"month": pd.to_datetime(["2020-01-01"])}),
                  {"month": np.array(["2020-01"], dtype="datetime64[M]")}):
        np.testing.assert_array_equal(schema.transform(table), expected)
    with pytest.raises(InputError, match=r"column 'month' holds timestamps with a timezone.*strftime"):
        schema.transform(pd.DataFrame({"month": pd.to_datetime(["2020-01-01"]).tz_localize("UTC")}))
    with pytest.raises(InputError, match=r"categorical column 'month' holds a timestamp with a time of day.*strftime"):
        schema.transform(pd.DataFrame({"month": pd.to_datetime(["2020-01-01 08:00"])}))


@pytest.mark.parametrize("values", [None, np.ones((2, 2))])
def test_a_columns_encode_checks_its_values_as_a_schemas_transform_does(values):
    """A column's own encode raised Python's AttributeError ('NoneType' object has no attribute 'dtype') on a value
    that is no column; it reads its values as the schema reads a table's column."""
    for column, options in ((NumericColumn("a", 0, 1), {}), (CategoricalColumn("b", ("u", "v")), {"strict": True})):
        with pytest.raises(InputError, match=rf"column '{column.name}'"):
            column.encode(values, **options)
    assert NumericColumn("a", 0, 10).encode([5, 20]).tolist() == [[0.5], [1.0]]  # a list is a column too


def test_a_schema_clones_and_is_a_step_of_a_column_transformer():
    """ColumnTransformer clones its transformers: a schema without get_params raised scikit-learn's 'Cannot clone
    object' (an audit of scikit-learn workflows)."""
    from sklearn.base import clone
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline

    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("age", 17, 90), dpcvx.CategoricalColumn("sex", ("F", "M"))))
    assert clone(schema) == schema and clone(schema) is not schema
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"age": rng.uniform(17, 90, 400), "sex": rng.choice(["F", "M"], 400), "other": 1.0})
    labels = (table["age"] > 50).astype(int).to_numpy()
    pipeline = make_pipeline(ColumnTransformer([("schema", schema, ["age", "sex"])]),
                             dpcvx.DPLogisticRegression(random_state=0)).fit(table, labels)
    assert pipeline.predict(table).shape == (400,)


def test_a_clone_keeps_the_output_container_as_scikit_learn_clones_keep_it():
    clone = pytest.importorskip("sklearn.base").clone
    schema = dataclasses.replace(SCHEMA).set_output(transform="pandas")
    copy = clone(schema)
    assert copy == SCHEMA and isinstance(copy.transform(FRAME), pd.DataFrame)  # a numpy array before
    assert isinstance(dataclasses.replace(SCHEMA).transform(FRAME), np.ndarray)  # the setting is the object's
