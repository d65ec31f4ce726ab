"""DPHuberRegressor(column_statistics="auto" or "ranges"): private ranges of the columns and of the label, pure
epsilon (docs/theory.md, section 34.1; dpcvx.models.column_statistics with a label, dpcvx.privacy.column_histogram)."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx.data.standardiser import histogram_label_range
from dpcvx.exceptions import InputError, NoiseDominatesWarning
from dpcvx.models import column_statistics
from dpcvx.privacy import column_histogram, exact_sampling
from dpcvx.privacy.column_histogram import (
    HISTOGRAM_DEPTH,
    LABEL_MIN_DEPTH,
    LOCATED_FILL,
    histogram_depth,
    histogram_level,
    histogram_levels,
    histogram_threshold,
    label_depth,
    running_noise,
)
from dpcvx.privacy.column_ranges import least_rows

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning",
                                        "ignore::dpcvx.exceptions.TrainingRowsWarning")

LABEL_RANGE = (0.0, 1000.0)  # public: B = 500 after the shift 500


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray]:
    """Columns in a small part of [-1, 1] and a label in a small part of its public range [0, 1000]."""
    rng = np.random.default_rng(1)
    X = 0.3 + 0.02 * rng.standard_normal((5000, 3))
    y = 400 + 2000 * (X[:, 0] - 0.3) + 10 * rng.standard_normal(5000)
    return X, y


def huber(**settings: object) -> dpcvx.DPHuberRegressor:
    return dpcvx.DPHuberRegressor(**{"epsilon": 1.0, "label_bound": LABEL_RANGE, "column_statistics": "auto",
                                     **settings})


def test_the_levels_of_noiseless_counts_are_the_rank_levels() -> None:
    counts = np.zeros((1, 1 << HISTOGRAM_DEPTH), dtype=np.int64)
    counts[0, 10:20] = 10  # 100 rows, 10 per cell in cells 10 ... 19
    # q = 0.2: 20 rows are reached at the end of cell 11, 80 at the end of cell 17 (its right edge 18)
    assert histogram_levels(counts, 100, 0.2).tolist() == [[11], [18]]
    assert histogram_levels(np.zeros_like(counts), 100, 0.2).tolist() == [[0], [1 << HISTOGRAM_DEPTH]]


def test_the_level_is_the_search_rule_at_the_running_noise() -> None:
    sigma = math.sqrt(2 * (1 << HISTOGRAM_DEPTH)) * 2 / 0.3  # eps_l = 0.3
    assert histogram_level(100_000, 1, 0.3) == 0.1
    assert histogram_level(4000, 1, 0.3) == pytest.approx(4 * sigma / 4000)
    assert histogram_level(2000, 1, 0.3) is None  # 4 sigma / n above 0.3


def test_noise_is_drawn_at_the_calibrated_scales(data, monkeypatch) -> None:
    """The exact check: the features' histograms at 2 d / eps_s and the label's at 2 / eps_l, no other draw."""
    X, y = data
    scales: list[Fraction] = []
    draw = exact_sampling.discrete_laplace_array

    def recorded(scale: Fraction, size: int, source: object) -> np.ndarray:
        scales.append(scale)
        return draw(scale, size, source)

    monkeypatch.setattr(column_histogram, "discrete_laplace_array", recorded)
    model = huber(random_state=4).fit(X, y)
    record = model.certificate_.column_statistics
    assert record["epsilon"] == pytest.approx(0.2) and record["label_epsilon"] == pytest.approx(0.3)
    assert record["depth"] == histogram_depth(5000, 3, record["epsilon"])
    assert scales == [Fraction(2 * 3) / Fraction(record["epsilon"]), Fraction(2) / Fraction(record["label_epsilon"])]
    assert record["sensitivity"] == 6 and record["label_level"] == histogram_level(5000, 1, record["label_epsilon"])


def test_one_charge_the_label_mapped_back_and_a_file_that_round_trips(data, tmp_path) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = huber(random_state=3).fit(X, y, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    certificate = model.certificate_
    assert [part.epsilon for part in certificate.privacy_curve.parts] == pytest.approx([0.2, 0.3, 0.5])
    assert certificate.total_epsilon == pytest.approx(1.0) and "private label range" in str(certificate)
    record = certificate.column_statistics
    shift, bound = histogram_label_range(np.array(record["label_cells"]), 500.0, record["label_level"])
    assert certificate.label_bound == bound < 200 and record["label_bound"] == 500.0  # B' from the cells
    assert abs(shift + 500 - 400) < 40  # the label's centre, on the public shift's scale
    plain = huber(random_state=3, column_statistics=False).fit(X, y)
    assert model.score(X, y) > 0.8 > plain.score(X, y) + 0.3  # predictions on the label's own scale
    path = tmp_path / "model.json"
    dpcvx.save(model.model_, path)
    assert np.array_equal(dpcvx.load(path).predict(X), model.predict(X))
    for edit, message in (
            (lambda saved: saved["column_statistics"]["label_cells"][1].__setitem__(0, 1 + record["label_cells"][1][0]),
             "label_bound is not the bound"),
            (lambda saved: saved["column_statistics"].update(label_level=0.2), "label_level"),
            (lambda saved: saved["column_statistics"].update(depth=record["depth"] - 1), "depth"),
            (lambda saved: saved["column_statistics"]["label_cells"][0].__setitem__(0, -1), "label_cells"),
            (lambda saved: saved.update(label_bound=2 * certificate.label_bound), "label_bound is not the bound")):
        saved = json.loads(path.read_text())
        edit(saved["certificate"])
        edited = tmp_path / "edited.json"
        edited.write_text(json.dumps(saved))
        with pytest.raises(InputError, match=message):
            dpcvx.load(edited)


@pytest.mark.parametrize(("settings", "fit", "message"), [
    ({"column_statistics": "ranges", "clip": False}, {}, "clip=False"),
    ({"column_statistics": "ranges", "neighbours": "add-remove", "n_public": 5000}, {}, "replace-one"),
    ({"column_statistics": "ranges", "label_bound": "private", "m": 1.0}, {}, "private"),
    ({"column_statistics": "range"}, {}, "'ranges'"),
    ({"column_statistics": "ranges"}, {"rows": 400}, "too few"),  # label_range_rows(1) = 503
])
def test_refusals_spend_nothing_and_draw_nothing(data, monkeypatch, settings, fit, message) -> None:
    X, y = data
    rows = fit.get("rows", len(y))
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: pytest.fail("histograms drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=message):
        huber(**settings).fit(X[:rows], y[:rows], accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize(("settings", "rows", "drawn"), [
    ({}, 5000, True),
    ({}, 1500, True),  # the label's grid of 2^7 cells at epsilon 1
    ({}, 400, False),  # n below the level's rule at every depth at epsilon 1 (503)
    ({"epsilon": 0.3}, 5000, True),  # 2^7 cells at epsilon 0.3
    ({"epsilon": 0.3}, 1500, False),  # n below the rule at epsilon 0.3 (1,677)
    ({"neighbours": "add-remove", "n_public": 5000, "delta": 1e-6}, 5000, False),
    ({"float_safe": True}, 5000, False),
    ({"column_statistics": False}, 5000, False),
])
def test_auto_draws_by_a_public_rule(data, settings, rows, drawn) -> None:
    """And the label is said not located exactly when n is below its rule under replace-one (public n, epsilon)."""
    X, y = data
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = huber(random_state=2, **settings).fit(X[:rows], y[:rows])
    assert (model.certificate_.column_statistics is not None) is drawn
    unlocated = rows < column_statistics.label_range_rows(settings.get("epsilon", 1.0)) and "n_public" not in settings
    assert any("the label was not located" in str(w.message) for w in caught) is unlocated
    assert column_statistics.label_range_offered(rows, settings.get("epsilon", 1.0)) is (rows > 1500 or rows == 1500
                                                                                         and "epsilon" not in settings)


def test_the_default_is_auto(data, monkeypatch) -> None:
    """DPHuberRegressor()'s default draws the ranges where the public rule says so, and nothing below it."""
    X, y = data
    assert dpcvx.DPHuberRegressor().column_statistics == "auto"
    model = dpcvx.DPHuberRegressor(label_bound=LABEL_RANGE, random_state=2).fit(X, y)
    assert model.certificate_.column_statistics is not None
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: pytest.fail("histograms drawn"))
    with pytest.warns(NoiseDominatesWarning, match="the label was not located"):
        small = dpcvx.DPHuberRegressor(label_bound=LABEL_RANGE, random_state=2).fit(X[:400], y[:400])
    assert small.certificate_.column_statistics is None


def test_the_depth_rule_at_its_boundary() -> None:
    """The largest D with LOCATED_FILL 2^D T(D) <= n (public n, d, eps_s), at least 1, at most HISTOGRAM_DEPTH."""
    def need(depth: int) -> float:
        return LOCATED_FILL * (1 << depth) * histogram_threshold(10, 0.2, depth)

    assert histogram_threshold(10, 0.2, 6) == pytest.approx(2 * 100 * 6 * math.log(2))
    assert histogram_depth(math.ceil(need(6)), 10, 0.2) == 6
    assert histogram_depth(math.ceil(need(7)) - 1, 10, 0.2) == 6
    assert histogram_depth(math.ceil(need(7)), 10, 0.2) == 7
    assert histogram_depth(1, 10, 0.2) == 1 and histogram_depth(10**9, 10, 0.2) == HISTOGRAM_DEPTH


def test_the_features_are_ranged_on_the_coarser_grid(monkeypatch) -> None:
    """Noiseless counts (the noise replaced by zeros): d = 10 columns in one cell of the 2^6 grid at n = 3,000 are
    released as that cell, on the grid of depth 6 that the rule gives, and the map centres them there."""
    rng = np.random.default_rng(0)
    X = 0.3 + 0.005 * rng.random((3000, 10))  # cell floor((0.3 + 1) 2^6 / 2) = 41 of 64
    y = 400 + 5000 * (X[:, 0] - 0.3) + rng.standard_normal(3000)
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda scale, size, source: np.zeros(
        size, dtype=np.int64))
    model = huber(random_state=1).fit(X, y)
    record = model.certificate_.column_statistics
    assert record["depth"] == histogram_depth(3000, 10, 0.2) == 6
    assert record["cells"] == [[41] * 10, [42] * 10]
    centre = model.model_.rows.feature_map.centre
    assert np.allclose(centre, -1 + 2 * 41.5 / 64)


def test_a_column_spread_thin_is_not_located_by_a_few_noisy_cells() -> None:
    """A prober's table: two columns uniform on [0, 1] and two on [0, 100,000], declared so (15,000 rows, the label
    1,000 + 400 a + 0.004 b). At epsilon 2 a few noisy cells of b's histogram crossed T, each uniform cell's count being
    under it, and located b in a quarter of its cells: the map clipped the rest of b and R^2 fell from 0.917 at
    epsilon 1 to 0.80, more budget and a worse model. The kept cells now hold half of n or the column is sought on the
    coarser grids (the classifiers' rule, in the window ranges_map keeps unclipped): b is located on all of its cells
    or not at all, and the fit keeps its epsilon-1 score."""
    rng = np.random.default_rng(106)
    n = 20000
    raw = {"a": rng.uniform(0, 1, n), "b": rng.uniform(0, 100000, n), "c": rng.uniform(0, 1, n),
           "e": rng.uniform(0, 100000, n)}
    y = np.clip(1000 + 400 * raw["a"] + 0.004 * raw["b"] + rng.normal(0, 50, n), 0, 3000)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(key, 0, high) for key, high in
                                      zip(raw, (1, 100000, 1, 100000), strict=True)), norm=1.0)
    X = schema.transform(raw)
    train, test = slice(0, 15000), slice(15000, None)
    scores = []
    for epsilon in (1.0, 2.0):
        fitted = dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=(0, 3000), random_state=0).fit(
            X[train], y[train])
        low, high = np.asarray(fitted.certificate_.column_statistics["cells"])
        cells = 1 << fitted.certificate_.column_statistics["depth"]
        occupied = cells // 4, 3 * cells // 4  # each column fills [-R / 2, R / 2] of the grid over [-R, R]
        located = (low > 0) | (high < cells)
        assert np.all(~located | ((low <= occupied[0] + 2) & (high >= occupied[1] - 2))), (low, high)
        scores.append(fitted.score(X[test], y[test]))
    assert scores[1] > scores[0] - 0.02 and min(scores) > 0.9, scores


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label's range
def test_a_tune_run_on_too_few_rows_keeps_the_public_bound(data) -> None:
    """A plan made at n rows, run on fewer than the level needs: the label keeps B (no level, no draw)."""
    X, y = data
    plan = huber().plan(X, y)
    model = plan.fit(X[:400], y[:400], random_state=5)
    record = model.certificate_.column_statistics
    assert record["label_level"] is None and record["label_cells"] is None
    assert model.certificate_.label_bound == 500.0


def test_the_label_depth_rule_at_its_boundaries() -> None:
    """The deepest D in LABEL_MIN_DEPTH ... HISTOGRAM_DEPTH with a level at sigma_r of 2^D cells (public n, eps_l):
    None one row below the least n at depth 4, 4 at it, and each deeper grid from its own least n on."""
    for eps_label in (0.09, 0.3):
        least = {depth: least_rows(running_noise(1, eps_label, depth))
                 for depth in range(LABEL_MIN_DEPTH, HISTOGRAM_DEPTH + 1)}
        assert label_depth(least[LABEL_MIN_DEPTH] - 1, eps_label) is None
        for depth, rows in least.items():
            assert label_depth(rows, eps_label) == depth
            assert label_depth(rows - 1, eps_label) == (depth - 1 if depth > LABEL_MIN_DEPTH else None)
        assert list(least.values()) == sorted(least.values())  # deeper grids need more rows
        assert label_depth(10**6, eps_label) == HISTOGRAM_DEPTH
    assert least_rows(running_noise(1, 0.09, LABEL_MIN_DEPTH)) == 1677 and least_rows(running_noise(1, 0.09)) == 6705
    assert column_statistics.label_range_rows(0.3) == 1677  # eps_l = 0.3 epsilon, the least n at depth 4
    assert running_noise(1, 0.3) == running_noise(1, 0.3, HISTOGRAM_DEPTH) == math.sqrt(2 * 256) * 2 / 0.3


@pytest.mark.filterwarnings("ignore:.*located only coarsely:dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_the_label_histogram_on_a_coarser_grid_is_drawn_at_the_exact_scale(data, monkeypatch) -> None:
    """1,000 rows at epsilon 1 (eps_l = 0.3): the label's grid has 2^5 cells; its one draw is of 32 counts at
    2 / eps_l exactly (a scale half as large fails), one charge of epsilon, cells within [0, 32]."""
    X, y = data
    draws: list[tuple[Fraction, int]] = []
    draw = exact_sampling.discrete_laplace_array

    def recorded(scale: Fraction, size: int, source: object) -> np.ndarray:
        draws.append((scale, size))
        return draw(scale, size, source)

    monkeypatch.setattr(column_histogram, "discrete_laplace_array", recorded)
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    model = huber(random_state=4).fit(X[:1000], y[:1000], accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    record = model.certificate_.column_statistics
    assert record["label_depth"] == label_depth(1000, record["label_epsilon"]) == 5
    assert record["label_level"] == histogram_level(1000, 1, record["label_epsilon"], 5)
    assert draws[1] == (Fraction(2) / Fraction(record["label_epsilon"]), 32) and len(draws) == 2
    assert all(0 <= cell <= 32 for side in record["label_cells"] for cell in side)
    shift, bound = histogram_label_range(np.array(record["label_cells"]), 500.0, record["label_level"], 5)
    assert model.certificate_.label_bound == bound and abs(shift + 500 - 400) < 100  # the label's centre


@pytest.mark.filterwarnings("ignore:.*located only coarsely:dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_load_refuses_an_edited_label_depth(data, tmp_path) -> None:
    X, y = data
    model = huber(random_state=3).fit(X[:1000], y[:1000])
    path = tmp_path / "model.json"
    dpcvx.save(model.model_, path)
    for depth in (HISTOGRAM_DEPTH, 4, None):
        saved = json.loads(path.read_text())
        saved["certificate"]["column_statistics"]["label_depth"] = depth  # the rule gives 5 at n = 1,000
        edited = tmp_path / "edited.json"
        edited.write_text(json.dumps(saved))
        with pytest.raises(InputError, match="label_depth"):
            dpcvx.load(edited)
    assert dpcvx.load(path).certificate.column_statistics["label_depth"] == 5


def loose_label(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three columns in a few hundredths of [-1, 1], a label near 400 +- 190 in the public [0, 100000]."""
    rng = np.random.default_rng(seed)
    X = np.array([0.3, -0.2, 0.1]) + 0.02 * rng.standard_normal((n, 3))
    return X, np.clip(400 + 9000 * (X[:, 0] - 0.3) + 50 * rng.standard_normal(n), 0, 100_000)


def test_a_label_in_a_small_part_of_a_loose_range_is_located_at_small_n_epsilon() -> None:
    """3,000 rows at epsilon 0.3: below the 6,705 rows of the 2^8 grid, the label's range is drawn on the 2^5 grid.
    Seeded, held-out R^2 of seeds 0 to 2: about 0.37, 0.44, 0.45 (the fit at the public B, before the depth rule:
    about -18, -40, -59). The 2^5 grid is below LABEL_LOCATED_DEPTH: each fit warns that the label was located only
    coarsely."""
    held_out = loose_label(1000, seed=99)
    for seed in range(3):
        with pytest.warns(NoiseDominatesWarning, match="located only coarsely"):
            model = dpcvx.DPHuberRegressor(epsilon=0.3, label_bound=(0.0, 100_000.0), random_state=seed).fit(
                *loose_label(3000, seed))
        assert model.certificate_.column_statistics["label_depth"] == 5
        assert model.score(*held_out) > -1
