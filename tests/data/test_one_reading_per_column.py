"""One reading of a cell whatever type a reader gave its whole column (attacker probe B, session 65).

A reader types a column by every record: pyarrow's CSV reader makes a column of "0x10" and codes integers (16), a
column of 0/1 and "true" booleans, a column of ISO dates date32, and a column of codes with "NA" integers with a
null, but keeps every cell's text once one record is text. A cell's reading (a number, a category, a class) must
not change with that: each test reads a data set D and its neighbour D' (one record changed) and asserts that every
other row reads alike, or that the declaration is refused before any data is read. Each failed on s65 at cd8d0129.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PrivacyAccountant, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.tables import reading_key


def _pyarrow_csv(cells: list[str], name: str = "v"):
    """The table pyarrow's CSV reader makes of one column of ``cells`` (its types inferred from every record)."""
    csv = pytest.importorskip("pyarrow.csv")
    return csv.read_csv(io.BytesIO(("\n".join([name, *cells]) + "\n").encode()))


# B4: a numpy duration is a numpy integer to Python, but no number

@pytest.mark.parametrize("duration", [np.timedelta64(2, "ns"), np.timedelta64(1, "D"), np.timedelta64(2, "us")])
def test_a_duration_has_no_reading_key_and_is_no_category(duration):
    assert reading_key(duration) is None and reading_key(np.datetime64(2, "ns")) is None
    schema = PublicSchema([CategoricalColumn("c", ["1", "2", "3"])])
    codes = ["1", "2", "3", "2"]
    before = schema.transform({"c": codes})
    after = schema.transform({"c": [*codes[:-1], duration]})  # was the category "2", or a bare TypeError
    np.testing.assert_array_equal(after[:-1], before[:-1])
    assert not after[-1].any()  # an unknown category: the all-zero block


# B8: a numeric column pyarrow typed from every record ("0x10" as 16, "true" as 1)

@pytest.mark.parametrize(("cells", "bounds", "number"), [(["1", "2", "0x10", "4", "3"], (0, 20), 16.0),
                                                          (["0", "1", "true", "0", "1"], (0, 1), 1.0),
                                                          (["0", "1", "FALSE", "0", "1"], (0, 1), 0.0)])
def test_a_numeric_cell_reads_alike_whatever_type_pyarrow_gave_its_column(cells, bounds, number):
    schema = PublicSchema([NumericColumn("v", *bounds, missing=float(bounds[0]))])
    typed = _pyarrow_csv(cells)  # D: integers or booleans
    text = _pyarrow_csv([*cells[:-1], "?"])  # D': one declared missing marker makes the column text
    assert str(typed.schema.field("v").type) != "string" and str(text.schema.field("v").type) == "string"
    before, after = schema.transform(typed), schema.transform(text)  # D' refused "0x10" and "true" in row 2
    np.testing.assert_array_equal(after[:-1], before[:-1])
    assert before[2, 0] == pytest.approx((number - bounds[0]) / (bounds[1] - bounds[0]) - 0.5)
    np.testing.assert_array_equal(schema.transform({"v": np.array(cells)}), before)  # a numpy str column alike


def test_the_command_line_reads_a_hexadecimal_cell_of_a_csv_file_as_pyarrow_types_it(tmp_path):
    pytest.importorskip("pyarrow")
    from dpcvx.data.csv_table import read_table_columns
    schema = PublicSchema([NumericColumn("x", 0.0, 20.0, missing=0.0)])
    path = tmp_path / "d.csv"
    path.write_text("x\n1\n0x10\n?\n")
    encoded = schema.transform(read_table_columns(path, ["x"], numeric={"x"}))
    np.testing.assert_allclose(encoded[:, 0], np.array([1.0, 16.0, 0.0]) / 20 - 0.5)


# B8: a column of ISO dates pyarrow typed date32 (refused as datetimes) while one other record keeps the text

DATES = ["2020-01-01", "2020-02-01", "2020-01-01", "2020-02-01", "2020-01-01"]


def test_a_date_cell_is_its_iso_text_whatever_type_pyarrow_gave_its_column():
    schema = PublicSchema([CategoricalColumn("d", ["2020-01-01", "2020-02-01", "x"], missing="x")])
    typed = _pyarrow_csv(DATES, "d")  # D: date32
    text = _pyarrow_csv([*DATES[:-1], "x"], "d")  # D': one declared category "x" keeps every text
    assert str(typed.schema.field("d").type).startswith("date32")
    before, after = schema.transform(typed), schema.transform(text)  # D was refused as datetimes
    np.testing.assert_array_equal(after[:-1], before[:-1])
    np.testing.assert_array_equal(before, schema.transform({"d": DATES}))
    assert before[:, :2].sum(axis=0).tolist() == [3.0, 2.0]


def test_every_reader_of_a_date_column_gives_its_iso_text():
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    import datetime

    days = [datetime.date(2020, 1, 1), None, datetime.date(2020, 2, 1)]
    schema = PublicSchema([CategoricalColumn("d", ["2020-01-01", "2020-02-01", "?"], missing="?")])
    expected = schema.transform({"d": ["2020-01-01", "?", "2020-02-01"]})
    table = pa.table({"d": pa.array(days, pa.date32())})
    forms = {"date32": table, "date64": pa.table({"d": pa.array(days, pa.date64())}),
             "pandas objects": table.to_pandas(), "pandas ArrowDtype": table.to_pandas(types_mapper=pd.ArrowDtype),
             "numpy datetime64[D]": {"d": np.array(["2020-01-01", "NaT", "2020-02-01"], dtype="datetime64[D]")}}
    try:
        import polars as pl
        forms["polars Date"] = pl.from_arrow(table)
    except ImportError:
        pass
    for form, data in forms.items():
        np.testing.assert_array_equal(schema.transform(data), expected, err_msg=form)


def test_a_date_label_is_its_iso_text_whatever_type_pyarrow_gave_its_column():
    from dpcvx.sklearn import DPLogisticRegression

    X = np.random.default_rng(0).uniform(-1, 1, (60, 2))
    classes = ("2020-01-01", "2020-02-01", "x")
    labels = np.where(X[:, 0] > 0, classes[0], classes[1])
    csv = pytest.importorskip("pyarrow.csv")
    fitted = {}
    for name, column in (("D", labels), ("D'", np.append(labels[:-1], "x"))):  # D: date32, refused as outside
        y = csv.read_csv(io.BytesIO(("y\n" + "\n".join(column) + "\n").encode())).column("y")
        for form, given in (("pyarrow", y), ("pandas", y.to_pandas()), ("text", column)):
            model = DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, given)
            fitted[name, form] = model.coef_
    for name in ("D", "D'"):
        np.testing.assert_array_equal(fitted[name, "pyarrow"], fitted[name, "text"])
        np.testing.assert_array_equal(fitted[name, "pandas"], fitted[name, "text"])


def test_a_datetime_of_another_unit_is_its_day_at_midnight_and_refused_with_a_time_of_day():
    schema = PublicSchema([CategoricalColumn("d", ["2020-01-01", "x"])])  # (session 65, probe A2 F3)
    np.testing.assert_array_equal(schema.transform({"d": np.array(["2020-01-01T00:00:00"], dtype="datetime64[s]")}),
                                  schema.transform({"d": ["2020-01-01"]}))
    with pytest.raises(InputError, match="'d' holds a timestamp with a time of day in row 0"):
        schema.transform({"d": np.array(["2020-01-01T00:00:01"], dtype="datetime64[s]")})


# B7: a declared class or command-line label that spells a missing value

@pytest.mark.parametrize("classes", [("NA", "1"), ("NA", "1", "x"), ("0", "null"), ("1", " NaN ")])
def test_a_class_that_spells_a_missing_value_is_refused_before_any_data_is_read(classes):
    from dpcvx.sklearn import DPLogisticRegression

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (300, 2))
    labels = np.where(X[:, 0] > 0, classes[0], classes[1]).astype(object)
    csv = pytest.importorskip("pyarrow.csv")
    read = {}  # D: pyarrow reads "NA" as a null among codes; D': one label "x" keeps every label's text
    for name, column in (("D", labels), ("D'", np.append(labels[:-1], "x"))):
        read[name] = csv.read_csv(io.BytesIO(("y\n" + "\n".join(map(str, column)) + "\n").encode())).column("y")
    accountant = PrivacyAccountant(epsilon=10.0)
    for name, y in read.items():  # D was refused as missing labels, D' released with "NA" a class
        with pytest.raises(InputError, match="spells a missing value") as error:
            DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, y.to_pandas(),
                                                                                   accountant=accountant)
        assert "got" in str(error.value), name
    assert accountant.spent.epsilon == 0


@pytest.mark.parametrize("classes", [("", "1"), ("1", "  "), ("", "1", "x")])
def test_an_empty_class_is_refused_as_one_a_reader_makes_missing(classes):
    """pyarrow reads an empty cell as a null in a column of codes and as "" once one label is text (a regression
    probe, session 65): an empty class is refused as "NA" is, before any data is read."""
    from dpcvx.sklearn import DPLogisticRegression

    X = np.zeros((4, 2))
    accountant = PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="spells a missing value"):
        DPLogisticRegression(epsilon=1.0, classes=classes).fit(X, [classes[0], classes[1]] * 2, accountant=accountant)
    assert accountant.spent.epsilon == 0


@pytest.mark.parametrize("options", [("--positive", "NA", "--negative", "1", "--negative", "x"),
                                     ("--positive", "1", "--negative", "nan"), ("--classes", "NA,1,x"),
                                     ("--positive", "1", "--negative", ""), ("--positive", " ", "--negative", "1")])
def test_the_command_line_refuses_a_label_that_spells_a_missing_value_before_reading(tmp_path, capsys, options):
    from dpcvx.cli import main

    data = tmp_path / "absent.parquet"  # never read: the declaration is refused first
    code = main(["fit", str(data), "--target", "y", "--numeric", "v:0:1", *options, "--epsilon", "1",
                 "--data-norm", "1", "--out", str(tmp_path / "m.json")])
    err = capsys.readouterr().err
    assert code == 2 and "spells a missing value" in err, err
    assert not (tmp_path / "m.json").exists()
