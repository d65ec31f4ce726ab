"""PublicSchema: exact encoding, per-record independence, norm bound, JSON round trip, errors."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcvx.data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema, paper_schema
from dpcvx.exceptions import InputError

AGE = NumericColumn("age", 17, 90, "test bound")
HOURS = NumericColumn("hours", 1, 99)
SEX = CategoricalColumn("sex", ("Female", "Male"))
SCHEMA = PublicSchema((AGE, SEX, HOURS), norm=1.0)


def unit_norm(vector):
    return np.asarray(vector, dtype=float) / np.linalg.norm(vector)


def test_numeric_scaling_one_hot_and_row_norm_are_exact():
    schema = PublicSchema((AGE, SEX), norm=10.0)  # norm large enough that no row is rescaled
    X = schema.transform({"age": [17, 90, 53.5], "sex": ["Male", "Female", "Male"]})
    np.testing.assert_array_equal(X, [[0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.5, 0.0, 1.0]])
    assert schema.feature_names == ("age", "sex=Female", "sex=Male")
    assert schema.dimension == 3


def test_values_outside_public_bounds_are_clipped():
    schema = PublicSchema((AGE,), norm=10.0)
    X = schema.transform({"age": [-5, 16.9, 91, 1e9]})
    np.testing.assert_array_equal(X[:, 0], [0.0, 0.0, 1.0, 1.0])


def test_rows_above_the_norm_are_scaled_to_it_and_rows_below_are_untouched():
    schema = PublicSchema((AGE, SEX, HOURS), norm=1.0)
    X = schema.transform({"age": [90, 17], "sex": ["Male", "Other"], "hours": [99, 50]})
    np.testing.assert_allclose(X[0], unit_norm([1, 0, 1, 1]), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(X[1], [0.0, 0.0, 0.0, 0.5])  # norm 0.5 <= 1: unchanged


def test_general_norm_bound():
    schema = PublicSchema((AGE, SEX, HOURS), norm=0.3)
    X = schema.transform({"age": [90], "sex": ["Female"], "hours": [99]})
    np.testing.assert_allclose(X[0], 0.3 * unit_norm([1, 1, 0, 1]), rtol=0, atol=1e-15)
    assert np.linalg.norm(X[0]) <= 0.3


def test_norm_bound_holds_exactly_in_floating_point():
    # Plain division x / ||x|| leaves about 1.5% of the rescaled rows at norm 1 + 2.2e-16.
    columns = tuple(NumericColumn(f"v{j}", 0, 1) for j in range(5))
    values = np.random.default_rng(0).random((2000, 5))
    X = PublicSchema(columns).transform({f"v{j}": values[:, j] for j in range(5)})
    assert np.linalg.norm(X, axis=1).max() <= 1.0
    expected = values / np.maximum(1.0, np.linalg.norm(values, axis=1))[:, None]
    np.testing.assert_allclose(X, expected, rtol=1e-14)


def test_constant_feature_is_last_and_inside_the_norm_bound():
    schema = PublicSchema((SEX,), constant_feature=True)
    X = schema.transform({"sex": ["Male", "Other"]})
    assert schema.feature_names == ("sex=Female", "sex=Male", "constant")
    np.testing.assert_allclose(X, [unit_norm([0, 1, 1]), [0, 0, 1]], rtol=0, atol=1e-15)


def test_unknown_category_gives_zero_block_or_error_when_strict():
    X = PublicSchema((SEX,)).transform({"sex": ["Other", "male"]})
    np.testing.assert_array_equal(X, np.zeros((2, 2)))
    strict = PublicSchema((SEX,), strict=True)
    with pytest.raises(InputError, match=r"column 'sex': 1 row\(s\) hold a value outside the declared categories, "
                                         r"the first in row 1 .*Female.*Male"):
        strict.transform({"sex": ["Male", "male"]})


def test_categories_are_compared_as_strings():
    schema = PublicSchema((CategoricalColumn("code", ("1", "2")),), norm=10.0)
    np.testing.assert_array_equal(schema.transform({"code": [2, 1, 3]}), [[0, 1], [1, 0], [0, 0]])


# Tables of random records, each a (age, sex, hours) triple with values in and out of bounds.
records = st.lists(
    st.tuples(
        st.floats(-1e6, 1e6, allow_nan=False),
        st.sampled_from(["Female", "Male", "Other", ""]),
        st.floats(-1e3, 1e3, allow_nan=False),
    ),
    min_size=2,
    max_size=20,
)


def as_table(rows):
    return {
        "age": [r[0] for r in rows],
        "sex": [r[1] for r in rows],
        "hours": [r[2] for r in rows],
    }


@settings(max_examples=60, deadline=None)
@given(rows=records, norm=st.floats(0.01, 100.0))
def test_each_row_is_a_function_of_its_own_record_only(rows, norm):
    schema = PublicSchema((AGE, SEX, HOURS), norm=norm, constant_feature=True)
    X = schema.transform(as_table(rows))
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(X[i], schema.transform(as_table([row]))[0])
    assert np.all(np.linalg.norm(X, axis=1) <= norm)
    assert np.all(np.isfinite(X))


@settings(max_examples=60, deadline=None)
@given(rows=records, replacement=records)
def test_changing_one_record_changes_only_its_row(rows, replacement):
    schema = PublicSchema((AGE, SEX, HOURS))
    changed = list(rows)
    changed[0] = replacement[0]
    X, X_changed = schema.transform(as_table(rows)), schema.transform(as_table(changed))
    np.testing.assert_array_equal(X[1:], X_changed[1:])


def test_table_forms_give_the_same_rows():
    table = {"age": [30, 60], "sex": ["Male", "Female"], "hours": [40, 20]}
    expected = SCHEMA.transform(table)
    structured = np.array(
        [(30, "Male", 40), (60, "Female", 20)], dtype=[("age", int), ("sex", "U6"), ("hours", float)]
    )
    plain = np.array([[30, "Male", 40], [60, "Female", 20]], dtype=object)

    class FrameLike:  # what the encoder uses of a pandas DataFrame: .columns and df[name]
        columns = ["hours", "sex", "age"]

        def __getitem__(self, name):
            return table[name]

    for form in (structured, plain, FrameLike()):
        np.testing.assert_array_equal(SCHEMA.transform(form), expected)
    np.testing.assert_array_equal(SCHEMA.transform({"age": 30, "sex": "Male", "hours": 40}), expected[:1])


def test_numbers_written_as_text_are_read():
    np.testing.assert_array_equal(
        SCHEMA.transform({"age": ["30", "60"], "sex": ["Male", "Female"], "hours": ["40", "20"]}),
        SCHEMA.transform({"age": [30, 60], "sex": ["Male", "Female"], "hours": [40, 20]}),
    )


MISSING_OR_NON_FINITE = r"numeric column '{}' holds a missing or non-finite value in row {}"
MALE2 = ["Male", "Male"]


@pytest.mark.parametrize(
    "table, message",
    [
        ({"age": [30], "sex": ["Male"]}, r"no column\(s\) \['hours'\]; it has \['age', 'sex'\]"),
        (
            {"age": ["thirty"], "sex": ["Male"], "hours": [1]},
            r"numeric column 'age' holds a value that is not a number in row 0",
        ),
        ({"age": [30, np.nan], "sex": MALE2, "hours": [1, 2]}, MISSING_OR_NON_FINITE.format("age", 1)),
        ({"age": [30], "sex": ["Male"], "hours": [np.inf]}, MISSING_OR_NON_FINITE.format("hours", 0)),
        ({"age": [30, None], "sex": MALE2, "hours": [1, 2]}, MISSING_OR_NON_FINITE.format("age", 1)),
        (
            {"age": [30], "sex": [None], "hours": [1]},
            r"categorical column 'sex' holds a missing value in row 0",
        ),
        ({"age": [30], "sex": [np.nan], "hours": [1]}, r"categorical column 'sex' holds a missing value"),
        ({"age": [30, 40], "sex": ["Male"], "hours": [1, 2]}, r"columns have different lengths"),
        ({"age": [[30]], "sex": ["Male"], "hours": [1]}, r"column 'age' must be one-dimensional"),
        (np.zeros((2, 2)), r"one column per schema column \(3: \['age', 'sex', 'hours'\]\), got shape"),
        ([1, 2, 3], r"table must be a dict of columns"),
    ],
)
def test_transform_errors_name_the_problem(table, message):
    with pytest.raises(InputError, match=message):
        SCHEMA.transform(table)


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: NumericColumn("a", 2, 1), r"column 'a': bounds need lo < hi, got lo=2.0, hi=1.0"),
        (lambda: NumericColumn("a", 0, float("nan")), r"upper bound of column 'a' must be a finite number"),
        (lambda: NumericColumn("a", "0", 1), r"lower bound of column 'a' must be a finite number, got '0'"),
        (lambda: NumericColumn("a", True, 2), r"must be a finite number, got True"),
        (lambda: NumericColumn("", 0, 1), r"column name must be a non-empty string"),
        (lambda: CategoricalColumn("c", ()), r"column 'c': categories must be a non-empty list"),
        (lambda: CategoricalColumn("c", "ab"), r"column 'c': categories must be a list of strings"),
        (lambda: CategoricalColumn("c", ("a", "a")), r"column 'c': categories repeat"),
        (lambda: CategoricalColumn("c", ("a", 1)), r"non-empty list of strings"),
        (lambda: PublicSchema(()), r"at least one column"),
        (lambda: PublicSchema((AGE, AGE)), r"column names repeat: \['age'\]"),
        (lambda: PublicSchema((AGE,), norm=0), r"norm must be positive"),
        (lambda: PublicSchema((AGE,), norm=float("inf")), r"norm must be a finite number"),
        (lambda: PublicSchema((AGE,), strict=1), r"strict must be true or false"),
        (lambda: PublicSchema(("age",)), r"NumericColumn or CategoricalColumn"),
        (
            lambda: PublicSchema((NumericColumn("constant", 0, 1),), constant_feature=True),
            r"feature names repeat",
        ),
    ],
)
def test_bad_schemas_are_rejected(build, message):
    with pytest.raises(InputError, match=message):
        build()


def test_json_round_trip_keeps_schema_and_rows(tmp_path):
    schema = PublicSchema((AGE, SEX, HOURS), norm=2.5, strict=True, constant_feature=True)
    data = json.loads(json.dumps(schema.to_dict()))
    assert PublicSchema.from_dict(data) == schema
    file = tmp_path / "schema.json"
    schema.save(file)
    loaded = PublicSchema.load(file)
    assert loaded == schema
    table = {"age": [20, 80], "sex": ["Female", "Male"], "hours": [10, 99]}
    np.testing.assert_array_equal(loaded.transform(table), schema.transform(table))


def test_schema_file_format_is_the_documented_one(tmp_path):
    file = tmp_path / "hand_written.json"
    file.write_text(
        json.dumps(
            {
                "format": "dpcvx-schema",
                "version": 1,
                "columns": [
                    {"name": "age", "kind": "numeric", "lo": 17, "hi": 90},
                    {"name": "sex", "kind": "categorical", "categories": ["Female", "Male"]},
                ],
            }
        )
    )
    schema = PublicSchema.load(file)
    assert schema == PublicSchema((NumericColumn("age", 17, 90), SEX), norm=1.0, strict=False)
    age = {"name": "age", "kind": "numeric", "lo": 17.0, "hi": 90.0, "source": ""}
    assert schema.to_dict()["columns"][0] == age


def valid_dict(**changes):
    data = PublicSchema((AGE, SEX)).to_dict()
    data.update(changes)
    return data


def numeric(**fields):
    return {"name": "a", "kind": "numeric", "lo": 0, "hi": 1, **fields}


@pytest.mark.parametrize(
    "data, message",
    [
        ([1, 2], r"a schema must be a JSON object, got list"),
        (valid_dict(format="other"), r'not a dpcvx schema: need "format": "dpcvx-schema"'),
        (valid_dict(version=2), r'"version": 1'),
        (valid_dict(extra=1), r"schema: unknown keys \['extra'\]"),
        (valid_dict(columns={"age": 1}), r'needs "columns": a list'),
        (valid_dict(columns=[{"name": "a", "kind": "numeric"}]), r'needs public bounds "lo" and "hi"'),
        (valid_dict(columns=[numeric(max=3)]), r"unknown keys \['max'\]"),
        (valid_dict(columns=[{"name": "a", "kind": "text"}]), r'"kind" must be "numeric" or "categorical"'),
        (
            valid_dict(columns=[{"name": "a", "kind": "categorical", "categories": "ab"}]),
            r'needs "categories": a list of strings',
        ),
        (valid_dict(columns=[numeric(source=3)]), r"source must be a string"),
        (valid_dict(columns=["age"]), r"a column must be a JSON object"),
        (valid_dict(columns=[numeric(hi="__import__('os').getpid()")]), r"upper bound of column 'a' must be"),
        (valid_dict(norm="1"), r"norm must be a finite number"),
    ],
)
def test_bad_schema_dicts_are_rejected(data, message):
    with pytest.raises(InputError, match=message):
        PublicSchema.from_dict(data)


def test_invalid_json_file_is_an_input_error(tmp_path):
    file = tmp_path / "broken.json"
    file.write_text("{not json")
    with pytest.raises(InputError, match=r"not valid JSON"):
        PublicSchema.load(file)


def test_paper_schema_reads_maxima_and_present_categories():
    template = PublicSchema((AGE, SEX, HOURS), norm=2.0, constant_feature=True)
    table = {"age": [20, 40, 80], "sex": ["Male", "Other", "Male"], "hours": [-10, 5, 5]}
    paper = paper_schema(template, table)
    age, sex, hours = paper.columns
    assert (age.lo, age.hi) == (0.0, 80.0)  # scaled to max 1: v / 80
    assert (hours.lo, hours.hi) == (-10.0, 5.0)  # a negative minimum becomes the lower bound
    assert sex.categories == ("Male", "Other")
    assert "NOT private" in age.source
    assert (paper.norm, paper.constant_feature) == (2.0, True)
    constant = paper_schema(template, {"age": [7, 7], "sex": ["a", "a"], "hours": [0, 0]}).columns[2]
    assert (constant.lo, constant.hi) == (0.0, 1.0)  # a constant column gets hi = lo + 1


def test_paper_schema_depends_on_other_records_unlike_the_public_schema():
    table = {"age": [20, 40], "sex": ["Male", "Male"], "hours": [10, 10]}
    bigger = {"age": [20, 80], "sex": ["Male", "Male"], "hours": [10, 10]}
    template = PublicSchema((AGE, SEX, HOURS), norm=100.0)
    assert paper_schema(template, table).transform(table)[0, 0] == 0.5
    assert paper_schema(template, bigger).transform(bigger)[0, 0] == 0.25
    assert template.transform(table)[0, 0] == template.transform(bigger)[0, 0]


def test_paper_schema_needs_records():
    with pytest.raises(InputError, match=r"at least one record"):
        paper_schema(SCHEMA, {"age": [], "sex": [], "hours": []})


def test_missing_value_rules_round_trip_and_are_validated(tmp_path):
    schema = PublicSchema(
        (
            NumericColumn("age", 17, 90, missing=17, missing_indicator=True),
            CategoricalColumn("sex", ("Female", "Male", "?"), missing="?"),
            HOURS,
        )
    )
    file = tmp_path / "schema.json"
    schema.save(file)
    assert PublicSchema.load(file) == schema
    columns = json.loads(file.read_text())["columns"]
    assert columns[0]["missing"] == 17.0 and columns[0]["missing_indicator"] is True
    assert columns[1]["missing"] == "?" and "missing" not in columns[2]  # written only when set
    table = {"age": [None, 30], "sex": [np.nan, "?"], "hours": [1, 99]}
    np.testing.assert_array_equal(PublicSchema.load(file).transform(table), schema.transform(table))
    with pytest.raises(InputError, match=r'"missing" must be a category'):
        PublicSchema.from_dict(valid_dict(columns=[{"name": "c", "kind": "categorical", "categories": ["a"],
                                                    "missing": 1}]))
    with pytest.raises(InputError, match=r"missing value of column 'a' must be a finite number"):
        PublicSchema.from_dict(valid_dict(columns=[numeric(missing="0")]))


def test_a_missing_value_changes_only_its_own_row_and_never_the_row_count():
    schema = PublicSchema((NumericColumn("age", 17, 90, missing=17), CategoricalColumn("sex", ("M", "?"), missing="?")))
    full = schema.transform({"age": [20, 30, 40], "sex": ["M", "M", "M"]})
    holes = schema.transform({"age": [20, None, 40], "sex": ["M", "?", "M"]})
    assert holes.shape == full.shape
    np.testing.assert_array_equal(holes[[0, 2]], full[[0, 2]])
    np.testing.assert_array_equal(holes[1], [0.0, 0.0, 1.0])  # age -> lo -> 0, sex -> "?"


def test_log_scale_is_log1p_within_the_public_bounds_and_round_trips(tmp_path):
    size = NumericColumn("size", 0, 1e9, scale="log")
    schema = PublicSchema((size,), norm=10.0)
    X = schema.transform({"size": [0, 240, 54_540, 1e9, 5e9, -3]})
    expected = np.log1p([0, 240, 54_540, 1e9, 1e9, 0]) / np.log1p(1e9)
    np.testing.assert_allclose(X[:, 0], expected, rtol=1e-15, atol=0)
    assert X[2, 0] > 0.5 > 1e-4 > PublicSchema((NumericColumn("size", 0, 1e9),), norm=10.0).transform(
        {"size": [54_540]}
    )[0, 0]  # the linear map crushes an ordinary size towards 0
    shifted = PublicSchema((NumericColumn("t", -5, 5, scale="log"),), norm=10.0).transform({"t": [-5, 0, 5]})
    np.testing.assert_allclose(shifted[:, 0], np.log1p([0, 5, 10]) / np.log1p(10), rtol=1e-15)
    data = schema.to_dict()
    assert data["columns"][0]["scale"] == "log"
    assert "scale" not in SCHEMA.to_dict()["columns"][0]  # linear columns write no key: old files unchanged
    loaded = PublicSchema.load(schema.save(tmp_path / "schema.json"))
    assert loaded == schema
    np.testing.assert_array_equal(loaded.transform({"size": [54_540]}), X[2:3])


@pytest.mark.parametrize("scale", ["logarithmic", "", None, 1])
def test_unknown_scale_is_rejected(scale):
    with pytest.raises(InputError, match="scale must be one of"):
        NumericColumn("size", 0, 1, scale=scale)
    data = {"format": "dpcvx-schema", "version": 1,
            "columns": [{"name": "size", "kind": "numeric", "lo": 0, "hi": 1, "scale": scale}]}
    with pytest.raises(InputError, match="scale must be one of"):
        PublicSchema.from_dict(data)


def test_paper_schema_scales_linearly_by_the_maximum_even_from_a_log_template():
    template = PublicSchema((NumericColumn("size", 0, 1e9, scale="log"),), norm=10.0)
    paper = paper_schema(template, {"size": [0, 50, 100]})
    assert paper.columns[0].scale == "linear" and paper.columns[0].hi == 100
    np.testing.assert_array_equal(paper.transform({"size": [50]}), [[0.5]])
