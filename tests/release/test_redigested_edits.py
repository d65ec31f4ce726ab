"""Edits of a current model file made with its ``sha256`` digest computed again (the digest has no key: anyone can
recompute it, docs/model-files.md), which the field checks alone must refuse."""

from __future__ import annotations

import json

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


@pytest.fixture(scope="module")
def multiclass(rows):
    X, _, y3 = rows
    return dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(losses.logistic(), lam=0.1, data_norm=1.0),
                                      (0, 1, 2)).fit(X, y3, 1.0, "objective", random_state=0)


@pytest.mark.parametrize("factor", [1 + 1e-12, 1 + 1e-10, 1 - 5e-10])
def test_a_multiclass_epsilon_is_compared_exactly(multiclass, tmp_path, factor):
    """The budget split by basic composition is exact arithmetic (epsilon / k rounded down): an epsilon within 1e-9
    of the written one is an edit, as a binary file's copy is."""
    data = _saved(multiclass, tmp_path)
    data["epsilon"] *= factor
    with pytest.raises(FileError, match="budget split"):
        _load_edited(data, tmp_path)


@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1e-6])
def test_a_delta_on_a_pure_multiclass_file_is_refused(multiclass, tmp_path, delta):
    """delta / k of a subnormal delta rounds to the entries' 0: the file's delta is refused on a pure release."""
    data = _saved(multiclass, tmp_path)
    data["delta"] = delta
    with pytest.raises(FileError, match="pure epsilon-DP"):
        _load_edited(data, tmp_path)


def test_a_written_multiclass_file_loads(multiclass, tmp_path):
    loaded = _load_edited(_saved(multiclass, tmp_path), tmp_path)
    assert loaded.epsilon == multiclass.certificate.epsilon and loaded.delta == 0.0


def test_a_negative_zero_delta_reads_as_zero(rows, tmp_path):
    """-0.0 is read as 0.0 by the reader's one number check: the certificate states delta = 0, never -0."""
    data = _saved(_binary(rows), tmp_path)
    data["delta"] = data["certificate"]["delta"] = -0.0
    loaded = _load_edited(data, tmp_path)
    assert np.copysign(1.0, loaded.certificate.delta) == 1.0
    assert "delta = -0" not in str(loaded.certificate) and "delta = 0" in str(loaded.certificate)


def test_an_edited_epsilon_of_a_ranged_regression_names_epsilon(tmp_path):
    """The range search's level reads epsilon, delta, the columns and n: a refusal names them all, not n alone."""
    rng = np.random.default_rng(5)
    X = rng.normal(0.0, 0.2, (600, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    model = dpcvx.DPLinearRegression(random_state=0).fit(X, np.clip(X @ np.array([1.0, 0.5, -1.0]), -1, 1)).model_
    data = _saved(model, tmp_path)
    data["certificate"]["epsilon"] = data["epsilon"] = data["certificate"]["epsilon"] / 2
    with pytest.raises(FileError, match="certificate.epsilon"):
        _load_edited(data, tmp_path)


def test_a_null_release_grid_is_named(rows, tmp_path):
    data = _saved(_binary(rows), tmp_path)
    assert "release_grid" in data["certificate"]["calibration"]
    data["certificate"]["calibration"]["release_grid"] = None
    with pytest.raises(FileError, match="release_grid is null: release_grid must be a number"):
        _load_edited(data, tmp_path)


def test_a_gzipped_model_file_is_told_so(rows, tmp_path):
    import gzip

    path = tmp_path / "model.json"
    dpcvx.save(_binary(rows), path)
    packed = tmp_path / "model.json.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(FileError, match="gzip-compressed.*decompress it"):
        dpcvx.load(packed)
