"""A time of day, a day and a timestamp written with whitespace around it are read one way whatever type its
reader gave the column (attacker probe P6, session 66, F1).

pyarrow's CSV reader (its default options) types a column of "  12:30", "12:30\\t" or " 2020-01-01" time32 or date32
while every record is one (spaces and tabs either side), and polars' ``try_parse_dates`` after any leading
whitespace; each keeps the text once one record is other text. The typed value was read as "12:30:00" or
"2020-01-01" and matched the declared "12:30" or "2020-01-01", the text did not, so one record moved every such row
between its category (or class) and the all-zero block. Now such a text is read without its surrounding whitespace
(:func:`dpcvx.tables.unspaced`). Each test failed on the parent, s66 50cc048e.
"""

from __future__ import annotations

import datetime
import io

import numpy as np
import pytest

from dpcvx import CategoricalColumn, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.tables import iso_day, midnight_day, time_key, timed_timestamp
from dpcvx.validation import label_vector

pa = pytest.importorskip("pyarrow")
csv = pytest.importorskip("pyarrow.csv")

BASES = ["12:30", "12:30:00", "8:00", "12:30:00.5", "2020-01-01", "2020-02-29", "2020-01-01T00:00:00",
         "2020-01-01T12:30", "2020-01-01 00:00:00", "2020-02-30"]
SPACES = [" ", "  ", "\t", " \t", "\v", "\u00a0"]
SPACED = sorted({text for base in BASES for space in SPACES
                 for text in (space + base, base + space, space + base + space)})


def _typed(cells, reader):
    text = ("c\n" + "\n".join(f'"{cell}"' for cell in cells) + "\n").encode()
    if reader == "pyarrow":
        column = csv.read_csv(io.BytesIO(text)).column("c")
        return None if pa.types.is_string(column.type) else column[0].as_py()
    pl = pytest.importorskip("polars")
    try:
        column = pl.read_csv(io.BytesIO(text), try_parse_dates=True)["c"]
    except Exception:  # polars guessed a format and failed to read the cell: no table, nothing to read
        return None
    return None if column.dtype == pl.String else column[0]


@pytest.mark.parametrize("reader", ["pyarrow", "polars"])
@pytest.mark.parametrize("text", SPACED)
def test_a_spaced_text_reads_as_its_reader_types_it(text, reader):
    typed = _typed([text] * 3, reader)
    if isinstance(typed, datetime.datetime):  # at midnight without a zone: its day; else refused
        day = typed.date().isoformat() if typed.time() == datetime.time(0) else None
        assert midnight_day(text) == day
        assert timed_timestamp(text) == (day is None)
    elif isinstance(typed, datetime.date):
        assert iso_day(text) == typed.isoformat()
    elif isinstance(typed, datetime.time):
        assert time_key(text) == time_key(typed.isoformat())


CASES = [("  12:30", ("12:30", "x")), ("12:30\t", ("12:30", "x")), (" 12:30:00 ", ("12:30", "x")),
         (" 2020-01-01", ("2020-01-01", "x")), ("2020-01-01\t", ("2020-01-01", "x"))]


@pytest.mark.parametrize(("cell", "categories"), CASES)
def test_a_spaced_cell_is_its_category_whatever_type_pyarrow_gave(cell, categories):
    schema = PublicSchema((CategoricalColumn("c", categories),), strict=False)
    reads = {}
    for name, cells in (("D", [cell] * 6), ("D'", [cell] * 5 + ["x"])):
        table = csv.read_csv(io.BytesIO(("c\n" + "\n".join(f'"{v}"' for v in cells) + "\n").encode()))
        assert name == "D'" or not pa.types.is_string(table.column("c").type)  # D typed, D' text
        reads[name] = schema.transform(table)[:5]
        np.testing.assert_array_equal(schema.transform({"c": cells})[:5], reads[name], err_msg=name)
    np.testing.assert_array_equal(reads["D"], reads["D'"])
    assert reads["D"][:, 0].tolist() == [1.0] * 5


@pytest.mark.parametrize(("cell", "classes"), CASES)
def test_a_spaced_label_is_its_class_whatever_type_pyarrow_gave(cell, classes):
    labels = {}
    for name, last in (("D", cell), ("D'", "x")):
        column = csv.read_csv(io.BytesIO(("y\n" + "\n".join(f'"{v}"' for v in [cell] * 5 + [last]) + "\n")
                                         .encode())).column("y")
        labels[name] = label_vector(column, 6, classes)[:5].tolist()
    assert labels["D"] == labels["D'"] == [classes[0]] * 5


def test_a_declared_spaced_day_or_time_is_its_day_or_time_and_two_spellings_of_one_are_refused():
    with pytest.raises(InputError, match="' 2020-01-01' spells the day '2020-01-01' spells too"):
        CategoricalColumn("c", ("2020-01-01", " 2020-01-01"))
    with pytest.raises(InputError, match="spells the time of day"):
        CategoricalColumn("c", ("12:30", " 12:30"))
    from dpcvx.sklearn import DPLogisticRegression

    X = np.random.default_rng(0).uniform(-0.7, 0.7, (20, 2))
    with pytest.raises(InputError, match="class '2020-01-01 ' spells the day '2020-01-01' spells too"):
        DPLogisticRegression(epsilon=1.0, classes=("2020-01-01", "2020-01-01 ")).fit(X, ["2020-01-01"] * 20)
    schema = PublicSchema((CategoricalColumn("c", (" 12:30", " 2020-01-01", "x")),), strict=False)
    cells = ["12:30", " 12:30", datetime.time(12, 30), "2020-01-01", " 2020-01-01", datetime.date(2020, 1, 1), "x"]
    assert schema.transform({"c": cells})[:, :2].tolist() == [[1, 0]] * 3 + [[0, 1]] * 3 + [[0, 0]]
