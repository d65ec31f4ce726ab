"""A time of day, and a timestamp with a time of day or a zone, is read one way whatever type its reader gave the
column (attacker probe P1, session 66, F1 and F2).

pyarrow's CSV reader types a column of "12:30" or "12:30:00" texts time32, and polars' ``try_parse_dates`` Time,
while every record is one, and keeps the text once one record is other text. A typed time was read as "12:30:00"
and a text one as written, so a declared "12:30" matched every such row on one table and none on its neighbour
(F1). A timestamp text with a time of day or a zone was refused only when typed (F2). Now a time of day is compared
by the time it spells (:func:`dpcvx.tables.time_key`), and a timestamp text with a time of day or a zone is refused
as the typed one is. Each test reads D and D' (one record changed); each failed on the parent, 5bdae192.
"""

from __future__ import annotations

import datetime
import io

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.tables import RowError, midnight_day, time_key, timed_timestamp

pa = pytest.importorskip("pyarrow")
csv = pytest.importorskip("pyarrow.csv")

# the spellings read (session 66): each either typed by pyarrow or polars, or kept as text by both
SPELLINGS = ["12:30", "12:30:00", "12:30:00.5", "12:30:00.123456789", "1:30", "12:30:5", "01:30:00.000000000",
             "24:00", "12:60", "12:30:00Z", "12:30+01:00", "T12:30", "12:30:00,5",
             "2020-01-01 12:30", "2020-01-01T12:30", "2020-01-01 12", "2020-01-01T12", "2020-01-01 12:30:00",
             "2020-01-01 00:00:00.5", "2020-01-01 00:00:00Z", "2020-01-01T00:00:00+01:00", "2020-01-01T00:00:00+0100",
             "2020-01-01 00:00Z", "2020-01-01 00Z", "2020-01-01T00:00:00.5Z", "2020-01-01 00:00:00-05",
             "2020-01-01 12:30:00+01", "2020-01-01 12:30:00.000", "2020-01-01 1:30", "2020-01-01 12:30:5",
             "2020-01-01 00:00", "2020-01-01T00", "2020-01-01 00:00:00.000",
             "2020-01-01T00:00:00,5", "2020-01-01t12:30", "2020-01-01T24:00:00", "2020-01-01 12:30:00 +01:00",
             "2020-01-01 12h30", "12h30"]  # the last two: the refusals' advice, .dt.strftime('%Y-%m-%d %Hh%M')


def _pyarrow_type(text):
    return str(csv.read_csv(io.BytesIO(f'c\n"{text}"\n'.encode())).schema.field("c").type)


def _polars_value(text):
    pl = pytest.importorskip("polars")
    column = pl.read_csv(io.BytesIO(f'c\n"{text}"\n'.encode()), try_parse_dates=True)["c"]
    return None if column.dtype == pl.String else column[0]


@pytest.mark.parametrize("text", SPELLINGS)
def test_the_text_grammar_is_the_readers_typed_grammar(text):
    typed = _pyarrow_type(text)
    try:
        polars = _polars_value(text)
    except Exception:  # polars guessed a format and failed to read the cell: no table, nothing to read
        polars = "unread"
    as_time = typed.startswith(("time32", "time64")) or isinstance(polars, datetime.time)
    as_stamp = typed.startswith("timestamp") or isinstance(polars, datetime.datetime)
    assert (time_key(text) is not None) == as_time
    assert (midnight_day(text) is not None or timed_timestamp(text)) == as_stamp
    if as_stamp:  # at midnight without a zone as its day, else refused, as the typed value is
        midnight = ("tz" not in typed and "+" not in text[10:] and "Z" not in text and "-" not in text[10:]
                    and not any(ch not in "0:. T" for ch in text[11:]))
        assert (midnight_day(text) is not None) == midnight
    if isinstance(polars, datetime.time):  # the typed time's text is that time
        assert time_key(polars.isoformat()) == time_key(text)


SCHEMA = PublicSchema((CategoricalColumn("c", ("08:00", "12:30", "x")), NumericColumn("v", 0.0, 1.0)), strict=False)


def _csv(cells):
    return ("c,v\n" + "\n".join(f"{cell},0.5" for cell in cells) + "\n").encode()


@pytest.mark.parametrize("cells", [["12:30", "08:00"] * 3, ["12:30:00", "08:00:00"] * 3])
def test_a_time_of_day_cell_is_its_declared_category_whatever_type_its_reader_gave(cells):
    pl = pytest.importorskip("polars")
    pd = pytest.importorskip("pandas")
    neighbour = [*cells[:-1], "x"]
    reads = {"pyarrow D": csv.read_csv(io.BytesIO(_csv(cells))),
             "pyarrow D'": csv.read_csv(io.BytesIO(_csv(neighbour))),
             "polars D": pl.read_csv(io.BytesIO(_csv(cells)), try_parse_dates=True),
             "polars D'": pl.read_csv(io.BytesIO(_csv(neighbour)), try_parse_dates=True)}
    assert str(reads["pyarrow D"].schema.field("c").type).startswith("time32")
    assert reads["polars D"]["c"].dtype == pl.Time
    expected = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]] * 3)  # the category block
    for name, table in reads.items():
        got = SCHEMA.transform(table)[:, :3]
        np.testing.assert_array_equal(got[:-1], expected[:-1], err_msg=name)  # D or D': every other row alike
    times = [datetime.time(12, 30), datetime.time(8, 0)] * 3
    for form in ({"c": times, "v": [0.5] * 6}, pd.DataFrame({"c": times, "v": [0.5] * 6}),
                 {"c": np.array(times, dtype=object), "v": np.full(6, 0.5)}):
        np.testing.assert_array_equal(SCHEMA.transform(form)[:, :3], expected)


def test_a_declared_time_of_day_matches_every_spelling_of_it_and_two_spellings_are_refused():
    schema = PublicSchema((CategoricalColumn("c", ("08:00:00", "x")),), strict=False)
    got = schema.transform({"c": ["08:00", "8:00", "08:00:00.000", datetime.time(8), "08:01", "x"]})
    assert got[:, 0].tolist() == [1, 1, 1, 1, 0, 0]
    with pytest.raises(InputError, match="'08:00:00' spells the time of day '08:00' spells too"):
        CategoricalColumn("c", ("08:00", "08:00:00"))


TIMED = ["2020-01-01 12:30:00", "2020-01-01 00:00:00.5", "2020-01-01 00:00:00Z", "2020-01-01T00:00:00+01:00",
         "2020-01-01 12"]


@pytest.mark.parametrize("text", TIMED)
def test_a_timestamp_text_with_a_time_of_day_or_a_zone_is_refused_as_the_typed_one_is(text):
    schema = PublicSchema((CategoricalColumn("c", ("2020-01-01", "x")),), strict=False)
    for cells in ([text] * 3, [text, text, "x"]):  # D: typed timestamp, refused; D' was released, all-zero rows
        with pytest.raises((RowError, InputError), match="time of day|timezone"):
            schema.transform(csv.read_csv(io.BytesIO(("c\n" + "\n".join(cells) + "\n").encode())))
    with pytest.raises(RowError, match="categorical column 'c' holds a timestamp with a (time of day|timezone) in "
                                       "row 2 "):
        schema.transform({"c": ["x", "2020-01-01", text]})
    with pytest.raises(InputError, match="spells a timestamp with a time of day or a timezone"):
        CategoricalColumn("c", (text, "x"))


def test_labels_of_times_and_timed_timestamps_read_one_way_whatever_type_pyarrow_gave():
    from dpcvx.sklearn import DPLogisticRegression

    X = np.random.default_rng(0).uniform(-0.7, 0.7, (60, 2))
    classes = ("08:00", "12:30", "other")
    texts = np.where(X[:, 0] > 0, "12:30", "08:00")
    fitted = {}
    for name, column in (("D", texts), ("D'", np.append(texts[:-1], "other"))):  # D: time32, was refused
        y = csv.read_csv(io.BytesIO(("y\n" + "\n".join(column) + "\n").encode())).column("y")
        fitted[name] = DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, y).coef_
        np.testing.assert_array_equal(
            fitted[name], DPLogisticRegression(epsilon=1.0, classes=classes, random_state=0).fit(X, column).coef_)
    stamps = np.where(X[:, 0] > 0, "2020-01-01 12:30:00", "2020-01-01 08:00:00")
    for column in (stamps, np.append(stamps[:-1], "other")):  # D' was read as labels outside the classes
        y = csv.read_csv(io.BytesIO(("y\n" + "\n".join(column) + "\n").encode())).column("y")
        with pytest.raises(RowError, match="y holds a timestamp with a time of day in row 0"):
            DPLogisticRegression(epsilon=1.0, classes=("2020-01-01", "other")).fit(X, y)
    with pytest.raises(InputError, match="class '2020-01-01 12:30:00' spells a timestamp with a time of day"):
        DPLogisticRegression(epsilon=1.0, classes=("2020-01-01 12:30:00", "other")).fit(X, stamps)
    with pytest.raises(InputError, match="class '8:00:00' spells the time of day '08:00' spells too"):
        DPLogisticRegression(epsilon=1.0, classes=("08:00", "8:00:00", "other")).fit(X, texts)


def test_a_refused_timestamp_text_spends_nothing():
    from dpcvx import PrivacyAccountant
    from dpcvx.sklearn import DPLogisticRegression

    X = np.random.default_rng(1).uniform(-0.7, 0.7, (30, 2))
    accountant = PrivacyAccountant(epsilon=5.0)
    y = ["yes"] * 15 + ["2020-01-01T00:00:00Z"] + ["no"] * 14
    with pytest.raises(RowError, match="timezone in row 15"):
        DPLogisticRegression(epsilon=1.0, classes=("no", "yes")).fit(X, y, accountant=accountant)
    assert accountant.spent.epsilon == 0


def test_the_command_line_reads_a_parquet_time_label_column_as_its_csv_text(tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    import dpcvx
    from dpcvx.cli import main

    rng = np.random.default_rng(4)
    v = rng.uniform(0, 1, 400)
    labels = np.where(v + rng.uniform(0, 0.5, 400) > 0.7, "12:30", "08:00")
    options = ["--target", "y", "--classes", "08:00,12:30", "--numeric", "v:0:1", "--data-norm", "1",
               "--epsilon", "1", "--random-state", "3"]
    times = [datetime.time(int(t[:2]), int(t[3:])) for t in labels]
    pq.write_table(pa.table({"v": v, "y": pa.array(times, pa.time32("s"))}), tmp_path / "time.parquet")
    (tmp_path / "text.csv").write_text("v,y\n" + "".join(f"{float(a)!r},{b}\n" for a, b in zip(v, labels, strict=True)))
    for name in ("time.parquet", "text.csv"):
        assert main(["fit", str(tmp_path / name), *options, "--out", str(tmp_path / f"{name}.json")]) == 0
    np.testing.assert_array_equal(dpcvx.load(tmp_path / "time.parquet.json").coef_,
                                  dpcvx.load(tmp_path / "text.csv.json").coef_)
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "text.csv"), *options[:2], "--classes", "2020-01-01 12:30,x", *options[4:],
                 "--out", str(tmp_path / "bad.json")]) != 0
    assert "spells a timestamp with a time of day" in capsys.readouterr().err


def test_a_model_files_schema_keeps_a_category_spelling_a_timestamp_for_its_predictions_only():
    from dpcvx.data.preprocessing import saved_schema

    with saved_schema():  # fitted before the refusal: its file still loads
        column = CategoricalColumn("c", ("2020-01-01 12:30", "08:00", "08:00:00"))
    schema = PublicSchema((column,), strict=False)
    assert schema.transform({"c": ["2020-01-01 12:30", "x"]}).tolist() == [[1, 0, 0], [0, 0, 0]]
    with pytest.raises(InputError, match="keeps them for that model's predictions only"):
        schema.fit({"c": ["x"]})
