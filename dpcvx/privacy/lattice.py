"""Releasing a scalar on a public lattice with exact integer noise: the floating-point charges.

A secret F in R, computed in doubles as F~, is released as

    gamma_L (q + Z),   q = round(clamp(F~, -M, M) / gamma_L),   Z exact integer noise
    (:mod:`dpcvx.privacy.exact_sampling`),

with gamma_L = :func:`lattice_spacing` a power of two tied to the public scale, M a public bound on
|F|. If |F_D - F_D'| <= Delta for neighbours (exact arithmetic) and |F~ - F| <= E (a PROVED bound on
the floating-point evaluation), then |q_D - q_D'| <= K = floor((Delta + 2 E) / gamma_L) + 1
(:func:`lattice_sensitivity`): clamping is 1-Lipschitz and rounding moves each side by at most
gamma_L / 2. Every output is a lattice point, the lattice does not depend on the data, and the noise
has full support on the integers, so the outputs under D and D' have the same support; the ratio of
their probabilities is the ratio of the integer noise's pmf at two points K apart at most. Proof:
docs/theory.md, section "Floating point: PINP's answers".

:func:`stationary_evaluation_error` is E for sum_i w_i k(x_i, z) with an rbf or laplacian kernel.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..exceptions import InputError
from ..rounding import round_up
from ..validation import positive
from .float_guarantee import FloatGuarantee

__all__ = ["LATTICE_BITS", "UNIT_ROUNDOFF", "EXP_RELATIVE_ERROR", "STATIONARY_KERNELS",
           "lattice_spacing", "lattice_sensitivity", "to_lattice", "from_lattice",
           "stationary_evaluation_error", "discrete_laplace_tail", "gamma_n", "pinp_float_terms",
           "float_kernel_name", "clamp_secret"]

LATTICE_BITS = 20  # gamma_L = 2^(floor(log2 Delta) - 20): the lattice adds < 2^-19 Delta to the sensitivity
UNIT_ROUNDOFF = 2.0**-53
# assumed bound on the relative error of numpy's double exp (a few ulp in practice; 2^-44 is 512 ulp)
EXP_RELATIVE_ERROR = 2.0**-44
STATIONARY_KERNELS = ("rbf", "laplacian")


def gamma_n(terms: int) -> float:
    """Higham's gamma_m = m u / (1 - m u) (u = 2^-53), rounded up; m u < 1/2 is required."""
    if not 0 <= terms * UNIT_ROUNDOFF < 0.5:
        raise InputError(f"{terms} terms are too many for the floating-point error bound (m u >= 1/2)")
    return round_up(terms * UNIT_ROUNDOFF / (1 - terms * UNIT_ROUNDOFF))


def lattice_spacing(scale: float, bits: int = LATTICE_BITS) -> float:
    """gamma_L = 2^(floor(log2(scale)) - bits): a power of two at most 2^-bits of ``scale``."""
    scale = positive("scale", scale)
    return math.ldexp(1.0, math.frexp(scale)[1] - 1 - bits)


def lattice_sensitivity(sensitivity: float, evaluation_error: float, spacing: float) -> int:
    """K = floor((Delta + 2 E) / gamma_L) + 1, exact (rational arithmetic on the doubles given)."""
    total = Fraction(sensitivity) + 2 * Fraction(evaluation_error)
    return math.floor(total / Fraction(spacing)) + 1


def to_lattice(value: float, spacing: float, bound: float = math.inf) -> int:
    """round(clamp(value, -bound, bound) / spacing) as an exact integer (ties to even).

    Dividing a double by a power of two is exact (above the subnormal range), and ``round`` of a
    double returns the exact nearest integer.
    """
    if not math.isfinite(value):
        raise InputError("a value to place on the lattice is not finite; nothing is released")
    return round(Fraction(min(max(value, -bound), bound)) / Fraction(spacing))


def clamp_secret(values: Any, bound: Any) -> np.ndarray:
    """A learner's secret values <w*, phi(z)> (computed after its charge) clamped to their proved range
    [-``bound``, ``bound``] (PINP: its magnitude bound; TDDL: (C + gamma) ||phi(z_t)|| per point) as the lattice
    clamps every value: +-inf to +-bound, the NaN of inf - inf to 0. A public rule that never raises, 1-Lipschitz (so
    no sensitivity grows); for a positive semidefinite kernel it changes no value (|<w, phi(z)>| <= ||w|| ||phi(z)||;
    docs/theory.md, section 11, K5, "A callable kernel's answers are total").
    PINP's answers and TDDL's predictions at Z both pass through it."""
    values = np.asarray(values, dtype=float)
    return np.clip(np.where(np.isnan(values), 0.0, values), -bound, bound)


def from_lattice(steps: int, spacing: float) -> float:
    """steps * spacing as a double (exact while |steps| < 2^53; rounding beyond is post-processing)."""
    return float(Fraction(steps) * Fraction(spacing))


def stationary_evaluation_error(n: int, d: int, coefficient_bound: float) -> float:
    """E >= |fl(sum_i w_i k(x_i, z)) - sum_i w_i k(x_i, z)| for the rbf / laplacian kernel, given
    sum_i |w_i| <= A = ``coefficient_bound`` (n terms, inputs of dimension d).

    k = exp(-g dist): cdist's sum of d squared (absolute) differences and the product by g carry a
    relative error theta <= gamma_{d+3}; |exp(-a(1 + theta)) - exp(-a)| <= a |theta| e^{-a/2} <= (2/e) theta;
    exp itself adds eta = EXP_RELATIVE_ERROR: |k~ - k| <= delta = gamma_{d+3} + 2 eta, and |k~| <= 1 + delta.
    The inner product of length n (any order): gamma_n sum |w_i| |k~_i| (Higham 2002, (3.5)).
    E = A (delta + gamma_n (1 + delta)), times 1.01 for the evaluation of this formula.
    """
    delta = gamma_n(d + 3) + 2 * EXP_RELATIVE_ERROR
    return round_up(1.01 * coefficient_bound * (delta + gamma_n(n) * (1 + delta)))


def discrete_laplace_tail(value_scale: float, spacing: float, draws: int, failure: float) -> float:
    """a with P(some of ``draws`` values spacing Z, Z ~ discrete Laplace(value_scale / spacing), exceeds a) <= failure.

    P(|Z| >= m) = 2 q^m / (1 + q) <= q^(m - 1), q = e^{-1/t}; so P(|spacing Z| > a) <= e^{-(a - spacing) / value_scale}
    and a = value_scale ln(draws / failure) + spacing.
    """
    return value_scale * math.log(draws / failure) + spacing


def float_kernel_name(kernel: Any) -> str:  # a dpcvx.data.kernels.Kernel (a higher layer) or a callable
    """The kernel's name when its floating-point evaluation error is proved (dpcvx's own rbf and
    laplacian classes, not a subclass), else "other"."""
    cls = type(kernel)
    if cls.__module__ == "dpcvx.data.kernels" and cls.__name__ in ("RBFKernel", "LaplacianKernel"):
        return str(kernel.name)
    return "other"


def pinp_float_terms(kernel_name: str, n: int, d: int, L: float, lam: float) -> tuple[float, float, FloatGuarantee]:
    """(A, E, guarantee): for the rbf and laplacian kernels A = 2 L / lam and E proved
    (:func:`dpcvx.privacy.lattice.stationary_evaluation_error`), EXACT; for other kernels E is not
    bounded by dpcvx (taken as 0): MITIGATION_ONLY."""
    if kernel_name in STATIONARY_KERNELS and d >= 1:
        bound = round_up(2 * L / lam)
        return bound, stationary_evaluation_error(n, d, bound), FloatGuarantee.EXACT
    return 0.0, 0.0, FloatGuarantee.MITIGATION_ONLY
