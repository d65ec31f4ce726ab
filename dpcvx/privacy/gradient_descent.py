"""Noisy gradient descent on clipped residuals: the calibration of mechanism ``gradient-ranged``.

``PrivateLinearRegression(mechanism="gradient")`` and ``DPLinearRegression(mechanism="gradient")`` (and
``DPLinearRegression()``'s default wherever its fit searches a private range: docs/theory.md, section 16.1, "Noisy
gradient descent on clipped residuals") run the path of ``adassp-ranged`` up to AdaSSP's release
(a private range of every column and of the label, :mod:`dpcvx.privacy.column_ranges`; the rows mapped by
:func:`~dpcvx.data.standardiser.range_map` and clipped onto R_eff, the labels y' = y - c clipped onto [-B', B'] by
:func:`~dpcvx.data.standardiser.label_range`; or, under ``column_ranges="auto"`` at an n too small for the search of
every column but not for the label's, the label's range alone, the rows keeping their public map, as adassp-ranged
does: ``range_columns`` 1, :meth:`dpcvx.models.linear_regression.AdaSSPPlan.ranges_at`), then, on those rows Z
(replace-one, n public):

1. a private top eigenvalue lam_hat = lambda_max(Z^T Z) + sigma_l N(0, 1): replacing one row z by z' moves Z^T Z by
   z' z'^T - z z^T, and by Weyl lambda_max by at most R_eff^2 (the sensitivity); the step's curvature
   Lambda = min(max(lam_hat + m, m), n R_eff^2) with m = z_(1-rho/2) sigma_l (:meth:`GradientCalibration.curvature`:
   a public rule of the released value, n and R_eff; it bounds lambda_max from above with probability 1 - rho/2);
2. the residual clip tau = B' / LABEL_WIDTH (the label range's implied standard deviation; a public rule of B');
3. w_0 = w_(-1) = 0 and, for t = 1..T: v = w_(t-1) + beta (w_(t-1) - w_(t-2)) (heavy-ball momentum, Polyak
   1964), r = clip(Z v - y', -tau, tau), g = Z^T r + sigma_g N(0, I), w_t = v - g / Lambda. Replacing one row moves
   Z^T r by z' r' - z r, of norm at most 2 R_eff tau (the sensitivity), whatever the point v is (Varshney, Jain and
   Thakurta 2022 clip the residual for this reason); v is a function of the released w's. T is a public rule of n,
   epsilon and the width d (:func:`descent_steps`): ``STEPS`` = 20, or ``LONG_STEPS`` = 60 where
   n epsilon / d >= ``LONG_STEPS_AT`` = 1000; so is beta (:func:`descent_momentum`): ``MOMENTUM`` = 0.9 where
   n epsilon / d >= ``MOMENTUM_AT`` = 200, 0 at or below ``MOMENTUM_FROM`` = 100, linear between;
4. with an intercept (``level``), the label's level: S_hat = sum_i (y'_i - clip(z_i . w_T, -B', B')) + sigma_b N(0, 1),
   each term in [-2B', 2B'], so replacing one row moves the sum by at most 4 B' (the sensitivity); the intercept
   moves by S_hat / n (n public). The descent's fixed point is the Huber regression at tau, not least squares: on a
   right-skewed or zero-inflated label the tail rows' residuals stay clipped and the intercept settles below the
   labels' mean (a claims table, 75% zeros: mean prediction 264-283 against a label mean of 529); this release
   carries the mean residual at a clip wide enough to hold every residual of a prediction inside [-B', B'].
   The release is w_T (with the level), and the label centre c is added to the intercept (post-processing).

Both changes of 2026-12 (the level, and T = 60 at n epsilon / d >= 1000) were chosen on development tables and
checked on held-out ones (benchmarks/gradient_level.py; results/gradient_level_*.md); so was the momentum
(benchmarks/descent_momentum.py; results/descent_momentum_*.md).

**Joint calibration** (as :mod:`dpcvx.privacy.adassp`'s module docstring argues): release i divided by Delta_i and
multiplied by sqrt(f_i) has sensitivity sqrt(f_i), so with one unit sigma = analytic_gaussian_sigma(sqrt(sum f),
epsilon, delta) each release is a Gaussian mechanism of noise sigma_i = Delta_i sigma / sqrt(f_i), hence sqrt(f_i) /
sigma-GDP; the range search's counts take ``RANGE_SHARE``, the eigenvalue ``LAMBDA_SHARE``, the level (with an
intercept) ``LEVEL_SHARE`` and each of the T steps f_t = (``GRADIENT_SHARE`` less the level's share) / T, so the
total is 4 with or without the level. Every later release depends on the earlier ones (the map, B', tau, Lambda,
w_t), and the adaptive composition of GDP (Dong, Roth and Su 2022, Corollary 2) makes the whole sqrt(sum f) /
sigma-GDP: exactly the Gaussian mechanism of sensitivity sqrt(RANGE_SHARE + LAMBDA_SHARE + GRADIENT_SHARE) the
analytic Gaussian calibrates.
sigma_g reads tau, a function of the released B', so each step has sensitivity 2 R_eff tau and noise 2 R_eff tau sigma
/ sqrt(f_t): sqrt(f_t) / sigma-GDP whatever tau the search released; sigma_b reads the released B' too. One charge.

**The constant feature's scale** (:func:`gradient_intercept_scaling`, under ``intercept_scaling="auto"``): s =
R / sqrt(d), the share of R each of the d mapped columns has (:func:`~dpcvx.data.standardiser.range_map`), so the
intercept's direction has an eigenvalue n s^2 of the order of the features' and one step size 1 / Lambda suits both
(AdaSSP's rule, :func:`~dpcvx.privacy.adassp.adassp_intercept_scaling`, keeps s near 1 at small n, where the
intercept's eigenvalue then sets Lambda and the features' directions barely move in T steps). Public: R and d.

Floating point: the noise is drawn in doubles and each noisy value rounded to a grid 2^-30 of its sigma
(:attr:`GradientCalibration.release_grids`): MITIGATION_ONLY, as AdaSSP's releases.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any

import numpy as np
from scipy.special import ndtri

from ..exceptions import InputError
from ..rounding import round_up
from ..validation import check_bound, check_delta, check_epsilon, fraction, integer, positive
from .calibration import Calibration, PublicFacts, Record
from .column_ranges import LABEL_WIDTH, RANGE_SHARE, SEARCH_DEPTH, count_sigma, range_level
from .float_guarantee import FloatGuarantee
from .gaussian import analytic_gaussian_sigma
from .neighbours import Neighbours
from .noise import release_grid_spacing, round_to_grid
from .privacy_curve import PrivacyCurve

__all__ = ["GRADIENT_LABEL_THEOREM", "GRADIENT_RANGED", "GRADIENT_SHARE", "GRADIENT_THEOREM", "GradientCalibration",
           "LAMBDA_SHARE", "LEVEL_SHARE", "LEVEL_STATEMENT", "LONG_STEPS", "LONG_STEPS_AT", "MOMENTUM", "MOMENTUM_AT",
           "MOMENTUM_FROM",
           "STEPS", "descent_momentum", "descent_steps",
           "gradient_theorem", "gradient_calibration", "gradient_intercept_scaling"]

#: the mechanism a release of noisy gradient descent on privately mapped rows states (certificate and record)
GRADIENT_RANGED = "gradient-ranged"
_RELATION = "; replace-one, n public (docs/theory.md, section 16)"  # the theorems' last words
_EVERY_COLUMN = ("private per-column ranges by a noisy binary search of Gaussian counts on a public grid, then, on the "
                 "rows and labels they map, a private top eigenvalue of the Gram matrix (Weyl) and noisy gradient "
                 "descent (Bassily, Smith and Thakurta 2014) on least squares with clipped residuals (Varshney, Jain "
                 "and Thakurta 2022), each step the Gaussian mechanism on the sum of clipped per-record gradients; the "
                 "search, the eigenvalue and the steps calibrated jointly as one Gaussian mechanism by the analytic "
                 "Gaussian (Balle and Wang, ICML 2018) through the adaptive composition of Gaussian differential "
                 "privacy (Dong, Roth and Su 2022)")
_LABEL_ALONE = ("a private range of the label by a noisy binary search of Gaussian counts on a public grid, then, on "
                "the publicly mapped rows and the labels it centres and clips, a private top eigenvalue of the Gram "
                "matrix (Weyl) and noisy gradient descent (Bassily, Smith and Thakurta 2014) on least squares with "
                "clipped residuals (Varshney, Jain and Thakurta 2022), each step the Gaussian mechanism on the sum of "
                "clipped per-record gradients; the search, the eigenvalue and the steps calibrated jointly as one "
                "Gaussian mechanism by the analytic Gaussian (Balle and Wang, ICML 2018) through the adaptive "
                "composition of Gaussian differential privacy (Dong, Roth and Su 2022)")
GRADIENT_THEOREM = _EVERY_COLUMN + _RELATION
#: The same mechanism when only the label's range is searched (``range_columns=1``): the rows keep their public map
GRADIENT_LABEL_THEOREM = _LABEL_ALONE + _RELATION
#: T, the number of gradient steps (a public constant; the one place it is set): 20, chosen with the residual clip's
#: multiple 1 (tau = B' / LABEL_WIDTH) on development tables only (diabetes, heavy and two synthetic 45-column
#: families; the grid T in {5, 10, 20} by kappa in {0.5, 1, 2}, the largest worst-cell gap over cells with
#: n eps / d >= 50) and frozen before any held-out table was fitted (benchmarks/gradient_regression.py)
STEPS = 20
#: T where n epsilon / d >= LONG_STEPS_AT (:func:`descent_steps`): step 1 / Lambda shrinks the error along an
#: eigen-direction k of Z^T Z by (1 - lambda_k / Lambda)^T, and one-hot blocks leave many lambda_k / Lambda small (a
#: 99-column one-hot table: 0.24 of R^2 after 20 noise-free steps, 0.48 after 100); chosen with the level on
#: development tables and checked on held-out ones (benchmarks/gradient_level.py)
LONG_STEPS = 60
LONG_STEPS_AT = 1000.0
#: beta, the heavy-ball momentum of the steps where n epsilon / d >= MOMENTUM_AT (:func:`descent_momentum`; 0 below):
#: 1 / Lambda is set by the top eigenvalue of Z^T Z, and 0/1 flag columns of a few percent ones or one-hot blocks
#: leave the signal's directions far below it (30 flags at 5 to 15 % ones: gap recovered 0.87 at epsilon 1 and 0.53
#: at 3 without it, 0.96 and 0.95 with it; 63 one-hot columns: 0.44 and 0.96 at epsilon 1), while below MOMENTUM_AT
#: the noise it carries on cost more than the steps gained (a 45-column table at n epsilon / d = 100: 0.87 without,
#: -0.04 with). Chosen on development tables, beta in {0.5, 0.7, 0.9} by MOMENTUM_AT in {100, 200, 400}, and checked
#: on held-out ones (benchmarks/descent_momentum.py)
#: Between MOMENTUM_FROM and MOMENTUM_AT beta rises linearly from 0 to MOMENTUM (:func:`descent_momentum`): a step
#: from 0 to 0.9 at one value of n epsilon / d made more epsilon worse across it (s70 P2's grades table, 4,500 rows of
#: 69 columns, every range located at epsilon 3: n epsilon / d = 196 took no momentum and scored R^2 0.49 against 0.55
#: at epsilon 1; two columns fewer, 202, took 0.9 and scored 0.59); the ramp takes no momentum at or below 100, where
#: the development cells lost with any beta, and the chosen 0.9 from 200 on, as before (benchmarks/descent_momentum.py)
MOMENTUM = 0.9
MOMENTUM_AT = 200.0
MOMENTUM_FROM = 100.0
#: f of the top eigenvalue, and of the T steps and the level together (each step (GRADIENT_SHARE - LEVEL_SHARE) / T
#: with the level, GRADIENT_SHARE / T without); with RANGE_SHARE they sum to 4, AdaSSP-ranged's total, so the range
#: search's counts have the same noise at the same (epsilon, delta)
LAMBDA_SHARE = 0.05
GRADIENT_SHARE = 2.95
#: f of the level (step 4 of the module docstring), taken from GRADIENT_SHARE
LEVEL_SHARE = 0.3


#: What a release with the level adds to its theorem (:func:`gradient_theorem`)
LEVEL_STATEMENT = ("; then the label's level, the Gaussian mechanism on the sum of the residuals of predictions "
                   "clipped onto the label's range (sensitivity 4 B'), calibrated jointly with them")


def gradient_theorem(range_columns: int, level: bool) -> str:
    """The theorem a gradient-ranged release states: :data:`GRADIENT_THEOREM` (every column's range searched) or
    :data:`GRADIENT_LABEL_THEOREM` (the label's alone), with :data:`LEVEL_STATEMENT` where the level was released."""
    return (_EVERY_COLUMN if range_columns > 1 else _LABEL_ALONE) + (LEVEL_STATEMENT if level else "") + _RELATION


def descent_momentum(n: int, epsilon: float, width: int) -> float:
    """beta of a descent on n rows of ``width`` columns at ``epsilon``: ``MOMENTUM`` where n epsilon / d >=
    ``MOMENTUM_AT``, 0 where it is at most ``MOMENTUM_FROM``, and linear in n epsilon / d between them (public: n
    under replace-one, epsilon and d). Continuous, so that no width or epsilon just below a switch point loses all of
    it (a step there made epsilon 3 worse than epsilon 1 on a 69-column table)."""
    if n * epsilon >= MOMENTUM_AT * width:
        return MOMENTUM
    if n * epsilon <= MOMENTUM_FROM * width:
        return 0.0
    return MOMENTUM * (n * epsilon / width - MOMENTUM_FROM) / (MOMENTUM_AT - MOMENTUM_FROM)


def descent_steps(n: int, epsilon: float, width: int) -> int:
    """T of a descent on n rows of ``width`` columns at ``epsilon``: ``LONG_STEPS`` where n epsilon / d >=
    ``LONG_STEPS_AT``, else ``STEPS`` (public: n under replace-one, epsilon and d)."""
    return LONG_STEPS if n * epsilon >= LONG_STEPS_AT * width else STEPS


@dataclass(frozen=True)
class GradientCalibration(Calibration):
    """The noise of the range search, the top eigenvalue and the T gradient steps for (epsilon, delta), the public
    R_eff (``data_norm``) and the label bound (the public B before the search; its released B' in a release).
    ``range_columns``: the columns searched, d + 1 (every feature and the label) or 1 (the label's alone);
    ``level``: whether the level is released after the steps (with an intercept; recorded only when it is);
    ``momentum``: the steps' beta (recorded only when positive: a file without it took plain steps)."""

    approximate = True
    #: the recorded fields it is recomputed from, besides the certificate's epsilon, delta and bounds
    inputs = ("dim", "failure_probability", "range_columns", "steps", "momentum")

    epsilon: float
    delta: float
    dim: int
    data_norm: float
    label_bound: float
    range_columns: int
    failure_probability: float = 0.05
    steps: int = STEPS
    level: bool = False
    momentum: float = 0.0

    @property
    def neighbours(self) -> Neighbours:
        """Replace-one only (n public: the range search's level and the curvature's cap read it)."""
        return Neighbours.REPLACE_ONE

    @property
    def relation(self) -> Neighbours:
        return self.neighbours

    @property
    def step_share(self) -> float:
        """f_t of each step: GRADIENT_SHARE / T, less the level's share first when the level is released."""
        return (GRADIENT_SHARE - (LEVEL_SHARE if self.level else 0.0)) / self.steps

    @property
    def shares(self) -> tuple[float, ...]:
        """f_i of every release: the search, the eigenvalue, the T steps, then the level (when released)."""
        return (RANGE_SHARE, LAMBDA_SHARE) + (self.step_share,) * self.steps + ((LEVEL_SHARE,) if self.level else ())

    @cached_property
    def unit_sigma(self) -> float:
        """sigma of the joint Gaussian on the releases scaled to sensitivities sqrt(f_i) (sqrt(sum f_i) together);
        computed once per calibration (a bisection of the analytic Gaussian; every step's noise reads it)."""
        return analytic_gaussian_sigma(math.sqrt(math.fsum(self.shares)), self.epsilon, self.delta)

    @property
    def count_sigma(self) -> float:
        """sigma_c of the range search's counts (:func:`dpcvx.privacy.column_ranges.count_sigma`)."""
        return count_sigma(self.unit_sigma, self.range_columns)

    def range_level(self, n: int) -> float | None:
        """The search's public level q at n rows, or None when n is too small for its noise."""
        return range_level(self.count_sigma, n)

    @property
    def residual_clip(self) -> float:
        """tau = B' / LABEL_WIDTH: the label range's implied standard deviation (a public rule of B')."""
        return self.label_bound / LABEL_WIDTH

    @property
    def sensitivities(self) -> tuple[float, float]:
        """L2 sensitivities of lambda_max(Z^T Z) (R_eff^2, Weyl) and of a step's Z^T r (2 R_eff tau)."""
        return self.data_norm**2, 2 * self.data_norm * self.residual_clip

    @cached_property
    def sigmas(self) -> tuple[float, float]:
        """(sigma_l, sigma_g) = Delta_i sigma / sqrt(f_i) of the eigenvalue and of each step's gradient."""
        unit = self.unit_sigma
        eigenvalue, gradient = self.sensitivities
        return round_up(eigenvalue * unit / math.sqrt(LAMBDA_SHARE)), round_up(gradient * unit
                                                                               / math.sqrt(self.step_share))

    @property
    def level_sensitivity(self) -> float:
        """4 B': the sensitivity of sum_i (y'_i - clip(z_i . w, -B', B')), each term in [-2B', 2B']."""
        return 4 * self.label_bound

    @cached_property
    def level_sigma(self) -> float:
        """sigma_b = 4 B' sigma / sqrt(LEVEL_SHARE) of the level's sum."""
        return round_up(self.level_sensitivity * self.unit_sigma / math.sqrt(LEVEL_SHARE))

    def release_level(self, total: float, rng: np.random.Generator) -> float:
        """S_hat: the residuals' sum (``total``) plus N(0, sigma_b^2), rounded to its grid (the mitigation); drawn
        only by a calibration with the level."""
        sigma = self.level_sigma
        return float(round_to_grid(np.asarray(total + sigma * rng.standard_normal()), sigma)[0])

    @property
    def eigenvalue_margin(self) -> float:
        """m = z_(1-rho/2) sigma_l: the eigenvalue noise stays below it with probability 1 - rho/2."""
        return round_up(self.sigmas[0] * float(ndtri(1 - self.failure_probability / 2)))

    def curvature(self, released: float, n: int) -> float:
        """Lambda = min(max(lam_hat + m, m), n R_eff^2): the step's curvature from the released eigenvalue lam_hat,
        the public n and R_eff (post-processing; lambda_max(Z^T Z) <= n R_eff^2 always)."""
        margin = self.eigenvalue_margin
        return min(max(released + margin, margin), n * self.data_norm**2)

    def release_eigenvalue(self, top: float, rng: np.random.Generator) -> float:
        """lam_hat: lambda_max(Z^T Z) (``top``) plus N(0, sigma_l^2), rounded to its grid (the mitigation)."""
        sigma = self.sigmas[0]
        return float(round_to_grid(np.asarray(top + sigma * rng.standard_normal()), sigma)[0])

    def release_gradient(self, gradient: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A step's Z^T r (``gradient``) plus N(0, sigma_g^2 I), rounded to its grid (the mitigation)."""
        sigma = self.sigmas[1]
        return round_to_grid(gradient + sigma * rng.standard_normal(gradient.shape), sigma)[0]

    @property
    def release_grids(self) -> tuple[float, float]:
        """The grids (2^-30 of sigma_l and of sigma_g) the noisy eigenvalue and gradients are rounded to: a
        mitigation of Mironov's attack, not a proof (MITIGATION_ONLY)."""
        return tuple(release_grid_spacing(sigma) for sigma in self.sigmas)  # type: ignore[return-value]

    def privacy_curve(self, epsilon: float, delta: float) -> PrivacyCurve:
        """One Gaussian mechanism on the scaled releases (sensitivity sqrt(sum f_i) together; module docstring)."""
        return PrivacyCurve.gaussian(self.unit_sigma, math.sqrt(math.fsum(self.shares)),
                                     "the range search, the top eigenvalue, the gradient steps and the label's level"
                                     if self.level else "the range search, the top eigenvalue and the gradient steps",
                                     self.neighbours)

    def describe(self) -> str:
        sigma_l, sigma_g = self.sigmas
        searched = ("the label" if self.range_columns == 1 else
                    f"{self.range_columns} columns (features and label)")
        return (f"noise: sigma = {sigma_l:.4g} for lambda_max(Z^T Z) (sensitivity {self.sensitivities[0]:.4g}), "
                f"sigma = {sigma_g:.4g} for each of {self.steps} gradients Z^T clip(Z w - y, +-tau), "
                f"tau = {self.residual_clip:.4g} (sensitivity {self.sensitivities[1]:.4g}); step 1 / Lambda"
                + (f" with heavy-ball momentum {self.momentum:g}" if self.momentum else "") + ", "
                f"Lambda = min(max(lam_hat + {self.eigenvalue_margin:.4g}, {self.eigenvalue_margin:.4g}), n "
                f"{self.data_norm:.4g}^2)"
                + (f"; then the level: sigma = {self.level_sigma:.4g} on the sum of the residuals y - clip(Z w, "
                   f"+-B'), each in [-2B', 2B'] (sensitivity {self.level_sensitivity:.4g})" if self.level else "")
                + f"; first, private ranges of {searched}: "
                f"sigma = {self.count_sigma:.4g} on each count of a binary search of depth {SEARCH_DEPTH} "
                f"(sensitivity 1 per count), one joint Gaussian of sensitivity sqrt({math.fsum(self.shares):g})")

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> GradientCalibration:
        """The calibration from the record's d, rho, search width, T, level (``"level": true``; a record without
        the key released none) and momentum (a record without it took plain steps), and the certificate's epsilon,
        delta and bounds (R_eff, and the B' the recorded label range gives)."""
        try:
            return gradient_calibration(facts.epsilon, facts.delta, dim=record["dim"],  # type: ignore[arg-type]
                                        data_norm=facts.data_norm, label_bound=facts.label_bound,  # type: ignore
                                        range_columns=record["range_columns"],
                                        failure_probability=record["failure_probability"], steps=record["steps"],
                                        level=record.get("level") is True, momentum=record.get("momentum", 0.0))
        except (TypeError, KeyError) as error:
            raise InputError(f"the recorded gradient calibration lacks or garbles an input: {error!r}") from None

    def to_dict(self) -> dict[str, Any]:
        # the level recorded below when True, the momentum when positive (files before it hold neither key)
        inputs = {key: value for key, value in asdict(self).items()
                  if key != "level" and (key != "momentum" or self.momentum)}
        return {**inputs, "neighbours": self.neighbours.value, "mechanism": GRADIENT_RANGED,
                "range_share": RANGE_SHARE, "lambda_share": LAMBDA_SHARE, "gradient_share": GRADIENT_SHARE,
                "search_depth": SEARCH_DEPTH, "unit_sigma": self.unit_sigma, "count_sigma": self.count_sigma,
                "residual_clip": self.residual_clip, "sensitivities": list(self.sensitivities),
                "sigmas": list(self.sigmas), "eigenvalue_margin": self.eigenvalue_margin,
                "release_grids": list(self.release_grids), "float_guarantee": FloatGuarantee.MITIGATION_ONLY.value,
                **({"level": True, "level_share": LEVEL_SHARE, "level_sensitivity": self.level_sensitivity,
                    "level_sigma": self.level_sigma, "level_grid": release_grid_spacing(self.level_sigma)}
                   if self.level else {})}


def gradient_calibration(epsilon: float, delta: float, *, dim: int, data_norm: float, label_bound: float,
                         range_columns: int, failure_probability: float = 0.05,
                         steps: int = STEPS, level: bool = False, momentum: float = 0.0) -> GradientCalibration:
    """Check the public inputs and calibrate noisy gradient descent on privately mapped rows (module docstring);
    delta must be positive, the search covers at least one column, T >= 1; ``level``: release the level after the
    steps (a fit with an intercept); ``momentum``: the steps' beta in [0, 1)."""
    range_columns, steps = integer("range_columns", range_columns), integer("steps", steps)
    if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) or not 0 <= momentum < 1:
        raise InputError(f"momentum must be a number in [0, 1), got {momentum!r}")
    return GradientCalibration(
        epsilon=check_epsilon(epsilon), delta=check_delta(delta, allow_zero=False), dim=int(positive("dim", dim)),
        data_norm=check_bound("data_norm", data_norm), label_bound=check_bound("label_bound", label_bound),
        range_columns=range_columns, failure_probability=fraction("failure_probability", failure_probability),
        steps=steps, level=bool(level), momentum=float(momentum))


def gradient_intercept_scaling(data_norm: float, width: int) -> float:
    """The constant feature's scale s = R / sqrt(d) of noisy gradient descent on ``width`` = d privately mapped
    columns (module docstring): a function of the public R and d only."""
    return check_bound("data_norm", data_norm) / math.sqrt(int(positive("width", width)))
