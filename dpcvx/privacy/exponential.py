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

:func:`exponential_probabilities` computes the probabilities in doubles as
exp(s_i - max_j s_j) / sum_j exp(s_j - max_j s_j) with s_i = epsilon u_i / (2 Delta)
(the largest term is exactly 1, so nothing overflows); they describe the law and
are never used to draw.

:func:`sample_exponential` draws EXACTLY from that law, without exp() in doubles
(which Ilvento 2020 showed can break the mechanism): epsilon, Delta and the
scores are converted to rationals exactly (``Fraction`` of a double is its exact
value; tuning's scores are integer counts), x_i = epsilon (max_j u_j - u_i) / (2 Delta)
>= 0 is rational, and the draw is rejection from the uniform proposal: pick i
uniformly, accept with an exact Bernoulli(exp(-x_i)) (Canonne, Kamath and Steinke
2020, Algorithm 1; :mod:`dpcvx.privacy.exact_sampling`). A proposal is accepted with
probability (1/m) sum_j exp(-x_j) >= 1/m, and the accepted index has probability
exp(-x_i) / sum_j exp(-x_j) = p_i exactly. The number of proposals (at most m on
average) depends on the scores; it is not part of the released output (a timing
observer is outside the guarantee, as for every sampler of :mod:`dpcvx.privacy.exact_sampling`).
This keeps the exponential mechanism itself rather than permute-and-flip (McKenna and
Sheldon 2020, also exact with the same Bernoulli): JMLR 2011 Algorithm 4 and TDIL's
analysis are stated for it, and the selection law callers report stays the same.
The floating-point status of the scores is the caller's: tuning's mistake counts are
exact integers; the quantile's scores are exact Fractions; TDIL's scores are computed doubles:
its float-safe path (``float_safe=True``) charges their evaluation error E_s by running the
selection at sensitivity Delta + 2 E_s (:attr:`dpcvx.privacy.lattice_tdil.LatticeTDIL.selection_sensitivity`,
docs/theory.md, section 26.3), and its default path does not and names its guarantee
``mitigation-only``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..exceptions import InputError
from ..validation import positive
from .exact_sampling import GeneratorSource, IntegerSource, bernoulli_exp

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


def sample_exponential(scores: Sequence[float] | Sequence[Fraction] | np.ndarray, epsilon: float,
                       sensitivity: float, rng: np.random.Generator | IntegerSource) -> int:
    """An index i drawn with probability :func:`exponential_probabilities` (scores, epsilon, sensitivity)[i],
    exactly (rejection from the uniform proposal with an exact Bernoulli(exp(-x_i))).

    ``scores``: doubles (each taken at its exact value) or exact ``Fraction`` values, used as given (the
    quantile's scores, :func:`dpcvx.privacy.quantile.quantile_scores`). ``rng``: a numpy Generator (its
    integers, reproducible when seeded) or an :class:`~dpcvx.privacy.exact_sampling.IntegerSource`.
    """
    exponential_probabilities(np.asarray(scores, dtype=float), epsilon, sensitivity)  # the checks
    values = [value if isinstance(value, Fraction) else Fraction(float(value)) for value in scores]
    source = GeneratorSource(rng) if isinstance(rng, np.random.Generator) else rng
    best = max(values)
    rate = Fraction(float(epsilon)) / (2 * Fraction(float(sensitivity)))
    while True:
        index = source.below(len(values))
        if bernoulli_exp(rate * (best - values[index]), source):
            return index
