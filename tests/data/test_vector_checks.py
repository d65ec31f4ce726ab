"""The per-row decisions taken from vectors of the rows: clipping decided on the sums of squares, labels mapped.

RowMap.clip compares a row's sum of squares s with a threshold t instead of taking fl(sqrt(s)) for every row;
the rows clipped, their count (with the round-off margin) and the clipped rows must be those of the plain
formula, fl(sqrt(s)) > R, at and around the bound, where the two could part. check_labels maps labels to
-1/+1 and refuses those outside the public classes with the count and first row.
"""

import math

import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx.data.rows as rows_module
from dpcvx.data.rows import RowMap, _sqrt_threshold
from dpcvx.exceptions import InputError
from dpcvx.validation import check_labels

EPS = np.finfo(float).eps
BOUNDS = [1.0, 2.0, 3.0, 0.7, 0.1 + 0.2, 1e-75, 1e75]  # squares in the normal range: plain norms


def neighbours(value: float, steps: int) -> list[float]:
    """``value`` and the ``steps`` floats on each side of it."""
    out, low, high = [value], value, value
    for _ in range(steps):
        low, high = math.nextafter(low, 0.0), math.nextafter(high, math.inf)
        out += [low, high]
    return out


def test_the_sqrt_threshold_splits_the_floats_where_the_rounded_sqrt_crosses_the_limit():
    spread = 10 ** np.random.default_rng(0).uniform(-300, 300, 500)
    limits = [*BOUNDS, 1e-300, 1e150, 1e300, 1 + 1e-9, 5e-324, 1e-160, 1.7e308, *spread]
    for limit in limits:
        threshold = _sqrt_threshold(float(limit))
        for s in neighbours(threshold, 6) if math.isfinite(threshold) else [1e308, 1.7976931348623157e308]:
            if math.isfinite(s):
                assert (np.sqrt(np.float64(s)) > limit) == (s > threshold), (limit, s, threshold)


def rows_around(R: float, d: int, seed: int) -> np.ndarray:
    """Rows of norm R (1 + k eps) for k in [-12, 12], R (1 +- 1e-9) and nearby (the round-off margin), inside,
    far outside, exactly on it (R e_1) and zero."""
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(300, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    scale = 1 + rng.integers(-12, 13, size=300) * EPS
    scale[:40] = (1 + rng.choice([1e-9, -1e-9, 2e-9], size=40)) * (1 + rng.integers(-4, 5, size=40) * EPS)
    scale[40:50] = 0.5
    scale[50:55] = 7.0
    X = directions * (R * scale)[:, None]
    X[55] = 0.0
    X[56] = 0.0
    X[56, 0] = R
    return X


@pytest.mark.parametrize("layout", ["C", "F", "csr"])
@pytest.mark.parametrize("intercept", [False, True])
@pytest.mark.parametrize("R", BOUNDS)
@pytest.mark.parametrize("d", [1, 3, 20])
def test_rows_at_the_bound_are_clipped_and_counted_as_their_rounded_norms_say(layout, intercept, R, d):
    X = rows_around(R, d, seed=d)
    data = {"C": X, "F": np.asfortranarray(X), "csr": sparse.csr_matrix(X)}[layout]
    sizes = np.sqrt(rows_module._row_squares(data))  # the plain formula on the same sums
    with np.errstate(divide="ignore", invalid="ignore"):  # the zero row's factor, not taken
        expected = np.where((sizes > R)[:, None], X * (R / sizes * (1 - 4 * EPS))[:, None], X)
    flagged = int(np.count_nonzero(sizes > R * (1 + 1e-9)))
    assert np.any(sizes > R) and flagged < X.shape[0]
    out, count = RowMap(R, fit_intercept=intercept).apply(data)
    out = out.toarray() if sparse.issparse(out) else out
    assert count == flagged
    np.testing.assert_array_equal(out[:, :d], expected)
    with pytest.raises(InputError, match=f"^{flagged} rows have norm above data_norm"):
        RowMap(R, fit_intercept=intercept).apply(data, refuse=True)
    inside = data[40:50]
    assert RowMap(R).clip(inside) == (inside, 0)  # nothing to clip: the rows themselves


def test_a_csr_with_empty_rows_is_clipped_as_its_rows_say():
    X = np.zeros((6, 4))
    X[1] = [3.0, 4.0, 0.0, 0.0]
    X[4] = [0.0, 0.0, 1.0, 0.0]
    out, count = RowMap(1.0).clip(sparse.csr_matrix(X))
    assert count == 1
    np.testing.assert_array_equal(out.toarray()[[0, 2, 3, 4, 5]], X[[0, 2, 3, 4, 5]])
    np.testing.assert_array_equal(out.toarray()[1], X[1] * (1.0 / 5.0 * (1 - 4 * EPS)))


@pytest.mark.parametrize("labels, classes", [
    (np.array([0, 1, 1, 0, 1]), (0, 1)),
    (np.array([-1.0, 1.0, 1.0, -1.0, -1.0]), (-1, 1)),
    (np.array(["no", "yes", "yes", "no", "no"]), ("no", "yes")),
    (np.array([True, False, True, True, False]), (False, True)),
    (np.array([2, 7, 7, 2, 7], dtype=object), (7, 2)),
    ([[0], [1], [1], [0], [1]], (0, 1)),
])
def test_labels_are_mapped_to_plus_and_minus_one(labels, classes):
    y = np.asarray(labels).ravel()
    mapped = check_labels(labels, 5, classes)
    assert mapped.dtype == np.float64 and mapped.shape == (5,)
    np.testing.assert_array_equal(mapped, np.where(y == classes[1], 1.0, -1.0))


def test_labels_outside_the_classes_are_refused_with_their_count_and_first_row():
    y = np.array([0, 1, 2, 1, 0, 3, 2])
    with pytest.raises(InputError, match=r"^y has 3 label\(s\), the first at row 2 \(their values are not shown"):
        check_labels(y, 7, (0, 1))
    with pytest.raises(InputError, match=r"^y holds NaN or missing values, first at row 0 \(1 such row\)"):
        check_labels(np.array([np.nan, 1.0, 0.0]), 3, (0.0, 1.0))  # a missing label, in the one wording
