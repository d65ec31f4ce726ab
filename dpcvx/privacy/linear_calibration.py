"""The calibration of a linear release: the choice of Algorithm 1 or 2, pure or Gaussian, for a verified problem.

:func:`calibrate_linear` reads the verified constants (L, c, m, the problem's class) once and
returns the typed calibration with the constants the certificate states:

* delta = 0: :func:`~.calibrate.objective_perturbation` or :func:`~.calibrate.output_perturbation`
  (JMLR 2011, Algorithms 2 and 1);
* delta > 0: :func:`~.calibrate_gaussian.gaussian_objective_perturbation` or
  :func:`~.calibrate_gaussian.gaussian_output_perturbation` (docs/theory.md, section 12).

The floating-point-safe forms wrap these (:mod:`.float_safe`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..verification.certificate import Certificate
from ..verification.problem import VerifiedProblem
from ..verification.verdict import Mechanism
from . import calibrate
from .calibrate_gaussian import (
    GaussianObjectivePerturbation,
    ReleaseCalibration,
    gaussian_objective_perturbation,
    gaussian_output_perturbation,
)
from .calibration import PerturbsObjective
from .neighbours import Neighbours
from .noise import l2_laplace_moments
from .objective_gaussian import moment_utility, weight_norm_bound

__all__ = ["calibrate_linear", "gaussian_output", "pure_competitor", "ranks_better", "pure_choice_holds",
           "weight_scale", "public_weight_scale"]


def calibrate_linear(problem: VerifiedProblem, mechanism: str, *, n: int, lam: float, epsilon: float, delta: float,
                     R: float, split: str, tol: float, neighbours: Neighbours = Neighbours.REPLACE_ONE
                     ) -> tuple[ReleaseCalibration, dict[str, Any]]:
    """(calibration, constants) of Algorithm 1 or 2 for the verified L, c, m, the public bound R, Lam and tol.

    delta > 0 selects the Gaussian forms (docs/theory.md, section 12); the objective one takes the certificate's
    proof that l' has one sign (:attr:`~dpcvx.verification.certificate.Certificate.one_signed_slope`: the one-sign
    profile of section 12.3, else the general one) from the same verified problem, never re-derived. Under
    replace-one the pure calibration of the same problem competes with it by the same public bound
    (:func:`pure_competitor`); under add-remove the Gaussian forms alone (the pure ones are derived for replace-one).
    """
    certificate = problem.certificate
    objective = Mechanism.of(mechanism) is Mechanism.OBJECTIVE
    if delta > 0:
        L, m, d = problem.lipschitz, problem.strong_convexity, problem.dim
        if objective:
            gaussian = _gaussian_objective(certificate, n=n, lam=lam, epsilon=epsilon, delta=delta,
                                           c=problem.curvature, L=L, R=R, m=m, tol=tol, dim=d, neighbours=neighbours,
                                           weight_norm=weight_scale(problem, L, R, lam))
            constants = {"L": certificate.lipschitz, "c": certificate.curvature,
                         "m": certificate.strong_convexity}
            pure = None if neighbours is Neighbours.ADD_REMOVE else pure_competitor(problem, gaussian, split=split)
            return (gaussian if pure is None else pure), constants
        output = gaussian_output_perturbation(n, lam, epsilon, delta, L=L, R=R, m=m, tol=tol, dim=d,
                                              neighbours=neighbours)
        return output, {"L": certificate.lipschitz, "m": certificate.strong_convexity}
    calibration: calibrate.PureCalibration
    if objective:
        calibration = _pure_objective(problem, n=n, lam=lam, epsilon=epsilon, R=R, split=split, tol=tol)
        constants = {"L": certificate.lipschitz, "c": certificate.curvature,
                     "m": certificate.strong_convexity}
    else:
        calibration = calibrate.output_perturbation(n, lam, epsilon, L=problem.lipschitz, R=R,
                                                    m=problem.strong_convexity, tol=tol)
        constants = {"L": certificate.lipschitz, "m": certificate.strong_convexity}
    return calibration, constants


def _gaussian_objective(certificate: Certificate, *, n: int, lam: float, epsilon: float, delta: float, c: float,
                        L: float, R: float, m: float, tol: float, dim: int, neighbours: Neighbours,
                        weight_norm: float | None) -> GaussianObjectivePerturbation:
    """The Gaussian objective perturbation a fit at delta > 0 calibrates for a problem with this certificate (its
    KST12 posing and its proof that l' has one sign, :attr:`~dpcvx.verification.certificate.Certificate.
    one_signed_slope`) at these public values: the candidate of :func:`calibrate_linear`, and the one a model file's
    reader rebuilds to re-run the choice (:func:`pure_choice_holds`), one computation."""
    return gaussian_objective_perturbation(n, lam, epsilon, delta, c, L=L, R=R, m=m, tol=tol, dim=dim,
                                           neighbours=neighbours, smooth_unconstrained=not certificate.kst12,
                                           weight_norm=weight_norm, one_signed_slope=certificate.one_signed_slope)


def _pure_objective(problem: VerifiedProblem, *, n: int, lam: float, epsilon: float, R: float, split: str,
                    tol: float) -> calibrate.ObjectivePerturbation:
    """The pure-epsilon objective perturbation of the verified problem (its certified c, L and m): the delta = 0
    calibration of :func:`calibrate_linear` and the competitor of :func:`pure_competitor`, one computation."""
    return calibrate.objective_perturbation(n, lam, epsilon, problem.curvature, L=problem.lipschitz, R=R,
                                            m=problem.strong_convexity, split=split, tol=tol)


def pure_competitor(problem: VerifiedProblem, gaussian: GaussianObjectivePerturbation, *,
                    split: str) -> calibrate.ObjectivePerturbation | None:
    """The pure-epsilon objective perturbation of ``gaussian``'s problem when it ranks better, else None.

    A pure epsilon-DP release is (epsilon, delta)-DP for every delta >= 0, so at delta > 0 the calibration of
    delta = 0 (:func:`~.calibrate.objective_perturbation`: JMLR 2011 Theorem 2, or KST12's pure form with a
    constraint set or a non-smooth regularizer, docs/theory.md, section 14) competes with the Gaussian ones when the
    certificate allows objective perturbation at delta = 0 (the same verified problem, the same split, tol and
    approximate-minimiser share). Both are ranked by the excess-risk bound that ranks the Gaussian candidates
    (:func:`~.objective_gaussian.moment_utility`: the noise term min(E||b||^2 / (2 n^2 s), L R E||b|| / (n s)) with
    s = Lam m + Delta, plus Delta W^2 / 2 against the same public W), at the pure noise's moments E||b|| = d / beta,
    E||b||^2 = d (d + 1) / beta^2; the pure calibration is chosen only when its bound is strictly smaller.
    Everything read is public (n, d, epsilon, delta, L, c, m, R, Lam, tol, split, W): the choice is the same on
    every data set of the same public inputs, and costs no privacy. With the Gaussian's noise norm about
    sigma sqrt(d) and the pure one's about 2 d L R / epsilon, the pure calibration wins at low d (the KST12 ball at
    d 12: about 85 / eps against 24 / eps; docs/theory.md, section 12.5).

    The release still states, and the accountant is still charged, the (epsilon, delta) asked for: the mechanism is
    epsilon-DP, which implies (epsilon, delta)-DP for every delta, and a fit whose private draws come first (a
    private bound, column statistics, a class count) or a one-vs-rest split has charged (epsilon, delta) before the
    calibration is chosen. The certificate names the pure theorem (KST12 Theorem 1 with a constraint set, JMLR 2011
    Theorem 2 without) and why it was chosen (:func:`~dpcvx.verification.verdict.pure_at_delta`). Replace-one only:
    :func:`calibrate_linear` does not call it under add-remove.
    """
    if not problem.certificate.verdict(Mechanism.OBJECTIVE.value, 0.0).allowed:
        return None
    try:
        pure = _pure_objective(problem, n=gaussian.n, lam=gaussian.lam, epsilon=gaussian.epsilon, R=gaussian.R,
                               split=split, tol=gaussian.tol)
    except InputError:
        return None
    return pure if ranks_better(pure, gaussian) else None


def ranks_better(pure: calibrate.ObjectivePerturbation, gaussian: GaussianObjectivePerturbation) -> bool:
    """Whether the pure calibration's excess-risk bound is strictly below the Gaussian candidate's
    (:func:`pure_competitor`'s ranking: :func:`~.objective_gaussian.moment_utility` at the pure noise's moments
    E||b|| = d / beta, E||b||^2 = d (d + 1) / beta^2, against the Gaussian's own bound, the same public W)."""
    objective = gaussian.objective
    if objective.utility is None:
        return False
    weight = (gaussian.weight_norm if gaussian.weight_norm is not None
              else weight_norm_bound(gaussian.L, gaussian.R, objective.lam_m))
    first, second = l2_laplace_moments(gaussian.dim, pure.beta)
    value = moment_utility(first, second, pure.extra_reg, n=gaussian.n, lam_m=objective.lam_m, weight_norm=weight,
                           lipschitz_bound=gaussian.L * gaussian.R)
    return value < objective.utility


def pure_choice_holds(certificate: Certificate, pure: calibrate.ObjectivePerturbation, *, delta: float, dim: int,
                      weight_norm: float | None) -> bool:
    """Whether a fit of a problem with this certificate, stating ``delta`` > 0 under replace-one, releases the pure
    calibration ``pure`` (recorded, and recomputed by the reader from its public inputs): the certificate allows
    objective perturbation at delta = 0, and ``pure`` ranks better (:func:`ranks_better`) than the Gaussian candidate
    :func:`calibrate_linear` calibrates at the same public values (n, d, epsilon, delta, L, c, m, R, Lam, tol; W =
    ``weight_norm``, :func:`weight_scale`'s). The same choice as :func:`pure_competitor`, re-run by a model file's
    reader on the file's public values, so that a file whose delta was edited (with its curve) is refused where the
    fit at that delta releases the Gaussian calibration. False where the Gaussian candidate cannot be calibrated
    (the fit at these values is refused)."""
    if not certificate.verdict(Mechanism.OBJECTIVE.value, 0.0).allowed or pure.tol is None:
        return False  # every fit's calibration has a public tol
    try:
        gaussian = _gaussian_objective(certificate, n=pure.n, lam=pure.lam, epsilon=pure.epsilon, delta=delta,
                                       c=pure.c, L=pure.L, R=pure.R, m=pure.m, tol=pure.tol, dim=dim,
                                       neighbours=Neighbours.REPLACE_ONE, weight_norm=weight_norm)
    except InputError:
        return False
    return ranks_better(pure, gaussian)


def gaussian_output(options: Mapping[str, Any], float_safe: bool) -> bool:
    """Whether a linear fit of these ``options`` (its ``mechanism`` and ``delta``) releases by the analytic Gaussian
    output perturbation, as :func:`calibrate_linear` calibrates delta > 0 with the output mechanism and
    ``float_safe`` does not put it on a lattice: the fit whose curve after private draws is a Gaussian of (epsilon,
    delta) alone (:func:`~dpcvx.privacy.privacy_curve.fit_after_draws_part`). Public inputs only, known before the
    draws' charge. The options' mechanism was checked at their entry: compared by value (a typed
    :class:`~dpcvx.verification.verdict.Mechanism` or its name), not parsed again."""
    mechanism = options.get("mechanism")
    return (isinstance(mechanism, str) and mechanism == Mechanism.OUTPUT
            and float(options.get("delta", 0.0)) > 0 and not float_safe)


def weight_scale(problem: VerifiedProblem, L: float, R: float, lam: float) -> float | None:
    """A public scale of ||w*|| for the utility proxy of KST12 problems (never enters the privacy analysis).

    The ball's radius; else L R / (Lam m) (the default, None) when N is strongly
    convex; else L R / (Lam a) for N = a ||w||_1 + ..., the same balance with the L1 weight.
    """
    constraint = problem.constraint_set
    analysis = problem.regularizer.analysis
    return public_weight_scale(constraint.radius if constraint is not None and constraint.kind == "ball" else None,
                               problem.kst12, float(problem.strong_convexity),
                               0.0 if analysis is None else analysis.nonsmooth_weight, L, R, lam)


def public_weight_scale(radius: float | None, kst12: bool, m: float, nonsmooth_weight: float, L: float, R: float,
                        lam: float) -> float | None:
    """:func:`weight_scale` from its public inputs: the ball's ``radius`` (None: no ball), whether the problem is
    posed for KST12, m and the non-smooth part's scale a + min_g b_g (``nonsmooth_weight``); a model file's reader
    derives it from the certificate's conditions."""
    if radius is not None:
        return radius
    if not kst12 or m > 0:
        return None
    return L * R / (lam * max(nonsmooth_weight, 1e-300))


def check_reachable(calibration: PerturbsObjective, d: int) -> None:
    """Refuse, before charging, a tol that the objective's noise makes unreachable in floating point.

    A function of public quantities only (epsilon, tol, n, L, R, d): never a
    refusal that depends on the data.
    """
    floor = calibration.noise_rounding_floor(d)
    gamma = calibration.gradient_tolerance
    if gamma is not None and gamma < 2 * floor:
        needed = 2 * floor / (calibration.n * calibration.L * calibration.R)
        largest = calibrate.TOL_RANGE[1]
        fix = (f"use tol >= {needed:.2g} (at most {largest:g}) or a larger epsilon" if needed <= largest else
               f"no tol reaches it (tol is at most {largest:g}, and would need to be {needed:.2g}): use a larger "
               "epsilon")
        raise InputError(
            f"epsilon = {calibration.epsilon:g} is too small for tol = {calibration.tol:g}: the "
            f"objective's noise (||b|| up to {floor / (32 * np.finfo(float).eps):.3g}) makes the "
            f"gradient bound gamma = {gamma:.3g} unreachable in double precision; {fix}"
        )
