"""A fit on a Dask array keeps every n-vector (labels, margins, curvatures) in per-chunk parts on the
workers: what the solver asks Dask to bring back is d numbers, d x d matrices, loss sums and the Hessian
subsample's rows, never a chunk's worth of margins. The release is the in-memory one."""

import numpy as np
import pytest

import dpcvx

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

N, D, CHUNK = 4_000, 6, 1_000


class Gathered:
    """Records the shapes of the arrays dask.compute returns to the client."""

    def __init__(self, compute):
        self.compute, self.shapes = compute, []

    def __call__(self, *args, **kwargs):
        results = self.compute(*args, **kwargs)
        self._record(results)
        return results

    def _record(self, value):
        if isinstance(value, np.ndarray):
            self.shapes.append(value.shape)
        elif isinstance(value, (tuple, list)):
            for item in value:
                self._record(item)

    def n_vectors(self):
        """Arrays of the length of a chunk or of all rows: a margins vector travelled."""
        return [shape for shape in self.shapes if any(size in (CHUNK, N) for size in shape)]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(N, D)) / 3
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # rows inside the public bound R = 1
    y = np.where(X @ rng.normal(size=D) + 0.3 * rng.normal(size=N) > 0, 1, -1)
    return X, y


@pytest.mark.slow  # about 4 s: the loss is verified once, then two fits
def test_a_dask_fit_never_brings_margins_to_the_client(data, monkeypatch):
    X, y = data
    learner = dpcvx.PrivateERM(lam=1e-3, data_norm=1.0)
    reference = learner.fit(X, y, 1.0, random_state=0)
    gathered = Gathered(dask.compute)
    monkeypatch.setattr(dask, "compute", gathered)
    model = learner.fit(da.from_array(X, chunks=(CHUNK, D)), y, 1.0, random_state=0)
    assert gathered.shapes, "the Dask fit computed nothing through dask.compute"
    assert gathered.n_vectors() == []
    assert np.max(np.abs(model.coef_ - reference.coef_)) < 1e-6


def test_the_recorder_sees_margins_gathered_the_old_way(data, monkeypatch):
    """The broken variant: margins brought back chunk by chunk (as each pass did before) are caught."""
    X, y = data
    gathered = Gathered(dask.compute)
    monkeypatch.setattr(dask, "compute", gathered)
    chunks = da.from_array(X, chunks=(CHUNK, D)).to_delayed().ravel()
    w = np.ones(D)
    dask.compute(*(dask.delayed(np.dot)(chunk, w) for chunk in chunks))
    assert gathered.n_vectors() == [(CHUNK,)] * 4
