"""Inputs: never modified, numeric extremes handled, every bad input a typed DPCVXError.

Covers the entry points of validation.py, rows.py, noise.py, preprocessing.py
and the loaders. The property-based tests at the end draw bad and extreme
inputs with hypothesis (derandomised, bounded example counts) and check, for
every case: a DPCVXError or a correct result, never another exception,
never NaN or infinity in an output, and the input unchanged bit for bit.
"""

import copy
import datetime
import gzip
import math
import pickle
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpcvx.data.datasets import load_adult, load_kdd
from dpcvx.data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema, paper_schema
from dpcvx.data.rows import RowMap, _row_norms
from dpcvx.data.uci_domains import KDD_COLUMNS, adult_schema, kdd_schema
from dpcvx.exceptions import ClippingWarning, DPCVXError, InputError
from dpcvx.privacy.noise import round_to_grid, sample_gaussian, sample_l2_laplace, sample_laplace
from dpcvx.validation import (
    EPSILON_MAX,
    EPSILON_MIN,
    POSITIVE_MIN,
    check_epsilon,
    check_finite,
    check_matrix,
    positive,
    sample_size,
)

pd = pytest.importorskip("pandas")

FAST = settings(max_examples=200, derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------- snapshots of an input


def snapshot(value):
    """Everything observable about an input, to compare before and after a call."""
    if isinstance(value, np.ndarray):
        flags = {k: value.flags[k] for k in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "OWNDATA")}
        content = [id(v) for v in value.flat] if value.dtype.kind == "O" else value.tobytes(order="A")
        return ("array", type(value), value.dtype, value.shape, value.strides, flags, content)
    if sparse.issparse(value):
        parts = [value.format, value.dtype, value.shape]
        for name in ("data", "indices", "indptr", "row", "col", "offsets"):
            part = getattr(value, name, None)
            if isinstance(part, np.ndarray):
                parts.append((name, part.dtype, part.tobytes()))
        return ("sparse", *parts)
    if hasattr(value, "columns") and hasattr(value, "dtypes"):  # a DataFrame
        columns = [(c, str(value[c].dtype), pickle.dumps(value[c].to_numpy(copy=True))) for c in value.columns]
        return ("frame", list(value.columns), list(map(str, value.dtypes)), columns, value.copy(deep=True))
    return ("other", pickle.dumps(value))


def assert_unchanged(value, before):
    after = snapshot(value)
    if before[0] == "frame":
        assert after[:4] == before[:4]
        assert value.equals(before[4])
    else:
        assert after == before


def true_norms(X):
    """Row norms computed independently of dpcvx: each row divided by its largest entry first."""
    peak = np.abs(X).max(axis=1)
    safe = np.where(peak > 0, peak, 1.0)
    with np.errstate(over="ignore"):
        return safe * np.linalg.norm(X / safe[:, None], axis=1)


def bounded_rows(norms, R):
    return np.all(norms <= R) and np.all(np.isfinite(norms))


# ---------------------------------------------------------------- task 2: inputs are never modified

BASE = np.array([[3.0, 4.0, 0.0], [0.1, 0.2, 0.3], [1e200, -1e200, 5.0], [0.0, 0.0, 0.0], [-6.0, 8.0, 0.0]])


def dense_inputs(tmp_path):
    """(name, input) pairs: every numpy layout and dtype the toolkit takes, with rows above R = 1."""
    small = BASE[[0, 1, 3, 4]]
    memmap_path = tmp_path / "rows.dat"
    writable = np.memmap(memmap_path, dtype=np.float64, mode="w+", shape=BASE.shape)
    writable[:] = BASE
    writable.flush()
    read_only = np.memmap(memmap_path, dtype=np.float64, mode="r", shape=BASE.shape)
    return [
        ("C float64", np.ascontiguousarray(BASE)),
        ("F float64", np.asfortranarray(BASE)),
        ("C float32", np.ascontiguousarray(small, dtype=np.float32)),
        ("F float32", np.asfortranarray(small, dtype=np.float32)),
        ("int64", (small * 10).astype(np.int64)),
        ("F int32", np.asfortranarray((small * 10).astype(np.int32))),
        ("bool", small > 0.5),
        ("strided view", np.asfortranarray(np.hstack([BASE, BASE]))[:, ::2]),
        ("memmap r+", writable),
        ("memmap read-only", read_only),
    ]


def sparse_inputs():
    return [
        ("csr float64", sparse.csr_matrix(BASE)),
        ("csc float64", sparse.csc_matrix(BASE)),
        ("coo float64", sparse.coo_matrix(BASE)),
        ("csr int", sparse.csr_matrix((BASE[[0, 1, 4]] * 10).astype(np.int64))),
        ("coo with duplicates", sparse.coo_matrix(([3.0, 1.0, 4.0], ([0, 0, 1], [0, 0, 1])), shape=(2, 2))),
    ]


def frame_inputs():
    return [
        ("frame float64", pd.DataFrame(BASE, columns=["a", "b", "c"])),
        ("frame float32", pd.DataFrame(BASE[[0, 1, 4]].astype(np.float32), columns=["a", "b", "c"])),
        ("frame mixed", pd.DataFrame({"a": [3, 1, -6], "b": [4.0, 0.2, 8.0], "c": [True, False, True]})),
        ("frame nullable", pd.DataFrame({"a": pd.array([3, 1, 6], dtype="Int64"), "b": [4.0, 0.0, 8.0]})),
    ]


def all_inputs(tmp_path):
    return dense_inputs(tmp_path) + sparse_inputs() + frame_inputs()


ROW_MAPS = [
    RowMap(1.0),
    RowMap(1.0, fit_intercept=True, intercept_scaling=0.5),
    RowMap(100.0),  # nothing clipped: the input itself may be used, but never written to
]


@pytest.mark.parametrize("rows", ROW_MAPS, ids=["R=1", "R=1 + intercept", "R=100"])
def test_row_map_apply_never_modifies_the_input(tmp_path, rows):
    for name, X in all_inputs(tmp_path):
        before = snapshot(X)
        expected = np.asarray(X.toarray() if sparse.issparse(X) else np.asarray(X, dtype=float), dtype=float)
        out, count = rows.apply(X)
        assert_unchanged(X, before)
        dense = out.toarray() if sparse.issparse(out) else out
        features = dense[:, :-1] if rows.fit_intercept else dense
        norms = np.linalg.norm(features, axis=1)
        assert bounded_rows(norms, rows.norm_bound), name
        below = true_norms(expected) <= rows.norm_bound
        np.testing.assert_array_equal(features[below], expected[below], err_msg=name)  # rows below R untouched
        assert count == int(np.count_nonzero(~below)), name
        if rows.fit_intercept:
            np.testing.assert_array_equal(dense[:, -1], 0.5)


def test_row_map_clip_and_check_matrix_never_modify_the_input(tmp_path):
    rows = RowMap(1.0)
    for name, X in all_inputs(tmp_path):
        before = snapshot(X)
        checked = check_matrix(X)
        assert_unchanged(X, before)
        checked_before = snapshot(checked)
        clipped, count = rows.clip(checked)  # in_place defaults to False
        assert_unchanged(checked, checked_before)
        assert_unchanged(X, before)
        assert count >= 1, name


def test_refusing_rows_above_the_bound_modifies_nothing(tmp_path):
    for _, X in all_inputs(tmp_path):
        before = snapshot(X)
        with pytest.raises(InputError, match=r"rows have norm above data_norm=1"):
            RowMap(1.0).apply(X, refuse=True)
        assert_unchanged(X, before)


def test_a_float64_frame_is_not_clipped_in_place_by_fit():
    """A single-dtype float64 DataFrame converts to a column-major VIEW of its data: once clipped in place."""
    dpcvx = pytest.importorskip("dpcvx")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(scale=3.0, size=(60, 3)), columns=["a", "b", "c"])
    labels = pd.Series((frame["a"] > 0).astype(int))
    assert np.shares_memory(np.asarray(frame), frame["a"].to_numpy())  # the view that made the bug
    before, labels_before = snapshot(frame), snapshot(labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, random_state=0).fit(frame, labels)
    assert_unchanged(frame, before)
    assert_unchanged(labels, labels_before)


def test_the_data_are_copied_once_at_most():
    """A row-major input is converted into a buffer that already holds the intercept column."""
    X = np.random.default_rng(0).random((3000, 20)) * 3
    out, count = RowMap(1.0, fit_intercept=True).apply(X)
    # row-major: Newton reads it by row blocks
    assert count == 3000 and out.flags.c_contiguous and out.shape == (3000, 21)
    assert out.base is None or out.base.shape == out.shape  # the conversion's own buffer, not a second copy


def test_a_table_beside_the_intercept_column_is_row_major():
    """A table is filled column by column into a column-major array, then copied by rows beside the intercept
    column (strided writes into a row-major array cost several times as much); its values unchanged."""
    X = np.random.default_rng(1).random((3000, 7))
    out, count = RowMap(3.0, fit_intercept=True, intercept_scaling=0.5).apply(pd.DataFrame(X))
    assert count == 0 and out.flags.c_contiguous and out.shape == (3000, 8)
    np.testing.assert_array_equal(out[:, :-1], X)
    assert np.all(out[:, -1] == 0.5)


TABLE = {"age": [39, 95.0, None, 17], "sex": ["Male", "?", None, "Female"], "hours": ["40", "?", "", 99]}
MISSING_SCHEMA = PublicSchema(
    (
        NumericColumn("age", 17, 90, missing=17.0, missing_indicator=True),
        CategoricalColumn("sex", ("Female", "Male", "?"), missing="?"),
        NumericColumn("hours", 1, 99, missing=1.0),
    ),
    constant_feature=True,
    encoding="unit",  # the values below are u(v) in [0, 1]; centring subtracts 1/2 (test_preprocessing.py)
)


def preprocessing_tables():
    frame = pd.DataFrame(
        {"age": [39.0, 95.0, np.nan, 17.0], "sex": ["Male", "?", None, "Female"], "hours": [40, 50, 60, 99]}
    )
    structured = np.array(
        [(39.0, "Male", 40.0), (95.0, "?", np.nan)], dtype=[("age", float), ("sex", "U6"), ("hours", float)]
    )
    plain = np.array([[39, "Male", 40], [95, "?", "?"]], dtype=object)
    arrays = {"age": np.array([39.0, np.nan]), "sex": np.array(["Male", "?"]), "hours": np.array([40, 99])}
    return [("dict of lists", copy.deepcopy(TABLE)), ("frame", frame), ("structured", structured),
            ("object array", plain), ("dict of arrays", arrays)]


def test_every_preprocessing_entry_point_leaves_the_table_unchanged():
    for name, table in preprocessing_tables():
        before = snapshot(table)
        X = MISSING_SCHEMA.transform(table)
        assert np.all(np.isfinite(X)) and np.all(np.linalg.norm(X, axis=1) <= 1.0), name
        assert_unchanged(table, before)
        columns = table if isinstance(table, dict) else None
        if columns is not None:
            for column in MISSING_SCHEMA.columns:
                values = np.asarray(columns[column.name])
                values_before = snapshot(values)
                column.encode(values, False) if isinstance(column, CategoricalColumn) else column.encode(values)
                assert_unchanged(values, values_before)
    complete = pd.DataFrame({"age": [20.0, 40.0], "sex": ["Male", "Female"], "hours": [10, 20]})
    before = snapshot(complete)
    paper = paper_schema(MISSING_SCHEMA, complete)
    paper.transform(complete)
    assert_unchanged(complete, before)
    data = MISSING_SCHEMA.to_dict()
    frozen = copy.deepcopy(data)
    assert PublicSchema.from_dict(data) == MISSING_SCHEMA and data == frozen


def test_missing_values_follow_the_declared_public_rules():
    X = MISSING_SCHEMA.transform(TABLE)
    names = MISSING_SCHEMA.feature_names
    assert names == ("age:scaled", "age:missing", "sex=Female", "sex=Male", "sex=?", "hours:scaled",
                     "constant")
    raw = X / X[:, [-1]]  # undo the row scaling: the constant feature was 1
    np.testing.assert_allclose(raw[:, 1], [0, 0, 1, 0], atol=1e-15)  # indicator only for the None age
    np.testing.assert_allclose(raw[:, 0], [(39 - 17) / 73, 1, 0, 0], atol=1e-15)  # None -> 17 -> 0
    np.testing.assert_allclose(raw[:, 4], [0, 1, 1, 0], atol=1e-15)  # "?" and None are category "?"
    np.testing.assert_allclose(raw[:, 5], [39 / 98, 0, 0, 1], atol=1e-15)  # "?" and "" -> hours 1 -> 0
    with pytest.raises(InputError, match=r"missing-value category 'unknown' must be one of the categories"):
        CategoricalColumn("sex", ("Female", "Male"), missing="unknown")
    with pytest.raises(InputError, match=r"imputed missing value 200.0 must lie in the public bounds"):
        NumericColumn("age", 17, 90, missing=200)
    with pytest.raises(InputError, match=r"missing_indicator needs a public imputed value"):
        NumericColumn("age", 17, 90, missing_indicator=True)


# ---------------------------------------------------------------- task 3: numeric extremes


@pytest.mark.parametrize("big", [1e154, 1e200, 1e300, 1.7e308])
@pytest.mark.parametrize("form", ["dense", "sparse"])
def test_huge_rows_are_scaled_onto_the_bound_not_zeroed(big, form):
    X = np.array([[big, -big / 2, 0.0], [big, big, big], [0.5, 0.0, 0.0]])
    direction = X / np.abs(X).max(axis=1, keepdims=True)
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    data = sparse.csr_matrix(X) if form == "sparse" else X
    out, count = RowMap(2.0).apply(data)
    out = out.toarray() if sparse.issparse(out) else out
    assert count == 2
    norms = np.linalg.norm(out, axis=1)
    assert np.all(np.isfinite(out)) and np.all(norms <= 2.0) and np.all(norms[:2] > 2.0 * (1 - 1e-12))
    np.testing.assert_allclose(out[:2], 2.0 * direction[:2], rtol=1e-12)
    np.testing.assert_array_equal(out[2], X[2])


def test_row_norms_neither_overflow_nor_underflow():
    X = np.array([[1e300, 1e300], [1e-300, 1e-300], [3.0, 4.0], [0.0, 0.0]])
    expected = np.array([math.sqrt(2) * 1e300, math.sqrt(2) * 1e-300, 5.0, 0.0])
    np.testing.assert_allclose(_row_norms(X), expected, rtol=1e-15)
    np.testing.assert_allclose(_row_norms(sparse.csr_matrix(X)), expected, rtol=1e-15)


def test_tiny_bound_and_tiny_rows():
    X = np.array([[1e-290, 1e-290], [1e-310, 0.0]])
    out, count = RowMap(1e-300).apply(X)
    assert count == 1
    np.testing.assert_allclose(out[0], [1e-300 / math.sqrt(2)] * 2, rtol=1e-12)
    np.testing.assert_array_equal(out[1], X[1])


@pytest.mark.parametrize(
    "X, message",
    [
        (np.array([[1 + 2j, 0.0]]), r"X has dtype complex128: Complex data not supported: complex values are not real"),
        (sparse.csr_matrix(np.array([[1 + 2j, 0.0]])), r"X has dtype complex128"),
        (np.array([["2020-01-01"]], dtype="M8[D]"), r"X has dtype datetime64\[D\]: datetimes are not numbers"),
        (np.array([[5]], dtype="m8[s]"), r"X has dtype timedelta64\[s\]: durations are not numbers"),
        (np.array([[1.0, "a"]], dtype=object),
         r"X column 1 holds text \(str\) in row 0 \(the value is not shown"),
        (np.array([[1.0, 2j]], dtype=object), r"X column 1 holds a complex that is not a number in row 0"),
        (np.array([[1.0, np.nan]]), r"NaN or infinite values .*first at row 0, column 1; impute them by a public rule"),
        (sparse.csr_matrix(np.array([[0.0, 1.0], [np.inf, 0.0]])), r"first at row 1, column 0"),
        (np.ma.array([[1.0, 2.0]], mask=[[0, 1]]), r"masked array with masked \(missing\) entries"),
        (np.zeros((0, 3)), r"X is empty"),
        (np.zeros(3), r"X must be 2-D"),
        ([[1, 2], [3]], r"X must be a numeric 2-D array"),
    ],
)
def test_unusable_matrices_get_a_typed_error_naming_the_fix(X, message):
    with pytest.raises(InputError, match=message):
        check_matrix(X)
    with pytest.raises(InputError, match=message):
        RowMap(1.0).apply(X)


@pytest.mark.parametrize(
    "frame, message",
    [
        ({"a": [1.0, 2.0], "when": pd.to_datetime(["2020-01-01", "2020-01-02"])},
         r"X column 'when' has dtype datetime64.*convert them first"),
        ({"a": [1.0, 2.0], "wait": pd.to_timedelta([1, 2], unit="s")}, r"X column 'wait' has dtype timedelta64"),
        ({"a": [1.0, 2.0], "z": [1 + 1j, 2.0]}, r"X column 'z' has dtype complex128"),
        ({"a": [1.0, 2.0], "name": ["x", "y"]}, r"X column 'name' holds text \(str\) in row 0"),
        ({"a": pd.array([1, None], dtype="Int64")}, r"first at row 1, column 'a'"),
    ],
)
def test_frame_columns_of_the_wrong_kind_are_named(frame, message):
    with pytest.raises(InputError, match=message):
        check_matrix(pd.DataFrame(frame))


def test_bool_is_read_as_zero_and_one():
    np.testing.assert_array_equal(check_matrix(np.array([[True, False]])), [[1.0, 0.0]])
    np.testing.assert_array_equal(check_matrix(pd.DataFrame({"a": [True, False], "b": [2, 3]})), [[1, 2], [0, 3]])


@pytest.mark.parametrize(
    "value, message",
    [
        ("1", r"must be a positive number, got '1' \(a str\)"),
        (None, r"got None \(a NoneType\)"),
        (True, r"got True \(a bool\)"),
        (np.bool_(True), r"\(a bool\)"),
        (1 + 0j, r"\(a complex\)"),
        (float("nan"), r"finite and positive, got nan"),
        (float("inf"), r"finite and positive, got inf"),
        (-1.0, r"finite and positive, got -1.0"),
        (0, r"finite and positive, got 0.0"),
        (5e-324, r"outside the range \[2.2250738585072014e-308, 4.49423283715579e\+307\]"),
        (10**400, r"beyond the float range"),
    ],
)
def test_positive_refuses_non_numbers_and_extremes(value, message):
    with pytest.raises(InputError, match=message):
        positive("epsilon", value)


def test_positive_ranges_and_check_epsilon():
    assert positive("lam", 1e-300) == 1e-300 and positive("lam", 2**-1022) == POSITIVE_MIN
    assert positive("R", 3, minimum=1, maximum=3) == 3.0
    with pytest.raises(InputError, match=r"R=4 is outside the range \[1, 3\]"):
        positive("R", 4, minimum=1, maximum=3)
    assert check_epsilon(0.1) == 0.1 and check_epsilon(EPSILON_MIN) == EPSILON_MIN
    for value in (5e-324, 1e-13, 1e300, EPSILON_MAX * 2):
        with pytest.raises(InputError, match=r"epsilon=.* is outside the range \[1e-12, 1e\+06\]"):
            check_epsilon(value)
    with pytest.raises(InputError, match=r"n must be a positive integer"):
        sample_size(np.bool_(True))
    with pytest.raises(InputError, match=r"weights has NaN or infinite entries; retrain"):
        check_finite("weights", [1.0, np.inf], "retrain")


def test_noise_samplers_never_return_non_finite_values():
    rng = np.random.default_rng(0)
    with pytest.raises(InputError, match=r"noise draw with 1/beta = 1e\+307 overflowed"):
        sample_l2_laplace(50, 1e-307, rng)
    with pytest.raises(InputError, match=r"scale = 4e\+307 overflowed"):
        sample_laplace(10_000, 4e307, rng)  # a draw beyond 4.5 scales (probability 1.1% each) overflows
    with pytest.raises(InputError, match=r"sigma = 4e\+307 overflowed"):
        sample_gaussian(1_000_000, 4e307, rng)
    with pytest.raises(InputError, match=r"scale=1.7e\+308 is outside the range"):
        sample_laplace(1, 1.7e308, rng)
    for bad in (0.0, -1.0, float("nan"), 5e-324, "1"):
        with pytest.raises(InputError, match=r"beta"):
            sample_l2_laplace(3, bad, rng)
    tiny = sample_l2_laplace(4, 1e300, rng)
    assert np.all(np.isfinite(tiny)) and np.all(np.abs(tiny) < 1e-290)


def test_round_to_grid_of_a_tiny_scale_keeps_large_values_finite():
    """epsilon = 1e300 gave an infinite weight: values / spacing overflowed for the 2^-1020 grid."""
    values = np.array([9.7755, -1e300, 0.0, 3e-310])
    rounded, spacing = round_to_grid(values, 1e-298)
    assert np.all(np.isfinite(rounded)) and spacing > 0
    np.testing.assert_array_equal(rounded[:3], values[:3])
    assert abs(rounded[3] - values[3]) <= spacing / 2
    rounded, spacing = round_to_grid(np.array([1.0 + 2**-40]), 1.0)
    assert spacing == 2.0**-30 and rounded[0] == 1.0
    with pytest.raises(InputError, match=r"hold NaN or infinity"):
        round_to_grid(np.array([np.nan]), 1.0)


def test_schema_bounds_and_norms_that_would_overflow_are_refused():
    with pytest.raises(InputError, match=r"hi - lo = .* overflows"):
        NumericColumn("x", -1e308, 1e308)
    with pytest.raises(InputError, match=r"the schema's norm=1e-200 is outside the range \[1e-75, 1e\+75\]"):
        PublicSchema((NumericColumn("x", 0, 1),), norm=1e-200)
    X = PublicSchema((NumericColumn("x", 0, 1), NumericColumn("y", 0, 1)), norm=1e-75).transform(
        {"x": [1.0, 0.8], "y": [1.0, 0.9]})  # centred codes 1/2, 0.3, 1/2, 0.4: all positive
    assert np.all(np.linalg.norm(X, axis=1) <= 1e-75) and np.all(X > 0)


@pytest.mark.parametrize("norm", [1e-100, 1e-76, 1e76, 1e100])
def test_the_schema_norm_is_checked_as_every_public_bound(norm):
    """The schema's norm, which every learner takes as data_norm, was checked on [1e-150, 1e150] and data_norm on
    [1e-75, 1e75]: a schema of norm 1e-100 loaded, and its fit was refused as if data_norm (--data-norm) had been
    given. Now the schema refuses it, naming itself, by the one range of a public bound."""
    with pytest.raises(InputError, match=r"^the schema's norm=.* is outside the range \[1e-75, 1e\+75\]"):
        PublicSchema((NumericColumn("x", 0, 1),), norm=norm)
    with pytest.raises(InputError, match=r"^the schema's norm=.* is outside the range \[1e-75, 1e\+75\]"):
        PublicSchema.from_dict({**PublicSchema((NumericColumn("x", 0, 1),)).to_dict(), "norm": norm})


@pytest.mark.parametrize(
    "column, message",
    [
        (np.array([1 + 1j]), r"numeric column 'x' has dtype complex128"),
        (np.array(["2020-01-01"], dtype="M8[D]"), r"numeric column 'x' has dtype datetime64\[D\]"),
        (np.array([1], dtype="m8[s]"), r"numeric column 'x' has dtype timedelta64\[s\]"),
        (np.array([2j], dtype=object), r"numeric column 'x' holds a value that is not a number in row 0"),
        (np.array([10**400], dtype=object), r"numeric column 'x' holds a value that is not a number in row 0"),
        (np.array([datetime.date(2020, 1, 1)], dtype=object),
         r"numeric column 'x' holds a value that is not a number in row 0"),
        (["inf"], r"numeric column 'x' holds a value that is not a number in row 0"),  # text: the grammar's
        ([np.inf], r"missing or non-finite value in row 0"),
        (["1e400"], r"missing or non-finite value in row 0"),  # a number of the grammar, beyond the float range
    ],
)
def test_numeric_columns_of_the_wrong_kind_are_typed_errors(column, message):
    with pytest.raises(InputError, match=message):
        PublicSchema((NumericColumn("x", 0, 1, missing=0.0),)).transform({"x": column})


# ---------------------------------------------------------------- task 4: generated inputs

FINITE = st.floats(allow_nan=False, allow_infinity=False)
EXTREME = st.sampled_from([0.0, -0.0, 1e-320, 5e-324, 1e-200, 1e154, 1e200, 1e300, 1.7e308, -1.7e308,
                           np.nan, np.inf, -np.inf])
ANY_FLOAT = st.one_of(FINITE, EXTREME)
DTYPES = st.sampled_from(["f8", "f4", "f2", "i8", "i1", "u8", "?", "c16", "O", "M8[s]", "m8[s]", "U5"])
ODD_OBJECTS = st.one_of(
    ANY_FLOAT, st.integers(-(10**400), 10**400), st.text(max_size=4), st.none(), st.booleans(),
    st.complex_numbers(max_magnitude=1e10), st.just(datetime.datetime(2020, 1, 1)), st.just("?"),
    st.just(pd.NA), st.just(pd.NaT),
)


@st.composite
def matrices(draw):
    """Arrays of any dtype, shape and layout, DataFrames of mixed columns, sparse matrices, lists."""
    shape = draw(st.one_of(
        st.tuples(st.integers(0, 5), st.integers(0, 4)),
        st.tuples(st.integers(0, 4)),
        st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)),
    ))
    dtype = draw(DTYPES)
    if dtype == "O":
        array = np.empty(shape, dtype=object)
        for index in np.ndindex(*shape):
            array[index] = draw(ODD_OBJECTS)
    else:
        values = draw(hnp.arrays(np.float64, shape, elements=ANY_FLOAT))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            if dtype in ("M8[s]", "m8[s]"):
                array = np.nan_to_num(values, posinf=1e9, neginf=-1e9).clip(-1e9, 1e9).astype("i8").astype(dtype)
            elif dtype == "U5":
                array = values.astype("U5")
            elif dtype[0] in "iu":
                array = np.nan_to_num(values).clip(-100, 100).astype(dtype)
            else:
                array = values.astype(dtype)
    form = draw(st.sampled_from(["C", "F", "frame", "sparse", "list"]))
    if form == "F":
        return np.asfortranarray(array)
    if form == "frame" and array.ndim == 2:
        frame = pd.DataFrame(array, columns=[f"c{j}" for j in range(array.shape[1])])
        if array.shape[1] and draw(st.booleans()):  # a second dtype: a mixed-dtype frame
            frame[frame.columns[0]] = draw(st.sampled_from([1, 2.5, "x", True, None]))
        return frame
    if form == "sparse" and array.ndim == 2 and array.dtype.kind in "biufc" and array.dtype != np.float16:
        return sparse.csr_matrix(array)  # scipy.sparse has no float16
    if form == "list":
        return array.tolist()
    return array


def is_correct_matrix(out, n_rows):
    dense = out.toarray() if sparse.issparse(out) else out
    return dense.dtype == np.float64 and dense.ndim == 2 and dense.shape[0] == n_rows and np.all(np.isfinite(dense))


@pytest.mark.slow  # 3 to 7 s: the default run is kept within 5 minutes; CI's slow tier runs it
@FAST
@given(X=matrices(), R=st.sampled_from([1e-300, 1e-3, 1.0, 1e150]), intercept=st.booleans())
def test_generated_matrices_give_a_typed_error_or_finite_bounded_rows(X, R, intercept):
    before = snapshot(X)
    rows = RowMap(R, fit_intercept=intercept, intercept_scaling=1.0)
    try:
        checked = check_matrix(X)
    except DPCVXError:
        checked = None
    try:
        out, count = rows.apply(X)
    except DPCVXError:
        out = None
    assert_unchanged(X, before)
    assert (checked is None) == (out is None)  # apply refuses exactly what check_matrix refuses
    if out is None:
        return
    assert is_correct_matrix(checked, checked.shape[0]) and is_correct_matrix(out, checked.shape[0])
    dense = out.toarray() if sparse.issparse(out) else out
    features = dense[:, :-1] if intercept else dense
    assert np.all(true_norms(features) <= R)
    assert 0 <= count <= checked.shape[0]
    original = checked.toarray() if sparse.issparse(checked) else checked
    untouched = true_norms(original) <= R
    np.testing.assert_array_equal(features[untouched], original[untouched])
    clipped = ~untouched  # scaled onto the bound, in the same direction: never zeroed
    assert np.all(true_norms(features[clipped]) >= R * (1 - 1e-9))
    peak = np.abs(original[clipped]).max(axis=1, keepdims=True)
    direction = original[clipped] / peak
    np.testing.assert_allclose(features[clipped] / np.abs(features[clipped]).max(axis=1, keepdims=True),
                               direction, rtol=1e-9, atol=1e-12)


@st.composite
def tables(draw):
    n = draw(st.integers(0, 6))
    column = st.one_of(
        st.lists(ODD_OBJECTS, min_size=n, max_size=n),
        hnp.arrays(np.float64, n, elements=ANY_FLOAT),
        st.lists(st.sampled_from(["Male", "Female", "?", "", "other"]), min_size=n, max_size=n),
        hnp.arrays(st.sampled_from([np.int64, np.bool_, np.complex128]), n),
    )
    table = {name: draw(column) for name in ("age", "sex", "hours")}
    if draw(st.booleans()):
        table = pd.DataFrame({k: pd.Series(v, dtype=object) if isinstance(v, list) else v
                              for k, v in table.items()})
    return table


SCHEMAS = [
    PublicSchema((NumericColumn("age", 17, 90), CategoricalColumn("sex", ("Female", "Male")),
                  NumericColumn("hours", 1, 99)), constant_feature=True),
    MISSING_SCHEMA,
    PublicSchema((NumericColumn("age", -1e300, 1e300), CategoricalColumn("sex", ("Male",), missing="Male"),
                  NumericColumn("hours", 0, 1e-300, missing=0.0, missing_indicator=True)), norm=1e-75),
]


@pytest.mark.slow
@FAST
@given(table=tables(), which=st.integers(0, len(SCHEMAS) - 1))
def test_generated_tables_give_a_typed_error_or_finite_bounded_rows(table, which):
    schema = SCHEMAS[which]
    before = snapshot(table)
    try:
        X = schema.transform(table)
    except DPCVXError:
        X = None
    assert_unchanged(table, before)
    if X is not None:
        n = len(table["age"]) if isinstance(table, dict) else len(table)
        assert X.shape == (n, schema.dimension) and X.dtype == np.float64
        assert np.all(np.isfinite(X)) and np.all(np.linalg.norm(X, axis=1) <= schema.norm)


SCALARS = st.one_of(ANY_FLOAT, st.integers(-(10**400), 10**400), st.text(max_size=3), st.none(), st.booleans(),
                    st.complex_numbers(), st.just(np.float32(0.5)), st.just(np.int64(7)), st.just([1.0]))


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
@FAST
@given(value=SCALARS)
def test_generated_scalars_give_a_typed_error_or_a_float_in_range(value):
    for check, low, high in ((lambda v: positive("x", v), POSITIVE_MIN, 1 / POSITIVE_MIN),
                             (check_epsilon, EPSILON_MIN, EPSILON_MAX)):
        try:
            result = check(value)
        except DPCVXError:
            continue
        assert type(result) is float and low <= result <= high and math.isfinite(result)
        assert not isinstance(value, (bool, str, complex)) and value is not None
    try:
        n = sample_size(value)
    except DPCVXError:
        return
    assert type(n) is int and n >= 1


@pytest.mark.slow
@FAST
@given(scale=st.one_of(ANY_FLOAT, st.floats(1e-310, 1e310)), size=st.integers(1, 50),
       values=hnp.arrays(np.float64, 3, elements=FINITE))
def test_generated_noise_scales_give_a_typed_error_or_finite_noise(scale, size, values):
    rng = np.random.default_rng(0)
    for sampler in (sample_l2_laplace, sample_laplace, sample_gaussian):
        try:
            noise = sampler(size, scale, rng)
        except DPCVXError:
            continue
        assert noise.shape == (size,) and np.all(np.isfinite(noise))
    before = values.copy()
    try:
        rounded, spacing = round_to_grid(values, scale)
    except DPCVXError:
        return
    np.testing.assert_array_equal(values, before)
    assert np.all(np.isfinite(rounded)) and spacing > 0 and np.all(np.abs(rounded - values) <= spacing / 2)


ADULT_RECORD = ("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, "
                "Male, 2174, 0, 40, United-States")
KDD_RECORD = ("0,tcp,http,SF,181,5450,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,8,8,0.00,0.00,0.00,0.00,1.00,0.00,"
              "0.00,9,9,1.00,0.00,0.11,0.00,0.00,0.00,0.00,0.00")


@settings(max_examples=25, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(holes=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 13)), max_size=12),
       labels=st.lists(st.booleans(), min_size=6, max_size=6))
def test_generated_missing_values_never_change_n_or_the_layout(holes, labels):
    """Private mode: whichever fields are '?', every record is kept and the columns stay the same."""
    records = [ADULT_RECORD.split(", ") for _ in range(6)]
    for i, j in holes:
        records[i][j] = "?"
    lines = [", ".join(r) + (", >50K" if y else ", <=50K") for r, y in zip(records, labels, strict=True)]
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        (folder / "adult.data").write_text("\n".join(lines[:4]) + "\n")
        (folder / "adult.test").write_text("|1x3 Cross validator\n" + ".\n".join(lines[4:]) + ".\n")
        data = load_adult(path=folder, mode="private")
        kdd_lines = []
        for i, j in holes:
            fields = KDD_RECORD.split(",")
            fields[(i * 14 + j) % len(KDD_COLUMNS)] = "?"
            kdd_lines.append(",".join(fields) + ",smurf.")
        (folder / "kddcup.data_10_percent.gz").write_bytes(gzip.compress(
            ("\n".join([KDD_RECORD + ",normal."] + kdd_lines) + "\n").encode()))
        kdd = load_kdd(path=folder, mode="private", n_rows=None)
    assert data.X.shape == (6, 114) and data.feature_names == adult_schema().feature_names
    np.testing.assert_array_equal(data.y, np.where(labels, 1.0, -1.0))
    assert np.all(np.isfinite(data.X)) and np.all(np.linalg.norm(data.X, axis=1) <= 1.0)
    assert kdd.X.shape == (1 + len(holes), 126) and kdd.feature_names == kdd_schema().feature_names
    assert np.all(np.isfinite(kdd.X)) and np.all(np.linalg.norm(kdd.X, axis=1) <= 1.0)


def test_fraction_states_its_interval():
    from dpcvx.validation import fraction

    assert fraction("delta", 0, allow_zero=True) == 0.0 and fraction("p", 0.5) == 0.5
    assert fraction("p", 1, allow_one=True) == 1.0
    for value, message in [(0, r"delta must lie in \(0, 1\), got 0.0"), (1.0, r"in \(0, 1\)"),
                           ("0.1", r"a str"), (True, r"a bool"), (float("nan"), r"finite"),
                           (5e-324, r"subnormal")]:
        with pytest.raises(InputError, match=message):
            fraction("delta", value)


def _message(call):
    """The InputError message of call(), which must raise one."""
    with pytest.raises(InputError) as raised:
        call()
    return str(raised.value)


def test_one_delta_check_everywhere():
    """Accountant, composition and the Gaussian mechanism refuse a bad delta with validation.check_delta's words."""
    from dpcvx.privacy.accountant import PrivacyAccountant, check_cost
    from dpcvx.privacy.composition import round_epsilon
    from dpcvx.privacy.gaussian import analytic_gaussian_sigma
    from dpcvx.validation import check_delta

    for bad in (1.0, -0.1, float("nan"), "0.1", True):
        expected = _message(lambda bad=bad: check_delta(bad))
        assert _message(lambda bad=bad: check_cost(1.0, bad)) == expected
        assert _message(lambda bad=bad: PrivacyAccountant(epsilon=1.0, delta=bad)) == expected
        assert _message(lambda bad=bad: round_epsilon(1.0, bad, 3)) == expected
        gaussian = _message(lambda bad=bad: check_delta(bad, allow_zero=False))
        assert _message(lambda bad=bad: analytic_gaussian_sigma(1.0, 1.0, bad)) == gaussian
    assert check_delta(0) == 0.0 and check_delta(1e-6) == 1e-6
    gaussian_zero = _message(lambda: analytic_gaussian_sigma(1.0, 1.0, 0.0))
    assert gaussian_zero == _message(lambda: check_delta(0.0, allow_zero=False)) == "delta must lie in (0, 1), got 0.0"


def test_one_epsilon_check_everywhere():
    from dpcvx.privacy.accountant import check_cost
    from dpcvx.privacy.calibrate import output_perturbation
    from dpcvx.privacy.composition import round_epsilon
    from dpcvx.privacy.gaussian import analytic_gaussian_sigma

    for bad in (0.0, -1.0, 1e7, 1e-13, "1", None):
        expected = _message(lambda bad=bad: check_epsilon(bad))
        assert _message(lambda bad=bad: check_cost(bad)) == expected
        assert _message(lambda bad=bad: round_epsilon(bad, 0.0, 3)) == expected
        assert _message(lambda bad=bad: analytic_gaussian_sigma(1.0, bad, 1e-6)) == expected
        assert _message(lambda bad=bad: output_perturbation(10, 1.0, bad)) == expected


def test_one_integer_check_everywhere():
    """Counts and integer settings of the API, the command line and JSON files go through validation.integer."""
    from dpcvx.data.files import parse_json
    from dpcvx.demo import run_demo
    from dpcvx.exceptions import FileError
    from dpcvx.privacy.composition import round_epsilon
    from dpcvx.privacy.noise import sample_gaussian
    from dpcvx.privacy.rng import check_estimator_seed, resolve_rng, seed_rule
    from dpcvx.validation import integer, parse_integer

    assert _message(lambda: round_epsilon(1.0, 0.0, 0)) == "rounds must be a positive integer, got 0"
    assert _message(lambda: sample_size(2.0)) == _message(lambda: integer("n", 2.0))
    assert _message(lambda: sample_gaussian(-1, 1.0, np.random.default_rng(0))) == \
        "size must be an integer >= 0, got -1"
    expected = "n must be an integer from 30 to 1000000, got -5"
    assert _message(lambda: run_demo(n=-5)) == expected
    # the demo's data: numpy's ValueError (n=-1), Python's TypeError (n='a'), and n=0, d=0 or a label_noise outside
    # [0, 1] accepted; a plot of no DemoResult an AttributeError
    from dpcvx.demo import plot_demo, synthetic_classification
    from dpcvx.exceptions import InputTypeError

    for options, said in ((dict(n=-1), "n must be a positive integer, got -1"),
                          (dict(n="a"), "n must be a positive integer, got 'a'"),
                          (dict(n=0), "n must be a positive integer, got 0"),
                          (dict(n=5, d=0), "d must be a positive integer, got 0"),
                          (dict(n=5, label_noise=2), "label_noise must lie in [0, 1], got 2.0"),
                          (dict(n=5, label_noise=-1), "label_noise must lie in [0, 1], got -1.0")):
        assert _message(lambda options=options: synthetic_classification(**options)) == said
    assert synthetic_classification(n=5, d=2, label_noise=1.0)[0].shape == (5, 2)
    with pytest.raises(InputTypeError, match=r"^result must be a DemoResult, got 5 \(an int\)$"):
        plot_demo(5, "never-written.png")  # type: ignore[arg-type]
    assert _message(lambda: parse_integer("n", "-5", minimum=30, maximum=1_000_000)) == expected
    assert _message(lambda: parse_integer("n", "5.0")) == "n must be a positive integer, got '5.0'"
    assert parse_integer("k", "-12", minimum=None) == -12 and integer("k", np.int64(3)) == 3
    for text in (" 12 ", "1_2", "\u0661\u0662", "\uff11\uff12"):  # int() reads them all; the command line does not
        assert _message(lambda t=text: parse_integer("k", t, minimum=None)) == f"k must be an integer, got {text!r}"
    # one rule of a seed (privacy.rng.seed_rule): the estimators' words are the learners' but for the generator
    assert _message(lambda: resolve_rng(-1)) == seed_rule("random_state") + "; got -1 (an int)"
    assert _message(lambda: check_estimator_seed(-1)) == (seed_rule("random_state", generator=False)
                                                          + "; got -1 (an int)")
    with pytest.raises(FileError, match="each integer in it must have at most 300 digits, got an "
                                              "integer of 301 digits"):
        parse_json('{"a": ' + "1" * 301 + "}")
    assert parse_json('{"a": -' + "9" * 300 + "}")["a"] == -int("9" * 300)


@pytest.mark.parametrize(("values", "what"), [
    (["a", "b"], "its entries have dtype <U1"),
    (["1.5", "2"], "its entries have dtype <U3"),  # numpy's float conversion read these as numbers
    (np.array([1 + 1j, 2]), "its entries have dtype complex128"),  # numpy dropped the imaginary part
    ([1.0, None], r"entry 1 is a NoneType \(its value is not shown"),
])
def test_a_vector_of_numbers_refuses_text_complex_and_missing_entries_by_position(values, what) -> None:
    with pytest.raises(InputError, match=rf"weights must hold real numbers: {what}"):
        check_finite("weights", values)
    assert check_finite("weights", np.array([1, 2.5], dtype=object)).dtype == np.float64  # numbers as objects


def test_sample_weight_of_text_is_a_typed_refusal_before_anything_is_spent() -> None:
    import dpcvx

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)) / 10, np.arange(200) % 2
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    for weights in (["a"] * 200, ["1.5"] * 200):  # a bare ValueError before, and "1.5" read as 1.5
        with pytest.raises(InputError, match="sample_weight must hold real numbers"):
            dpcvx.DPLogisticRegression(sample_weight_bound=2.0, random_state=0).fit(X, y, sample_weight=weights,
                                                                                   accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize(("value", "bounds", "shown"), [
    (1.0000001e6, {"maximum": 1e6}, "x=1000000.1 is outside the range [2.2250738585072014e-308, 1e+06]"),
    (0.99999999e-12, {"minimum": 1e-12}, "x=9.9999999e-13 is outside the range [1e-12, "),
    (1e12, {"maximum": 1e6}, "x=1e+12 is outside"),
])
def test_a_value_out_of_range_is_shown_outside_it(value, bounds, shown):
    """The range refusal wrote the value with :g, so 1.0000001e6 read "1e+06", the end of the range [.., 1e6]: now
    with the digits that make it visibly outside (six when they suffice)."""
    with pytest.raises(InputError) as refused:
        positive("x", value, **bounds)
    assert shown in str(refused.value)
