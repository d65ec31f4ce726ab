"""The NOT PRIVATE least-squares comparison after a regression fit (training_rows.regression_share) gives the same
shares, and so the same finding, on a sparse X without making its rows dense.

It made every sparse block of rows dense and multiplied them as dense Gram matrices: on a sparse 50,000 x 1,900
DPLinearRegression fit (AdaSSP, 1.45 s) the note took 19 s more. A sparse view's products are now sparse, only the
columns it fills (the intercept column) taken out dense and centred. Checked against a straightforward reference
(every view made dense, centred at the first block's column means, the computation the note made before), on
dense, sparse and memmap tables, and by counting what is made dense.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import sparse

import dpcvx
from dpcvx.models import training_rows
from dpcvx.models.training_rows import kept_little, map_lost, regression_share


def _reference(model, X, y, label_range):
    """regression_share as a direct dense computation: (release R^2, least squares' adjusted R^2 on the mapped rows,
    on the rows as given), per label view, from Z = [rows - their first block's means, 1] made dense."""
    y = np.asarray(y, dtype=float)
    n = y.shape[0]
    predicted = np.asarray(model.predict(X), dtype=float).ravel()
    step = 256
    views = [model.rows.apply(X)[0], X]
    dense = [np.asarray(v.toarray() if sparse.issparse(v) else v, dtype=float) for v in views]
    adjusted = []
    for rows in dense:
        z = np.hstack([rows - rows[:step].mean(axis=0), np.ones((n, 1))])
        gram = z.T @ z
        scale = np.sqrt(np.diag(gram))
        used = scale > 0
        values, vectors = np.linalg.eigh(gram[np.ix_(used, used)] / np.outer(scale[used], scale[used]))
        kept = values > 1e-10 * values[-1]
        rank = int(kept.sum())
        per_range = []
        for r in [None, label_range]:
            labels = y if r is None else np.clip(y, *r)
            part = labels - labels.mean()
            projected = vectors[:, kept].T @ ((z.T @ part)[used] / scale[used])
            least = max(float(part @ part) - float(projected @ (projected / values[kept])), 0.0)
            per_range.append(1.0 - (least / (n - rank)) / (float(part @ part) / (n - 1)))
        adjusted.append(per_range)
    shares = []
    for index, r in enumerate([None, label_range]):
        labels = y if r is None else np.clip(y, *r)
        part = labels - labels.mean()
        release = 1.0 - float(np.sum((labels - predicted) ** 2)) / float(part @ part)
        shares.append((release, adjusted[0][index], adjusted[1][index]))
    return shares


def _table(kind, seed):
    rng = np.random.default_rng(seed)
    n, d = 3000, 40
    if kind == "dense":
        X = rng.normal(size=(n, d)) + 0.3
    elif kind == "skewed":  # a mostly-zero column the ranges clip, and a column far from 0
        X = rng.normal(size=(n, d))
        X[:, 0] = np.where(rng.random(n) < 0.05, rng.exponential(20.0, n), 0.0)
        X[:, 1] = 50.0 + 0.01 * rng.normal(size=n)
    else:
        density = {"sparse": 0.05, "sparse-filled": 0.02, "sparse-dense": 0.9}[kind]
        X = sparse.random(n, d, density=density, format="csr", random_state=seed).toarray()
        if kind == "sparse-filled":  # a column stored on every row, as an intercept column is
            X[:, 3] = 2.0 + 0.1 * rng.random(n)
            X[:, 4] = 7.0
    X = X / np.linalg.norm(X, axis=1).max()
    w = rng.normal(size=d)
    y = X @ w * 3.0 + rng.normal(0.0, 0.3 + 0.5 * (seed % 2), n)
    return X, y


# sparse X: DPLinearRegression only (its AdaSSP); dense and memmap: every regressor
FAMILY = ([(kind, seed, make) for kind in ("dense", "skewed") for seed in (1, 2) for make in ("default", "adassp",
                                                                                            "huber")]
          + [(kind, seed, "default") for kind in ("sparse", "sparse-filled", "sparse-dense") for seed in (1, 2)])


@pytest.mark.parametrize("kind,seed,make", FAMILY)
def test_the_shares_and_the_finding_are_those_of_the_dense_reference(kind, seed, make, tmp_path):
    X, y = _table(kind, seed)
    if kind.startswith("sparse"):
        X = sparse.csr_matrix(X)
    estimator = {"default": lambda: dpcvx.DPLinearRegression(epsilon=2.0, random_state=seed),
                 "adassp": lambda: dpcvx.DPLinearRegression(epsilon=2.0, mechanism="adassp", random_state=seed),
                 "huber": lambda: dpcvx.DPHuberRegressor(epsilon=2.0, random_state=seed)}[make]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.UnresolvedColumnWarning)
        estimator.fit(X, y)
        label_range = (float(np.min(y)) * 0.5, float(np.max(y)) * 0.5)
        shares = regression_share(estimator.model_, X, y, label_range)
        reference = _reference(estimator.model_, X, y, label_range)
        inputs = [X]
        if kind in ("dense", "skewed"):  # a memmap of the same rows, read a block at a time
            path = tmp_path / "rows.npy"
            np.save(path, X)
            inputs.append(np.load(path, mmap_mode="r"))
        for rows in inputs:
            got = regression_share(estimator.model_, rows, y, label_range) if rows is not X else shares
            assert got is not None
            np.testing.assert_allclose(np.array(got), np.array(reference), rtol=0, atol=1e-9)
            assert kept_little(got) == kept_little(reference)
            assert map_lost(got) == map_lost(reference)


def test_a_sparse_x_is_never_made_dense_row_by_row(monkeypatch):
    """Only d x d products and the columns a block fills (here the intercept column) are made dense, never a block
    of the rows at their full width."""
    X, y = _table("sparse", 3)
    X = sparse.csr_matrix(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        estimator = dpcvx.DPLinearRegression(epsilon=2.0, random_state=3).fit(X, y)
    shapes: list[tuple[int, int]] = []
    for kind in (sparse.csr_matrix, sparse.csc_matrix, sparse.coo_matrix):
        original = kind.toarray

        def recorded(self, *args, _original=original, **kwargs):
            shapes.append(self.shape)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(kind, "toarray", recorded)
    shares = regression_share(estimator.model_, X, y, (-1.0, 1.0))
    assert shares is not None
    d = X.shape[1]
    wide = [shape for shape in shapes if shape[1] >= d and shape[0] != shape[1]]
    assert not wide, wide


def test_a_sparse_block_s_products_equal_the_dense_block_s():
    """_add_products on a sparse block is Z^T Z and Z^T y' of the same block made dense, centred at the origin."""
    rng = np.random.default_rng(5)
    dense = sparse.random(500, 12, density=0.2, format="csr", random_state=5).toarray()
    dense[:, 2] = 3.0  # filled: centred
    block = sparse.csr_matrix(dense)
    origin = training_rows._origin(block)
    assert np.array_equal(np.flatnonzero(origin), [2])
    parts = [rng.normal(size=500), rng.normal(size=500)]
    gram, moments = np.zeros((13, 13)), [np.zeros(13), np.zeros(13)]
    training_rows._add_products(block, origin, parts, gram, moments)
    z = np.hstack([dense - origin, np.ones((500, 1))])
    np.testing.assert_allclose(gram, z.T @ z, rtol=1e-12, atol=1e-10)
    for part, moment in zip(parts, moments, strict=True):
        np.testing.assert_allclose(moment, z.T @ part, rtol=1e-12, atol=1e-10)


def test_a_view_the_same_as_another_is_decomposed_once(monkeypatch):
    """A sparse X none of whose rows the release's clip moved: its mapped view (the intercept column centred to 0,
    dropped) has the rows-as-given view's unit-diagonal matrix bit for bit, and the one eigh serves both."""
    X, y = _table("sparse", 4)
    X = sparse.csr_matrix(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        estimator = dpcvx.DPLinearRegression(epsilon=2.0, random_state=4).fit(X, y)
    assert estimator.model_.rows.apply(X)[1] == 0  # no row clipped
    reference = _reference(estimator.model_, X, y, (-1.0, 1.0))
    calls = []
    original = np.linalg.eigh

    def counted(matrix):
        calls.append(matrix.shape)
        return original(matrix)

    monkeypatch.setattr(np.linalg, "eigh", counted)
    shares = regression_share(estimator.model_, X, y, (-1.0, 1.0))
    assert len(calls) == 1
    np.testing.assert_allclose(np.array(shares), np.array(reference), rtol=0, atol=1e-9)
    assert shares[0][1] == shares[0][2] and shares[1][1] == shares[1][2]
