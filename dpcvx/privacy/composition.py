"""Budget of one round when k adaptively chosen pure-DP rounds must be (epsilon, delta)-DP.

* Basic composition: k rounds of eps_r-DP are (k eps_r)-DP.
* Through zero-concentrated DP (Bun and Steinke, TCC 2016): an eps_r-DP
  round is (eps_r^2 / 2)-zCDP (Proposition 3.3); zCDP adds up under adaptive
  composition (Lemma 2.3), so k rounds are rho-zCDP with rho = k eps_r^2 / 2;
  rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Proposition 1.3).
  Solving rho + 2 sqrt(rho ln(1/delta)) = epsilon for sqrt(rho):
  rho = (sqrt(ln(1/delta) + epsilon) - sqrt(ln(1/delta)))^2, eps_r = sqrt(2 rho / k).

The round budget is the larger of the two (each is valid on its own), rounded down.
"""

from __future__ import annotations

import math

from ..rounding import round_down
from ..validation import check_delta, check_epsilon, integer

__all__ = ["round_epsilon", "check_delta"]  # check_delta: dpcvx.validation's, imported here by kernel_learner


def round_epsilon(epsilon: float, delta: float, rounds: int) -> float:
    """Pure-DP budget eps_r of each of ``rounds`` rounds so that all together are (epsilon, delta)-DP."""
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    rounds = integer("rounds", rounds)
    basic = epsilon / rounds
    if delta == 0:
        return round_down(basic)
    log_term = math.log(1 / delta)
    rho = (epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))) ** 2  # no cancellation
    return round_down(max(basic, math.sqrt(2 * rho / rounds)))
