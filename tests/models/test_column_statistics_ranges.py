"""Opt-in private column ranges of the classifiers, ``column_statistics="ranges"`` (dpcvx.privacy.column_histogram,
dpcvx.models.column_statistics; docs/theory.md, section 34)."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import sparse

import dpcvx
from dpcvx.data.standardiser import RANGES_CLIP, RANGES_FILL, ColumnStandardiser, fill_level, fill_map
from dpcvx.exceptions import InputError
from dpcvx.models.column_statistics import AUTO_ROWS, auto_statistics, ranges_by_default
from dpcvx.privacy import column_histogram
from dpcvx.privacy.column_histogram import (
    HISTOGRAM_DEPTH,
    _cells,
    histogram_ranges,
    histogram_scale,
    histogram_threshold,
    noisy_histograms,
    summed_threshold,
)
from dpcvx.privacy.exact_sampling import discrete_laplace_pmf, integer_source

CELLS = 1 << HISTOGRAM_DEPTH


# the map widens narrow columns to the fill level F R / sqrt(d), so rows beyond R are clipped (a public step of
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


def _histograms(rows: np.ndarray, depth: int = HISTOGRAM_DEPTH) -> np.ndarray:
    """The exact histograms (k x 2^D) of rows, no noise."""
    cells = _cells(rows, np.ones(rows.shape[1]), depth)
    return np.stack([np.bincount(cells[:, j], minlength=1 << depth) for j in range(rows.shape[1])])


# -- the mechanism: sensitivity and noise law, exact --------------------------------------------------------------


@pytest.mark.parametrize("depth", [HISTOGRAM_DEPTH, 6, 1])  # any public depth (a regression's grid, section 34.1)
@pytest.mark.parametrize("d", [1, 3, 10])
def test_replacing_one_record_moves_the_histograms_by_at_most_2d_in_l1(d: int, depth: int) -> None:
    rng = np.random.default_rng(d)
    base = rng.uniform(-1, 1, (50, d))
    others = np.vstack([np.ones(d), -np.ones(d), np.full(d, 3.0), np.full(d, -1.0 + 1e-12),
                        np.where(base[0] > 0, -0.99, 0.99), rng.uniform(-2, 2, (40, d))])  # base[0] is replaced
    before = _histograms(base, depth)
    moves = [np.abs(_histograms(np.vstack([base[1:], other]), depth) - before).sum() for other in others]
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
    assert record["cells"] == histogram_ranges(_histograms(X), record["epsilon"], len(X)).tolist()
    assert model.rows.feature_map == fill_map(np.array(record["cells"]), 1.0)


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
    assert np.all(histogram_ranges(noise, 1.0, 1) == np.array([[0] * 20, [CELLS] * 20]))
    full = noise.copy()
    full[:, 77] += int(3 * threshold)
    assert np.all(histogram_ranges(full, 1.0, int(3 * threshold)) == np.array([[77] * 20, [78] * 20]))
    # the same kept cell among 10 T rows spread elsewhere holds under half of them: not located
    assert np.all(histogram_ranges(full, 1.0, int(10 * threshold)) == np.array([[0] * 20, [CELLS] * 20]))


def test_columns_in_a_small_part_of_their_range_are_located(data) -> None:
    # at eps_s = 0.3 the threshold 2 (2 d / eps_s) ln 256 is about 220 rows; the busiest cells hold about 600
    # (at eps_s = 0.1 they are near the threshold of 665 and a column may be dropped: the whole grid, centre 0)
    X, y = data
    model = learner().fit(X, y, 3.0, random_state=1)
    mapped = model.rows.feature_map
    assert np.all(np.abs(mapped.centre - 0.3) < 0.02)
    # each range's half-width (the 10% to 90% points: 1.28 sd) within a factor 3 of 1.28 x 0.02, widened to the fill
    # level F R / sqrt(d) (every column located and narrow)
    level, half = RANGES_FILL / np.sqrt(3), 1.2816 * 0.02
    assert np.all((mapped.multiplier > level / (3 * half)) & (mapped.multiplier < 3 * level / half))


# -- coarser grids: sums of adjacent noisy cells (post-processing) -----------------------------------------------

@pytest.mark.parametrize(("scale", "summed", "depth"), [(2.0, 4, 6), (3.0, 16, 4), (1.5, 2, 7)])
def test_the_summed_threshold_is_the_chernoff_bound_of_the_sum_of_its_cells(scale, summed, depth) -> None:
    # the exact law of a sum of m discrete Laplace of scale t (convolved pmfs): it crosses T with at most the target
    # probability 2^(-D - D') / 2 (D' the coarse grid's depth, D - log2 m), and the bound is not loose by more than a
    # third of T (a wrong m, scale or moment generating function breaks one side)
    columns, epsilon = 1, 2.0 / scale  # scale 2 k / eps_s = t
    threshold = summed_threshold(columns, epsilon, depth, summed)
    support = np.arange(-60 * int(scale) * summed, 60 * int(scale) * summed + 1)
    one = discrete_laplace_pmf(np.arange(-60 * int(scale), 60 * int(scale) + 1), scale)
    law = one
    for _ in range(summed - 1):
        law = np.convolve(law, one)
    tail = law[::-1].cumsum()[::-1]  # P[S >= support[i]]
    target = 2.0 ** (-2 * depth + math.log2(summed)) / 2
    assert tail[np.searchsorted(support, math.ceil(threshold))] <= target
    assert tail[np.searchsorted(support, math.floor(0.67 * threshold))] > target
    assert summed_threshold(columns, epsilon, depth, 1) == histogram_threshold(columns, epsilon, depth)


def _spread_counts(columns: int, rows: int, cells: tuple[int, int], seed: int, epsilon: float = 0.1) -> np.ndarray:
    """Noisy histograms (k x 2^8, the exact sampler at 2 k / eps_s) of ``rows`` rows per column spread evenly over the
    cells [cells[0], cells[1])."""
    counts = np.zeros((columns, CELLS), dtype=np.int64)
    low, high = cells
    counts[:, low:high] = rows // (high - low)
    noise = noisy_histograms(np.zeros((0, columns)), np.ones(columns), epsilon,
                             integer_source(np.random.default_rng(seed)))
    return counts + noise


@pytest.mark.parametrize("seed", range(5))
def test_a_column_spread_over_many_cells_is_located_on_a_coarser_grid(seed) -> None:
    # 16,000 rows over 20 cells (800 each), T = 2,662 at k = 12 and eps_s = 0.1: no cell of the 2^8 grid is kept,
    # but the sums of 8 adjacent cells hold 6,400 rows (two of them) against T = 5,174: the first coarser grid whose
    # kept cells hold half the rows gives the range, in 2^8-grid indices, on its cells' edges
    noisy = _spread_counts(12, 16000, (100, 120), seed)
    fine_kept = np.where(noisy > histogram_threshold(12, 0.1), noisy, 0).sum(axis=1)
    assert np.all(fine_kept < 8000)  # not located on the 2^8 grid (a rare noisy cell may cross T: seed 2)
    ranges = histogram_ranges(noisy, 0.1, 16000, window=RANGES_CLIP)
    located = ranges[:, (ranges[0] > 0) | (ranges[1] < CELLS)]
    assert located.shape[1] >= 11, ranges  # seeded: 11 or 12 of the 12 columns (one noisy window, seed 4)
    assert np.all((located[0] >= 96) & (located[1] <= 128) & (located[1] - located[0] >= 8)), ranges
    assert np.all((located[0] % 4 == 0) & (located[1] % 4 == 0))  # the edges of a coarser grid's cells
    # without the public n and the map's window (the regressors' grid of histogram_depth) no coarser grid is read: a
    # column with no kept cell keeps the whole grid
    plain = histogram_ranges(noisy, 0.1)[:, fine_kept == 0]
    assert plain.size and np.all((plain[0] == 0) & (plain[1] == CELLS))


def test_a_coarse_range_wider_than_half_the_columns_share_is_not_taken() -> None:
    # 4 columns (share R / 2: 128 cells of the 2^8 grid; half of it 64), 80,000 rows over 160 cells (500 each,
    # T = 887): located on a coarser grid in 160 cells, more than 64, so the whole grid (the column keeps its scale)
    noisy = _spread_counts(4, 80_000, (40, 200), 0)
    assert np.all(histogram_ranges(noisy, 0.1, 80_000, window=RANGES_CLIP) == np.array([[0] * 4, [CELLS] * 4]))
    # 50,000 rows over 60 cells are within half the share and located, on that grid's cell edges
    narrow = histogram_ranges(_spread_counts(4, 50_000, (40, 100), 0), 0.1, 50_000, window=RANGES_CLIP)
    assert np.all((narrow[0] >= 36) & (narrow[1] <= 104) & (narrow[1] - narrow[0] >= 40)), narrow


def test_a_coarse_range_whose_window_leaves_many_rows_out_is_not_taken() -> None:
    # 24,000 rows over 32 cells (750 each) and 16,000 over 32 cells far away (500 each), T = 887: the sums of 2
    # cells keep the first cluster only (1,500 against about 1,300), a range of 32 cells whose window of RANGES_CLIP
    # half-widths about its centre holds 0.6 n < (1 - 2 q) n: the map would clip the second cluster, so the whole grid
    noisy = _spread_counts(4, 24_000, (96, 128), 0) + _spread_counts(4, 16_000, (192, 224), 1) - _spread_counts(
        4, 0, (0, 1), 1)
    assert np.all(histogram_ranges(noisy, 0.1, 40_000, window=RANGES_CLIP) == np.array([[0] * 4, [CELLS] * 4]))
    # the first cluster alone is located
    alone = histogram_ranges(_spread_counts(4, 24_000, (96, 128), 0), 0.1, 24_000, window=RANGES_CLIP)
    assert np.all((alone[0] >= 92) & (alone[1] <= 132)), alone


@pytest.mark.parametrize("seed", range(6))
def test_noise_alone_is_dropped_on_every_coarser_grid(seed) -> None:
    # at n = 1 any kept cell locates a column: the coarser grids add none to those of the 2^8 grid (n not given),
    # which keeps a false cell in one column of 120 here (seed 2: 2^(-8) / 2 per column expected)
    noisy = _spread_counts(20, 0, (0, 1), seed, epsilon=1.0)
    assert np.all(histogram_ranges(noisy, 1.0, 1, window=RANGES_CLIP) == histogram_ranges(noisy, 1.0))


def test_a_default_fit_locates_columns_that_fill_a_narrow_correct_range() -> None:
    # the prober's sensor table: 12 columns in correct public ranges about 15 times their spread, 3% faults; the
    # 2^8 grid spreads each over about 10 cells under T = 2,662: before, nothing was located (the prober's n = 8,000:
    # balanced accuracy 0.5 on every seed)
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(2)
    rows = 20000
    factor, fault = rng.normal(size=rows), rng.random(rows) < 0.03
    temps = 350 + 2 * factor[:, None] + rng.normal(0, 0.5, (rows, 8)) + 4 * fault[:, None]
    press = 95 + 0.5 * factor[:, None] + rng.normal(0, 0.3, (rows, 4)) - 1.5 * fault[:, None]
    columns = [dpcvx.NumericColumn(f"temp{j}", 300, 400) for j in range(8)] + [
        dpcvx.NumericColumn(f"press{j}", 80, 100) for j in range(4)]
    X = dpcvx.PublicSchema(tuple(columns)).transform(np.hstack([temps, press]))
    y = fault.astype(int)
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X[:16000], y[:16000])
    cells = np.array(model.certificate_.column_statistics["cells"])
    assert np.all(cells[1] - cells[0] < CELLS / np.sqrt(12)), cells  # every column located
    assert roc_auc_score(y[16000:], model.decision_function(X[16000:])) > 0.9


def test_the_fill_level_solves_its_equation() -> None:
    rng = np.random.default_rng(11)
    for _ in range(50):
        half, total = rng.uniform(0.001, 0.5, rng.integers(1, 9)), float(rng.uniform(0.1, 1.5))
        level = fill_level(half, total)
        if np.sum(half ** 2) >= total ** 2:
            assert level == 0.0
        else:
            assert np.sum(np.maximum(half, level) ** 2) == pytest.approx(total ** 2, rel=1e-12)
    assert fill_level(np.array([]), 1.0) == 0.0


def test_the_map_widens_narrow_located_columns_and_keeps_the_others_at_their_public_scale() -> None:
    # column 0: one cell (narrow, located); column 1: 160 cells (wide, located); column 2: no kept cell
    cells = np.array([[140, 48, 0], [141, 208, CELLS]])
    mapped = fill_map(cells, 2.0)
    cell = 4.0 / CELLS
    half = np.array([cell / 2, 160 * cell / 2])
    level = fill_level(half, RANGES_FILL * 2.0 * math.sqrt(2 / 3))  # two of three columns located
    assert 0 < level < half[1]
    assert mapped.centre[0] == pytest.approx(-2.0 + 140.5 * cell) and mapped.multiplier[0] == pytest.approx(
        level / half[0])
    assert list(mapped.centre[1:]) == [0.0, 0.0] and list(mapped.multiplier[1:]) == [1.0, 1.0]
    assert mapped.clip == pytest.approx(RANGES_CLIP * RANGES_FILL * 2.0 / math.sqrt(3))
    wide = fill_map(np.array([[0, 10], [250, 246]]), 1.0)  # ranges already fill F R: nothing moves
    assert list(wide.centre) == [0.0, 0.0] and list(wide.multiplier) == [1.0, 1.0]


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
    ({"data_norm": "private", "norm_range": (0.5, 4.0)}, {}, "private bound"),
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
    estimator = dpcvx.DPLogisticRegression(column_statistics="ranges", random_state=0).fit(
        X, y, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    assert estimator.certificate_.column_statistics["epsilon"] == pytest.approx(0.1)
    assert isinstance(estimator.model_.rows.feature_map, ColumnStandardiser)


def test_a_private_class_count_composes_with_the_ranges_in_one_charge(data, tmp_path) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = learner(class_weight="balanced").fit(X, y, 1.0, random_state=4, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    certificate = model.certificate
    assert certificate.column_statistics["epsilon"] == pytest.approx(0.1)
    assert certificate.weights.source == "private count" and certificate.weights.private_count["epsilon"] == \
        pytest.approx(0.045)
    assert sum(part.epsilon for part in certificate.privacy_curve.parts) == pytest.approx(1.0)
    assert "eps_s = 0.1" in certificate.guarantee and "eps_fit = 0.9" in certificate.guarantee
    assert certificate.weights.private_count["total_epsilon"] == certificate.column_statistics["total_epsilon"] == 1.0
    dpcvx.save(model, tmp_path / "model.json")  # the file's check of each record's total holds
    loaded = dpcvx.load(tmp_path / "model.json")
    assert loaded.certificate.weights == certificate.weights and str(loaded.certificate) == str(certificate)


# -- the classifiers' default, column_statistics="auto": a public rule, resolved before the charge -----------------


def test_the_rule_is_the_threshold_against_a_public_share_of_the_rows() -> None:
    for d, epsilon in ((3, 1.0), (8, 0.3), (113, 1.0), (125, 3.0)):
        threshold = histogram_threshold(d, 0.1 * epsilon)
        rows = math.ceil(threshold / AUTO_ROWS)
        assert ranges_by_default(rows, d, epsilon, 0.1) and not ranges_by_default(rows - 1, d, epsilon, 0.1)
    assert histogram_threshold(3, 0.1) == pytest.approx(2 * 60 * math.log(256))


@pytest.mark.parametrize(("epsilon", "classes", "fit", "drawn"), [
    (1.0, (0, 1), {}, True),          # T = 665 <= 0.4 x 4000
    (0.3, (0, 1), {}, False),         # T = 2218 > 1600
    (1.0, (0, 1, 2), {}, True),       # more than two classes: the same rule, drawn once for the k fits
    (0.3, (0, 1, 2), {}, False),
    (1.0, (0, 1), {"sparse": True}, False),
    (1.0, (0, 1), {"neighbours": "add-remove", "delta": 1e-6, "n_public": 4000}, False),
])
def test_a_default_fit_draws_the_ranges_exactly_when_the_rule_says(data, monkeypatch, epsilon, classes, fit,
                                                                  drawn) -> None:
    X, y = data
    y = np.arange(len(y)) % 3 if len(classes) == 3 else y
    settings = dict(fit)
    rows = sparse.csr_matrix(X) if settings.pop("sparse", False) else X
    draws = []
    original = column_histogram.discrete_laplace_array
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: draws.append(a) or original(*a))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    estimator = dpcvx.DPLogisticRegression(epsilon=epsilon, classes=classes, random_state=0, **settings).fit(
        rows, y, accountant=accountant)
    assert estimator.column_statistics == "auto"
    group = 2 if "neighbours" in settings else 1  # add-remove charged to a replace-one accountant: group privacy
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == pytest.approx(group * epsilon)
    assert bool(draws) == drawn
    record = getattr(estimator.certificate_, "column_statistics", None)
    assert (record is not None) == drawn
    if drawn:
        assert record["epsilon"] == pytest.approx(0.1 * epsilon) and "histograms" in record["theorem"]
        assert "private column statistics" in estimator.certificate_.guarantee


def test_auto_resolves_from_public_inputs_before_any_charge(data, monkeypatch) -> None:
    X, y = data
    learner_ = dpcvx.DPLogisticRegression()._private_erm()
    assert auto_statistics(learner_, X, 1.0, "replace-one") == "ranges"
    assert auto_statistics(learner_, X[:1000], 1.0, "replace-one") is False  # T = 665 > 400
    assert auto_statistics(learner_.set_params(clip=False), X, 1.0, "replace-one") is False
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: pytest.fail("histograms drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    labels = y.copy()
    labels[0] = 5  # outside the public classes: refused before the charge
    with pytest.raises(InputError):
        dpcvx.DPLogisticRegression().fit(X, labels, accountant=accountant)
    with pytest.raises(InputError, match="column_statistics"):
        dpcvx.DPLogisticRegression(column_statistics="always").fit(X, y, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("penalty", [{"penalty": "l1"}, {"penalty": "elasticnet", "l1_ratio": 0.5}])
def test_auto_draws_no_ranges_for_a_proximal_fit(data, monkeypatch, penalty) -> None:
    # an L1 term is solved by proximal Newton, whose budget is proved but where the ranges' gain was never measured:
    # "auto" resolves to no statistics and the default fit runs, as it did before that path was proved
    X, y = data
    estimator = dpcvx.DPLogisticRegression(lam=1e-3, **penalty)
    assert auto_statistics(dpcvx.DPLogisticRegression()._private_erm(), X, 1.0, "replace-one") == "ranges"
    assert auto_statistics(estimator._private_erm(), X, 1.0, "replace-one") is False
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: pytest.fail("histograms drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    estimator.fit(X, y, accountant=accountant)
    assert getattr(estimator.certificate_, "column_statistics", None) is None
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == pytest.approx(1.0)


def test_the_clipping_warning_counts_the_users_rows_not_the_maps(data) -> None:
    # the map widens the narrow columns so that many mapped rows exceed R (clipped by its public rule, no warning);
    # rows above R as given are counted, NOT PRIVATE, as on every path
    X, y = data
    for rows, expected in ((X, None), (X * np.where(np.arange(len(X)) < 7, 10.0, 1.0)[:, None], 7)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = learner().fit(rows, y, 3.0, random_state=1)
        assert np.any(model.rows.feature_map.multiplier > 5)  # the columns were widened
        notes = [str(w.message) for w in caught if issubclass(w.category, dpcvx.ClippingWarning)]
        assert notes == ([] if expected is None else [f"{expected} of {len(X)} rows had norm above R = 1" +
                                                      notes[0].split("R = 1", 1)[1]])
