"""AdaSSP on privately standardised columns (mechanism "adassp-standardised", column_statistics=True).

The calibration is checked exactly (five Gaussian releases of one joint Gaussian at sqrt(3.8)), the column
statistics' sensitivities over extreme pairs, the release by a distinguishing audit that catches a thirtyfold
error, the saved file by the release-file audit, one charge and none on refusal, and save/load.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import sparse

import dpcvx
from dpcvx.data.standardiser import ColumnStandardiser
from dpcvx.models.audit import audit, canary_pair
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.models.release_audit import audit_release_file
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.adassp import ADASSP_STANDARDISED, COLUMN_SHARES, SHARES, adassp_calibration
from dpcvx.privacy.gaussian import analytic_gaussian_sigma


@pytest.fixture(scope="module")
def narrow():
    """Columns in a tenth of their range around an off-centre point: what plain AdaSSP's ridge flattens."""
    rng = np.random.default_rng(5)
    n = 4000
    X = np.column_stack([0.3 + 0.05 * rng.standard_normal(n), -0.2 + 0.04 * rng.standard_normal(n),
                         0.1 * rng.uniform(-1, 1, n)])
    y = np.clip(8 * (X[:, 0] - 0.3) - 10 * (X[:, 1] + 0.2) + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def _quiet_fit(estimator, X, y):
    return estimator.fit(X, y)


def test_the_five_releases_are_one_gaussian_at_their_sensitivities():
    calibration = adassp_calibration(1.0, 1e-6, dim=5, data_norm=2.0, label_bound=3.0, column_statistics=True)
    shares = SHARES + COLUMN_SHARES
    unit = analytic_gaussian_sigma(math.sqrt(sum(shares)), 1.0, 1e-6)
    assert calibration.unit_sigma == unit and sum(shares) == pytest.approx(3.8)
    assert calibration.column_sensitivities == (4.0, math.sqrt(2) * 4.0)
    sigmas = calibration.sigmas + calibration.column_sigmas
    sensitivities = calibration.sensitivities + calibration.column_sensitivities
    # each scaled statistic sqrt(f_i) s_i / Delta_i has noise unit: sqrt(f_i) / unit-GDP, sqrt(3.8) / unit together
    scaled = [s * math.sqrt(f) / d for s, f, d in zip(sigmas, shares, sensitivities, strict=True)]
    assert scaled == pytest.approx([unit] * 5, rel=1e-11) and min(scaled) >= unit  # each sigma rounded up
    curve = calibration.privacy_curve(1.0, 1e-6)
    assert float(curve.profile([1.0])[0]) == pytest.approx(1e-6, rel=1e-6)
    plain = adassp_calibration(1.0, 1e-6, dim=5, data_norm=2.0, label_bound=3.0)
    assert plain.unit_sigma == analytic_gaussian_sigma(math.sqrt(3), 1.0, 1e-6) < unit
    with pytest.raises(dpcvx.InputError, match="replace-one"):
        adassp_calibration(1.0, 1e-6, dim=5, data_norm=2.0, label_bound=3.0, neighbours="add-remove",
                           column_statistics=True)


def test_the_column_statistics_sensitivities_hold_and_are_reached():
    rng = np.random.default_rng(0)
    R, d = 1.5, 4
    worst_sum = worst_square = 0.0
    extremes = [R * np.eye(d)[0], -R * np.eye(d)[0], R * np.eye(d)[1], np.full(d, R / 2)]
    rows = [row for row in rng.normal(size=(400, d))]
    rows = [row * R / max(np.linalg.norm(row), R) * rng.uniform(0.5, 1.5) for row in rows]
    rows = [row / max(1.0, np.linalg.norm(row) / R) for row in rows] + extremes
    for a in rows:
        for b in rows[::7] + extremes:
            worst_sum = max(worst_sum, float(np.linalg.norm(a - b)))
            worst_square = max(worst_square, float(np.linalg.norm(a * a - b * b)))
    calibration = adassp_calibration(1.0, 1e-6, dim=d + 1, data_norm=R, label_bound=1.0, column_statistics=True)
    assert worst_sum <= calibration.column_sensitivities[0] * (1 + 1e-12)
    assert worst_square <= calibration.column_sensitivities[1] * (1 + 1e-12)
    # the bounds are tight: R e1 against -R e1 (sums), R e1 against R e2 (squares)
    assert worst_sum == pytest.approx(2 * R) and worst_square == pytest.approx(math.sqrt(2) * R**2)


class TooLittleNoise(PrivateLinearRegression):
    """Fits AdaSSP with column statistics at thirty times the epsilon its user asked for: the noise thirty times too
    small for
    the 0.5 the user believes (a release certificate states the budget its noise was drawn for, 15; the audit's lower
    bound must exceed the believed 0.5)."""

    def fit(self, X, y, epsilon, delta=0.0, **options):
        return super().fit(X, y, 30 * epsilon, delta, **options)


@pytest.mark.slow
@pytest.mark.parametrize("broken", [False, True])
def test_audit_passes_the_standardised_release_and_catches_too_little_noise(broken):
    learner = (TooLittleNoise if broken else PrivateLinearRegression)(1.0, 1.0, column_statistics=True)
    report = audit(learner, 0.5, trials=400, neighbours=canary_pair(replacement="flip"), delta=1e-5,
                   confidence=0.95, fit_params={"delta": 1e-5}, random_state=20)
    assert report.passed
    if broken:  # the noise of epsilon 15: the audit's lower bound exceeds the 0.5 its user believed
        assert report.epsilon_lower_bound > 0.5, report


def test_the_standardised_release_beats_plain_adassp_on_narrow_columns(narrow):
    X, y = narrow
    train, test = slice(0, 3000), slice(3000, None)
    scores = {}
    for statistics in (True, False):
        values = []
        for seed in range(4):
            model = _quiet_fit(dpcvx.DPLinearRegression(random_state=seed, column_statistics=statistics),
                               X[train], y[train])
            values.append(model.score(X[test], y[test]))
        scores[statistics] = float(np.mean(values))
        assert model.certificate_.mechanism == (ADASSP_STANDARDISED if statistics else "adassp")
    # seeded: plain AdaSSP's ridge flattens these columns (R^2 near 0); the standardised release keeps the signal
    assert scores[True] > 0.5 > scores[False] + 0.2


def test_one_charge_and_the_map_in_the_saved_file(narrow, tmp_path):
    X, y = narrow
    accountant = PrivacyAccountant(5.0, 1e-3)
    estimator = _quiet_fit(dpcvx.DPLinearRegression(random_state=1, accountant=accountant, column_statistics=True),
                           X, y)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    model = estimator.model_
    assert isinstance(model.rows.feature_map, ColumnStandardiser)
    assert "private column statistics" in str(model.certificate)
    path = dpcvx.save(model, tmp_path / "m.json")
    loaded = dpcvx.load(path)
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert str(loaded.certificate) == str(model.certificate)
    saved = json.loads(path.read_text())
    for edit in ("map", "sums"):
        edited = json.loads(json.dumps(saved))
        if edit == "map":
            edited["preprocessing"]["row_map"]["feature_map"]["multiplier"][0] *= 2
        else:
            edited["certificate"]["column_statistics"]["sums"][0] += 1.0
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(dpcvx.InputError, match="feature_map"):
            dpcvx.load(tmp_path / "edited.json")


@pytest.mark.parametrize("chosen", [True, "ranges"])  # the standardised map, and the ranged one (its own tests:
@pytest.mark.parametrize("case", ["add-remove", "clip", "objective", "sparse"])  # test_adassp_column_ranges.py)
def test_refusals_charge_nothing(narrow, case, chosen):
    X, y = narrow
    accountant = PrivacyAccountant(5.0, 1e-3)
    if case == "sparse":
        learner = PrivateLinearRegression(1.0, 1.0, column_statistics=chosen is True, column_ranges=chosen == "ranges")
        with pytest.raises(dpcvx.InputError, match="dense"):
            learner.fit(sparse.csr_matrix(X), y, 1.0, 1e-6, accountant=accountant)
        assert accountant.ledger == []
        return
    parameters = {"column_statistics": chosen, "accountant": accountant, "random_state": 0}
    if case == "add-remove":
        parameters.update(neighbours="add-remove", n_public=4000)
    elif case == "clip":
        parameters["clip"] = False
    else:
        parameters.update(mechanism="objective", weight_bound=1.0)
    with pytest.raises(dpcvx.InputError, match="column_"):
        _quiet_fit(dpcvx.DPLinearRegression(**parameters), X, y)
    assert accountant.ledger == []


def test_auto_falls_back_to_plain_adassp_under_add_remove(narrow):
    X, y = narrow
    model = _quiet_fit(dpcvx.DPLinearRegression(random_state=0, neighbours="add-remove", n_public=4000), X, y)
    assert model.certificate_.mechanism == "adassp" and model.model_.rows.feature_map is None


def test_neighbouring_release_files_differ_only_in_declared_values(narrow):
    X, y = narrow
    result = audit_release_file(dpcvx.DPLinearRegression(column_statistics=True), X[:600], y[:600], epsilon=1.0,
                                mechanism="auto",
                                index=3, seed=2)
    assert result.clean, str(result)
    assert any(path.startswith("certificate.column_statistics.sums[") for path in result.privatised)
    assert any("feature_map" in path for path in result.derived)
