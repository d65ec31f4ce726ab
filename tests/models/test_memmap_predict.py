"""The estimators' predictions on a memmap read it by blocks of rows (issue 44, at any data size), as their fit does.

scikit-learn's input check gives a memmap back as a plain view of the file, which the release's scores converted
whole when it was float32 or Fortran-order: 1.05 to 3.5 times the float64 rows in memory, on top of the file. Now
every 2-D array is converted and checked a block of rows at a time (:meth:`dpcvx.data.rows.RowMap.scores`): the
allocations are a few blocks and the outputs, and the outputs are those of the same rows in memory, to the bit. A
refusal (the number of columns, a NaN or infinite entry, the feature names) is the one given in memory, with the
same bounded memory. Allocations are numpy's, measured by tracemalloc as in tests/data/test_fortran_memmap.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.data.rows import RowMap
from dpcvx.data.standardiser import ColumnStandardiser
from dpcvx.exceptions import InputError
from dpcvx.tables import NonFiniteError

N, D = 100_000, 20
#: The bound of a call's allocations beside its outputs: a few blocks of rows, of about 2 MB of entries each, whatever
#: the file's size (half of these 16 MB of rows in float64). A whole conversion of the file is the rows' size or more.
BLOCKS = 8 * 2**20

LAYOUTS = ("fortran", "float32", "c-order")


def _rows(n: int = N) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, D))
    X /= 1.01 * np.linalg.norm(X, axis=1)[:, None]
    return X, (X @ rng.normal(size=D) > 0).astype(int)


def _memmap(tmp_path: Path, X: np.ndarray, layout: str) -> np.memmap:
    """X stored as a .npy file in ``layout`` and opened as np.load(mmap_mode="r") opens it."""
    values = X.astype(np.float32) if layout == "float32" else X
    name = tmp_path / f"{layout}.npy"
    stored = np.lib.format.open_memmap(name, mode="w+", dtype=values.dtype, shape=values.shape,
                                       fortran_order=layout == "fortran")
    stored[:] = values
    stored.flush()
    del stored
    return np.load(name, mmap_mode="r")


@pytest.fixture(scope="module")
def fitted() -> dict[str, object]:
    """A binary classifier and a regressor with a clipping standardiser (column statistics drawn as private
    ranges), and a one-vs-rest classifier without a map: each path of the scores."""
    X, y = _rows(4000)
    return {
        "classifier": dpcvx.DPLogisticRegression(random_state=0, column_statistics="ranges").fit(X, y),
        "regressor": dpcvx.DPLinearRegression(random_state=0, label_bound=1.0).fit(X, y.astype(float)),
        "multiclass": dpcvx.DPLogisticRegression(random_state=0, classes=(0, 1, 2)).fit(
            X, y + (X[:, 0] > 0.3)),
    }


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> tuple[np.ndarray, np.ndarray, dict[str, np.memmap]]:
    """(X, y, X stored in each layout)."""
    X, y = _rows()
    directory = tmp_path_factory.mktemp("memmaps")
    return X, y, {layout: _memmap(directory, X, layout) for layout in LAYOUTS}


METHODS = {"classifier": ("predict", "decision_function", "predict_proba", "score"),
           "regressor": ("predict", "score"), "multiclass": ("predict", "decision_function", "predict_proba", "score")}


@pytest.mark.slow
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("kind", sorted(METHODS))
def test_predictions_on_a_memmap_allocate_blocks_and_are_those_in_memory(fitted, data, kind, layout, traced_peak):
    """Before, a float32 file was converted whole (1.05 to 1.15 times its rows in float64), a Fortran-order one
    with the standardiser too (2.5 times); the outputs are those of np.array(file), bit for bit, the release's
    own predict's too (a Fortran-order file's differed in the last bit, mapped by blocks against the whole)."""
    _, y, stored = data
    estimator, rows = fitted[kind], stored[layout]
    labels = y if kind != "regressor" else y.astype(float)
    in_memory = np.array(rows)  # the same dtype and memory order
    outputs = 2 * N * 8 * {"classifier": 2, "regressor": 1, "multiclass": 3}[kind]  # twice the (n, k) scores
    for method in METHODS[kind]:
        arguments = (labels,) if method == "score" else ()
        result, peak = traced_peak(getattr(estimator, method), rows, *arguments)
        assert peak < BLOCKS + outputs, f"{method}: {peak / 2**20:.1f} MiB"
        assert np.array_equal(result, getattr(estimator, method)(in_memory, *arguments)), method
    release = estimator.model_
    assert np.array_equal(release.predict(rows), release.predict(in_memory))


def _refusal(work, rows, traced_peak):
    """(the error work(rows) raised, the peak of numpy's allocations while it ran)."""
    def refused():
        try:
            work(rows)
        except InputError as error:
            return error
        raise AssertionError("no refusal")
    return traced_peak(refused)


def test_a_refusal_on_a_memmap_is_the_one_in_memory_with_blocks_of_memory(fitted, data, tmp_path, traced_peak):
    """The wrong number of columns (dpcvx's look for a NaN to name read the whole float32 file into memory first)
    and an infinite entry far down the file: the error given in memory, by its row in the whole file."""
    X, _, _ = data
    broken = X.copy()
    broken[N - 10, 3] = np.inf
    (tmp_path / "wide").mkdir()
    (tmp_path / "broken").mkdir()
    files = (_memmap(tmp_path / "wide", np.hstack([X, X[:, :1]]), "float32"),
             _memmap(tmp_path / "broken", broken, "float32"))
    for kind, estimator in fitted.items():
        for rows in files:
            from_memory, _ = _refusal(estimator.predict, np.array(rows), traced_peak)
            from_file, peak = _refusal(estimator.predict, rows, traced_peak)
            assert type(from_file) is type(from_memory) and str(from_file) == str(from_memory), kind
            assert peak < BLOCKS + N * 8 * 3, f"{kind}: {peak / 2**20:.1f} MiB for {from_file}"  # and the (n, k) scores
        assert isinstance(from_file, NonFiniteError) and f"row {N - 10}, column 3" in str(from_file)


def test_an_infinite_entry_hidden_by_the_standardisers_clipping_is_refused():
    """A clipping standardiser maps an infinite entry to its clip, a finite number: the scores read by blocks
    predicted such a row where :meth:`RowMap.features` (and an input in another form) refused it."""
    rows = RowMap(1.0, ColumnStandardiser(np.zeros(3), np.ones(3), 1.0, clip=2.0))
    X = np.ones((5, 3))
    X[2, 1] = np.inf
    with pytest.raises(NonFiniteError) as whole:
        rows.features(X)
    with pytest.raises(NonFiniteError) as scored:
        rows.scores(X, np.ones(3))
    assert str(scored.value) == str(whole.value) and "row 2, column 1" in str(scored.value)


def test_an_estimator_fitted_with_names_warns_of_a_memmap_without_them(data):
    """Feature names: a memmap has none, and an estimator fitted on a DataFrame warns of it as of any array."""
    pandas = pytest.importorskip("pandas")
    X, y = _rows(2000)
    estimator = dpcvx.DPLogisticRegression(random_state=0).fit(
        pandas.DataFrame(X, columns=[f"x{j}" for j in range(D)]), y)
    stored = data[2]["float32"]
    for rows in (stored, np.array(stored)):
        with pytest.warns(UserWarning, match="X does not have valid feature names"):
            estimator.predict(rows)
