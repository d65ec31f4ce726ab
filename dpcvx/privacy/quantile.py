"""A private bound on the row norms: the exponential-mechanism quantile (Smith, STOC 2011), drawn exactly.

When no public bound R on ||x_i|| exists, a share eps_q of the budget buys one:

* the candidates are a PUBLIC grid, the powers of two in a public range [r_min, r_max]
  (:func:`power_of_two_grid`), never values read off the data;
* the score of r is u(r) = -| #{i : ||x_i|| <= r} - q n |, q the public target quantile;
* r is drawn with probability proportional to exp(eps_q u(r) / 2) by
  :func:`dpcvx.privacy.exponential.sample_exponential`, exactly (rationals and uniform integers only).

**Sensitivity and cost.** Under replace-one neighbours (n public) one replaced record changes each count
#{i : ||x_i|| <= r} by at most 1, so each u(r) moves by at most 1 and the draw is eps_q-DP (McSherry and
Talwar 2007); it is also eps_q^2 / 8-zCDP (Cesar and Rogers 2021). The fit that follows clips the rows to
the chosen bound and spends eps_fit, so the whole is (eps_q + eps_fit)-DP by sequential composition.

**Order.** :func:`private_norm_bound` checks its inputs and charges the accountant BEFORE it computes a
single norm; a refused call has read nothing and spends nothing.

**Exact scores.** :func:`quantile_scores` computes u(r) = -|c(r) - q n| in exact rational arithmetic: the
count c(r) is an integer, q is the exact rational value of the public double q (``Fraction(q)``) and n an
integer, so q n, the difference and its absolute value are exact ``Fraction`` values, and the scores of
two neighbouring data sets differ by |c(r) - c'(r)| <= 1 EXACTLY. In doubles, c - fl(q n) is rounded once
more: at n = 259, q = 0.01, c = 258 two neighbours' scores differ by 1 + 2.8e-14, which the exact sampler
would see as a sensitivity above the one it is calibrated to. The law is then drawn without exp() in
floating point. The row norms are computed in doubles: a norm within rounding of a grid point may be
counted on either side, which is a function of that row alone and keeps sensitivity 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sparse

from ..exceptions import InputError
from ..validation import check_bound, check_interval, fraction, not_two_dimensional, number_text
from .accountant import PrivacyAccountant, check_accountant, check_cost
from .exact_sampling import integer_source
from .exponential import exponential_probabilities, sample_exponential
from .neighbours import Neighbours
from .rng import RandomState

__all__ = ["power_of_two_grid", "row_norms", "quantile_scores", "quantile_probabilities", "NormBound",
           "private_norm_bound", "QUANTILE_SENSITIVITY", "COMPOSITION",
           "PRIVATE_BOUND_KEYS"]

QUANTILE_SENSITIVITY = 1.0  # replace-one: each count #{||x_i|| <= r} moves by at most 1
THEOREM = ("the exponential mechanism (McSherry and Talwar 2007) with score -|#{i : ||x_i|| <= r} - q n| of "
           "sensitivity 1 over a public grid (Smith, STOC 2011): eps_q-DP, replace-one neighbours")


COMPOSITION = ("sequential composition of the eps_q-DP quantiles and the fit at the drawn bounds, which is "
               "(eps_fit, delta)-DP at every grid point: (eps_q + eps_fit, delta)-DP (docs/theory.md, section "
               "'Private norm bounds')")


def power_of_two_grid(r_min: float, r_max: float, name: str | None = None) -> tuple[float, ...]:
    """The powers of two 2^k with r_min <= 2^k <= r_max (public; at least one): the candidates of a bound (R, B),
    so the range's ends are checked as every bound is (:func:`~dpcvx.validation.check_bound`); ``name`` is the
    range's name in the caller's words (an estimator's ``norm_range``), else its ends are r_min and r_max."""
    ends = ("r_min", "r_max") if name is None else (f"{name}[0]", f"{name}[1]")
    low, high = check_bound(ends[0], r_min), check_bound(ends[1], r_max)
    check_interval(f"({ends[0]}, {ends[1]})" if name is None else name, low, high, allow_equal=True)
    first, last = math.ceil(math.log2(low)), math.floor(math.log2(high))
    grid = tuple(math.ldexp(1.0, k) for k in range(first, last + 1) if low <= math.ldexp(1.0, k) <= high)
    if not grid:
        shown = f"[{ends[0]}, {ends[1]}]" if name is None else name
        raise InputError(f"{shown} = [{number_text(low)}, {number_text(high)}] holds no power of two; widen the "
                         "public range")  # the checked floats: a Fraction end has no :g (a bare TypeError)
    return grid


def row_norms(X: Any) -> np.ndarray:  # X: an array or a scipy.sparse matrix
    """||x_i||_2 of every row (dense or sparse). Reads the private data: call it only after the charge. A row whose
    squares pass the largest double (entries near 1e154 and beyond) has the norm inf, above every grid point as its
    true norm is, with no overflow warning: whether numpy warned told of one private row."""
    with np.errstate(over="ignore"):
        if sparse.issparse(X):
            return np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
        return np.linalg.norm(np.asarray(X, dtype=float), axis=1)


def quantile_scores(norms: np.ndarray, grid: tuple[float, ...], quantile: float) -> tuple[Fraction, ...]:
    """u(r) = -| #{i : norms_i <= r} - q n | for each r of the grid, as exact rationals.

    The count is an integer and q n = Fraction(q) * n is exact, so a replaced row moves each score by at most
    1 exactly (module notes, "Exact scores")."""
    target = Fraction(float(quantile)) * int(norms.shape[0])
    return tuple(-abs(int(np.count_nonzero(norms <= r)) - target) for r in grid)


def quantile_probabilities(norms: np.ndarray, grid: tuple[float, ...], quantile: float,
                           epsilon: float) -> np.ndarray:
    """The law of the chosen grid point (for tests and documentation; the exact scores rounded to doubles)."""
    scores = [float(score) for score in quantile_scores(norms, grid, quantile)]
    return exponential_probabilities(scores, epsilon, QUANTILE_SENSITIVITY)


@dataclass(frozen=True)
class NormBound:
    """A privately chosen bound R on the row norms and what it cost (public: the grid, q and eps_q)."""

    bound: float
    epsilon: float
    grid: tuple[float, ...]
    quantile: float
    theorem: str = THEOREM

    def to_dict(self) -> dict:
        return {"bound": self.bound, "epsilon": self.epsilon, "grid": list(self.grid), "quantile": self.quantile,
                "theorem": self.theorem, "neighbours": str(Neighbours.REPLACE_ONE)}

    def release_record(self, total_epsilon: float) -> dict:
        """A certificate's ``private_bound`` / ``private_label_bound`` (keys :data:`PRIVATE_BOUND_KEYS`): this
        record, how it composes with the fit, and the release's total eps_q + eps_fit."""
        return {**self.to_dict(), "composition": COMPOSITION, "total_epsilon": total_epsilon}


PRIVATE_BOUND_KEYS = frozenset({"bound", "epsilon", "grid", "quantile", "theorem", "neighbours", "composition",
                                "total_epsilon"})


def private_norm_bound(X: Any, *, epsilon: float, r_min: float, r_max: float, quantile: float = 0.95,
                       accountant: PrivacyAccountant | None = None, random_state: RandomState = None) -> NormBound:
    """R drawn by the exponential-mechanism quantile over :func:`power_of_two_grid` (r_min, r_max), eps_q-DP.

    Checks the inputs, then charges ``accountant`` eps_q, then reads the norms and draws (a caller that
    charges a larger total itself passes no accountant). ``random_state`` None draws from the OS
    CSPRNG; a seed is for experiments.
    """
    epsilon = check_cost(epsilon).epsilon
    quantile = fraction("quantile", quantile)
    grid = power_of_two_grid(r_min, r_max)
    if getattr(X, "ndim", 2) != 2:
        raise not_two_dimensional("X", np.shape(X))
    check_accountant(accountant)
    source = integer_source(random_state)  # a bad seed refused before the charge
    if accountant is not None:
        accountant.spend(epsilon, 0.0, description=f"private norm bound (exponential-mechanism quantile, "
                         f"q={quantile:g})", neighbours=Neighbours.REPLACE_ONE)
    scores = quantile_scores(row_norms(X), grid, quantile)
    index = sample_exponential(scores, epsilon, QUANTILE_SENSITIVITY, source)
    return NormBound(bound=grid[index], epsilon=epsilon, grid=grid, quantile=quantile)
