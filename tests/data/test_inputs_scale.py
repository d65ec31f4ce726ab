"""Inputs larger than memory (issue 20, item 1): numpy.memmap and Dask give the in-memory release.

Same data and seed: the released weights equal the in-memory release to solver tolerance (both
solves stop within the same public gradient bound; the blockwise Newton takes different steps).
Bad input is found lazily, with the global row index, before anything is charged."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx
from dpcvx.exceptions import ClippingWarning

da = pytest.importorskip("dask.array")

TOLERANCE = 1e-6


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(4)
    n, d = 10_000, 6  # n >= 4 x 2000: the blockwise Newton starts from subsampled Hessians
    X = rng.normal(size=(n, d))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1, -1)
    path = tmp_path_factory.mktemp("memmap") / "X.dat"
    memmap = np.memmap(path, dtype=np.float64, mode="w+", shape=(n, d))
    memmap[:] = X
    memmap.flush()
    return X, y, np.memmap(path, dtype=np.float64, mode="r", shape=(n, d))


def learner(**params):
    return dpcvx.PrivateERM(lam=1e-3, data_norm=3.0, fit_intercept=True, **params)


def release(X, y, **fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        return learner().fit(X, y, 1.0, random_state=0, **fit)


@pytest.mark.slow
@pytest.mark.parametrize("fit", [{}, {"mechanism": "output", "delta": 1e-6}, {"delta": 1e-6}])
def test_memmap_sparse_and_dask_inputs_give_the_in_memory_release(data, fit):
    X, y, memmap = data
    reference = release(X, y, **fit)
    for other in (memmap, sparse.csr_matrix(X), da.from_array(X, chunks=(2500, 6)),
                  da.from_array(X, chunks=(1000, 3))):
        model = release(other, y, **fit)
        assert np.max(np.abs(model.coef_ - reference.coef_)) < TOLERANCE
        assert model.certificate.calibration == reference.certificate.calibration
    memmap_copy = np.array(memmap)
    assert np.array_equal(memmap_copy, X)  # the user's file is never written to


@pytest.mark.slow  # 3 to 8 s (default run kept within 5 minutes); CI's slow tier runs it
def test_dask_dataframe_and_distributed_scheduler(data):
    dd = pytest.importorskip("dask.dataframe")
    distributed = pytest.importorskip("distributed")
    import pandas as pd

    X, y, _ = data
    reference = release(X, y)
    frame = dd.from_pandas(pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]), npartitions=4)
    assert np.max(np.abs(release(frame, y).coef_ - reference.coef_)) < TOLERANCE
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster):
        model = release(da.from_array(X, chunks=(2000, 6)), y)
    assert np.max(np.abs(model.coef_ - reference.coef_)) < TOLERANCE


def test_a_nan_in_a_chunk_is_reported_with_its_row_and_nothing_is_charged(data):
    X, y, _ = data
    bad = X.copy()
    bad[4321, 2] = np.nan
    accountant = dpcvx.PrivacyAccountant(5.0)
    with pytest.raises(dpcvx.InputError, match="row 4321, column 2"):
        learner().fit(da.from_array(bad, chunks=(1000, 6)), y, 1.0, accountant=accountant)
    assert accountant.ledger == []


def test_a_row_above_the_bound_with_clip_false_is_refused_lazily(data):
    X, y, memmap = data
    accountant = dpcvx.PrivacyAccountant(5.0)
    with pytest.raises(dpcvx.InputError, match="norm above data_norm"):
        dpcvx.PrivateERM(lam=1e-3, data_norm=1.0, clip=False).fit(memmap, y, 1.0, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.filterwarnings("ignore::dpcvx.ClippingWarning")
def test_mismatched_labels_and_unsupported_problems_are_refused(data):
    X, y, memmap = data
    with pytest.raises(dpcvx.InputError, match="labels"):
        learner().fit(memmap, y[:-1], 1.0)
    import cvxpy as cp

    with pytest.raises(dpcvx.InputError, match="blockwise Newton"):
        learner(constraints=lambda w: [cp.norm(w, 2) <= 1]).fit(memmap, y, 1.0)


def test_adassp_reads_a_memmap_by_blocks(data):
    from dpcvx.models.linear_regression import PrivateLinearRegression

    X, y, memmap = data
    targets = np.clip(X[:, 0] * 0.3, -1, 1)
    learner = PrivateLinearRegression(3.0, 1.0, fit_intercept=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        a = learner.fit(X, targets, 1.0, 1e-6, random_state=0)
        b = learner.fit(memmap, targets, 1.0, 1e-6, random_state=0)
    assert np.max(np.abs(a.coef_ - b.coef_)) < 1e-9


@pytest.mark.slow  # about 3 s
def test_random_fourier_features_are_computed_block_by_block(data):
    # the feature map widens each block (d -> D): the blockwise path must size its vectors by the map's output
    from dpcvx.data.kernels import RandomFourierFeatures

    X, y, memmap = data
    rff = RandomFourierFeatures("rbf", gamma=1.0, n_components=40, n_features=X.shape[1], random_state=0)
    learner = dpcvx.PrivateERM(lam=1e-3, feature_map=rff, fit_intercept=True)
    expected = learner.fit(X, y, 1.0, random_state=0).coef_
    for source in (memmap, da.from_array(X, chunks=(2500, X.shape[1]))):
        assert np.max(np.abs(learner.fit(source, y, 1.0, random_state=0).coef_ - expected)) < 1e-8
    assert expected.shape == (40,)
