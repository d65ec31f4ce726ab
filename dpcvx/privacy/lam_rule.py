"""``lam="auto"``: the regularization weight Lam chosen from public quantities only.

docs/theory.md, section 25. For a release whose calibration is a function of Lam
(every mechanism of :class:`~dpcvx.models.erm.PrivateERM`), the excess empirical risk
of the released w against any comparator u with N(u) <= W^2 / 2 (for the default
N(w) = ||w||^2 / 2: ||u|| <= W) is at most

    noise(Lam) + (Lam + Delta) W^2 / 2,

with, for objective perturbation (strong convexity s = m Lam + Delta of the perturbed
objective, b its noise, b_2 the approximate-minimiser noise)

    noise = min(E||b||^2 / (2 n^2 s), L R E||b|| / (n s)) + min(L R E||b_2||, c R^2 E||b_2||^2 / 2)

and, for output perturbation (b the released noise, Delta = 0)

    noise = min(L R E||b||, c R^2 E||b||^2 / 2)

(the c R^2 terms need a loss with l'' <= c; without c only the Lipschitz form is used).
The moments are exact for each sampler: ||b|| ~ Gamma(d, 1/beta) for density
~ exp(-beta ||b||), so E||b|| = d / beta, E||b||^2 = d (d + 1) / beta^2; b ~ N(0, sigma^2 I)
has E||b||^2 = sigma^2 d and E||b|| <= sigma sqrt(d). eps', Delta and sigma are those of
the calibration at each Lam (JMLR 2011 Algorithm 2 with its eps' correction and Delta,
the Gaussian profile or KST12): the rule calls the same calibration the release uses.

The rule returns the Lam of a public log grid (LAM_GRID) that minimises the bound, among those the
calibration accepts and (since v1.2) whose proved iteration budget is at most ``MAX_PROVED_ITERATIONS``
(the plan's ``calibrate_at`` raises for the others; docs/theory.md, section 25.3). Its
inputs are n (n_public under add/remove), the declared width d, epsilon, delta, the
mechanism, the neighbour relation, the verified L, c, m, the bound R and W: never the
data, so the choice costs no privacy. W is the user's public prior on ||w*||, the
radius of a constraint ball, or the default ``COMPARATOR_SCALE / R`` (a model whose
margins w^T x reach about COMPARATOR_SCALE on rows of norm R); with an intercept column s
that prior on the features' weights is joined by the intercept's, |b| <= B0, as
W' = sqrt(W^2 + (B0 / s)^2) (:func:`comparator_for`, docs/theory.md section 25.7). COMPARATOR_SCALE is the
rule's one free constant, fitted on synthetic data only by benchmarks/lam_rule_fit.py
(benchmarks/results/lam_rule_fit.md) and frozen before any evaluation on real data. A regression
(``task="regression"``, public label bound B) takes no fitted constant: its default prior is a comparator
whose predictions stay within the label bound, W = B / R, with an intercept |b| <= B (REGRESSION_RULE,
docs/theory.md section 25.9). A W the fit was given (the user's ``comparator_norm`` or a constraint ball's radius) is
recorded under GIVEN_RULE; under the other two names W is a function of the certificate's public bounds, which a
saved file's reader derives again (:func:`recorded_comparator`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..advice import setting
from ..exceptions import InputError
from ..validation import positive
from ..verification.verdict import Mechanism
from .calibration import LinearCalibration

__all__ = ["COMPARATOR_SCALE", "GIVEN_RULE", "INTERCEPT_PRIOR", "LAM_GRID", "RULE", "REGRESSION_RULE", "LamChoice",
           "check_rule_regularizer", "choose_lam", "comparator_for", "default_comparator_norm", "excess_risk_bound",
           "intercept_scaling", "objective_noise_risk", "recorded_comparator", "rule_name"]

#: The name the certificate records; change it whenever the formula or a constant changes.
RULE = "excess-risk bound v1.2 (docs/theory.md, section 25)"

#: A regression's rule: the same bound, with the prior of :func:`comparator_for` at the public label bound B.
REGRESSION_RULE = "excess-risk bound v1.2, regression prior W = B / R and |b| <= B (docs/theory.md, section 25.9)"

#: The rule's name when W was given: the user's comparator_norm (joined by the intercept's prior) or a constraint
#: ball's radius, public inputs the certificate records only as W.
GIVEN_RULE = "excess-risk bound v1.2, W given by comparator_norm or a constraint ball (docs/theory.md, section 25)"

#: W = COMPARATOR_SCALE / R when no public comparator norm is given. Fitted on synthetic data
#: only (benchmarks/lam_rule_fit.py, benchmarks/results/lam_rule_fit.md), then frozen.
COMPARATOR_SCALE = 8.0

#: B0, the public prior |b| <= B0 on a classifier's intercept: log(19), class rates between 5% and 95%.
INTERCEPT_PRIOR = math.log(19.0)

#: The candidates: 10^-6 .. 10^0, eight per decade (public, fixed).
LAM_GRID: tuple[float, ...] = tuple(float(10.0 ** e) for e in np.linspace(-6.0, 0.0, 49))


def _displacement_risk(first: float, second: float, L: float, R: float, c: float | None) -> float:
    """E[l-hat(w + b) - l-hat(w)] <= min(L R E||b||, c R^2 E||b||^2 / 2) for symmetric b."""
    lipschitz = L * R * first
    return lipschitz if c is None else min(lipschitz, c * R * R * second / 2)


def objective_noise_risk(first: float, second: float, *, n: int, strong: float, lipschitz_bound: float) -> float:
    """min(E||b||^2 / (2 n^2 s), L R E||b|| / (n s)): the excess risk the objective's noise b causes.

    F = sum l + n (Lam N + Delta/2 ||w||^2) + b^T w is n s-strongly convex with s = m Lam + Delta,
    so the averaged perturbed minimiser is within ||b|| / (n s) of the unperturbed one and the
    unperturbed objective exceeds its minimum there by at most ||b||^2 / (2 n^2 s) (section 25).
    """
    return min(second / (2 * n * n * strong), lipschitz_bound * first / (n * strong))


def excess_risk_bound(calibration: LinearCalibration, *, n: int, d: int, lam: float, L: float, R: float, m: float,
                      c: float | None, comparator_norm: float, mean_weight: float = 1.0) -> tuple[float, float]:
    """(noise term, bias term) of the bound of section 25 for one calibrated release; ``mean_weight`` s_bar
    scales Delta to the equivalent unweighted fit's, Delta / s_bar (docs/theory.md, section 21)."""
    moments = calibration.noise_moments(d)
    objective = calibration.mechanism is Mechanism.OBJECTIVE
    ridge = calibration.extra_reg / mean_weight if objective else 0.0
    bias = (lam + ridge) * comparator_norm**2 / 2
    if not objective:
        return _displacement_risk(moments.first, moments.second, L, R, c), bias
    noise = objective_noise_risk(moments.first, moments.second, n=n, strong=m * lam + ridge, lipschitz_bound=L * R)
    return noise + _displacement_risk(moments.amp_first, moments.amp_second, L, R, c), bias


def default_comparator_norm(R: float) -> float:
    """W = COMPARATOR_SCALE / R: the documented default prior on ||w*||."""
    return COMPARATOR_SCALE / R


def comparator_for(comparator_norm: float | None, constraint_set: Any, R: float,
                   intercept_scaling: float | None = None, label_bound: float | None = None) -> float:
    """The W of the rule over the rows the theorems see: a constraint ball's radius (it bounds the whole
    weight vector, an intercept's weight included), else the prior W on the features' weights (the user's
    ``comparator_norm``, else :func:`default_comparator_norm` at the features' bound R) joined, when an
    intercept column s is appended, by the intercept prior |b| <= B0: the comparator (u, b) is (u, b / s)
    over the augmented rows, of norm W' = sqrt(W^2 + (B0 / s)^2) (docs/theory.md, section 25.7; the same
    W' that :func:`intercept_scaling` minimises R' W' over). A regression with the public label bound B
    (``label_bound``; labels centred by the public shift) takes the prior of section 25.9 instead: a
    comparator whose predictions stay within the label bound on every row the bound R allows, W = B / R,
    and an intercept |b| <= B0 = B. Public inputs only."""
    radius = _ball_radius(constraint_set)
    if comparator_norm is None and radius is not None:
        return radius
    if comparator_norm is not None:
        W = positive("comparator_norm", comparator_norm)
    else:
        W = default_comparator_norm(R) if label_bound is None else positive("label_bound", label_bound) / R
    if intercept_scaling is None:
        return W
    prior = INTERCEPT_PRIOR if label_bound is None else label_bound
    return math.hypot(W, prior / positive("intercept_scaling", intercept_scaling))


def _ball_radius(constraint_set: Any) -> float | None:
    """The radius of a constraint ball with one (it bounds the whole weight vector), else None."""
    if constraint_set is not None and constraint_set.kind == "ball" and constraint_set.radius is not None:
        return float(constraint_set.radius)
    return None


def _given(comparator_norm: float | None, constraint_set: Any) -> bool:
    """Whether :func:`comparator_for` takes W as given (the user's comparator_norm or a ball's radius)."""
    return comparator_norm is not None or _ball_radius(constraint_set) is not None


def rule_name(comparator_norm: float | None, constraint_set: Any, regression: bool) -> str:
    """The name a certificate records for the W of :func:`comparator_for` at these public inputs: GIVEN_RULE for a
    given W, else REGRESSION_RULE (the prior of the label bound) or RULE (COMPARATOR_SCALE's)."""
    if _given(comparator_norm, constraint_set):
        return GIVEN_RULE
    return REGRESSION_RULE if regression else RULE


def recorded_comparator(rule: str, R: float, intercept_scaling: float | None,
                        label_bound: float | None) -> float | None:
    """The W that a recorded rule's name derives from a certificate's public bounds (:func:`comparator_for` with no
    given W: the features' bound R, the intercept column s when one was appended, a regression's label bound B), or
    None under GIVEN_RULE, whose W is the fit's public input as recorded. Refuses a name dpcvx does not write, and
    REGRESSION_RULE without a label bound or RULE with one."""
    if rule == GIVEN_RULE:
        return None
    expected = RULE if label_bound is None else REGRESSION_RULE
    if rule != expected:
        raise InputError(f"certificate.lam_rule.rule is {rule!r}; dpcvx records {expected!r} or {GIVEN_RULE!r} for "
                         "this release; the file has been edited")
    return comparator_for(None, None, R, intercept_scaling, label_bound)


def intercept_scaling(R: float, comparator_norm: float | None = None) -> float:
    """s = sqrt(R B0 / W): the intercept column's value that ``intercept_scaling="auto"`` appends.

    With the column s the rows grow to R' = sqrt(R^2 + s^2) and a comparator (u, b), ||u|| <= W,
    |b| <= B0, becomes (u, b / s) of norm W' = sqrt(W^2 + B0^2 / s^2). At the rule's optimum the
    bound of section 25 is proportional to R' W' (its noise scales with L R', its bias with W'^2),
    and (R^2 + s^2)(W^2 + B0^2 / s^2) is smallest at s^2 = R B0 / W (docs/theory.md, section 25.7).
    W defaults to COMPARATOR_SCALE / R, so s = R sqrt(B0 / COMPARATOR_SCALE) = 0.61 R.
    """
    W = COMPARATOR_SCALE / R if comparator_norm is None else comparator_norm
    return math.sqrt(R * INTERCEPT_PRIOR / W)


@dataclass(frozen=True)
class LamChoice:
    """The Lam the rule chose, with the bound it minimised (all public)."""

    lam: float
    comparator_norm: float
    noise: float
    bias: float
    rule: str = RULE

    @property
    def bound(self) -> float:
        return self.noise + self.bias

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "lam": self.lam, "comparator_norm": self.comparator_norm,
                "noise": self.noise, "bias": self.bias}


def check_rule_regularizer(m: float) -> None:
    """Refuse the rule for a regularizer that is not strongly convex (``m``, its verified modulus, not > 0): the
    bound trades the noise, which falls with m Lam, against the bias Lam W^2 / 2. :func:`choose_lam`'s check, which
    ``dpcvx fit`` runs at the schema's width before it reads the data (the regularizer alone fixes m)."""
    if not m > 0:
        raise InputError(f"{setting('lam', repr('auto'), 'auto')} needs a strongly convex regularizer (m > 0): the "
                         "bound trades the noise, which falls with m Lam, against the bias Lam W^2 / 2; pass a number "
                         f"for {setting('lam')}")


def choose_lam(calibrate_at: Callable[[float], LinearCalibration], *, n: int, d: int, L: float,
               R: float, m: float, c: float | None, comparator_norm: float,
               grid: tuple[float, ...] = LAM_GRID, rule: str = RULE, mean_weight: float = 1.0) -> LamChoice:
    """The Lam of ``grid`` minimising the bound; ``calibrate_at(lam)`` is the release's calibration.

    ``calibrate_at`` may raise :class:`~dpcvx.exceptions.InputError` for a Lam it cannot
    calibrate (for example a tol the noise makes unreachable); that Lam is skipped. So is, without
    calibrating it, a Lam whose bias alone is at least the best bound found: the noise term is
    non-negative and Delta >= 0, so its bound could not be smaller (the choice is unchanged; on the
    ascending grid the Lam past the optimum cost nothing). A pure function of its public arguments.
    """
    check_rule_regularizer(m)
    if not (comparator_norm > 0 and math.isfinite(comparator_norm)):
        raise InputError(f"the comparator norm W must be positive and finite, got {comparator_norm!r}")
    best: LamChoice | None = None
    for lam in grid:
        if best is not None and lam * comparator_norm**2 / 2 >= best.bound:
            continue  # its bias alone, (lam + Delta) W^2 / 2 >= lam W^2 / 2, reaches the best bound: not calibrated
        try:
            calibration = calibrate_at(lam)
        except InputError:
            continue
        noise, bias = excess_risk_bound(calibration, n=n, d=d, lam=lam, L=L, R=R, m=m, c=c,
                                        comparator_norm=comparator_norm, mean_weight=mean_weight)
        choice = LamChoice(lam, comparator_norm, noise, bias, rule)
        if best is None or choice.bound < best.bound:
            best = choice
    if best is None:
        raise InputError(f"{setting('lam', repr('auto'), 'auto')} found no Lam in 1e-6 .. 1 that can be calibrated "
                         "for these public settings")
    return best
