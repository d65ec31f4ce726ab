"""DPHuberRegressor's advice when its private ranges could locate little (a probe of the sixty-ninth session, P2
finding 1): the default drew the columns' and the label's ranges (half of epsilon) on a price table of 500 one-hot
zip codes (n 16,000, d 502), where the features' histograms keep no cell, and released R^2 -0.03 while the
warning said only "raise epsilon" (epsilon 10: -0.009); column_statistics=False scored 0.23. The public rule
(regression_ranges_locate: the features' threshold T on the grid the fit draws on against AUTO_ROWS n) decides
when the NoiseDominatesWarning names the ranges' share and column_statistics=False, and the SmallTableWarning lists
it among the ways to gain (benchmarks/results/huber_auto_rule.md). "auto" itself is unchanged."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning, SmallTableWarning
from dpcvx.models.column_statistics import (
    AUTO_ROWS,
    REGRESSION_SHARE,
    ranges_keep_cells,
    regression_ranges_locate,
)
from dpcvx.privacy.column_histogram import histogram_depth, histogram_threshold
from dpcvx.sklearn.noise_warning import ranges_share_text

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning",
                                        "ignore::dpcvx.exceptions.TrainingRowsWarning")

RULE_TEXT = "the columns' private ranges could locate nothing"


@pytest.mark.parametrize(("n", "d", "epsilon", "locates", "keeps"), [
    (16_000, 502, 1.0, False, False),  # the probe's houses: T = 27,837 rows at depth 4, above n
    (16_000, 502, 3.0, True, False),   # depth 5: T = 11,599, below n but above AUTO_ROWS n
    (16_000, 33, 1.0, True, True),     # the probe's claims (one-hot policies and regions)
    (3_375, 11, 1.0, True, True),      # real_tables' energy, where the ranges gain R^2 +0.33
    (9_000, 213, 1.0, False, False),   # descent_advice's twocat150+60
    (1_500, 27, 3.0, True, False),     # the used cars of test_huber_guarantee_warning: T = 0.50 n, kept 0.70
])
def test_the_rule_is_the_threshold_on_the_fits_own_grid(n, d, epsilon, locates, keeps) -> None:
    eps_statistics = REGRESSION_SHARE * epsilon
    depth = histogram_depth(n, d, eps_statistics)
    assert regression_ranges_locate(n, d, epsilon) is locates
    assert ranges_keep_cells(n, d, eps_statistics, depth, rows=1.0) is locates
    assert (histogram_threshold(d, eps_statistics, depth) <= n) is locates
    assert ranges_keep_cells(n, d, eps_statistics, depth) is keeps  # the classifiers' AUTO_ROWS n
    assert (histogram_threshold(d, eps_statistics, depth) <= AUTO_ROWS * n) is keeps


def test_the_rule_holds_at_more_rows_and_fails_at_more_columns() -> None:
    """More rows keep a cell, more columns (noise 2 d / eps_s) do not."""
    assert not regression_ranges_locate(16_000, 502, 1.0)
    assert regression_ranges_locate(400_000, 502, 1.0)
    assert regression_ranges_locate(4_000, 3, 1.0) and not regression_ranges_locate(4_000, 300, 1.0)


def _record(n: int, d: int, epsilon: float, label: bool = True) -> dict:
    eps_statistics = REGRESSION_SHARE * epsilon
    record = {"epsilon": eps_statistics, "n": n, "depth": histogram_depth(n, d, eps_statistics),
              "cells": [[0] * d, [15] * d], "label_epsilon": 0.3 * epsilon, "total_epsilon": epsilon}
    return {**record, "label_cells": [[5], [44]]} if label else record


def test_the_text_names_the_share_and_the_alternative_from_public_numbers() -> None:
    text = ranges_share_text(_record(16_000, 502, 1.0))
    assert text is not None and text.startswith(RULE_TEXT)
    assert "n=16000, d=502 and eps_s=0.2" in text and "2^4 cells" in text and "T = 27837 rows" in text
    assert "more than the n rows" in text  # T above n: nothing is kept but by the noise's chance
    assert "eps_s + eps_l = 0.5 of your epsilon = 1" in text
    assert "DPHuberRegressor(column_statistics=False)" in text and "label_bound=(lo, hi)" in text
    assert "benchmarks/results/huber_auto_rule.md" in text and "7 of 8" in text
    assert "never the data" in text
    assert ranges_share_text(_record(16_000, 502, 3.0)) is None    # T = 11599 below n: some cells can be kept
    assert ranges_share_text(_record(16_000, 33, 1.0)) is None     # the histograms keep a cell: no word
    assert ranges_share_text(_record(16_000, 502, 1.0, label=False)) is None  # not a regression's record
    assert ranges_share_text(None) is None


def _wide(n: int, levels: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A one-hot block of ``levels`` columns and a numeric column, a label in [0, 100]."""
    rng = np.random.default_rng(seed)
    level = rng.integers(0, levels, n)
    X = np.zeros((n, levels + 1))
    X[np.arange(n), level] = 1.0
    X[:, -1] = rng.uniform(-1, 1, n)
    X /= np.sqrt(2.0)  # rows of norm at most 1
    y = np.clip(50 + rng.normal(0, 10, levels)[level] + 10 * X[:, -1] + rng.normal(0, 5, n), 0, 100)
    return X, y


def _messages(X: np.ndarray, y: np.ndarray, **settings: object) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=(0, 100), random_state=0, **settings).fit(X, y)
    return list(caught)


def test_a_default_fit_whose_histograms_keep_no_cell_warns_with_the_alternative() -> None:
    X, y = _wide(2_000, 100)
    assert not regression_ranges_locate(2_000, 101, 1.0)
    caught = _messages(X, y)
    noise = [str(w.message) for w in caught if w.category is NoiseDominatesWarning and RULE_TEXT in str(w.message)]
    assert len(noise) == 1 and "n=2000, d=101" in noise[0] and "column_statistics=False" in noise[0]
    small = [str(w.message) for w in caught if w.category is SmallTableWarning]
    assert len(small) == 1 and "DPHuberRegressor(column_statistics=False) (the NoiseDominatesWarning's note" in small[0]


def test_no_such_word_where_the_histograms_keep_a_cell_or_no_ranges_were_drawn() -> None:
    X, y = _wide(2_000, 2)
    assert regression_ranges_locate(2_000, 3, 1.0)
    assert not any(RULE_TEXT in str(w.message) or "column_statistics=False (the" in str(w.message)
                   for w in _messages(X, y))
    X, y = _wide(2_000, 100)
    assert not any(RULE_TEXT in str(w.message) or "column_statistics=False (the" in str(w.message)
                   for w in _messages(X, y, column_statistics=False))
