"""Edits of a current model file made with its ``sha256`` digest computed again (the digest has no key: anyone can
recompute it, docs/model-files.md), which the field checks alone must refuse."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.exceptions import FileError
from dpcvx.release.records.header import file_digest


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(3)
    X = rng.normal(0.0, 0.3, (400, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]  # rows inside R = 1
    return X, (X @ np.array([1.0, -1.0, 0.5]) > 0).astype(int), rng.integers(0, 3, 400)


def _saved(model, tmp_path) -> dict:
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    return json.loads(path.read_text())


def _load_edited(data: dict, tmp_path):
    data["sha256"] = file_digest(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dpcvx.load(path)


def _binary(rows):
    X, y, _ = rows
    return dpcvx.PrivateERM(losses.logistic(), lam=0.1, data_norm=1.0, classes=(0, 1)).fit(X, y, 1.0, "output",
                                                                                             random_state=0)


def _kernel(rows):
    X, y, _ = rows
    return dpcvx.TDDL("rbf", gamma=2.0, lam=0.1, loss=losses.logistic()).fit(X, 2 * y - 1, 1.0, Z=X[:10],
                                                                                random_state=0)


def _adassp(rows):
    X, y, _ = rows
    return dpcvx.DPLinearRegression(mechanism="adassp", label_bound=1.0, random_state=0).fit(X, y - 0.5).model_


@pytest.mark.parametrize("make", [_binary, _kernel, _adassp], ids=["linear", "kernel", "adassp"])
@pytest.mark.parametrize("edit", ["removed", "null"])
def test_a_removed_privacy_curve_is_refused(rows, tmp_path, make, edit):
    """Every file of every format version dpcvx reads (4 on) records its certificate's curve: none is optional."""
    data = _saved(make(rows), tmp_path)
    if edit == "removed":
        del data["certificate"]["privacy_curve"]
    else:
        data["certificate"]["privacy_curve"] = None
    with pytest.raises(FileError, match="privacy_curve"):
        _load_edited(data, tmp_path)
