"""``procedure="full-data"`` with delta > 0: each run's Renyi curve before any fit, and the per-run budget.

With delta > 0 the pure bound (2 + eta) e_Q of random stopping does not apply (a Gaussian run is not pure
DP). Theorem 2 of Papernot and Steinke (ICLR 2022) takes the run's Renyi curve instead
(:func:`dpcvx.privacy.stopping.stopping_rdp`), and the result is converted to (epsilon, delta)
(:func:`dpcvx.privacy.privacy_curve.rdp_to_epsilon`). Proof: docs/theory.md, section 27.

**The run's curve, before any fit.** One run Q fits a candidate on the coin-chosen training part and
scores it by an exact discrete-Laplace count on the held-out part. Conditioned on the coins and on the
candidate, the changed record is in one part: Q's Renyi divergence at order alpha is at most the
candidate's curve (record in the training part) or the score's (record in the held-out part), and
averaging over the coins and the uniform candidate keeps the larger of the bounds (the Renyi divergence
is jointly quasi-convex, van Erven and Harremoes 2014, Theorem 13). So

    rdp_Q(alpha) = max( max_i rdp_i(alpha), min(e_s, alpha e_s^2 / 2) ),

rdp_i the candidate's curve at the run's budget, e_s the score's pure epsilon (Bun and Steinke 2016,
Proposition 3.3). Every term is a function of public inputs only: :func:`candidate_curve` knows the
releases whose curve is fixed by (epsilon, delta) alone, and refuses the others before anything is charged.

**Which candidates.** ``dpcvx.PrivateERM`` with ``mechanism="output"`` (the analytic Gaussian, Balle and
Wang 2018: a Gaussian of noise multiplier z = sigma / sensitivity, which depends on (epsilon, delta) only,
whatever n, L, R and the tolerance; its Renyi curve is alpha / (2 z^2)). One that first draws private
statistics (column statistics, a class count for ``class_weight="balanced"`` or ``class_prior="private"``, a
private ``data_norm`` or ``label_bound``) is claimed its release's composed curve: each draw's pure part, then
the fit's Gaussian at its share (:meth:`PrivateERM.drawn_shares <dpcvx.PrivateERM.drawn_shares>`, public splits
of the run's epsilon that do not depend on n; docs/theory.md sections 27.2 and 29, Claim 5). The Gaussian
objective perturbation is refused: its objective share is an (epsilon, delta) point with no Renyi curve. So are
the lattice (``float_safe``) releases (a discrete Gaussian recorded by its (epsilon, delta)) and every other
learner, which records its (epsilon, delta) only after its fit. After each fit the model's own curve
(``certificate.privacy_curve``) must lie under the claimed one at every order, else nothing is released.

**The budget.** Every fit gets the same (e_run, delta) and the score
e_s = min over the grid of max(C(alpha), sqrt(2 C(alpha) / alpha)), C the candidates' curve: the largest
e_s whose curve stays under C at every order of the grid, so the score costs nothing on top of the fits.
e_run is the largest value found by bisection whose total, Theorem 2 converted at delta, is at most the
user's epsilon; the total is what the certificate states and the accountant is charged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...exceptions import AssumptionError, InputError
from ...privacy.gaussian import analytic_gaussian_sigma
from ...privacy.privacy_curve import (
    EPSILON_DELTA,
    RDP_ORDERS,
    CurvePart,
    PrivacyCurve,
    draws_then_fit_curve,
    fit_after_draws_part,
)
from ...privacy.stopping import StoppingRule, stopping_epsilon
from ...rounding import round_down
from ...verification.verdict import Mechanism
from ..erm import PrivateERM

__all__ = ["candidate_curve", "candidates_rdp", "run_rdp", "score_epsilon", "RenyiBudget", "calibrate_runs",
           "check_run_curve", "plan_at"]

# the bisection on e_run: relative precision 2^-40 of the largest feasible value
_BISECTIONS = 40
# below this fraction of epsilon a run is useless; a total above epsilon there is a refusal
_SMALLEST_SHARE = 1e-6


def candidate_curve(candidate: Any, epsilon: float, delta: float, fit_params: Mapping[str, Any]) -> PrivacyCurve:
    """The Renyi curve of one candidate's release fitted with (``epsilon``, ``delta``) and ``fit_params``,
    from public settings only (no data): the plain analytic Gaussian, or, for a candidate that draws private
    statistics first, their pure parts and the fit's Gaussian at its share, the curve its release states
    (:func:`~dpcvx.privacy.privacy_curve.draws_then_fit_curve`). Raises :class:`~dpcvx.exceptions.AssumptionError`,
    naming why, for a release whose curve is not known before its fit (module docstring)."""
    name = getattr(candidate, "learner_class", type(candidate)).__name__  # a BudgetInConstructor: its class
    if not isinstance(candidate, PrivateERM):
        raise AssumptionError(
            f"procedure='full-data' with delta > 0 needs each run's Renyi curve before any fit, and {name} "
            "states only an (epsilon, delta) point, after its fit. Nothing was charged. Use "
            "dpcvx.PrivateERM with mechanism='output' (the analytic Gaussian), delta=0, or procedure='split'")
    mechanism = Mechanism.of(fit_params.get("mechanism", Mechanism.OBJECTIVE))
    if mechanism is not Mechanism.OUTPUT:
        raise AssumptionError(
            f"procedure='full-data' with delta > 0 needs each run's Renyi curve before any fit, and mechanism="
            f"{mechanism.value!r} has none: the Gaussian objective perturbation records only an (epsilon, delta) point "
            "(its objective share has no Renyi curve). Nothing was charged. Use mechanism='output', delta=0, "
            "or procedure='split'")
    if candidate.float_safe:
        raise AssumptionError(
            "procedure='full-data' with delta > 0 needs each run's Renyi curve before any fit; the float-safe "
            "(lattice) Gaussian release records only its (epsilon, delta). Nothing was charged. Use "
            "float_safe=False, delta=0, or procedure='split'")
    drawn, eps_fit = candidate.drawn_shares(epsilon)
    if drawn:  # private draws first: their pure parts, then the fit's Gaussian at its share (module docstring)
        return draws_then_fit_curve(drawn, fit_after_draws_part(eps_fit, delta, gaussian=True))
    # z = sigma / sensitivity of the analytic Gaussian at (epsilon, delta), one relative ROUNDING down: the
    # fit's own ratio is checked to be at least this after the fit (check_run_curve)
    multiplier = round_down(analytic_gaussian_sigma(1.0, epsilon, delta))
    return PrivacyCurve.gaussian(multiplier, 1.0, "output perturbation (analytic Gaussian), claimed before the fit")


def score_epsilon(candidates_rdp: np.ndarray, orders: np.ndarray = RDP_ORDERS) -> float:
    """The largest e_s on the grid with min(e_s, alpha e_s^2 / 2) <= C(alpha) at every order:
    min over the orders of max(C(alpha), sqrt(2 C(alpha) / alpha))."""
    curve = np.asarray(candidates_rdp, dtype=float)
    return float(np.min(np.maximum(curve, np.sqrt(2 * curve / orders))))


def _rdp(curve: PrivacyCurve, orders: np.ndarray = RDP_ORDERS) -> np.ndarray:
    value = curve.rdp(orders)
    if value is None:
        raise AssumptionError("every candidate of a delta > 0 full-data selection needs a Renyi curve")
    return value


def candidates_rdp(curves: Sequence[PrivacyCurve], orders: np.ndarray = RDP_ORDERS) -> np.ndarray:
    """The pointwise maximum of the candidates' Renyi curves (the uniform draw of the candidate)."""
    return np.max([_rdp(curve, orders) for curve in curves], axis=0)


def run_rdp(curves: Sequence[PrivacyCurve], score: float, orders: np.ndarray = RDP_ORDERS) -> np.ndarray:
    """Q's Renyi curve: the pointwise maximum of the candidates' curves and the score's (module docstring)."""
    count = CurvePart(EPSILON_DELTA, "discrete Laplace count", epsilon=score)
    return np.maximum(candidates_rdp(curves, orders), _rdp(PrivacyCurve((count,)), orders))


@dataclass(frozen=True)
class RenyiBudget:
    """The public plan of a delta > 0 selection: each fit's (``run_epsilon``, ``run_delta``), the score's
    ``score_epsilon``, the candidates' claimed curves and the proved total ``epsilon`` at ``run_delta``."""

    run_epsilon: float
    run_delta: float
    score_epsilon: float
    curves: tuple[PrivacyCurve, ...]
    epsilon: float


def plan_at(learners: Sequence[Any], fit_params: Mapping[str, Any], rule: StoppingRule, run_epsilon: float,
            delta: float) -> RenyiBudget:
    """The plan with every fit at (``run_epsilon``, ``delta``): the claimed curves, the score's epsilon and
    the proved total (which may exceed the user's epsilon: :func:`calibrate_runs` searches)."""
    curves = tuple(candidate_curve(learner, run_epsilon, delta, fit_params) for learner in learners)
    score = score_epsilon(candidates_rdp(curves))
    total = stopping_epsilon(run_rdp(curves, score), rule, delta)
    return RenyiBudget(run_epsilon, delta, score, curves, total)


def calibrate_runs(learners: Sequence[Any], fit_params: Mapping[str, Any], rule: StoppingRule, epsilon: float,
                   delta: float) -> RenyiBudget:
    """The largest per-fit epsilon (each fit at the user's delta) whose random-stopping total, converted at
    delta, is at most ``epsilon``; bisection on a quantity the total increases with. Reads no data.
    Refuses (AssumptionError) a candidate without a pre-fit curve, and (InputError) an epsilon below what
    the theorem's log terms cost on their own at this delta and E[K]."""
    plan = plan_at(learners, fit_params, rule, epsilon * _SMALLEST_SHARE, delta)
    if plan.epsilon > epsilon:
        raise InputError(
            f"epsilon = {epsilon:g} is too small for random stopping at delta = {delta:g} with E[K] = "
            f"{rule.mean_runs:.4g}: the log(1/gamma) and log(E[K]) terms of the theorem cost "
            f"{plan.epsilon:.3g} on their own. Nothing was charged. Raise epsilon or delta, lower mean_runs, "
            "or use procedure='split'")
    high = epsilon  # the total grows without bound with the fits' epsilon: the doubling ends
    while (trial := plan_at(learners, fit_params, rule, high, delta)).epsilon <= epsilon:
        plan, high = trial, 2 * high
    for _ in range(_BISECTIONS):
        trial = plan_at(learners, fit_params, rule, (plan.run_epsilon + high) / 2, delta)
        if trial.epsilon <= epsilon:
            plan = trial
        else:
            high = trial.run_epsilon
    return plan


def check_run_curve(model: Any, claimed: PrivacyCurve) -> None:
    """Refuse a fitted model whose own privacy curve is above the one claimed before its fit at some order
    (a second line of defence: the total was proved with the claim)."""
    curve = getattr(getattr(model, "certificate", None), "privacy_curve", None)
    actual = curve.rdp() if isinstance(curve, PrivacyCurve) else None
    if actual is None or np.any(actual > _rdp(claimed)):
        raise AssumptionError("a candidate's release has a Renyi curve above the one its run was calibrated "
                              "for (or none); nothing is released")
