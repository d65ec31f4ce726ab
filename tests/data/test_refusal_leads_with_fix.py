"""Refusals that lead with what the reader can do (an analyst probe, session 67, P3 findings 5 and 6): two declared
spellings of one value are refused without saying that the kept one reads the other's cells; a numeric cell that
spells a missing value ("N/A") in a column without an imputed value was refused with the generic not-a-number text."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError


def test_two_spellings_of_one_value_say_the_kept_one_reads_the_other_s_cells() -> None:
    with pytest.raises(InputError) as raised:
        dpcvx.PublicSchema((dpcvx.CategoricalColumn("smoker", ("Yes", "TRUE", "1", "No")),))
    assert "with 'TRUE' declared, cells spelled '1' are read as 'TRUE'" in str(raised.value)
    # and so they are
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("smoker", ("TRUE", "FALSE")),), norm=1.0)
    encoded = schema.transform({"smoker": np.array(["1", "TRUE", "0"], dtype=object)})
    assert np.array_equal(encoded[0], encoded[1]) and not np.array_equal(encoded[0], encoded[2])


def test_two_spellings_of_one_class_say_the_same() -> None:
    with pytest.raises(InputError) as raised:
        dpcvx.DPLogisticRegression(classes=("1", "true"), epsilon=1).fit(np.zeros((4, 1)), ["1"] * 4)
    assert "with '1' declared, labels spelled 'true' are read as '1'" in str(raised.value)


def test_a_cell_that_spells_a_missing_value_leads_with_the_imputed_value() -> None:
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("income", 0, 5e5),), norm=1.0)
    with pytest.raises(InputError) as raised:
        schema.transform({"income": np.array(["5", "N/A"], dtype=object)})
    text = str(raised.value)
    assert text.startswith("numeric column 'income': declare NumericColumn('income', lo, hi, missing=VALUE)")
    assert "N/A" in text and "thousands separators" not in text
    with pytest.raises(InputError) as raised:  # other text keeps its own advice
        schema.transform({"income": np.array(["5", "1,250"], dtype=object)})
    assert "thousands separators" in str(raised.value)


def test_the_command_line_leads_with_impute_naming_the_column(tmp_path, capsys) -> None:
    from dpcvx.cli import main

    rng = np.random.default_rng(0)
    lines = ["income,age,y"] + [f"{'N/A' if i == 7 else rng.integers(0, 500000)},{rng.integers(18, 90)},{i % 2}"
                                for i in range(200)]
    (tmp_path / "a.csv").write_text("\n".join(lines) + "\n")
    status = main(["fit", str(tmp_path / "a.csv"), "--numeric", "income:0:500000", "--numeric", "age:0:120",
                   "--target", "y", "--positive", "1", "--epsilon", "1", "--data-norm", "1",
                   "--out", str(tmp_path / "m.json")])
    error = capsys.readouterr().err
    assert status == 3 and "numeric column 'income': give it --impute income=VALUE" in error
    assert error.index("--impute income=VALUE") < error.index("Row 7") < error.index("N/A")
