"""DPHuberRegressor warns NoiseDominatesWarning when n is too small to locate its label privately: below
label_range_rows(epsilon) no label range is drawn, the labels are centred at the public midpoint and the noise scales
with the public half-width B (docs/theory.md section 34.1, "the warning"). The rule reads epsilon, n and the
neighbour relation only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning
from dpcvx.models.column_statistics import label_range_offered, label_range_rows
from dpcvx.privacy.column_histogram import LABEL_LOCATED_DEPTH

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning",
                                        "ignore::dpcvx.exceptions.TrainingRowsWarning")

EPSILON = 3.0  # label_range_rows(3) = 168: the boundary fits stay small
OPTIONS = {"epsilon": EPSILON, "label_bound": (0.0, 100_000.0), "random_state": 0}


def loose_label(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three columns in a few hundredths of [-1, 1], a label near 400 +- 190 in the public [0, 100000]."""
    rng = np.random.default_rng(seed)
    X = np.array([0.3, -0.2, 0.1]) + 0.02 * rng.standard_normal((n, 3))
    return X, np.clip(400 + 9000 * (X[:, 0] - 0.3) + 50 * rng.standard_normal(n), 0, 100_000)


def located_messages(X: np.ndarray, y: np.ndarray, **settings: object) -> list[str]:
    """The texts of the fit's NoiseDominatesWarnings that say the label was not located."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPHuberRegressor(**{**OPTIONS, **settings}).fit(X, y)
    return [str(w.message) for w in caught
            if issubclass(w.category, NoiseDominatesWarning) and "the label was not located" in str(w.message)]


def test_the_least_rows_are_the_offer_rules_boundary() -> None:
    for epsilon in (0.3, 1.0, EPSILON):
        least = label_range_rows(epsilon)
        assert label_range_offered(least, epsilon) and not label_range_offered(least - 1, epsilon)
    assert label_range_rows(0.3) > label_range_rows(1.0) > label_range_rows(EPSILON)


def test_an_unlocated_label_warns_by_the_rule_and_the_text_reads_public_numbers_only() -> None:
    """One row below the least n: the label is not located and the warning says so, with the n it needs; the same
    text on other rows of the same size; at the least n the label's range is drawn (on the coarsest grid, 2^4 cells)
    and the warning says it is located only coarsely, up to the least n of the 2^6 grid (LABEL_LOCATED_DEPTH), where
    it is silent. The seeded release below it is far below predicting the labels' mean; at the least n
    the coarse range still leaves it far below (seeded: about -31; the 16 cells of 6,250 over [0, 100000] put the
    centre near 3,125), and at four times the least n (the 2^8 grid) it is far above."""
    least = label_range_rows(EPSILON)
    X, y = loose_label(least - 1)
    messages = located_messages(X, y)
    assert len(messages) == 1 and f"n={least - 1} " in messages[0] and f"n >= {least}" in messages[0]
    assert "B=50000" in messages[0] and "at epsilon=3 (it needs" in messages[0]
    assert "label_bound=(lo, hi)" in messages[0] and "reads epsilon and n only" in messages[0]
    assert messages[0].startswith("DPHuberRegressor: the label was not located")
    assert located_messages(*loose_label(least - 1, seed=9)) == messages
    assert located_messages(*loose_label(least)) == []
    held_out = loose_label(1000, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        below = dpcvx.DPHuberRegressor(**OPTIONS).fit(X, y)
    with pytest.warns(NoiseDominatesWarning, match="located only coarsely") as coarse_warning:
        coarse = dpcvx.DPHuberRegressor(**OPTIONS).fit(*loose_label(least))
    fine = label_range_rows(EPSILON, LABEL_LOCATED_DEPTH)  # 336: the 2^6 grid
    assert f"n={least} " in str(coarse_warning[0].message) and f"n >= {fine}" in str(coarse_warning[0].message)
    assert "grid of 16 cells" in str(coarse_warning[0].message) and "6250" in str(coarse_warning[0].message)
    with pytest.warns(NoiseDominatesWarning, match="located only coarsely"):
        dpcvx.DPHuberRegressor(**OPTIONS).fit(*loose_label(fine - 1))
    with warnings.catch_warnings(record=True) as caught:  # the label rule is silent from the 2^6 grid on
        warnings.simplefilter("always")
        dpcvx.DPHuberRegressor(**OPTIONS).fit(*loose_label(fine))
    assert not [w for w in caught if issubclass(w.category, NoiseDominatesWarning) and "located" in str(w.message)]
    located = dpcvx.DPHuberRegressor(**OPTIONS).fit(*loose_label(4 * least))
    assert below.certificate_.column_statistics is None and coarse.certificate_.column_statistics["label_depth"] == 4
    assert located.certificate_.column_statistics["label_depth"] == 8
    assert below.score(*held_out) < -1 < 0.5 < located.score(*held_out)  # seeded: about -20 and 0.88
    assert located_messages(*loose_label(least - 1), label_bound=(0.0, 1000.0)) != messages  # B is in the text


def test_the_rule_holds_whatever_column_statistics_says_and_not_under_add_remove() -> None:
    """Below the least n "auto" and False draw no label range ("ranges" is refused there), so each warns; under
    add-remove n is private and nothing is said."""
    least = label_range_rows(EPSILON)
    X, y = loose_label(least - 1)
    for option in ("auto", False):
        assert len(located_messages(X, y, column_statistics=option)) == 1
    assert located_messages(X, y, column_statistics=False, neighbours="add-remove", n_public=least - 1,
                            delta=1e-6) == []


def hours(n: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """A prober's table: hours 0..200 from four columns uniform on [0, 1] (PublicSchema rows)."""
    rng = np.random.default_rng(seed)
    raw = rng.uniform(0, 1, (n, 4))
    y = np.clip(40 + 100 * raw[:, 0] + 30 * raw[:, 1] + rng.normal(0, 5, n), 0, 200)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{j}", 0, 1) for j in range(4)))
    return schema.transform({f"x{j}": raw[:, j] for j in range(4)}), y


@pytest.mark.parametrize("high, said", [(1e4, False), (1e6, True)])
def test_a_label_in_one_cell_of_a_fine_grid_is_not_resolved(high: float, said: bool) -> None:
    """Hours 0..200 declared (0, 1e6): the histogram of 2^8 cells (depth 8, not coarse) holds every label in one cell,
    B' is that cell's, and the release scored R^2 -2.5 with no public word. Its released cells are public: a range of
    one cell is said, as DPLinearRegression's least B' is; declared (0, 1e4) the label spans three cells, nothing."""
    X, y = hours(5000)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fitted = dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0.0, high), random_state=0).fit(X[:3000], y[:3000])
    score = fitted.score(X[3000:], y[3000:])
    assert (score < 0) if said else (score > 0.9), score  # the seeded releases: R^2 -2.5 and 0.96
    record = fitted.certificate_.column_statistics
    assert record["label_depth"] >= LABEL_LOCATED_DEPTH
    texts = [str(w.message) for w in caught
             if issubclass(w.category, NoiseDominatesWarning) and "label's range was not resolved" in str(w.message)]
    assert bool(texts) == said, texts
    if said:
        (low,), (top,) = record["label_cells"]
        assert top - low == 1 and "over 2^8 cells" in texts[0] and "label_bound=(lo, hi)" in texts[0]
