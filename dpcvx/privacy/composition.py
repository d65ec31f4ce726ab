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
from collections.abc import Sequence

from ..advice import epsilon_share, setting
from ..exceptions import InputError
from ..rounding import round_down, round_up
from ..validation import EPSILON_MIN, check_delta, check_epsilon, integer
from ..verification.verdict import Mechanism
from .gaussian import analytic_gaussian_sigma, gaussian_delta
from .lattice_output import zcdp_delta, zcdp_rho

# check_delta: dpcvx.validation's, imported here by kernel_learner
__all__ = ["round_epsilon", "one_vs_rest_budget", "one_vs_rest_zcdp_budget", "check_delta", "sequential_epsilon",
           "split_remainder"]


def sequential_epsilon(shares: Sequence[float]) -> float:
    """The epsilon of pure shares composed in sequence (basic composition, Dwork and Roth 2014, Theorem 3.16):
    eps_1 + eps_2 + ... + eps_k, added left to right in the order given (a release's: its private draws in the order
    of its certificate's records, then its fit's epsilon; :func:`dpcvx.release.model.composed_epsilon`).

    The one sum of a composite's shares: the charge of a fit that draws private values first (a private bound, a
    class count, column statistics, a label's range) and the total its release states are this function of the same
    shares in the same order, so they are the same double (two orders of one sum may differ in the last bit: a
    charge of 3.0 for a release stating 3.0000000000000004 was made so, a probe of the sixty-third session)."""
    total = 0.0
    for share in shares:
        total += share
    return total


def split_remainder(total: float, part: float) -> float:
    """The rest of ``total`` after ``part`` in a two-way split of a budget: total - part, stepped down by ulps until
    part + rest <= total in floating point, for a share 0 <= ``part`` <= ``total`` (the rest is then in [0, total -
    part]; the steps never pass 0; a part above the total, which no caller gives, leaves total - part < 0). The one
    rule of a split's second share: a fit's (:func:`dpcvx.models.private_norm.split_budget`) and the check of a saved
    tuned release's shares (:func:`dpcvx.release.tuning_record.former_nested_split`)."""
    rest = total - part
    while rest > 0 and part + rest > total:
        rest = math.nextafter(rest, 0.0)
    return rest


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


#: the name a one-vs-rest composition's text gives the budget it splits: the fits' eps_fit when private column
#: statistics took eps_s of the total first (the total is then not what is split), else the total's epsilon
WHOLE_BUDGET, FIT_BUDGET = "epsilon", "eps_fit"


def one_vs_rest_budget(k: int, epsilon: float, delta: float, mechanism: str,
                       float_safe: bool = False, budget: str = WHOLE_BUDGET,
                       total_epsilon: float | None = None) -> tuple[float, float, str]:
    """(epsilon_c, delta_c, composition) of each of k releases that all see every record (one-vs-rest).

    ``epsilon`` is the budget the k fits share, which the composition's text names ``budget``: the total's epsilon
    (:data:`WHOLE_BUDGET`), or the fits' eps_fit after a draw before them (:data:`FIT_BUDGET`).

    Pure epsilon or objective perturbation: basic composition, (epsilon / k, delta / k).
    Gaussian output perturbation: k Gaussian mechanisms with noise multiplier z compose into
    one with multiplier z / sqrt(k) (Dong, Roth and Su 2022, Corollary 2), so each release
    gets the Gaussian of multiplier sqrt(k) z, z that of one (epsilon, delta) release, and is
    stated at the epsilon that Gaussian meets at the same delta (docs/theory.md, section 15).
    Float-safe Gaussian output perturbation draws the discrete Gaussian, which is not a
    Gaussian mechanism: its releases compose in zCDP instead (:func:`one_vs_rest_zcdp_budget`).
    """
    if k == 1:
        return epsilon, delta, "one class"
    if delta == 0 or Mechanism.of(mechanism) is Mechanism.OBJECTIVE:
        return (round_down(epsilon / k), round_down(delta / k),
                f"basic composition: each of the {k} one-vs-rest releases gets ({budget} / {k}, delta / {k})")
    if float_safe:
        return one_vs_rest_zcdp_budget(k, epsilon, delta, budget, total_epsilon)
    # Gaussian output perturbation: per-class multiplier sqrt(k) z, z the multiplier of one (epsilon, delta) release
    z = analytic_gaussian_sigma(1.0, epsilon, delta)
    target = math.sqrt(k) * z * (1 + 1e-12)
    # the per-class guarantee at the same delta: the epsilon whose analytic Gaussian needs at most ``target``
    low, high = 0.0, epsilon
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (low, middle) if gaussian_delta(target, 1.0, middle) <= delta else (middle, high)
    return (_stated(round_down(high) if high < epsilon else epsilon, k, epsilon, delta, total_epsilon), delta,
            f"Gaussian composition: {k} Gaussian releases with noise multiplier sqrt({k}) z compose into one "
            f"with multiplier z, the analytic Gaussian for ({budget}, delta) (Dong, Roth and Su 2022)")


def _stated(epsilon_c: float, k: int, epsilon: float, delta: float, total_epsilon: float | None = None) -> float:
    """The per-class epsilon of a composition of k releases at the same delta, refused where it falls below
    ``EPSILON_MIN``: each release's noise then meets delta at an epsilon of about 0 (delta is large against
    epsilon), and a release cannot be stated, nor calibrated, at such an epsilon. The refusal quotes ``epsilon``
    as the user's, or as epsilon' with the one phrase for a part (:func:`~dpcvx.advice.epsilon_share`) where it is
    the part of ``total_epsilon`` left after column statistics (analyst probe P7, session 68, finding 3)."""
    if epsilon_c >= EPSILON_MIN:
        return epsilon_c
    part = epsilon_share(epsilon, total_epsilon)
    quoted = setting('epsilon', f'{epsilon:g}') if part is None else f"epsilon' = {epsilon:g} ({part})"
    given = f"{quoted}, {setting('delta', f'{delta:g}')}"
    raise InputError(
        f"one-vs-rest of {k} classes with output perturbation at {given}: the noise of each class's release (the "
        f"multiplier of one ({epsilon:g}, {delta:g}) release times sqrt({k})) already meets delta {delta:g} at an "
        f"epsilon of about 0, below {EPSILON_MIN:g}, so no class's release can be stated at the same delta; delta is "
        f"large against epsilon: use a smaller {setting('delta')}, {setting('delta', '0', 'None')}, or objective "
        f"perturbation (each class at (epsilon / {k}, delta / {k})). Nothing was charged")


#: the per-class rho is aimed this far below rho / k, so that the per-class release's own rho
#: (:func:`zcdp_rho` at the stated (epsilon_c, delta), a bisection) stays below rho / k
_ZCDP_MARGIN = 1e-9


def one_vs_rest_zcdp_budget(k: int, epsilon: float, delta: float,
                            budget: str = WHOLE_BUDGET,
                            total_epsilon: float | None = None) -> tuple[float, float, str]:
    """(epsilon_c, delta, composition) for k discrete-Gaussian releases that are (epsilon, delta)-DP together.

    A discrete Gaussian release stated at (epsilon_c, delta) is rho_c-zCDP, rho_c =
    zcdp_rho(epsilon_c, delta) (:class:`~dpcvx.privacy.lattice_output.LatticeGaussianOutput`); zCDP
    adds up (Bun and Steinke 2016, Lemma 2.3), so k of them are k rho_c-zCDP, and k rho_c <= rho =
    zcdp_rho(epsilon, delta) gives (epsilon, delta) (CKS20, Corollary 13). epsilon_c is the smallest
    epsilon (bisection, rounded up) at which (1 - 1e-9) rho / k-zCDP meets delta; the margin keeps
    k rho_c <= rho (tests/privacy/test_float_safe_multiclass.py checks it).
    """
    target = zcdp_rho(epsilon, delta) / k * (1 - _ZCDP_MARGIN)
    low, high = 0.0, epsilon
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (low, middle) if zcdp_delta(target, middle) <= delta else (middle, high)
    return (_stated(min(round_up(high), epsilon), k, epsilon, delta, total_epsilon), delta,
            f"zCDP composition: {k} discrete Gaussian releases of rho / {k} each compose into rho-zCDP, "
            f"converted to ({budget}, delta) (Bun and Steinke 2016; Canonne, Kamath and Steinke 2020)")
