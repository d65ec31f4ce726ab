"""A narrow CSR's Hessian by dense row blocks (:func:`dpcvx.solvers.objective._sparse_gram`): the matrix scipy's sparse
product gives, and the fit of the same rows held dense."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sparse

from benchmarks.speed_sweep import coded_data, sparse_data
from dpcvx import PrivateERM, losses
from dpcvx.solvers import objective


def _scipy_gram(X: sparse.csr_matrix, curvature: np.ndarray) -> np.ndarray:
    return np.asarray((X.T @ sparse.diags(curvature) @ X).todense())


def test_blocks_give_the_sparse_product():
    X, _ = coded_data(30_000, 8, seed=1)  # 24 columns, 8 entries a row: by blocks
    assert X.shape[1] <= objective.SPARSE_GRAM_WIDTH * X.nnz / X.shape[0]
    curvature = np.random.default_rng(2).uniform(0.0, 0.25, X.shape[0])
    H = objective._sparse_gram(X, curvature)
    np.testing.assert_allclose(H, _scipy_gram(X, curvature), rtol=1e-12, atol=1e-12 * np.abs(H).max())
    np.testing.assert_array_equal(H, H.T)


def test_entries_in_any_stored_order():
    X, _ = coded_data(30_000, 8, seed=3)
    indices, data = X.indices.reshape(-1, 8)[:, ::-1].copy(), X.data.reshape(-1, 8)[:, ::-1].copy()
    reversed_rows = sparse.csr_matrix((data.ravel(), indices.ravel(), X.indptr), shape=X.shape)
    curvature = np.random.default_rng(4).uniform(0.0, 0.25, X.shape[0])
    np.testing.assert_allclose(objective._sparse_gram(reversed_rows, curvature), _scipy_gram(X, curvature),
                               rtol=1e-12, atol=1e-12)


def test_wide_sparse_rows_keep_the_sparse_product(monkeypatch):
    X, _ = sparse_data(2_000, 300)  # 10 entries a row of 300 columns: blocks would be mostly zeros
    assert X.shape[1] > objective.SPARSE_GRAM_WIDTH * X.nnz / X.shape[0]
    monkeypatch.setattr(objective, "_gram_upper", lambda A: (_ for _ in ()).throw(AssertionError("blocks taken")))
    curvature = np.full(X.shape[0], 0.25)
    np.testing.assert_allclose(objective._sparse_gram(X, curvature), _scipy_gram(X, curvature), rtol=1e-12)


def test_a_narrow_csr_fits_as_its_dense_rows():
    X, y = coded_data(20_000, 8, seed=5)
    sparse_model = PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=6)
    dense_model = PrivateERM(losses.logistic(), lam=1e-4, data_norm=1.0).fit(X.toarray(), y, epsilon=1.0,
                                                                            random_state=6)
    np.testing.assert_allclose(sparse_model.coef_, dense_model.coef_, atol=1e-6)
