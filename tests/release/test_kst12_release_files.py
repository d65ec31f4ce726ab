"""Releases whose regularizer is not strongly convex (m = 0: an L1 term alone) save and load.

KST12 certifies them with the ridge Delta it adds; the certified m = 0 is a proved constant, not an
edit, so the loader must take it (it refused every such file: "m must be finite and positive").
"""

from __future__ import annotations

import json

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.release.records.header import DIGEST, file_digest


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * 1.01
    return X, np.where(X[:, 0] + 0.1 > 0, 1.0, -1.0)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_an_l1_only_release_saves_and_loads_and_an_edited_m_is_refused(rows, tmp_path, delta):
    X, y = rows
    erm = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), regularizer=lambda w: cp.norm1(w), lam=1e-2, data_norm=1.0)
    model = erm.fit(X, y, epsilon=1.0, delta=delta, mechanism="objective", random_state=0)
    assert model.certificate.constants["m"] == 0
    path = tmp_path / "l1.json"
    dpcvx.save(model, path)
    loaded = dpcvx.load(path)
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    for edited in (-1.0, float("nan")):
        saved = json.loads(path.read_text())
        saved["certificate"]["constants"]["m"]["float"] = edited
        if edited == edited:  # resealed: the check of m refuses it, not the digest (NaN is no JSON: the reader's)
            saved[DIGEST] = file_digest(saved)
        (tmp_path / "edited.json").write_text(json.dumps(saved))
        with pytest.raises(dpcvx.InputError):
            dpcvx.load(tmp_path / "edited.json")
