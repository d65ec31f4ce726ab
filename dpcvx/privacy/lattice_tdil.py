"""TDIL's rounds with exact lattice noise and charged score errors (``TDIL(..., float_safe=True)``;
docs/theory.md, section "Floating point: the other releases").

Each round of TDIL (:class:`~dpcvx.privacy.kernel_calibrate.TDILParameters`) selects a candidate s by
the exponential mechanism on the score |<w* - w_t, phi(s)>| and tests the gap at s with Laplace noise.
The float-safe form:

* **the test** is PINP's lattice test (:mod:`dpcvx.privacy.lattice`): the computed gap g~ is rounded to
  the public lattice gamma_L = :func:`~dpcvx.privacy.lattice.lattice_spacing` (Delta), an exact discrete
  Laplace of scale K / eps_test (steps) is added, K = :func:`~dpcvx.privacy.lattice.lattice_sensitivity`
  (Delta, E_s, gamma_L), and the round certifies when |q + Z| <= ceil(tau / gamma_L). Only the decision
  and its sign are released.
* **the selection** is the exact exponential mechanism (:func:`~dpcvx.privacy.exponential.sample_exponential`)
  at the sensitivity Delta + 2 E_s, which covers the computed scores.

E_s bounds |g~ - g| for every candidate. g~ = fl(p~_s - q~_s): p~_s = <w~, phi(s)> computed in doubles
(private), q~_s = <w_t, phi(s)> (a function of the public transcript: the same double under D and D').
Over a net with the rbf or laplacian kernel, given sum_i |beta_i| <= A = 2 L / lam (checked before any
round), |p~_s - p_s| <= E (:func:`~dpcvx.privacy.lattice.pinp_float_terms`), |p~_s| <= M + E with
M = (C + gamma) R, |q~_s| <= B eta (k <= 1, B updates of size eta), and the subtraction adds at most
u |p~_s - q~_s|: E_s = E + 2 u (M + E + B eta) (1 + 1e-9) (u = 2^-53), and the guarantee is EXACT. Otherwise
(the linear kernel's continuous ball search, other kernels) E_s = 0 is not proved: MITIGATION_ONLY.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Self

from ..rounding import round_down, round_up
from .exact_sampling import IntegerSource, discrete_laplace
from .float_guarantee import FloatGuarantee
from .kernel_calibrate import FloatSafeKernel, TDILParameters
from .lattice import UNIT_ROUNDOFF, lattice_sensitivity, lattice_spacing, pinp_float_terms

__all__ = ["LatticeTDIL"]


@dataclass(frozen=True)
class LatticeTDIL(FloatSafeKernel):
    """TDIL's lattice test and charged selection (module docstring)."""

    base: TDILParameters
    coefficient_bound: float  # A (0: no proved evaluation error rests on it)
    evaluation_error: float  # E for <w~, phi(s)>
    score_error: float  # E_s for the computed gap and score
    guarantee: FloatGuarantee

    algorithm: ClassVar[str] = "TDIL"
    float_class: ClassVar[type[TDILParameters]] = TDILParameters

    @classmethod
    def of(cls, base: TDILParameters, kernel_name: str, n_features: int) -> Self:
        """EXACT over a net with the rbf or laplacian kernel, else MITIGATION_ONLY (module docstring)."""
        if base.selection != "net":
            return cls(base, 0.0, 0.0, 0.0, FloatGuarantee.MITIGATION_ONLY)
        bound, error, guarantee = pinp_float_terms(kernel_name, base.n, n_features, base.L, base.lam)
        if guarantee is not FloatGuarantee.EXACT:
            return cls(base, 0.0, 0.0, 0.0, guarantee)
        magnitude = (base.C + base.solve_tolerance) * base.R
        largest = (magnitude + error + base.rounds * base.step) * (1 + 1e-9)
        return cls(base, bound, error, round_up(error + 2 * UNIT_ROUNDOFF * largest), guarantee)

    @property
    def lattice(self) -> float:
        return lattice_spacing(self.base.score_sensitivity)

    @property
    def lattice_sensitivity(self) -> int:
        """K = floor((Delta + 2 E_s) / gamma_L) + 1 (exact)."""
        return lattice_sensitivity(self.base.score_sensitivity, self.score_error, self.lattice)

    @property
    def test_scale(self) -> Fraction:
        """K / eps_test in steps, eps_test = the round's half budget (exact)."""
        return Fraction(self.lattice_sensitivity) / Fraction(round_down(self.base.round_epsilon / 2))

    @property
    def threshold_steps(self) -> int:
        return math.ceil(Fraction(self.base.threshold) / Fraction(self.lattice))

    @property
    def selection_sensitivity(self) -> float:
        """Delta + 2 E_s: the computed scores' sensitivity."""
        return round_up(self.base.score_sensitivity + 2 * self.score_error)

    def test(self, gap: float, source: IntegerSource) -> tuple[bool, bool]:
        """(certified, positive) for the computed gap: |q + Z| <= ceil(tau / gamma_L), and q + Z >= 0."""
        noisy = round(Fraction(gap) / Fraction(self.lattice)) + discrete_laplace(self.test_scale, source)
        return abs(noisy) <= self.threshold_steps, noisy >= 0

    def to_dict(self) -> dict[str, Any]:
        return {**self.base.to_dict(), "coefficient_bound": self.coefficient_bound,
                "evaluation_error": self.evaluation_error, "score_error": self.score_error,
                "lattice": self.lattice, "lattice_sensitivity": self.lattice_sensitivity,
                "test_scale_steps": float(self.test_scale), "threshold_steps": self.threshold_steps,
                "selection_sensitivity": self.selection_sensitivity, "noise": "discrete-laplace",
                "sampler": "exact", "float_guarantee": self.guarantee.value}

