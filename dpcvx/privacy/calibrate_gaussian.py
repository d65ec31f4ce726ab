"""(epsilon, delta) calibrations of the linear learner: Gaussian objective and output perturbation.

* **objective** (docs/theory.md, section 12): release an approximate minimiser of

      J_b(w) = (1/n) sum_i l(y_i w^T x_i) + Lam N(w) + (Delta/2) ||w||^2 + b^T w / n,
      b ~ N(0, sigma^2 I),

  with (sigma, Delta) from :func:`~dpcvx.privacy.objective_gaussian.calibrate_objective_gaussian`
  (the re-derived profile of Redberg, Koskela and Wang 2023, or KST12, whichever needs
  less noise), plus the approximate-minimiser cover of section 7: the solver stops at
  ||grad F|| <= gamma / 2 with gamma = tol n L R public, two such points of one exact
  minimiser lie within 2 gamma / (n (m Lam + Delta)), and the release adds
  N(0, sigma_2^2 I) calibrated by the analytic Gaussian mechanism (Balle and Wang 2018)
  to that sensitivity. The budget splits as in the pure case: the share
  :func:`~dpcvx.privacy.calibrate.amp_share` of epsilon and of delta covers the
  approximate minimiser, and the two parts add up (basic composition).
* **output** (JMLR 2011, Algorithm 1 with Gaussian noise): release w~ + N(0, sigma^2 I),
  sigma the analytic Gaussian sigma for the sensitivity
  2 L R / (n m Lam) + 2 gamma / (n m Lam) of the approximate minimiser.

Neighbours are replace-one (n public) by default. Under add/remove the caller states a
public size N that takes the place of n everywhere (the objective's scaling, gamma, the
calibration); the number of records is never used. A record's gradient then moves the sum
form by at most L R instead of 2 L R, so the output sensitivity halves to
L R / (N m Lam), and the objective's profile is the add/remove one of section 12.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import chi

from ..exceptions import InputError
from ..rounding import round_down, round_up
from ..validation import check_flag
from ..verification.verdict import Mechanism
from .calibrate import (
    OUTPUT_COVER,
    GriddedRelease,
    ObjectivePerturbation,
    OutputCalibration,
    OutputPerturbation,
    amp_share,
    check_tol,
    gradient_tolerance,
    minimiser_sensitivity,
)
from .calibration import Noise, NoiseMoments, PublicFacts, Record, recorded
from .gaussian import analytic_gaussian_multiplier, analytic_gaussian_sigma
from .neighbours import Neighbours
from .noise import gaussian_moments, grid_record, sample_gaussian
from .objective_gaussian import RDP_OBJECTIVE, GaussianObjectiveCalibration, calibrate_objective_gaussian
from .privacy_curve import EPSILON_DELTA, GAUSSIAN, CurvePart, PrivacyCurve, fit_after_draws_part

__all__ = [
    "GaussianObjectivePerturbation",
    "GaussianOutputPerturbation",
    "gaussian_objective_perturbation",
    "gaussian_output_perturbation",
    "gaussian_noise_rounding_floor",
    "ReleaseCalibration",
    "LOSS_SLOPE",
    "ONE_SIGNED",
]

AMP_GAUSSIAN_THEOREM = ("approximate minima perturbation (Iyengar et al., IEEE S&P 2019) with the "
                        "analytic Gaussian mechanism (Balle and Wang, ICML 2018) for the cover")


KST12_PROBLEMS = "a constraint set or a non-smooth regularizer: the KST12 analysis only"

#: The calibration record's field that states the loss's slope was proved to have one sign, and its one value (written
#: only then: a record without it, every file written before it existed included, was calibrated by the general
#: profile of docs/theory.md, section 12.3).
LOSS_SLOPE, ONE_SIGNED = "loss_slope", "one-signed"


def gaussian_noise_rounding_floor(sigma: float, d: int) -> float:
    """32 ulps of the largest ||b|| of N(0, sigma^2 I_d) except with probability 1e-12 (public)."""
    return 32 * math.ulp(1.0) * sigma * float(chi.isf(1e-12, d))


_GAUSSIAN_INPUTS = ("n", "lam", "epsilon", "delta", "L", "R", "m", "tol", "dim", "neighbours")


def _common(record: Record) -> dict[str, Any]:
    """The recorded inputs both Gaussian forms take by keyword."""
    return {key: recorded(record, key) for key in ("L", "R", "m", "tol", "dim", "neighbours")}


@dataclass(frozen=True)
class GaussianObjectivePerturbation(GriddedRelease):
    """(epsilon, delta) objective perturbation with the approximate-minimiser cover."""

    mechanism = Mechanism.OBJECTIVE
    noise = Noise.GAUSSIAN
    approximate = True
    inputs = (*_GAUSSIAN_INPUTS[:4], "c", *_GAUSSIAN_INPUTS[4:])
    approximate_minimiser = AMP_GAUSSIAN_THEOREM

    n: int
    lam: float
    epsilon: float
    delta: float
    c: float
    L: float
    R: float
    m: float
    tol: float
    dim: int
    objective: GaussianObjectiveCalibration
    amp_epsilon: float
    amp_delta: float
    release_grid: float | None = None
    smooth_unconstrained: bool = True
    weight_norm: float | None = None
    #: l' proved to have one sign on R (the verified certificate's ``one_signed_slope``): the one-sign profile
    one_signed_slope: bool = False

    @property
    def neighbours(self) -> Neighbours:
        return self.objective.neighbours

    @property
    def profile(self) -> str:
        """The profile of docs/theory.md, section 12.3 that calibrated sigma, in words (KST12: none of them)."""
        if self.objective.analysis != RDP_OBJECTIVE:
            return "KST12's constants (no profile of section 12.3)"
        if self.objective.monotone_loss:
            return "the one-sign profile of section 12.3 (l' proved to have one sign: certificate condition slope_sign)"
        return "the general profile of section 12.3 (valid whatever the sign of l')"

    @property
    def relation(self) -> Neighbours:
        return self.objective.neighbours

    def noise_moments(self, d: int) -> NoiseMoments:
        amp_sigma = self.amp_sigma
        amp = gaussian_moments(d, amp_sigma) if amp_sigma else (0.0, 0.0)
        return NoiseMoments(*gaussian_moments(d, self.sigma), *amp)

    def privacy_curve(self, epsilon: float, delta: float) -> PrivacyCurve:
        """The objective share as an (epsilon, delta) part and the approximate-minimiser cover as a Gaussian."""
        objective = CurvePart(EPSILON_DELTA, f"objective perturbation ({self.objective.analysis})",
                              epsilon=self.objective.epsilon, delta=self.objective.delta)
        cover = CurvePart.gaussian(self.amp_sigma, self.amp_sensitivity, "approximate-minimiser cover (Gaussian)")
        return PrivacyCurve((objective, cover), self.relation)

    def describe(self) -> str:
        return (f"calibration ({self.objective.analysis}, {self.relation.value}): Gaussian sigma = {self.sigma:.6g} "
                f"(sum form) by {self.profile}, Delta = {self.extra_reg:.6g}, objective share (eps, delta) = "
                f"({self.objective.epsilon:.6g}, {self.objective.delta:.6g}); approximate-minimiser "
                f"noise sigma_2 = {self.amp_sigma:.3g} for ({self.amp_epsilon:.3g}, {self.amp_delta:.3g})")

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> GaussianObjectivePerturbation:
        calibration = gaussian_objective_perturbation(
            recorded(record, "n"), recorded(record, "lam"), recorded(record, "epsilon"), recorded(record, "delta"),
            recorded(record, "c"), smooth_unconstrained=record.get("problem_class") != KST12_PROBLEMS,
            weight_norm=record.get("weight_norm"), one_signed_slope=_recorded_slope(record), **_common(record))
        return calibration.gridded(record)

    @property
    def sigma(self) -> float:
        """Standard deviation of each coordinate of b in the sum form (b^T w / n averaged)."""
        return self.objective.sigma

    @property
    def extra_reg(self) -> float:
        return self.objective.ridge

    @property
    def gradient_tolerance(self) -> float:
        return gradient_tolerance(self.tol, self.n, self.L, self.R)

    @property
    def amp_sensitivity(self) -> float:
        """2 gamma / (n (m Lam + Delta)), as in the pure case (docs/theory.md, section 7)."""
        return round_up(2 * self.gradient_tolerance / (self.n * (self.m * self.lam + self.extra_reg)))

    @property
    def amp_sigma(self) -> float:
        return analytic_gaussian_sigma(self.amp_sensitivity, self.amp_epsilon, self.amp_delta)

    def noise_rounding_floor(self, d: int) -> float:
        return gaussian_noise_rounding_floor(self.sigma, d)

    def draw_objective_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """b ~ N(0, sigma^2 I_d), the objective's noise (sum form)."""
        return sample_gaussian(d, self.sigma, rng)

    def draw_release_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """b_2 ~ N(0, amp_sigma^2 I_d), covering the approximate minimiser."""
        return sample_gaussian(d, self.amp_sigma, rng)

    @property
    def release_scale(self) -> float:
        return self.amp_sigma

    def to_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism.value, "noise": self.noise.value, "n": self.n, "lam": self.lam,
            "epsilon": self.epsilon, "delta": self.delta, "c": self.c, "L": self.L, "R": self.R,
            "m": self.m, "dim": self.dim, "neighbours": self.objective.neighbours.value,
            "analysis": self.objective.analysis, "objective_epsilon": self.objective.epsilon,
            "objective_delta": self.objective.delta, "sigma": self.sigma, "extra_reg": self.extra_reg,
            "jacobian_epsilon": self.objective.jacobian_epsilon,
            "tol": self.tol, "gradient_tolerance": self.gradient_tolerance,
            "amp_epsilon": self.amp_epsilon, "amp_delta": self.amp_delta,
            "amp_sensitivity": self.amp_sensitivity, "amp_sigma": self.amp_sigma,
            "approximate_minimiser": self.approximate_minimiser, **grid_record(self.release_grid),
            # KST12 problems (constraint set or non-smooth regularizer): only the KST12 analysis applies
            **({} if self.smooth_unconstrained else {"problem_class": KST12_PROBLEMS}),
            **({} if self.weight_norm is None else {"weight_norm": self.weight_norm}),
            # l' proved one-signed: the one-sign profile (a record without the field: the general one)
            **({LOSS_SLOPE: ONE_SIGNED} if self.one_signed_slope else {}),
        }


def _recorded_slope(record: Record) -> bool:
    """Whether a record states the one-sign profile (``loss_slope``: ``"one-signed"``); absent: the general profile
    (a file written before the field existed); any other value is refused."""
    if LOSS_SLOPE not in record:
        return False
    if record[LOSS_SLOPE] != ONE_SIGNED:
        raise InputError(f"{LOSS_SLOPE} must be {ONE_SIGNED!r} (l' proved to have one sign) or absent, got "
                         f"{record[LOSS_SLOPE]!r}")
    return True


@dataclass(frozen=True)
class GaussianOutputPerturbation(OutputCalibration):
    """(epsilon, delta) output perturbation: the analytic Gaussian at the minimiser's sensitivity."""

    mechanism = Mechanism.OUTPUT
    noise = Noise.GAUSSIAN
    approximate = True
    inputs = _GAUSSIAN_INPUTS
    approximate_minimiser = OUTPUT_COVER

    n: int
    lam: float
    epsilon: float
    delta: float
    L: float
    R: float
    m: float
    tol: float
    dim: int
    neighbours: Neighbours = Neighbours.REPLACE_ONE
    release_grid: float | None = None

    @property
    def gradient_tolerance(self) -> float:
        return gradient_tolerance(self.tol, self.n, self.L, self.R)

    @property
    def sensitivity(self) -> float:
        """2 L R / (n m Lam) + 2 gamma / (n m Lam): approximate minimisers of neighbours (section 7).

        Under add/remove one record's gradient moves the sum form by L R, not 2 L R: the exact
        part halves (n the public N).
        """
        exact = minimiser_sensitivity(self.n, self.L, self.R, self.m * self.lam)
        if self.neighbours is Neighbours.ADD_REMOVE:
            exact /= 2
        return round_up(exact + 2 * self.gradient_tolerance / (self.n * self.m * self.lam))

    @property
    def sigma(self) -> float:
        """z(epsilon, delta) Delta rounded up (:func:`~dpcvx.privacy.gaussian.analytic_gaussian_multiplier`): at least
        the analytic Gaussian's sigma at Delta, and a multiplier sigma / Delta >= z whatever Delta, so that one
        Gaussian curve of (epsilon, delta) alone covers the release, after private draws too
        (:func:`~dpcvx.privacy.privacy_curve.fit_after_draws_part`)."""
        return round_up(analytic_gaussian_multiplier(self.epsilon, self.delta) * self.sensitivity)

    @property
    def relation(self) -> Neighbours:
        return self.neighbours

    def noise_moments(self, d: int) -> NoiseMoments:
        return NoiseMoments(*gaussian_moments(d, self.sigma))

    def privacy_curve(self, epsilon: float, delta: float) -> PrivacyCurve:
        """One Gaussian part of multiplier z at the calibration's own (epsilon, delta) (:attr:`sigma`), whatever the
        release states: a noise calibrated for less than it states shows in the curve."""
        return PrivacyCurve((CurvePart(GAUSSIAN, "output perturbation (analytic Gaussian)",
                                       noise_multiplier=analytic_gaussian_multiplier(self.epsilon, self.delta)),),
                            self.relation)

    def after_draws_part(self, epsilon: float, delta: float) -> CurvePart:
        """The Gaussian of multiplier z at the calibration's own (epsilon, delta): a curve of those alone
        (:attr:`sigma`), whatever the release states."""
        return fit_after_draws_part(self.epsilon, self.delta, gaussian=True)

    def describe(self) -> str:
        return (f"calibration ({self.neighbours.value}): sensitivity = {self.sensitivity:.6g}, "
                f"analytic Gaussian sigma = {self.sigma:.6g}")

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> GaussianOutputPerturbation:
        calibration = gaussian_output_perturbation(recorded(record, "n"), recorded(record, "lam"),
                                                   recorded(record, "epsilon"), recorded(record, "delta"),
                                                   **_common(record))
        return calibration.gridded(record)

    def draw_release_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """b ~ N(0, sigma^2 I_d): the release's noise."""
        return sample_gaussian(d, self.sigma, rng)

    @property
    def release_scale(self) -> float:
        return self.sigma

    def to_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism.value, "noise": self.noise.value, "n": self.n, "lam": self.lam,
            "epsilon": self.epsilon, "delta": self.delta, "L": self.L, "R": self.R, "m": self.m,
            "dim": self.dim, "neighbours": self.neighbours.value,
            "sensitivity": self.sensitivity, "sigma": self.sigma,
            "tol": self.tol, "gradient_tolerance": self.gradient_tolerance,
            "approximate_minimiser": self.approximate_minimiser,
            **grid_record(self.release_grid),
        }


def gaussian_objective_perturbation(n: int, lam: float, epsilon: float, delta: float, c: float, *,
                                    L: float, R: float, m: float, tol: float, dim: int,
                                    neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
                                    smooth_unconstrained: bool = True,
                                    weight_norm: float | None = None,
                                    one_signed_slope: bool = False) -> GaussianObjectivePerturbation:
    """Calibrate (epsilon, delta) objective perturbation for a problem verified for Theorem 2's conditions.

    ``smooth_unconstrained=False`` (a constraint set or a non-smooth regularizer: KST12's
    conditions) leaves only the KST12 analysis; ``weight_norm`` is a public scale of
    ||w*|| for the utility proxy that chooses Delta (needed when m Lam = 0; it never
    enters the privacy analysis). ``one_signed_slope``: the verifier proved l'(z) <= 0
    for every z (or >= 0; :attr:`~dpcvx.verification.certificate.Certificate.one_signed_slope`),
    so the profile of docs/theory.md, section 12.3 is the one-sign one (add/remove:
    delta = G_S(e); replace-one: min(G_2S(e) + 2 G_S(e), D)) rather than the general one
    (F_S(e); min(F_2S(e) + F_sqrt2S(e), D)); False is always valid.
    """
    tol = check_tol(tol)
    one_signed = check_flag("one_signed_slope", one_signed_slope)
    share = amp_share(tol, n)
    amp_epsilon, amp_delta = round_down(epsilon * share), round_down(delta * share)
    objective = calibrate_objective_gaussian(
        round_down(epsilon - amp_epsilon), round_down(delta - amp_delta), n=n, dim=dim, lipschitz=L,
        smoothness=c, norm_bound=R, lam_m=round_down(m * lam),
        smooth_unconstrained=smooth_unconstrained, monotone_loss=one_signed,
        neighbours=Neighbours.parse(neighbours), weight_norm=weight_norm)
    return GaussianObjectivePerturbation(n=n, lam=lam, epsilon=epsilon, delta=delta, c=c, L=L, R=R, m=m,
                                         tol=tol, dim=dim, objective=objective, amp_epsilon=amp_epsilon,
                                         amp_delta=amp_delta, smooth_unconstrained=smooth_unconstrained,
                                         weight_norm=weight_norm, one_signed_slope=one_signed)


def gaussian_output_perturbation(n: int, lam: float, epsilon: float, delta: float, *,
                                 L: float, R: float, m: float, tol: float, dim: int,
                                 neighbours: Neighbours | str = Neighbours.REPLACE_ONE) -> GaussianOutputPerturbation:
    """Calibrate (epsilon, delta) output perturbation (analytic Gaussian)."""
    if not 0 < delta < 1:
        raise InputError(f"delta must lie in (0, 1) for a Gaussian mechanism, got {delta}")
    return GaussianOutputPerturbation(n=n, lam=lam, epsilon=epsilon, delta=delta, L=L, R=R, m=m,
                                      tol=check_tol(tol), dim=dim, neighbours=Neighbours.parse(neighbours))


ReleaseCalibration = (OutputPerturbation | ObjectivePerturbation | GaussianObjectivePerturbation
                      | GaussianOutputPerturbation)
"""Every calibration a linear release can carry: each draws its own noise (``draw_objective_noise``,
``draw_release_noise``) and applies it (``release``), so the learner never touches a sampler."""
