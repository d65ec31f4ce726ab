"""Each NOT PRIVATE clipping note is warned once per fit, at its source, under the warnings filter "always" too.

A composite fit (a private class count for ``class_weight="balanced"`` or ``class_prior="private"``, column
statistics, a private bound) runs its checks on the same rows several times: its plan, its checks at the other end
of the released rates, its fit after the charge. Each block of checks found the same count and showed it; the
"default" filter hid the repeats (same text, same line), "always" showed the row count two or three times.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpcvx import PrivateERM
from dpcvx.exceptions import ClippingWarning, InputError
from dpcvx.sklearn.classifiers import DPLogisticRegression

RNG = np.random.default_rng(0)
X = RNG.normal(size=(600, 3))  # most rows have norm above 1: a row clipping count
Y = np.where(RNG.random(600) < 0.2, 1, 0)


def _clipping_counts(fit: Callable[[], Any]) -> Counter[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return Counter(str(w.message) for w in caught if issubclass(w.category, ClippingWarning))


@pytest.mark.parametrize("settings", [
    {"class_weight": "balanced"},  # a private class count: planned at 1/2, checked at the floor, fitted
    {"class_prior": "private"},
    {"class_weight": "balanced", "column_statistics": True, "epsilon": 5.0},
    {"class_weight": "balanced", "class_prior": (0.8, 0.2)},  # public rates: no composite
])
def test_estimator_row_clipping_warned_once(settings: dict[str, Any]) -> None:
    options = {"epsilon": 1.0, "data_norm": 1.0, "random_state": 0, **settings}
    counts = _clipping_counts(lambda: DPLogisticRegression(**options).fit(X, Y))
    assert len(counts) == 1 and set(counts.values()) == {1}, counts


def test_learner_with_private_count_warns_once() -> None:
    learner = PrivateERM(data_norm=1.0, class_weight="balanced", classes=(0, 1))
    counts = _clipping_counts(lambda: learner.fit(X, Y, epsilon=1.0, random_state=0))
    assert list(counts.values()) == [1], counts


def test_a_private_norm_bound_warns_each_count_once() -> None:
    """data_norm="private": the checks at the grid's ends count rows beyond bounds that are not the fit's (dropped);
    the fit at the drawn bound counts its own once."""
    learner = PrivateERM(data_norm="private", norm_range=(0.5, 4.0), classes=(0, 1))
    counts = _clipping_counts(lambda: learner.fit(X, Y, epsilon=1.0, random_state=0))
    assert set(counts.values()) <= {1} and len(counts) <= 1, counts


def test_refused_composite_fit_shows_no_note() -> None:
    """A composite fit whose later check refuses shows none of the counts its earlier checks found."""
    learner = PrivateERM(data_norm=1.0, class_weight="balanced", classes=(0, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(InputError):
            learner.fit(X, Y, epsilon=1.0, delta=0.5, random_state=0)  # delta above 1/n: refused
    assert not [w for w in caught if issubclass(w.category, ClippingWarning)]


@pytest.mark.parametrize("planned", [False, True], ids=["fit", "plan"])
def test_one_vs_rest_over_a_binary_that_draws_a_count_notes_once(planned: bool) -> None:
    """One-vs-rest whose binary learner draws a class count (class_weight='balanced'): the composite's plan on the
    first class's rows and every class's checks read the same rows; the row count is warned once per call (twice in a
    fit before, and in a planned fit's checks)."""
    from dpcvx import PrivateMulticlassERM

    labels = np.arange(600) % 3
    learner = PrivateMulticlassERM(PrivateERM(loss="logistic", lam=0.01, data_norm=1.0, fit_intercept=True,
                                              class_weight="balanced"), (0, 1, 2))
    plans: list[Any] = []
    if planned:  # two calls, each its own note: the plan's checks, and the checks of its fit
        assert set(_clipping_counts(lambda: plans.append(learner.plan(X, labels, epsilon=1.0))).values()) == {1}
        plan = plans[0]
        counts = _clipping_counts(lambda: plan.fit(X, labels, random_state=0))
    else:
        counts = _clipping_counts(lambda: learner.fit(X, labels, 1.0, random_state=0))
    assert counts and set(counts.values()) == {1}
