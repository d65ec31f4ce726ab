"""dpcvx.tune refuses every input its candidates refuse before it charges (validate first, charge once, then draw
noise: a refused call spends nothing), and after the charge reads only the rows and labels its checks read.

tune checks the table once (:func:`dpcvx.models.tuning.checks.shaped_then_read`: the estimators' own check of a table,
:func:`dpcvx.validation.check_table`, and of a regression's targets, :func:`dpcvx.validation.numeric_targets`) and
hands the checked arrays to every fit, score and note. It had handed the caller's y to its note on the training rows
after the charge: a regressor tuned on a boolean or Decimal y, which every regressor's fit reads as floats, raised
numpy's TypeError there with the budget spent (and nothing released).
"""

from __future__ import annotations

import datetime
import decimal

import numpy as np
import pytest

import dpcvx
from dpcvx.models.tuning import BudgetInConstructor

pd = pytest.importorskip("pandas")

N = 200
PROCEDURES = ("full-data", "split")


def _rows():
    X = np.random.default_rng(0).uniform(0, 0.5, (N, 3))
    return X, (X[:, 0] > 0.25).astype(int)


def _frame(**columns):
    X, _ = _rows()
    table = pd.DataFrame(X, columns=["a", "b", "c"])
    for name, values in columns.items():
        table[name] = values
    return table


def _polars(column):
    pl = pytest.importorskip("polars")
    X, _ = _rows()
    return pl.DataFrame({"a": X[:, 0], "b": column, "c": X[:, 2]})


def _arrow(column):
    pa = pytest.importorskip("pyarrow")
    X, _ = _rows()
    return pa.table({"a": X[:, 0], "b": column, "c": X[:, 2]})


def _with(row, value):
    X, _ = _rows()
    X = X.copy()
    X[row, 1] = value
    return X


#: X's kinds the estimators refuse (dpcvx.validation.check_table and the estimators' checks), each a function of
#: nothing: (X, the refusal's class)
TABLES = {
    "mixed-type names": lambda: pd.DataFrame(_rows()[0], columns=["a", 1, "c"]),
    "repeated names": lambda: pd.DataFrame(_rows()[0], columns=["a", "a", "c"]),
    "timestamp column": lambda: _frame(b=pd.date_range("2020-01-01", periods=N)),
    "duration column": lambda: _frame(b=pd.to_timedelta(np.arange(N), unit="D")),
    "date objects": lambda: _frame(b=[datetime.date(2020, 1, 1 + i % 28) for i in range(N)]),
    "time objects": lambda: _frame(b=[datetime.time(i % 24) for i in range(N)]),
    "categorical column": lambda: _frame(b=pd.Categorical(["x", "y"] * (N // 2))),
    "numbers as categories": lambda: _frame(b=pd.Categorical([1.0, 2.0] * (N // 2))),
    "text column": lambda: _frame(b=["x", "y"] * (N // 2)),
    "numbers as text": lambda: _frame(b=["0.1", "0.2"] * (N // 2)),
    "bytes not UTF-8": lambda: _frame(b=[b"\xff", b"0"] * (N // 2)),
    "NaN entry": lambda: _frame(b=np.where(np.arange(N) == 5, np.nan, _rows()[0][:, 1])),
    "pandas NA entry": lambda: _frame(b=pd.array(np.where(np.arange(N) == 5, None, _rows()[0][:, 1]),
                                                 dtype="Float64")),
    "sparse columns, fill 1": lambda: pd.DataFrame(_rows()[0], columns=list("abc")).astype(pd.SparseDtype(float, 1.0)),
    "complex array": lambda: _rows()[0].astype(complex),
    "datetime64 array": lambda: np.array(_rows()[0] * 1e9, dtype="datetime64[ns]"),
    "array of text": lambda: _rows()[0].astype(str),
    "infinite entry": lambda: _with(3, np.inf),
    "three dimensions": lambda: _rows()[0][:, :, None],
    "a Series": lambda: pd.Series(_rows()[0][:, 0]),
    "scipy sparse with NaN": lambda: __import__("scipy.sparse").sparse.csr_matrix(_with(3, np.nan)),
    "polars date": lambda: _polars([datetime.date(2020, 1, 1)] * N),
    "polars null": lambda: _polars([None, *_rows()[0][1:, 1]]),
    "polars text": lambda: _polars(["x"] * N),
    "pyarrow dictionary": lambda: _arrow(__import__("pyarrow").array(["x", "y"] * (N // 2)).dictionary_encode()),
    "pyarrow null": lambda: _arrow(__import__("pyarrow").array([None, *_rows()[0][1:, 1]])),
    "pyarrow timestamp": lambda: _arrow(__import__("pyarrow").array(pd.date_range("2020", periods=N))),
}

#: labels a binary classifier refuses
LABELS = {
    "y NaN": lambda y: np.where(np.arange(N) == 3, np.nan, y),
    "y missing (pandas NA)": lambda y: pd.array(np.where(np.arange(N) == 3, None, y), dtype="Int64"),
    "y outside the classes": lambda y: np.where(y == 1, "yes", "no"),
    "y three classes": lambda y: np.arange(N) % 3,
    "y two columns": lambda y: np.c_[y, y],
    "y continuous": lambda y: y * 0.5,
    "y one short": lambda y: y[:-1],
    "y bytes not UTF-8": lambda y: np.where(y == 1, b"\xff", b"0"),
    "y timestamps": lambda y: pd.date_range("2020", periods=N),
}

#: targets a regressor refuses
TARGETS = {
    "targets as text": lambda t: t.astype(str),
    "target NaN": lambda t: np.where(np.arange(N) == 3, np.nan, t),
    "target infinite": lambda t: np.where(np.arange(N) == 3, np.inf, t),
    "target missing (None)": lambda t: np.where(np.arange(N) == 3, None, t.astype(object)),
    "targets complex": lambda t: t.astype(complex),
    "targets timestamps": lambda t: pd.date_range("2020", periods=N),
    "targets durations": lambda t: pd.to_timedelta(np.arange(N), unit="D").to_numpy(),
}

CLASSIFIERS = {
    "DPLogisticRegression": lambda: dpcvx.DPLogisticRegression(),
    "BudgetInConstructor": lambda: BudgetInConstructor(dpcvx.DPLogisticRegression),
    "PrivateERM": lambda: dpcvx.PrivateERM(),
}
REGRESSORS = {
    "DPHuberRegressor": lambda: dpcvx.DPHuberRegressor(),
    "BudgetInConstructor": lambda: BudgetInConstructor(dpcvx.DPHuberRegressor),
}


def _learners(names, default):
    """The learners' parameter list: ``default`` in the default tier, the others slow (each case is a tune call, and
    the refusal is the one check every learner shares: the default run on a bare clone must stay within 5 minutes,
    pyproject.toml)."""
    return [pytest.param(name, marks=() if name == default else pytest.mark.slow) for name in sorted(names)]


def _refused_before_the_charge(learner, X, y, procedure, **options):
    """tune refuses (X, y) with an InputError (its subclasses: NonFiniteError, InputTypeError, RowError ...), charging
    nothing, drawing nothing from its generator, fitting nothing of the learner given."""
    accountant = dpcvx.PrivacyAccountant(epsilon=100.0, delta=1e-3)
    generator = np.random.default_rng(7)
    before = generator.bit_generator.state
    with pytest.raises(dpcvx.InputError):
        dpcvx.tune(learner, X, y, {"lam": [0.1, 1.0]}, epsilon=1.0, procedure=procedure, accountant=accountant,
                   random_state=generator, **options)
    assert accountant.spent.epsilon == 0 and accountant.spent.delta == 0 and not accountant.ledger
    assert generator.bit_generator.state == before  # no coin, part, count or noise was drawn
    assert not any(name.endswith("_") and not name.startswith("_") for name in vars(learner))  # not fitted


@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("learner", _learners(CLASSIFIERS, "DPLogisticRegression"))
@pytest.mark.parametrize("kind", sorted(TABLES))
def test_a_table_the_estimators_refuse_is_refused_by_tune_before_the_charge(kind, learner, procedure):
    _refused_before_the_charge(CLASSIFIERS[learner](), TABLES[kind](), _rows()[1], procedure)


@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("learner", _learners(CLASSIFIERS, "DPLogisticRegression"))
@pytest.mark.parametrize("kind", sorted(LABELS))
def test_labels_a_classifier_refuses_are_refused_by_tune_before_the_charge(kind, learner, procedure):
    X, y = _rows()
    _refused_before_the_charge(CLASSIFIERS[learner](), X, LABELS[kind](y), procedure)


@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("learner", _learners(REGRESSORS, "DPHuberRegressor"))
@pytest.mark.parametrize("kind", sorted(TARGETS))
def test_targets_a_regressor_refuses_are_refused_by_tune_before_the_charge(kind, learner, procedure):
    X, _ = _rows()
    _refused_before_the_charge(REGRESSORS[learner](), X, TARGETS[kind](X[:, 0]), procedure)


@pytest.mark.parametrize("procedure", PROCEDURES)
def test_sample_weight_and_a_held_accountant_are_refused_before_the_charge(procedure):
    X, y = _rows()
    _refused_before_the_charge(dpcvx.DPLogisticRegression(), X, y, procedure,
                               fit_params={"sample_weight": np.ones(N)})
    _refused_before_the_charge(dpcvx.DPLogisticRegression(accountant=dpcvx.PrivacyAccountant(epsilon=9.0)), X, y,
                               procedure)


def _bool_targets(t):
    return t > 0.25


#: targets every regressor's fit reads as floats, which tune's note after the charge read as given
READ_AS_FLOATS = {
    "bool": lambda t: _bool_targets(t),
    "list of bool": lambda t: list(_bool_targets(t)),
    "pandas boolean": lambda t: pd.array(_bool_targets(t), dtype="boolean"),
    "Decimal objects": lambda t: np.array([decimal.Decimal(repr(float(v))) for v in t], dtype=object),
    "polars bool": lambda t: pytest.importorskip("polars").Series(_bool_targets(t)),
    "pyarrow bool": lambda t: pytest.importorskip("pyarrow").array(_bool_targets(t)),
}


def _float_targets(kind, t):
    values = READ_AS_FLOATS[kind](t)
    return np.asarray([float(value) for value in (values.to_pylist() if hasattr(values, "to_pylist") else values)])


# the fits at n = 200 with epsilon 1 are small: the noise's note is not what these tests examine
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("procedure", PROCEDURES)
def test_boolean_and_decimal_targets_are_tuned_as_their_floats_charged_once(procedure):
    """The default tier's cases of the grid below: a numpy bool and a Decimal target (on the parent, numpy's
    TypeError after the charge)."""
    for kind in ("bool", "Decimal objects"):
        _tuned_as_floats(kind, "DPHuberRegressor", procedure)


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("procedure", PROCEDURES)
@pytest.mark.parametrize("learner", sorted(REGRESSORS))
@pytest.mark.parametrize("kind", sorted(READ_AS_FLOATS))
def test_targets_read_as_floats_are_tuned_as_their_floats_charged_once(kind, learner, procedure):
    _tuned_as_floats(kind, learner, procedure)


def _tuned_as_floats(kind, learner, procedure):
    """tune of a regressor on targets read as floats (booleans, Decimals) charges once and releases what tune of
    the floats releases."""
    X, _ = _rows()
    targets = READ_AS_FLOATS[kind](X[:, 0])
    accountant = dpcvx.PrivacyAccountant(epsilon=100.0)
    result = dpcvx.tune(REGRESSORS[learner](), X, targets, {"lam": [0.1, 1.0]}, epsilon=1.0, procedure=procedure,
                        accountant=accountant, random_state=3)
    assert len(accountant.ledger) == 1 and accountant.spent.epsilon == pytest.approx(1.0)
    floats = dpcvx.tune(REGRESSORS[learner](), X, _float_targets(kind, X[:, 0]), {"lam": [0.1, 1.0]}, epsilon=1.0,
                        procedure=procedure, random_state=3)
    assert result.params == floats.params
    np.testing.assert_array_equal(result.model.predict(X), floats.model.predict(X))


def test_a_table_tuned_keeps_its_names_and_the_note_reads_the_checked_rows():
    X, y = _rows()
    table = pd.DataFrame(X, columns=["a", "b", "c"])
    result = dpcvx.tune(dpcvx.DPLogisticRegression(), table, y, {"lam": [0.1, 1.0]}, epsilon=1.0, random_state=0)
    assert list(result.model.feature_names_in_) == ["a", "b", "c"]
    with pytest.raises(dpcvx.InputError):  # its predictions check the names
        result.model.predict(table[["c", "b", "a"]])
