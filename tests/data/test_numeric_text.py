"""Text in X is refused at every entry, however numeric it looks: numpy's and scikit-learn's float conversions read
"1.5", "1_000", "  2 " and "1e3" as numbers, where sample_weight refused text and docs/datasets.md says a text column
is refused. The refusal names the column (a table's by its name) and the fix; numbers held as objects (Python and
numpy numbers, booleans, Decimal) are read as before."""

from __future__ import annotations

import re
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx import (
    PINP,
    TDDL,
    TDIL,
    DPERMClassifier,
    DPHuberRegressor,
    DPHuberSVM,
    DPLinearRegression,
    DPLogisticRegression,
    PrivateERM,
    PrivateLinearRegression,
    PrivateMulticlassERM,
)
from dpcvx.exceptions import InputError, a_value_of
from dpcvx.validation import check_matrix, real_values

pd = pytest.importorskip("pandas")

RNG = np.random.default_rng(7)
X = RNG.uniform(-0.5, 0.5, size=(120, 2))
Y01 = (X[:, 0] > 0).astype(int)
YPM = 2 * Y01 - 1
Y3 = np.digitize(X[:, 0], [-0.15, 0.15])
TARGET = X[:, 0] + 0.1 * X[:, 1]
#: Text a float conversion reads as a number.
NUMERIC_TEXT = ["1.5", "1_000", "  2 ", "1e3", "-0.25", "nan"]
TEXT_AT = r"column 'b' holds text \(str\) in row 0 \(the value is not shown: it is data\)"
FIX_RE = re.compile(r"pd\.to_numeric.*astype\(float\).*categorical in a dpcvx\.PublicSchema")


def _text_column(rows: int = X.shape[0]) -> list[str]:
    return [NUMERIC_TEXT[i % len(NUMERIC_TEXT)] for i in range(rows)]


def _tables(values: np.ndarray = X) -> list:
    """X with its second column numeric text: pandas (object and string dtypes), polars, pyarrow."""
    text = _text_column(values.shape[0])
    tables = [pd.DataFrame({"a": values[:, 0], "b": text}),
              pd.DataFrame({"a": values[:, 0], "b": pd.array(text, dtype="string")})]
    try:
        import polars
        tables.append(polars.DataFrame({"a": values[:, 0], "b": text}))
    except ImportError:
        pass
    try:
        import pyarrow
        tables.append(pyarrow.table({"a": values[:, 0], "b": text}))
    except ImportError:
        pass
    return tables


def _arrays(values: np.ndarray = X) -> list:
    """X with its column 1 numeric text: an array of objects, an array of str, a list of rows."""
    objects = values.astype(object)
    objects[:, 1] = _text_column(values.shape[0])
    return [objects, values.astype(str), objects.tolist()]


FITS = {
    "PrivateERM": lambda X: PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, random_state=0),
    "PrivateERM regression": lambda X: PrivateERM(task="regression", loss="huber_regression", label_bound=1.0,
                                                  data_norm=1.0).fit(X, TARGET, 1.0, random_state=0),
    "PrivateLinearRegression": lambda X: PrivateLinearRegression(1.0, 1.0).fit(X, TARGET, 1.0, 1e-6),
    "PrivateMulticlassERM": lambda X: PrivateMulticlassERM(PrivateERM(data_norm=1.0), (0, 1, 2)).fit(
        X, Y3, 1.0, random_state=0),
    "DPLogisticRegression": lambda X: DPLogisticRegression(random_state=0).fit(X, Y01),
    "DPHuberSVM": lambda X: DPHuberSVM(random_state=0).fit(X, Y01),
    "DPERMClassifier": lambda X: DPERMClassifier(random_state=0).fit(X, Y01),
    "DPERMClassifier multiclass": lambda X: DPERMClassifier(classes=(0, 1, 2), random_state=0).fit(X, Y3),
    "DPLinearRegression": lambda X: DPLinearRegression(random_state=0).fit(X, TARGET),
    "DPHuberRegressor": lambda X: DPHuberRegressor(random_state=0).fit(X, TARGET),
    "TDDL": lambda X: TDDL("rbf", gamma=2.0, lam=0.1).fit(X, YPM, 1.0, Z=np.zeros((4, 2)), random_state=0),
    "TDIL": lambda X: TDIL("linear", lam=0.1, input_bound=1.0).fit(X, YPM, 200.0, 1e-6, random_state=0),
    "PINP": lambda X: PINP("rbf", gamma=4.0, lam=0.1, max_queries=4).fit(X, YPM, 1e4, 1e-6, random_state=0),
    "tune": lambda X: dpcvx.tune(PrivateERM(data_norm=1.0), X, YPM, {"lam": [1e-2, 1e-1]}, epsilon=1.0,
                                 random_state=0),
    "fit_private_norm": lambda X: dpcvx.fit_private_norm(PrivateERM(), X, YPM, 1.0, r_min=0.25, r_max=4.0,
                                                         random_state=0),
}


@pytest.mark.parametrize("entry", FITS)
def test_a_table_column_of_numeric_text_is_refused_by_name_at_every_fit(entry):
    for table in _tables():
        with pytest.raises(InputError, match=TEXT_AT) as caught:
            FITS[entry](table)
        assert "1_000" not in str(caught.value) and "-0.25" not in str(caught.value)  # data: never shown
        assert FIX_RE.search(str(caught.value))


@pytest.mark.parametrize("entry", FITS)
def test_an_array_of_numeric_text_is_refused_by_column_index_at_every_fit(entry):
    for array in _arrays():
        with pytest.raises(InputError, match=r"X column [01] holds text \(str\) in row 0 .*pd\.to_numeric"):
            FITS[entry](array)


@pytest.mark.slow
def test_the_opendp_bridge_refuses_numeric_text():
    """The measurement's fit refuses it (OpenDP passes the fit's error on as its own exception), its reason withheld
    from the measurement's caller, the analyst (dpcvx.opendp_bridge.WITHHELD): it names a row of the data."""
    dp = pytest.importorskip("opendp.prelude")
    from dpcvx.opendp_bridge import WITHHELD

    measurement = dpcvx.as_opendp_measurement(PrivateERM(data_norm=1.0), 0.5)
    for values in _arrays() + _tables():
        with pytest.raises(dp.OpenDPException) as refused:
            measurement((values, YPM))
        assert "InputError: " + WITHHELD in str(refused.value) and "in row 0" not in str(refused.value)


def _fitted() -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]})
        return {
            "PrivateERM": (PrivateERM(data_norm=1.0).fit(X, YPM, 1.0, random_state=0), YPM, False),
            "PrivateMulticlassERM": (PrivateMulticlassERM(PrivateERM(data_norm=1.0), (0, 1, 2)).fit(
                X, Y3, 1.0, random_state=0), Y3, False),
            "DPLogisticRegression": (DPLogisticRegression(random_state=0).fit(X, Y01), Y01, False),
            "DPLogisticRegression on a table": (DPLogisticRegression(random_state=0).fit(frame, Y01), Y01, True),
            "DPERMClassifier multiclass": (DPERMClassifier(classes=(0, 1, 2), random_state=0).fit(X, Y3), Y3, False),
            "DPLinearRegression": (DPLinearRegression(random_state=0).fit(X, TARGET), TARGET, False),
            "DPHuberRegressor on a table": (DPHuberRegressor(random_state=0).fit(frame, TARGET), TARGET, True),
            "TDDL": (TDDL("rbf", gamma=2.0, lam=0.1).fit(X, YPM, 1.0, Z=np.zeros((4, 2)), random_state=0), YPM,
                     False),
            "TDIL": (TDIL("linear", lam=0.1, input_bound=1.0).fit(X, YPM, 200.0, 1e-6, random_state=0), YPM, False),
        }


@pytest.mark.parametrize("name", list(_fitted()))
def test_every_prediction_entry_refuses_numeric_text(name):
    model, labels, tables = _fitted()[name]
    inputs = _tables() if tables else _arrays()
    methods = [method for method in ("predict", "predict_proba", "decision_function") if hasattr(model, method)]
    for values in inputs:
        for method in methods:
            with pytest.raises(InputError, match=r"column ('b'|[01]) holds text"):
                getattr(model, method)(values)
        if hasattr(model, "score"):
            with pytest.raises(InputError, match=r"column ('b'|[01]) holds text"):
                model.score(values, labels)


def test_regression_targets_of_numeric_text_are_refused_as_sample_weight_is():
    text = np.array([str(value) for value in TARGET], dtype=object)
    for fit in (lambda y: DPLinearRegression(random_state=0).fit(X, y),
                lambda y: DPHuberRegressor(random_state=0).fit(X, y),
                lambda y: PrivateLinearRegression(1.0, 1.0).fit(X, y, 1.0, 1e-6),
                lambda y: PrivateERM(task="regression", loss="huber_regression", label_bound=1.0,
                                     data_norm=1.0).fit(X, y, 1.0, random_state=0)):
        for y in (text, text.astype(str)):
            with pytest.raises(InputError, match=r"^y holds text \(str\) in row 0"):
                fit(y)


def test_numbers_held_as_objects_are_read_as_numbers():
    """Python and numpy numbers, booleans (read as 0/1, as a bool dtype is) and Decimal (a pyarrow or polars decimal
    column's entries) are numbers: the same matrix as the float array."""
    expected = np.array([[1.5, 1.0], [2.0, 0.0], [0.25, 1.0], [3.0, 0.5]])
    objects = np.array([[1.5, True], [np.int8(2), np.False_], [Fraction(1, 4), np.float32(1.0)],
                        [Decimal("3"), Decimal("0.5")]], dtype=object)
    np.testing.assert_array_equal(check_matrix(objects), expected)
    frame = pd.DataFrame({"a": objects[:, 0], "b": objects[:, 1]})
    np.testing.assert_array_equal(check_matrix(frame), expected)
    pa = pytest.importorskip("pyarrow")
    decimals = pa.table({"a": pa.array([Decimal("1.5"), Decimal("-2")]), "b": [1.0, 2.0]})
    np.testing.assert_array_equal(check_matrix(decimals), [[1.5, 1.0], [-2.0, 2.0]])
    np.testing.assert_array_equal(real_values("sample_weight", objects[:, 0]), expected[:, 0])  # the same rule


def test_one_rule_for_x_and_sample_weight():
    """An entry X refuses, sample_weight refuses too: text, a missing value, a numpy duration (a numpy integer to
    Python, read by numpy as a count of its units)."""
    for entry in ("1.5", None, np.timedelta64(3, "D"), b"2"):
        column = np.array([1.0, entry, 2.0], dtype=object)
        with pytest.raises(InputError, match=r"^X (column 1 holds|contains NaN .* row 1, column 1;)"):  # None as NaN
            check_matrix(np.stack([np.ones(3), column], axis=1))
        with pytest.raises(InputError, match=r"^sample_weight must hold real numbers: entry 1 is a"):
            real_values("sample_weight", column)


def test_a_number_beyond_the_float_range_among_objects_is_named():
    with pytest.raises(InputError, match=r"^X column 0 holds an int that is not a number in row 1"):
        check_matrix(np.array([[1.0], [10 ** 400]], dtype=object))
    with pytest.raises(InputError, match=r"^sample_weight must hold real numbers within the float range"):
        real_values("sample_weight", np.array([1.0, 10 ** 400], dtype=object))


@pytest.mark.parametrize(("entry", "named"), [(10 ** 400, "an int"), (object(), "an object"), (2j, "a complex"),
                                              (np.uint8(3) + 0j, "a complex")])
def test_an_entry_that_is_not_a_number_is_named_with_its_article(entry, named):
    """Its type with "a" or "an" as English has it (the messages said "a int", "a Interval", "a OverflowError")."""
    with pytest.raises(InputError, match=rf"^X column 0 holds {named} that is not a number in row 1"):
        check_matrix(np.array([[1.0], [entry]], dtype=object))


@pytest.mark.parametrize(("value", "named"), [(OverflowError(), "an OverflowError"), (ValueError(), "a ValueError"),
                                              (np.uint8(1), "a uint8"), (np.int64(1), "an int64"), (1.5, "a float")])
def test_a_value_of_names_a_type_with_its_article(value, named):
    assert a_value_of(value) == named
