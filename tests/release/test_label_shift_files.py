"""A regression fitted on a public label range ``label_bound=(lo, hi)`` loads back, and its intercept stays pinned.

The fit sees y - s, s = (lo + hi) / 2 the range's public centre, and adds s to the intercept (post-processing). The
file did not record s, so without an intercept feature (``fit_intercept=False``), where the intercept is exactly what
the fit added back, every DPHuberRegressor and DPLinearRegression(mechanism="objective") file of an asymmetric range
was refused as edited, and an AdaSSP file's intercept was not checked at all (any value loaded). The certificate now
records s (``certificate.label_shift``, written only when not 0) and the loader re-derives that intercept as the
private label centre plus s for every regression file (:func:`dpcvx.release.records.linear_release.check_intercept`).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from former_texts import without_noise_source

import dpcvx
from dpcvx import NumericColumn, PublicSchema
from dpcvx.release import serialization

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

pytest.importorskip("sklearn")
from sklearn.pipeline import make_pipeline  # noqa: E402

BOUNDS = {"B": 3.0, "symmetric": (-3.0, 3.0), "asymmetric": (0.0, 4.0), "negative": (-5.0, -1.0)}
ESTIMATORS = {  # every regression mechanism a public label range reaches, at 200 rows (ranges: a label centre too)
    "huber objective": lambda **kw: dpcvx.DPHuberRegressor(column_statistics=False, **kw),
    "huber output": lambda **kw: dpcvx.DPHuberRegressor(mechanism="output", delta=1e-6, column_statistics=False,
                                                        **kw),
    "huber ranges": lambda **kw: dpcvx.DPHuberRegressor(epsilon=3.0, column_statistics="ranges", **kw),
    "linear objective": lambda **kw: dpcvx.DPLinearRegression(mechanism="objective", weight_bound=2.0,
                                                              column_statistics=False, **kw),
    "adassp": lambda **kw: dpcvx.DPLinearRegression(mechanism="adassp", column_statistics=False, **kw),
    "adassp standardised": lambda **kw: dpcvx.DPLinearRegression(column_statistics=True, **kw),
}


def _data(n: int, d: int, offset: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(n + d)
    X = rng.uniform(-1, 1, (n, d)) / np.sqrt(d)
    return X, X @ rng.standard_normal(d) / 3 + offset + 0.1 * rng.standard_normal(n)


def _fit(estimator, X: np.ndarray, y: np.ndarray):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return estimator.fit(X, y)


def _round_trip(tmp_path, estimator, X: np.ndarray) -> dict:
    """Save, load, predict, print and save again: what the estimator released, byte for byte; the file's data."""
    path = dpcvx.save(estimator, tmp_path / "model.json")
    loaded = dpcvx.load(path)
    np.testing.assert_array_equal(loaded.predict(X), estimator.predict(X))
    assert loaded.intercept_ == estimator.intercept_
    assert str(loaded.certificate) == str(estimator.certificate_)
    assert dpcvx.save(loaded, tmp_path / "again.json").read_text() == path.read_text()
    return json.loads(path.read_text())


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("bound", BOUNDS)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_release_of_every_label_bound_form_loads_back(tmp_path, name, bound, fit_intercept):
    label_bound = BOUNDS[bound]
    shift = 0.0 if not isinstance(label_bound, tuple) else sum(label_bound) / 2
    X, y = _data(200, 3, shift)
    estimator = _fit(ESTIMATORS[name](label_bound=label_bound, fit_intercept=fit_intercept, random_state=0), X, y)
    data = _round_trip(tmp_path, estimator, X)
    assert data["certificate"].get("label_shift", 0.0) == shift  # recorded exactly when not 0
    assert ("label_shift" in data["certificate"]) is (shift != 0.0)
    if shift:
        assert f"public s = {shift:g}" in str(estimator.certificate_)


@pytest.mark.slow
@pytest.mark.parametrize("bound", ["B", "asymmetric"])
@pytest.mark.parametrize("mechanism", ["adassp", "gradient"])
def test_a_ranged_least_squares_release_without_an_intercept_feature_loads_back(tmp_path, mechanism, bound):
    """adassp-ranged and gradient-ranged at 3,000 rows: the label's private centre plus the public shift."""
    X, y = _data(3000, 3, 2.0)
    estimator = _fit(dpcvx.DPLinearRegression(mechanism=mechanism, label_bound=BOUNDS[bound], fit_intercept=False,
                                              random_state=0), X, y)
    assert estimator.certificate_.mechanism.endswith("-ranged")
    _round_trip(tmp_path, estimator, X)


def test_a_pipeline_of_a_schema_and_a_shifted_regressor_loads_back(tmp_path):
    schema = PublicSchema((NumericColumn("age", 17, 90), NumericColumn("hours", 0, 100)))
    rng = np.random.default_rng(0)
    table = {"age": rng.uniform(17, 90, 200), "hours": rng.uniform(0, 100, 200)}
    income = 20 + table["age"] / 10 + rng.normal(0, 2, 200)
    pipeline = _fit(make_pipeline(schema, dpcvx.DPHuberRegressor(label_bound=(10, 40), fit_intercept=False,
                                                                 random_state=0)), table, income)
    loaded = dpcvx.load(dpcvx.save(pipeline, tmp_path / "pipeline.json"))
    assert loaded.schema == schema
    np.testing.assert_array_equal(loaded.predict(loaded.schema.transform(table)), pipeline.predict(table))


@pytest.fixture(scope="module")
def files() -> dict:
    """Files without an intercept feature on label_bound=(0, 4): the linear layout (DPHuberRegressor, with a private
    label centre too) and AdaSSP's."""
    X, y = _data(200, 3, 2.0)
    return {name: serialization.model_to_dict(_fit(ESTIMATORS[name](label_bound=(0.0, 4.0), fit_intercept=False,
                                                                    random_state=0), X, y).model_)
            for name in ("huber objective", "huber ranges", "adassp", "adassp standardised")}


def _edited(files: dict, name: str, edit) -> dict:
    data = json.loads(json.dumps(files[name]))
    edit(data)
    return data


@pytest.mark.parametrize("name", ["huber objective", "huber ranges", "adassp", "adassp standardised"])
@pytest.mark.parametrize("edit", [
    lambda data: data["privatised"].update(intercept=data["privatised"]["intercept"] + 0.25),
    lambda data: data["certificate"].update(label_shift=data["certificate"]["label_shift"] - 1.0),
    lambda data: data["certificate"].pop("label_shift"),
], ids=["intercept", "label_shift", "label_shift removed"])
def test_an_edited_intercept_or_label_shift_is_refused(files, name, edit):
    serialization.model_from_dict(files[name])  # the genuine file loads
    with pytest.raises(dpcvx.InputError, match="no intercept feature, so it must be the centre"):
        serialization.model_from_dict(_edited(files, name, edit))


@pytest.mark.parametrize("name, value", [(name, value) for name in ("huber objective", "adassp")
                                          for value in ("2", True, [2.0], None)])
def test_a_label_shift_that_is_not_a_number_is_refused(files, name, value):
    """null included: it once marked a format 6 AdaSSP file's unrecorded shift, and switched the intercept's check
    off in any file that held it."""
    with pytest.raises(dpcvx.InputError, match="certificate.label_shift must be a number"):
        serialization.model_from_dict(_edited(files, name, lambda data: data["certificate"].update(label_shift=value)))


def test_a_classifier_takes_no_label_shift():
    X, y = _data(200, 3, 0.0)
    data = serialization.model_to_dict(_fit(dpcvx.DPLogisticRegression(fit_intercept=False, random_state=0), X,
                                            (y > 0).astype(int)).model_)
    data["certificate"]["label_shift"] = 0.5
    with pytest.raises(dpcvx.InputError, match="label_shift is the public centre of a regression's label range"):
        serialization.model_from_dict(data)


def test_a_format_6_adassp_file_reads_as_no_shift(files):
    """Version 6 recorded no shift and did not check an AdaSSP file's intercept. Read as s = 0: a file whose intercept
    is the private centre (no shift) loads; one fitted on an uneven range without an intercept feature cannot be
    checked and is refused, with the reason; and a version 7 file edited to say version 6 gains nothing."""
    def older(data: dict) -> None:
        data.update(format_version=6)
        data["certificate"].pop("label_shift")
        del data["sha256"]  # version 6 wrote no digest
        without_noise_source(data)  # (format version 19 added it)

    shifted = _edited(files, "adassp", older)
    with pytest.raises(dpcvx.InputError, match="written before format version 7 by a fit on label_bound"):
        serialization.model_from_dict(shifted)
    unshifted = _edited(files, "adassp", lambda data: (older(data), data["privatised"].update(intercept=0.0)))
    loaded = serialization.model_from_dict(unshifted)
    assert loaded.intercept_ == 0.0 and loaded.certificate.label_shift == 0.0
    serialization.model_from_dict(serialization.model_to_dict(loaded))
    tampered = _edited(files, "adassp", lambda data: (older(data), data["privatised"].update(intercept=12345.0)))
    with pytest.raises(dpcvx.InputError, match="no intercept feature, so it must be the centre"):
        serialization.model_from_dict(tampered)
