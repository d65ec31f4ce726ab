"""The release-file audit knows every privatised value: a composite procedure's earlier private releases (a class
count, column statistics, a norm or label bound, one-vs-rest, a tuning selection) and the public functions of
them pass the audit on neighbouring data, as declared once in dpcvx.release.records.privatised; a value read off
the data and written anywhere else is flagged, by path."""

import json
import warnings
from dataclasses import fields

import numpy as np
import pytest

import dpcvx
from dpcvx.models.release_audit import audit_release_file, release_diff
from dpcvx.release import serialization
from dpcvx.release.model import ReleaseCertificate
from dpcvx.release.records.privatised import PRIVATE_RELEASES, PUBLIC_CERTIFICATE_KEYS


@pytest.fixture(scope="module")
def data():
    """200 rows in the unit ball, labels -1/+1, and a neighbour: row 0 replaced (label flipped, norm a tenth)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    X /= 1.5 * np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = np.where(X @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.normal(size=200) > 0, 1, -1)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = 0.1 * X[0], -y[0]
    return X, y, X2, y2


def _saved_at(saved: dict, path: str):
    for key in path.split("."):
        saved = saved.get(key) if isinstance(saved, dict) else None
    return saved


def _declared_records(learner, X, y, epsilon, seed) -> None:
    """Every private draw the certificate lists is saved at the record of one declared release."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        model = learner.fit(X, y, epsilon, random_state=seed)
    saved = serialization.model_to_dict(model)
    located = [release.record for release in PRIVATE_RELEASES
               if release.record is not None and _saved_at(saved, release.record) is not None]
    assert len(located) == len(model.certificate.private_bounds) == 1
    assert sorted(map(repr, (_saved_at(saved, path) for path in located))) == sorted(
        map(repr, model.certificate.private_bounds))


def _audit(learner, data, epsilon=1.0, seed=2, **kwargs):
    X, y, X2, y2 = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        return audit_release_file(learner, X, y, epsilon=epsilon, seed=seed, neighbour=(X2, y2), **kwargs)


@pytest.mark.parametrize("lam", [1e-2, "auto"])
def test_a_private_class_count_and_its_weights_pass_the_audit(data, lam):
    learner = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, lam=lam, class_weight="balanced")
    result = _audit(learner, data)
    assert result.clean, str(result)
    assert "certificate.weights.private_count.count" in result.privatised  # the count moved with the label
    assert "certificate.weights.mean_weight" in result.derived
    assert any(path.startswith("certificate.weights.class_weights[") for path in result.derived)
    if lam == "auto":  # the rule's effective sample size is the released count's: the calibration follows it
        assert "certificate.calibration.beta" in result.derived
    _declared_records(learner, *data[:2], 1.0, 0)


def test_a_private_count_that_sets_the_intercept_offset_passes_the_audit(data):
    learner = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, lam=1e-2, class_prior="private")
    result = _audit(learner, data)
    assert result.clean, str(result)
    assert "certificate.weights.private_count.count" in result.privatised
    assert any(path.startswith("certificate.verification") for path in result.derived)  # the ridge's centre b0 / s
    _declared_records(learner, *data[:2], 1.0, 0)


@pytest.mark.parametrize("lam", [1e-3, "auto"])
def test_private_column_statistics_and_their_map_pass_the_audit(data, lam):
    learner = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, lam=lam, column_statistics=True)
    result = _audit(learner, data)
    assert result.clean, str(result)
    assert any(path.startswith("certificate.column_statistics.sums[") for path in result.privatised)
    assert any(path.startswith("preprocessing.row_map.feature_map.centre[") for path in result.derived)
    _declared_records(learner, *data[:2], 1.0, 0)


def test_private_column_ranges_and_their_map_pass_the_audit(data):
    # eps_s = 40: the threshold is under 2 rows, so the neighbour's moved row moves the released cells
    learner = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, lam=1e-3, column_statistics="ranges",
                               column_statistics_share=0.5)
    result = _audit(learner, data, epsilon=80.0)
    assert result.clean, str(result)
    assert any(path.startswith("certificate.column_statistics.cells[") for path in result.privatised)
    assert any(path.startswith("preprocessing.row_map.feature_map.centre[") for path in result.derived)
    _declared_records(learner, *data[:2], 1.0, 0)


def test_the_huber_label_range_passes_the_audit():
    """DPHuberRegressor(column_statistics="auto") draws the ranges of the columns and the label (docs/theory.md,
    section 34.1): on a neighbour whose smallest label moves to the top, the label's cells move and B' with them
    (seed 0, found once)."""
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(3)
    X = 0.3 + 0.02 * rng.normal(size=(200, 3))
    y = 100 * (X[:, 0] - 0.3) + rng.normal(size=200)
    y2 = y.copy()
    y2[np.argmin(y)] = 9.0
    estimator = dpcvx.DPHuberRegressor(label_bound=10.0, column_statistics="auto")
    result = _audit(estimator, (X, y, X, y2), epsilon=40.0, seed=0)
    assert result.clean, str(result)
    assert "certificate.column_statistics.label_cells[0][0]" in result.privatised
    assert "certificate.label_bound" in result.derived


def test_a_private_norm_bound_and_the_calibration_at_it_pass_the_audit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    X *= 0.9 / np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] > 0, 1, -1)
    X2 = X.copy()
    X2[0] = 4 * X[0]  # seed 0 draws R = 4 on D and R = 2 on D' (found once, fixed: the bound does move)
    learner = dpcvx.PrivateERM(fit_intercept=True, data_norm="private", norm_range=(0.25, 4.0), lam="auto",
                               intercept_scaling="auto")
    result = _audit(learner, (X, y, X2, y), epsilon=8.0, seed=0)
    assert result.clean, str(result)
    assert "certificate.private_bound.bound" in result.privatised
    assert {"certificate.data_norm", "certificate.calibration.beta", "preprocessing.row_map.norm_bound",
            "certificate.lam_rule.lam"} <= set(result.derived)
    _declared_records(learner, X, y, 8.0, 0)


def test_a_private_label_bound_passes_the_audit():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    X *= 0.9 / np.linalg.norm(X, axis=1, keepdims=True)
    t = 2 * X @ np.array([1.0, -0.5])
    t2 = t.copy()
    t2[0] = 15.0  # seed 23 draws B = 2 on D and 4 on D' (fixed: the bound does move)
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(), task="regression", data_norm=1.0,
                               label_bound="private", label_range=(0.5, 16.0), fit_intercept=True, lam="auto")
    result = _audit(learner, (X, t, X, t2), epsilon=4.0, seed=23)
    assert result.clean, str(result)
    assert "certificate.private_label_bound.bound" in result.privatised
    assert "certificate.label_bound" in result.derived
    _declared_records(learner, X, t, 4.0, 23)


@pytest.mark.parametrize("params, moved", [
    ({"class_weight": "balanced"}, "certificate.weights.private_count.count"),
    ({"column_statistics": True}, "certificate.column_statistics.sums["),
    ({"data_norm": "private", "norm_range": (0.25, 4.0)}, "privatised.coef["),  # R is drawn; here it stays put
    ({"class_prior": (0.4, 0.6)}, "privatised.intercept"),  # the offset at the public log-odds
    ({"class_prior": "private", "threshold": "prior"}, "certificate.weights.private_count.count"),
    ({"classes": (0, 1, 2)}, "per_class[2].privatised.coef[")],
    ids=["count", "statistics", "norm", "offset", "private offset", "one-vs-rest"])
def test_estimators_with_composite_mechanisms_pass_the_audit(data, params, moved):
    pytest.importorskip("sklearn")
    X, y, X2, y2 = data
    labels, labels2 = (y > 0).astype(int), (y2 > 0).astype(int)
    if params.get("classes") == (0, 1, 2):
        labels, labels2 = labels + (X[:, 2] > 0.2), labels2 + (X2[:, 2] > 0.2)
    result = _audit(dpcvx.DPLogisticRegression(**params), (X, labels, X2, labels2))
    assert result.clean, str(result)
    assert any(path.startswith(moved) for path in result.privatised)


def test_a_tuning_selection_passes_the_audit(data):
    X, y, X2, y2 = data
    releases = []
    for features, target in ((X, y), (X2, y2)):
        result = dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True), features, target,
                            {"lam": [1e-3, 1e-1]}, epsilon=2.0, random_state=2)
        releases.append(result.to_dict())
    assert release_diff(*releases) == []
    # seed 2 (fixed): the same candidate, released from another run, whose coin-chosen training part has another
    # size: the selected run is part of the selection's output, and the calibration at its n a function of it
    assert releases[0]["privatised"] == releases[1]["privatised"]
    differing = release_diff(*releases, include_privatised=True)
    assert {"model.certificate.constants.n.float", "model.certificate.calibration.beta"} <= set(differing)



def _tuned_pair(learner, X, y, X2, y2, epsilon, seed, folder, **options) -> list[dict]:
    """A tuned model of neighbouring data sets, each as dpcvx.save writes it (the same seed)."""
    saved = []
    for features, target in ((X, y), (X2, y2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
            result = dpcvx.tune(learner, features, target, {"lam": [1e-3, 1e-1]}, epsilon=epsilon,
                                random_state=seed, **options)
        path = dpcvx.save(result.model, folder / f"tuned{len(saved)}.json", overwrite=True)  # saved again per call
        saved.append(json.loads(path.read_text()))
    return saved


def test_a_saved_tuned_model_passes_the_audit(tmp_path):
    """A tuned model as dpcvx.save writes it was flagged by the audit: its own certificate is the selected run's (its
    part's size n and the calibration at it), and a private class count of the selected release sits in the tuning
    record's copy (tuning.certificate.release.weights...), whose text and digest state it. Both are declared now."""
    rng = np.random.default_rng(2)
    X = rng.normal(scale=0.4, size=(300, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)
    X2 = X.copy()
    X2[0] = 0.0
    X2[0, 1] = 1e6  # clipped onto R: the selected run differs, its part's size with it
    first, second = _tuned_pair(dpcvx.PrivateERM(loss="logistic", data_norm=1.0, classes=(0, 1)), X, y, X2, y,
                                0.5, 2, tmp_path, mechanism="objective")
    assert first["certificate"]["constants"]["n"] != second["certificate"]["constants"]["n"]
    assert release_diff(first, second) == []
    rng = np.random.default_rng(2)
    X = rng.normal(scale=0.4, size=(400, 3))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = (X[:, 0] + 0.3 * rng.normal(size=400) > 0).astype(int)
    y2 = y.copy()
    y2[0] = 1 - y[0]  # the selected release's private class count moves
    first, second = _tuned_pair(dpcvx.DPLogisticRegression(class_weight="balanced"), X, y, X, y2, 1.0, 2, tmp_path)
    moved = release_diff(first, second, include_privatised=True)
    assert "tuning.certificate.release.weights.private_count.count" in moved
    assert release_diff(first, second) == []


class _Recording:
    """A learner that remembers the rows of its last fit, so that a leaky codec can read the private data."""

    def __init__(self, learner):
        self.learner, self.rows = learner, None

    def fit(self, X, y, **kwargs):
        self.rows = (X, y)
        return self.learner.fit(X, y, **kwargs)


def test_a_value_read_off_the_data_is_flagged_by_path(data, monkeypatch):
    X, y, _, _ = data
    recording = _Recording(dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, class_weight="balanced"))
    original = serialization.model_to_dict

    def leaky(model, schema=None, feature_names=None, decision_cut=None):
        saved = original(model, schema, feature_names=feature_names, decision_cut=decision_cut)
        features, labels = recording.rows
        saved["certificate"]["weights"]["true_count"] = int(np.sum(labels == 1))  # a new, undeclared field
        saved["certificate"]["weights"]["mean_weight"] = float(features[:, 0].sum())  # a declared function...
        return saved

    monkeypatch.setattr(serialization, "model_to_dict", leaky)
    X2, y2 = X.copy(), y.copy()
    X2[0] = -X[0]   # same label: the released count does not move, so its functions may not either
    result = audit_release_file(recording, X, y, epsilon=1.0, seed=2, neighbour=(X2, y2))
    assert result.differing == ("certificate.weights.mean_weight",)  # ...that moved without its count
    assert "certificate.weights.mean_weight" in str(result)
    y2[0] = -y[0]   # the count moves: the true count written outside the declared values is flagged
    result = audit_release_file(recording, X, y, epsilon=1.0, seed=2, neighbour=(X2, y2))
    assert "certificate.weights.true_count" in result.differing
    assert "certificate.weights.private_count.count" in result.privatised


def test_every_certificate_key_is_declared_public_or_private():
    """A new certificate field fails here until it is declared: public, or a private release's value or function."""
    named = {pattern.removeprefix("**.").split(".")[1] for release in PRIVATE_RELEASES
             for pattern in (*release.values, *release.derived, *filter(None, [release.record]))
             if pattern.removeprefix("**.").startswith("certificate.")}
    keys = {item.name for item in fields(ReleaseCertificate)} | {"privacy_curve"}
    assert keys - PUBLIC_CERTIFICATE_KEYS - named == set()
    assert set(ReleaseCertificate.__dataclass_fields__) <= keys


def test_the_declared_patterns_name_their_subtrees():
    output, count = PRIVATE_RELEASES[0], PRIVATE_RELEASES[1]
    assert output.holds("privatised.coef[0]") and output.holds("per_class[2].privatised.intercept")
    assert output.holds("model.privatised.coef[3]") and not output.holds("certificate.privatised_note")
    assert count.holds("certificate.weights.private_count.count")
    assert count.holds("per_class[0].certificate.weights.private_count.count")
    assert not count.holds("certificate.weights.private_count.n")
    assert count.derives("certificate.weights.class_weights[1][1]") and not count.derives("certificate.weights.bound")


def test_a_leak_outside_what_column_statistics_derive_is_flagged(data, monkeypatch):
    """The sums move on every neighbour; the calibration and the guarantee are not functions of them, so a value
    read off the data written there is still flagged."""
    X, y, X2, y2 = data
    recording = _Recording(dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True, column_statistics=True))
    original = serialization.model_to_dict

    def leaky(model, schema=None, feature_names=None, decision_cut=None):
        saved = original(model, schema, feature_names=feature_names, decision_cut=decision_cut)
        saved["certificate"]["guarantee"] += f" (column 0 sums to {recording.rows[0][:, 0].sum():.6f})"
        return saved

    monkeypatch.setattr(serialization, "model_to_dict", leaky)
    result = audit_release_file(recording, X, y, epsilon=1.0, seed=2, neighbour=(X2, y2))
    assert result.differing == ("certificate.guarantee",)
    assert any(path.startswith("certificate.column_statistics.sums[") for path in result.privatised)
