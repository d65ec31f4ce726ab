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
from dpcvx.exceptions import InputError
from dpcvx.models import column_statistics
from dpcvx.privacy import column_histogram, exact_sampling
from dpcvx.privacy.column_histogram import (
    HISTOGRAM_DEPTH,
    LOCATED_FILL,
    histogram_depth,
    histogram_level,
    histogram_levels,
    histogram_threshold,
)
from dpcvx.sklearn.noise_warning import NoiseDominatesWarning

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
    ({"column_statistics": "ranges"}, {"rows": 1000}, "too few"),
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
    ({}, 1500, False),  # n below the level's rule at epsilon 1
    ({"epsilon": 0.3}, 5000, False),  # n below it at epsilon 0.3
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
    assert column_statistics.label_range_offered(rows, settings.get("epsilon", 1.0)) is (rows == 5000
                                                                                         and "epsilon" not in settings)


def test_the_default_is_auto(data, monkeypatch) -> None:
    """DPHuberRegressor()'s default draws the ranges where the public rule says so, and nothing below it."""
    X, y = data
    assert dpcvx.DPHuberRegressor().column_statistics == "auto"
    model = dpcvx.DPHuberRegressor(label_bound=LABEL_RANGE, random_state=2).fit(X, y)
    assert model.certificate_.column_statistics is not None
    monkeypatch.setattr(column_histogram, "discrete_laplace_array", lambda *a: pytest.fail("histograms drawn"))
    with pytest.warns(NoiseDominatesWarning, match="the label was not located"):
        small = dpcvx.DPHuberRegressor(label_bound=LABEL_RANGE, random_state=2).fit(X[:1500], y[:1500])
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


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label's range
def test_a_tune_run_on_too_few_rows_keeps_the_public_bound(data) -> None:
    """A plan made at n rows, run on fewer than the level needs: the label keeps B (no level, no draw)."""
    X, y = data
    plan = huber().plan(X, y)
    model = plan.fit(X[:1500], y[:1500], random_state=5)
    record = model.certificate_.column_statistics
    assert record["label_level"] is None and record["label_cells"] is None
    assert model.certificate_.label_bound == 500.0
