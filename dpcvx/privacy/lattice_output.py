"""Output perturbation on a public lattice with exact integer noise (docs/theory.md, section
"Floating point: the linear releases").

The secret is the solver's point w~ in R^d, whose distance to the exact minimiser is already in
the l2 sensitivity Delta_2 of the float calibration (2 L R / (n m Lam) + 2 gamma / (n m Lam),
section 7). It is released as

    gamma_L (q + Z),   q_i = round(w~_i / gamma_L),   Z in Z^d exact integer noise,

with gamma_L a power of two 2^-LINEAR_LATTICE_BITS below the noise scale (public). Rounding moves
each coordinate by at most gamma_L / 2, so for neighbours

    ||q - q'||_1 <= floor(sqrt(d) Delta_2 / gamma_L) + d          (:func:`l1_steps`),
    ||q - q'||_2^2 <= (Delta_2 / gamma_L + sqrt(d))^2             (:func:`squared_l2_steps`).

* pure epsilon (:class:`LatticeLaplaceOutput`): Z_i i.i.d. discrete Laplace of scale K_1 / eps
  (K_1 the l1 bound): the pmf ratio is exp(||q - q'||_1 eps / K_1) <= e^eps.
* (epsilon, delta) (:class:`LatticeGaussianOutput`): Z_i i.i.d. discrete Gaussian of variance
  sigma^2 >= K_2 / (2 rho) (K_2 the squared l2 bound) is rho-zCDP (Canonne, Kamath and Steinke 2020,
  Theorem 4 per coordinate; Renyi divergences of independent coordinates add), and rho-zCDP gives
  (eps, delta) with delta = :func:`zcdp_delta` (CKS20, Corollary 13).

Both samplers are exact (:mod:`dpcvx.privacy.exact_sampling`), every output is a lattice point and the noise
charges every integer, so the outputs under D and D' have the same support.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any, Self

import numpy as np
from scipy.optimize import minimize_scalar

from ..exceptions import InputError
from ..rounding import EPS, bound_up, next_up, round_up
from ..validation import positive
from ..verification.verdict import Mechanism
from .calibrate import OutputPerturbation
from .calibrate_gaussian import GaussianOutputPerturbation
from .calibration import LinearCalibration, Noise, NoiseMoments, PublicFacts, Record, recorded
from .exact_sampling import IntegerSource, discrete_gaussian_array, discrete_laplace_array
from .float_guarantee import FloatGuarantee
from .lattice import from_lattice, lattice_spacing, to_lattice
from .neighbours import Neighbours

__all__ = ["LINEAR_LATTICE_BITS", "l1_steps", "squared_l2_steps", "zcdp_delta", "zcdp_rho",
           "lattice_point", "release_on_lattice", "lattice_record", "FloatFields",
           "LatticeLaplaceOutput", "LatticeGaussianOutput"]

#: gamma_L = 2^(floor(log2 scale) - 30), scale = sqrt(d) Delta_2 / eps: the rounding adds d gamma_L to the l1 bound
#: sqrt(d) Delta_2, so the noise scale grows by a factor of at most 1 + d 2^-30 / eps (5% at eps = 1e-4, d = 1e4)
LINEAR_LATTICE_BITS = 30


def _ratio(value: float, spacing: float) -> Fraction:
    return Fraction(value) / Fraction(spacing)


def l1_steps(sensitivity: float, d: int, spacing: float) -> int:
    """floor(sqrt(d) Delta_2 / gamma) + d: an integer bound on ||q - q'||_1 (exact integer arithmetic).

    ||w - w'||_1 <= sqrt(d) ||w - w'||_2 and rounding each coordinate adds at most 1, so the integer
    ||q - q'||_1 is at most sqrt(d) X + d, X = Delta_2 / gamma; floor(sqrt(d) X) = isqrt(floor(d X^2)).
    """
    x = _ratio(sensitivity, spacing)
    return math.isqrt(math.floor(d * x * x)) + d


def squared_l2_steps(sensitivity: float, d: int, spacing: float) -> int:
    """An integer bound on ||q - q'||_2^2 <= (X + sqrt(d))^2 = X^2 + d + sqrt(4 d X^2), X = Delta_2 / gamma.

    ||q - q'||_2 <= ||w - w'||_2 / gamma + ||(1, ..., 1)||_2 (triangle inequality); the bound is
    floor(X^2 + d) + isqrt(ceil(4 d X^2)) + 1 (exact).
    """
    x = _ratio(sensitivity, spacing)
    return math.floor(x * x + d) + math.isqrt(math.ceil(4 * d * x * x)) + 1


def _log_delta_terms(alpha: float, rho: float, eps: float) -> tuple[float, float]:
    """(value, error bound) of log(exp((a - 1)(a rho - eps)) (a - 1)^(a - 1) / a^a) at the double a > 1.

    The value is computed without cancellation as T1 + T2 + T3, using
    (a - 1) log(a - 1) - a log a = -(a - 1) log1p(1 / (a - 1)) - log a:

        T1 = (a - 1)(a rho - eps),   T2 = -(a - 1) log1p(1 / (a - 1)) in [-1, 0),   T3 = -log a.

    The old form (a - 1) log(a - 1) - a log a subtracted two terms of about a log a (1e8 at a = 1e7, where
    delta = 1e-300 at eps = 1e-4 puts the optimum) to leave about -17, and lost 2.4e-8 in log delta.

    Error bound (u = 2^-53; each +, -, *, / is correctly rounded, relative error <= u; libm's log, log1p and exp
    within 2 u relative): a - 1 is exact below 2^53 and within u above; a rho - eps is within
    u (a rho) + u |a rho - eps| <= 2 u (a rho + eps) of the exact value, so T1 is within about 4 u (a - 1)(a rho + eps);
    log1p(1 / (a - 1)) is within 4 u relative (its condition number is below 1), so T2 within about 6 u |T2|; T3
    within 2 u |T3|; the two additions add u times the sum of the magnitudes. Hence
    |computed - exact| <= 8 u S, S = (a - 1)(a rho + eps) + |T2| + |T3|, and the bound returned,
    16 u S (1 + 4 EPS) + 1e-300 (:func:`~dpcvx.rounding.bound_up` of 16 u S, which also covers the absolute error of
    an underflowing a rho), is at least twice that.
    """
    excess = alpha - 1
    term1 = excess * (alpha * rho - eps)
    term2 = -excess * math.log1p(1 / excess)
    term3 = -math.log(alpha)
    size = excess * (alpha * rho + eps) + abs(term2) + abs(term3)
    return term1 + term2 + term3, bound_up(16 * (EPS / 2) * size)


def _log_delta_at(alpha: float, rho: float, eps: float) -> float:
    """An upper bound on log(exp((a - 1)(a rho - eps)) (a - 1)^(a - 1) / a^a), valid for every double a > 1
    (:func:`_log_delta_terms`: the computed value plus its proved rounding error, rounded up)."""
    value, error = _log_delta_terms(alpha, rho, eps)
    return next_up(value + error)


def zcdp_delta(rho: float, eps: float) -> float:
    """delta such that rho-zCDP implies (eps, delta)-DP (CKS20, Corollary 13), an upper bound in floating point.

    delta = inf_{a > 1} exp((a - 1)(a rho - eps)) (a - 1)^(a - 1) / a^a. Any a gives a valid delta, so the
    numerical minimisation over a (in log(a - 1)) cannot make the bound unsafe; at the a chosen, the log is
    evaluated without cancellation and moved up by its proved rounding error (:func:`_log_delta_terms`), and
    exp of it (2 u relative) is rounded up by a relative 1e-12. So the value returned is >= the exact delta at
    that a, hence >= the infimum.
    """
    rho, eps = positive("rho", rho), positive("epsilon", eps)
    high = math.log(max(4 * (eps + 1) / rho, 2.0)) + 2

    def objective(log_excess: float) -> float:
        return _log_delta_at(1 + math.exp(log_excess), rho, eps)

    best = minimize_scalar(objective, bounds=(-30.0, high), method="bounded", options={"xatol": 1e-10})
    log_delta = min(objective(float(best.x)), objective(high), 0.0)
    return round_up(math.exp(log_delta))


def zcdp_rho(eps: float, delta: float) -> float:
    """The largest rho (to 60 bisection steps in log rho) with :func:`zcdp_delta` (rho, eps) <= delta."""
    eps, delta = positive("epsilon", eps), positive("delta", delta)
    low, high = math.log(1e-12) + math.log(eps * eps), math.log(eps) + 4.0
    if zcdp_delta(math.exp(low), eps) > delta:
        raise InputError(f"(epsilon, delta) = ({eps:g}, {delta:g}) is too small for the discrete Gaussian")
    for _ in range(60):
        middle = (low + high) / 2
        if zcdp_delta(math.exp(middle), eps) <= delta:
            low = middle
        else:
            high = middle
    return math.exp(low)


def lattice_point(w: np.ndarray, spacing: float) -> list[int]:
    """q_i = round(w_i / gamma) as exact integers (InputError for a non-finite coordinate)."""
    return [to_lattice(float(value), spacing) for value in np.asarray(w, dtype=float).ravel()]


def release_on_lattice(w: np.ndarray, spacing: float, noise: np.ndarray) -> np.ndarray:
    """gamma (q + Z) as doubles: exact while |q_i + Z_i| < 2^53 (beyond, the rounding is post-processing)."""
    steps = lattice_point(w, spacing)
    return np.array([from_lattice(q + int(z), spacing) for q, z in zip(steps, noise, strict=True)])


def lattice_record(base: dict[str, Any], drop: tuple[str, ...], guarantee: FloatGuarantee,
                  **fields: Any) -> dict[str, Any]:
    """A float calibration's record, without its float-noise fields, plus the lattice fields."""
    out = {key: value for key, value in base.items() if key not in drop}
    out.update(fields, sampler="exact", float_guarantee=guarantee.value)
    return out


class FloatFields(LinearCalibration):
    """A float-safe calibration: exact integer noise on a public lattice. Reads the float calibration's public
    fields (n, L, R, epsilon, tol, gradient_tolerance, extra_reg, sensitivity, ...) through the dataclass
    field ``base``."""

    exact_sampler = True

    @property
    def float_guarantee(self) -> FloatGuarantee | None:
        return FloatGuarantee.EXACT

    def __getattr__(self, name: str) -> Any:
        base = self.__dict__.get("base")
        if base is None:
            raise AttributeError(name)
        return getattr(base, name)

    @property
    def relation(self) -> Neighbours:
        return self.__dict__["base"].relation

    def describe(self) -> str:
        """The lattice, the noise and its sensitivity in lattice steps (and, objective, the objective's noise)."""
        return f"calibration (exact sampler): release lattice {self.release_lattice:.6g}, {self.lattice_noise}"

    @property
    @abstractmethod
    def release_lattice(self) -> float:
        """gamma: the spacing of the lattice the release lies on."""

    @property
    @abstractmethod
    def lattice_noise(self) -> str:
        """The certificate's words for the released lattice noise."""

    @abstractmethod
    def lattice_variance(self) -> float:
        """Var Z_i of the released noise in lattice steps (an upper bound)."""

    def lattice_moments(self, d: int) -> tuple[float, float]:
        """(E||gamma Z||, E||gamma Z||^2) bounds for the released lattice noise (public).

        E||gamma Z||^2 = gamma^2 d Var Z_i and E||gamma Z|| <= its square root (Jensen). Never raises (the noise
        warning reads them after a release): products of doubles overflow to infinity, where ``**`` raised.
        """
        second = self.release_lattice * self.release_lattice * d * self.lattice_variance()
        return math.sqrt(second), second

    def release(self, w: np.ndarray, noise: np.ndarray) -> tuple[np.ndarray, Self]:
        """w on the release lattice moved by the drawn steps (:func:`release_on_lattice`)."""
        return release_on_lattice(w, self.release_lattice, noise), self

    def release_offset(self, noise: np.ndarray) -> np.ndarray:
        """The drawn steps as a move of the weights: steps times the release lattice's spacing."""
        return noise * self.release_lattice


def discrete_laplace_variance(scale: float) -> float:
    """Var Z_i <= 2 q / (1 - q)^2, q = e^(-1/t), of the discrete Laplace of scale t (steps); infinity where q rounds
    to 1 (t beyond about 10^16 steps), the bound's limit, rather than a division by zero."""
    q = math.exp(-1.0 / scale)
    return 2 * q / ((1 - q) * (1 - q)) if q < 1.0 else math.inf


def laplace_words(scale: float, steps: int) -> str:
    """The certificate's words for a product discrete Laplace of ``scale`` steps and l1 sensitivity ``steps``."""
    return f"product discrete Laplace of scale {scale:.6g} steps, l1 sensitivity {steps} steps"


class _OutputRelease(FloatFields):
    mechanism = Mechanism.OUTPUT

    def noise_moments(self, d: int) -> NoiseMoments:
        return NoiseMoments(*self.lattice_moments(d))

    def draw_objective_noise(self, d: int, source: IntegerSource) -> np.ndarray:
        """Output perturbation leaves the objective unperturbed."""
        return np.zeros(d)

    @property
    def release_lattice(self) -> float:
        return self.spacing


@dataclass(frozen=True)
class LatticeLaplaceOutput(_OutputRelease):
    """Pure-epsilon output perturbation: a product discrete Laplace on the lattice (EXACT)."""

    base: OutputPerturbation
    dim: int

    noise = Noise.DISCRETE_LAPLACE
    approximate = False
    inputs = OutputPerturbation.inputs

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> LatticeLaplaceOutput:
        return cls(OutputPerturbation.from_record({**record, "release_grid": None}, facts), recorded(record, "dim"))

    @property
    def lattice_noise(self) -> str:
        return laplace_words(float(self.noise_scale), self.steps)

    def lattice_variance(self) -> float:
        return discrete_laplace_variance(float(self.noise_scale))

    @property
    def spacing(self) -> float:
        """2^-30 below the l1 noise scale sqrt(d) Delta_2 / eps (public)."""
        return lattice_spacing(math.sqrt(self.dim) * self.base.sensitivity / self.base.epsilon,
                               LINEAR_LATTICE_BITS)

    @property
    def steps(self) -> int:
        return l1_steps(self.base.sensitivity, self.dim, self.spacing)

    @property
    def noise_scale(self) -> Fraction:
        """t = K_1 / eps in lattice steps (exact rational)."""
        return Fraction(self.steps) / Fraction(self.base.epsilon)

    def draw_release_noise(self, d: int, source: IntegerSource) -> np.ndarray:
        """The release's lattice steps: a product discrete Laplace, exact."""
        return discrete_laplace_array(self.noise_scale, d, source)

    def to_dict(self) -> dict[str, Any]:
        return lattice_record(self.base.to_dict(), ("release_grid", "beta"), FloatGuarantee.EXACT,
                             dim=self.dim, noise=self.noise.value, lattice=self.spacing,
                             lattice_l1_sensitivity=self.steps, noise_scale_steps=float(self.noise_scale))


@dataclass(frozen=True)
class LatticeGaussianOutput(_OutputRelease):
    """(epsilon, delta) output perturbation: a multivariate discrete Gaussian on the lattice (EXACT)."""

    base: GaussianOutputPerturbation

    noise = Noise.DISCRETE_GAUSSIAN
    approximate = True
    inputs = GaussianOutputPerturbation.inputs

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> LatticeGaussianOutput:
        return cls(GaussianOutputPerturbation.from_record({**record, "release_grid": None}, facts))

    @property
    def lattice_noise(self) -> str:
        """Var Z_i <= sigma^2 for the discrete Gaussian of parameter sigma^2 (Canonne, Kamath and Steinke 2020)."""
        return (f"multivariate discrete Gaussian sigma^2 = {self.sigma2:.6g} steps^2, {self.rho:.6g}-zCDP, "
                f"squared l2 sensitivity {self.steps} steps^2")

    def lattice_variance(self) -> float:
        return float(self.sigma2)

    @cached_property
    def rho(self) -> float:
        """The zCDP parameter whose conversion (CKS20, Corollary 13) gives (epsilon, delta) (computed once)."""
        return zcdp_rho(self.base.epsilon, self.base.delta)

    @property
    def spacing(self) -> float:
        """2^-30 below the continuous scale Delta_2 / sqrt(2 rho) (public)."""
        return lattice_spacing(self.base.sensitivity / math.sqrt(2 * self.rho), LINEAR_LATTICE_BITS)

    @property
    def steps(self) -> int:
        return squared_l2_steps(self.base.sensitivity, self.base.dim, self.spacing)

    @property
    def sigma2(self) -> float:
        """sigma^2 = K_2 / (2 rho), rounded up (then exact as a rational): K_2 / (2 sigma^2) <= rho."""
        return round_up(self.steps / (2 * self.rho))

    def draw_release_noise(self, d: int, source: IntegerSource) -> np.ndarray:
        """The release's lattice steps: a multivariate discrete Gaussian, exact."""
        return discrete_gaussian_array(self.sigma2, d, source)

    def to_dict(self) -> dict[str, Any]:
        return lattice_record(self.base.to_dict(), ("release_grid", "sigma"), FloatGuarantee.EXACT,
                             noise=self.noise.value, zcdp_rho=self.rho, lattice=self.spacing,
                             lattice_l2_squared_sensitivity=self.steps, sigma2_steps=self.sigma2)
