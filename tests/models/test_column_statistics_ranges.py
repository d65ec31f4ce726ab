"""Opt-in private column ranges of the classifiers, ``column_statistics="ranges"`` (dpcvx.privacy.column_histogram,
dpcvx.models.column_statistics; docs/theory.md, section 34)."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx.data.standardiser import ColumnStandardiser
from dpcvx.exceptions import InputError
from dpcvx.models.column_statistics import ranges_map
from dpcvx.privacy import column_histogram
from dpcvx.privacy.column_histogram import (
    HISTOGRAM_DEPTH,
    _cells,
    histogram_ranges,
    histogram_scale,
    noisy_histograms,
)
from dpcvx.privacy.exact_sampling import discrete_laplace_pmf, integer_source

CELLS = 1 << HISTOGRAM_DEPTH


# the map gives each column a spread of RANGE_SPREAD R / sqrt(d), so rows beyond R are clipped (a public step of
# the fit, counted in a NOT PRIVATE ClippingWarning to the user)
pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")


def learner(**settings: object) -> dpcvx.PrivateERM:
    base: dict = {"loss": "logistic", "lam": 1e-2, "data_norm": 1.0, "fit_intercept": True, "classes": (0, 1),
                  "column_statistics": "ranges"}
    return dpcvx.PrivateERM(**{**base, **settings})


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray]:
    # columns in a small part of their public range: centres about 0.3, spreads about 0.02
    rng = np.random.default_rng(5)
    X = 0.3 + 0.02 * rng.standard_normal((4000, 3))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(X[:, 0] - 0.3) / 0.01))).astype(int)
    return X, y


def _histograms(rows: np.ndarray) -> np.ndarray:
    """The exact histograms (k x 2^D) of rows, no noise."""
    cells = _cells(rows, np.ones(rows.shape[1]))
    return np.stack([np.bincount(cells[:, j], minlength=CELLS) for j in range(rows.shape[1])])


# -- the mechanism: sensitivity and noise law, exact --------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 3, 10])
def test_replacing_one_record_moves_the_histograms_by_at_most_2d_in_l1(d: int) -> None:
    rng = np.random.default_rng(d)
    base = rng.uniform(-1, 1, (50, d))
    others = np.vstack([np.ones(d), -np.ones(d), np.full(d, 3.0), np.full(d, -1.0 + 1e-12),
                        rng.uniform(-2, 2, (40, d))])
    before = _histograms(base)
    moves = [np.abs(_histograms(np.vstack([base[1:], other])) - before).sum() for other in others]
    assert max(moves) <= histogram_scale(d, 1.0) == 2 * d
    assert max(moves) == 2 * d  # attained: a record that changes cell in every column


def test_the_noise_is_drawn_at_2d_over_eps_s_exactly_and_the_record_is_post_processing(data, monkeypatch) -> None:
    X, y = data
    scales = []

    def recording(scale, size, source):
        scales.append((scale, size))
        return np.zeros(size, dtype=np.int64)

    monkeypatch.setattr(column_histogram, "discrete_laplace_array", recording)
    model = learner(column_statistics_share=0.2).fit(X, y, 2.0, random_state=0)
    record = model.certificate.column_statistics
    d = X.shape[1]
    assert record["epsilon"] == pytest.approx(0.4) and record["total_epsilon"] == 2.0 and record["sensitivity"] == 2 * d
    assert scales == [(Fraction(2 * d) / Fraction(record["epsilon"]), d * CELLS)]
    assert record["cells"] == histogram_ranges(_histograms(X), record["epsilon"]).tolist()
    assert model.rows.feature_map == ranges_map(np.array(record["cells"]), 1.0)


@pytest.mark.parametrize(("scale", "passes"), [(2.0, True), (4.0, False), (1.0, False)])
def test_the_noise_law_is_the_discrete_laplace_of_that_scale(scale: float, passes: bool) -> None:
    # seeded audit of the released counts minus the true ones (one column, scale 2 d / eps_s = 2 at eps_s = 1):
    # the right law passes, a law twice as wide or twice as narrow (a calibration off by 2x) is caught
    X = np.full((3, 1), 0.25)
    truth = _histograms(X)
    noise = (noisy_histograms(X, np.ones(1), 1.0, integer_source(np.random.default_rng(3))) - truth).ravel()
    noise = np.concatenate([noise] + [(noisy_histograms(X, np.ones(1), 1.0, integer_source(np.random.default_rng(s)))
                                       - truth).ravel() for s in range(4, 15)])  # 12 x 256 draws
    values = np.arange(-15, 16)
    observed = np.array([np.mean(noise == v) for v in values])
    expected = discrete_laplace_pmf(values, scale)
    statistic = noise.size * float(np.sum((observed - expected) ** 2 / expected))
    assert (statistic < 70) == passes, (scale, statistic)  # chi-square, 31 cells: P[> 70] < 1e-4


def test_an_empty_histogram_releases_the_whole_grid_and_a_full_cell_is_located() -> None:
    # the threshold 2 (scale) ln(2^D): noise alone is dropped (seeded, 20 columns), a cell of 3 T rows is kept
    scale = float(histogram_scale(20, 1.0))
    threshold = 2 * scale * math.log(CELLS)
    noise = noisy_histograms(np.zeros((0, 20)), np.ones(20), 1.0, integer_source(np.random.default_rng(0)))
    assert np.all(histogram_ranges(noise, 1.0) == np.array([[0] * 20, [CELLS] * 20]))
    full = noise.copy()
    full[:, 77] += int(3 * threshold)
    assert np.all(histogram_ranges(full, 1.0) == np.array([[77] * 20, [78] * 20]))


def test_columns_in_a_small_part_of_their_range_are_located(data) -> None:
    # at eps_s = 0.3 the threshold 2 (2 d / eps_s) ln 256 is about 220 rows; the busiest cells hold about 600
    # (at eps_s = 0.1 they are near the threshold of 665 and a column may be dropped: the whole grid, centre 0)
    X, y = data
    model = learner().fit(X, y, 3.0, random_state=1)
    mapped = model.rows.feature_map
    assert np.all(np.abs(mapped.centre - 0.3) < 0.02)
    # the implied spread within a factor 3 of 0.02: multiplier RANGE_SPREAD R / (sqrt(d) s)
    assert np.all((mapped.multiplier > 1.25 / np.sqrt(3) / 0.06) & (mapped.multiplier < 1.25 / np.sqrt(3) / 0.007))


# -- one charge, none when refused; the file --------------------------------------------------------------------


def test_one_charge_one_certificate_and_a_file_that_round_trips(data, tmp_path) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = learner().fit(X, y, 1.0, random_state=2, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    certificate = model.certificate
    assert certificate.total_epsilon == 1.0 and certificate.epsilon == pytest.approx(0.9)
    text = str(certificate)
    assert "private column ranges (column_statistics='ranges')" in text and "eps_s = 0.1" in text
    assert [part.epsilon for part in certificate.privacy_curve.parts] == pytest.approx([0.1, 0.9])
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    loaded = dpcvx.load(path)
    assert loaded.certificate.column_statistics == certificate.column_statistics
    assert loaded.rows.feature_map == model.rows.feature_map and loaded.rows.feature_map.clip is not None
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))
    for edit, message in ((lambda record: record.update(sensitivity=record["sensitivity"] // 2), "sensitivity"),
                          (lambda record: record["cells"][1].__setitem__(0, CELLS + 1), "cells"),
                          (lambda record: record.update(depth=HISTOGRAM_DEPTH + 1), "depth")):
        saved = json.loads(path.read_text())
        edit(saved["certificate"]["column_statistics"])
        edited = tmp_path / "edited.json"
        edited.write_text(json.dumps(saved))
        with pytest.raises(InputError, match=message):
            dpcvx.load(edited)


@pytest.mark.parametrize(("settings", "fit", "message"), [
    ({"clip": False}, {}, "clip=False"),
    ({"class_weight": "balanced"}, {}, "class count"),
    ({}, {"neighbours": "add-remove", "delta": 1e-6, "n_public": 4000}, "replace-one"),
    ({"column_statistics": "range"}, {}, "'ranges'"),
])
def test_refusals_spend_nothing_and_draw_nothing(data, monkeypatch, settings, fit, message) -> None:
    X, y = data
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: pytest.fail("histograms drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=message):
        learner(**settings).fit(X, y, 1.0, accountant=accountant, **fit)
    assert accountant.ledger == []


def test_the_estimator_draws_them_inside_its_fit_with_one_charge(data) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.DPCVXWarning)
        estimator = dpcvx.DPLogisticRegression(column_statistics="ranges", random_state=0).fit(
            X, y, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    assert estimator.certificate_.column_statistics["epsilon"] == pytest.approx(0.1)
    assert isinstance(estimator.model_.rows.feature_map, ColumnStandardiser)
    with pytest.raises(InputError, match="two classes"):
        dpcvx.DPLogisticRegression(classes=(0, 1, 2), column_statistics="ranges").fit(
            X, np.arange(len(y)) % 3, accountant=accountant)
    assert len(accountant.ledger) == 1
