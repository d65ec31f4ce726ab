"""The input checks read the data once (issue 32): the finite check comes from the row sums of squares.

A NaN or infinity is still refused first, with the row and column of the first one, in every layout
(column- and row-major arrays, CSR with sorted or unsorted indices and duplicates, memmap row blocks);
a huge finite entry is still accepted and its row clipped onto the bound; a CSR with duplicate entries
gets the norms of its canonical form; the caller's arrays are never written to.
"""

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx
import dpcvx.data.rows as rows_module
from dpcvx.data.blocks import RowBlocks
from dpcvx.data.rows import RowMap, _row_norms
from dpcvx.exceptions import InputError
from dpcvx.tables import NonFiniteError

N, D = 20, 5
NAN_MESSAGE = r"X contains NaN or infinite values \(or numbers beyond the float64 range\), first at row {}, column {}; "


def base_rows() -> np.ndarray:
    """N x D rows, every third above R = 1, one with an entry of 1e200 (its square overflows), no zero entry."""
    X = np.random.default_rng(0).uniform(0.1, 1.0, size=(N, D)) * np.where(np.arange(N) % 3 == 0, 2.0, 0.2)[:, None]
    X[5, 2] = 1e200
    return X


def inside_rows() -> np.ndarray:
    """N x D rows of norm below R = 1."""
    return np.random.default_rng(2).uniform(-0.4, 0.4, size=(N, D))


def true_norms(X: np.ndarray) -> np.ndarray:
    """Row norms computed independently of dpcvx: each row divided by its largest entry first."""
    peak = np.abs(X).max(axis=1)
    return peak * np.linalg.norm(X / peak[:, None], axis=1)


def unsorted_csr(X: np.ndarray) -> sparse.csr_matrix:
    """X as a CSR whose rows hold their entries in reverse column order, every finite entry v of an even
    column stored twice, as (2v, -v) (exact: 2v - v == v), so it is neither sorted nor free of duplicates."""
    data, indices, indptr = [], [], [0]
    for row in X:
        for j in np.flatnonzero(row)[::-1]:
            split = j % 2 == 0 and np.isfinite(row[j]) and abs(row[j]) < 1e300
            pieces = (2 * row[j], -row[j]) if split else (row[j],)
            data.extend(pieces)
            indices.extend([j] * len(pieces))
        indptr.append(len(data))
    matrix = sparse.csr_matrix((np.array(data), np.array(indices), np.array(indptr)), shape=X.shape)
    assert not matrix.has_sorted_indices and not matrix.has_canonical_format
    return matrix


def in_layout(X: np.ndarray, layout: str):
    if layout == "C":
        return np.ascontiguousarray(X)
    if layout == "F":
        return np.asfortranarray(X)
    if layout == "csr":
        return sparse.csr_matrix(X)
    if layout == "csr unsorted with duplicates":
        return unsorted_csr(X)
    raise AssertionError(layout)


LAYOUTS = ["C", "F", "csr", "csr unsorted with duplicates"]
POSITIONS = [(0, 0), (0, D - 1), (5, 2), (7, 3), (N - 1, 0), (N - 1, D - 1)]


def memmap_of(X: np.ndarray, tmp_path) -> np.memmap:
    path = tmp_path / "X.dat"
    memmap = np.memmap(path, dtype=np.float64, mode="w+", shape=X.shape)
    memmap[:] = X
    memmap.flush()
    return np.memmap(path, dtype=np.float64, mode="r", shape=X.shape)


def with_non_finite(value: float, position: tuple[int, int]) -> np.ndarray:
    """base_rows with ``value`` at ``position`` and a NaN in a later row (the first one must be named)."""
    X = base_rows()
    X[position] = value
    if position[0] < N - 1:
        X[N - 1, (position[1] + 1) % D] = np.nan
    return X


def learner(**params) -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1e-2, data_norm=1.0, **params)


LABELS = np.where(np.arange(N) % 2 == 0, 1.0, -1.0)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_non_finite_entry_is_refused_first_naming_its_row_and_column(layout, position, value):
    X = in_layout(with_non_finite(value, position), layout)
    message = NAN_MESSAGE.format(*position)
    with pytest.raises(InputError, match=message):
        RowMap(1.0).apply(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ClippingWarning (rows are above R) before the refusal
        for clip in (True, False):  # nor the refusal of rows above R with clip=False
            with pytest.raises(InputError, match=message):
                learner(clip=clip).fit(X, LABELS, 1.0, random_state=0)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("position", POSITIONS)
def test_a_non_finite_entry_of_a_memmap_is_named_by_its_row_in_the_whole_input(tmp_path, position, value):
    memmap = memmap_of(with_non_finite(value, position), tmp_path)
    for block_rows in (3, 8, N):
        with pytest.raises(NonFiniteError, match="^" + NAN_MESSAGE.format(*position)) as caught:
            RowBlocks(memmap, RowMap(1.0), block_rows=block_rows).validate(refuse=False)
        assert (caught.value.name, caught.value.row, caught.value.column) == ("X", *position)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(NonFiniteError, match="^" + NAN_MESSAGE.format(*position)):
            learner().fit(memmap, LABELS, 1.0, random_state=0)


def test_a_non_finite_entry_is_one_refusal_whatever_the_form_of_x(tmp_path):
    """The one standard (session 62, probeR F3): an ndarray, a CSR, a memmap and a Dask X with the same NaN get the
    same class (NonFiniteError, which a caller catches) and the same words; a memmap or Dask X got a plain
    InputError in shorter words."""
    da = pytest.importorskip("dask.array")
    X = base_rows()
    X[13, 1] = np.nan  # the only one: Dask checks its chunks in parallel tasks
    texts = set()
    for form in (X, sparse.csr_matrix(X), memmap_of(X, tmp_path), da.from_array(X, chunks=(6, D))):
        with pytest.raises(NonFiniteError) as caught:
            learner().fit(form, LABELS, 1.0, random_state=0)
        texts.add(str(caught.value))
    assert len(texts) == 1, texts


def test_a_non_finite_entry_of_a_dask_chunk_is_named_by_its_row_in_the_whole_input():
    da = pytest.importorskip("dask.array")
    X = base_rows()
    X[13, 1] = np.inf  # the only one: the chunks are checked in parallel tasks, the first to fail reports
    with pytest.raises(NonFiniteError, match="^" + NAN_MESSAGE.format(13, 1)):
        learner().fit(da.from_array(X, chunks=(6, D)), LABELS, 1.0, random_state=0)


class NaNForLargeFirstFeature:
    """A feature map whose output is NaN where the first feature exceeds 1: its own error, within its block."""

    norm_bound = 10.0

    def transform(self, X):
        out = np.array(X, dtype=float)
        out[out[:, 0] > 1.0] = np.nan
        return out


def test_a_non_finite_feature_map_output_in_a_block_is_named_by_its_row_in_the_whole_input(tmp_path):
    X = np.full((N, D), 0.1)
    X[11, 0] = 2.0
    rows = RowMap(10.0, feature_map=NaNForLargeFirstFeature())
    expected = "^" + NAN_MESSAGE.replace("X contains", r"feature_map\.transform\(X\) contains").format(11, 0)
    with pytest.raises(NonFiniteError, match=expected):
        RowBlocks(memmap_of(X, tmp_path), rows, block_rows=8).validate(refuse=False)


def test_the_non_finite_error_keeps_its_position_when_pickled():
    with pytest.raises(NonFiniteError) as caught:
        RowMap(1.0).apply(with_non_finite(np.nan, (7, 2)))
    error = pickle.loads(pickle.dumps(caught.value))
    assert isinstance(error, InputError) and (error.name, error.row, error.column) == ("X", 7, 2)
    assert str(error) == str(caught.value)


def test_duplicates_that_overflow_only_when_summed_are_refused():
    X = sparse.csr_matrix((np.array([1e308, 1e308, 0.5]), np.array([1, 1, 0]), np.array([0, 2, 3])), shape=(2, 2))
    with pytest.raises(InputError, match=NAN_MESSAGE.format(0, 1)):
        RowMap(1.0).apply(X)


@pytest.mark.parametrize("layout", [*LAYOUTS, "memmap"])
def test_an_entry_of_1e200_is_accepted_and_its_row_clipped_onto_the_bound(tmp_path, layout):
    expected = base_rows()
    X = memmap_of(expected, tmp_path) if layout == "memmap" else in_layout(expected, layout)
    if layout == "memmap":
        blocks = RowBlocks(X, RowMap(1.0), block_rows=4)
        clipped = blocks.validate(refuse=False)
        out = np.vstack([block for _, block, _ in blocks.blocks()])
    else:
        out, clipped = RowMap(1.0).apply(X)
        out = out.toarray() if sparse.issparse(out) else out
    norms, beyond = np.linalg.norm(out, axis=1), true_norms(expected) > 1.0
    assert np.all(np.isfinite(out)) and np.all(norms <= 1.0) and np.all(norms[beyond] > 1.0 - 1e-12)
    assert clipped == np.count_nonzero(beyond) == 8 and beyond[5]  # every third row, and row 5
    np.testing.assert_allclose(out[5], expected[5] / 1e200 / np.linalg.norm(expected[5] / 1e200), rtol=1e-12)
    np.testing.assert_array_equal(out[~beyond], expected[~beyond])


@pytest.mark.parametrize("scale", [1.0, 1e200, 1e-200])
def test_a_csr_with_duplicates_and_unsorted_indices_is_read_as_its_canonical_form(scale):
    X = base_rows()
    X[5, 2] = X[5, 0]  # no entry beyond the float range once scaled
    X[2] = 0.0  # an empty row
    X *= scale  # 1e200: the squares overflow, 1e-200: they underflow (both: the rescaled norms)
    canonical, messy = sparse.csr_matrix(X), unsorted_csr(X)
    np.testing.assert_array_equal(_row_norms(messy), _row_norms(canonical))
    for R in (1.0 * scale, 0.3 * scale):
        out, count = RowMap(R).apply(messy)
        reference, reference_count = RowMap(R).apply(canonical)
        assert out.has_canonical_format and count == reference_count > 0
        np.testing.assert_array_equal(out.toarray(), reference.toarray())
        assert np.all(true_norms(out.toarray()[[0, 3, 6]]) <= R)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_callers_arrays_are_unchanged_by_fit(layout):
    X = in_layout(base_rows(), layout)  # rows above R: clipped on dpcvx's copy
    arrays = [X.data, X.indices, X.indptr] if sparse.issparse(X) else [X]
    before = [(a.tobytes(order="A"), a.flags.c_contiguous, a.flags.f_contiguous) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.ClippingWarning)
        learner().fit(X, LABELS, 1.0, random_state=0)
    assert [(a.tobytes(order="A"), a.flags.c_contiguous, a.flags.f_contiguous) for a in arrays] == before


@pytest.mark.parametrize("rows_per_group", [1, 3, 4, 1 << 18])
def test_csr_row_squares_with_empty_rows_and_rows_longer_than_the_buffer(monkeypatch, rows_per_group):
    monkeypatch.setattr(rows_module, "_SQUARED_ENTRIES", rows_per_group)
    X = np.zeros((9, 6))
    X[1] = [1, 2, 3, 4, 5, 6]  # longer than a small buffer
    X[4, 2] = 3.0
    X[6, [0, 5]] = [-2.0, 7.0]
    for matrix in (X, X[1:8], X[:1], np.zeros((3, 4))):  # leading, middle and trailing empty rows; no entries
        np.testing.assert_array_equal(rows_module._row_squares(sparse.csr_matrix(matrix)), np.sum(matrix**2, axis=1))


class Reads:
    """Counts the calls of numpy's whole-array functions that read every entry of ``target``."""

    NAMES = ("einsum", "sum", "isfinite", "all", "square", "abs", "max", "multiply", "argwhere")

    def __init__(self, monkeypatch, target: np.ndarray) -> None:
        self.target, self.calls = target, []
        for name in self.NAMES:
            monkeypatch.setattr(np, name, self._counted(name, getattr(np, name)))

    def _counted(self, name, function):
        def counted(*args, **kwargs):
            self.calls += [name for a in args if isinstance(a, np.ndarray) and a.ndim == 2
                           and np.may_share_memory(a, self.target)][:1]
            return function(*args, **kwargs)
        return counted


@pytest.mark.parametrize("layout", ["C", "F"])
def test_a_dense_input_is_read_once_by_the_checks(monkeypatch, layout):
    X = in_layout(inside_rows(), layout)
    reads = Reads(monkeypatch, X)
    out, count = RowMap(1.0).apply(X)
    assert out is X and count == 0
    assert reads.calls == ["einsum"]


@pytest.mark.parametrize("layout", ["C", "F"])
def test_rows_copied_beside_the_intercept_column_are_refused_by_their_total_count(monkeypatch, layout):
    """clip=False with an intercept column: the rows are clipped block by block as they are copied, and the
    refusal counts the rows beyond R in all blocks (the same error as without blocks), from X's own norms."""
    X = in_layout(base_rows(), layout)
    monkeypatch.setattr(rows_module, "_COPY_ROWS", 6)
    monkeypatch.setattr(rows_module, "_COPY_ENTRIES", 1)
    expected = int(np.sum(true_norms(X) > 1))
    with pytest.raises(InputError, match=f"^{expected} rows have norm above data_norm=1;"):
        RowMap(1.0, fit_intercept=True).apply(X, refuse=True)
    np.testing.assert_array_equal(X, base_rows())  # the caller's rows unchanged


@pytest.mark.parametrize("layout", ["C", "F"])
def test_an_input_copied_beside_the_intercept_column_is_read_once_by_the_checks(monkeypatch, layout):
    """With an intercept the rows are copied into a wider array: each block's squares come from the block just
    copied (issue 44), where the sums of squares of the whole X and then the copy read X twice."""
    X = in_layout(base_rows(), layout)
    monkeypatch.setattr(rows_module, "_COPY_ROWS", 6)
    monkeypatch.setattr(rows_module, "_COPY_ENTRIES", 1)  # blocks of _COPY_ROWS rows
    monkeypatch.setattr(rows_module, "_row_squares", lambda matrix: pytest.fail("a second read of X"))
    read = []
    einsum = np.einsum
    monkeypatch.setattr(np, "einsum", lambda spec, *arrays, **kwargs: (
        read.extend(a.shape[0] for a in arrays[:1] if np.may_share_memory(a, X)), einsum(spec, *arrays, **kwargs))[1])
    clipped_blocks = []
    clip = RowMap.clip
    monkeypatch.setattr(RowMap, "clip", lambda self, block, *args, **kwargs: (
        clipped_blocks.append(block.shape[0]), clip(self, block, *args, **kwargs))[1])
    out, count = RowMap(1.0, fit_intercept=True, intercept_scaling=0.5).apply(X)
    assert read == [6, 6, 6, 2]  # each row once, a block at a time
    assert clipped_blocks == [6, 6, 6, 2]  # each block clipped just after its copy, not the whole copy again
    assert out.flags.c_contiguous and count == sum(true_norms(X) > 1)
    inside = true_norms(X) <= 1
    np.testing.assert_array_equal(out[inside, :-1], X[inside])  # rows inside R copied as they are
    np.testing.assert_allclose(true_norms(out[~inside, :-1]), 1.0, rtol=1e-12)  # the others clipped onto R
    assert np.all(out[:, -1] == 0.5)


def test_each_row_block_is_read_once_by_the_validation_pass(monkeypatch, tmp_path):
    memmap = memmap_of(inside_rows(), tmp_path)
    blocks = RowBlocks(memmap, RowMap(1.0), block_rows=6)
    reads = Reads(monkeypatch, memmap)
    assert blocks.validate(refuse=False) == 0
    assert reads.calls == ["einsum"] * 4


def test_an_unsorted_csr_is_read_in_place_and_checked_on_a_copy_of_its_indices_alone():
    """No copy of the data: beside the caller's arrays only the repeat check's sorted indices (4 bytes and
    a byte of dummy data an entry), n-vectors and a cache-sized buffer; the caller's arrays unchanged."""
    rng = np.random.default_rng(1)
    n, d, per_row = 50_000, 10_000, 20
    indices = np.stack([rng.choice(d, per_row, replace=False) for _ in range(200)])[rng.integers(0, 200, n)]
    X = sparse.csr_matrix((rng.uniform(0.01, 0.05, n * per_row), indices.ravel(),
                           np.arange(0, n * per_row + 1, per_row)), shape=(n, d))
    assert not X.has_sorted_indices
    before = [a.copy() for a in (X.data, X.indices, X.indptr)]
    copy_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    tracemalloc.start()
    try:
        out, count = RowMap(1.0).apply(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 0 and np.shares_memory(out.data, X.data) and np.shares_memory(out.indices, X.indices)
    assert peak < 0.5 * copy_bytes, (peak, copy_bytes)
    for kept, now in zip(before, (X.data, X.indices, X.indptr), strict=True):
        np.testing.assert_array_equal(kept, now)
        assert now.flags.writeable


def test_an_unsorted_csr_without_duplicates_is_read_as_it_is():
    """Its entries stay in the caller's order (a CSR product sums a row in any order): the mapped rows and
    the counts are the canonical form's, the clipped rows too, to rounding."""
    X = base_rows()
    canonical = sparse.csr_matrix(X)
    bounds = zip(canonical.indptr[:-1], canonical.indptr[1:], strict=True)
    order = np.concatenate([np.arange(a, b)[::-1] for a, b in bounds])  # each row's entries reversed
    messy = sparse.csr_matrix((canonical.data[order], canonical.indices[order], canonical.indptr), shape=X.shape)
    assert not messy.has_sorted_indices
    out, count = RowMap(1e201).apply(messy)  # no row beyond R (one entry is 1e200)
    assert count == 0 and np.shares_memory(out.data, messy.data) and not out.has_sorted_indices
    np.testing.assert_array_equal(out.indices, messy.indices)
    for R in (1e201, 1.0):
        out, count = RowMap(R).apply(messy)
        reference, reference_count = RowMap(R).apply(canonical)
        assert count == reference_count
        # a row's sum of squares in another order: the clipping factors agree to rounding
        np.testing.assert_allclose(out.toarray(), reference.toarray(), rtol=1e-15)
        assert np.all(true_norms(out.toarray()) <= R)
    assert count > 0 and not np.shares_memory(out.data, messy.data)  # the clipped rows: dpcvx's copy


def test_a_canonical_float64_csr_is_read_in_place_and_a_lying_flag_is_not_believed():
    """A canonical float64 CSR is not copied (the mapped rows share its arrays: no 12 bytes per entry of
    copy); an unsorted one with duplicates whose caller set has_canonical_format = True is still summed
    (the flag is checked afresh on dpcvx's own CSR object), and the caller's arrays stay as they were."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 6)) * (rng.random((30, 6)) < 0.5)  # rows well inside the bound: nothing clipped
    canonical = sparse.csr_matrix(X)
    out, _ = RowMap(1e9).apply(canonical)
    assert np.shares_memory(out.data, canonical.data) and np.shares_memory(out.indices, canonical.indices)
    messy = unsorted_csr(X)
    arrays = [a.copy() for a in (messy.data, messy.indices, messy.indptr)]
    messy.has_canonical_format = True  # false: unsorted, with a repeated entry
    out, _ = RowMap(1e9).apply(messy)
    assert not np.shares_memory(out.data, messy.data) and out.has_canonical_format
    np.testing.assert_array_equal(out.toarray(), canonical.toarray())
    for before, after in zip(arrays, (messy.data, messy.indices, messy.indptr), strict=True):
        np.testing.assert_array_equal(before, after)
    # check_matrix (predict's input check) shares a float64 CSR's arrays through read-only views, in any form:
    # scipy's in-place canonicalisation of the result raises instead of rewriting the caller's arrays
    from dpcvx.validation import check_matrix

    assert np.shares_memory(check_matrix(canonical).data, canonical.data)
    checked = check_matrix(messy)
    assert np.shares_memory(checked.indices, messy.indices)
    for rewrite in (checked.sum_duplicates, checked.sort_indices, check_matrix(canonical).eliminate_zeros):
        with pytest.raises(ValueError):
            rewrite()
    for before, after in zip(arrays, (messy.data, messy.indices, messy.indptr), strict=True):
        np.testing.assert_array_equal(before, after)
        assert after.flags.writeable


class InPlaceDoubling:
    """A feature map that writes to its input (the broken kind): x -> 2 x in place."""

    norm_bound = 2.0

    def transform(self, X):
        if sparse.issparse(X):
            X.data *= 2.0
        else:
            X *= 2.0
        return X


class Doubling(InPlaceDoubling):
    """The same map, returning new arrays."""

    def transform(self, X):
        return X * 2.0


@pytest.mark.parametrize("layout", [*LAYOUTS, "csr unsorted"])
def test_a_feature_map_reads_the_rows_read_only_and_one_that_writes_is_refused(layout):
    X = in_layout(inside_rows(), "csr" if layout == "csr unsorted" else layout)
    if layout == "csr unsorted":  # each row's entries reversed, no repeat: read in place
        order = np.concatenate([np.arange(a, b)[::-1] for a, b in zip(X.indptr[:-1], X.indptr[1:], strict=True)])
        X = sparse.csr_matrix((X.data[order], X.indices[order], X.indptr), shape=X.shape)
    arrays = [X.data, X.indices, X.indptr] if sparse.issparse(X) else [X]
    before = [a.copy() for a in arrays]
    with pytest.raises(InputError, match="wrote to its input"):
        RowMap(2.0, feature_map=InPlaceDoubling()).apply(X)
    with pytest.raises(InputError, match="wrote to its input"):
        RowMap(2.0, feature_map=InPlaceDoubling()).features(X)
    for kept, now in zip(before, arrays, strict=True):
        np.testing.assert_array_equal(kept, now)
        assert now.flags.writeable
    out, count = RowMap(2.0, feature_map=Doubling()).apply(X)
    dense = X.toarray() if sparse.issparse(X) else X
    assert count == 0
    np.testing.assert_allclose(out.toarray() if sparse.issparse(out) else out, 2.0 * dense, rtol=1e-15)


@pytest.mark.parametrize("csr", [False, True])
def test_rows_whose_squares_underflow_are_measured_only_below_a_tiny_bound(monkeypatch, csr):
    """A row whose plain sum of squares is below _SQ_LOW (zero rows, entries whose squares underflow) has norm below
    _WITHIN_ANY_R: from that R on it is within R unmeasured (a third of the rows zero were each gathered and
    measured); below it, it is measured, and clipped exactly when its norm exceeds R."""
    d = 6
    X = np.zeros((12, d))
    X[3] = 1e-170  # each square underflows to 0
    X[4, 0] = 10 ** -140.5  # a square just below _SQ_LOW: norm 3.2e-141
    X[5] = np.sqrt(0.99e-280 / d)  # a sum just below _SQ_LOW, spread over d entries: norm 1e-140
    X[6:] = np.random.default_rng(5).normal(size=(6, d)) / 10  # ordinary rows inside R = 1
    squares = np.einsum("ij,ij->i", X, X)
    low = np.flatnonzero(squares < rows_module._SQ_LOW)
    assert low.tolist() == [0, 1, 2, 3, 4, 5]
    assert np.all(true_norms(X[3:6]) < rows_module._WITHIN_ANY_R)  # (rows 0 to 2 are zero)
    measured = []
    scales = rows_module._row_scales

    def spy(matrix, squares=None, rows=None):
        measured.append(np.array(rows))
        return scales(matrix, squares, rows)

    monkeypatch.setattr(rows_module, "_row_scales", spy)
    source = sparse.csr_matrix(X) if csr else X
    for R, beyond in ((1.0, []), (rows_module._WITHIN_ANY_R, list(range(6, 12)))):  # the ordinary rows beyond
        out, count = RowMap(R).apply(source)
        assert count == len(beyond) and measured.pop().tolist() == beyond  # no low row measured
        np.testing.assert_array_equal((out.toarray() if csr else out)[:6], X[:6])
    R = 5e-141  # below _WITHIN_ANY_R: the low rows are measured, and row 5 clipped onto R with the ordinary ones
    out, count = RowMap(R).apply(source)
    out = out.toarray() if csr else out
    assert set(low) <= set(measured.pop().tolist()) and count == 7
    norms = true_norms(out[5:])
    assert np.all(norms <= R) and np.all(norms > R * (1 - 1e-9))
    np.testing.assert_array_equal(out[:5], X[:5])


@pytest.mark.parametrize("source", ["float32", "int64", "columns", "float32 F", "columns F"])
def test_a_converted_array_keeps_the_order_its_rows_are_stored_in(source):
    """An array dpcvx must convert (another dtype, or a view that is not contiguous) becomes a float64 copy in the
    order of the source: row-major from row-major rows (read by row blocks; the copy cast in storage order, where a
    column-major one wrote it strided), column-major from a column-major array; the values exact, the caller's
    array unchanged."""
    from dpcvx.validation import check_matrix

    base = np.random.default_rng(4).integers(-4, 5, size=(3000, 7)).astype(float) / 4
    made = {"float32": lambda: base.astype(np.float32), "int64": lambda: (base * 4).astype(np.int64),
            "columns": lambda: np.repeat(base, 2, axis=1)[:, ::2],
            "float32 F": lambda: np.asfortranarray(base, dtype=np.float32),
            "columns F": lambda: np.asfortranarray(np.repeat(base, 2, axis=1))[:, ::2]}
    X = made[source]()
    before = X.copy()
    out = check_matrix(X)
    assert out.dtype == np.float64 and not np.may_share_memory(out, X)
    np.testing.assert_array_equal(out, np.asarray(X, dtype=np.float64))
    assert out.flags.f_contiguous if source.endswith(" F") else out.flags.c_contiguous
    np.testing.assert_array_equal(X, before)


def test_a_pandas_frame_of_plain_numbers_is_read_at_once(monkeypatch):
    """A DataFrame of numpy booleans, integers and floats is read as one float64 matrix, the values the column-by-column
    read gives, with no column read alone (pandas's indexing cost about 150 us a column: 0.16 s at 20,000 x 1,000).
    It may be the frame's own memory: it is not new, so a clipped row is copied and the frame never written; a
    strided view of it is converted as any array is, into a contiguous copy. A NaN is named by its row and column
    name as before."""
    pd = pytest.importorskip("pandas")
    import dpcvx.tables as tables_module
    from dpcvx.validation import _checked_matrix

    rng = np.random.default_rng(6)
    mixed = pd.DataFrame({"f": rng.normal(size=500), "g": rng.normal(size=500).astype(np.float32),
                          "i": rng.integers(-3, 4, 500), "u": rng.integers(0, 9, 500).astype(np.uint8),
                          "b": rng.random(500) < 0.5})
    floats = pd.DataFrame(rng.normal(size=(500, 4)), columns=list("pqrs"))
    read = _recorded_columns(monkeypatch, tables_module)
    for frame in (mixed, floats):
        before = frame.copy()
        expected = np.column_stack([np.asarray(frame[name], dtype=np.float64) for name in frame.columns])
        out, fresh = _checked_matrix(frame)
        assert read == [] and out.dtype == np.float64 and not fresh
        np.testing.assert_array_equal(out, expected)
        clipped, count = RowMap(0.5).apply(frame)  # rows beyond R: clipped in a copy
        assert count > 0 and np.all(np.linalg.norm(clipped, axis=1) <= 0.5)
        pd.testing.assert_frame_equal(frame, before)
    for view in (floats.iloc[::2], floats.iloc[:, ::2]):  # pandas gives a strided view of the frame's memory
        out, fresh = _checked_matrix(view)
        assert (out.flags.c_contiguous or out.flags.f_contiguous) and fresh and not np.shares_memory(out, floats)
        np.testing.assert_array_equal(out, np.asarray(view, dtype=np.float64))
    assert read == []
    floats.loc[7, "r"] = np.nan
    with pytest.raises(InputError, match=r"row 7, column 'r'"):
        _checked_matrix(floats)


def _recorded_columns(monkeypatch, module):
    """The column indices ``module.column_values`` is asked for, in order."""
    asked, original = [], module.column_values

    def column_values(table, index):
        asked.append(index)
        return original(table, index)

    monkeypatch.setattr(module, "column_values", column_values)
    return asked
