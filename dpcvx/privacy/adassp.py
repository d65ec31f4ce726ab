"""AdaSSP: private least squares by sufficient statistics with an adaptive ridge (Wang, UAI 2018).

Least squares is not Lipschitz on an unbounded domain, so the ERM theorems do
not cover it. AdaSSP instead releases three statistics of the clipped data
(||x|| <= B_X, |y| <= B_Y, both PUBLIC) with Gaussian noise and solves the
ridge regression they define (post-processing):

1. lambda_min(X^T X) + noise, lowered by a one-sided bound that holds with
   probability 1 - rho/3, and clipped at 0;
2. the upper triangle of X^T X + noise (a symmetric noise matrix E);
3. X^T y + noise;
4. ridge = max(0, sqrt(d ln(2 d^2 / rho)) sigma_2 - lambda_min estimate), which
   bounds ||E|| with probability 1 - rho/3, and
   theta = (X^T X + E + ridge I)^-1 (X^T y + noise);
5. with an intercept (the last column the constant s), the ridge is centred at the
   intercept-only fit theta_0 = (X^T y + noise)_d / (n s^2) e_d, as least squares centres
   the labels before a ridge: theta = theta_0 + (X^T X + E + ridge I)^-1
   (X^T y + noise - (X^T X + E) theta_0). Centred at 0, the ridge pulls the intercept
   towards the public label centre, which on a small table far from the label's mean costs
   more than the noise (docs/theory.md, section 16, "The ridge's centre"). n s^2 is
   public under replace-one; under add/remove the noisy (X^T X + E)_dd stands for it,
   where it exceeds the ridge bound (else theta_0 = 0). theta_0 is shrunk towards 0 by
   max(0, 1 - k^2 v / theta_0^2), v = (sigma_3 / (n s^2))^2 its own noise's variance and
   k = ``CENTRE_MARGIN`` (:func:`shrunk_centre`): a centre within k deviations of 0 is noise,
   and (X^T X + E) theta_0 would carry it into every weight. Post-processing of the
   released statistics with public values.

Floating point: the noise is drawn in doubles and each noisy statistic is rounded to a grid 2^-30
of its sigma (:attr:`AdaSSPCalibration.release_grids`), the mitigation of the linear releases; the
certificate names MITIGATION_ONLY (the proof holds in exact arithmetic; docs/theory.md, section
"Floating point: the other releases").

**Joint calibration.** Wang's constants split epsilon in three for
add/remove neighbours. dpcvx calibrates the three releases as ONE Gaussian
mechanism (docs/theory.md, section 16): statistic i scaled by sqrt(f_i) / Delta_i
has sensitivity sqrt(f_i), so the stacked vector has sensitivity
sqrt(f_1 + f_2 + f_3) = sqrt(3), and one analytic Gaussian (Balle and Wang
2018) at sqrt(3) gives a per-statistic noise of sigma_i = Delta_i sigma / sqrt(f_i).
The shares f = ``SHARES`` = (0.05, 1.15, 1.8) are a fixed public rule: the
eigenvalue only sets the ridge, so it gets little of the budget and X^T X and
X^T y the rest. The sensitivities are:

| statistic | replace-one | add/remove |
|---|---|---|
| lambda_min(X^T X) (Weyl) | B_X^2 | B_X^2 |
| upper triangle of X^T X (Frobenius of x' x'^T - x x^T) | sqrt(2) B_X^2 | B_X^2 |
| X^T y | 2 B_X B_Y | B_X B_Y |

n is never used by the calibration, so add/remove needs no public size.

**The constant feature's scale** (:func:`adassp_intercept_scaling`, docs/theory.md section 16). The
intercept is a constant feature s inside the row bound, so the calibration's norm is
R_eff = sqrt(R^2 + s^2) and sigma_2, hence the ridge, grows as R_eff^2: s = 1 doubles them at R = 1. The
rule takes the smallest s <= 1 at which the ridge shrinks the intercept's direction (eigenvalue n s^2)
by at most a tenth, n s^2 >= 9 ridge(R_eff), from public epsilon, delta, d, R, rho and n (replace-one:
n public); under add/remove, or when no s <= 1 reaches it, s = 1.

**Private column statistics** (``column_statistics=True``; mechanism ``ADASSP_STANDARDISED``; docs/theory.md,
section 16, "AdaSSP on privately standardised columns"). When the columns fill a small part of their public
ranges, the eigenvalues of X^T X are small beside the Gram noise, and the ridge that covers that noise removes
the signal. Two more statistics of the rows clipped onto ||x|| <= R (replace-one, n public) are released first,
in the same joint Gaussian: the column sums sum_i x_i (L2 sensitivity 2 R) and the column sums of squares
sum_i x_i * x_i (sqrt(2) R^2: two non-negative vectors of L1 norm at most R^2 differ by at most sqrt(2) R^2 in L2),
with shares ``COLUMN_SHARES``. Post-processing with the public n, d and R gives a centre m and a per-column
multiplier D (:meth:`dpcvx.data.standardiser.ColumnStandardiser.from_moments`, spread ``COLUMN_SPREAD``); AdaSSP
then runs on the rows D (x - m) clipped onto R. Each of the five releases is a Gaussian mechanism of sensitivity
sqrt(f_i) at the unit sigma, so each is sqrt(f_i) / sigma-GDP, and their adaptive composition (the last three
depend on the first two through the map) is sqrt(sum f_i) / sigma-GDP (Dong, Roth and Su 2022, Corollary 2):
exactly the Gaussian mechanism of sensitivity sqrt(sum f_i) that the analytic Gaussian calibrates. One charge.

**Private ranges** (``range_columns=k``; mechanism ``ADASSP_RANGED``, ``DPLinearRegression(mechanism="adassp")``'s
default when n is large enough; docs/theory.md, section 16, "AdaSSP on columns mapped by private ranges"). A noisy
binary search (:mod:`dpcvx.privacy.column_ranges`) releases a range of each of the k = d + 1 columns (features and
label) with Gaussian counts of share ``RANGE_SHARE``: (sqrt(f) / sigma)-GDP, so the search and AdaSSP's three
releases are sqrt(3 + f) / sigma-GDP together, one analytic Gaussian at sqrt(3 + f). The ranges map the rows
(:func:`dpcvx.data.standardiser.range_map`) and the label (:func:`~dpcvx.data.standardiser.label_range`: y - c
clipped onto [-B', B']); AdaSSP runs at the calibration with ``label_bound`` B' (``dataclasses.replace``), whose
sigma of X^T y is 2 R_eff B' sigma / sqrt(f_3): the same GDP share for every B'. One charge.
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
from ..validation import check_bound, check_delta, check_epsilon, check_flag, fraction, is_integer, positive
from .calibration import Calibration, PublicFacts, Record
from .column_ranges import RANGE_SHARE, SEARCH_DEPTH, count_sigma, least_rows, range_level
from .float_guarantee import FloatGuarantee
from .gaussian import analytic_gaussian_sigma
from .neighbours import Neighbours
from .noise import release_grid_spacing, round_to_grid
from .privacy_curve import PrivacyCurve

__all__ = ["ADASSP", "ADASSP_RANGED", "ADASSP_STANDARDISED", "COLUMN_SHARES", "RANGED_THEOREM", "COLUMN_SPREAD",
           "AdaSSPCalibration", "CENTRE_MARGIN", "adassp_calibration", "adassp_intercept_scaling", "range_search_level",
           "shrunk_centre",
           "ADASSP_THEOREM", "STANDARDISED_THEOREM", "INTERCEPT_KEPT", "LABEL_RANGE_THEOREM", "SHARES",
           "label_search_rows"]

ADASSP_THEOREM = ("AdaSSP (Wang, UAI 2018, Algorithm 2) with its three releases calibrated jointly as one "
                  "Gaussian mechanism by the analytic Gaussian (Balle and Wang, ICML 2018), re-derived for the "
                  "stated neighbour relation (docs/theory.md, section 16)")
STANDARDISED_THEOREM = ("private column sums and sums of squares, then AdaSSP (Wang, UAI 2018, Algorithm 2) on the "
                        "rows "
                        "they centre and scale, the five releases calibrated jointly as one Gaussian mechanism by "
                        "the analytic Gaussian (Balle and Wang, ICML 2018) through the adaptive composition of "
                        "Gaussian differential privacy (Dong, Roth and Su 2022); replace-one, n public "
                        "(docs/theory.md, section 16)")
RANGED_THEOREM = ("private per-column ranges by a noisy binary search of Gaussian counts on a public grid, then "
                  "AdaSSP (Wang, UAI 2018, Algorithm 2) on the rows and labels they map, the search and AdaSSP's three "
                  "releases calibrated jointly as one Gaussian mechanism by the analytic Gaussian (Balle and Wang, "
                  "ICML 2018) through the adaptive composition of Gaussian differential privacy (Dong, Roth and Su "
                  "2022); replace-one, n public (docs/theory.md, section 16)")
#: The same mechanism when only the label's range is searched (``range_columns=1``; docs/theory.md section 16, "the
#: label's range alone"): the rows keep their public map.
LABEL_RANGE_THEOREM = ("a private range of the label by a noisy binary search of Gaussian counts on a public grid, "
                       "then AdaSSP (Wang, UAI 2018, Algorithm 2) on the publicly mapped rows and the labels it "
                       "centres and clips, the search and AdaSSP's three releases calibrated jointly as one Gaussian "
                       "mechanism by the analytic Gaussian (Balle and Wang, ICML 2018) through the adaptive "
                       "composition of Gaussian differential privacy (Dong, Roth and Su 2022); replace-one, n public "
                       "(docs/theory.md, section 16)")
ADASSP = "adassp"  # the mechanism a sufficient-statistics release states (certificate and record)
#: the mechanism of AdaSSP on privately standardised columns (module docstring)
ADASSP_STANDARDISED = "adassp-standardised"
SHARES = (0.05, 1.15, 1.8)  # f_i of the eigenvalue, X^T X and X^T y; they sum to 3
#: the mechanism of AdaSSP on columns and label mapped by private ranges (:mod:`dpcvx.privacy.column_ranges`)
ADASSP_RANGED = "adassp-ranged"
#: f_i of the column sums and sums of squares with column_statistics=True, and the spread of the standardised
#: columns (each of spread about COLUMN_SPREAD R / sqrt(d)); fixed on the tables of benchmarks/adassp_gap.py
#: (wages500, prices, rents, claims, heavy, diabetes) before the held-out energy and trips were fitted.
COLUMN_SHARES = (0.2, 0.6)
COLUMN_SPREAD = 1.0
#: The share of the intercept's direction AdaSSP's ridge may keep at least (:func:`adassp_intercept_scaling`):
#: n s^2 / (n s^2 + ridge) >= 0.9, fixed before the held-out tables of benchmarks/real_tables.py were run.
INTERCEPT_KEPT = 0.9
#: theta_0 is kept only beyond this many deviations of its own noise (:func:`shrunk_centre`): chosen from 1, 2 and 3
#: on small synthetic tables (docs/theory.md section 16, "The ridge's centre"; ``python -m benchmarks.ridge_centre``,
#: benchmarks/results/ridge_centre.md): on its 144-cell grid, k = 3 left 2 cells worse than the former release (by 2
#: and 4 % in median MSE) and 21 better, against 12 worse (up to 13 %) at k = 2
CENTRE_MARGIN = 3.0


@dataclass(frozen=True)
class AdaSSPCalibration(Calibration):
    """The noise of AdaSSP's three releases for (epsilon, delta) and the public bounds."""

    approximate = True
    #: the recorded fields it is recomputed from, besides the certificate's epsilon, delta and bounds
    inputs = ("dim", "neighbours", "failure_probability", "column_statistics", "range_columns")

    epsilon: float
    delta: float
    dim: int
    data_norm: float
    label_bound: float
    neighbours: Neighbours
    failure_probability: float = 0.05
    column_statistics: bool = False
    #: k > 0: the private ranges of k columns (the features and the label) are searched first (ADASSP_RANGED)
    range_columns: int = 0

    @property
    def shares(self) -> tuple[float, ...]:
        """f_i of every release: ``SHARES``, then ``COLUMN_SHARES`` with column statistics, or ``RANGE_SHARE``
        with private ranges."""
        return SHARES + (COLUMN_SHARES if self.column_statistics else ()) + ((RANGE_SHARE,) if self.range_columns
                                                                             else ())

    @property
    def count_sigma(self) -> float:
        """sigma_c of the range search's counts (:func:`dpcvx.privacy.column_ranges.count_sigma`)."""
        if not self.range_columns:
            raise InputError("this AdaSSP calibration searches no private ranges")
        return count_sigma(self.unit_sigma, self.range_columns)

    def range_level(self, n: int) -> float | None:
        """The search's public level q at n rows, or None when n is too small for its noise."""
        return range_level(self.count_sigma, n)

    @property
    def sensitivities(self) -> tuple[float, float, float]:
        """L2 sensitivities of lambda_min(X^T X), the upper triangle of X^T X, and X^T y."""
        b2, by = self.data_norm**2, self.data_norm * self.label_bound
        if self.neighbours is Neighbours.REPLACE_ONE:
            return b2, math.sqrt(2) * b2, 2 * by
        return b2, b2, by

    @cached_property
    def unit_sigma(self) -> float:
        """sigma of the joint Gaussian on the statistics scaled to sensitivities sqrt(f_i) (sqrt(sum f_i) together:
        sqrt(3), or sqrt(3.8) with column statistics); computed once per calibration (a bisection of the analytic
        Gaussian, which the sigmas, the ridge, the margins and the search's counts read)."""
        return analytic_gaussian_sigma(math.sqrt(sum(self.shares)), self.epsilon, self.delta)

    @cached_property
    def sigmas(self) -> tuple[float, float, float]:
        """sigma_i = Delta_i sigma / sqrt(f_i) for lambda_min, X^T X and X^T y."""
        unit = self.unit_sigma
        return tuple(round_up(s * unit / math.sqrt(f)) for s, f in zip(self.sensitivities, SHARES,  # type: ignore
                                                                       strict=True))

    @property
    def column_sensitivities(self) -> tuple[float, float]:
        """L2 sensitivities of the column sums (2 R) and sums of squares (sqrt(2) R^2), replace-one."""
        return 2 * self.data_norm, math.sqrt(2) * self.data_norm**2

    @property
    def column_sigmas(self) -> tuple[float, float]:
        """sigma_i = Delta_i sigma / sqrt(f_i) of the column sums and sums of squares (column statistics only)."""
        if not self.column_statistics:
            raise InputError("this AdaSSP calibration draws no column statistics")
        unit = self.unit_sigma
        return tuple(round_up(s * unit / math.sqrt(f)) for s, f in zip(  # type: ignore[return-value]
            self.column_sensitivities, COLUMN_SHARES, strict=True))

    def release_column_moments(self, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The noisy column sums and sums of squares (2 d values) of ``rows``, already clipped onto ||x|| <= R,
        each rounded to a grid 2^-30 of its sigma (the mitigation of the other releases)."""
        sigma_sum, sigma_square = self.column_sigmas
        d = rows.shape[1]
        sums = _on_grid(rows.sum(axis=0) + sigma_sum * rng.standard_normal(d), release_grid_spacing(sigma_sum))
        squares = _on_grid((rows * rows).sum(axis=0) + sigma_square * rng.standard_normal(d),
                           release_grid_spacing(sigma_square))
        return np.concatenate([sums, squares])

    @property
    def eigenvalue_margin(self) -> float:
        """The one-sided bound on the eigenvalue noise that holds with probability 1 - rho / 3."""
        return round_up(self.sigmas[0] * float(ndtri(1 - self.failure_probability / 3)))

    @property
    def ridge_bound(self) -> float:
        """sqrt(d ln(2 d^2 / rho)) sigma_2: Wang's high-probability bound on ||E||."""
        d = self.dim
        return round_up(math.sqrt(d * math.log(2 * d * d / self.failure_probability)) * self.sigmas[1])

    @property
    def release_grids(self) -> tuple[float, float, float]:
        """The grid (:func:`~dpcvx.privacy.noise.release_grid_spacing`, 2^-30 of sigma_i) each noisy statistic is
        rounded to before the solve: a mitigation of Mironov's attack, not a proof (MITIGATION_ONLY)."""
        return tuple(release_grid_spacing(sigma) for sigma in self.sigmas)  # type: ignore[return-value]

    def release(self, gram: np.ndarray, moment: np.ndarray, rng: np.random.Generator,
                extra_ridge: float = 0.0, *, intercept: bool = False,
                intercept_mass: float | None = None) -> np.ndarray:
        """theta from the exact statistics X^T X and X^T y (steps 1-5 of the module docstring). ``intercept``: the
        last coordinate is the constant feature s, and the ridge is centred at the intercept-only fit (step 5), whose
        denominator is ``intercept_mass`` = n s^2 where n is public (replace-one), else the noisy (X^T X)_dd."""
        d = self.dim
        if gram.shape != (d, d) or moment.shape != (d,):
            raise InputError(f"AdaSSP statistics must be {d} x {d} and {d}, got {gram.shape} and {moment.shape}")
        sigma_eig, sigma_gram, sigma_moment = self.sigmas
        eigenvalue = float(np.linalg.eigvalsh(gram)[0])
        # each noisy statistic rounded to its grid (round_to_grid: the mitigation of the linear releases)
        grid_eig, grid_gram, grid_moment = self.release_grids
        noisy_eigenvalue = max(_on_grid(eigenvalue + sigma_eig * rng.standard_normal(), grid_eig)
                               - self.eigenvalue_margin, 0.0)
        upper = np.triu(rng.standard_normal((d, d)))
        noisy_gram = _on_grid(gram + (upper + np.triu(upper, 1).T) * sigma_gram, grid_gram)
        noisy_moment = _on_grid(moment + sigma_moment * rng.standard_normal(d), grid_moment)
        ridge = max(self.ridge_bound - noisy_eigenvalue, 0.0) + extra_ridge
        system = noisy_gram + ridge * np.eye(d)
        centre = np.zeros(d)
        if intercept:  # step 5; a noisy (X^T X)_dd only where its noise (within the ridge bound) cannot have made it
            mass = intercept_mass if intercept_mass is not None else float(noisy_gram[-1, -1])
            if intercept_mass is not None or mass > self.ridge_bound:
                centre[-1] = shrunk_centre(noisy_moment[-1] / mass, (sigma_moment / mass) ** 2)
        target = noisy_moment - noisy_gram @ centre
        try:
            return centre + np.linalg.solve(system, target)
        except np.linalg.LinAlgError:  # a singular noisy system: its least-squares solution (post-processing)
            return centre + np.linalg.lstsq(system, target, rcond=None)[0]

    @property
    def relation(self) -> Neighbours:
        return self.neighbours

    def privacy_curve(self, epsilon: float, delta: float) -> PrivacyCurve:
        """One Gaussian mechanism on the scaled statistics (sensitivity sqrt(sum f_i) together; module docstring)."""
        what = ("AdaSSP's column statistics and three statistics" if self.column_statistics else
                "the range search and AdaSSP's three statistics" if self.range_columns else "AdaSSP's three statistics")
        return PrivacyCurve.gaussian(self.unit_sigma, math.sqrt(sum(self.shares)), what, self.neighbours)

    def describe(self) -> str:
        text = (f"noise: sigma = {', '.join(f'{s:.4g}' for s in self.sigmas)} for lambda_min, X^T X, X^T y "
                f"(sensitivities {', '.join(f'{s:.4g}' for s in self.sensitivities)})")
        if self.range_columns:
            searched = "the label" if self.range_columns == 1 else f"{self.range_columns} columns (features and label)"
            return (f"{text}; first, private ranges of {searched}: "
                    f"sigma = {self.count_sigma:.4g} on each count of a binary search of depth {SEARCH_DEPTH} "
                    f"(sensitivity 1 per count), one joint Gaussian of sensitivity sqrt({sum(self.shares):g})")
        if not self.column_statistics:
            return text
        return (f"{text}; first, private column statistics: sigma = "
                f"{', '.join(f'{s:.4g}' for s in self.column_sigmas)} for the column sums and sums of squares "
                f"(sensitivities {', '.join(f'{s:.4g}' for s in self.column_sensitivities)}), one joint Gaussian "
                f"of sensitivity sqrt({sum(self.shares):g})")

    @classmethod
    def from_record(cls, record: Record, facts: PublicFacts) -> AdaSSPCalibration:
        """The calibration from the record's d, relation and rho and the certificate's epsilon, delta and bounds."""
        try:
            return adassp_calibration(facts.epsilon, facts.delta, dim=record["dim"],  # type: ignore[arg-type]
                                      data_norm=facts.data_norm, label_bound=facts.label_bound,  # type: ignore[arg-type]
                                      neighbours=record["neighbours"],
                                      failure_probability=record["failure_probability"],
                                      column_statistics=record.get("column_statistics", False) is True,
                                      range_columns=record.get("range_columns", 0))
        except (TypeError, KeyError) as error:
            raise InputError(f"the recorded AdaSSP calibration lacks or garbles an input: {error!r}") from None

    def to_dict(self) -> dict[str, Any]:
        """The record; the column-statistics keys only with column statistics (plain AdaSSP's record as before)."""
        record = {**asdict(self), "neighbours": self.neighbours.value, "mechanism": ADASSP,
                  "sensitivities": list(self.sensitivities),
                  "unit_sigma": self.unit_sigma, "sigmas": list(self.sigmas),
                  "eigenvalue_margin": self.eigenvalue_margin, "ridge_bound": self.ridge_bound,
                  "release_grids": list(self.release_grids), "float_guarantee": FloatGuarantee.MITIGATION_ONLY.value}
        if not self.range_columns:
            del record["range_columns"]
        if self.range_columns:
            del record["column_statistics"]
            return {**record, "mechanism": ADASSP_RANGED, "range_share": RANGE_SHARE, "search_depth": SEARCH_DEPTH,
                    "count_sigma": self.count_sigma}
        if not self.column_statistics:
            del record["column_statistics"]
            return record
        return {**record, "mechanism": ADASSP_STANDARDISED, "column_shares": list(COLUMN_SHARES),
                "column_sensitivities": list(self.column_sensitivities), "column_sigmas": list(self.column_sigmas)}


def _on_grid(values: Any, spacing: float) -> Any:
    """``values`` rounded to multiples of the power of two ``spacing`` (:func:`round_to_grid` at that grid)."""
    rounded, _ = round_to_grid(np.asarray(values, dtype=float), spacing, 0)
    return rounded if np.ndim(values) else float(rounded)


def adassp_calibration(epsilon: float, delta: float, *, dim: int, data_norm: float, label_bound: float,
                       neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
                       failure_probability: float = 0.05, column_statistics: bool = False,
                       range_columns: int = 0) -> AdaSSPCalibration:
    """Check the public inputs and calibrate AdaSSP (module docstring); delta must be positive. Column statistics
    (their means divide by n) and private ranges (their level reads n) are offered under replace-one only, not
    together."""
    delta = check_delta(delta, allow_zero=False)
    relation = Neighbours.parse(neighbours)
    column_statistics = check_flag("column_statistics", column_statistics)  # a numpy bool as the bool, as every flag
    if column_statistics and relation is not Neighbours.REPLACE_ONE:
        raise InputError(f"column_statistics=True is offered under replace-one neighbours only (n public: the means "
                         f"divide by it); got it under {relation}")
    if range_columns != 0 and (not is_integer(range_columns) or range_columns < 1 or column_statistics
                               or relation is not Neighbours.REPLACE_ONE):
        raise InputError(f"range_columns must be 0 or a number of columns >= 1, without column statistics and under "
                         f"replace-one neighbours (n public: the level reads it); got {range_columns!r} under "
                         f"{relation}")
    return AdaSSPCalibration(
        epsilon=check_epsilon(epsilon), delta=delta, dim=int(positive("dim", dim)),
        data_norm=check_bound("data_norm", data_norm), label_bound=check_bound("label_bound", label_bound),
        neighbours=relation, failure_probability=fraction("failure_probability", failure_probability),
        column_statistics=column_statistics, range_columns=int(range_columns))


def adassp_intercept_scaling(epsilon: float, delta: float, *, dim: int, data_norm: float, n: int,
                             failure_probability: float = 0.05, column_statistics: bool = False,
                             range_columns: int = 0) -> float:
    """The scale s of the constant feature: the smallest s <= 1 with n s^2 >= k ridge(R_eff), else 1.

    The ridge bound is proportional to R_eff^2 = R^2 + s^2 (sigma_2 is, up to upward rounding), so with r the
    ridge bound at R_eff = 1 and k = INTERCEPT_KEPT / (1 - INTERCEPT_KEPT) = 9 the condition
    n s^2 >= k r (R^2 + s^2) gives s^2 = k r R^2 / (n - k r) when n > k r (1 + R^2), else s = 1 (the
    former constant). A function of public epsilon, delta, dim (d with the intercept), R, rho and n
    (replace-one: n public; the caller passes nothing else), so the release's guarantee is unchanged: s is
    fixed before the data are read and the certificate records it. ``column_statistics``: the ridge of the
    calibration that also releases column statistics (a larger unit sigma); ``range_columns``: the one that
    searches private ranges first.
    """
    unit = adassp_calibration(epsilon, delta, dim=dim, data_norm=1.0, label_bound=1.0,
                              failure_probability=failure_probability, column_statistics=column_statistics,
                              range_columns=range_columns).ridge_bound
    kept = INTERCEPT_KEPT / (1 - INTERCEPT_KEPT)
    norm = check_bound("data_norm", data_norm)
    n = int(positive("n", n))
    if n <= kept * unit * (1 + norm**2):
        return 1.0
    return math.sqrt(kept * unit * norm**2 / (n - kept * unit))


def shrunk_centre(estimate: float, variance: float) -> float:
    """The intercept-only fit theta_0 = (X^T y + noise)_d / (n s^2) shrunk towards 0 by the factor
    max(0, 1 - k^2 v / theta_0^2) (a positive-part James-Stein factor at k = ``CENTRE_MARGIN`` deviations), v =
    (sigma_3 / (n s^2))^2 the variance its noise alone gives it (public): an estimate within k noise deviations of 0
    is dropped (the ridge's former centre), one far beyond them kept (step 5 of the module docstring).
    Post-processing of a released value with public sigma, n and s."""
    square = estimate * estimate
    return estimate * max(0.0, 1.0 - CENTRE_MARGIN**2 * variance / square) if square > 0 else 0.0


def range_search_level(epsilon: float, delta: float, *, columns: int, n: int) -> float | None:
    """The public level of the range search of ``columns`` columns (features and label) at n rows in AdaSSP's joint
    Gaussian, or None when n is too small for its noise (:func:`dpcvx.privacy.column_ranges.range_level`): what
    ``column_ranges="auto"`` reads (epsilon, delta, the width and n; no bound enters the counts' sigma)."""
    return adassp_calibration(epsilon, delta, dim=columns, data_norm=1.0, label_bound=1.0,
                              range_columns=columns).range_level(n)


def label_search_rows(epsilon: float, delta: float) -> int:
    """The least n at which the label's range search alone is offered at (epsilon, delta): the smallest n whose
    level :func:`range_search_level` (one column) is defined, RANK_MARGIN sigma_c / n <= HIGHEST_LEVEL. Public."""
    return least_rows(adassp_calibration(epsilon, delta, dim=1, data_norm=1.0, label_bound=1.0,
                                         range_columns=1).count_sigma)
