"""A categorical value that is a declared category but for how the table was read is named with the column and the
fix, never the value: refused by a strict schema with its first row, warned of (NOT PRIVATE, no row) by a non-strict
one, which encodes it as the all-zero block (a refusal would be decided by one record's value: tests/misread.py). The
forms: text with surrounding whitespace (the UCI Adult files read by a plain ``pd.read_csv`` keep " State-gov"), a
number whose integer text, zero-padded, two declared codes share ("07" and "007" for 7). A number that is one code's
integer text, or that text zero-padded, is that code (zip 2134 is "02134", 3.0 is "3"). Before the first of these
checks, a non-strict schema encoded them as the all-zero block, silently: 49% of the rows of a zip column lost it,
and Adult's balanced accuracy fell from 0.615 to 0.529."""

from __future__ import annotations

import dataclasses
import re
import warnings

import numpy as np
import pytest
from misread import named

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import InputError, UndeclaredCategoryWarning

pd = pytest.importorskip("pandas")

ZIPS = ("02134", "02139", "10001", "94105", "?")
SCHEMA = PublicSchema((CategoricalColumn("zip", ZIPS, missing="?"),
                       CategoricalColumn("work", ("State-gov", "Private"))))
SPACED = (r"column 'work' holds text that is a declared category but for surrounding whitespace, the first in row "
          r"{row} \(the value is not shown: it is data\): .*pd\.read_csv\(\.\.\., skipinitialspace=True\)")
PADDED = (r"column 'zip' holds numbers whose integer text, zero-padded, is a declared category, the first in row "
          r"{row} \(the value is not shown: it is data\): .*pd\.read_csv\(\.\.\., dtype=\{{'zip': str\}}\)")


@pytest.mark.parametrize("strict", [False, True])
def test_text_with_surrounding_whitespace_is_refused_not_zeroed(strict):
    schema = dataclasses.replace(SCHEMA, strict=strict)
    for spaced in (" State-gov", "Private  ", "\tPrivate"):
        work = np.array(["State-gov", "Private", spaced], dtype=object)
        for table in ({"zip": np.array(["02134"] * 3), "work": work},
                      pd.DataFrame({"zip": ["02134"] * 3, "work": work}),
                      pd.DataFrame({"zip": ["02134"] * 3, "work": pd.array(work, dtype="string")}),
                      pd.DataFrame({"zip": ["02134"] * 3, "work": pd.Categorical(work)})):
            with named(strict, SPACED.format(row=2)):
                encoded = schema.transform(table)
            if not strict:
                assert not encoded[2, len(ZIPS):].any()  # the misread row's work block: zeros


def _zip_tables() -> dict[str, object]:
    """The zips 55555 (not declared), 02134, 02139 as a code column read as numbers, in each library."""
    pa = pytest.importorskip("pyarrow")
    pl = pytest.importorskip("polars")
    work = ["Private"] * 3
    return {"int64": pd.DataFrame({"zip": [55555, 2134, 2139], "work": work}),
            "Int64": pd.DataFrame({"zip": pd.array([55555, 2134, 2139], dtype="Int64"), "work": work}),
            "Int64 with NA": pd.DataFrame({"zip": pd.array([55555, 2134, None], dtype="Int64"), "work": work}),
            "float64 with NaN": pd.DataFrame({"zip": [55555.0, 2134.0, np.nan], "work": work}),
            "categorical": pd.DataFrame({"zip": pd.Categorical([55555, 2134, 2139]), "work": work}),
            "polars": pl.DataFrame({"zip": [55555, 2134, 2139], "work": work}),
            "pyarrow": pa.table({"zip": [55555, 2134, None], "work": work}),
            "numpy": {"zip": np.array([55555, 2134, 2139], dtype=np.uint32), "work": np.array(work)}}


@pytest.mark.parametrize("strict", [False, True])
def test_codes_read_as_numbers_encode_as_their_category(strict):
    """A code column read as numbers (zip "02134" as 2134, in every library's types, with a missing value or not) is
    encoded as its category: a number stands for the category that is its integer text, else the one category that
    is that text zero-padded. It was named and encoded as the all-zero block, and whether a reader made the codes
    numbers depends on the other records (one text among them keeps them text), so one record changed every row's
    block (an attacker probe, sixty-second session)."""
    schema = dataclasses.replace(SCHEMA, strict=False)
    for name, table in _zip_tables().items():
        encoded = schema.transform(table)[:, :len(ZIPS)] > 0
        assert encoded[1].tolist() == [1, 0, 0, 0, 0] and not encoded[0].any(), name  # 55555: undeclared
    strict_schema = dataclasses.replace(SCHEMA, strict=strict)
    assert (strict_schema.transform({"zip": np.array([2134, 10001]), "work": np.array(["Private"] * 2)})[
        :, :len(ZIPS)] > 0).tolist() == [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0]]
    with pytest.raises(InputError, match="the categories '07' and '007' are one value to a reader"):
        CategoricalColumn("code", ("07", "007", "a"))  # a number two padded codes share would be neither's


def test_values_merely_outside_the_categories_still_encode_as_zeros():
    """Unknown numbers, non-whole or non-finite floats, False where 0 is no category, an integer beyond float64, and
    text that differs from a category inside it, are no misread category: a non-strict schema encodes them as the
    all-zero block, as before."""
    schema = PublicSchema((CategoricalColumn("code", ("007", "1", "a b", "?"), missing="?"),))
    for values in (np.array([8, 70, 700, -7]), np.array([7.5, 1.25, np.inf, -np.inf]), np.array([False, False]),
                   np.array([False, 8], dtype=object), np.array(["ab", "a  b", "x"]),
                   np.array([10 ** 400, 7.5], dtype=object)):
        assert not schema.transform({"code": values}).any(), values
    assert schema.transform({"code": np.array([1, None, "a b"], dtype=object)}).tolist() == [
        [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]


@pytest.mark.parametrize("strict", [False, True])
def test_one_record_never_changes_another_record_s_block(strict):
    """pandas reads a column of integer codes with one empty cell, or one 2.5, as floats, and every code became
    '3.0', no category: a non-strict schema encoded every row of the column as the all-zero block and the fit
    released, so one record changed all n records' encoding (an attacker probe, sixty-second session: a CSV read by
    pd.read_csv zeroed 1000 of 1000 rows). A number now stands for its integer code, each row by its own value: the
    other records' blocks are those of the column without that record."""
    import io

    schema = PublicSchema((CategoricalColumn("c", ("1", "2", "3", "?"), missing="?"), NumericColumn("x", 0.0, 1.0)),
                          strict=strict)
    lines = [f"{1 + i % 3},0.5" for i in range(12)]
    clean = schema.transform(pd.read_csv(io.StringIO("c,x\n" + "\n".join(lines))))
    for odd in (",0.5", "2.5,0.5", "x,0.5"):  # an empty cell (NaN, declared missing), a non-whole number, a text
        table = pd.read_csv(io.StringIO("c,x\n" + "\n".join([*lines[:4], odd, *lines[5:]])))
        assert table["c"].dtype != np.int64, odd  # the reader changed the whole column's type
        if strict and odd != ",0.5":
            with pytest.raises(InputError, match="outside the declared categories, the first in row 4 "):
                schema.transform(table)
            continue
        encoded = schema.transform(table)
        others = np.arange(12) != 4
        np.testing.assert_array_equal(encoded[others], clean[others])
    floats = PublicSchema((CategoricalColumn("grade", ("1.0", "2.5", "3")),), strict=strict)
    assert floats.transform({"grade": np.array([1.0, 2.5, 3.0])}).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


@pytest.mark.parametrize("strict", [False, True])
def test_one_declared_text_never_changes_the_other_records_codes_written_as_floats(strict):
    """Codes a float column wrote ("1.0", "2.0": pandas' to_csv of a float column) are read as floats, each looked up
    by value; one record holding text, a declared category ("u"), makes pandas read the whole column as text, and
    every other row's "1.0" was no category: 999 of 999 rows zeroed, and the fit released (an attacker probe,
    sixty-third session). numpy does the same to a dict of lists (dpcvx's own np.asarray) and to np.array(rows), there
    even for a text in another column. A numeral's text is now its category by value, as the number is."""
    import io

    schema = PublicSchema((CategoricalColumn("c", ("1", "2", "3", "u")), CategoricalColumn("g", ("1", "2", "u"))),
                          strict=strict)
    codes = [float(1 + i % 3) for i in range(12)]
    groups = [float(1 + i % 2) for i in range(12)]
    clean = schema.transform({"c": np.array(codes), "g": np.array(groups)})
    for column in ("c", "g"):
        odd_codes, odd_groups = list(codes), list(groups)
        (odd_codes if column == "c" else odd_groups)[4] = "u"
        csv = "c,g\n" + "\n".join(f"{c},{g}" for c, g in zip(odd_codes, odd_groups, strict=True))
        tables = {"read_csv": pd.read_csv(io.StringIO(csv)), "dict of lists": {"c": odd_codes, "g": odd_groups},
                  "np.array(rows)": np.array([[c, g] for c, g in zip(odd_codes, odd_groups, strict=True)])}
        for name, table in tables.items():
            encoded = schema.transform(table)
            others = np.arange(12) != 4
            np.testing.assert_array_equal(encoded[others], clean[others], err_msg=f"{column}: {name}")


@pytest.mark.parametrize("categories, written", [
    (("2.5", "3.5", "u"), ("2.50", "3.50")),   # non-whole codes a float column wrote with another scale
    (("true", "false", "u"), ("true", "false")),  # flags as Spark writes them; pandas reads them as booleans
    (("TRUE", "FALSE", "u"), ("TRUE", "FALSE")),  # as R writes them
])
def test_one_declared_text_never_changes_the_other_records_numbers_or_flags(categories, written):
    """pd.read_csv reads a column of "2.50"/"3.50" as floats and of true/false as booleans, and keeps every cell's
    text when one record holds text (a declared "u"): each other row's block then changed (999 of 999 rows zeroed, or
    the reverse: a second attacker probe, sixty-third session). Each cell is read by its value, a flag by its truth."""
    import io

    schema = PublicSchema((CategoricalColumn("c", categories),))
    cells = [written[i % 2] for i in range(12)]
    blocks = []
    for last in (written[0], "u"):
        table = pd.read_csv(io.StringIO("c\n" + "\n".join([*cells[:-1], last])))
        blocks.append(schema.transform(table)[:-1])
    np.testing.assert_array_equal(blocks[0], blocks[1])
    assert blocks[0].any(axis=1).all()  # every other row is its category


def test_a_decimal_column_s_scale_never_changes_another_record_s_block():
    """pyarrow gives a decimal column the scale of its every record: one Decimal("2.505") writes every 2.5 as
    "2.500" (a second attacker probe, sixty-third session: 399 of 399 rows zeroed)."""
    import decimal

    pa = pytest.importorskip("pyarrow")
    schema = PublicSchema((CategoricalColumn("c", ("2.5", "3.5")),))
    values = [decimal.Decimal(v) for v in ("2.5", "3.5", "2.5", "3.5")]
    narrow = schema.transform(pa.table({"c": pa.array(values, pa.decimal128(3, 1))}))
    wide = schema.transform(pa.table({"c": pa.array([*values, decimal.Decimal("2.505")], pa.decimal128(5, 3))}))
    np.testing.assert_array_equal(wide[:4], narrow)
    assert narrow.any(axis=1).all() and not wide[4].any()


def test_a_numeral_too_large_for_a_number_is_an_unknown_value():
    """A numeral whose exponent no Decimal holds ("1e9999999999999999999") raised a bare decimal.InvalidOperation in
    the lookup of numerals (a second attacker probe, sixty-third session); it is an unknown category."""
    schema = PublicSchema((CategoricalColumn("c", ("1", "2")),))
    encoded = schema.transform({"c": np.array(["1", "1e9999999999999999999", "2e0", "1e-9999999999"])})
    assert encoded.tolist() == [[1, 0], [0, 0], [0, 1], [0, 0]]


@pytest.mark.parametrize("categories", [("1", "2", "3"), ("1.0", "2.0", "3.0"), ("01", "02", "03")])
def test_a_number_is_its_category_by_value_whatever_the_column_s_type(categories):
    """Categories written as whole floats' text ("3.0", which an earlier advice suggested) or zero-padded, and codes
    read as integers, floats, objects or Decimals (pyarrow and polars give a decimal column the scale of its every
    record: one Decimal("2.5") wrote every 3 as "3.0"): each record's block is that of its value, so one record never
    changes another's (a second attacker probe, sixty-second session: 999 of 999 other rows changed)."""
    import decimal

    schema = PublicSchema((CategoricalColumn("c", categories),))
    codes = [1, 2, 3, 1, 2]
    forms = {"int": np.array(codes), "float and NaN": np.array([*codes, np.nan]), "float and 2.5": np.array(
        [*codes, 2.5]), "object and text": np.array([*codes, "x"], dtype=object), "Int64": pd.array(
        [*codes, None], dtype="Int64"), "Decimal and 2.5": np.array([decimal.Decimal(v) for v in codes] + [
            decimal.Decimal("2.5")], dtype=object), "Decimal of scale 1": np.array(
        [decimal.Decimal(f"{v}.0") for v in codes], dtype=object)}
    for name, column in forms.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndeclaredCategoryWarning)
            encoded = schema.transform({"c": column})[:5]
        assert encoded.argmax(axis=1).tolist() == [0, 1, 2, 0, 1] and encoded.any(axis=1).all(), name


CASED = r"column 'work' holds text that is a declared category but for letter case{also}, the first in row {row} "
ZEROS = (r"column 'zip' holds text codes that are a declared category but for their leading zeros{also}, the first "
         r"in row ")
ALSO = " and surrounding whitespace"


def _text_tables(column: str, values: list) -> list:
    """A table whose ``column`` holds ``values`` as text (the other column declared values), in each form."""
    other = "work" if column == "zip" else "zip"
    filler = ["Private"] * len(values) if other == "work" else ["02134"] * len(values)
    tables: list = [{column: np.array(values), other: np.array(filler)},
                    {column: np.array(values, dtype=object), other: np.array(filler, dtype=object)},
                    pd.DataFrame({column: values, other: filler}),
                    pd.DataFrame({column: pd.array(values, dtype="string"), other: filler}),
                    pd.DataFrame({column: pd.Categorical(values), other: filler})]
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    return [*tables, pl.DataFrame({column: values, other: filler}), pa.table({column: values, other: filler})]


@pytest.mark.parametrize("strict", [False, True])
def test_text_that_differs_from_a_category_in_letter_case_is_refused_not_zeroed(strict):
    schema = dataclasses.replace(SCHEMA, strict=strict)
    for cased, also in (("state-gov", ""), ("PRIVATE", ""), (" state-gov", ALSO), ("private\t", ALSO)):
        for table in _text_tables("work", ["State-gov", "Private", cased]):
            with named(strict, CASED.format(also=also, row=2)) as refused:
                schema.transform(table)
            message = refused.value
            assert cased.strip() not in message  # the value is data
            assert "normalise the column to the declared spelling" in message and "declare it" in message
            assert ("str.strip()" in message) == bool(also)


@pytest.mark.parametrize("strict", [False, True])
def test_text_codes_are_their_category_by_value(strict):
    """A text code that writes a category's number another way ("2134", "2134.0", "+2134", " 2134" for "02134") is
    that category, as the number 2134 is: pandas reads a column of such codes as numbers unless one record is text,
    so each row's text depended on every record (an attacker probe, sixty-third session). Where two zero-padded
    categories share the value, the text is no category's, named with the fix."""
    schema = dataclasses.replace(SCHEMA, strict=strict)
    declared = SCHEMA.transform(_text_tables("zip", ["02134", "10001", "02134"])[0])
    for code in ("2134", "2134.0", "+2134", " 2134", "2134 ", "2.134e3"):
        for table in _text_tables("zip", ["02134", "55555", code]):
            if strict:
                with pytest.raises(InputError, match="row 1 "):  # 55555, undeclared
                    schema.transform(table)
                continue
            np.testing.assert_array_equal(schema.transform(table)[[0, 2]], declared[[0, 2]])
    for shared in (("07", "007"), ("7", "07"), ("1", "1.0"), ("2.5", "2.50"), ("true", "True"), ("0", "-0")):
        with pytest.raises(InputError, match=f"the categories {shared[0]!r} and {shared[1]!r} are one value"):
            CategoricalColumn("code", (*shared, "a"))  # which one a cell is would depend on its column's type


@pytest.mark.parametrize("strict", [False, True])
def test_the_first_near_miss_of_any_form_is_named(strict):
    mixed = PublicSchema((CategoricalColumn("code", ("007", "Yes")),), strict=strict)
    for values, form in (([8, "yes", " Yes"], "text that is a declared category but for letter case"),
                         (["x", " Yes", "yes"], "text that is a declared category but for surrounding whitespace"),
                         (["x", " ", "yes"], r"blank cells \(empty or whitespace-only text\) and declares no "
                                             "missing-value category")):
        with named(strict, f"column 'code' holds {form}, the first in row 1 "):
            mixed.transform({"code": np.array(values, dtype=object)})


@pytest.mark.parametrize("strict", [False, True])
def test_a_genuinely_unknown_category_is_encoded_as_zeros_or_refused_as_documented(strict):
    """Text no normalisation makes a category (another word, other digits, a number that is no category's, digits of
    another script) is an unknown category: the all-zero block, or with ``strict`` the documented refusal naming the
    declared categories. (The empty text is a blank cell, a missing value: the test below.)"""
    schema = PublicSchema((CategoricalColumn("code", ("02134", "State-gov", "0")),), strict=strict)
    unknown = ["Local-gov", "state gov", "2135", "2134.5", "0y0", "٠", "--0", "-0x"]
    table = {"code": np.array(unknown, dtype=object)}
    if strict:
        with pytest.raises(InputError, match=r"^column 'code': 8 row\(s\) hold a value outside the declared "
                                             r"categories, the first in row 0 .*a non-strict schema encodes"):
            schema.transform(table)
    else:
        assert not schema.transform(table)[:, :3].any()


@pytest.mark.parametrize("column", [np.array([True, False, True]), np.array([1, True, 0], dtype=object),
                                    np.array(["true", "FALSE", "1"])])
def test_a_flag_is_the_category_of_its_number(column):
    """True, "true" and "TRUE" are 1, False 0: pyarrow reads a column of 0/1 as flags once one cell is true, and pandas
    true/TRUE as booleans unless one cell is text, so each row's type depended on the others (a third attacker
    probe, sixty-third session: 399 of 399 rows zeroed); a bool column declared as the codes 0 and 1 was a near miss
    encoded as zeros. A flag and a number it writes are one category: declaring both is refused."""
    schema = PublicSchema((CategoricalColumn("senior", (0, 1)),), strict=True)
    np.testing.assert_array_equal(schema.transform({"senior": column}), [[0, 1], [1, 0], [0, 1]] if
                                  column.dtype != object else [[0, 1], [0, 1], [1, 0]])
    words = PublicSchema((CategoricalColumn("senior", ("false", "true")),), strict=True)
    np.testing.assert_array_equal(words.transform({"senior": np.array([1, True, "tRuE", 0.0])}),
                                  [[0, 1], [0, 1], [0, 1], [1, 0]])
    with pytest.raises(InputError, match="the categories '1' and 'true' are one value"):
        CategoricalColumn("senior", ("0", "1", "true"))


def test_a_column_that_pyarrow_reads_as_flags_once_one_cell_is_true_keeps_every_other_block(tmp_path):
    """pyarrow reads 0/1 as integers, and the whole column as booleans once one cell is true."""
    pa_csv = pytest.importorskip("pyarrow.csv")
    schema = PublicSchema((CategoricalColumn("c", ("0", "1", "true")[:2]),))
    blocks = []
    for last in ("1", "true"):
        path = tmp_path / f"{last}.csv"
        path.write_text("c\n" + "\n".join([*("01" * 6)[:-1], last]))
        blocks.append(schema.transform(pa_csv.read_csv(path)))
    np.testing.assert_array_equal(blocks[0], blocks[1])
    assert blocks[0].any(axis=1).all()


BLANK = (r"column 'work' holds blank cells \(empty or whitespace-only text\) and declares no missing-value category, "
         r"the first in row {row} \(the value is not shown: it is data\): a blank cell is a missing value, as NaN is; "
         r"declare its category: CategoricalColumn\(\.\.\., missing='\?'\)")


@pytest.mark.parametrize("strict", [False, True])
def test_a_blank_cell_without_a_missing_category_is_named_as_a_missing_value(strict):
    """A second analyst probe (sixty-first session): the command line and pd.read_csv(keep_default_na=False) read an
    empty cell as "", which a non-strict schema encoded as the all-zero block with nothing said (259 rows of a table),
    where pandas' default read (NaN) names the missing value and its fix. It is named now, as a near miss is."""
    schema = dataclasses.replace(SCHEMA, strict=strict)
    for blank in ("", "  "):
        work = np.array(["State-gov", "Private", "Private", blank], dtype=object)
        for table in ({"zip": np.array(["02134"] * 4), "work": work},
                      pd.DataFrame({"zip": ["02134"] * 4, "work": work})):
            with named(strict, BLANK.format(row=3)):
                encoded = schema.transform(table)
            if not strict:
                assert not encoded[3, len(ZIPS):].any()
    declared = PublicSchema((CategoricalColumn("work", ("State-gov", "?"), missing="?"),))
    assert declared.transform({"work": np.array(["", "State-gov"], dtype=object)}).tolist() == [[0, 1], [1, 0]]


ABSENT = (r"column 'work' holds missing values \(None, NaN or pandas NA\) and declares no missing-value category, "
          r"the first in row {row} \(the value is not shown: it is data\): declare its category: "
          r"CategoricalColumn\(\.\.\., missing='\?'\)")


@pytest.mark.parametrize("strict", [False, True])
def test_none_and_nan_without_a_missing_category_are_named_as_a_blank_cell_is(strict):
    """A lead of the sixty-first session: a blank cell in a column without a missing category was named (strict:
    refused with its row; non-strict: warned, the all-zero block), but None, NaN and pandas NA were refused by either
    schema, so a non-strict schema's fit was refused because of one record's value, where its neighbour holding any
    other undeclared value was released. They are named now as the blank cell is (a category spelling them, "None"
    or "nan", is refused: :func:`test_a_category_that_spells_a_missing_value_is_the_missing_category_or_refused`)."""
    schema = PublicSchema((CategoricalColumn("work", ("State-gov", "Private")),), strict=strict)
    for missing in (None, np.nan, pd.NA):
        work = pd.Series(["State-gov", "Private", missing, "Private"], dtype=object)
        for table in ({"work": work.to_numpy()}, pd.DataFrame({"work": work}),
                      pd.DataFrame({"work": work.astype("string")}), pd.DataFrame({"work": work.astype("category")})):
            with named(strict, ABSENT.format(row=2)):
                encoded = schema.transform(table)
            if not strict:
                assert encoded.tolist() == [[1, 0], [0, 1], [0, 0], [0, 1]]
    declared = PublicSchema((CategoricalColumn("work", ("State-gov", "?"), missing="?"),), strict=strict)
    assert declared.transform({"work": np.array([None, "State-gov"], dtype=object)}).tolist() == [[0, 1], [1, 0]]


def test_text_that_is_not_unicode_is_refused_where_it_enters(tmp_path):
    """A byte that is not UTF-8 in a command-line argument reads as a lone surrogate ("\\udcff"), which no file,
    report or CSV can write: a fit saved such a category, and the command line's report and predict then failed with
    a bare UnicodeEncodeError (exit 1, "a bug in dpcvx"); an edited file with an escaped surrogate did the same (an
    attacker probe, sixty-second session). The category is refused when declared, and the loader refuses the file."""
    import json

    import dpcvx
    from dpcvx.demo import synthetic_classification
    from dpcvx.exceptions import FileError
    from dpcvx.release.records.header import file_digest

    with pytest.raises(InputError, match="not valid Unicode"):
        CategoricalColumn("c", ("a", "\udcff"))
    X, y = synthetic_classification(n=200, d=3, random_state=0)
    model = dpcvx.PrivateERM(lam=0.01, data_norm=1.0).fit(X, y, 1.0, random_state=0)
    data = json.loads(dpcvx.save(model, tmp_path / "model.json").read_text())
    data["certificate"]["clipping"] = "clipped\ud800"
    data["sha256"] = file_digest(data)  # a forger's edit, digest recomputed
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="not valid Unicode"):
        dpcvx.load(tmp_path / "edited.json")


def test_a_model_saved_with_two_categories_of_one_value_still_loads(tmp_path):
    """Categories that share a reading key ("7" and "07") are refused when declared; a model fitted and charged before
    that refusal still loads and predicts (each such category matched by its exact text): refusing its file would
    make a spent release unusable (a third attacker probe, sixty-third session)."""
    import dpcvx
    from dpcvx.data.preprocessing import saved_schema

    with saved_schema():  # as an earlier dpcvx declared it
        schema = PublicSchema((CategoricalColumn("c", ("7", "07", "x")), NumericColumn("v", 0.0, 1.0)))
    rows = {"c": np.array(["7", "07", "x", "7"] * 25), "v": np.linspace(0, 1, 100)}
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(schema.transform(rows), np.tile([1, -1], 50), 1.0,
                                                          random_state=0)
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "m.json", schema=schema))
    assert (loaded.schema.transform(rows)[:3, :3] > 0).tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    with pytest.raises(InputError, match="are one value"):
        CategoricalColumn("c", ("7", "07"))


@pytest.mark.parametrize("written, categories", [
    (("inf", "-Infinity", "INF"), ("inf", "-inf", "x")),  # read as infinities by pandas and pyarrow
    (("0x10", "0x1F", "0x10"), ("16", "31", "x")),        # read as integers by pyarrow
    ((True, False, 2), ("true", "false", "2", "x")),       # numpy makes [True, False, 2] integers
])
def test_infinities_hexadecimals_and_flags_in_a_list_are_read_by_their_number(written, categories):
    """Each cell as its number, as one reader or another reads it when no record is text (a third attacker probe,
    sixty-third session: 200 to 399 of 399 rows changed with one text record)."""
    schema = PublicSchema((CategoricalColumn("c", categories),), strict=True)
    alone = schema.transform({"c": list(written)})
    with_text = schema.transform({"c": [*written, "x"]})
    np.testing.assert_array_equal(alone, with_text[:-1])
    assert alone.any(axis=1).all()


def test_a_saved_schema_with_two_categories_of_one_value_fits_nothing_new():
    """The schema a model file kept with "7" and "07" serves that model's predictions; a pipeline fitting on it (a
    loaded schema reused) read each cell as one or the other by the other records (a fourth attacker probe,
    sixty-third session: training accuracy 0.5 against 1.0 for one added record). Refused before any fit reads."""
    from dpcvx.data.preprocessing import saved_schema

    with saved_schema():
        schema = PublicSchema((CategoricalColumn("c", ("7", "07", "x")),))
    assert schema.transform({"c": np.array(["07"])}).tolist() == [[0, 1, 0]]  # its predictions
    for fit in (lambda: schema.fit({"c": ["7"]}), lambda: schema.fit_transform({"c": ["7"]})):
        with pytest.raises(InputError, match="keeps them for that model's predictions only"):
            fit()


def test_a_dict_of_lists_keeps_each_cell_s_type():
    """numpy made a list [nan, 1, "?"] all text, so one text record turned every other row's NaN into the text
    'nan': 100 of 300 rows left the declared missing category for the all-zero block (a fourth attacker probe,
    sixty-third session)."""
    schema = PublicSchema((CategoricalColumn("c", ("1", "2", "?"), missing="?"),))
    cells = [float("nan"), 1.0, 2.0] * 4
    np.testing.assert_array_equal(schema.transform({"c": [*cells, "1"]})[:-1], schema.transform({"c": cells}))


@pytest.mark.parametrize("category, cells", [
    ("1e23", ["1e23", "100000000000000000000000"]),  # the float a reader makes: 99999999999999991611392
    ("inf", ["1e400", "Infinity"]),                   # a reader's infinity
    ("2e308", ["1e309"]),                              # a category beyond float range: an infinity, never a crash
])
def test_a_numeral_is_the_float_a_reader_makes_of_it(category, cells):
    """pandas, pyarrow and polars read "1e23" as 99999999999999991611392 and "1e400" as an infinity; the key read
    10**23 exactly and no key (200 of 600 rows changed with one text record), and a category beyond float range
    crashed the lookup with an OverflowError, after a charge in predict (a fourth attacker probe)."""
    schema = PublicSchema((CategoricalColumn("c", (category, "x")),), strict=True)
    expected = [[1.0, 0.0]] * len(cells)
    assert schema.transform({"c": np.array(cells)}).tolist() == expected
    assert schema.transform({"c": np.array([float(cell) for cell in cells])}).tolist() == expected


@pytest.mark.parametrize("missing", [None, "?"])
@pytest.mark.parametrize("null", ["NA", "NaN", "null", "N/A"])
def test_a_text_that_spells_a_missing_value_is_one(tmp_path, missing, null):
    """pyarrow reads NA, NaN, null and N/A as a missing value in a column of codes, and keeps the text once one record
    is text (a declared "u"): every such row moved between the missing category and the all-zero block (a fourth
    attacker probe, sixty-third session: 200 of 600 rows). Such a text that is no declared category is a missing
    value, as a null is."""
    pa_csv = pytest.importorskip("pyarrow.csv")
    categories = ("1", "2", "u") + (("?",) if missing else ())
    schema = PublicSchema((CategoricalColumn("c", categories, missing=missing),))
    cells = ["1", null, "2"] * 4
    blocks = []
    for last in ("1", "u"):
        path = tmp_path / f"{last}.csv"
        path.write_text("c\n" + "\n".join([*cells, last]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndeclaredCategoryWarning)
            blocks.append(schema.transform(pa_csv.read_csv(path))[:-1])
    np.testing.assert_array_equal(blocks[0], blocks[1])
    assert blocks[1][1].tolist() == ([0, 0, 0, 1] if missing else [0, 0, 0])


def test_a_decimal_nan_is_a_missing_value():
    """A signalling Decimal NaN raised a bare decimal.InvalidOperation in the missing-value check (a third attacker
    probe, sixty-third session); a Decimal NaN, quiet or signalling, is a missing value as a float NaN is."""
    import decimal

    schema = PublicSchema((CategoricalColumn("c", ("1", "2", "?"), missing="?"),))
    cells = np.array([decimal.Decimal("1"), decimal.Decimal("sNaN"), decimal.Decimal("NaN"), float("nan")],
                     dtype=object)
    assert schema.transform({"c": cells}).tolist() == [[1, 0, 0], [0, 0, 1], [0, 0, 1], [0, 0, 1]]


@pytest.mark.parametrize("codes", [(2**53 + 1, 2**53 + 3, 5), (2**60 + 1, -(2**61) - 3, 5)])
def test_a_code_beyond_2_53_is_read_as_a_float_column_holds_it(tmp_path, codes):
    """pandas reads a column of codes as integers, and as floats once one cell is empty, which hold 2**53 + 1 as 2**53:
    the exact integer was the category's key, so one record made every such code unknown (a lead of the sixty-third
    session: 6 of 7 rows zeroed). A code is keyed as the float a reader makes of it beyond 2**53."""
    pd = pytest.importorskip("pandas")
    schema = PublicSchema((CategoricalColumn("c", [str(code) for code in codes]), NumericColumn("v", 0.0, 1.0)))
    blocks = []
    for last in ("5", ""):
        path = tmp_path / f"{bool(last)}.csv"
        path.write_text("c,v\n" + "".join(f"{code},1\n" for code in codes[:2] * 3) + f"{last},1\n")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndeclaredCategoryWarning)
            blocks.append(schema.transform(pd.read_csv(path))[:-1])
    np.testing.assert_array_equal(blocks[0], blocks[1])
    assert (blocks[0][:2, :3] > 0).tolist() == [[1, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize("written", [str(2**53), "9007199254740993.0", "0x20000000000001"])
def test_two_codes_one_float_holds_are_refused(written):
    """2**53 and 2**53 + 1 are one float64: a float column could not tell their cells apart."""
    with pytest.raises(InputError, match="are one value to a reader"):
        CategoricalColumn("c", (written, str(2**53 + 1)))


@pytest.mark.parametrize("null", ["NA", "null", "NaN", "N/A"])
def test_a_category_that_spells_a_missing_value_is_the_missing_category_or_refused(tmp_path, null):
    """A declared category "NA": pandas reads it as a missing value by default, and pyarrow in a column of codes until
    one record is text, so one text record moved every "NA" row from the all-zero block into its category (a lead of
    the sixty-third session: 5 of 16 rows). Such a category is refused unless it is the column's missing category,
    which a missing value takes whichever way it was read."""
    pa_csv = pytest.importorskip("pyarrow.csv")
    pd = pytest.importorskip("pandas")
    with pytest.raises(InputError, match=f"the category '{re.escape(null)}' spells a missing value"):
        CategoricalColumn("c", ("1", "2", null, "x"))
    with pytest.raises(InputError, match="spells a missing value"):
        CategoricalColumn("c", ("1", null, "?"), missing="?")
    schema = PublicSchema((CategoricalColumn("c", ("1", "2", null, "x"), missing=null),))
    blocks = []
    for last in ("1", "x"):
        path = tmp_path / f"{last}.csv"
        path.write_text("c\n" + "\n".join(["1", "2", null] * 5 + [last]) + "\n")
        for read in (pa_csv.read_csv, pd.read_csv):
            blocks.append(schema.transform(read(path))[:-1])
    for block in blocks:
        np.testing.assert_array_equal(block, blocks[0])
    assert blocks[0][2].tolist() == [0, 0, 1, 0]


def test_a_model_saved_with_a_category_that_spells_a_missing_value_still_loads(tmp_path):
    """A model file of an earlier dpcvx may declare "NA" as an ordinary category: it loads and predicts; a new fit on
    its schema is refused."""
    import dpcvx
    from dpcvx.data.preprocessing import saved_schema

    with saved_schema():
        schema = PublicSchema((CategoricalColumn("c", ("1", "NA")), NumericColumn("v", 0.0, 1.0)))
    rows = {"c": np.array(["1", "NA"] * 50), "v": np.linspace(0, 1, 100)}
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(schema.transform(rows), np.tile([1, -1], 50), 1.0,
                                                          random_state=0)
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "m.json", schema=schema))
    assert (loaded.schema.transform(rows)[:2, :2] > 0).tolist() == [[1, 0], [0, 1]]
    with pytest.raises(InputError, match="for that model's predictions only"):
        loaded.schema.fit(rows)


@pytest.mark.parametrize("nan", ["NAN", "nAn", "+nan", "-NAN", "nan(1)", "-nan(ind)"])
def test_a_nan_pyarrow_reads_is_a_missing_value_or_refused_as_a_category(tmp_path, nan):
    """pyarrow reads NaN in any letter case, signed or with a C library's payload, as a float NaN in a column of
    codes, and keeps the text once one record is text: an exact list of pandas' spellings missed them, and one
    declared "?" record moved 200 of 600 rows from the missing category to the all-zero block (an attacker probe,
    sixty-fourth session)."""
    blocks = _with_a_text_record(tmp_path, PublicSchema((CategoricalColumn("c", ("1", "2", "?"), missing="?"),)), nan)
    np.testing.assert_array_equal(blocks[0], blocks[1])
    assert blocks[0][2].tolist() == [0, 0, 1]
    with pytest.raises(InputError, match="spells a missing value"):
        CategoricalColumn("c", ("1", nan))


@pytest.mark.parametrize("null", ["NA", "NAN", "null"])
def test_a_numeric_column_reads_a_spelt_missing_value_as_one_whatever_its_reader(tmp_path, null):
    """A numeric column with a public imputed value: pyarrow reads "NA" as a null (imputed) until one record is text,
    then the text, which was refused as not a number: one record decided refusal or release (an attacker probe,
    sixty-fourth session)."""
    blocks = _with_a_text_record(tmp_path, PublicSchema((NumericColumn("c", 0.0, 10.0, missing=5.0),)), null)
    np.testing.assert_array_equal(blocks[0], blocks[1])


def _with_a_text_record(tmp_path, schema, cell):
    """The schema's blocks of a CSV column 1, 2, ``cell`` (five times) read by pyarrow, whole, and the same with one
    more record "?" (which makes pyarrow read the column as text), the added record's block left out."""
    pa_csv = pytest.importorskip("pyarrow.csv")
    blocks = []
    for last in ("1", "?"):
        path = tmp_path / f"{last != '1'}.csv"
        path.write_text("c\n" + "\n".join(["1", "2", cell] * 5 + [last]) + "\n")
        blocks.append(schema.transform(pa_csv.read_csv(path))[:-1])
    return blocks


def test_a_code_beyond_every_integer_of_the_column_s_type_is_still_found():
    """The only declared code rounds to 2**63, beyond int64: an int64 column of 2**63 - 2 matched nothing, while one
    empty cell (floats) matched every row (an attacker probe of the sixty-fourth session's first change)."""
    schema = PublicSchema((CategoricalColumn("c", (str(2**63 - 1), "u")),))
    as_ints = schema.transform({"c": np.array([2**63 - 2] * 3, dtype=np.int64)})
    with pytest.warns(UndeclaredCategoryWarning, match="holds missing values"):
        as_floats = schema.transform({"c": np.array([2**63 - 2] * 3 + [np.nan])})[:-1]
    np.testing.assert_array_equal(as_ints, as_floats)
    assert (as_ints[:, 0] > 0).all()
