"""TDDL's noisy predictions on a public lattice with exact integer noise (``TDDL(..., float_safe=True)``;
docs/theory.md, section "Floating point: the other releases").

TDDL releases the T predictions p = Phi_Z^T w~ of the solver's point with l1 sensitivity Delta_1 and
l2 sensitivity Delta_2 (:func:`~dpcvx.privacy.kernel_calibrate.tddl_calibration`). The float-safe form
releases gamma_L (round(p~ / gamma_L) + Z) exactly as the linear output releases do
(:func:`~dpcvx.privacy.lattice_output.release_on_lattice`), where p~ is the prediction vector computed
in doubles, |p~_t - p_t| <= E for every t:

* E is PROVED for the rbf and laplacian kernels over the training span, given sum_i |beta_i| <= A = 2 L / lam
  (checked on the solver's coefficients before any noise is drawn, as PINP does):
  :func:`~dpcvx.privacy.lattice.pinp_float_terms` (the same sum_i beta_i k(x_i, z) as PINP's answers).
  The guarantee is then EXACT. For other kernels or the public span the exact lattice noise is drawn
  but E is not bounded by dpcvx: MITIGATION_ONLY.
* pure epsilon: ||q - q'||_1 <= floor((Delta_1 + 2 T E) / gamma_L) + T = K_1 (rounding adds at most 1
  per coordinate), Z_t i.i.d. discrete Laplace of scale K_1 / eps: the pmf ratio is at most e^eps.
* (epsilon, delta): ||q - q'||_2^2 <= K_2 = :func:`~dpcvx.privacy.lattice_output.squared_l2_steps`
  (Delta_2 + 2 sqrt(T) E, T, gamma_L), Z_t i.i.d. discrete Gaussian of variance K_2 / (2 rho), rho-zCDP
  converted to (eps, delta) by :func:`~dpcvx.privacy.lattice_output.zcdp_delta`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any, ClassVar, Self

import numpy as np

from ..rounding import round_up
from .calibration import Noise
from .exact_sampling import IntegerSource, discrete_gaussian_array, discrete_laplace_array
from .float_guarantee import FloatGuarantee
from .kernel_calibrate import FloatSafeKernel, TDDLCalibration
from .lattice import lattice_spacing, pinp_float_terms
from .lattice_output import LINEAR_LATTICE_BITS, lattice_record, release_on_lattice, squared_l2_steps, zcdp_rho

__all__ = ["LatticeTDDL"]


@dataclass(frozen=True)
class LatticeTDDL(FloatSafeKernel):
    """TDDL's T predictions with exact lattice noise (module docstring)."""

    base: TDDLCalibration
    coefficient_bound: float  # A: sum_i |beta_i| <= A is checked (0: no bound, E unproved)
    evaluation_error: float  # E: |p~_t - p_t| <= E for every prediction (0 when unproved)
    guarantee: FloatGuarantee

    algorithm: ClassVar[str] = "TDDL"
    float_class: ClassVar[type[TDDLCalibration]] = TDDLCalibration

    @classmethod
    def of(cls, base: TDDLCalibration, kernel_name: str, n_features: int) -> Self:
        """E proved (EXACT) for the rbf and laplacian kernels over the training span, else E = 0 and
        MITIGATION_ONLY."""
        if base.minimiser_span != "training":
            return cls(base, 0.0, 0.0, FloatGuarantee.MITIGATION_ONLY)
        bound, error, guarantee = pinp_float_terms(kernel_name, base.n, n_features, base.L, base.lam)
        return cls(base, bound, error, guarantee)

    @property
    def gaussian(self) -> bool:
        return self.base.mechanism is Noise.GAUSSIAN

    @cached_property
    def rho(self) -> float:
        """The zCDP parameter whose conversion gives (epsilon, delta) (Gaussian form only)."""
        return zcdp_rho(self.base.epsilon, self.base.delta)

    @property
    def l1_sensitivity(self) -> float:
        """Delta_1 + 2 T E: the computed predictions' l1 distance between neighbours."""
        return round_up(self.base.l1_sensitivity + 2 * self.base.T * self.evaluation_error)

    @property
    def l2_sensitivity(self) -> float:
        """Delta_2 + 2 sqrt(T) E: the computed predictions' l2 distance between neighbours."""
        return round_up(self.base.l2_sensitivity + 2 * math.sqrt(self.base.T) * self.evaluation_error)

    @property
    def spacing(self) -> float:
        """gamma_L, 2^-30 below the continuous noise scale (public)."""
        scale = (self.l2_sensitivity / math.sqrt(2 * self.rho) if self.gaussian
                 else self.l1_sensitivity / self.base.epsilon)
        return lattice_spacing(scale, LINEAR_LATTICE_BITS)

    @property
    def steps(self) -> int:
        """K_1 (pure epsilon) or K_2 (Gaussian) in lattice steps (exact)."""
        if self.gaussian:
            return squared_l2_steps(self.l2_sensitivity, self.base.T, self.spacing)
        return math.floor(Fraction(self.l1_sensitivity) / Fraction(self.spacing)) + self.base.T

    @property
    def noise_scale(self) -> Fraction:
        """Discrete Laplace scale K_1 / eps (steps, exact)."""
        return Fraction(self.steps) / Fraction(self.base.epsilon)

    @property
    def sigma2(self) -> float:
        """Discrete Gaussian variance K_2 / (2 rho), rounded up (steps^2)."""
        return round_up(self.steps / (2 * self.rho))

    def perturb(self, predictions: np.ndarray, source: IntegerSource) -> np.ndarray:
        """gamma_L (round(p~ / gamma_L) + Z), Z exact."""
        size = int(np.size(predictions))
        noise = (discrete_gaussian_array(self.sigma2, size, source) if self.gaussian
                 else discrete_laplace_array(self.noise_scale, size, source))
        return release_on_lattice(np.asarray(predictions, dtype=float), self.spacing, noise)

    def to_dict(self) -> dict[str, Any]:
        fields: dict[str, Any] = {"coefficient_bound": self.coefficient_bound,
                                  "evaluation_error": self.evaluation_error, "lattice": self.spacing}
        if self.gaussian:
            fields.update(noise="discrete-gaussian", zcdp_rho=self.rho, lattice_l2_squared_sensitivity=self.steps,
                          sigma2_steps=self.sigma2)
        else:
            fields.update(noise="discrete-laplace", lattice_l1_sensitivity=self.steps,
                          noise_scale_steps=float(self.noise_scale))
        return lattice_record(self.base.to_dict(), ("scale", "release_grid"), self.guarantee, **fields)

