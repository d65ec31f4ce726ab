"""A numeric cell that is no number: the error names only the offending kind. It said '"nan" and "inf" are not
numbers: make such a marker an empty cell' where "nan" in the same column was read as missing (an analyst probe,
session 69, P8 finding 9)."""

from __future__ import annotations

import pandas as pd
import pytest

import dpcvx
from dpcvx.exceptions import InputError


@pytest.mark.parametrize("missing", [5.0, None])
@pytest.mark.parametrize("cell", ["inf", "-Infinity", " INF "])
def test_an_infinity_is_named_as_such(cell, missing):
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 10, missing=missing),))
    with pytest.raises(InputError) as error:
        schema.transform(pd.DataFrame({"a": ["1", "2", cell]}))
    message = str(error.value)
    assert 'the cell is an infinity ("inf")' in message
    assert "nan" not in message.lower()


@pytest.mark.parametrize("cell", ["abc", "1,250", "-"])
def test_other_cells_name_no_missing_spelling(cell):
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 10, missing=5.0),))
    with pytest.raises(InputError) as error:
        schema.transform(pd.DataFrame({"a": ["1", "nan", cell]}))
    message = str(error.value)
    assert "not a number in row 2" in message
    assert '"nan"' not in message and "infinity" not in message
    assert "declare it categorical" in message


def test_nan_beside_an_imputed_value_is_missing():
    """The message's former claim aside, "nan" is read as missing beside a declared imputed value."""
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("a", 0, 10, missing=5.0),))
    assert schema.transform(pd.DataFrame({"a": ["1", "nan"]})).shape[0] == 2
