"""The exponential mechanism (McSherry and Talwar, FOCS 2007) over a finite set of candidates.

Given scores u_1..u_m, each of sensitivity Delta (replacing one record moves
every u_i by at most Delta), the mechanism draws candidate i with probability

    p_i = exp(epsilon u_i / (2 Delta)) / sum_j exp(epsilon u_j / (2 Delta)),

which is epsilon-differentially private: the numerator of p_i moves by at most
a factor e^{epsilon/2} and so does the normalising sum.

Its two users in dpcvx:

* private tuning (Chaudhuri, Monteleoni and Sarwate, JMLR 2011, Algorithm 4):
  score u_i = -z_i (the mistakes of candidate i on the held-out part),
  sensitivity 1: p_i proportional to exp(-epsilon z_i / 2);
* TDIL over a net (Jain and Thakurta, ICML 2013, Algorithm 3): score
  |<w* - w_t, phi(s)>| of sensitivity Delta = (2 L R / (lam n) + 2 gamma) R.

The probabilities are computed as exp(s_i - max_j s_j) / sum_j exp(s_j - max_j s_j)
with s_i = epsilon u_i / (2 Delta): the largest term is exactly 1, so nothing
overflows and the sum never underflows to 0.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..exceptions import InputError
from ..validation import positive

__all__ = ["exponential_probabilities", "sample_exponential"]


def exponential_probabilities(scores: Sequence[float] | np.ndarray, epsilon: float,
                              sensitivity: float) -> np.ndarray:
    """p_i proportional to exp(epsilon u_i / (2 sensitivity)) for the finite scores u_i."""
    epsilon, sensitivity = positive("epsilon", epsilon), positive("sensitivity", sensitivity)
    values = np.asarray(scores, dtype=float)
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise InputError("scores must be a non-empty vector of finite numbers")
    logits = (epsilon / (2 * sensitivity)) * values
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


def sample_exponential(scores: Sequence[float] | np.ndarray, epsilon: float, sensitivity: float,
                       rng: np.random.Generator) -> int:
    """An index i drawn with probability :func:`exponential_probabilities` (scores, epsilon, sensitivity)[i]."""
    probabilities = exponential_probabilities(scores, epsilon, sensitivity)
    return int(rng.choice(probabilities.size, p=probabilities))
