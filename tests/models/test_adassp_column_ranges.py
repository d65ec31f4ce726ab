"""AdaSSP on columns and a label mapped by private ranges (mechanism "adassp-ranged": DPLinearRegression(
mechanism="adassp")'s default column statistics; DPLinearRegression()'s mechanism where it searches no range is plain
AdaSSP, and where it searches one, noisy gradient descent: tests/models/test_gradient_regression.py).

The calibration is checked exactly (the search's 2 k D counts and AdaSSP's three releases compose to one Gaussian
at sqrt(4): a count sigma too small by any factor fails), the counts' sensitivity over extreme neighbours, the
search against the data's quantiles, the public level rule, the saved file by the release-file audit, one charge
and none on a refusal, and save/load with edited maps, ranges or bounds refused.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy.stats import norm

import dpcvx
from dpcvx.data.standardiser import ColumnStandardiser, range_map
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.models.release_audit import audit_release_file
from dpcvx.privacy import column_ranges
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.adassp import ADASSP_RANGED, SHARES, adassp_calibration
from dpcvx.privacy.column_ranges import (
    HIGHEST_LEVEL,
    LOWEST_LEVEL,
    RANGE_SHARE,
    RANK_MARGIN,
    SEARCH_DEPTH,
    grid_cell,
    grid_points,
    range_level,
    release_ranges,
)
from dpcvx.privacy.gaussian import analytic_gaussian_sigma
from dpcvx.privacy.noise import release_grid_spacing, round_to_grid
from dpcvx.release.records.row_map import _row_map_to_dict


@pytest.fixture(scope="module")
def narrow():
    """Columns in a hundredth of their range around off-centre points, a label in a corner of [-1, 1]."""
    rng = np.random.default_rng(5)
    n = 4000
    X = np.column_stack([0.3 + 0.01 * rng.standard_normal(n), -0.2 + 0.008 * rng.standard_normal(n),
                         0.02 * rng.uniform(-1, 1, n)])
    y = np.clip(40 * (X[:, 0] - 0.3) - 50 * (X[:, 1] + 0.2) + 0.1 * rng.standard_normal(n) + 0.5, -1, 1)
    return X, y


def _quiet_fit(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return estimator.fit(X, y)


def _gdp_delta(mu: float, epsilon: float) -> float:
    """delta(epsilon) of mu-GDP (Dong, Roth and Su 2022, Corollary 2.13)."""
    return float(norm.cdf(-epsilon / mu + mu / 2) - math.exp(epsilon) * norm.cdf(-epsilon / mu - mu / 2))


@pytest.mark.parametrize("columns", [2, 11])
def test_the_search_and_adassp_compose_to_epsilon_delta(columns):
    calibration = adassp_calibration(1.0, 1e-6, dim=columns, data_norm=1.5, label_bound=2.0, range_columns=columns)
    unit = analytic_gaussian_sigma(math.sqrt(3 + RANGE_SHARE), 1.0, 1e-6)
    assert calibration.shares == SHARES + (RANGE_SHARE,) and calibration.unit_sigma == unit
    # the search: SEARCH_DEPTH steps of 2 k counts, each of sensitivity 1; AdaSSP: three Gaussians at their Delta_i
    mu_search = math.sqrt(2 * columns * SEARCH_DEPTH) / calibration.count_sigma
    mu_adassp = [delta / sigma for delta, sigma in zip(calibration.sensitivities, calibration.sigmas, strict=True)]
    mu = math.sqrt(mu_search**2 + sum(m * m for m in mu_adassp))
    assert mu == pytest.approx(math.sqrt(3 + RANGE_SHARE) / unit, rel=1e-12) and mu <= math.sqrt(4) / unit
    assert _gdp_delta(mu, 1.0) == pytest.approx(1e-6, rel=1e-6)
    assert float(calibration.privacy_curve(1.0, 1e-6).profile([1.0])[0]) == pytest.approx(1e-6, rel=1e-6)
    # a count sigma 10% too small breaks (epsilon, delta): the exact check fails on a miscalibration
    mu_broken = math.sqrt((math.sqrt(2 * columns * SEARCH_DEPTH) / (0.9 * calibration.count_sigma))**2
                          + sum(m * m for m in mu_adassp))
    assert _gdp_delta(mu_broken, 1.0) > 1.5e-6


def test_each_count_moves_by_at_most_one_between_neighbours():
    rng = np.random.default_rng(0)
    R, n, d = 1.0, 60, 3
    rows = rng.uniform(-1, 1, (n, d)) / math.sqrt(d)
    extremes = [R * np.eye(d)[0], -R * np.eye(d)[0], np.zeros(d), np.full(d, R / math.sqrt(d))]
    thresholds = np.linspace(-R, R, 41)
    worst = 0
    for index in (0, 7, 59):
        for replacement in extremes + list(rng.uniform(-1, 1, (10, d)) / math.sqrt(d)):
            other = rows.copy()
            other[index] = replacement
            for t in thresholds:
                moved = np.abs((rows <= t).sum(axis=0) - (other <= t).sum(axis=0))
                worst = max(worst, int(moved.max()))
    assert worst == 1  # reached, and never more: sqrt(2 k) for the 2 k counts of one step


def test_the_search_finds_the_quantiles_within_its_noise():
    rng = np.random.default_rng(3)
    values = np.column_stack([0.3 + 0.01 * rng.standard_normal(5000), rng.uniform(-0.5, 0.5, 5000)])
    exact = release_ranges(values, np.ones(2), 0.2, 1e-9, rng)  # no noise to speak of: the exact grid points
    cell = grid_cell(np.ones(2))
    truth = np.quantile(values, [0.2, 0.8], axis=0)
    assert np.all(np.abs(exact - truth) <= cell + 1e-12)
    noisy = release_ranges(values, np.ones(2), 0.2, 50.0, np.random.default_rng(4))  # 1% of n per count
    ranks = np.array([[np.mean(values[:, j] <= noisy[i, j]) for j in range(2)] for i in range(2)])
    assert np.all(np.abs(ranks - [[0.2], [0.8]]) < 0.05)  # 5 sigma / n: seeded, in ranks, not in units of R


def _every_value(values, half_widths, level, sigma, rng):
    """The search with each count read from every value (the module's definition, #{i : v_ij <= t})."""
    n, k = values.shape
    targets = np.array([level * n, (1 - level) * n])[:, None]
    low, high = np.zeros((2, k), dtype=np.int64), np.full((2, k), 1 << SEARCH_DEPTH, dtype=np.int64)
    spacing = release_grid_spacing(sigma)
    for _ in range(SEARCH_DEPTH):
        middle = (low + high) // 2
        thresholds = grid_points(middle, half_widths)
        counts = np.stack([(values <= side).sum(axis=0) for side in thresholds]).astype(float)
        noisy, _ = round_to_grid(counts + sigma * rng.standard_normal((2, k)), spacing, 0)
        crossed = noisy >= targets
        high, low = np.where(crossed, middle, high), np.where(crossed, low, middle)
    return grid_points(high, half_widths)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("set_rows", [0, column_ranges._SET_ROWS])
def test_the_counts_from_the_values_between_the_ends_are_every_values(order, set_rows, monkeypatch, search_values):
    # concentrated, spread, tied, on grid points and at the bounds, in either order, by the sets of values between
    # the ends (from 0 rows) and by every value (the default below 10,000 rows): the same ranges to the bit
    monkeypatch.setattr(column_ranges, "_SET_ROWS", set_rows)
    rng = np.random.default_rng(11)
    for case in range(12):
        values, bounds = search_values(rng, case, 50, 3000)
        values = np.asarray(values, order=order)
        sigma = float(10.0 ** rng.uniform(-2, 2))
        expected = _every_value(values, bounds, 0.2, sigma, np.random.default_rng(case))
        assert np.array_equal(release_ranges(values, bounds, 0.2, sigma, np.random.default_rng(case)), expected)


def test_the_level_is_a_public_rule_of_n_and_the_noise():
    assert range_level(10.0, 10_000) == LOWEST_LEVEL
    assert range_level(100.0, 2_000) == pytest.approx(RANK_MARGIN * 100 / 2_000)
    assert range_level(100.0, 1_000) is None and RANK_MARGIN * 100 / 1_000 > HIGHEST_LEVEL


def test_the_default_maps_by_ranges_and_beats_the_older_maps(narrow):
    X, y = narrow
    train, test = slice(0, 3000), slice(3000, None)
    scores = {}
    for statistics in ("auto", True, False):
        model = _quiet_fit(dpcvx.DPLinearRegression(mechanism="adassp", random_state=0, column_statistics=statistics),
                           X[train], y[train])
        scores[statistics] = model.score(X[test], y[test])
    assert model.certificate_.mechanism == "adassp"
    # seeded: the sums' noise floor hides columns of sd 0.01 R; the ranges find them
    assert scores["auto"] > 0.8 and max(scores[True], scores[False]) < 0.3


def test_few_rows_fall_back_to_plain_adassp(narrow):
    X, y = narrow
    model = _quiet_fit(dpcvx.DPLinearRegression(random_state=0), X[:400], y[:400])
    assert model.certificate_.mechanism == "adassp" and model.model_.rows.feature_map is None


def test_one_charge_and_the_map_in_the_saved_file(narrow, tmp_path, refused_edits):
    X, y = narrow
    accountant = PrivacyAccountant(5.0, 1e-3)
    estimator = _quiet_fit(dpcvx.DPLinearRegression(mechanism="adassp", random_state=1, accountant=accountant), X, y)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    model = estimator.model_
    assert model.certificate.mechanism == ADASSP_RANGED and isinstance(model.rows.feature_map, ColumnStandardiser)
    assert "private ranges" in str(model.certificate) and model.certificate.label_bound == 1.0  # the public B
    assert model.certificate.calibration.label_bound != 1.0  # B', from the label's private range
    path = dpcvx.save(model, tmp_path / "m.json")
    loaded = dpcvx.load(path)
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert str(loaded.certificate) == str(model.certificate)
    saved = json.loads(path.read_text())
    record = saved["certificate"]["column_statistics"]
    assert record["n"] == X.shape[0] and len(record["ranges"]) == 2 and len(record["ranges"][0]) == X.shape[1] + 1
    level = record["level"]
    assert model.rows.feature_map == range_map(np.array(record["ranges"])[:, :-1], level, 1.0)
    refused_edits(saved, tmp_path, {
        "level": (lambda f: f["certificate"]["column_statistics"].__setitem__("level", 0.25), "level")})


@pytest.mark.parametrize("both", [False, True])
def test_too_few_rows_or_both_maps_are_refused_before_the_charge(narrow, both):
    """The refusals the ranged map shares with the standardised one: test_adassp_column_statistics.py."""
    X, y = narrow
    accountant = PrivacyAccountant(5.0, 1e-3)
    learner = PrivateLinearRegression(1.0, 1.0, column_ranges=True, column_statistics=both)
    with pytest.raises(dpcvx.InputError, match="two maps" if both else "too few"):
        learner.fit(X[:300], y[:300], 1.0, 1e-6, accountant=accountant)
    assert accountant.ledger == []


def test_neighbouring_release_files_differ_only_in_declared_values(narrow):
    X, y = narrow
    result = audit_release_file(dpcvx.DPLinearRegression(), X[:2000], y[:2000], epsilon=1.0, mechanism="adassp",
                                index=3, seed=2)
    assert result.clean, str(result)
    fitted = _quiet_fit(dpcvx.DPLinearRegression(mechanism="adassp"), X[:2000], y[:2000])
    assert fitted.certificate_.mechanism == ADASSP_RANGED
    # one record moves each count by at most 1, so the ranges rarely move; when they do, they are declared
    assert all(path.startswith(("certificate.column_statistics.ranges[", "privatised.")) for path in result.privatised)


@pytest.fixture(scope="module")
def loose_label():
    """3,000 rows of 10 columns in 0.5% to 20% of their public ranges, a label near 300 +- 80 in the public
    [0, 100000]: at epsilon 0.3 too few rows to search every column's range, enough for the label's alone."""
    rng = np.random.default_rng(11)
    n, d = 3000, 10
    spreads = np.linspace(0.005, 0.2, d) / np.sqrt(d)
    centres = rng.uniform(-0.5, 0.5, d) / np.sqrt(d)
    standard = rng.standard_normal((n, d))
    y = 300 + 80 * (standard[:, :4] @ np.array([0.6, -0.5, 0.4, 0.3])) + 30 * rng.standard_normal(n)
    return centres + spreads * standard, np.clip(y, 0, 100_000)


def test_the_labels_range_alone_when_the_columns_cannot_be_searched(loose_label, tmp_path, refused_edits):
    """Seeded, 3 splits of 2,250 / 750 rows at epsilon 0.3: before, plain AdaSSP centred the label at the public
    midpoint 50,000 and its predictions (about 6,000 to 13,000) were far from the mean (R^2 -7,600 to -13,800); the
    label's range alone locates it (R^2 above -0.1 in every split: -0.003 to -0.013, the narrow columns' slope is
    still lost to the ridge)."""
    X, y = loose_label
    for seed in range(3):
        order = np.random.default_rng(seed).permutation(y.size)
        train, test = order[:2250], order[2250:]
        accountant = PrivacyAccountant(1.0, 1e-3)
        estimator = _quiet_fit(dpcvx.DPLinearRegression(epsilon=0.3, label_bound=(0, 100_000), random_state=seed,
                                                        mechanism="adassp", accountant=accountant), X[train], y[train])
        assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 0.3
        certificate = estimator.certificate_
        assert certificate.mechanism == ADASSP_RANGED and certificate.calibration.range_columns == 1
        assert estimator.model_.rows.feature_map is None and "range of the label" in certificate.guarantee
        assert len(certificate.column_statistics["ranges"][0]) == 1
        assert estimator.score(X[test], y[test]) > -0.1
    path = dpcvx.save(estimator.model_, tmp_path / "label.json")
    assert np.array_equal(dpcvx.load(path).predict(X), estimator.model_.predict(X))
    saved = json.loads(path.read_text())
    unmapped = _row_map_to_dict(replace(estimator.model_.rows, feature_map=range_map(np.zeros((2, 10)), 0.2, 1.0)))
    refused_edits(saved, tmp_path, {"map": (lambda f: f["preprocessing"].__setitem__("row_map", unmapped),
                                            "feature_map")}, every_column=False)  # a map not the label range.s


def test_neighbouring_label_range_release_files_differ_only_in_declared_values(loose_label):
    """The label's range alone (2,000 rows at epsilon 0.3): the file's other fields are public functions."""
    X, y = loose_label
    learner = dpcvx.DPLinearRegression(label_bound=(0, 100_000))
    with warnings.catch_warnings():  # the columns' ranges are not located here, and the fit says so (beside the point)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        result = audit_release_file(learner, X[:2000], y[:2000], epsilon=0.3, mechanism="adassp", index=3, seed=2)
    assert result.clean, str(result)
    fitted = _quiet_fit(dpcvx.DPLinearRegression(epsilon=0.3, label_bound=(0, 100_000), mechanism="adassp"),
                        X[:2000], y[:2000])
    assert fitted.certificate_.calibration.range_columns == 1
    assert all(path.startswith(("certificate.column_statistics.ranges[", "privatised.")) for path in result.privatised)
