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


def test_unit_numeric_scaling_one_hot_and_row_norm_are_exact():
    schema = PublicSchema((AGE, SEX), norm=10.0, encoding="unit")  # norm large enough that no row is rescaled
    X = schema.transform({"age": [17, 90, 53.5], "sex": ["Male", "Female", "Male"]})
    np.testing.assert_array_equal(X, [[0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.5, 0.0, 1.0]])
    assert schema.feature_names == ("age:scaled", "sex=Female", "sex=Male")
    assert schema.dimension == 3


def test_values_outside_public_bounds_are_clipped():
    schema = PublicSchema((AGE,), norm=10.0, encoding="unit")
    X = schema.transform({"age": [-5, 16.9, 91, 1e9]})
    np.testing.assert_array_equal(X[:, 0], [0.0, 0.0, 1.0, 1.0])


def test_unit_rows_above_the_norm_are_scaled_to_it_and_rows_below_are_untouched():
    schema = PublicSchema((AGE, SEX, HOURS), norm=1.0, encoding="unit")
    X = schema.transform({"age": [90, 17], "sex": ["Male", "Other"], "hours": [99, 50]})
    np.testing.assert_allclose(X[0], unit_norm([1, 0, 1, 1]), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(X[1], [0.0, 0.0, 0.0, 0.5])  # norm 0.5 <= 1: unchanged


def test_general_norm_bound():
    schema = PublicSchema((AGE, SEX, HOURS), norm=0.3, encoding="unit")
    X = schema.transform({"age": [90], "sex": ["Female"], "hours": [99]})
    np.testing.assert_allclose(X[0], 0.3 * unit_norm([1, 1, 0, 1]), rtol=0, atol=1e-15)
    assert np.linalg.norm(X[0]) <= 0.3


def test_norm_bound_holds_exactly_in_floating_point():
    # Plain division x / ||x|| leaves about 1.5% of the rescaled rows at norm 1 + 2.2e-16.
    columns = tuple(NumericColumn(f"v{j}", 0, 1) for j in range(5))
    values = np.random.default_rng(0).random((2000, 5))
    X = PublicSchema(columns, encoding="unit").transform({f"v{j}": values[:, j] for j in range(5)})
    assert np.linalg.norm(X, axis=1).max() <= 1.0
    expected = values / np.maximum(1.0, np.linalg.norm(values, axis=1))[:, None]
    np.testing.assert_allclose(X, expected, rtol=1e-14)


def test_constant_feature_is_last_and_inside_the_norm_bound():
    schema = PublicSchema((SEX,), constant_feature=True, encoding="unit")
    X = schema.transform({"sex": ["Male", "Other"]})
    assert schema.feature_names == ("sex=Female", "sex=Male", "constant")
    np.testing.assert_allclose(X, [unit_norm([0, 1, 1]), [0, 0, 1]], rtol=0, atol=1e-15)


def test_unknown_category_gives_zero_block_or_error_when_strict():
    X = PublicSchema((SEX,)).transform({"sex": ["Other", "M"]})  # "male" is Male but for case: refused either way
    np.testing.assert_array_equal(X, np.zeros((2, 2)))
    strict = PublicSchema((SEX,), strict=True)
    with pytest.raises(InputError, match=r"column 'sex': 1 row\(s\) hold a value outside the declared categories, "
                                         r"the first in row 1 .*Female.*Male"):
        strict.transform({"sex": ["Male", "M"]})


def test_categories_are_compared_as_strings():
    schema = PublicSchema((CategoricalColumn("code", ("1", "2")),), norm=10.0, encoding="unit")
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


# a table of many unknown categories, or of values outside the bounds, is told of (UndeclaredCategoryWarning,
# OutOfBoundsWarning): its rows are as asked
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UndeclaredCategoryWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.OutOfBoundsWarning")
@pytest.mark.parametrize("encoding", ["centred", "unit"])
@settings(max_examples=60, deadline=None)
@given(rows=records, norm=st.floats(0.01, 100.0))
def test_each_row_is_a_function_of_its_own_record_only(rows, norm, encoding):
    schema = PublicSchema((AGE, SEX, HOURS), norm=norm, constant_feature=True, encoding=encoding)
    X = schema.transform(as_table(rows))
    for i, row in enumerate(rows):
        np.testing.assert_array_equal(X[i], schema.transform(as_table([row]))[0])
    assert np.all(np.linalg.norm(X, axis=1) <= norm)
    assert np.all(np.isfinite(X))


# a table of many unknown categories, or of values outside the bounds, is told of (UndeclaredCategoryWarning,
# OutOfBoundsWarning): its rows are as asked
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UndeclaredCategoryWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.OutOfBoundsWarning")
@pytest.mark.parametrize("encoding", ["centred", "unit"])
@settings(max_examples=60, deadline=None)
@given(rows=records, replacement=records)
def test_changing_one_record_changes_only_its_row(rows, replacement, encoding):
    schema = PublicSchema((AGE, SEX, HOURS), encoding=encoding)
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
        (lambda: NumericColumn("a", 2, 1), r"column 'a': bounds \(lo, hi\) = \(2, 1\) is reversed or empty"),
        (lambda: NumericColumn("a", 0, float("nan")), r"the upper bound of column 'a' must be finite, got nan"),
        (lambda: NumericColumn("a", "0", 1), r"lower bound of column 'a' must be a finite number, got '0'"),
        (lambda: NumericColumn("a", True, 2), r"must be a finite number, got True"),
        (lambda: NumericColumn("", 0, 1), r"column name must be a non-empty string"),
        (lambda: CategoricalColumn("c", ()), r"column 'c': categories must be a non-empty list"),
        (lambda: CategoricalColumn("c", "ab"), r"column 'c': categories must be a list of strings"),
        (lambda: CategoricalColumn("c", ("a", "a")), r"column 'c': categories repeat"),
        (lambda: CategoricalColumn("c", ("a", 1.0)), r"non-empty list of strings \(or integer codes\), got float 1.0"),
        (lambda: CategoricalColumn("c", (True, False)), r"got bool True"),
        (lambda: CategoricalColumn("c", (1, "1")), r"column 'c': categories repeat"),
        (lambda: PublicSchema(()), r"at least one column"),
        (lambda: PublicSchema((AGE, AGE)), r"column names repeat: \['age'\]"),
        (lambda: PublicSchema((AGE,), norm=0), r"norm must be finite and positive, got 0"),
        (lambda: PublicSchema((AGE,), norm=float("inf")), r"norm must be finite and positive, got inf"),
        (lambda: PublicSchema((AGE,), strict=1), r"strict must be True or False"),
        (lambda: PublicSchema(("age",)), r"NumericColumn or CategoricalColumn"),
        (
            lambda: PublicSchema((CategoricalColumn("a", ("b=c",)), CategoricalColumn("a=b", ("c",)))),
            r"feature names repeat: \['a=b=c'\]",
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
    schema = PublicSchema.load(file)  # version 1 (before issue 42): its old meaning, encoding="unit"
    assert schema == PublicSchema((NumericColumn("age", 17, 90), SEX), norm=1.0, strict=False, encoding="unit")
    age = {"name": "age", "kind": "numeric", "lo": 17.0, "hi": 90.0, "source": ""}
    assert schema.to_dict()["columns"][0] == age
    assert schema.to_dict()["version"] == 1 and "encoding" not in schema.to_dict()  # written back as it was


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
        (valid_dict(version=3), r'schema version 3 was written by a newer dpcvx'),
        (valid_dict(version=2.0), r'"version": 1 or 2'),
        (valid_dict(version=True), r'"version": 1 or 2'),
        (valid_dict(encoding="standard"), r"encoding must be one of 'centred', 'unit'; got 'standard'"),
        ({**valid_dict(version=1), "encoding": "unit"}, r'a version-1 schema has no "encoding" key'),
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
        (valid_dict(norm="1"), r"norm must be a positive number, got '1' \(a str\)"),
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
    schema = PublicSchema((NumericColumn("age", 17, 90, missing=17), CategoricalColumn("sex", ("M", "?"), missing="?")),
                          encoding="unit")
    full = schema.transform({"age": [20, 30, 40], "sex": ["M", "M", "M"]})
    holes = schema.transform({"age": [20, None, 40], "sex": ["M", "?", "M"]})
    assert holes.shape == full.shape
    np.testing.assert_array_equal(holes[[0, 2]], full[[0, 2]])
    np.testing.assert_array_equal(holes[1], [0.0, 0.0, 1.0])  # age -> lo -> 0, sex -> "?"


def test_log_scale_is_log1p_within_the_public_bounds_and_round_trips(tmp_path):
    size = NumericColumn("size", 0, 1e9, scale="log")
    schema = PublicSchema((size,), norm=10.0, encoding="unit")
    X = schema.transform({"size": [0, 240, 54_540, 1e9, 5e9, -3]})
    expected = np.log1p([0, 240, 54_540, 1e9, 1e9, 0]) / np.log1p(1e9)
    np.testing.assert_allclose(X[:, 0], expected, rtol=1e-15, atol=0)
    assert X[2, 0] > 0.5 > 1e-4 > PublicSchema((NumericColumn("size", 0, 1e9),), norm=10.0, encoding="unit").transform(
        {"size": [54_540]}
    )[0, 0]  # the linear map crushes an ordinary size towards 0
    shifted = PublicSchema((NumericColumn("t", -5, 5, scale="log"),), norm=10.0, encoding="unit").transform(
        {"t": [-5, 0, 5]})
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


# ---------------------------------------------------------------- the centred code (issue 42), the default


def test_centred_codes_are_offsets_from_the_public_midpoint_and_the_default():
    schema = PublicSchema((AGE, SEX), norm=10.0)  # norm large enough that no row is rescaled
    assert schema.encoding == "centred"
    X = schema.transform({"age": [17, 90, 53.5, 200], "sex": ["Male", "Female", "Male", "Other"]})
    np.testing.assert_array_equal(X, [[-0.5, 0.0, 1.0], [0.5, 1.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.0, 0.0]])
    size = PublicSchema((NumericColumn("size", 0, 1e9, scale="log"),), norm=10.0)
    np.testing.assert_allclose(size.transform({"size": [0, 54_540, 1e9]})[:, 0],
                               np.log1p([0, 54_540, 1e9]) / np.log1p(1e9) - 0.5, rtol=0, atol=1e-15)


def test_centred_rows_above_the_norm_are_scaled_to_it_and_rows_below_are_untouched():
    schema = PublicSchema((AGE, SEX, HOURS), constant_feature=True)
    X = schema.transform({"age": [90, 53.5], "sex": ["Male", "Other"], "hours": [99, 50]})
    np.testing.assert_allclose(X[0], unit_norm([0.5, 0, 1, 0.5, 1]), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(X[1], [0.0, 0.0, 0.0, 0.0, 1.0])  # norm 1: unchanged


def test_a_linear_target_stays_linear_in_the_centred_rows_that_are_not_rescaled():
    # Rows below the norm are an affine image of the record: y = a age + b hours + c is fitted exactly
    # with the constant feature; centring only moves what the intercept carries.
    rng = np.random.default_rng(3)
    age, hours = rng.uniform(17, 90, 200), rng.uniform(1, 99, 200)
    y = 3.0 * age - 2.0 * hours + 7.0
    for encoding in ("centred", "unit"):
        schema = PublicSchema((AGE, HOURS), norm=10.0, constant_feature=True, encoding=encoding)
        X = schema.transform({"age": age, "hours": hours})
        residual = y - X @ np.linalg.lstsq(X, y, rcond=None)[0]
        assert np.abs(residual).max() < 1e-9
    # at norm 1, two centred codes never reach the bound (sqrt(2) / 2 at most): the map stays affine;
    # the [0, 1] codes reach it, and those rows are divided by their own norms
    centred = PublicSchema((AGE, HOURS)).transform({"age": age, "hours": hours})
    unit = PublicSchema((AGE, HOURS), encoding="unit").transform({"age": age, "hours": hours})
    np.testing.assert_allclose(centred, np.column_stack([(age - 17) / 73, (hours - 1) / 98]) - 0.5, rtol=0,
                               atol=1e-15)
    assert np.mean(np.linalg.norm(unit, axis=1) >= 1.0 - 1e-12) > 0.1  # 1 - pi/4 = 0.21 expected; 0.19 here


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.OutOfBoundsWarning")  # two thirds of the values clipped
@pytest.mark.parametrize("norm", [1e-75, 1e-3, 0.3, 1.0, 7.0, 1e75])
def test_centred_norm_bound_holds_exactly_in_floating_point(norm):
    columns = tuple(NumericColumn(f"v{j}", -1, 1) for j in range(5)) + (SEX,)
    rng = np.random.default_rng(1)
    table = {f"v{j}": rng.uniform(-3, 3, 3000) for j in range(5)} | {"sex": rng.choice(["Male", "Female"], 3000)}
    X = PublicSchema(columns, norm=norm, constant_feature=True).transform(table)
    assert np.linalg.norm(X, axis=1).max() <= norm


def test_schema_files_of_version_2_carry_the_encoding_and_round_trip(tmp_path):
    centred = PublicSchema((AGE, SEX), norm=2.0)
    data = centred.to_dict()
    assert (data["version"], data["encoding"]) == (2, "centred")
    assert PublicSchema.load(centred.save(tmp_path / "c.json")) == centred
    unit = PublicSchema((AGE, SEX), norm=2.0, encoding="unit")
    assert unit.to_dict()["version"] == 1 and "encoding" not in unit.to_dict()  # the file older dpcvx wrote
    assert PublicSchema.from_dict(unit.to_dict()) == unit
    no_key = {key: value for key, value in data.items() if key != "encoding"}
    assert PublicSchema.from_dict(no_key).encoding == "centred"  # version 2's default
    table = {"age": [20, 80], "sex": ["Female", "Male"]}
    np.testing.assert_array_equal(PublicSchema.from_dict(json.loads(json.dumps(data))).transform(table),
                                  centred.transform(table))


def test_paper_schema_keeps_the_papers_unit_code():
    paper = paper_schema(PublicSchema((AGE, SEX, HOURS), norm=100.0), {"age": [20, 40], "sex": ["M", "M"],
                                                                        "hours": [10, 10]})
    assert paper.encoding == "unit"
    assert paper.transform({"age": [40], "sex": ["M"], "hours": [10]})[0, 0] == 1.0


def test_a_model_file_with_a_version_1_schema_predicts_as_before(tmp_path):
    import dpcvx

    old = PublicSchema((AGE, SEX), encoding="unit")  # what dpcvx wrote before issue 42
    table = {"age": np.array([20, 35, 50, 70] * 50), "sex": np.array(["Male", "Female"] * 100)}
    X = old.transform(table)
    model = dpcvx.PrivateERM(data_norm=1.0).fit(X, np.where(table["age"] > 40, 1, -1), epsilon=1.0, random_state=0)
    path = dpcvx.save(model, tmp_path / "m.json", schema=old)
    assert json.loads(path.read_text())["preprocessing"]["schema"]["version"] == 1
    loaded = dpcvx.load(path)
    assert loaded.schema == old and loaded.schema.encoding == "unit"
    np.testing.assert_array_equal(loaded.schema.transform(table), X)
    np.testing.assert_array_equal(loaded.predict(loaded.schema.transform(table)), model.predict(X))


def test_an_integer_beyond_python_text_is_a_typed_refusal():
    """An integer category (or cell) of more than 4,300 digits raised Python's bare ValueError from str(); now an
    InputError naming the column (a cell's by its row, its value not shown)."""
    huge = 10**5000
    with pytest.raises(InputError, match=r"column 'c': an integer category has more than 4,300 digits"):
        CategoricalColumn("c", (huge, 1))
    schema = PublicSchema((CategoricalColumn("c", ("1", "2")),))
    with pytest.raises(InputError, match=r"column 'c' holds an integer of more than 4,300 digits in row 1") as refused:
        schema.transform({"c": np.array([1, huge], dtype=object)})
    assert "1000" not in str(refused.value)


@pytest.mark.parametrize("columns", [NumericColumn("a", 0, 1), None, 3, "ab"])
def test_schema_refuses_columns_that_are_no_sequence_of_columns(columns):
    """A single column, None or a number is an InputError naming columns (tuple() of it raised a bare TypeError)."""
    with pytest.raises(InputError, match="columns must be a tuple or list"):
        PublicSchema(columns)
