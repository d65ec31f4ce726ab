"""A numeric column's public missing texts (``NumericColumn(..., missing=v, missing_texts=("NA",))``): a cell text that
a file writes for a missing value ("NA", "unknown") is imputed as a missing value is, by every table kind that holds
text, and a saved schema keeps the texts, so that a model predicts such a row as its fit read it. Before, a schema had
no place for them: ``dpcvx predict`` refused the text as "not a number" unless ``--missing NA`` was given again."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dpcvx import NumericColumn, PublicSchema
from dpcvx.exceptions import InputError

MARKED = NumericColumn("income", 0, 200, missing=50.0, missing_texts=("NA", "unknown"), missing_indicator=True)
CELLS = ["10", "NA", "120", " unknown ", "200", ""]
AS_NAN = np.array([10.0, np.nan, 120.0, np.nan, 200.0, np.nan])


@pytest.mark.parametrize("table", [
    {"income": np.array(CELLS)},
    {"income": np.array(CELLS, dtype=object)},
    {"income": np.array([cell.encode() for cell in CELLS])},
    pd.DataFrame({"income": CELLS}),
])
def test_a_missing_text_is_imputed_as_a_missing_value_is(table):
    marked = PublicSchema((MARKED,)).transform(table)
    plain = PublicSchema((NumericColumn("income", 0, 200, missing=50.0, missing_indicator=True),))
    np.testing.assert_array_equal(marked, plain.transform({"income": AS_NAN}))
    assert (marked[:, 1] > 0).tolist() == [False, True, False, True, False, True]


def test_without_the_declaration_the_text_is_not_a_number():
    """"unknown" (row 3) is no number; "NA" (row 1), which pyarrow reads as a null in a column of numbers until one
    record is text, is imputed as that null is (an attacker probe, sixty-fourth session: one record decided refusal
    or release)."""
    with pytest.raises(InputError, match="not a number in row 3"):
        PublicSchema((NumericColumn("income", 0, 200, missing=50.0),)).transform({"income": np.array(CELLS)})


def test_the_schema_file_keeps_the_texts_and_an_older_file_is_unchanged(tmp_path):
    schema = PublicSchema((MARKED, NumericColumn("age", 0, 120)))
    data = schema.to_dict()
    assert data["columns"][0]["missing_texts"] == ["NA", "unknown"] and "missing_texts" not in data["columns"][1]
    assert PublicSchema.from_dict(json.loads(json.dumps(data))) == schema
    path = tmp_path / "schema.json"
    schema.save(path)
    assert PublicSchema.load(path) == schema
    assert "missing_texts" not in json.dumps(PublicSchema((NumericColumn("age", 0, 120, missing=1.0),)).to_dict())


@pytest.mark.parametrize("texts, message", [
    (("NA", "NA"), "missing_texts repeats 'NA'"),
    (("999",), r"is a number.*missing_codes=\(999,\)"),
    ((" NA",), "surrounding whitespace.*give 'NA'"),
    (("?",), "is a missing value already"),
    (("",), "is a missing value already"),
    ("NA", r"must be a tuple of strings \(such as \('NA',\)\), got str"),
    ((1,), "must be a tuple of strings"),
    (None, "must be a tuple of strings"),
])
def test_bad_texts_are_refused_typed(texts, message):
    with pytest.raises(InputError, match=message):
        NumericColumn("x", 0, 100, missing=50, missing_texts=texts)
    with pytest.raises(InputError, match=message):
        PublicSchema.from_dict({"format": "dpcvx-schema", "version": 2, "columns": [
            {"name": "x", "kind": "numeric", "lo": 0, "hi": 100, "missing": 50, "missing_texts": texts}]})


def test_texts_need_an_imputed_value():
    with pytest.raises(InputError, match="missing_texts needs a public imputed value"):
        NumericColumn("x", 0, 100, missing_texts=("NA",))


@pytest.mark.parametrize("cells", [
    pytest.param(["10", "NA", "120"], id="missing-spelling"),
    pytest.param([10.0, np.nan, 120.0], id="nan"),
    pytest.param([10.0, np.inf, 120.0], id="infinity"),
])
def test_a_refused_missing_value_never_advises_dropping_its_record(cells):
    """The API's refusals of a missing feature value advised "drop or impute", which docs/datasets.md forbids: a
    dropped record makes n, and the noise scale, depend on the data (an analyst probe, session 69, P2 finding 5)."""
    with pytest.raises(InputError) as caught:
        PublicSchema((NumericColumn("income", 0, 200),)).transform({"income": np.array(cells)})
    text = str(caught.value)
    assert "Keep every record" in text and "drop or" not in text and "drop them" not in text


def test_a_blank_category_never_advises_dropping_its_record():
    """The warning of a blank cell in a categorical column without a missing-value category said "drop or fill such
    records first"; the fix fills the cells and keeps every record (session 69, the class of P2 finding 5)."""
    from dpcvx import CategoricalColumn
    from dpcvx.exceptions import UndeclaredCategoryWarning

    with pytest.warns(UndeclaredCategoryWarning) as caught:
        PublicSchema((CategoricalColumn("job", ("a", "b")),)).transform({"job": np.array(["a", " ", "b"])})
    text = " ".join(str(item.message) for item in caught)
    assert "keep every record" in text and "drop or" not in text


@pytest.mark.parametrize("where", ["array", "sparse-fill"])
def test_an_array_with_a_missing_value_is_never_advised_to_drop_its_record(where):
    """The array path's refusal of a NaN still said "remove or impute them first" (a regression audit, session 71,
    P3 finding 3): the same sentence as the schema's refusals, impute by a public rule and keep every record."""
    import pandas as pd

    from dpcvx import PrivateERM

    X = np.zeros((10, 2))
    X[3, 1] = np.nan
    if where == "sparse-fill":
        X = pd.DataFrame({"a": pd.arrays.SparseArray(np.zeros(10)),
                          "b": pd.arrays.SparseArray(np.full(10, np.nan), fill_value=np.nan)})
    with pytest.raises(InputError) as caught:
        PrivateERM(data_norm=1.0).fit(X, np.r_[np.ones(5), -np.ones(5)], epsilon=1.0)
    text = str(caught.value)
    assert "Keep every record" in text and "remove or" not in text, text
