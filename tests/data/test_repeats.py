"""dpcvx.data.repeats: whether a CSR stores a (row, column) twice, on every route, and never written to."""

import types

import numpy as np
import pytest
import scipy.sparse as sparse

from dpcvx.data import repeats
from dpcvx.data.repeats import has_repeats


def rows_csr(rows: list[list[int]], d: int = 12) -> sparse.csr_matrix:
    """A CSR whose row i stores the columns rows[i] in that order (values 1, 2, ...)."""
    indices = np.array([j for row in rows for j in row], dtype=np.int32)
    indptr = np.concatenate([[0], np.cumsum([len(row) for row in rows])]).astype(np.int32)
    return sparse.csr_matrix((np.arange(1.0, indices.size + 1), indices, indptr), shape=(len(rows), d))


def read_only(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    """The CSR over read-only views of its arrays, as check_matrix shares a caller's CSR."""
    views = []
    for array in (matrix.data, matrix.indices, matrix.indptr):
        view = array.view()
        view.flags.writeable = False
        views.append(view)
    return sparse.csr_matrix(tuple(views), shape=matrix.shape)


CASES = {  # rows, whether a position repeats
    "canonical": ([[0, 3, 7], [], [1, 2]], False),
    "sorted with a repeat": ([[0, 3, 3, 7], [1, 2]], True),
    "decreasing": ([[7, 3, 0], [], [11, 5, 2, 1]], False),
    "decreasing with a repeat": ([[7, 3, 3, 0], [2, 1]], True),
    "unordered": ([[3, 0, 7], [5, 11, 1, 2]], False),
    "unordered with a repeat far apart": ([[3, 0, 7, 5, 3], [1]], True),
    "unordered, repeats of the same entry": ([[4, 9] + [6] * 300, [0]], True),
    "mixed rows, repeat in a decreasing one": ([[2, 0, 1], [5, 5]], True),
}


@pytest.fixture(params=["counted", "pattern product"])
def route(request, monkeypatch):
    """scipy's distinct-position count, or the fallback where a scipy lacks it."""
    if request.param == "pattern product":
        monkeypatch.setattr(repeats, "_sparsetools", types.SimpleNamespace())
    return request.param


@pytest.mark.parametrize("name", CASES)
def test_each_form_is_found_to_repeat_exactly_when_it_does(route, name):
    rows, expected = CASES[name]
    matrix = read_only(rows_csr(rows))
    before = [a.copy() for a in (matrix.data, matrix.indices, matrix.indptr)]
    assert has_repeats(matrix) is expected
    assert repeats.distinct_positions(matrix) == sum(len(set(row)) for row in rows)
    for kept, now in zip(before, (matrix.data, matrix.indices, matrix.indptr), strict=True):
        np.testing.assert_array_equal(kept, now)


@pytest.mark.parametrize("entries", [1, 2, 5, 1 << 18])
def test_the_pattern_product_across_group_boundaries(monkeypatch, entries):
    """Groups of rows through a small buffer, rows longer than it, a repeat in the first or last row."""
    monkeypatch.setattr(repeats, "_sparsetools", types.SimpleNamespace())
    monkeypatch.setattr(repeats, "_GROUP_ENTRIES", entries)
    rng = np.random.default_rng(3)
    rows = [rng.choice(50, size=rng.integers(0, 9), replace=False).tolist() for _ in range(40)]
    assert not has_repeats(rows_csr(rows, 50))
    assert has_repeats(rows_csr([*rows, [3, 8, 3]], 50))
    assert has_repeats(rows_csr([[3, 8, 3], *rows], 50))


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_random_rows_with_and_without_one_repeat(route, index_dtype):
    rng = np.random.default_rng(4)
    rows = [rng.choice(1000, size=20, replace=False).tolist() for _ in range(500)]
    matrix = rows_csr(rows, 1000)
    matrix.indices, matrix.indptr = matrix.indices.astype(index_dtype), matrix.indptr.astype(index_dtype)
    assert not has_repeats(read_only(matrix))
    matrix.indices[321 * 20 + 7] = matrix.indices[321 * 20 + 15]
    assert has_repeats(read_only(matrix))


def _decreasing_by_rows(rows: list[list[int]]) -> bool:
    return all(a > b for row in rows for a, b in zip(row[:-1], row[1:], strict=True))


@pytest.mark.parametrize("entries", [1, 2, 3, 7, 1 << 18])
def test_strictly_decreasing_rows_across_group_boundaries(monkeypatch, entries):
    """Against each row's own comparison: rows decreasing (a boundary between rows may rise), one row out of order
    or with a repeat anywhere, empty rows, groups of pairs smaller than a row and larger than the matrix."""
    monkeypatch.setattr(repeats, "_GROUP_ENTRIES", entries)
    rng = np.random.default_rng(5)
    rows = [sorted(rng.choice(50, size=rng.integers(0, 7), replace=False).tolist(), reverse=True) for _ in range(60)]
    assert repeats.strictly_decreasing(read_only(rows_csr(rows, 50)))
    for k in range(len(rows)):
        if len(rows[k]) < 2:
            continue
        for changed in ([*rows[k][:-1], rows[k][-2]], rows[k][::-1], [rows[k][0], *rows[k]]):
            altered = [*rows[:k], changed, *rows[k + 1:]]
            assert repeats.strictly_decreasing(rows_csr(altered, 50)) is _decreasing_by_rows(altered)
            assert has_repeats(rows_csr(altered, 50)) is any(len(set(row)) < len(row) for row in altered)
    assert repeats.strictly_decreasing(rows_csr([[], [], []], 5))
    assert repeats.strictly_decreasing(rows_csr([[4], [], [0], [3, 1]], 5))


def test_decreasing_rows_need_no_count(monkeypatch):
    """Rows in the order scipy's product with a diagonal leaves them: answered by the comparison, the count never
    run; any other order is counted."""
    rng = np.random.default_rng(6)
    scaled = sparse.diags(rng.uniform(1, 2, 300)) @ sparse.random(300, 400, density=0.05, format="csr", random_state=7)
    assert repeats.strictly_decreasing(scaled) and not scaled.has_sorted_indices

    def counted(matrix):
        raise AssertionError("counted")

    monkeypatch.setattr(repeats, "distinct_positions", counted)
    assert not has_repeats(read_only(scaled))
    shuffled = read_only(rows_csr([[3, 0, 7], [5, 1]]))
    with pytest.raises(AssertionError, match="counted"):
        has_repeats(shuffled)
