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

Approximate minimisers (docs/theory.md, section "Approximate minimisers"):
both proofs assume the exact minimiser, and every solver returns an
approximate one. The solver is held to a PUBLIC absolute bound gamma on the
gradient norm of the sum-form objective F = n J_b,

    ||grad F(w~)|| <= gamma = tol * n * L * R,

and F is n (m Lam + Delta)-strongly convex, so ||w~ - w*|| <= gamma / (n (m Lam + Delta))
= tol L R / (m Lam + Delta). Output perturbation adds twice that distance to
the sensitivity of w*. Objective perturbation uses approximate minima
perturbation (Iyengar, Near, Song, Thakkar, Thakurta and Wang, S&P 2019) in
its pure-epsilon form: a share eps_2 of the budget pays for noise of density
proportional to exp(-beta_2 ||b_2||) added to w~, with beta_2 = eps_2 /
(2 tol L R / (m Lam + Delta)); Algorithm 2 runs with eps - eps_2. The share
eps_2 = eps sqrt(tol n) / (1 + sqrt(tol n)) minimises the first-order sum of
the two noise scales; it depends only on public tol and n.

Rounding follows the one policy of :mod:`dpcvx.rounding`: every computed
quantity is moved by a relative ``ROUNDING`` (1e-12) in the safe direction
(beta, eps' and eps_2 down, sensitivities and Delta up), so the inequalities
of the proofs hold in floating point, not only in exact arithmetic.
"""

from __future__ import annotations

import functools
import math
from abc import abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any, Self, TypeVar

import numpy as np

from ..exceptions import InputError
from ..limits import SPLITS
from ..rounding import EPS, ROUNDING, round_down, round_up
from ..validation import POSITIVE_MIN, check_choice, check_epsilon, non_negative, number_text, positive, sample_size
from ..verification.verdict import Mechanism
from .calibration import LinearCalibration, Noise, NoiseMoments, PublicFacts, Record, recorded
from .noise import grid_record, l2_laplace_moments, release_grid_spacing, round_to_grid, sample_l2_laplace

__all__ = [
    "OutputPerturbation",
    "ObjectivePerturbation",
    "output_perturbation",
    "objective_perturbation",
    "SPLITS",
    "minimiser_sensitivity",
    "TOL_RANGE",
    "check_tol_at_rows",
    "add_remove_rows_limit",
    "rows_domain",
    "check_add_remove_tol",
    "ADD_REMOVE_ROWS_RATIO",
    "DEFAULT_TOL",
    "CONIC_TOL",
]

DEFAULT_TOL = 1e-10
# Default for problems only a conic solver can take (no Newton polish): Clarabel and SCS
# stop near 1e-9 relative, so their points are certified against a looser public bound.
CONIC_TOL = 1e-7
# Below 1e-13 the floating-point error of the computed gradient (about log2(n) ulps of
# n L R) is no longer small against gamma, so reaching it cannot be certified; above
# 1e-3 the minimiser is so loose that the noise covering it swamps the model.
TOL_RANGE = (1e-13, 1e-3)
OUTPUT_COVER = ("the sensitivity includes 2 gamma / (n m Lam): each approximate minimiser is within "
                "gamma / (n m Lam) of the exact one")
AMP_THEOREM = ("approximate minima perturbation (Iyengar et al., IEEE S&P 2019), pure-epsilon "
               "form with noise density proportional to exp(-beta_2 ||b_2||)")


def minimiser_sensitivity(n: int, L: float, R: float, mu: float) -> float:
    """2 L R / (n mu): how far the exact minimisers of neighbouring data sets can lie apart.

    For J(w) = (1/n) sum_i l(w; x_i) + (regularizer of strong convexity mu) with
    ||grad l|| <= L R, replacing one record moves the gradient of J by at most
    2 L R / n, and mu-strong convexity turns that into ||w*_D - w*_D'|| <= 2 L R / (n mu)
    (JMLR 2011, Corollary 1 with mu = m Lam; Jain and Thakurta 2013, Section 4 in the
    RKHS with mu = lam). Derivation: docs/theory.md, section 2.

    InputError where 2 L R or n mu falls below the smallest normal double: a subnormal carries a relative error far
    above the 1e-12 by which the caller rounds the quotient up (every calibration that states this sensitivity).
    """
    numerator, denominator = 2 * L * R, n * mu
    if numerator < POSITIVE_MIN or denominator < POSITIVE_MIN:
        raise InputError(f"2 L R = {numerator:g} or n mu = {denominator:g} is below the smallest normal double "
                         f"{POSITIVE_MIN:g}, where a double carries too few digits for the sensitivity's safe-side "
                         "rounding: use values of moderate size (rescale the data or the loss)")
    return numerator / denominator


def check_tol(tol: float) -> float:
    """The public relative gradient tolerance, inside TOL_RANGE (InputError otherwise)."""
    value = positive("tol", tol)
    low, high = TOL_RANGE
    if not low <= value <= high:
        raise InputError(
            f"tol must lie in [{low:g}, {high:g}], got {number_text(value)}: the release is an approximate "
            f"minimiser with ||grad F|| <= tol n L R, covered by noise of scale proportional to "
            f"tol; below {low:g} floating point cannot certify the bound, above {high:g} the "
            "covering noise swamps the model. The default is 1e-10"
        )
    return value


#: Under add/remove the smallest tol, TOL_RANGE's floor times this: the refusal of :func:`check_tol_at_rows`, a
#: function of the private |D|, then needs |D| > ADD_REMOVE_ROWS_RATIO n_public. At tol = 1e-13 it had been
#: |D| > n_public: a data set one row larger than the public size was refused and one at it released, so the
#: refusal told add/remove neighbours apart whenever n_public was the true size (an audit's probe).
ADD_REMOVE_ROWS_RATIO = 1000


def check_add_remove_tol(tol: float) -> None:
    """Under add/remove, before anything is read: tol at least ``ADD_REMOVE_ROWS_RATIO`` times TOL_RANGE's floor
    (1e-10, the default), so that :func:`check_tol_at_rows` refuses only data sets of more than that many times
    n_public rows (public: tol alone; InputError otherwise)."""
    floor = ADD_REMOVE_ROWS_RATIO * TOL_RANGE[0]
    if tol < floor * (1 - 1e-12):
        raise InputError(
            f"neighbours='add-remove' takes tol >= {floor:g} (the default), got {number_text(tol)}: the fit refuses "
            "a data set whose rows exceed tol n_public / 1e-13 (the gradient's rounding grows with the rows, "
            "docs/theory.md section 23), and that refusal depends on the private number of records; at this tol it "
            f"would come at fewer than {ADD_REMOVE_ROWS_RATIO} times n_public rows. Nothing was charged")


def add_remove_rows_limit(tol: float, n_public: int) -> int:
    """The most rows an add/remove fit at ``tol`` and ``n_public`` accepts: the largest |D| with tol N / |D| at least
    TOL_RANGE's floor in doubles (the test of :func:`check_tol_at_rows`, which refuses every larger data set before
    anything is charged). A function of public tol and N only, so the domain its guarantee is proved on
    (:func:`rows_domain`, docs/theory.md section 23) can be stated with the release."""
    limit = math.floor(tol * n_public / TOL_RANGE[0])
    while limit > 0 and tol * n_public / limit < TOL_RANGE[0]:  # the division's rounding, at the boundary
        limit -= 1
    while tol * n_public / (limit + 1) >= TOL_RANGE[0]:
        limit += 1
    return limit


def rows_domain(tol: float, n_public: int) -> str:
    """The statement of an add/remove release's public domain: the data sets its guarantee covers, those of at most
    :func:`add_remove_rows_limit` rows; a larger one is refused before anything is charged, so the refusal tells
    such a data set from its neighbours (docs/theory.md, section 23)."""
    return (f"data sets of at most {add_remove_rows_limit(tol, n_public)} records (tol n_public / {TOL_RANGE[0]:g} "
            f"at tol = {number_text(tol)}, n_public = {n_public}: public); a fit refuses a larger one before anything "
            "is charged (the gradient's rounding grows with the records while gamma does not, docs/theory.md "
            "section 23), so the guarantee holds between neighbours within this domain")


def check_tol_at_rows(tol: float, n_public: int, rows: int) -> None:
    """Under add/remove: the tolerance at the true size, tol N / |D|, must lie above TOL_RANGE's floor.

    gamma = tol N L R scales with the public size N = ``n_public``, but the rounding of the computed
    gradient scales with the number of rows |D| = ``rows`` (about log2 |D| ulps of |D| L R; docs/theory.md,
    section 23): against gamma it is the rounding of a replace-one fit at tolerance tol N / |D|. Below
    TOL_RANGE's floor the check ||grad F|| <= gamma / 2 in doubles no longer certifies the exact bound
    (the audit: tol 1e-13, |D| = 10^6, N = 10, the exact gradient 2.35 gamma), so the fit is refused
    before anything is charged. The refusal is a function of |D| (private under add/remove): its threshold
    tol N / 1e-13 (:func:`add_remove_rows_limit`) is public and at least 1,000 N at the default tol; the
    certificate states it (:func:`rows_domain`)."""
    if rows > add_remove_rows_limit(tol, n_public):
        raise InputError(
            f"neighbours='add-remove' with n_public = {n_public} and tol = {tol:g}: the data has too many rows "
            f"for n_public at this tol (tol * n_public / rows is below {TOL_RANGE[0]:g}); the gradient's "
            "rounding grows with the rows while gamma = tol n_public L R does not, so the solver's bound "
            "cannot be certified (docs/theory.md, section 23). Nothing was charged. Raise tol or n_public "
            "(a public size close to the number of records)")


def noise_rounding_floor(beta: float, d: int) -> float:
    """32 ulps of the largest ||b|| the objective's noise draws except with probability 1e-12.

    ||b|| ~ Gamma(d, 1/beta); b enters grad F, so the gradient computed in double
    precision cannot be certified below about ulp(||b||). A public number: the
    solver can reach gamma / 2 whenever gamma / 2 exceeds this floor.
    """
    largest = _gamma_tail(d) * (1.0 / beta)  # scipy.stats.gamma.isf(1e-12, d, scale=1 / beta)
    # to the bit (its own formula), without the 200 us of scipy.stats' argument handling
    return 32 * math.ulp(1.0) * largest


@functools.lru_cache(maxsize=64)
def _gamma_tail(d: int) -> float:
    """The 1 - 1e-12 quantile of Gamma(d, 1) (one per dimension: lam="auto" asks at 49 values of Lam)."""
    from scipy.special import gammainccinv

    return float(gammainccinv(d, 1e-12))


def gradient_tolerance(tol: float, n: int, L: float, R: float) -> float:
    """gamma = tol n L R: the public bound on ||grad F(w~)||, F = n J_b (sum form)."""
    return round_down(tol * n * L * R)


class GriddedRelease(LinearCalibration):
    """A calibration whose release is w plus its float noise rounded to the grid of that noise's scale
    (:func:`~dpcvx.privacy.noise.round_to_grid`), the grid recorded in its ``release_grid`` field."""

    @property
    @abstractmethod
    def release_scale(self) -> float | None:
        """The scale of the release's noise, which sets the grid (None where there is none: no public tol)."""

    def with_release_grid(self, spacing: float) -> Self:
        """The same calibration, recording the grid the release was rounded to."""
        return replace(self, release_grid=spacing)  # type: ignore[type-var]  # each subclass is a dataclass

    def release(self, w: np.ndarray, noise: np.ndarray) -> tuple[np.ndarray, Self]:
        """w + the release's noise rounded to the release grid, and the calibration recording the grid."""
        scale = self.release_scale
        assert scale is not None, "the release of an approximate minimiser needs a public tol"
        released, spacing = round_to_grid(w + noise, scale)
        return released, self.with_release_grid(spacing)

    def gridded(self, record: Record) -> Self:
        """This calibration with the release grid ``record`` states (a function of :attr:`release_scale`)."""
        scale = self.release_scale
        if record.get("release_grid") is None or scale is None:
            return self
        return self.with_release_grid(release_grid_spacing(scale))


class OutputCalibration(GriddedRelease):
    """Output perturbation: the objective is left unperturbed and the release's noise is added to the minimiser."""

    @property
    def extra_reg(self) -> float:
        return 0.0

    def draw_objective_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """Output perturbation leaves the objective unperturbed."""
        return np.zeros(d)


def amp_share(tol: float, n: int) -> float:
    """eps_2 / eps = sqrt(tol n) / (1 + sqrt(tol n)): minimises the first-order noise sum."""
    root = math.sqrt(tol * n)
    return root / (1 + root)


@dataclass(frozen=True)
class OutputPerturbation(OutputCalibration):
    """Algorithm 1 calibration: noise density proportional to exp(-beta ||b||)."""

    mechanism = Mechanism.OUTPUT
    noise = Noise.L2_LAPLACE
    approximate = False
    inputs = ("n", "lam", "epsilon", "L", "R", "m", "tol")
    approximate_minimiser = OUTPUT_COVER

    n: int
    lam: float
    epsilon: float
    L: float
    R: float
    m: float
    tol: float | None = None
    release_grid: float | None = None

    def draw_release_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """b with density proportional to exp(-beta ||b||): the release's noise."""
        return sample_l2_laplace(d, self.beta, rng)

    @property
    def release_scale(self) -> float:
        return 1.0 / self.beta

    @property
    def gradient_tolerance(self) -> float | None:
        return None if self.tol is None else gradient_tolerance(self.tol, self.n, self.L, self.R)

    @property
    def sensitivity(self) -> float:
        """L2 sensitivity of the released minimiser: 2 L R / (n m Lam), plus 2 gamma / (n m Lam).

        Exact minimisers of neighbours are 2 L R / (n m Lam) apart (Theorem 1);
        each approximate minimiser is within gamma / (n m Lam) of its exact one.
        """
        exact = minimiser_sensitivity(self.n, self.L, self.R, self.m * self.lam)
        if self.tol is None:
            return exact
        gamma = gradient_tolerance(self.tol, self.n, self.L, self.R)
        return round_up(exact + 2 * gamma / (self.n * self.m * self.lam))

    @property
    def beta(self) -> float:
        return round_down(self.epsilon / self.sensitivity)

    @property
    def laplace_beta(self) -> float | None:
        return self.beta

    def noise_moments(self, d: int) -> NoiseMoments:
        return NoiseMoments(*l2_laplace_moments(d, self.beta))

    def describe(self) -> str:
        return f"calibration: sensitivity = {self.sensitivity:.6g}, beta = {self.beta:.6g}"

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> OutputPerturbation:
        calibration = output_perturbation(recorded(record, "n"), recorded(record, "lam"), recorded(record, "epsilon"),
                                          L=recorded(record, "L"), R=recorded(record, "R"), m=recorded(record, "m"),
                                          tol=record.get("tol"))
        return calibration.gridded(record)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mechanism": self.mechanism.value, "n": self.n, "lam": self.lam, "epsilon": self.epsilon,
            "L": self.L, "R": self.R, "m": self.m,
            "sensitivity": self.sensitivity, "beta": self.beta,
            **grid_record(self.release_grid),
        }
        if self.tol is not None:
            out.update({
                "tol": self.tol, "gradient_tolerance": self.gradient_tolerance,
                "approximate_minimiser": self.approximate_minimiser,
            })
        return out


@dataclass(frozen=True)
class ObjectivePerturbation(GriddedRelease):
    """Algorithm 2 calibration: eps', the extra regularization Delta, and beta."""

    mechanism = Mechanism.OBJECTIVE
    noise = Noise.L2_LAPLACE
    approximate = False
    inputs = ("n", "lam", "epsilon", "c", "L", "R", "m", "split", "tol")
    approximate_minimiser = AMP_THEOREM

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
    tol: float | None = None
    amp_epsilon: float = 0.0
    release_grid: float | None = None

    @property
    def beta(self) -> float:
        return round_down(self.epsilon_prime / (2 * self.L * self.R))

    @property
    def gradient_tolerance(self) -> float | None:
        return None if self.tol is None else gradient_tolerance(self.tol, self.n, self.L, self.R)

    @property
    def amp_sensitivity(self) -> float | None:
        """2 gamma / (n (m Lam + Delta)): the distance of two approximate minimisers of one w*."""
        if self.tol is None:
            return None
        gamma = gradient_tolerance(self.tol, self.n, self.L, self.R)
        return round_up(2 * gamma / (self.n * (self.m * self.lam + self.extra_reg)))

    @property
    def amp_beta(self) -> float | None:
        """beta_2 of the approximate-minimiser noise, density proportional to exp(-beta_2 ||b_2||)."""
        sensitivity = self.amp_sensitivity
        if sensitivity is None:
            return None
        return round_down(self.amp_epsilon / sensitivity)

    def noise_rounding_floor(self, d: int) -> float:
        return noise_rounding_floor(self.beta, d)

    @property
    def laplace_beta(self) -> float | None:
        return self.beta

    def noise_moments(self, d: int) -> NoiseMoments:
        amp_beta = self.amp_beta
        amp = l2_laplace_moments(d, amp_beta) if amp_beta else (0.0, 0.0)
        return NoiseMoments(*l2_laplace_moments(d, self.beta), *amp)

    def describe(self) -> str:
        return (f"calibration ({self.split} split): eps' = {self.epsilon_prime:.6g}, "
                f"Delta = {self.extra_reg:.6g}, beta = {self.beta:.6g}")

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> ObjectivePerturbation:
        calibration = objective_perturbation(
            recorded(record, "n"), recorded(record, "lam"), recorded(record, "epsilon"), recorded(record, "c"),
            L=recorded(record, "L"), R=recorded(record, "R"), m=recorded(record, "m"),
            split=recorded(record, "split"), tol=record.get("tol"))
        return calibration.gridded(record)

    def draw_objective_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """b with density proportional to exp(-beta ||b||): the objective's noise (Algorithm 2)."""
        return sample_l2_laplace(d, self.beta, rng)

    def draw_release_noise(self, d: int, rng: np.random.Generator) -> np.ndarray:
        """b_2 covering the approximate minimiser: density proportional to exp(-beta_2 ||b_2||)."""
        assert self.amp_beta is not None, "the release of an approximate minimiser needs a public tol"
        return sample_l2_laplace(d, self.amp_beta, rng)

    @property
    def release_scale(self) -> float | None:
        """1 / beta_2, the scale of b_2 (None without a public tol)."""
        return None if self.amp_beta is None else 1.0 / self.amp_beta

    @property
    def jacobian_exponent(self) -> int:
        """2 for the JMLR 2011 bound on the Jacobian ratio, 1 for the rank-one bound."""
        return 1 if self.split == "rank-one" else 2

    @property
    def jacobian_ratio(self) -> float:
        """Bound (1 + c R^2 / (n (m Lam + Delta)))^k, k = jacobian_exponent, on the Jacobian ratio."""
        base = 1 + self.c * self.R**2 / (self.n * (self.m * self.lam + self.extra_reg))
        return base**self.jacobian_exponent

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "mechanism": self.mechanism.value, "n": self.n, "lam": self.lam, "epsilon": self.epsilon,
            "c": self.c, "L": self.L, "R": self.R, "m": self.m, "split": self.split,
            "epsilon_prime": self.epsilon_prime, "extra_reg": self.extra_reg, "beta": self.beta,
        }
        if self.tol is not None:
            out.update({
                "tol": self.tol, "gradient_tolerance": self.gradient_tolerance,
                "amp_epsilon": self.amp_epsilon, "amp_sensitivity": self.amp_sensitivity,
                "amp_beta": self.amp_beta, "approximate_minimiser": self.approximate_minimiser,
                **grid_record(self.release_grid),
            })
        return out


def output_perturbation(n: int, lam: float, epsilon: float, L: float = 1, R: float = 1,
                        m: float = 1, tol: float | None = None) -> OutputPerturbation:
    """Calibrate Algorithm 1 (output perturbation), JMLR 2011, general R, L, m.

    ``tol`` None calibrates for the exact minimiser (the paper's formula);
    a public ``tol`` covers any point with ||grad F|| <= tol n L R.
    """
    calibration = OutputPerturbation(
        n=sample_size(n), lam=positive("lam", lam), epsilon=check_epsilon(epsilon),
        L=positive("L", L), R=positive("R", R), m=positive("m", m),
        tol=None if tol is None else check_tol(tol),
    )
    with _arithmetic("output perturbation"):
        return _finite(calibration)


def objective_perturbation(n: int, lam: float, epsilon: float, c: float, L: float = 1,
                           R: float = 1, m: float = 1,
                           split: str = "paper", tol: float | None = None) -> ObjectivePerturbation:
    """Calibrate Algorithm 2 (objective perturbation), JMLR 2011, general R, L, c, m.

    ``tol`` None calibrates for the exact minimiser (the paper's formulas).
    A public ``tol`` reserves the share :func:`amp_share` of epsilon for the
    approximate-minimiser noise and runs Algorithm 2 with the rest.
    """
    n = sample_size(n)
    lam, epsilon = positive("lam", lam), check_epsilon(epsilon)
    L, R, m = positive("L", L), positive("R", R), non_negative("m", m)
    c = non_negative("c", c)
    split = check_choice("split", split, SPLITS)
    if m == 0 and c == 0:
        raise InputError("m = 0 and c = 0 leave the perturbed objective without strong convexity; "
                         "add a strongly convex term to the regularizer")

    with _arithmetic("objective perturbation"):
        return _objective(n, lam, epsilon, c, L, R, m, split, tol)


def _objective(n: int, lam: float, epsilon: float, c: float, L: float, R: float, m: float,
               split: str, tol: float | None) -> ObjectivePerturbation:
    total = epsilon
    amp_epsilon = 0.0
    if tol is not None:
        tol = check_tol(tol)
        amp_epsilon = round_down(total * amp_share(tol, n))
        epsilon = round_down(total - amp_epsilon)

    exponent = 1 if split == "rank-one" else 2
    # m = 0 (a regularizer that is convex only, KST12): all strong convexity comes from Delta
    a = c * R**2 / (n * m * lam) if m > 0 else math.inf
    smooth_budget = _certified(epsilon, exponent * math.log1p(a))  # paper: eps - log(1 + 2a + a^2)
    threshold = 0.0 if split == "paper" else epsilon / 2
    if smooth_budget > threshold or (split != "paper" and smooth_budget == threshold):
        epsilon_prime, extra_reg = round_down(smooth_budget), 0.0
    else:
        # exponent * log(1 + c R^2 / (n (m Lam + Delta))) = eps / 2
        epsilon_prime = epsilon / 2
        growth = math.expm1(epsilon / (2 * exponent))
        extra_reg = _extra_reg(c * R**2 / (n * growth), m * lam, exact_budget=tol is None)
    return _finite(ObjectivePerturbation(
        n=n, lam=lam, epsilon=total, c=c, L=L, R=R, m=m, split=split,
        epsilon_prime=epsilon_prime, extra_reg=extra_reg, tol=tol, amp_epsilon=amp_epsilon,
    ))


def _extra_reg(needed: float, strong: float, exact_budget: bool) -> float:
    """Delta with m Lam + Delta >= c R^2 / (n (e^(eps / (2 k)) - 1)), given the doubles needed = fl(c R^2 / (n growth))
    and strong = fl(m Lam) (docs/theory.md, section 9).

    needed errs by at most 3 ``EPS`` of itself (growth = expm1 by one ulp, then four roundings), and the difference
    needed - strong by ``EPS`` / 2 of each term more. Near the switch point (needed about m Lam) the difference is
    far below its terms, and the relative ``ROUNDING`` of round_up covers a relative error only: there the absolute
    bound 6 ``EPS`` (needed + strong) is added, where it exceeds half that margin (elsewhere Delta is unchanged).

    With a public tol (``exact_budget`` False) Algorithm 2 runs with epsilon = round_down(total - eps_2), whose
    relative slack of 1e-12 exceeds the Jacobian's excess of a few ulps of epsilon / 2 (the release with a tol is
    kept as it was); with tol None the budget is epsilon itself and eps' = epsilon / 2 exactly, so nothing else
    absorbs it.
    """
    difference = max(needed - strong, 0.0)
    error = 6 * EPS * (needed + strong)
    if exact_budget and error > ROUNDING * difference / 2:
        return round_up(difference) + error
    return round_up(difference)


def _certified(epsilon: float, jacobian: float) -> float:
    """epsilon - jacobian, jacobian = k log1p(a) computed from the doubles c, R, n, m, lam: at most the exact
    difference once :func:`~dpcvx.rounding.round_down` moves it down (docs/theory.md, section 9).

    The computed jacobian errs by at most 3.5 ``EPS`` of itself (a by five roundings, log1p(a) by one ulp, and
    log1p's slope a / (1 + a) <= log1p(a)); bounded by 4 ``EPS`` jacobian, that absolute error is subtracted where
    the relative ``ROUNDING`` of round_down cannot absorb it (a difference far below jacobian, which the paper's
    split otherwise could spend: eps' + 2 log(1 + a) above epsilon by an ulp)."""
    difference = epsilon - jacobian
    error = 4 * EPS * jacobian
    return difference - error if error > ROUNDING * difference / 2 else difference


PureCalibration = OutputPerturbation | ObjectivePerturbation

CalibrationType = TypeVar("CalibrationType", OutputPerturbation, ObjectivePerturbation)


@contextmanager
def _arithmetic(what: str) -> Iterator[None]:
    """Turn floating-point overflow and division by zero in a calibration into InputError."""
    try:
        yield
    except (OverflowError, ZeroDivisionError) as error:
        raise InputError(f"{what}: the inputs (epsilon, lam, n, L, c, R, m) are too extreme for "
                         f"floating point ({error}); use values of moderate size") from None


def _finite(calibration: CalibrationType) -> CalibrationType:
    """The calibration, or InputError when an extreme input made a noise scale 0, inf or NaN."""
    record = calibration.to_dict()
    for key, value in record.items():
        if isinstance(value, float) and not (math.isfinite(value) and value >= 0):
            raise InputError(f"calibration.{key} is {value}: the inputs (epsilon, lam, n, L, c, R, "
                             "m) are too extreme for floating point; use values of moderate size")
    for key in ("beta", "amp_beta"):
        value = record.get(key)
        if value is not None and not value > 0:
            raise InputError(f"calibration.{key} underflowed to {value}: epsilon is too small "
                             "for any useful release (the noise would be infinite)")
        if value is not None and value < POSITIVE_MIN:
            raise InputError(f"calibration.{key} = {value:g} is below the smallest normal double {POSITIVE_MIN:g}: "
                             "there a double carries too few digits for the rounding that keeps beta below its exact "
                             "value, and the sampler refuses it; epsilon is too small or lam, n, m too small against "
                             "L and R for any useful release")
    _refuse_subnormal_products(calibration)
    return calibration


def _refuse_subnormal_products(calibration: PureCalibration) -> None:
    """InputError when a product the formulas start from (L R, m Lam, m Lam + Delta, c R^2) falls below the smallest
    normal double while not 0.

    The rounding policy moves a computed quantity by a relative ROUNDING; a product below 2.2e-308 (a subnormal) has
    an absolute error of up to 2^-1075, a relative error far above 1e-12, and every sensitivity, Jacobian or beta
    computed from it would lose the safe side (probeB F4: beta = 5e-313 at 1.0000000000034 of its exact value)."""
    m_lam = calibration.m * calibration.lam
    # (name, value, whether an exact 0 is allowed: m = 0 and c = 0 are inputs of the objective's proof)
    products = [("L R", calibration.L * calibration.R, False), ("m lam", m_lam, calibration.m == 0)]
    if isinstance(calibration, ObjectivePerturbation):
        products += [("m lam + Delta", m_lam + calibration.extra_reg, False),
                     ("c R^2", calibration.c * calibration.R**2, calibration.c == 0)]
    for name, value, zero in products:
        if value < POSITIVE_MIN and not (zero and value == 0):
            raise InputError(f"{name} = {value:g} is below the smallest normal double {POSITIVE_MIN:g}, where a double "
                             "carries too few digits for the calibration's safe-side rounding: use values of moderate "
                             "size (rescale the data or the loss)")
