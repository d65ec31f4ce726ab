"""A bytes cell is its UTF-8 text wherever a column or a label vector is read (sixty-fifth session, attacker probe B).

A categorical column of bytes was read one way or another by the OTHER records' types: a list of bytes alone (a
numpy bytes array) was decoded, so b"NA" was the declared missing category and b"1.0" the category "1", while the
same list with one text record, or a pandas, pyarrow or polars column of the same bytes (objects), was not: every
such row was the all-zero block, in a charged release (the released coefficient of "?" +1.08 on D, -5.06 on D').
Non-ASCII bytes beside text were a bare UnicodeDecodeError (numpy decodes them as ASCII), or a refusal naming a
nested value in row 0. Bytes labels were no text class. ``dpcvx.tables.bytes_as_text`` now decodes every bytes cell
once, where the column or the labels are read, and refuses one that is not UTF-8 by its column and row, before any
charge."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from dpcvx import CategoricalColumn, NumericColumn, PrivacyAccountant, PublicSchema
from dpcvx.exceptions import InputError
from dpcvx.sklearn import DPLogisticRegression
from dpcvx.tables import RowError

N = 12
#: (a cell, the declared category it is, the column's declaration): B1's table
CELLS = [(b"NA", "?", CategoricalColumn("c", ["1", "2", "?"], missing="?")),
         *((cell, "1", CategoricalColumn("c", ["1", "2", "?"])) for cell in (b"1.0", b"01", b" 1", b"true", b"1")),
         ("caf\u00e9".encode(), "caf\u00e9", CategoricalColumn("c", ["caf\u00e9", "2", "?"]))]


def _forms(cells: list) -> dict[str, object]:
    """The columns a reader may give for ``cells`` (bytes), with and without one text record (the last)."""
    one_text = [*cells[:-1], "2"]
    forms = {"list": cells, "list with one text record": one_text, "tuple": tuple(cells),
             "numpy bytes": np.array(cells), "numpy objects": np.array(cells, dtype=object),
             "pandas": pd.Series(cells, dtype=object), "pandas with one text record": pd.Series(one_text, dtype=object)}
    return forms


@pytest.mark.parametrize("cell, category, column", CELLS, ids=[repr(cell) for cell, _, _ in CELLS])
def test_a_bytes_cell_is_its_text_whatever_the_other_records(cell, category, column):
    schema = PublicSchema([column])
    cells = [cell, b"2"] * (N // 2)
    expected = schema.transform({"c": [category, "2"] * (N // 2)})  # the texts themselves
    assert expected[::2, column.categories.index(category)].all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no undeclared-category warning: every cell is a declared category
        for name, values in _forms(cells).items():
            encoded = schema.transform(pd.DataFrame({"c": values}) if name.startswith("pandas") else {"c": values})
            np.testing.assert_array_equal(encoded[:-1], expected[:-1], err_msg=name)


@pytest.mark.parametrize("library", ["pyarrow", "polars"])
def test_a_binary_table_column_is_its_text(library):
    module = pytest.importorskip(library)
    pa = pytest.importorskip("pyarrow")
    schema = PublicSchema([CategoricalColumn("c", ["caf\u00e9", "tea", "?"], missing="?")])
    cells = ["caf\u00e9".encode(), b"tea", b"NA", b"?"] * 3
    table = pa.table({"c": pa.array(cells, pa.binary())})
    if library == "polars":
        table = module.from_arrow(table)
    texts = [cell.decode() for cell in cells]
    np.testing.assert_array_equal(schema.transform(table), schema.transform({"c": texts}))
    assert schema.transform(table).any(axis=1).all()


def _fit(table: object, y: object, column: CategoricalColumn, spent: list[float]) -> np.ndarray:
    accountant = PrivacyAccountant(epsilon=10)
    schema = PublicSchema([column, NumericColumn("v", 0, 1)])
    pipeline = make_pipeline(schema, DPLogisticRegression(epsilon=1.0, classes=("no", "yes"), random_state=0))
    pipeline.fit(table, y, dplogisticregression__accountant=accountant)
    spent.append(accountant.spent.epsilon)
    return np.r_[pipeline[-1].coef_.ravel(), pipeline[-1].intercept_]


@pytest.mark.parametrize("bytes_labels", [False, True], ids=["text labels", "bytes labels"])
@pytest.mark.parametrize("cell, category, column", CELLS, ids=[repr(cell) for cell, _, _ in CELLS])
def test_a_charged_fit_reads_bytes_cells_and_labels_as_their_text(cell, category, column, bytes_labels):
    """B1's charged fit: 600 records of codes b"2", b"?" and the cell (b"NA" with missing="?": the probe's released
    coefficient of "?" was +1.08 on D, -5.06 on D' with one text record), labels b"yes"/b"no". The release on the
    bytes, with one text record among them, as a pandas column or a numpy bytes array, is the release on their texts,
    each charged once; so is the release on bytes labels."""
    rng = np.random.default_rng(0)
    codes = [(cell, b"2", b"?")[i] for i in rng.integers(0, 3, 600)]
    v = rng.uniform(0, 1, 600).tolist()
    labels = [b"yes" if code == cell or x > 0.8 else b"no" for code, x in zip(codes, v, strict=True)]
    texts = [category if code == cell else code.decode() for code in codes]
    text_labels = [label.decode() for label in labels]
    labels = labels if bytes_labels else text_labels
    spent: list[float] = []
    expected = _fit({"c": texts, "v": v}, text_labels, column, spent)
    for table, y in [({"c": codes, "v": v}, labels),
                     ({"c": [*codes[:-1], texts[-1]], "v": v}, [*labels[:-1], text_labels[-1]]),
                     (pd.DataFrame({"c": codes, "v": v}), pd.Series(labels, dtype=object)),
                     ({"c": np.array(codes), "v": v}, np.array(labels))]:
        np.testing.assert_array_equal(_fit(table, y, column, spent), expected)
    assert spent == [1.0] * 5


BAD = b"caf\xe9"  # Latin-1, not UTF-8


@pytest.mark.parametrize("form", ["list", "list with one text record", "numpy bytes", "pandas", "pyarrow"])
@pytest.mark.parametrize("declared", ["categorical", "numeric"])
def test_bytes_that_are_not_utf8_are_refused_by_column_and_row_before_the_charge(form, declared):
    cells = [b"a", b"b", b"a", BAD, b"b", b"a"] if declared == "categorical" else [b"1", b"0", b"1", BAD, b"0", b"1"]
    if form == "list with one text record":
        cells = [*cells[:-1], "a" if declared == "categorical" else "1"]
    column = (CategoricalColumn("c", ["a", "b", "?"], missing="?") if declared == "categorical"
              else NumericColumn("c", 0, 1, missing=0.0))
    if form == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        table: object = pa.table({"c": pa.array(cells, pa.binary()), "v": [0.5] * 6})
    elif form == "pandas":
        table = pd.DataFrame({"c": pd.Series(cells, dtype=object), "v": [0.5] * 6})
    else:
        table = {"c": np.array(cells) if form == "numpy bytes" else cells, "v": [0.5] * 6}
    accountant = PrivacyAccountant(epsilon=10)
    pipeline = make_pipeline(PublicSchema([column, NumericColumn("v", 0, 1)]),
                             DPLogisticRegression(epsilon=1.0, random_state=0))
    with pytest.raises(RowError, match=r"column 'c' holds bytes that are not UTF-8 text in row 3 ") as refusal:
        pipeline.fit(table, [0, 1, 0, 1, 0, 1], dplogisticregression__accountant=accountant)
    assert refusal.value.row == 3 and "caf" not in str(refusal.value)  # the value is data: never shown
    assert accountant.spent.epsilon == 0


@pytest.mark.parametrize("form", ["list", "list with one text record", "numpy bytes", "pandas"])
def test_labels_that_are_not_utf8_are_refused_by_row_before_the_charge(form):
    labels = [b"no", b"yes", BAD, b"no", b"yes", b"no"]
    if form == "list with one text record":
        labels[-1] = "no"
    y = np.array(labels) if form == "numpy bytes" else pd.Series(labels) if form == "pandas" else labels
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (6, 2))
    accountant = PrivacyAccountant(epsilon=10)
    with pytest.raises(InputError, match=r"y holds bytes that are not UTF-8 text in row 2 "):
        DPLogisticRegression(epsilon=1.0, classes=("no", "yes"), random_state=0).fit(X, y, accountant=accountant)
    assert accountant.spent.epsilon == 0


def test_a_neighbouring_pair_reads_bytes_labels_as_their_text():
    """The audit's pair compares labels as every fit reads them: b"yes" and "yes" are one label (it counted every
    row as differing and refused the pair), and a label that is not UTF-8 is refused by its row."""
    from dpcvx.models.audit import NeighbouringPair

    X = np.random.default_rng(0).uniform(-0.5, 0.5, (6, 2))
    y = [b"no", b"yes", b"no", b"yes", b"no", b"yes"]
    y_prime = ["no", "yes", "no", "yes", "no", "no"]  # the last record replaced
    NeighbouringPair(X, y, X, y_prime, np.ones(2))
    with pytest.raises(RowError, match=r"NeighbouringPair.y holds bytes that are not UTF-8 text in row 1 "):
        NeighbouringPair(X, [b"no", BAD, *y[2:]], X, y_prime, np.ones(2))
