"""A categorical column whose declared categories are not the column's (other codes, another spelling): a non-strict
schema encodes each undeclared value as the all-zero block, so the column carried nothing into a model and nothing
said so. Beyond half of the rows undeclared, an UndeclaredCategoryWarning names the column (no count, no value); a few
unseen values, what a non-strict schema is for, and tables of fewer than 20 rows stay silent; strict=True still
refuses."""

import warnings

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import InputError, UndeclaredCategoryWarning

SCHEMA = PublicSchema([NumericColumn("age", 18, 90), CategoricalColumn("region", ("north", "south", "east", "west"))])


def _table(regions):
    return {"age": np.full(len(regions), 40), "region": np.array(regions, dtype=object)}


def test_a_column_of_other_codes_is_named():
    with pytest.warns(UndeclaredCategoryWarning, match=r"column 'region': more than half of the rows") as caught:
        X = SCHEMA.transform(_table(["N", "S", "E", "W", "north"] * 4))  # codes where names are declared
    assert not X[:4, 1:5].any()
    text = str(caught[0].message)
    assert "NOT PRIVATE" in text and "strict=True" in text and not any(code in text for code in ("'N'", "'S'"))


def test_a_few_unseen_values_stay_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SCHEMA.transform(_table(["north", "south", "east", "west", "middle"] * 4))  # one in five: a new category
        SCHEMA.transform(_table(["N", "S"]))  # a record or two at prediction time say nothing of the list


def test_strict_still_refuses():
    strict = PublicSchema(SCHEMA.columns, strict=True)
    with pytest.raises(InputError, match="outside the declared categories"):
        strict.transform(_table(["N", "S"]))


def test_a_model_fit_on_such_a_table_hears_of_it():
    import dpcvx

    rng = np.random.default_rng(0)
    regions = rng.choice(["N", "S", "E", "W"], 400)
    y = (regions == "N").astype(int)
    with pytest.warns(UndeclaredCategoryWarning):
        X = SCHEMA.transform(_table(list(regions)))
    dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
