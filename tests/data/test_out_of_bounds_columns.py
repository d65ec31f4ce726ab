"""A numeric column whose public bounds are not its data's (bounds in thousands, values in dollars): each value is
clipped onto a bound, so the column is nearly constant and a model learns little from it, and nothing said so (the
categorical analogue, most rows outside the declared categories, warned). Beyond half of the rows outside [lo, hi] an
OutOfBoundsWarning names the column and its public bounds (no count, no value); a few clipped values, a missing value
imputed within the bounds, values at the bounds (a 0/1 column declared [0, 1]) and tables of fewer than 20 rows stay
silent."""

import warnings

import numpy as np
import pytest

from dpcvx import NumericColumn, PublicSchema
from dpcvx.exceptions import OutOfBoundsWarning

SCHEMA = PublicSchema([NumericColumn("income", 0, 500, missing=0.0), NumericColumn("flag", 0, 1)])


def _table(incomes, flags=None):
    incomes = np.asarray(incomes, dtype=float)
    return {"income": incomes, "flag": np.zeros(incomes.size) if flags is None else np.asarray(flags, dtype=float)}


@pytest.mark.parametrize("incomes", [[60_000.0] * 15 + [300.0] * 5, [-1.0] * 11 + [250.0] * 9])
def test_a_column_mostly_outside_its_bounds_is_named_with_them(incomes):
    with pytest.warns(OutOfBoundsWarning, match=r"column 'income': more than half of the rows lie outside its "
                                                r"public bounds \[0, 500\]") as caught:
        SCHEMA.transform(_table(incomes))
    text = str(caught[0].message)
    assert "NOT PRIVATE" in text and "units" in text and "60000" not in text and "15" not in text
    assert len(caught) == 1  # the flag column, inside its bounds, is not named


@pytest.mark.parametrize("table", [
    _table([60_000.0] * 10 + [300.0] * 10),  # half outside: not more than half
    _table([np.nan] * 15 + [300.0] * 5),  # missing values, imputed within the bounds
    _table([300.0] * 20, flags=[0.0, 1.0] * 10),  # every flag at a bound: none outside
    _table([60_000.0] * 19),  # a table of fewer than 20 rows
])
def test_values_within_or_few_stay_silent(table):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SCHEMA.transform(table)
