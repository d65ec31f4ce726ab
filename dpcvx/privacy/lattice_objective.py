"""Pure-epsilon objective perturbation with exact lattice noise, proved through a uniform dither
(docs/theory.md, section "Floating point: the linear releases").

Lattice noise alone is unsound for objective perturbation: with b on a lattice the minimisers
under D and D' form two countable sets that generically never meet. The release instead:

1. draws b = gamma_b z, z_i i.i.d. discrete Laplace of scale t_b = K_b / eps' (exact), with
   gamma_b = 2^-OBJECTIVE_NOISE_BITS of the l1 noise scale sqrt(d) 2 L R / eps' and
   K_b = floor(sqrt(d) 2 L R / gamma_b) + d (:func:`~dpcvx.privacy.lattice_output.l1_steps`).
   For the ANALYSIS only, V = b + U with U uniform on the cell [-gamma_b / 2, gamma_b / 2]^d has the
   piecewise-constant density P[z = round(v / gamma_b)] / gamma_b^d, whose ratio at two points
   with ||v - v'||_1 <= sqrt(d) 2 L R is at most exp(K_b / t_b) = e^{eps'}: the change of
   variables of JMLR 2011 (Theorem 2) goes through for V with eps' in place of beta 2 L R;
2. the solver's point w~ (||grad F_b(w~)|| <= gamma) satisfies
   ||w~ - w*(V)|| <= r = (gamma + gamma_b sqrt(d) / 2) / (n (m Lam + Delta)), since
   grad F_V = grad F_b + U and ||U||_2 <= gamma_b sqrt(d) / 2;
3. releases gamma_2 (round(w~ / gamma_2) + Z_2), Z_2 i.i.d. discrete Laplace of scale K_2 / eps_2,
   K_2 = floor(sqrt(d) 2 r / gamma_2) + d: the approximate-minimiser noise b_2 of section 7 on a
   lattice. The coupling of section 7 gives eps_1 + eps_2 = eps.

The (epsilon, delta) objective perturbation is not covered: a dithered discrete Gaussian is not a
Gaussian, so it keeps the mitigation of :func:`~dpcvx.privacy.noise.round_to_grid` and its
certificate says MITIGATION_ONLY; ``float_safe=True`` is refused there
(:func:`~dpcvx.privacy.float_safe.check_float_safe_form`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InputError, SolverError
from ..rounding import round_up
from ..verification.verdict import Mechanism
from .calibrate import ObjectivePerturbation
from .calibration import Noise, NoiseMoments, PublicFacts, Record, recorded
from .exact_sampling import IntegerSource, discrete_laplace_array
from .float_guarantee import FloatGuarantee
from .lattice import discrete_laplace_tail, lattice_spacing
from .lattice_output import (
    LINEAR_LATTICE_BITS,
    FloatFields,
    discrete_laplace_variance,
    l1_steps,
    laplace_words,
    lattice_record,
)
from .noise import l2_laplace_moments

__all__ = ["OBJECTIVE_NOISE_BITS", "LatticeObjective"]

#: gamma_b = 2^(floor(log2 scale) - 40): the dither adds gamma_b sqrt(d) / 2 <= 2^-41 d 2 L R / eps'
#: to the solver's bound gamma, and z stays below 2^53 except with probability e^(-2^12)
OBJECTIVE_NOISE_BITS = 40
_EXACT_DOUBLE = 2**53


@dataclass(frozen=True)
class LatticeObjective(FloatFields):
    """Objective perturbation (pure epsilon) with dithered-lattice noise (DITHERED_LATTICE)."""

    base: ObjectivePerturbation
    dim: int

    mechanism = Mechanism.OBJECTIVE
    noise = Noise.DISCRETE_LAPLACE
    approximate = False
    inputs = ObjectivePerturbation.inputs

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> LatticeObjective:
        if record.get("tol") is None:  # the dithered radius reads it: a fit always calibrates this release for one
            raise InputError("calibration.tol is missing or null, but the dithered-lattice objective release is "
                             "calibrated for the public tol of its approximate minimiser")
        return cls(ObjectivePerturbation.from_record({**record, "release_grid": None}, facts),
                   recorded(record, "dim"))

    @property
    def float_guarantee(self) -> FloatGuarantee | None:
        return FloatGuarantee.DITHERED_LATTICE

    @property
    def release_lattice(self) -> float:
        return self.release_spacing

    @property
    def lattice_noise(self) -> str:
        return laplace_words(float(self.release_scale), self.release_steps)

    def lattice_variance(self) -> float:
        return discrete_laplace_variance(float(self.release_scale))

    @property
    def laplace_beta(self) -> float | None:
        return self.base.beta

    def noise_moments(self, d: int) -> NoiseMoments:
        """b's l2-Laplace moments, and the released lattice noise's."""
        return NoiseMoments(*l2_laplace_moments(d, self.base.beta), *self.lattice_moments(d))

    def describe(self) -> str:
        return (f"{super().describe()}; objective noise on the lattice {self.noise_spacing:.6g} (discrete Laplace "
                f"of scale {float(self.noise_scale):.6g} steps, eps' = {self.base.epsilon_prime:.6g}, Delta = "
                f"{self.base.extra_reg:.6g}), dithered radius {self.dithered_radius:.3g}")

    @property
    def noise_shift(self) -> float:
        """2 L R: the l2 norm of the shift of b between neighbours (JMLR 2011, Theorem 2)."""
        return round_up(2 * self.base.L * self.base.R)

    @property
    def noise_spacing(self) -> float:
        """gamma_b: 2^-40 below the l1 noise scale sqrt(d) 2 L R / eps'."""
        scale = math.sqrt(self.dim) * self.noise_shift / self.base.epsilon_prime
        return lattice_spacing(scale, OBJECTIVE_NOISE_BITS)

    @property
    def noise_steps(self) -> int:
        """K_b = floor(sqrt(d) 2 L R / gamma_b) + d: the dithered noise's l1 shift in cells."""
        return l1_steps(self.noise_shift, self.dim, self.noise_spacing)

    @property
    def noise_scale(self) -> Fraction:
        """t_b = K_b / eps' (lattice steps, exact)."""
        return Fraction(self.noise_steps) / Fraction(self.base.epsilon_prime)

    @property
    def dithered_radius(self) -> float:
        """r = (gamma + gamma_b sqrt(d) / 2) / (n (m Lam + Delta)): ||w~ - w*(b + U)|| <= r."""
        gamma = self.base.gradient_tolerance
        assert gamma is not None, "the dithered-lattice release needs a public tol"
        dither = self.noise_spacing * math.sqrt(self.dim) / 2
        return round_up((gamma + dither) / (self.base.n * (self.base.m * self.base.lam + self.base.extra_reg)))

    @property
    def amp_sensitivity(self) -> float:
        """2 r: two computed points of one dithered minimiser (section 7's coupling)."""
        return round_up(2 * self.dithered_radius)

    @property
    def release_spacing(self) -> float:
        """gamma_2: 2^-30 below the release noise's l1 scale sqrt(d) 2 r / eps_2."""
        return lattice_spacing(math.sqrt(self.dim) * self.amp_sensitivity / self.base.amp_epsilon,
                               LINEAR_LATTICE_BITS)

    @property
    def release_steps(self) -> int:
        return l1_steps(self.amp_sensitivity, self.dim, self.release_spacing)

    @property
    def release_scale(self) -> Fraction:
        return Fraction(self.release_steps) / Fraction(self.base.amp_epsilon)

    def noise_rounding_floor(self, d: int) -> float:
        """32 ulps of the largest ||b|| <= ||b||_1 except with probability 1e-12 (public)."""
        largest = d * discrete_laplace_tail(self.noise_spacing * float(self.noise_scale), self.noise_spacing,
                                            d, 1e-12)
        return 32 * math.ulp(1.0) * largest

    def draw_objective_noise(self, d: int, source: IntegerSource) -> np.ndarray:
        """b = gamma_b z, z exact; each gamma_b z_i is an exact double (|z_i| < 2^53 is checked)."""
        steps = discrete_laplace_array(self.noise_scale, d, source)
        if np.any(np.abs(steps) >= _EXACT_DOUBLE):  # probability below e^(-4096): depends on the noise only
            raise SolverError("an objective noise draw exceeds 2^53 lattice steps; nothing was solved (draw again)")
        return steps.astype(float) * self.noise_spacing

    def draw_release_noise(self, d: int, source: IntegerSource) -> np.ndarray:
        """b_2's lattice steps: a product discrete Laplace, exact."""
        return discrete_laplace_array(self.release_scale, d, source)

    def to_dict(self) -> dict[str, Any]:
        return lattice_record(
            self.base.to_dict(), ("release_grid", "amp_sensitivity", "amp_beta"),
            FloatGuarantee.DITHERED_LATTICE, dim=self.dim, noise=self.noise.value,
            noise_lattice=self.noise_spacing, noise_l1_sensitivity=self.noise_steps,
            dithered_radius=self.dithered_radius, amp_sensitivity=self.amp_sensitivity,
            lattice=self.release_spacing, lattice_l1_sensitivity=self.release_steps,
            noise_scale_steps=float(self.noise_scale), release_scale_steps=float(self.release_scale))
