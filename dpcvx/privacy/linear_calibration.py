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
from ..verification.problem import VerifiedProblem
from ..verification.verdict import Mechanism
from . import calibrate
from .calibrate_gaussian import ReleaseCalibration, gaussian_objective_perturbation, gaussian_output_perturbation
from .calibration import PerturbsObjective
from .neighbours import Neighbours

__all__ = ["calibrate_linear", "gaussian_output", "weight_scale"]


def calibrate_linear(problem: VerifiedProblem, mechanism: str, *, n: int, lam: float, epsilon: float, delta: float,
                     R: float, split: str, tol: float, neighbours: Neighbours = Neighbours.REPLACE_ONE
                     ) -> tuple[ReleaseCalibration, dict[str, Any]]:
    """(calibration, constants) of Algorithm 1 or 2 for the verified L, c, m, the public bound R, Lam and tol.

    delta > 0 selects the Gaussian forms (docs/theory.md, section 12); the objective one takes the certificate's
    proof that l' has one sign (:attr:`~dpcvx.verification.certificate.Certificate.one_signed_slope`: the one-sign
    profile of section 12.3, else the general one) from the same verified problem, never re-derived.
    """
    certificate = problem.certificate
    objective = Mechanism.of(mechanism) is Mechanism.OBJECTIVE
    if delta > 0:
        L, m, d = problem.lipschitz, problem.strong_convexity, problem.dim
        if objective:
            gaussian = gaussian_objective_perturbation(
                n, lam, epsilon, delta, problem.curvature, L=L, R=R, m=m, tol=tol, dim=d, neighbours=neighbours,
                smooth_unconstrained=not problem.kst12, weight_norm=weight_scale(problem, L, R, lam),
                one_signed_slope=certificate.one_signed_slope)
            constants = {"L": certificate.lipschitz, "c": certificate.curvature,
                         "m": certificate.strong_convexity}
            return gaussian, constants
        output = gaussian_output_perturbation(n, lam, epsilon, delta, L=L, R=R, m=m, tol=tol, dim=d,
                                              neighbours=neighbours)
        return output, {"L": certificate.lipschitz, "m": certificate.strong_convexity}
    calibration: calibrate.PureCalibration
    if objective:
        calibration = calibrate.objective_perturbation(
            n, lam, epsilon, problem.curvature, L=problem.lipschitz, R=R,
            m=problem.strong_convexity, split=split, tol=tol)
        constants = {"L": certificate.lipschitz, "c": certificate.curvature,
                     "m": certificate.strong_convexity}
    else:
        calibration = calibrate.output_perturbation(n, lam, epsilon, L=problem.lipschitz, R=R,
                                                    m=problem.strong_convexity, tol=tol)
        constants = {"L": certificate.lipschitz, "m": certificate.strong_convexity}
    return calibration, constants


def gaussian_output(options: Mapping[str, Any], float_safe: bool) -> bool:
    """Whether a linear fit of these ``options`` (its ``mechanism`` and ``delta``) releases by the analytic Gaussian
    output perturbation, as :func:`calibrate_linear` calibrates delta > 0 with the output mechanism and
    ``float_safe`` does not put it on a lattice: the fit whose curve after private draws is a Gaussian of (epsilon,
    delta) alone (:func:`~dpcvx.privacy.privacy_curve.fit_after_draws_part`). Public inputs only, known before the
    draws' charge."""
    mechanism = options.get("mechanism")
    return (isinstance(mechanism, str) and Mechanism.of(mechanism) is Mechanism.OUTPUT
            and float(options.get("delta", 0.0)) > 0 and not float_safe)


def weight_scale(problem: VerifiedProblem, L: float, R: float, lam: float) -> float | None:
    """A public scale of ||w*|| for the utility proxy of KST12 problems (never enters the privacy analysis).

    The ball's radius; else L R / (Lam m) (the default, None) when N is strongly
    convex; else L R / (Lam a) for N = a ||w||_1 + ..., the same balance with the L1 weight.
    """
    constraint = problem.constraint_set
    if constraint is not None and constraint.kind == "ball":
        return constraint.radius
    if not problem.kst12 or problem.strong_convexity > 0:
        return None
    analysis = problem.regularizer.analysis
    weight = 0.0 if analysis is None else analysis.nonsmooth_weight
    return L * R / (lam * max(weight, 1e-300))


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
