"""(epsilon, delta) objective perturbation with Gaussian noise: the calibration core.

The derivations are in ``docs/theory.md``, section 12. Everything here is
public arithmetic (no data is read).

**Convention.** The perturbed objective, in averaged form and in sum form, is

    J_b(w) = (1/n) sum_i l(y_i w^T x_i) + Lam N(w) + (Delta / 2) ||w||^2 + b^T w / n,
    n J_b(w) = sum_i l(y_i w^T x_i) + n Lam N(w) + (n Delta / 2) ||w||^2 + b^T w,

with b ~ N(0, sigma^2 I_d). ``sigma`` is always the standard deviation of one
coordinate of this b: the noise added to the *sum* of the gradients, or,
equivalently, n times the noise of the averaged objective's linear term.
``ridge`` is Delta of the averaged form (KST12's Delta is n Delta).
``lam_m`` is Lam m, the strong convexity of Lam N. Under
add/remove-one neighbours n is a public constant (it weights the regularizer
and the ridge), not the size of either data set.

Two analyses:

- ``"rdp-objective-perturbation"``: the privacy profile of Redberg, Koskela
  and Wang (NeurIPS 2023, arXiv 2401.00583), re-derived directly as a
  hockey-stick divergence for margin losses, for add/remove-one *and*
  replace-one neighbours. Needs an unconstrained problem, a C^2 loss and a
  C^2 regularizer (the change of variables b -> w).
- ``"kst12"``: the Gaussian constants of Kifer, Smith and Thakurta (COLT
  2012, Algorithm 1), which also cover closed convex constraint sets and
  non-differentiable convex regularizers; gradient bound zeta = L R under
  add/remove-one and 2 L R under replace-one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, Literal

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import erf, log_ndtr, ndtr

from ..advice import setting
from ..exceptions import InputError
from ..rounding import ROUNDING, round_up
from ..validation import check_delta, check_flag, integer, non_negative, positive
from .budget_part import above_limit
from .gaussian import GAUSSIAN_WINDOW, analytic_gaussian_sigma, gaussian_delta
from .lam_rule import objective_noise_risk
from .least_value import bracket, least_below
from .neighbours import Neighbours

__all__ = [
    "RDP_OBJECTIVE",
    "KST12",
    "NEIGHBOURS",
    "GaussianObjectiveCalibration",
    "jacobian_epsilon",
    "objective_gaussian_delta",
    "objective_gaussian_sigma",
    "rdp_objective_calibration",
    "kst12_sigma",
    "kst12_ridge",
    "kst12_calibration",
    "weight_norm_bound",
    "utility_proxy",
    "moment_utility",
    "calibrate_objective_gaussian",
    "EPSILON_MAX_GAUSSIAN_OBJECTIVE",
    "check_gaussian_objective_epsilon",
]

Analysis = Literal["rdp-objective-perturbation", "kst12"]

RDP_OBJECTIVE: Final = "rdp-objective-perturbation"
KST12: Final = "kst12"
NEIGHBOURS: tuple[str, ...] = tuple(relation.value for relation in Neighbours)  # the public spellings

#: The largest epsilon this calibration takes: its analysis evaluates e^epsilon (math.expm1), which overflows a
#: double above log(max float) = 709.78; 700 leaves room for the products around it. Such a budget protects nothing.
EPSILON_MAX_GAUSSIAN_OBJECTIVE = 700.0


def check_gaussian_objective_epsilon(epsilon: float) -> float:
    """A positive epsilon (:func:`~dpcvx.validation.positive`) at most :data:`EPSILON_MAX_GAUSSIAN_OBJECTIVE`, else
    :class:`~dpcvx.exceptions.BudgetLimitError` naming the parameter, the range and the mechanisms that take a larger
    budget. The learners call it before they read any data (:meth:`dpcvx.PrivateERM.check_options`), on the epsilon
    the fit's weights are calibrated to; a composite that passed on a part of the user's epsilon restates it on the
    user's (:func:`~dpcvx.privacy.budget_part.budget_part`)."""
    eps = positive("epsilon", epsilon)
    if eps > EPSILON_MAX_GAUSSIAN_OBJECTIVE:
        output = setting("mechanism", repr("output"), "output")
        raise above_limit("epsilon", eps, EPSILON_MAX_GAUSSIAN_OBJECTIVE,
                          "the largest budget of objective perturbation with delta > 0 (its calibration evaluates "
                          "e^epsilon, beyond the float range above 709.78)",
                          f"{output} or {setting('delta', '0', 'None')}, which take epsilon up to 1e6")
    return eps


_GRID = 48  # the points of the grid search over log(Lam m + Delta) (docs/theory.md, section 12.5)
_GRID_BRACKET = 1e-4  # the relative width of a grid point's sigma bracket (_sigma_bounds)


# --------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------


# --------------------------------------------------------------------------
# the re-derived RKW privacy profile
# --------------------------------------------------------------------------


def jacobian_epsilon(
    n: int, smoothness: float, norm_bound: float, lam_m: float, ridge: float = 0.0
) -> float:
    """e0 = log(1 + c R^2 / (n (Lam m + Delta))), rounded up: the Jacobian part of the privacy loss.

    The two Jacobians of b -> w differ from a common matrix B >= n (Lam m + Delta) I
    by one rank-one term l'' x x^T each (margin losses); by the matrix determinant
    lemma their ratio lies in [e^-e0, e^e0] for both neighbour relations
    (docs/theory.md, section 12.2). Redberg, Koskela and Wang (2023) use the
    larger -log(1 - c R^2 / (n (Lam m + Delta))).
    """
    n = integer("n", n)
    c = non_negative("smoothness", smoothness)
    r = positive("norm_bound", norm_bound)
    curvature = non_negative("lam_m", lam_m) + non_negative("ridge", ridge)
    if not curvature > 0:
        raise InputError("lam_m + ridge must be positive: the perturbed objective must be strongly convex")
    return round_up(math.log1p(c * r * r / (n * curvature)))


def _disk_bound(shift: float, sigma: float, eps: float) -> float:
    """int_0^inf (rho / sigma^2) (exp(-rho^2 / 2 sigma^2) - e^eps exp(-(rho + S)^2 / 2 sigma^2))_+ d rho.

    The worst case over every shift of norm <= S in a plane (section 12.3, bound (D)):
    e^(-r0^2 / 2 sigma^2) - e^(eps - (r0 + S)^2 / 2 sigma^2) + e^eps (S / sigma) sqrt(2 pi) Phi(-(r0 + S) / sigma).
    The first two terms are e^(-r0^2 / 2 sigma^2) (1 - e^x), x = eps - S (2 r0 + S) / (2 sigma^2): exactly 0 when
    r0 > 0 (x = 0 there), and -expm1(eps - S^2 / (2 sigma^2)) when r0 = 0; so written, they do not cancel.
    """
    r0 = sigma * sigma * eps / shift - shift / 2
    far = max(r0, 0.0) + shift
    near = 0.0 if r0 > 0 else -math.expm1(eps - shift * shift / (2 * sigma * sigma))
    return near + (shift / sigma) * math.sqrt(2 * math.pi) * math.exp(eps + float(log_ndtr(-far / sigma)))


def _folded(sigma: float, shift: float, eps: float) -> float:
    """int (phi(t) - e^eps phi(|t| + S))_+ dt: a shift of either sign along one line (section 12.3, (F)).

    = 2 G_S(eps) when eps >= S^2 / (2 sigma^2), else 1 - 2 e^eps Phi(-S / sigma), computed as
    erf(S / (sigma sqrt 2)) - 2 expm1(eps) Phi(-S / sigma) (1 - 2 Phi(-x) = erf(x / sqrt 2)): the two terms of
    the difference as written nearly cancel where S / sigma is small.
    """
    if eps >= shift * shift / (2 * sigma * sigma):
        return 2 * gaussian_delta(sigma, shift, eps)
    return float(erf(shift / (sigma * math.sqrt(2)))) - 2 * math.expm1(eps) * float(ndtr(-shift / sigma))


def _profile(
    eps_gauss: float, sigma: float, shift: float, neighbours: Neighbours, monotone_loss: bool
) -> float:
    """The Gaussian part of the profile at eps_gauss = eps - e0 > 0 (shift = L R)."""
    if eps_gauss <= 0:
        return 1.0
    if neighbours is Neighbours.ADD_REMOVE:
        value = gaussian_delta(sigma, shift, eps_gauss) if monotone_loss else _folded(sigma, shift, eps_gauss)
    else:
        if monotone_loss:
            union = gaussian_delta(sigma, 2 * shift, eps_gauss) + 2 * gaussian_delta(sigma, shift, eps_gauss)
        else:
            union = _folded(sigma, 2 * shift, eps_gauss) + _folded(sigma, math.sqrt(2) * shift, eps_gauss)
        value = min(union, _disk_bound(2 * shift, sigma, eps_gauss))
    return min(1.0, max(0.0, value))


def objective_gaussian_delta(
    epsilon: float,
    sigma: float,
    *,
    n: int,
    lipschitz: float,
    smoothness: float,
    norm_bound: float,
    lam_m: float,
    ridge: float = 0.0,
    neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
    monotone_loss: bool = False,
) -> float:
    """An upper bound delta(epsilon) on the privacy profile of Gaussian objective perturbation.

    Unconstrained, C^2 margin loss (|l'| <= L, 0 <= l'' <= c), C^2 regularizer,
    ||x|| <= R, b ~ N(0, sigma^2 I) in the sum-form objective (module docstring).
    With e0 = :func:`jacobian_epsilon`, e = epsilon - e0, S = L R and
    G_s(e) = Phi(s / (2 sigma) - e sigma / s) - e^e Phi(-s / (2 sigma) - e sigma / s)
    (the analytic Gaussian profile, Balle and Wang 2018):

    - add/remove-one: delta = F_S(e), the folded profile :func:`_folded` (= 2 G_S(e) when
      e >= S^2 / (2 sigma^2): the direct profile of Redberg, Koskela and Wang 2023);
      delta = G_S(e) when l' has one sign (monotone_loss).
    - replace-one: delta = min(U, D) with
      U = G_2S(e) + 2 G_S(e) (monotone) or F_2S(e) + F_sqrt2S(e) (general),
      and D the planar worst case :func:`_disk_bound` with shift 2S.

    delta = 1 (no guarantee) when e <= 0. Derivation: docs/theory.md, section 12.
    """
    eps = positive("epsilon", epsilon)
    sigma = positive("sigma", sigma)
    shift = positive("lipschitz", lipschitz) * positive("norm_bound", norm_bound)
    e0 = jacobian_epsilon(n, smoothness, norm_bound, lam_m, ridge)
    return _profile(eps - e0, sigma, shift, Neighbours.parse(neighbours), check_flag("monotone_loss", monotone_loss))


def _sigma_test(eps_gauss: float, shift: float, neighbours: Neighbours,
                monotone: bool) -> tuple[Callable[[float], float], float]:
    """(the profile in sigma, the start) of :func:`_bisect_sigma`'s bisection: the analytic Gaussian's delta from
    S / eps_gauss (add/remove-one, l' of one sign), else :func:`_profile` from 2 S / eps_gauss."""
    if neighbours is Neighbours.ADD_REMOVE and monotone:
        return (lambda sigma: gaussian_delta(sigma, shift, eps_gauss)), shift / eps_gauss
    return (lambda sigma: _profile(eps_gauss, sigma, shift, neighbours, monotone)), 2 * shift / eps_gauss


def _bisect_sigma(eps_gauss: float, delta: float, shift: float, neighbours: Neighbours, monotone: bool) -> float:
    """The least sigma whose Gaussian part of the profile at eps_gauss is at most delta (bisection to adjacent
    doubles, :func:`~dpcvx.privacy.least_value.least_below`; the analytic Gaussian's rounded up by its function)."""
    if neighbours is Neighbours.ADD_REMOVE and monotone:
        return analytic_gaussian_sigma(shift, eps_gauss, delta)
    profile, start = _sigma_test(eps_gauss, shift, neighbours, monotone)
    return least_below(profile, delta, start, GAUSSIAN_WINDOW)


def _sigma_bounds(eps_gauss: float, delta: float, shift: float, neighbours: Neighbours,
                  monotone: bool) -> tuple[float, float] | None:
    """(a, b) with a < :func:`_bisect_sigma` <= b: the ends of its test evaluated around the boundary to a
    relative ``_GRID_BRACKET`` (:func:`~dpcvx.privacy.least_value.bracket`), b moved up by twice ``ROUNDING`` for
    the analytic Gaussian's rounding up; None where no bracket is found."""
    profile, start = _sigma_test(eps_gauss, shift, neighbours, monotone)
    ends = bracket(profile, delta, start, _GRID_BRACKET)
    return None if ends is None else (ends[0], ends[1] * (1 + 2 * ROUNDING))


def objective_gaussian_sigma(
    epsilon: float,
    delta: float,
    *,
    n: int,
    lipschitz: float,
    smoothness: float,
    norm_bound: float,
    lam_m: float,
    ridge: float = 0.0,
    neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
    monotone_loss: bool = False,
) -> float:
    """The smallest sigma (bisection, rounded up) with :func:`objective_gaussian_delta` <= delta.

    Raises InputError when the Jacobian term e0 alone reaches epsilon: then no
    sigma works, and the ridge must grow beyond c R^2 / (n (e^epsilon - 1)) - Lam m.
    """
    eps = positive("epsilon", epsilon)
    delta = check_delta(delta, allow_zero=False)
    shift = positive("lipschitz", lipschitz) * positive("norm_bound", norm_bound)
    neighbours = Neighbours.parse(neighbours)
    monotone = check_flag("monotone_loss", monotone_loss)
    e0 = jacobian_epsilon(n, smoothness, norm_bound, lam_m, ridge)
    if not e0 < eps:
        needed = _critical_curvature(eps, n, smoothness, norm_bound) - lam_m
        raise InputError(
            f"the Jacobian term e0 = {e0:.6g} is not below epsilon = {eps:.6g}: no noise level is private; "
            f"use ridge > {max(needed, 0.0):.6g} (averaged form) or a larger regularisation"
        )
    return round_up(_bisect_sigma(eps - e0, delta, shift, neighbours, monotone))


def _critical_curvature(eps: float, n: int, smoothness: float, norm_bound: float) -> float:
    """Lam m + Delta at which e0 = eps."""
    return smoothness * norm_bound**2 / (n * math.expm1(eps))


# --------------------------------------------------------------------------
# the calibration record
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianObjectiveCalibration:
    """A Gaussian objective-perturbation calibration: release argmin of J_b (module docstring).

    Attributes:
        sigma: standard deviation of each coordinate of b in ``sum_i l + ... + b^T w``
            (equivalently of n times the averaged objective's linear coefficient).
        ridge: Delta, the extra ridge (Delta / 2) ||w||^2 of the averaged objective.
        epsilon, delta: the guarantee, for ``neighbours``.
        neighbours: "replace-one" or "add-remove".
        analysis: "rdp-objective-perturbation" (section 12.3) or "kst12" (section 12.4).
        n, lipschitz (L), smoothness (c), norm_bound (R), lam_m (Lam m),
        monotone_loss: the public inputs the calibration used.
        jacobian_epsilon: e0 = log(1 + c R^2 / (n (Lam m + Delta))) at this ridge.
        utility: the value of :func:`utility_proxy` when the calibration came from
            :func:`calibrate_objective_gaussian` (else None).
    """

    sigma: float
    ridge: float
    epsilon: float
    delta: float
    neighbours: Neighbours
    analysis: Analysis
    n: int
    lipschitz: float
    smoothness: float
    norm_bound: float
    lam_m: float
    monotone_loss: bool
    jacobian_epsilon: float
    utility: float | None = None

    @property
    def sum_ridge(self) -> float:
        """n Delta: the ridge of the sum-form objective (KST12's Delta)."""
        return self.n * self.ridge

    @property
    def averaged_sigma(self) -> float:
        """sigma / n: the noise scale of the linear term of the averaged objective."""
        return self.sigma / self.n

    def privacy_profile(self, epsilon: float) -> float:
        """delta(epsilon) of this noise level by the re-derived RKW profile (smooth, unconstrained only)."""
        if self.analysis != RDP_OBJECTIVE:
            raise InputError(
                "the privacy profile holds for unconstrained problems with a C^2 loss and regularizer; "
                "a kst12 calibration is valid at its (epsilon, delta) only"
            )
        return objective_gaussian_delta(
            epsilon,
            self.sigma,
            n=self.n,
            lipschitz=self.lipschitz,
            smoothness=self.smoothness,
            norm_bound=self.norm_bound,
            lam_m=self.lam_m,
            ridge=self.ridge,
            neighbours=self.neighbours,
            monotone_loss=self.monotone_loss,
        )


def rdp_objective_calibration(
    epsilon: float,
    delta: float,
    *,
    n: int,
    lipschitz: float,
    smoothness: float,
    norm_bound: float,
    lam_m: float,
    ridge: float = 0.0,
    neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
    monotone_loss: bool = False,
) -> GaussianObjectiveCalibration:
    """The re-derived Redberg-Koskela-Wang calibration at a given ridge (see :func:`objective_gaussian_sigma`)."""
    sigma = objective_gaussian_sigma(
        epsilon,
        delta,
        n=n,
        lipschitz=lipschitz,
        smoothness=smoothness,
        norm_bound=norm_bound,
        lam_m=lam_m,
        ridge=ridge,
        neighbours=neighbours,
        monotone_loss=monotone_loss,
    )
    return _calibration(RDP_OBJECTIVE, sigma, ridge, epsilon, delta, n, lipschitz, smoothness, norm_bound, lam_m,
                        neighbours, monotone_loss)


def _calibration(analysis: Analysis, sigma: float, ridge: float, epsilon: float, delta: float, n: int,
                 lipschitz: float, smoothness: float, norm_bound: float, lam_m: float, neighbours: Neighbours | str,
                 monotone_loss: bool) -> GaussianObjectiveCalibration:
    """The record of an ``analysis``'s (sigma, ridge) and the public inputs it used, with e0 at that ridge."""
    return GaussianObjectiveCalibration(
        sigma=sigma,
        ridge=float(ridge),
        epsilon=float(epsilon),
        delta=float(delta),
        neighbours=Neighbours.parse(neighbours),
        analysis=analysis,
        n=int(n),
        lipschitz=float(lipschitz),
        smoothness=float(smoothness),
        norm_bound=float(norm_bound),
        lam_m=float(lam_m),
        monotone_loss=bool(monotone_loss),
        jacobian_epsilon=jacobian_epsilon(n, smoothness, norm_bound, lam_m, ridge),
    )


# --------------------------------------------------------------------------
# Kifer, Smith, Thakurta 2012
# --------------------------------------------------------------------------


def kst12_sigma(epsilon: float, delta: float, *, lipschitz: float, norm_bound: float,
                neighbours: Neighbours | str) -> float:
    """KST12 Algorithm 1, (epsilon, delta): sigma = zeta sqrt(8 ln(2/delta) + 4 epsilon) / epsilon.

    zeta bounds the norm of the gradient difference of neighbours: L R under
    add/remove-one, 2 L R under replace-one (docs/theory.md, section 12.4).
    Rounded up.
    """
    eps = positive("epsilon", epsilon)
    delta = check_delta(delta, allow_zero=False)
    zeta = positive("lipschitz", lipschitz) * positive("norm_bound", norm_bound)
    if Neighbours.parse(neighbours) is Neighbours.REPLACE_ONE:
        zeta *= 2
    return round_up(zeta * math.sqrt(8 * math.log(2 / delta) + 4 * eps) / eps)


def kst12_ridge(epsilon: float, *, n: int, smoothness: float, norm_bound: float, lam_m: float) -> float:
    """The smallest averaged ridge of KST12: Delta = max(0, 2 c R^2 / (n epsilon) - Lam m), rounded up.

    KST12 ask for a sum-form ridge n Delta_total >= 2 lambda / epsilon with
    lambda = c R^2 the Hessian bound of one record; the strong convexity Lam m
    of the regularizer counts towards it (section 12.4), for either relation.
    """
    eps = positive("epsilon", epsilon)
    n = integer("n", n)
    c = non_negative("smoothness", smoothness)
    r = positive("norm_bound", norm_bound)
    lam_m = non_negative("lam_m", lam_m)
    needed = 2 * c * r * r / (n * eps) - lam_m
    return round_up(needed) if needed > 0 else 0.0


def kst12_calibration(
    epsilon: float,
    delta: float,
    *,
    n: int,
    lipschitz: float,
    smoothness: float,
    norm_bound: float,
    lam_m: float,
    ridge: float | None = None,
    neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
) -> GaussianObjectiveCalibration:
    """KST12's calibration; ``ridge`` defaults to :func:`kst12_ridge` and may only be larger."""
    minimum = kst12_ridge(epsilon, n=n, smoothness=smoothness, norm_bound=norm_bound, lam_m=lam_m)
    ridge_value = minimum if ridge is None else non_negative("ridge", ridge)
    if ridge_value < minimum:
        raise InputError(f"KST12 needs ridge >= {minimum:.6g} (2 c R^2 / (n epsilon) - Lam m), got {ridge_value}")
    curvature = lam_m + ridge_value
    if not curvature > 0:
        raise InputError("lam_m + ridge must be positive: the perturbed objective must be strongly convex")
    sigma = kst12_sigma(epsilon, delta, lipschitz=lipschitz, norm_bound=norm_bound, neighbours=neighbours)
    return _calibration(KST12, sigma, ridge_value, epsilon, delta, n, lipschitz, smoothness, norm_bound, lam_m,
                        neighbours, False)


# --------------------------------------------------------------------------
# choosing the ridge
# --------------------------------------------------------------------------


def weight_norm_bound(lipschitz: float, norm_bound: float, lam_m: float) -> float:
    """W = L R / (Lam m): ||w*|| <= W for the unperturbed minimiser when 0 minimises N (section 12.5)."""
    return (
        positive("lipschitz", lipschitz)
        * positive("norm_bound", norm_bound)
        / positive("lam_m", lam_m)
    )


def utility_proxy(
    sigma: float, ridge: float, *, n: int, dim: int, lam_m: float, weight_norm: float,
    lipschitz_bound: float = math.inf,
) -> float:
    """E = min(sigma^2 d / (2 n^2 s), L R sigma sqrt(d) / (n s)) + Delta W^2 / 2, s = Lam m + Delta.

    The excess-risk bound of docs/theory.md, section 25 (the rule of ``lam="auto"``), as a
    function of Delta: the noise b ~ N(0, sigma^2 I) of the sum form costs at most
    :func:`~dpcvx.privacy.lam_rule.objective_noise_risk`, and the extra ridge at most
    Delta W^2 / 2 against a comparator of norm W (a public bound: the constraint radius,
    never the fitted weights). ``lipschitz_bound`` is L R (default: the quadratic form only).
    Section 12.5.
    """
    d = integer("dim", dim)
    sigma = positive("sigma", sigma)
    return moment_utility(sigma * math.sqrt(d), sigma * sigma * d, ridge, n=n, lam_m=lam_m, weight_norm=weight_norm,
                          lipschitz_bound=lipschitz_bound)


def moment_utility(first: float, second: float, ridge: float, *, n: int, lam_m: float, weight_norm: float,
                   lipschitz_bound: float = math.inf) -> float:
    """E = min(second / (2 n^2 s), L R first / (n s)) + Delta W^2 / 2, s = Lam m + Delta: :func:`utility_proxy` for
    an objective noise b of any law with E||b|| <= ``first`` and E||b||^2 = ``second`` (sum form).

    The Gaussian's are (sigma sqrt(d), sigma^2 d); the pure calibration's l2-Laplace noise, density proportional to
    exp(-beta ||b||), has (d / beta, d (d + 1) / beta^2) (:func:`~dpcvx.privacy.noise.l2_laplace_moments`), which is
    how :func:`~dpcvx.privacy.linear_calibration.calibrate_linear` ranks it against the Gaussian calibrations at
    delta > 0 (docs/theory.md, section 12.5). Public arithmetic only.
    """
    n = integer("n", n)
    curvature = non_negative("lam_m", lam_m) + non_negative("ridge", ridge)
    if not curvature > 0:
        raise InputError("lam_m + ridge must be positive")
    noise = objective_noise_risk(first, second, n=n, strong=curvature, lipschitz_bound=lipschitz_bound)
    return noise + ridge * non_negative("weight_norm", weight_norm) ** 2 / 2


def calibrate_objective_gaussian(
    epsilon: float,
    delta: float,
    *,
    n: int,
    dim: int,
    lipschitz: float,
    smoothness: float,
    norm_bound: float,
    lam_m: float,
    smooth_unconstrained: bool,
    neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
    monotone_loss: bool = False,
    weight_norm: float | None = None,
    max_ridge: float | None = None,
) -> GaussianObjectiveCalibration:
    """The valid (sigma, Delta) that minimises :func:`utility_proxy` over the analyses that apply.

    ``smooth_unconstrained``: the problem has no constraint set and a C^2 loss
    and regularizer, so the RKW-type profile applies; otherwise only KST12.
    ``monotone_loss``: l' never changes sign (logistic, Huber hinge, any
    non-increasing margin loss) - a tighter profile. ``weight_norm`` is a public
    bound W on ||w*|| (default L R / (Lam m), valid when 0 minimises N).
    Delta is searched in [0, max_ridge] (default 1e3 max(Lam m, c R^2 / (n epsilon))).
    """
    eps = check_gaussian_objective_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    n = integer("n", n)
    dim = integer("dim", dim)
    lipschitz = positive("lipschitz", lipschitz)
    c = non_negative("smoothness", smoothness)
    r = positive("norm_bound", norm_bound)
    lam_m = non_negative("lam_m", lam_m)
    neighbours = Neighbours.parse(neighbours)
    smooth = check_flag("smooth_unconstrained", smooth_unconstrained)
    monotone = check_flag("monotone_loss", monotone_loss)
    if weight_norm is None:
        if lam_m == 0:
            raise InputError("lam_m is 0: pass weight_norm, a public bound on ||w*||")
        w_bound = weight_norm_bound(lipschitz, r, lam_m)
    else:
        w_bound = non_negative("weight_norm", weight_norm)
    top = 1e3 * max(lam_m, c * r * r / (n * eps), 1e-300) if max_ridge is None else positive("max_ridge", max_ridge)

    def proxy(sigma: float, ridge: float) -> float:
        return utility_proxy(sigma, ridge, n=n, dim=dim, lam_m=lam_m, weight_norm=w_bound,
                             lipschitz_bound=lipschitz * r)

    candidates: list[GaussianObjectiveCalibration] = []

    kst_low = kst12_ridge(eps, n=n, smoothness=c, norm_bound=r, lam_m=lam_m)
    kst_sigma = kst12_sigma(eps, delta, lipschitz=lipschitz, norm_bound=r, neighbours=neighbours)
    kst_best = _kst12_best_ridge(kst_sigma, kst_low, top, n=n, dim=dim, lipschitz_bound=lipschitz * r,
                                 lam_m=lam_m, weight_norm=w_bound)
    kst_options = [x for x in (kst_low, kst_best, top) if lam_m + x > 0 and kst_low <= x <= max(top, kst_low)]
    if kst_options:
        best = min(kst_options, key=lambda x: proxy(kst_sigma, x))
        calibration = kst12_calibration(
            eps, delta, n=n, lipschitz=lipschitz, smoothness=c, norm_bound=r, lam_m=lam_m,
            ridge=best, neighbours=neighbours,
        )
        candidates.append(_with_utility(calibration, proxy(calibration.sigma, calibration.ridge)))

    if smooth:
        shift = lipschitz * r

        def sigma_at(ridge: float) -> float:
            e0 = jacobian_epsilon(n, c, r, lam_m, ridge)
            if not e0 < eps:
                return math.inf
            return _bisect_sigma(eps - e0, delta, shift, neighbours, monotone)

        def ridge_at(log_curvature: float) -> float:
            return max(math.exp(log_curvature) - lam_m, 0.0)

        def objective(log_curvature: float) -> float:
            ridge = ridge_at(log_curvature)
            sigma = sigma_at(ridge)
            return math.inf if not math.isfinite(sigma) else proxy(sigma, ridge)

        def objective_floor(log_curvature: float) -> float:
            """The proxy's ridge term Delta W^2 / 2, computed as :func:`utility_proxy` computes it: at most
            objective(log_curvature), whose computed sum adds a non-negative noise term to it."""
            return ridge_at(log_curvature) * w_bound ** 2 / 2

        def objective_bounds(log_curvature: float) -> tuple[float, float]:
            """Bounds on objective(log_curvature): the proxy at the ends of its sigma's bracket (the proxy's
            computed value does not decrease as sigma grows: products, quotients and a min of positive doubles)."""
            ridge = ridge_at(log_curvature)
            e0 = jacobian_epsilon(n, c, r, lam_m, ridge)
            ends = _sigma_bounds(eps - e0, delta, shift, neighbours, monotone) if e0 < eps else None
            if ends is None:
                value = objective(log_curvature)
                return value, value
            return proxy(ends[0], ridge), proxy(ends[1], ridge)

        critical = _critical_curvature(eps, n, c, r)
        low = max(lam_m, critical * (1 + 1e-9), 1e-300)
        high = lam_m + top
        if high > low:
            grid = np.linspace(math.log(low), math.log(high), _GRID)
            values = _least_of(grid, objective, objective_bounds, objective_floor)
            k = int(np.argmin(values))
            if math.isfinite(values[k]):
                a, b = grid[max(k - 1, 0)], grid[min(k + 1, _GRID - 1)]
                refined = minimize_scalar(objective, bounds=(float(a), float(b)), method="bounded")
                choice = float(refined.x) if refined.fun < values[k] else float(grid[k])
                # the grid starts at log(Lam m) when Delta = 0 is feasible: no rounding residue there
                at_start = low == lam_m and choice <= float(grid[0]) + 1e-12
                ridge = 0.0 if at_start else round_up(max(math.exp(choice) - lam_m, 0.0))
                calibration = rdp_objective_calibration(
                    eps, delta, n=n, lipschitz=lipschitz, smoothness=c, norm_bound=r, lam_m=lam_m,
                    ridge=ridge, neighbours=neighbours, monotone_loss=monotone,
                )
                candidates.append(_with_utility(calibration, proxy(calibration.sigma, calibration.ridge)))

    if not candidates:
        raise InputError("no valid calibration: lam_m is 0 and max_ridge leaves no strongly convex option")
    return min(candidates, key=lambda cal: cal.utility if cal.utility is not None else math.inf)


def _least_of(points: np.ndarray, value: Callable[[float], float], bounds: Callable[[float], tuple[float, float]],
              floor: Callable[[float], float]) -> list[float]:
    """value(x) at each point that may hold the least value, inf at the others.

    ``floor(x) <= value(x)`` costs nothing and ``bounds(x) = (lower, upper)`` brackets value(x). The points are
    bracketed in the order of their floors while the floor is at most the least upper bound so far; a point left
    out, or bracketed with its lower bound above the least upper bound, has value(x) > that bound >= the least
    value. So the first least value (``np.argmin``) and its index are those of every value computed: the grid
    search's choice, with only its candidates' sigmas bisected to the last double (the others bracketed,
    :func:`_sigma_bounds`, or ruled out by the ridge's term alone)."""
    floors = [floor(float(x)) for x in points]
    ranges: dict[int, tuple[float, float]] = {}
    cut = math.inf
    for index in sorted(range(len(points)), key=floors.__getitem__):
        if floors[index] > cut:
            break  # every later floor is at least this one
        ranges[index] = bounds(float(points[index]))
        cut = min(cut, ranges[index][1])
    return [value(float(x)) if index in ranges and ranges[index][0] <= cut else math.inf
            for index, x in enumerate(points)]


def _kst12_best_ridge(sigma: float, low: float, high: float, *, n: int, dim: int, lipschitz_bound: float,
                      lam_m: float, weight_norm: float) -> float:
    """The Delta in [low, high] minimising :func:`utility_proxy` at KST12's sigma (which does not depend on Delta).

    The proxy is A / (Lam m + Delta) + Delta W^2 / 2 with A = min(sigma^2 d / (2 n^2), L R sigma sqrt(d) / n),
    minimised at Lam m + Delta = sqrt(2 A) / W (section 12.5); clipped to [low, high], rounded up.
    """
    if not weight_norm > 0:
        return max(low, high)
    area = objective_noise_risk(sigma * math.sqrt(dim), sigma * sigma * dim, n=n, strong=1.0,
                                lipschitz_bound=lipschitz_bound)
    ridge = math.sqrt(2 * area) / weight_norm - lam_m
    return round_up(min(max(ridge, low), max(high, low))) if ridge > low else low


def _with_utility(calibration: GaussianObjectiveCalibration, value: float) -> GaussianObjectiveCalibration:
    return replace(calibration, utility=value)
