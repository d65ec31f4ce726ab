"""A numeric column's public missing codes (``NumericColumn(..., missing=v, missing_codes=(999, -9))``): a data
dictionary's code for "unknown" is imputed as a missing value is, by every table kind, and a saved schema keeps the
codes, so that a model predicts a coded row as its fit read it. Before, a code had to be replaced in the table by hand
(the OutOfBoundsWarning's advice), and ``dpcvx predict`` without ``--missing 999`` again read the code as a value
clipped onto the bound (an unknown income read as the highest), with a warning only."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from dpcvx import NumericColumn, PublicSchema
from dpcvx.exceptions import InputError, OutOfBoundsWarning

CODED = NumericColumn("income", 0, 200, missing=50.0, missing_codes=(999, -9), missing_indicator=True)
INCOMES = np.array([10.0, 999.0, 120.0, -9.0, 200.0])
AS_NAN = np.array([10.0, np.nan, 120.0, np.nan, 200.0])


@pytest.mark.parametrize("table", [
    {"income": INCOMES},
    {"income": INCOMES.astype(np.int64)},
    {"income": np.array(["10", "999", "120", "-9.0", "200"])},
    pd.DataFrame({"income": INCOMES}),
])
def test_a_code_is_imputed_as_a_missing_value_is(table):
    coded = PublicSchema((CODED,)).transform(table)
    plain = PublicSchema((NumericColumn("income", 0, 200, missing=50.0, missing_indicator=True),))
    np.testing.assert_array_equal(coded, plain.transform({"income": AS_NAN}))
    assert (coded[:, 1] > 0).tolist() == [False, True, False, True, False]  # the indicator marks the codes


def test_declaring_the_code_answers_the_out_of_bounds_warning():
    """The warning's advice now names missing_codes; following it leaves nothing to warn of."""
    rng = np.random.default_rng(0)
    ages = rng.uniform(18, 90, 2000)
    ages[:100] = 999.0
    with pytest.warns(OutOfBoundsWarning, match=r"missing_codes=\(CODE,\)"):
        PublicSchema((NumericColumn("age", 18, 90),)).transform({"age": ages})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X = PublicSchema((NumericColumn("age", 18, 90, missing=54.0, missing_codes=(999,)),)).transform({"age": ages})
    assert np.all(X[:100] == 0.0)  # the midpoint, centred


def test_the_schema_file_keeps_the_codes_and_an_older_file_is_unchanged(tmp_path):
    schema = PublicSchema((CODED, NumericColumn("age", 0, 120)))
    data = schema.to_dict()
    assert data["columns"][0]["missing_codes"] == [999.0, -9.0] and "missing_codes" not in data["columns"][1]
    assert PublicSchema.from_dict(json.loads(json.dumps(data))) == schema
    path = tmp_path / "schema.json"
    schema.save(path)
    assert PublicSchema.load(path) == schema


@pytest.mark.parametrize("codes, message", [
    ((999, 999), "missing_codes repeats 999"),
    (("999",), "must be a finite number"),
    ((float("inf"),), "must be finite"),
    ((True,), "must be a finite number"),
    (999, "must be a tuple of numbers"),
    (None, "must be a tuple of numbers"),
])
def test_bad_codes_are_refused_typed(codes, message):
    with pytest.raises(InputError, match=message):
        NumericColumn("x", 0, 100, missing=50, missing_codes=codes)
    with pytest.raises(InputError, match=message):
        PublicSchema.from_dict({"format": "dpcvx-schema", "version": 2, "columns": [
            {"name": "x", "kind": "numeric", "lo": 0, "hi": 100, "missing": 50, "missing_codes": codes}]})


def test_codes_need_an_imputed_value():
    with pytest.raises(InputError, match="missing_codes needs a public imputed value"):
        NumericColumn("x", 0, 100, missing_codes=(999,))


def test_a_refusal_counts_its_rows_in_words():
    """"(1 such rows)" read every refusal of one bad row."""
    from dpcvx.data.columns import as_numbers
    for values, said in (([1.0, np.inf], "in row 1 (1 such row);"), ([np.nan, 1.0, np.nan], "in row 0 (2 such rows);")):
        with pytest.raises(InputError) as refused:
            as_numbers("a", np.array(values))
        assert said in str(refused.value)
