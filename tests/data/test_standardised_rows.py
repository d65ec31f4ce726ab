"""The standardiser's map by row blocks and RowMap's rows through a feature map (dpcvx.data.standardiser,
dpcvx.data.rows): bitwise the values of the plain formulas, computed here (docs/performance.md, round 15)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from dpcvx.data.rows import RowMap
from dpcvx.data.standardiser import ColumnStandardiser
from dpcvx.exceptions import InputError
from dpcvx.validation import check_matrix

D = 7


def rows(n: int, order: str = "C") -> np.ndarray:
    """n x D rows (more than one block of 2^16 values when n > 9,362), some beyond the unit ball and the clip,
    with -0.0, tiny and huge entries."""
    rng = np.random.default_rng(3)
    X = rng.normal(0.1, 0.6, (n, D))
    X[:5] = [[-0.0, 5e-324, -5e-324, 1e-300, 0.5, -0.5, 2.0]] * 5
    X[5] = 1e200
    return np.asarray(X, order=order)


def standardiser(clip: float | None = 0.45) -> ColumnStandardiser:
    rng = np.random.default_rng(4)
    return ColumnStandardiser(rng.normal(0, 0.1, D), rng.uniform(0.7, 3.3, D), 1.0, clip)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("clip", [0.45, None])
def test_the_map_is_the_formula_value_by_value_and_row_major(order: str, clip: float | None) -> None:
    X = rows(20_001, order)
    kept = X.copy(order="K")
    mapping = standardiser(clip)
    expected = (X - mapping.centre) * mapping.multiplier
    if clip is not None:
        expected = np.clip(expected, -clip, clip)
    mapped = mapping.transform(X)
    np.testing.assert_array_equal(mapped, expected)
    assert np.array_equal(np.signbit(mapped), np.signbit(expected))  # -0.0 stays -0.0
    assert mapped.flags.c_contiguous  # whatever X's order: a row's norm is summed alike (test_robustness.py)
    np.testing.assert_array_equal(X, kept)  # X is never written to
    if clip is not None:  # the data tell a wrong variant (the centre scaled first) from the formula: it would fail
        assert not np.array_equal(np.clip(X * mapping.multiplier - mapping.centre * mapping.multiplier, -clip, clip),
                                  expected)


def test_a_nan_stays_nan_and_the_row_map_refuses_it() -> None:
    X = rows(10)
    X[3, 2] = np.nan
    mapped = standardiser().transform(X)
    assert np.isnan(mapped[3, 2]) and np.count_nonzero(np.isnan(mapped)) == 1
    with pytest.raises(InputError, match="row 3, column 2"):
        RowMap(1.0, feature_map=standardiser(), fit_intercept=True).apply(X)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("intercept", [True, False])
def test_rows_through_the_map_are_the_map_then_the_clip_then_the_intercept(order: str, intercept: bool) -> None:
    # the map's output copied beside the intercept column by blocks, squared and clipped there: the values of the
    # map, RowMap.clip on its whole output and the column s, computed apart
    X = rows(30_001, order)
    row_map = RowMap(1.0, feature_map=standardiser(1.5), fit_intercept=intercept, intercept_scaling=0.8)
    mapped, count = row_map.apply(X)
    features = standardiser(1.5).transform(X)
    clipped, expected_count = RowMap(1.0).clip(features)
    expected = np.column_stack([clipped, np.full(len(X), 0.8)]) if intercept else clipped
    np.testing.assert_array_equal(mapped, expected)
    assert count == expected_count > 1000
    if intercept:
        assert mapped.flags.c_contiguous  # Newton reads the rows by row blocks
    np.testing.assert_array_equal(row_map.features(X), clipped)  # the rows a model scores: no intercept column


def test_a_map_whose_output_is_converted_keeps_the_conversion() -> None:
    # a float32 output is converted (not copied by blocks): the same rows as the conversion then the clip
    class Single:
        norm_bound = 1.0

        def transform(self, X):
            return (np.asarray(X) * 1.5).astype(np.float32)

    X = rows(2_000)
    X[5] = 3.0  # not beyond float32's range
    mapped, count = RowMap(1.0, feature_map=Single(), fit_intercept=True).apply(X)
    clipped, expected_count = RowMap(1.0).clip(check_matrix(Single().transform(X)))
    np.testing.assert_array_equal(mapped[:, :-1], clipped)
    assert count == expected_count and np.all(mapped[:, -1] == 1.0)


@pytest.mark.parametrize("intercept", [True, False])
def test_row_major_rows_are_mapped_by_blocks_with_no_whole_output(monkeypatch, intercept: bool) -> None:
    # the map writes each block into the row map's buffer (transform_into): its transform is never called for
    # row-major rows, with an intercept column or without, and the rows are the whole map's, clipped, beside the
    # intercept column when there is one
    X = rows(30_001)
    clipped, expected_count = RowMap(1.0).clip(standardiser(1.5).transform(X))

    def refused(self, X):
        raise AssertionError("the whole map was made")

    monkeypatch.setattr(ColumnStandardiser, "transform", refused)
    mapped, count = RowMap(1.0, feature_map=standardiser(1.5), fit_intercept=intercept).apply(X)
    np.testing.assert_array_equal(mapped, np.column_stack([clipped, np.ones(len(X))]) if intercept else clipped)
    assert count == expected_count > 1000 and mapped.flags.c_contiguous and mapped.flags.owndata
    np.testing.assert_array_equal(RowMap(1.0, feature_map=standardiser(1.5)).features(X), clipped)


def test_rows_mapped_by_blocks_allocate_their_output_and_no_scratch_copy() -> None:
    # each block is mapped straight into its rows of the output, squared and clipped there: beside the output and
    # its rows' sums of squares, only the map's repeated centre and multiplier (two blocks of 2^16 values, 1 MB) and
    # a block's clipping vectors (indices, norms and factors of its 32,768 rows, under 2 MB); a block mapped into a
    # scratch array first (1.8 MB here) and then copied is over the bound (peak 11.5 MB against 9.6). A memmap
    # fit maps every block this way on every pass (docs/performance.md).
    X = rows(100_000)
    mapping = RowMap(1.0, feature_map=standardiser(1.5), fit_intercept=True)
    mapping.apply(X[:10])  # numpy's own first-call allocations
    tracemalloc.start()
    mapped, _ = mapping.apply(X)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < mapped.nbytes + 8 * len(X) + (1 << 20) + (1 << 21)


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # numpy's, in the map
@pytest.mark.parametrize("intercept", [True, False])
def test_a_map_output_beyond_the_float_range_is_refused_by_its_row_and_column(monkeypatch, intercept: bool) -> None:
    X = rows(20_000)
    X[15_000, 4] = 1e308  # finite, but not twice it
    row_map = RowMap(1.0, feature_map=ColumnStandardiser(np.zeros(D), np.full(D, 2.0), 1.0), fit_intercept=intercept)
    with pytest.raises(InputError, match=r"feature_map.transform\(X\).*row 15000, column 4"):
        row_map.apply(X)
    with pytest.raises(InputError, match=r"feature_map.transform\(X\).*row 15000, column 4"):
        row_map.features(X)
    monkeypatch.setattr("dpcvx.data.rows._COPY_ENTRIES", 1 << 14)  # blocks of 2,340 rows: row 15000 in the seventh
    with pytest.raises(InputError, match=r"feature_map.transform\(X\).*row 15000, column 4"):
        row_map.scores(X, np.ones(D))


@pytest.mark.parametrize("order", ["C", "F"])
def test_rows_of_another_width_are_refused_by_the_map(order: str) -> None:
    X = np.asarray(rows(100)[:, :D - 1], order=order)
    for call in (standardiser().transform, RowMap(1.0, feature_map=standardiser(), fit_intercept=True).apply,
                 RowMap(1.0, feature_map=standardiser()).features):
        with pytest.raises(InputError, match=f"maps rows of {D} columns, got shape \\(100, {D - 1}\\)"):
            call(X)


@pytest.mark.parametrize(("order", "mapped"), [("C", True), ("C", False), ("F", False)])
def test_scores_are_of_the_clipped_rows_read_once_with_no_whole_copy(monkeypatch, order: str, mapped: bool) -> None:
    # RowMap.scores maps, squares, clips and scores each block of rows in cache: scored against the identity
    # (each score one product by 1.0, exact) they are the clipped rows features() gives, bit for bit, and neither
    # the map's whole output nor a whole copy of the rows is made (column-major rows go through a map whole, as
    # features() and the fit map them)
    X = rows(30_001, order)
    row_map = RowMap(1.0, feature_map=standardiser(1.5) if mapped else None)
    clipped = row_map.features(X)
    assert RowMap(1.0).clip(X)[1] > 1000  # rows beyond R in every block

    def refused(*args, **kwargs):
        raise AssertionError("a whole copy was made")

    monkeypatch.setattr(ColumnStandardiser, "transform", refused)
    monkeypatch.setattr("dpcvx.data.rows._copied_with_squares", refused)
    monkeypatch.setattr("dpcvx.data.rows._COPY_ENTRIES", 1 << 14)  # blocks of 2,340 rows
    tracemalloc.start()
    scores = row_map.scores(X, np.eye(D))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_array_equal(scores, clipped)
    assert peak < scores.nbytes + X.nbytes / 2  # the scores, and a few blocks of rows (13 of them make X)
    coef = np.linspace(-1.0, 2.0, D)
    np.testing.assert_allclose(row_map.scores(X, coef), clipped @ coef, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("mapped", [True, False])
def test_scores_refuse_a_nan_by_its_row_and_column_past_the_first_block_and_another_width(monkeypatch,
                                                                                           mapped: bool) -> None:
    monkeypatch.setattr("dpcvx.data.rows._COPY_ENTRIES", 1 << 14)  # blocks of 2,340 rows
    X = rows(30_001)
    X[20_000, 3] = np.nan
    row_map = RowMap(1.0, feature_map=standardiser() if mapped else None)
    with pytest.raises(InputError, match=r"^X contains NaN.*row 20000, column 3"):
        row_map.scores(X, np.ones(D))
    after = " after the feature map" if mapped else ""  # said of a map's rows only
    with pytest.raises(InputError, match=f"^X has {D - 1} features{after}, but the model is expecting {D} features as "
                                         "input"):
        row_map.scores(rows(10)[:, 1:], np.ones(D))


def bounded(clip: float | None = 0.45) -> ColumnStandardiser:
    """:func:`standardiser` reading each row scaled onto ||x|| <= 1 first (``input_bound``: the map of private column
    statistics, whose chunks transform_into scales in one RowMap.clip each)."""
    plain = standardiser(clip)
    return ColumnStandardiser(plain.centre, plain.multiplier, 1.0, clip, input_bound=1.0)


def row_by_row(mapping: ColumnStandardiser, X: np.ndarray) -> np.ndarray:
    """The map of each row of X alone: the row (1 x D) scaled onto the input bound by RowMap.clip, then the formula."""
    out = np.empty(X.shape)
    for i in range(len(X)):
        row = RowMap(mapping.input_bound).clip(np.ascontiguousarray(X[i:i + 1]))[0]
        out[i] = (row - mapping.centre) * mapping.multiplier
    return out if mapping.clip is None else np.clip(out, -mapping.clip, mapping.clip)


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("clip", [0.45, None])
@pytest.mark.parametrize("sizes", [(None, None), (1 << 7, 1 << 9), (3 * D, 7 * D)])
def test_the_input_bound_map_by_chunks_is_each_row_mapped_alone(monkeypatch, order: str, clip: float | None,
                                                                  sizes: tuple[int | None, int | None]) -> None:
    # transform_into scales a chunk of rows onto the input bound at a time (their sums of squares taken where the
    # rows lie when each row is contiguous, else on the copy) and maps cache-sized blocks of it: whatever the sizes,
    # every value is that of its row mapped alone, bit for bit, the rows beyond the bound in every chunk among them.
    # A chunk whose rows were measured but not scaled, or scaled by another sum, fails here
    block, chunk = sizes
    if block is not None:
        monkeypatch.setattr("dpcvx.data.standardiser._BLOCK_VALUES", block)
        monkeypatch.setattr("dpcvx.data.standardiser._CLIP_VALUES", chunk)
    X = rows(3_001, order) * 1.4  # rows beyond the bound of 1 throughout, -0.0, tiny and huge entries (row 5)
    X[7] = 1e-170  # a sum of squares that underflows
    X[40:60] *= 1e-3  # a run of rows within the bound: a chunk may have none to scale
    mapping = bounded(clip)
    expected = row_by_row(mapping, X)
    with np.errstate(over="ignore"):
        assert np.count_nonzero(np.einsum("ij,ij->i", X, X) > 1.0) > 1000
    mapped = mapping.transform(X)
    np.testing.assert_array_equal(mapped, expected)
    assert np.array_equal(np.signbit(mapped), np.signbit(expected))
    wide = np.zeros((len(X), D + 1))  # rows with a stride, as the fit's copy beside the intercept column
    assert mapping.transform_into(np.ascontiguousarray(X), wide[:, :D]) is False  # row 5's sum overflowed
    np.testing.assert_array_equal(wide[:, :D], expected)
    assert np.all(wide[:, D] == 0.0)


def test_transform_into_says_when_it_found_the_rows_finite() -> None:
    # True only when every row's sum of squares was finite; a NaN, an infinity, or a sum that overflowed (1e200,
    # finite: the caller checks it entry by entry) give False; a map without an input bound takes no sums: False
    X = rows(50)[6:]  # no row of 1e200
    out = np.empty(X.shape)
    assert bounded().transform_into(X, out) is True
    assert standardiser().transform_into(X, out) is False
    for value in (np.nan, np.inf, 1e200):
        Y = X.copy()
        Y[20, 3] = value
        assert bounded().transform_into(Y, out) is False


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_scores_refuse_an_entry_the_bounded_map_clips_to_a_finite_value(monkeypatch, value: float) -> None:
    # the map clips an infinite entry onto its range: the scores still refuse it by its row and column, past the
    # first block; a finite row whose sum of squares overflows (row 5, 1e200) is scored, not refused
    monkeypatch.setattr("dpcvx.data.rows._COPY_ENTRIES", 1 << 14)  # blocks of 2,340 rows
    X = rows(30_001)
    row_map = RowMap(1.0, feature_map=bounded())
    scores = row_map.scores(X, np.eye(D))
    np.testing.assert_array_equal(scores, row_map.features(X))
    assert np.all(np.isfinite(scores))
    X[20_000, 3] = value
    with pytest.raises(InputError, match=r"^X contains NaN.*row 20000, column 3"):
        row_map.scores(X, np.ones(D))


def test_scores_read_rows_the_bounded_map_found_finite_once(monkeypatch) -> None:
    # the map's sums of squares say the rows are finite: the scores do not sum them again (one pass fewer)
    X = rows(30_001)[6:]
    row_map = RowMap(1.0, feature_map=bounded())
    expected = row_map.scores(X, np.eye(D))
    read = []

    def counted(block: np.ndarray) -> bool:
        read.append(block.shape)
        return bool(np.all(np.isfinite(block)))

    monkeypatch.setattr("dpcvx.data.rows._all_finite", counted)
    np.testing.assert_array_equal(row_map.scores(X, np.eye(D)), expected)
    assert read == []  # the mapped blocks' sums were finite too
