"""A date-like cell is read one way whatever type its reader inferred for the column (attacker probe A2, session 65).

pandas makes five ``pd.Timestamp`` cells a datetime64 column and four beside a ``datetime.date`` an object column;
polars makes a column of dates Datetime once one cell is a ``datetime.datetime``. The datetime64 column was refused
as datetimes and its object twin released, so one record decided refusal or release (F3). A timestamp at midnight
without a timezone is now its day's ISO text in every form; one with a time of day is refused in every form, by its
row. A bytearray cell (a dict of lists) and a pandas string_view/binary_view column raised bare numpy and pandas
errors (F4): they are read as bytes and as string/binary. Each test reads D and D' (one record changed) and asserts
that every other row reads alike, or that both are refused alike before any charge; each failed on s65 at 62d2e5e2.
"""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PrivacyAccountant, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.tables import RowError

pd = pytest.importorskip("pandas")

SCHEMA = PublicSchema((CategoricalColumn("c", ("2020-01-01", "2020-02-01", "x")), NumericColumn("v", 0.0, 20.0)),
                      strict=False)
DAY = pd.Timestamp("2020-01-01")


def _frame(cells):
    return pd.DataFrame({"c": cells, "v": [1.0] * len(cells)})


@pytest.mark.parametrize("other", [datetime.date(2020, 2, 1), "x", datetime.datetime(2020, 2, 1),
                                   np.datetime64("2020-02-01T00:00:00", "s")])
def test_a_midnight_timestamp_reads_as_its_day_whatever_type_pandas_inferred(other):
    typed = _frame([DAY] * 5)  # D: datetime64, refused as datetimes before
    mixed = _frame([DAY] * 4 + [other])  # D': objects, whose Timestamp rows were no category
    assert typed["c"].dtype.kind == "M" and (mixed["c"].dtype == object or not isinstance(other, (str, datetime.date))
                                              or isinstance(other, datetime.datetime))
    before, after = SCHEMA.transform(typed), SCHEMA.transform(mixed)
    np.testing.assert_array_equal(after[:-1], before[:-1])
    np.testing.assert_array_equal(before, SCHEMA.transform(_frame(["2020-01-01"] * 5)))
    assert (before[:, 0] > 0).all() and not before[:, 1:3].any()  # the category 2020-01-01


def test_every_unit_and_reader_of_a_midnight_timestamp_gives_its_day():
    expected = SCHEMA.transform({"c": ["2020-01-01", "x", "2020-02-01"], "v": [1.0] * 3})
    days = ["2020-01-01", "NaT", "2020-02-01"]
    forms = {unit: {"c": np.array(days, dtype=f"datetime64[{unit}]"), "v": [1.0] * 3} for unit in ("D", "s", "ns")}
    forms["month"] = {"c": np.array(["2020-01", "NaT", "2020-02"], dtype="datetime64[M]"), "v": [1.0] * 3}
    forms["objects"] = {"c": np.array([DAY, None, datetime.datetime(2020, 2, 1)], dtype=object), "v": [1.0] * 3}
    forms["list"] = {"c": [np.datetime64("2020-01-01T00:00", "m"), None, datetime.date(2020, 2, 1)], "v": [1.0] * 3}
    missing = PublicSchema((CategoricalColumn("c", ("2020-01-01", "2020-02-01", "x"), missing="x"),
                            NumericColumn("v", 0.0, 20.0)))
    for form, data in forms.items():
        np.testing.assert_array_equal(missing.transform(data), expected, err_msg=form)
    pl = pytest.importorskip("polars")
    dates = [datetime.date(2020, 1, 1), datetime.date(2020, 2, 1)]
    typed = pl.DataFrame({"c": dates, "v": [1.0, 1.0]})  # D: Date
    timed = pl.DataFrame({"c": [dates[0], datetime.datetime(2020, 2, 1)], "v": [1.0, 1.0]}, strict=False)
    assert str(timed["c"].dtype).startswith("Datetime")  # D': one datetime made the column Datetime, refused before
    np.testing.assert_array_equal(SCHEMA.transform(timed), SCHEMA.transform(typed))


NOON = pd.Timestamp("2020-01-01 12:30")


@pytest.mark.parametrize("timed", [NOON, NOON.to_pydatetime(), np.datetime64("2020-01-01T12:30", "m"),
                                   pd.Timestamp("2020-01-01 00:00:00.000000001")])
def test_a_timestamp_with_a_time_of_day_is_refused_in_every_form_before_any_charge(timed):
    accountant = PrivacyAccountant(1.0)
    forms = {"objects beside a date": _frame([DAY, DAY, timed, datetime.date(2020, 1, 1)]),
             "list": {"c": [DAY, DAY, timed, "x"], "v": [1.0] * 4}}
    if not isinstance(timed, np.datetime64):
        forms["datetime64"] = _frame([DAY, DAY, timed, DAY])  # pandas types it datetime64
    for form, data in forms.items():
        with pytest.raises(RowError, match="categorical column 'c' holds a timestamp with a time of day in row 2") as e:
            SCHEMA.transform(data)
        assert e.value.row == 2, form
    assert accountant.spent.epsilon == 0.0


def test_a_timestamp_with_a_timezone_is_refused_in_every_form():
    zoned = pd.Timestamp("2020-01-01", tz="UTC")
    with pytest.raises(InputError, match="column 'c' holds timestamps with a timezone"):
        SCHEMA.transform(_frame([zoned] * 3))
    with pytest.raises(RowError, match="holds a timestamp with a timezone in row 1"):
        SCHEMA.transform(_frame([DAY, zoned, datetime.date(2020, 1, 1)]))
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(InputError, match="column 'c' holds timestamps with a timezone"):
        SCHEMA.transform(pa.table({"c": pa.array([DAY], pa.timestamp("s", tz="UTC")), "v": [1.0]}))


def test_a_midnight_timestamp_label_is_its_day_whatever_type_pandas_inferred():
    from dpcvx.sklearn import DPLogisticRegression

    X = np.random.default_rng(0).uniform(-1, 1, (60, 2))
    classes = ("2020-01-01", "2020-02-01")
    texts = np.where(X[:, 0] > 0, *classes)
    typed = pd.Series(pd.to_datetime(texts))  # D: datetime64
    mixed = typed.astype(object)
    mixed.iloc[-1] = datetime.date.fromisoformat(texts[-1])  # D': objects
    fitted = [DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, y).coef_
              for y in (texts, typed, mixed)]
    np.testing.assert_array_equal(fitted[1], fitted[0])
    np.testing.assert_array_equal(fitted[2], fitted[0])
    accountant = PrivacyAccountant(2.0)
    timed = typed.copy()
    timed.iloc[3] = NOON
    for y in (timed, timed.astype(object)):
        with pytest.raises(RowError, match="y holds a timestamp with a time of day in row 3"):
            DPLogisticRegression(epsilon=1.0, classes=classes, accountant=accountant, random_state=0).fit(X, y)
    assert accountant.spent.epsilon == 0.0


# F4: a bytearray cell, a pandas string_view / binary_view column

def test_a_bytearray_cell_is_its_text_as_a_bytes_cell_is():
    schema = PublicSchema((CategoricalColumn("c", ("a", "b")), NumericColumn("v", 0.0, 20.0)))
    expected = schema.transform({"c": ["a", "b", "a"], "v": [1.0] * 3})
    for cells in ([b"a", bytearray(b"b"), "a"], [bytearray(b"a"), bytearray(b"b"), b"a"]):
        np.testing.assert_array_equal(schema.transform({"c": cells, "v": [1.0] * 3}), expected)
    with pytest.raises(RowError, match="column 'c' holds bytes that are not UTF-8 text in row 1"):
        schema.transform({"c": [b"a", bytearray(b"\xff"), "a"], "v": [1.0] * 3})


def test_a_pandas_view_column_is_read_as_its_string_or_binary_twin():
    pa = pytest.importorskip("pyarrow")
    schema = PublicSchema((CategoricalColumn("c", ("a", "b"), missing="a"), NumericColumn("v", 0.0, 20.0)))
    expected = schema.transform({"c": ["a", "b", "a"], "v": [1.0] * 3})
    for kind, cells in ((pa.string_view(), ["a", "b", None]), (pa.binary_view(), [b"a", b"b", None])):
        column = pd.Series(cells, dtype=pd.ArrowDtype(kind))
        np.testing.assert_array_equal(schema.transform(pd.DataFrame({"c": column, "v": [1.0] * 3})), expected)
    numbers = pd.Series(["1", "2", "3"], dtype=pd.ArrowDtype(pa.string_view()))
    plain = PublicSchema((NumericColumn("v", 0.0, 20.0),))
    np.testing.assert_array_equal(plain.transform(pd.DataFrame({"v": numbers})),
                                  plain.transform({"v": [1.0, 2.0, 3.0]}))
    bad = pd.Series([b"a", b"\xff"], dtype=pd.ArrowDtype(pa.binary_view()))
    with pytest.raises(RowError, match="column 'c' holds bytes that are not UTF-8 text in row 1"):
        schema.transform(pd.DataFrame({"c": bad, "v": [1.0, 1.0]}))


# the command line's Parquet reader: a timestamp cell read as the Python API reads it

@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
def test_the_command_line_reads_a_parquet_timestamp_column_as_the_python_api_does(tmp_path, capsys, chunks):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import dpcvx
    from dpcvx.cli import main

    rng = np.random.default_rng(3)
    v = rng.uniform(0, 1, 2500)
    days = ["2020-01-01" if x > 0.5 else "2020-02-01" for x in rng.uniform(0, 1, 2500)]
    y = ["yes" if a + 0.3 * (d == "2020-01-01") > 0.6 else "no" for a, d in zip(v, days, strict=True)]
    stamps = [datetime.datetime.fromisoformat(d) for d in days]
    options = ["--target", "y", "--positive", "yes", "--numeric", "v:0:1", "--categorical",
               "c:2020-01-01,2020-02-01", "--data-norm", "1", "--epsilon", "1", "--random-state", "3", *chunks]
    files = {"text": pa.array(days), "timestamp": pa.array(stamps, pa.timestamp("s"))}
    for name, column in files.items():
        pq.write_table(pa.table({"v": v, "c": column, "y": y}), tmp_path / f"{name}.parquet", row_group_size=400)
        assert main(["fit", str(tmp_path / f"{name}.parquet"), *options, "--out", str(tmp_path / f"{name}.json")]) == 0
    expected, model = dpcvx.load(tmp_path / "text.json"), dpcvx.load(tmp_path / "timestamp.json")
    np.testing.assert_array_equal(model.coef_, expected.coef_)  # "2020-01-01 00:00:00" was no category before
    stamps[1437] = datetime.datetime(2020, 1, 1, 12, 30)
    pq.write_table(pa.table({"v": v, "c": pa.array(stamps, pa.timestamp("s")), "y": y}), tmp_path / "noon.parquet",
                   row_group_size=400)
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "noon.parquet"), *options, "--out", str(tmp_path / "noon.json")]) == 3
    assert "column 'c' holds a timestamp with a time of day in row 1437 " in capsys.readouterr().err
    assert not (tmp_path / "noon.json").exists()


# pyarrow's CSV reader types a column of midnight timestamp texts timestamp until one record is other text

@pytest.mark.parametrize("text", ["2020-01-01 00:00:00", "2020-01-01T00:00", "2020-01-01 00:00:00.000"])
def test_a_midnight_timestamp_text_reads_as_its_day_whatever_type_pyarrow_gave_its_column(text):
    import io

    csv = pytest.importorskip("pyarrow.csv")
    schema = PublicSchema([CategoricalColumn("d", ["2020-01-01", "x"])], strict=False)
    cells = [text, "2020-01-01", text, text]
    read = {name: csv.read_csv(io.BytesIO(("d\n" + "\n".join(column) + "\n").encode()))
            for name, column in (("D", cells), ("D'", [*cells[:-1], "x"]))}
    assert str(read["D"].schema.field("d").type).startswith("timestamp")
    assert str(read["D'"].schema.field("d").type) == "string"
    before, after = schema.transform(read["D"]), schema.transform(read["D'"])  # D' was the all-zero block
    np.testing.assert_array_equal(after[:-1], before[:-1])
    assert before[:, 0].tolist() == [1.0] * 4
    with pytest.raises(InputError, match="spells a timestamp at midnight.*declare the day '2020-01-01'"):
        CategoricalColumn("d", [text, "x"])  # D read it as its day, D' as its text: refused when declared


def test_a_midnight_timestamp_text_label_is_its_day_whatever_type_pyarrow_gave_its_column():
    import io

    from dpcvx.sklearn import DPLogisticRegression

    csv = pytest.importorskip("pyarrow.csv")
    X = np.random.default_rng(0).uniform(-1, 1, (60, 2))
    classes = ("2020-01-01", "2020-02-01", "x")
    texts = np.where(X[:, 0] > 0, "2020-01-01 00:00:00", "2020-02-01 00:00:00")
    fitted = {}
    for name, column in (("D", texts), ("D'", np.append(texts[:-1], "x"))):  # D: timestamp; D' was refused
        y = csv.read_csv(io.BytesIO(("y\n" + "\n".join(column) + "\n").encode())).column("y")
        fitted[name] = DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, y).coef_
        days = np.array([label[:10] if label != "x" else label for label in column])
        np.testing.assert_array_equal(
            fitted[name], DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, days).coef_)
    with pytest.raises(InputError, match="class '2020-01-01 00:00:00' spells a timestamp at midnight"):
        DPLogisticRegression(epsilon=1.0, classes=("2020-01-01 00:00:00", "x")).fit(X, texts)
