"""A Dask X is computed again on every pass: the values a release is fitted on must be the ones the validation pass
checked (dpcvx.data.blocks.chunk_fingerprint, SourceChangedError), and a refusal names the lowest-indexed failing
chunk whichever chunk's task ends first."""

from __future__ import annotations

import collections
import time
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.data.blocks import RowBlocks, chunk_fingerprint
from dpcvx.data.rows import NormBoundError, RowMap
from dpcvx.exceptions import (
    ClippingWarning,
    InputError,
    NoiseDominatesWarning,
    SourceChangedError,
    float_errors_ignored,
)

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")


@pytest.fixture(autouse=True)
def _threads():
    with dask.config.set(scheduler="threads"):
        yield


def _rows(seed: int = 8, n: int = 3000, d: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.01  # every row inside R = 1: nothing clipped
    return X, np.where(X @ rng.normal(size=d) > 0, 1, -1)


def _changing(X: np.ndarray, change, after: int = 1) -> tuple[object, collections.Counter]:
    """X in three chunks whose values are ``change(chunk)`` once each chunk was computed ``after`` times: a graph
    that is not deterministic (PrivateERM's validation pass computes each chunk once, the estimators' reads
    before it once more)."""
    seen: collections.Counter = collections.Counter()

    def source(block, block_info=None):
        where = block_info[0]["chunk-location"][0]
        seen[where] += 1
        out = np.array(block, dtype=float)
        return change(out) if seen[where] > after else out

    return da.from_array(X, chunks=(1000, X.shape[1])).map_blocks(source, dtype=float), seen


def _scaled(block: np.ndarray) -> np.ndarray:
    return block * 100.0  # rows of norm about 100 with R = 1


def _nan_last(block: np.ndarray) -> np.ndarray:
    block[-1, 0] = np.nan
    return block


def test_rows_changed_after_the_validation_are_not_fitted_unchecked():
    """PrivateERM's defaults (no intercept, no feature map, no row clipped) read the chunks as they are after the
    validation pass: a chunk that then computes rows of norm 100 with R = 1 is refused, never fitted (it was
    fitted silently, the certificate claiming ||x|| <= 1)."""
    X0, y = _rows()
    X, _ = _changing(X0, _scaled)
    accountant = dpcvx.PrivacyAccountant(10.0, 1e-3)
    with pytest.raises(SourceChangedError, match="persist"):
        dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0,
                                                                   accountant=accountant)
    assert accountant.spent.epsilon == 1.0  # charged before the solver's passes: the charge stands, conservatively


def test_mapped_rows_changed_after_the_validation_are_refused():
    """With the intercept column the chunks are mapped (and clipped) on every read: a change is refused too, not
    clipped into a fit of other rows than the ones checked."""
    X0, y = _rows()
    X, _ = _changing(X0, _scaled)
    with pytest.raises(SourceChangedError):
        dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0, fit_intercept=True).fit(X, y, epsilon=1.0,
                                                                                       random_state=0)


@pytest.mark.parametrize("make", [
    lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0, data_norm=5.0),
    lambda: dpcvx.DPHuberRegressor(epsilon=1.0, random_state=0, label_bound=(-2, 2), data_norm=5.0),
], ids=["logistic", "huber"])
def test_a_nan_appearing_after_the_validation_names_the_changed_source(make):
    """A NaN the validation pass never saw was a NonFiniteError after the charge, with no word of the cause: it is
    a SourceChangedError naming it (the values differ from those checked) and the fix."""
    X0, y = _rows(7)
    y = (y > 0).astype(int) if isinstance(make(), dpcvx.DPLogisticRegression) else np.clip(X0 @ np.ones(5), -1, 1)
    X, _ = _changing(X0, _nan_last, after=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)  # Dask X: the label is not located (docs/scale.md)
        with pytest.raises(SourceChangedError, match="same values on every pass"):
            make().fit(X, y)


def test_deterministic_dask_release_equals_the_in_memory_chunks_fit():
    """A Dask X that computes the same values on every pass fits as before: the fingerprints compare equal on
    every read, whatever the chunk's memory layout (Fortran-order chunks here)."""
    X0, y = _rows()
    X = da.from_array(np.asfortranarray(X0), chunks=(1000, 5))
    first = dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    again = dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    assert np.array_equal(np.asarray(first.coef_), np.asarray(again.coef_))


def test_fingerprint_is_exact_and_layout_free():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 7))
    print_ = chunk_fingerprint(X)
    assert chunk_fingerprint(np.asfortranarray(X)) == print_  # the same values: the same fingerprint
    assert chunk_fingerprint(X.copy()[::1]) == print_
    one = X.copy()
    one[499, 6] = np.nextafter(one[499, 6], np.inf)  # one bit of one entry
    swapped = X[[1, 0, *range(2, 500)]]  # two rows moved
    column = X[:, [1, 0, *range(2, 7)]]
    assert len({print_, chunk_fingerprint(one), chunk_fingerprint(swapped), chunk_fingerprint(column)}) == 4
    assert chunk_fingerprint(X.astype(np.float32)) != print_
    assert chunk_fingerprint(X.astype(np.float32)) == chunk_fingerprint(X.astype(np.float32, order="F"))


def _slow_first_chunk(X: np.ndarray, chunks: int = 1000):
    """X whose first chunk is computed last (its task sleeps): a refusal taken from the task that fails first came
    from a later chunk."""
    def source(block, block_info=None):
        if block_info[0]["chunk-location"][0] == 0:
            time.sleep(0.3)
        return np.array(block, dtype=float)

    return da.from_array(X, chunks=(chunks, X.shape[1])).map_blocks(source, dtype=float)


def test_a_refusal_names_the_lowest_failing_chunk():
    """With clip=False, rows beyond R in chunks 0 and 1: the refusal names row 5 (as a memmap or an array does),
    not the first row of whichever chunk's task failed first (row 1022, varying from run to run)."""
    X0, y = _rows()
    X0[5] *= 3.0
    X0[1022] *= 3.0
    X0[2500] *= 3.0
    with pytest.raises(NormBoundError) as refusal:
        dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0, clip=False).fit(_slow_first_chunk(X0), y,
                                                                               epsilon=1.0, random_state=0)
    assert refusal.value.row == 5


def test_a_norm_refusal_of_a_lower_chunk_comes_before_a_later_nan():
    """Which refusal a call gets does not depend on the tasks' timing: the lowest-indexed failing chunk's."""
    X0, y = _rows()
    X0[5] *= 3.0
    X0[2500, 1] = np.nan
    for _ in range(2):
        with pytest.raises(InputError) as refusal:
            dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0, clip=False).fit(_slow_first_chunk(X0), y,
                                                                                   epsilon=1.0, random_state=0)
        assert isinstance(refusal.value, NormBoundError) and refusal.value.row == 5


def test_clipped_rows_of_a_deterministic_source_fit_unchanged():
    """Rows clipped in the validation pass are clipped again on every read, and the reads compare equal."""
    X0, y = _rows()
    X0[:10] *= 4.0
    X = da.from_array(X0, chunks=(1000, 5))
    with pytest.warns(ClippingWarning):
        model = dpcvx.PrivateERM("logistic", lam=1e-2, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
    assert np.all(np.isfinite(np.asarray(model.coef_)))


def _stored(store: np.ndarray):
    """X read from ``store``, a buffer another writer may change during the call (a store written during the fit)."""
    def source(block, block_info=None):
        start, stop = block_info[0]["array-location"][0]
        return store[start:stop].copy()

    return da.from_array(store.copy(), chunks=(1000, store.shape[1])).map_blocks(source, dtype=float)


def test_the_fits_of_one_call_see_the_values_its_first_validation_checked():
    """A procedure that runs several fits (one-vs-rest classes, selection candidates) releases one result: a later
    fit's validation pass comparing other values than the first one's is refused, with the chunk named."""
    store, _ = _rows()
    X = _stored(store)

    @float_errors_ignored
    def two_fits() -> None:
        RowBlocks(X, RowMap(norm_bound=1.0)).validate(False)
        store[1500] *= 0.5
        RowBlocks(X, RowMap(norm_bound=1.0)).validate(False)

    with pytest.raises(SourceChangedError, match="rows 1000..1999"):
        two_fits()
    RowBlocks(X, RowMap(norm_bound=1.0)).validate(False)  # separate calls: each about the data set it read
    store[1500] *= 2.0
    RowBlocks(X, RowMap(norm_bound=1.0)).validate(False)
