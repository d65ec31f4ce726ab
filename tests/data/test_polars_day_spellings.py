"""A day, a time of day and a timestamp spelled as polars' ``try_parse_dates`` types them besides ISO 8601 are read
one way whatever type the column was given (attacker probe P6, session 66, F1).

polars (``read_csv(try_parse_dates=True)``) types a column of "2020/01/01", "01/02/2020" (1 February, day first),
"2020-1-1", "2020.01.01", "+2020-01-01", "1:2", "12:30:00.1234567891", "2020/01/01 12:30" or the leap second
"2020-01-01T23:59:60" (the next midnight) as a date, time or timestamp while every record is one, and keeps the
text once one record is other text. The typed value was read as its ISO text (or refused, with a time of day) and
the text as written, so one record moved every such row between its category or class and the all-zero block, or
decided whether the column was refused. Now such a text is read as polars types it (:func:`dpcvx.tables.iso_day`,
:data:`dpcvx.tables.TIMESTAMP_TEXT`, :data:`dpcvx.tables.TIME_TEXT`), and a day is compared by the day it spells, as a
time of day is: a declared "2020/01/01" (or a version "1.2.3", which polars types as the day 0003-02-01) is every
spelling of its day, and two declared values spelling one day are refused. Each test failed on the parent, s66 50cc048e.
"""

from __future__ import annotations

import datetime
import io

import numpy as np
import pytest

from dpcvx import CategoricalColumn, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.tables import RowError, iso_day, midnight_day, time_key, timed_timestamp
from dpcvx.validation import label_vector

pl = pytest.importorskip("polars")

SPELLINGS = ["2020/01/01", "01/02/2020", "02-01-2020", "2020-1-1", "2020.01.01", "+2020-01-01", "2020.1.1",
             "1.1.2020", "1/2/20", "20/01/01", "020-01-01", "2020/02/29", "2021/02/29", "12/31/2020", "2020/13/01",
             "2020/01-01", "2020_01_01", "1:2", "12:3", "1:2:3.5", "12:30:00.1234567891", "12:30:60", "1:60",
             "2020/01/01 00:00:00", "2020-01-01 00:0", "2020-01-01T00:00:00.0000000000", "2020-01-01T23:59:60",
             "2020-01-01 23:59:60.5", "2020-01-01 12:30:60", "2020/01/01 12:30", "2020/01/01 1:2",
             "01/02/2020 00:00", "01/02/2020T00:00", "01-02-2020 12:30", "2020.01.01 00:00",
             "2020/01/01 00:00:00+01:00", "2020-02-30 00:00", "2020-01-01 24:00", " 2020/01/01"]


def _polars(cells):
    text = ("c\n" + "\n".join(f'"{cell}"' for cell in cells) + "\n").encode()
    return pl.read_csv(io.BytesIO(text), try_parse_dates=True)


@pytest.mark.parametrize("text", SPELLINGS)
def test_a_text_reads_as_polars_types_it(text):
    try:
        column = _polars([text] * 3)["c"]
    except Exception:  # polars guessed a format and failed to read the cell: no table, nothing to read
        return
    typed = None if column.dtype == pl.String else column[0]
    if isinstance(typed, datetime.datetime):  # at midnight without a zone its day, else refused
        midnight = typed.tzinfo is None and typed.time() == datetime.time(0)
        assert midnight_day(text) == (typed.date().isoformat() if midnight else None)
        assert timed_timestamp(text) == (not midnight)
    elif isinstance(typed, datetime.date):
        assert iso_day(text) == typed.isoformat()
    elif isinstance(typed, datetime.time):
        assert time_key(text) == time_key(typed.isoformat())


CASES = [("2020/01/01", ("2020-01-01", "x")), ("01/02/2020", ("2020-02-01", "x")), ("2020-1-1", ("2020-01-01", "x")),
         ("2020.01.01", ("2020-01-01", "x")), ("+2020-01-01", ("2020-01-01", "x")), ("1:2", ("01:02", "x")),
         ("2020/01/01 00:00:00", ("2020-01-01", "x")), ("2020-01-01T23:59:60", ("2020-01-02", "x")),
         ("12:30:00.1234567891", ("12:30:00.123456", "x"))]


@pytest.mark.parametrize(("cell", "declared"), CASES)
def test_a_cell_and_a_label_so_spelled_read_one_way_in_d_and_d_prime(cell, declared):
    schema = PublicSchema((CategoricalColumn("c", declared),), strict=False)
    encoded, labels = {}, {}
    for name, cells in (("D", [cell] * 6), ("D'", [cell] * 5 + ["x"])):
        table = _polars(cells)
        assert name == "D'" or table["c"].dtype != pl.String  # D typed, D' text
        encoded[name] = schema.transform(table)[:5]
        labels[name] = label_vector(table["c"], 6, declared)[:5].tolist()
    np.testing.assert_array_equal(encoded["D"], encoded["D'"])
    assert encoded["D"][:, 0].tolist() == [1.0] * 5
    assert labels["D"] == labels["D'"] == [declared[0]] * 5


def test_a_timestamp_so_spelled_with_a_time_is_refused_in_d_and_d_prime():
    schema = PublicSchema((CategoricalColumn("c", ("x",)),), strict=False)
    for cells in (["2020/01/01 12:30"] * 6, ["2020/01/01 12:30"] * 5 + ["x"]):
        with pytest.raises((RowError, InputError), match="time of day"):
            schema.transform(_polars(cells))


@pytest.mark.parametrize(("declared", "cell"), [("2020/01/01", "2020/01/01"), ("01/02/2020", "01/02/2020"),
                                                ("1.2.3", "1.2.3"), ("2020-01-01", "2020.1.1")])
def test_a_declared_day_is_every_spelling_of_it_in_d_and_d_prime(declared, cell):
    schema = PublicSchema((CategoricalColumn("c", (declared, "x")),), strict=False)
    encoded = {name: schema.transform(_polars(cells))[:5, 0].tolist()
               for name, cells in (("D", [cell] * 6), ("D'", [cell] * 5 + ["x"]))}
    assert encoded["D"] == encoded["D'"] == [1.0] * 5
    day = iso_day(declared)
    assert day is not None
    assert schema.transform({"c": [day, datetime.date.fromisoformat(day), "x"]})[:, 0].tolist() == [1, 1, 0]


@pytest.mark.parametrize(("first", "second"), [("2020/01/01", "2020-01-01"), ("01/02/2020", "2020-02-01"),
                                               ("2020-1-1", "2020.01.01")])
def test_two_declared_values_spelling_one_day_are_refused(first, second):
    from dpcvx.sklearn import DPLogisticRegression

    with pytest.raises(InputError, match="spells the day .* spells too"):
        CategoricalColumn("c", (first, second))
    X = np.random.default_rng(0).uniform(-0.7, 0.7, (20, 2))
    with pytest.raises(InputError, match="spells the day .* spells too"):
        DPLogisticRegression(epsilon=1.0, classes=(first, second)).fit(X, [first] * 20)
