"""Noise calibration of Algorithms 1 and 2 (Chaudhuri, Monteleoni, Sarwate, JMLR 2011).

General form with data norm bound R, |l'| <= L, |l''| <= c and an
m-strongly convex regularizer; with R = L = m = 1 these are the paper's
formulas. Derivations: ``docs/theory.md``.

Output perturbation (Theorem 1): the L2 sensitivity of argmin J is
2 L R / (n m Lam); release w* + b with density proportional to
exp(-beta ||b||), beta = n m Lam eps / (2 L R).

Objective perturbation (Theorem 2): with a = c R^2 / (n m Lam),

* ``split="paper"``: eps' = eps - log(1 + 2a + a^2). If eps' > 0, Delta = 0;
  otherwise Delta = c R^2 / (n (e^{eps/4} - 1)) - m Lam and eps' = eps/2.
* ``split="max"``: eps' = max(eps - 2 log(1 + a), eps/2), with Delta = 0 in
  the first case and the same Delta as above in the second. It equals the
  paper's rule whenever that rule leaves eps' >= eps/2, and gives eps/2 where
  the paper would keep a smaller positive eps'.
* ``split="rank-one"``: the same rule with the Jacobian factor (1 + a) where
  the paper has (1 + a)^2: eps' = max(eps - log(1 + a), eps/2), and in the
  second case Delta = c R^2 / (n (e^{eps/2} - 1)) - m Lam. The two Jacobians
  differ from a common positive definite matrix by one rank-one term each, so
  the matrix determinant lemma bounds their ratio by 1 + c R^2 / (n (m Lam + Delta))
  (docs/theory.md, section 3; the rank-one argument of Kifer, Smith and
  Thakurta 2012).

Then beta = eps' / (2 L R) and the released minimiser is that of
J(w) + b^T w / n + (Delta / 2) ||w||^2.

Rounding: every computed quantity is moved by a relative ``ROUNDING`` (1e-12)
in the safe direction (beta and eps' down, Delta up), so the inequalities of
the proofs hold in floating point, not only in exact arithmetic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from .exceptions import InputError
from .validation import positive, sample_size

__all__ = [
    "OutputPerturbation",
    "ObjectivePerturbation",
    "output_perturbation",
    "objective_perturbation",
    "SPLITS",
    "ROUNDING",
    "round_up",
    "round_down",
]

SPLITS = ("paper", "max", "rank-one")
ROUNDING = 1e-12


def round_down(value: float) -> float:
    """value moved down by a relative ROUNDING: for quantities a proof needs no larger."""
    return value * (1 - ROUNDING) if value > 0 else value * (1 + ROUNDING)


def round_up(value: float) -> float:
    """value moved up by a relative ROUNDING: for quantities a proof needs no smaller."""
    return value * (1 + ROUNDING) if value > 0 else value * (1 - ROUNDING)


@dataclass(frozen=True)
class OutputPerturbation:
    """Algorithm 1 calibration: noise density proportional to exp(-beta ||b||)."""

    n: int
    lam: float
    epsilon: float
    L: float
    R: float
    m: float
    release_grid: float | None = None

    def with_release_grid(self, spacing: float) -> "OutputPerturbation":
        """The same calibration, recording the grid the release was rounded to."""
        return replace(self, release_grid=spacing)

    @property
    def sensitivity(self) -> float:
        """L2 sensitivity of the exact minimiser, 2 L R / (n m Lam)."""
        return 2 * self.L * self.R / (self.n * self.m * self.lam)

    @property
    def beta(self) -> float:
        return round_down(self.epsilon / self.sensitivity)

    def to_dict(self) -> dict:
        return {
            "mechanism": "output", "n": self.n, "lam": self.lam, "epsilon": self.epsilon,
            "L": self.L, "R": self.R, "m": self.m,
            "sensitivity": self.sensitivity, "beta": self.beta,
            "release_grid": self.release_grid,
        }


@dataclass(frozen=True)
class ObjectivePerturbation:
    """Algorithm 2 calibration: eps', the extra regularization Delta, and beta."""

    n: int
    lam: float
    epsilon: float
    c: float
    L: float
    R: float
    m: float
    split: str
    epsilon_prime: float
    extra_reg: float

    @property
    def beta(self) -> float:
        return round_down(self.epsilon_prime / (2 * self.L * self.R))

    @property
    def jacobian_exponent(self) -> int:
        """2 for the JMLR 2011 bound on the Jacobian ratio, 1 for the rank-one bound."""
        return 1 if self.split == "rank-one" else 2

    @property
    def jacobian_ratio(self) -> float:
        """Bound (1 + c R^2 / (n (m Lam + Delta)))^k, k = jacobian_exponent, on the Jacobian ratio."""
        base = 1 + self.c * self.R**2 / (self.n * (self.m * self.lam + self.extra_reg))
        return base**self.jacobian_exponent

    def to_dict(self) -> dict:
        return {
            "mechanism": "objective", "n": self.n, "lam": self.lam, "epsilon": self.epsilon,
            "c": self.c, "L": self.L, "R": self.R, "m": self.m, "split": self.split,
            "epsilon_prime": self.epsilon_prime, "extra_reg": self.extra_reg, "beta": self.beta,
        }


def output_perturbation(n: int, lam: float, epsilon: float, L: float = 1, R: float = 1,
                        m: float = 1) -> OutputPerturbation:
    """Calibrate Algorithm 1 (output perturbation), JMLR 2011, general R, L, m."""
    return OutputPerturbation(
        n=sample_size(n), lam=positive("lam", lam), epsilon=positive("epsilon", epsilon),
        L=positive("L", L), R=positive("R", R), m=positive("m", m),
    )


def objective_perturbation(n: int, lam: float, epsilon: float, c: float, L: float = 1,
                           R: float = 1, m: float = 1,
                           split: str = "paper") -> ObjectivePerturbation:
    """Calibrate Algorithm 2 (objective perturbation), JMLR 2011, general R, L, c, m."""
    n = sample_size(n)
    lam, epsilon = positive("lam", lam), positive("epsilon", epsilon)
    L, R, m = positive("L", L), positive("R", R), positive("m", m)
    c = float(c)
    if not (math.isfinite(c) and c >= 0):
        raise InputError(f"c must be finite and non-negative, got {c}")
    if split not in SPLITS:
        raise InputError(f"split must be one of {SPLITS}, got {split!r}")

    exponent = 1 if split == "rank-one" else 2
    a = c * R**2 / (n * m * lam)
    smooth_budget = epsilon - exponent * math.log1p(a)  # paper: eps - log(1 + 2a + a^2)
    threshold = 0.0 if split == "paper" else epsilon / 2
    if smooth_budget > threshold or (split != "paper" and smooth_budget == threshold):
        epsilon_prime, extra_reg = round_down(smooth_budget), 0.0
    else:
        # exponent * log(1 + c R^2 / (n (m Lam + Delta))) = eps / 2
        epsilon_prime = epsilon / 2
        growth = math.expm1(epsilon / (2 * exponent))
        extra_reg = round_up(max(c * R**2 / (n * growth) - m * lam, 0.0))
    return ObjectivePerturbation(
        n=n, lam=lam, epsilon=epsilon, c=c, L=L, R=R, m=m, split=split,
        epsilon_prime=epsilon_prime, extra_reg=extra_reg,
    )
