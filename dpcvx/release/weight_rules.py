"""The public rules that make a release's record weights from its public inputs (docs/theory.md, section 21): the
balanced class weights of class rates, w_max, the mean weight s_bar, the rates a released class count gives and the
log-odds of rates, and the ridge centred at an intercept offset's log-odds (:class:`CentredRidge`).

One implementation, read by the fit that makes the weights (:mod:`dpcvx.models.record_weights`,
:mod:`dpcvx.models.class_count`) and by the model file reader that checks a recorded ``certificate.weights`` against
them (:mod:`dpcvx.release.records.release_certificate`). Pure arithmetic on public numbers (the ridge builds its
CVXPY expression, and its text, from its public centre)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built
    import cvxpy as cp

__all__ = ["CentredRidge", "MIN_CLASS_RATE", "balanced_weights", "count_floor", "count_rates", "log_odds",
           "mean_record_weight", "prior_rates", "weight_bound"]

MIN_CLASS_RATE = 0.01  # the public floor f / n of each released class count


def count_floor(n: int) -> int:
    """f = ceil(MIN_CLASS_RATE n), at least 1: the least count either class of n public records is released with
    (public), by the fit (:mod:`dpcvx.models.class_count`) and checked by the model file reader."""
    return max(1, math.ceil(MIN_CLASS_RATE * n))


def balanced_weights(rates: tuple[float, float]) -> tuple[float, float]:
    """w_k = min_j pi_j / pi_k: scikit-learn's "balanced" n / (2 n_k) scaled so that the largest weight is 1."""
    smallest = min(rates)
    return tuple(1.0 if rate == smallest else smallest / rate for rate in rates)  # type: ignore[return-value]


def prior_rates(weights: Sequence[float]) -> tuple[float, float]:
    """The rates (pi_negative, pi_positive) that class weights (w_negative, w_positive) balance: pi_k proportional to
    1 / w_k, that is pi_k = w_other / (w_negative + w_positive) (defined for a weight 0 too: the other class's rate
    is then 0). What a file that records balanced weights of a public prior, and not the prior, states about it (up
    to rounding); and the public rate the small-table rule reads for any class weights, a dict's, a prior's or a
    private count's (:func:`dpcvx.sklearn.noise_warning.warn_if_small_table`), so that the same weights warn alike."""
    total = weights[0] + weights[1]
    return weights[1] / total, weights[0] / total


def count_rates(count: int, n: int) -> tuple[float, float]:
    """The rates (1 - n~_+ / n, n~_+ / n) of a released count n~_+ of the positive class among n public records."""
    return (n - count) / n, count / n


def log_odds(rates: tuple[float, float]) -> float:
    """b0 = log(pi_+ / pi_-) of rates (pi_-, pi_+): the intercept offset's centre and the cut of threshold "prior"
    (:mod:`dpcvx.models.intercept_offset`), and what the release report says of them."""
    return math.log(rates[1] / rates[0])


def weight_bound(class_weights: Sequence[float] | None, sample_bound: float | None) -> float:
    """w_max = sample_weight_bound (1 without) times the largest class weight (1 without): a double no smaller than
    any s_i as computed (rounding is monotone)."""
    largest = 1.0 if class_weights is None else max(class_weights)
    return (1.0 if sample_bound is None else sample_bound) * largest


def mean_record_weight(rates: tuple[float, float] | None, class_weights: Sequence[float] | None,
                       sample_bound: float | None) -> float | None:
    """s_bar = sum_k pi_k w_k (2 pi_min for balanced weights) when the rates are public and no ``sample_weight``
    is taken, else None."""
    if rates is None or class_weights is None or sample_bound is not None:
        return None
    return sum(rate * weight for rate, weight in zip(rates, class_weights, strict=True))


@dataclass(frozen=True)
class CentredRidge:
    """N(w) = (1/2) ||w - w0||^2 with w0 = (0, ..., 0, ``centre``): the intercept column's weight last.

    Written N(w) = 0.5 * sum_squares(w + (0, ..., 0, -centre)), the shift a named constant whose name is its value
    (the shortest repr of the float, the zeros elided beyond three entries), so that the certificate states the public
    centre as a regularizer's text, not as numpy's print of an array (which rounds it to its print options). A value
    of its public centre, so that a plan holding it pickles."""

    centre: float

    def __call__(self, w: cp.Variable) -> cp.Expression:
        import cvxpy as cp

        shift = np.zeros(w.shape[0])
        shift[-1] = -float(self.centre)
        zeros = ["0"] * (shift.size - 1) if shift.size <= 3 else ["0", "...", "0"]
        named = cp.Constant(shift, name=f"({', '.join([*zeros, repr(float(shift[-1]))])})")
        return 0.5 * cp.sum_squares(w + named)
