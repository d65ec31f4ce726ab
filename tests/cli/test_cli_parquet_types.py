"""A Parquet file's typed columns are read as the schema reads the same types in Python (docs/datasets.md).

A boolean column declared numeric is 0/1, as ``NumericColumn`` reads a bool array: ``dpcvx fit`` read its cells as
the text "True"/"False" and refused the column ("holds a value that is not a number ... remove thousands separators,
units"), a column a pandas user writes with ``to_parquet`` from a flag. A null is a missing value (``--impute``).
Declared categorical, it stays the text "True"/"False". A float column declared categorical whose values are a
category's integer text (1.0 for "1") is refused with its fix, as Python refuses it: the text "1.0" was the all-zero
block, the model fitted and written with a column that carried nothing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from csv_files import write

import dpcvx
from dpcvx.cli import main
from dpcvx.exceptions import UndeclaredCategoryWarning

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 1500
OPTIONS = ["--target", "y", "--positive", "yes", "--numeric", "flag:0:1", "--numeric", "x:0:10", "--impute", "flag=1",
           "--epsilon", "1", "--data-norm", "1", "--random-state", "3", "--no-column-statistics"]


def _columns() -> tuple[list[bool | None], np.ndarray, list[str]]:
    rng = np.random.default_rng(0)
    flag = [bool(v) if i % 50 else None for i, v in enumerate(rng.random(ROWS) < 0.4)]  # every 50th row: null
    x = np.round(rng.uniform(0, 10, ROWS), 3)
    labels = ["yes" if (f is None or f) and value > 3 else "no" for f, value in zip(flag, x, strict=True)]
    return flag, x, labels


@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
def test_a_boolean_column_declared_numeric_is_read_as_0_1(tmp_path, chunks):
    flag, x, labels = _columns()
    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.table({"flag": pa.array(flag, pa.bool_()), "x": x, "y": labels}), parquet, row_group_size=400)
    csv = write(tmp_path / "d.csv", ["flag", "x", "y"],
                [["" if f is None else str(int(f)), repr(float(v)), label] for f, v, label in zip(flag, x, labels,
                                                                                                   strict=True)])
    from_parquet, from_csv = tmp_path / "parquet.json", tmp_path / "csv.json"
    assert main(["fit", str(parquet), *OPTIONS, *chunks, "--out", str(from_parquet)]) == 0
    assert main(["fit", csv, *OPTIONS, *chunks, "--out", str(from_csv)]) == 0
    assert np.array_equal(dpcvx.load(from_parquet).coef_, dpcvx.load(from_csv).coef_)  # the 0/1 file's release
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(from_parquet), str(parquet), "--out", str(predictions)]) == 0
    assert len(predictions.read_text().splitlines()) == ROWS + 1


def test_a_boolean_column_declared_categorical_is_its_text(tmp_path):
    flag, x, labels = _columns()
    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.table({"flag": pa.array(flag, pa.bool_()), "x": x, "y": labels}), parquet)
    options = [option.replace("flag:0:1", "flag:True,False") for option in OPTIONS if option != "flag=1"]
    options[options.index("--numeric")] = "--categorical"
    options.remove("--impute")
    assert main(["fit", str(parquet), *options, "--missing", "", "--out", str(tmp_path / "m.json")]) == 0


@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
def test_floats_that_are_a_category_s_integer_text_are_that_category(tmp_path, chunks):
    """A Parquet column of integer codes stored as floats (1.0, 2.0) is read as the codes 1 and 2, as the same
    column stored as integers is: the fit is the same release. It was named and encoded as the all-zero block, and
    one missing value makes a reader store a whole column of codes as floats (an attacker probe, sixty-second
    session)."""
    _, x, labels = _columns()
    codes = np.where(np.arange(ROWS) % 3 == 0, 1.0, 2.0)
    options = ["--target", "y", "--positive", "yes", "--categorical", "code:1,2", "--numeric", "x:0:10",
               "--epsilon", "1", "--data-norm", "1", "--random-state", "3"]
    models = []
    for name, column in (("floats", pa.array(codes)), ("integers", pa.array(codes.astype(np.int64)))):
        parquet = tmp_path / f"{name}.parquet"
        pq.write_table(pa.table({"code": column, "x": x, "y": labels}), parquet, row_group_size=400)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UndeclaredCategoryWarning)
            assert main(["fit", str(parquet), *options, *chunks, "--out", str(tmp_path / f"{name}.json")]) == 0
        models.append(dpcvx.load(tmp_path / f"{name}.json"))
    np.testing.assert_array_equal(models[0].coef_, models[1].coef_)


def test_a_decimal_column_of_codes_is_read_by_value(tmp_path):
    """pyarrow gives a decimal column one scale, set by its every record: one Decimal("2.5") wrote every code 3 as
    "3.0", no category, and the command line read the column as that text, so one record turned every other row's
    block into zeros (a second attacker probe, sixty-second session). The codes are read as numbers, each by its
    value: the same codes at scale 0 and at scale 1 are the same release."""
    import decimal

    _, x, labels = _columns()
    codes = np.where(np.arange(ROWS) % 3 == 0, 1, 2)
    options = ["--target", "y", "--positive", "yes", "--categorical", "code:1,2", "--numeric", "x:0:10",
               "--epsilon", "1", "--data-norm", "1", "--random-state", "3"]
    models = []
    for scale in (0, 1):
        column = pa.array([decimal.Decimal(int(code)) for code in codes], pa.decimal128(5, scale))
        data, out = tmp_path / f"scale{scale}.parquet", tmp_path / f"scale{scale}.json"
        pq.write_table(pa.table({"code": column, "x": x, "y": labels}), data)
        with warnings.catch_warnings():
            warnings.simplefilter("error", UndeclaredCategoryWarning)
            assert main(["fit", str(data), *options, "--out", str(out)]) == 0
        models.append(dpcvx.load(out).coef_)
    np.testing.assert_array_equal(models[0], models[1])
