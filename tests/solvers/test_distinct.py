"""Repeated records are solved once (:mod:`dpcvx.solvers.distinct`): Newton on all rows starts from the minimiser
over the distinct (row, label) records, each weighted by its count, and certifies the release on all rows."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse

from benchmarks.speed_sweep import coded_data, sparse_data
from dpcvx import PrivateERM, losses
from dpcvx.solvers import choice, distinct
from dpcvx.solvers.distinct import distinct_records
from dpcvx.solvers.objective import evenly_spaced


def assert_the_records(found, X, y) -> None:
    """``found`` groups (dense or CSR) X and y exactly: each row and label is its group's first, and there is one
    group per distinct (row, label)."""
    assert found is not None
    dense = X.toarray() if sparse.issparse(X) else X
    np.testing.assert_array_equal(dense[found.first][found.groups], dense)
    np.testing.assert_array_equal(y[found.first][found.groups], y)
    assert found.count == len({(row.tobytes(), label) for row, label in zip(dense, y, strict=True)})


def test_groups_are_the_equal_records(rows_repeated):
    X, y = rows_repeated(6000, 200, 0, distinct=60)
    found = distinct_records(X, y)
    assert_the_records(found, X, y)  # one group per distinct (row, label): a row with both labels is two
    assert np.all(np.diff(found.first) > 0) and found.first[0] == 0
    np.testing.assert_array_equal(found.weights, np.bincount(found.groups))


def test_records_the_sample_missed_are_grouped_too(rows_repeated):
    """Rare records on rows the sample does not read: grouped by the sort of the keys the sample did not hold."""
    X, y = rows_repeated(6000, 200, 11, distinct=60)
    sample = evenly_spaced(X.shape[0], distinct.SAMPLE_ROWS)
    rare = np.setdiff1d(np.arange(X.shape[0]), sample)[::40][:90]  # 30 new rows, three times each
    X[rare] = rows_repeated(90, 200, 12, distinct=30)[0][np.repeat(np.arange(30), 3)]
    y[rare] = 1.0
    assert_the_records(distinct_records(X, y), X, y)


def test_more_records_than_the_sample_holds_are_expected(rows_repeated):
    """About 600 records in 20,000 rows: the sample of 1,024 holds about 490 of them, more than a quarter of its rows,
    but Chao's estimate of the records in all and Good's of the rows outside the sample's records are small."""
    X, y = rows_repeated(20_000, 60, 13, distinct=300)
    sample = evenly_spaced(X.shape[0], distinct.SAMPLE_ROWS)
    assert len({(row.tobytes(), label) for row, label in zip(X[sample], y[sample], strict=True)}) > \
        distinct.MAX_SHARE * distinct.SAMPLE_ROWS
    assert_the_records(distinct_records(X, y), X, y)


def test_group_weights_sum_the_record_weights(rows_repeated):
    X, y = rows_repeated(6000, 200, 1, distinct=60)
    s = np.random.default_rng(2).uniform(0.0, 2.0, X.shape[0])
    found = distinct_records(X, y, s)
    assert found is not None
    np.testing.assert_allclose(found.weights, [s[found.groups == g].sum() for g in range(found.count)], rtol=1e-12)


def test_regression_targets_split_groups(rows_repeated):
    X, _ = rows_repeated(6000, 200, 3, distinct=60)
    targets = np.round(0.4 * np.random.default_rng(4).normal(size=X.shape[0]))  # -1, 0 or 1
    assert_the_records(distinct_records(X, targets), X, targets)


def test_no_groups_without_repeats_or_below_the_sizes(rows_in_ball, rows_repeated):
    X, y = rows_in_ball(20_000, 100, 0)
    assert distinct_records(X, y) is None  # continuous rows: the sample shows no repeats
    X, y = rows_repeated(distinct.MIN_ROWS - 1, 300, 0, distinct=60)
    assert distinct_records(X, y) is None  # too few rows
    X, y = rows_repeated(distinct.MIN_ROWS * 4, 20, 0, distinct=60)
    assert X.size < distinct.MIN_ENTRIES and distinct_records(X, y) is None  # too few entries


def test_many_distinct_records_are_not_grouped(rows_repeated):
    """Half the records distinct: more than MAX_SHARE, so the solve reads all rows as before."""
    X, y = rows_repeated(8000, 200, 5, distinct=4000)
    assert distinct_records(X, y) is None


def test_a_key_collision_leaves_the_rows_ungrouped(monkeypatch, rows_repeated):
    """With r = 0 every row of a label shares a key: the comparison with the group's first row finds that they
    differ, and nothing is grouped (a grouping by keys alone would merge different rows)."""
    X, y = rows_repeated(6000, 200, 6, distinct=60)
    monkeypatch.setattr(distinct, "_key_vector", lambda dim: np.zeros(dim))
    assert distinct_records(X, y) is None


def test_inputs_are_not_written(rows_repeated):
    X, y = rows_repeated(6000, 200, 7, distinct=60)
    X.flags.writeable = False
    y.flags.writeable = False
    assert distinct_records(X, y) is not None


@pytest.fixture
def solves(monkeypatch):
    """Each Newton solve of a fit as (rows of its objective, iterations, status): patched into the solver choice."""
    calls: list[tuple[int, int, str]] = []
    original = choice.newton

    def recorded(objective, **options):
        w, info = original(objective, **options)
        calls.append((objective.n, info.iterations, info.status))
        return w, info

    monkeypatch.setattr(choice, "newton", recorded)
    return calls


def grouped_and_alone(learner, X, y, solves, monkeypatch, fewer_than: int, **fit) -> None:
    """Fit a fresh ``learner()`` on (X, y) as it is: Newton first on fewer than ``fewer_than`` distinct records, then
    one iteration on all rows (a grouping with the wrong weights, counts of 1 say, would leave Newton on all rows a
    full solve of its own); then with the grouping withheld, one solve on all rows: the same release, up to the
    solver's tolerance."""
    first = learner()
    model = first.fit(X, y, **fit)
    assert first.diagnostics_.converged and "distinct records" in first.diagnostics_.status
    (grouped_rows, _, _), (rows, iterations, status) = solves
    assert grouped_rows < fewer_than and rows == X.shape[0] and status == "converged", solves
    assert iterations == 1, solves
    solves.clear()
    monkeypatch.setattr(choice, "distinct_records", lambda *args: None)
    alone = learner().fit(X, y, **fit)
    assert [rows for rows, _, _ in solves] == [X.shape[0]]
    np.testing.assert_allclose(model.coef_, alone.coef_, atol=1e-6)
    np.testing.assert_allclose(model.intercept_, alone.intercept_, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("n, d, options", [
    (6000, 500, {}),  # every direction by CG
    (8000, 150, {}),  # row blocks, Cholesky directions
    (8000, 150, {"fit_intercept": True}),
])
def test_all_rows_certify_the_start_from_the_distinct_records(n, d, options, solves, monkeypatch, rows_repeated):
    X, y = rows_repeated(n, d, 8, distinct=60)
    grouped_and_alone(lambda: PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0, **options), X, y, solves,
                      monkeypatch, n / 50, epsilon=1.0, random_state=3)


def test_a_regression_on_repeated_records_starts_from_them(solves, monkeypatch, rows_repeated):
    """Huber regression: records group by row and target (here a function of the row)."""
    X, _ = rows_repeated(8000, 150, 14, distinct=60)
    targets = np.clip(np.round(2 * X @ np.random.default_rng(15).normal(size=150)), -3, 3)  # per row: records repeat
    grouped_and_alone(lambda: PrivateERM(loss="huber_regression", task="regression", label_bound=3.0, lam=1e-3,
                                         data_norm=1.0), X, targets, solves, monkeypatch, 61, epsilon=1.0,
                      random_state=4)


def test_weighted_records_are_grouped_with_their_weights(solves, rows_repeated):
    X, y = rows_repeated(6000, 200, 9, distinct=60)
    s = np.random.default_rng(10).uniform(0.5, 1.0, X.shape[0])
    learner = PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0, sample_weight_bound=1.0)
    learner.fit(X, y, epsilon=1.0, random_state=3, sample_weight=s)
    assert learner.diagnostics_.converged
    (grouped_rows, _, _), (rows, iterations, _) = solves
    assert grouped_rows < X.shape[0] / 20 and rows == X.shape[0] and iterations == 1, solves


def test_csr_records_are_grouped():
    X, y = coded_data(100_000, 5, seed=16)
    assert_the_records(distinct_records(X, y), X, y)


def test_csr_rows_stored_in_another_order_are_still_compared_by_value():
    """Each row's entries reversed on every other row: equal rows may get different keys (their sums round in another
    order) and so different groups, but every group holds equal rows only."""
    X, y = coded_data(100_000, 5, seed=17)
    indices, data = X.indices.reshape(-1, 5).copy(), X.data.reshape(-1, 5).copy()
    indices[::2], data[::2] = indices[::2, ::-1], data[::2, ::-1]
    shuffled = sparse.csr_matrix((data.ravel(), indices.ravel(), X.indptr), shape=X.shape)
    assert not shuffled.has_sorted_indices
    found = distinct_records(shuffled, y)
    assert found is not None
    np.testing.assert_array_equal(X[found.first][found.groups].toarray(), X.toarray())


def test_a_csr_key_collision_leaves_the_rows_ungrouped(monkeypatch):
    X, y = coded_data(100_000, 5, seed=18)
    monkeypatch.setattr(distinct, "_key_vector", lambda dim: np.zeros(dim))
    assert distinct_records(X, y) is None


@pytest.mark.slow
def test_a_wider_sample_reaches_some_thousand_records():
    """Six coded columns (729 rows, about 1,400 records) over 200,000 rows: the first sample of 1,024 repeats rows but
    predicts too many outside its records; the wider one predicts few, and the records are grouped."""
    X, y = coded_data(200_000, 6, seed=20)
    first = evenly_spaced(X.shape[0], distinct.SAMPLE_ROWS)
    assert not distinct._repeats_expected(np.sort(distinct._keys(X[first], y[first])), X.shape[0])
    assert_the_records(distinct_records(X, y), X, y)


def test_the_sweeps_sparse_rows_are_not_grouped():
    X, y = sparse_data(20_000, 10_000)
    assert distinct_records(X, y) is None


def test_a_csr_fit_starts_from_its_distinct_records(solves, monkeypatch):
    X, y = coded_data(100_000, 5, seed=19)
    grouped_and_alone(lambda: PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0), X, y, solves, monkeypatch,
                      2 * 3 ** 5 + 1, epsilon=1.0, random_state=5)
