"""A note read off the private rows is shown, never raised, under any warning filter.

A NOT PRIVATE warning (a category whose ``reads_private_data`` is set: a clipped row, a public point among the
training rows, a column piled on one code) fires on a record's value. Made an error by the user's filter
(``python -W error``, pytest's ``filterwarnings = error``) before the charge, it refused the call on the data set
that holds the record and released on its neighbour's: whether a call releases told the record (docs/theory.md,
section 30, "Warnings under a filter"). Each case below is a pair of neighbours, one of which triggers the note;
both must release under an "error" filter, spend the same epsilon, and the note is shown to the data owner.
"""

from __future__ import annotations

import ast
import contextlib
import pathlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest

import dpcvx
from dpcvx import exceptions
from dpcvx.cli import main

EPSILON = 1.0


def _rows(n: int = 300, d: int = 3, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, d))
    y = (X[:, 0] + 0.2 * rng.normal(size=n) > 0).astype(int)
    return X, y


def _clipped(X: np.ndarray) -> np.ndarray:
    """X's neighbour whose first row lies at 6 times the norm bound 1 (clipped onto it: a ClippingWarning)."""
    neighbour = X.copy()
    neighbour[0] = 6.0 / np.sqrt(X.shape[1])
    return neighbour


def _logistic(X: np.ndarray, y: np.ndarray, accountant: Any) -> Any:
    return dpcvx.DPLogisticRegression(epsilon=EPSILON, accountant=accountant, random_state=1).fit(X, y)


def _private_erm(X: np.ndarray, y: np.ndarray, accountant: Any) -> Any:
    return dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=1e-2, data_norm=1.0).fit(
        X, 2 * y - 1, EPSILON, accountant=accountant, random_state=1)


def _one_vs_rest(X: np.ndarray, y: np.ndarray, accountant: Any) -> Any:
    labels = np.digitize(X[:, 1], [-0.15, 0.15])
    return dpcvx.DPLogisticRegression(epsilon=EPSILON, classes=(0, 1, 2), accountant=accountant,
                                      random_state=1).fit(X, labels)


def _linear(X: np.ndarray, y: np.ndarray, accountant: Any) -> Any:
    return dpcvx.DPLinearRegression(epsilon=EPSILON, accountant=accountant, random_state=1).fit(X, X[:, 0])


def _tune_split(X: np.ndarray, y: np.ndarray, accountant: Any) -> Any:
    return dpcvx.tune(dpcvx.DPLogisticRegression(), X, y, {"lam": [1e-3, 1e-2]}, epsilon=EPSILON,
                      procedure="split", accountant=accountant, random_state=1)


def _tune_full(X: np.ndarray, y: np.ndarray, accountant: Any) -> Any:
    return dpcvx.tune(dpcvx.DPLogisticRegression(), X, y, {"lam": [1e-3, 1e-2]}, epsilon=EPSILON,
                      accountant=accountant, random_state=1)


#: (fit, the note's category): each fit on X and on X with one row clipped (:func:`_clipped`)
CLIPPED = {
    "DPLogisticRegression": _logistic,
    "PrivateERM": _private_erm,
    "one-vs-rest": _one_vs_rest,
    "DPLinearRegression": _linear,
    "tune split": _tune_split,
    "tune full-data": _tune_full,
}


@contextlib.contextmanager
def _error_filter() -> Iterator[list[str]]:
    """Every warning made an error by the filter; the names of the categories shown (not raised) gathered."""
    shown: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.showwarning = lambda message, category, *rest: shown.append(category.__name__)
        yield shown


def _released_under_error_filter(fit: Callable[[Any], Any]) -> tuple[float, list[str]]:
    """(epsilon spent, the categories shown) of ``fit(accountant)`` under :func:`_error_filter`."""
    accountant = dpcvx.PrivacyAccountant(epsilon=100, delta=1e-3)
    with _error_filter() as shown:
        fit(accountant)
    return accountant.spent.epsilon, shown


@pytest.mark.parametrize("name", sorted(CLIPPED))
def test_a_clipped_row_releases_under_an_error_filter(name: str) -> None:
    X, y = _rows()
    fit = CLIPPED[name]
    (spent, shown), (spent_clipped, shown_clipped) = (
        _released_under_error_filter(lambda accountant, rows=rows: fit(rows, y, accountant))
        for rows in (X, _clipped(X)))
    assert spent == spent_clipped == EPSILON
    assert "ClippingWarning" not in shown and "ClippingWarning" in shown_clipped  # shown to the data owner, not raised


def test_a_public_point_among_the_rows_releases_under_an_error_filter() -> None:
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.6, 0.6, size=(150, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    Z = rng.uniform(-0.6, 0.6, size=(20, 2))
    neighbour = X.copy()
    neighbour[0] = Z[0]
    outcomes = [_released_under_error_filter(lambda accountant, rows=rows: dpcvx.TDDL(
        "rbf", lam=0.01, gamma=1.0, input_bound=1.0).fit(rows, y, EPSILON, Z=Z, accountant=accountant))
        for rows in (X, neighbour)]
    assert [spent for spent, _ in outcomes] == [EPSILON, EPSILON]
    assert "PublicSampleWarning" not in outcomes[0][1] and "PublicSampleWarning" in outcomes[1][1]


def _schema() -> Any:
    return dpcvx.PublicSchema([dpcvx.NumericColumn("age", 17, 90), dpcvx.NumericColumn("inc", 0, 1)])


def test_a_piled_code_releases_under_an_error_filter() -> None:
    """19 rows of a code 999 outside the bounds do not warn, 20 do (one record apart)."""
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    age = rng.uniform(17, 90, 400)
    age[:19] = 999
    inc = rng.uniform(0, 1, 400)
    y = (inc + 0.2 * rng.normal(size=400) > 0.5).astype(int)
    table = pd.DataFrame({"age": age, "inc": inc})
    neighbour = table.copy()
    neighbour.loc[19, "age"] = 999
    outcomes = [_released_under_error_filter(lambda accountant, rows=rows: make_pipeline(
        _schema(), dpcvx.DPLogisticRegression(epsilon=EPSILON, accountant=accountant)).fit(rows, y))
        for rows in (table, neighbour)]
    assert [spent for spent, _ in outcomes] == [EPSILON, EPSILON]
    assert "OutOfBoundsWarning" not in outcomes[0][1] and "OutOfBoundsWarning" in outcomes[1][1]


def test_the_command_line_writes_the_model_under_an_error_filter(tmp_path: pathlib.Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """`PYTHONWARNINGS=error dpcvx fit` on the piled-code neighbour: exit 0 and a model, as on the other."""
    rng = np.random.default_rng(1)
    rows = pd.DataFrame({"a": rng.uniform(0, 10, 1200), "b": rng.uniform(-5, 5, 1200)})
    rows["y"] = np.where(rows["a"] + rows["b"] > 5, "A", "B")
    statuses = []
    for piled in (19, 20):
        table = rows.copy()
        table.loc[: piled - 1, "a"] = 999
        data, out = tmp_path / f"p{piled}.csv", tmp_path / f"m{piled}.json"
        table.to_csv(data, index=False)
        with _error_filter():
            statuses.append(main(["fit", str(data), "--target", "y", "--positive", "A", "--numeric", "a:0:10",
                                  "--numeric", "b:-5:5", "--epsilon", "1", "--data-norm", "1", "--out", str(out)]))
        assert out.exists()
    assert statuses == [0, 0]
    assert "warning made an error" not in capsys.readouterr().err


# One record's categorical value, against its neighbour's value outside the categories ("zz", encoded as zeros): a
# value that is a category but for how it was read was refused by a non-strict schema, before the charge, naming the
# record's row (an attacker probe, sixtieth session: 10 of 10 refused against 10 of 10 released, for each form)
# (a whole float, 3.0 for "3", was one, and a numeral's text, "03" for "3", another; each is now the category of its
# value, each row by its own value: tests/data/test_misread_categories.py)
NEAR_MISSES = {"letter case": ("job", "A"), "whitespace": ("job", " a")}


@pytest.mark.parametrize("form", sorted(NEAR_MISSES))
def test_a_near_miss_of_a_category_releases_as_an_unknown_value_does(form: str) -> None:
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(2)
    n = 400
    table = pd.DataFrame({"age": rng.uniform(17, 90, n)})
    for name, categories in (("job", ["a", "b"]), ("k", ["1", "2", "3"]), ("flag", ["0", "1"])):
        table[name] = pd.Series(rng.choice(categories, n), dtype=object)
    y = (table["age"].to_numpy() + 20 * rng.normal(size=n) > 50).astype(int)
    schema = dpcvx.PublicSchema([dpcvx.NumericColumn("age", 17, 90), dpcvx.CategoricalColumn("job", ("a", "b")),
                                 dpcvx.CategoricalColumn("k", ("1", "2", "3")),
                                 dpcvx.CategoricalColumn("flag", ("0", "1"))])
    column, value = NEAR_MISSES[form]
    outcomes = []
    for held in ("zz", value):
        neighbour = table.copy()
        neighbour.loc[n - 1, column] = held
        outcomes.append(_released_under_error_filter(lambda accountant, rows=neighbour: make_pipeline(
            schema, dpcvx.DPLogisticRegression(epsilon=EPSILON, accountant=accountant)).fit(rows, y)))
    assert [spent for spent, _ in outcomes] == [EPSILON, EPSILON]
    assert "UndeclaredCategoryWarning" not in outcomes[0][1] and "UndeclaredCategoryWarning" in outcomes[1][1]


def test_a_missing_cell_read_by_pandas_as_floats_releases(tmp_path: pathlib.Path) -> None:
    """pd.read_csv makes an integer column with one empty cell float64 (3.0, not 3): a schema declaring the missing
    value released the table without that cell and refused its neighbour with it."""
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(3)
    n = 300
    codes = rng.integers(1, 4, n)
    y = (codes + rng.normal(size=n) > 2).astype(int)
    schema = dpcvx.PublicSchema([dpcvx.CategoricalColumn("k", ("1", "2", "3"), missing="1")])
    spent = []
    for empty in (False, True):
        path = tmp_path / f"t{empty}.csv"
        cells = ("" if empty and i == n - 1 else str(code) for i, code in enumerate(codes))
        path.write_text("k,x\n" + "".join(f"{cell},{i}\n" for i, cell in enumerate(cells)))
        table = pd.read_csv(path)[["k"]]
        assert table["k"].dtype == (np.float64 if empty else np.int64)
        spent.append(_released_under_error_filter(lambda accountant, rows=table: make_pipeline(
            schema, dpcvx.DPLogisticRegression(epsilon=EPSILON, accountant=accountant)).fit(rows, y))[0])
    assert spent == [EPSILON, EPSILON]


def test_the_command_line_counts_a_variant_label_as_negative_as_any_other(tmp_path: pathlib.Path) -> None:
    """One versus rest (--positive A, no --negative): one label 'a' refused the fit (exit 3), 'Q' was released."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0, 1, 600)
    labels = np.where(x + 0.3 * rng.normal(size=600) > 0.5, "A", "B").astype(object)
    statuses = []
    for held in ("Q", "a"):
        labels[-1] = held
        data, out = tmp_path / f"{held}.csv", tmp_path / f"{held}.json"
        pd.DataFrame({"x": x, "y": labels}).to_csv(data, index=False)
        with _error_filter():
            statuses.append(main(["fit", str(data), "--target", "y", "--positive", "A", "--numeric", "x:0:1",
                                  "--epsilon", "1", "--data-norm", "1", "--out", str(out)]))
        assert out.exists()
    assert statuses == [0, 0]


def test_far_apart_rows_warn_the_random_features_under_an_error_filter() -> None:
    X = np.random.default_rng(0).normal(scale=100.0, size=(200, 3))
    with _error_filter() as shown:
        dpcvx.RandomFourierFeatures(n_components=20, gamma=1.0, random_state=0).fit(X)
    assert shown == ["KernelScaleWarning"]


def _private_categories() -> set[str]:
    return {name for name, value in vars(exceptions).items()
            if isinstance(value, type) and issubclass(value, exceptions.DPCVXWarning) and value.reads_private_data}


#: warnings.warn calls with a private category that fire on public inputs alone (whether raised depends on no record)
_PUBLIC_FIRING = {"PaperModeWarning": "a loader's mode='paper', a public argument"}


def test_no_private_category_is_warned_but_by_warn_shown() -> None:
    """The class, not the examples above: a ``warnings.warn`` in dpcvx whose category reads the private rows would be
    raised by an "error" filter. Only :func:`dpcvx.exceptions.warn_shown` warns such a category (its own call
    excepted), and the categories warned on public inputs alone are listed with their reason."""
    private = _private_categories()
    assert {"ClippingWarning", "PublicSampleWarning", "OutOfBoundsWarning", "LevelErasedWarning"} <= private
    package = pathlib.Path(dpcvx.__file__).parent
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"warn", "warn_explicit"}
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "warnings"):
                continue
            names = {part.id for part in ast.walk(node) if isinstance(part, ast.Name)}
            for category in (names & private) - set(_PUBLIC_FIRING):
                found.append(f"{path.relative_to(package)}:{node.lineno} {category}")
    assert found == []


def _extreme(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """600 rows in the unit ball and labels in [-50, 50], one row, one column or one label made huge (finite)."""
    rng = np.random.default_rng(2)
    X = rng.uniform(-0.5, 0.5, size=(600, 3))
    y = 100 * X[:, 0]
    if kind == "row":
        X[0] = 1e200
    elif kind == "row 1e154":  # its squared norm overflows, its entries do not
        X[0] = 1e154
    elif kind == "column":
        X[:, 1] = 1e200 * rng.uniform(0.5, 1.0, 600)
    else:
        y[0] = 1e200
    return X, y


#: fits whose NOT PRIVATE checks read the rows as given (a regression's least squares on them, the ranges' columns)
EXTREME_FITS: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "DPLinearRegression": lambda X, y: dpcvx.DPLinearRegression(epsilon=EPSILON).fit(X, y),
    "DPHuberRegressor": lambda X, y: dpcvx.DPHuberRegressor(epsilon=EPSILON).fit(X, y),
    "PrivateLinearRegression": lambda X, y: dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=100).fit(
        X, y, EPSILON, delta=1e-5),
    "DPLogisticRegression": lambda X, y: dpcvx.DPLogisticRegression(epsilon=EPSILON).fit(X, (y > 0).astype(int)),
}


@pytest.mark.parametrize("kind", ["row", "row 1e154", "column", "label"])
@pytest.mark.parametrize("name", sorted(EXTREME_FITS))
def test_huge_finite_values_raise_no_numpy_warning_under_an_error_filter(name: str, kind: str) -> None:
    """numpy's floating-point warnings on the rows are notes read off them too: a regression's check of its training
    rows overflowed on a row of 1e200 ("overflow encountered in matmul", after the charge: under an "error" filter
    the paid-for release was lost, on that row's value)."""
    X, y = _extreme(kind)
    with _error_filter() as shown:
        EXTREME_FITS[name](X, y)
    assert "RuntimeWarning" not in shown


def _underflowing(kind: str) -> tuple[np.ndarray, np.ndarray]:
    """300 rows in the unit ball and their neighbour whose first row holds a subnormal (``sub``), a tiny entry
    (``tiny``), or one of them in a row beyond R, clipped (``subclip``, ``tinyclip``): a valid record, on which an
    arithmetic step underflows."""
    X, _ = _rows(300, 3, seed=4)
    neighbour = X.copy()
    neighbour[0] = {"sub": [5e-324, 0.1, 0.1], "tiny": [1e-200, 0.1, 0.1], "subclip": [5e-324, 3.0, 3.0],
                    "tinyclip": [1e-300, 1e10, 1e10]}[kind]
    return X, neighbour


#: entries that read the rows, each fitted on (X, labels 0/1, a target) with the accountant given
UNDERFLOW_FITS: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray, Any], Any]] = {
    "DPLogisticRegression": lambda X, y, t, a: dpcvx.DPLogisticRegression(epsilon=EPSILON, accountant=a).fit(X, y),
    "DPHuberSVM": lambda X, y, t, a: dpcvx.DPHuberSVM(epsilon=EPSILON, accountant=a).fit(X, y),
    "PrivateERM": lambda X, y, t, a: dpcvx.PrivateERM(lam=1e-2, data_norm=1.0).fit(X, 2 * y - 1, EPSILON,
                                                                                  accountant=a),
    "one-vs-rest": lambda X, y, t, a: dpcvx.DPLogisticRegression(epsilon=EPSILON, classes=(0, 1, 2),
                                                                 accountant=a).fit(X, np.arange(len(y)) % 3),
    "DPLinearRegression": lambda X, y, t, a: dpcvx.DPLinearRegression(epsilon=EPSILON, accountant=a).fit(X, t),
    "DPHuberRegressor": lambda X, y, t, a: dpcvx.DPHuberRegressor(epsilon=EPSILON, accountant=a).fit(X, t),
    "PrivateLinearRegression": lambda X, y, t, a: dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=100).fit(
        X, t, EPSILON, delta=1e-5, accountant=a),
    "tune split": lambda X, y, t, a: dpcvx.tune(dpcvx.DPLogisticRegression(), X, y, {"lam": [1e-3, 1e-2]},
                                                epsilon=EPSILON, procedure="split", accountant=a),
    "random features": lambda X, y, t, a: __import__("sklearn.pipeline").pipeline.make_pipeline(
        dpcvx.RandomFourierFeatures(n_components=30, gamma=1.0, random_state=0),
        dpcvx.DPLogisticRegression(epsilon=EPSILON, accountant=a)).fit(X, y),
}


@pytest.mark.parametrize("kind", ["sub", "tiny", "subclip", "tinyclip"])
@pytest.mark.parametrize("name", sorted(UNDERFLOW_FITS))
def test_an_underflow_on_one_record_decides_nothing_under_np_seterr_raise(name: str, kind: str) -> None:
    """``np.seterr(all="raise")`` made an underflow on a subnormal or tiny entry a FloatingPointError: before the
    charge the call refused on that record's data set and released on its neighbour's; after it, the paid-for release
    was lost (the noisy descent, the column statistics, the training-rows checks). Every entry that reads the rows
    runs with numpy's errors ignored (:func:`dpcvx.exceptions.float_errors_ignored`)."""
    spent = []
    for rows in _underflowing(kind):
        accountant = dpcvx.PrivacyAccountant(epsilon=100, delta=1e-3)
        labels, target = (rows[:, 1] > 0).astype(int), 100 * rows[:, 1]
        with np.errstate(all="raise"), _error_filter():
            UNDERFLOW_FITS[name](rows, labels, target, accountant)
        spent.append(accountant.spent.epsilon)
    assert spent == [EPSILON, EPSILON]


#: the methods of a public class that read the private rows
_READERS = ("fit", "plan", "bind", "execute", "transform", "fit_transform", "query")


def test_every_public_entry_that_reads_the_rows_ignores_float_errors() -> None:
    """The class, not the cases above: each public class's method that reads the rows, and ``dpcvx.tune``, runs with
    numpy's floating-point errors ignored (:func:`dpcvx.exceptions.float_errors_ignored`), a new entry included."""
    missing, read = [], 0
    for name in dpcvx.__all__:
        entry = getattr(dpcvx, name)
        methods = ([(name, entry)] if name == "tune" else
                   [(f"{name}.{method}", getattr(entry, method)) for method in _READERS
                    if isinstance(entry, type) and callable(getattr(entry, method, None))
                    and getattr(getattr(entry, method), "__module__", "").startswith("dpcvx")])
        for shown, method in methods:
            read += 1
            if not getattr(method, exceptions.FLOAT_ERRORS_IGNORED, False):
                missing.append(shown)
    assert read >= 30 and missing == []
