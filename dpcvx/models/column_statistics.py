"""Opt-in private column statistics: one joint release of per-column centres and scales, charged with the fit.

The route when the public ranges of a schema are loose (the data sit in a small part of them):
``PrivateERM(column_statistics=True)`` (docs/theory.md, section 33). The order, as for a private class count
(:mod:`dpcvx.models.class_count`) and a private norm bound (:mod:`dpcvx.models.private_norm`):

1. every input is checked first: the learner is planned once with a placeholder standardiser in place (its
   centre and multiplier do not enter any check or constant: the fit sees the map's outputs clipped onto the
   public R), so the map is the plan's one late-bound part;
2. the accountant is charged ONCE with (eps_s + eps_fit, delta), eps_s = ``column_statistics_share`` epsilon;
3. each row x, clipped onto the learner's public ||x|| <= R, gives the integer vector
   c(x) = (round(x / g), round(x * x / (R g))), g = R 2^-LATTICE_BITS (the squares on the lattice R g, so that
   ||x|| <= R caps their sum at 2^B), set to 0 when its L1 norm exceeds the
   public cap A + S (A = isqrt(4^B d) + d for the first half, S = 2^B + d for the second, B = LATTICE_BITS);
   sum_i c(x_i) has L1 sensitivity 2 (A + S) under replace-one, and is released with i.i.d. discrete Laplace
   noise of scale 2 (A + S) / eps_s (exact integer sampler): eps_s-DP, with no floating-point gap;
4. post-processing with the public n: mean m_j clamped onto [-R, R], second moment q_j, variance
   v_j = max(q_j - m_j^2, floor) (floor: twice the standard deviation tau of the noise of a mean or second
   moment); the map x -> (x - k m) * max(1, SPREAD R / sqrt(d v)), k = (1/3) / (1/3 + tau^2) (in units of R: the
   posterior mean of a centre uniform on [-R, R]); each column's spread at least SPREAD R / sqrt(d) and never
   narrower than given, so a release whose statistics are mostly noise leaves the rows nearly as they were;
5. the learner's plan is fitted with that map bound as its ``feature_map`` (outputs clipped onto R), eps_fit and
   delta (:meth:`~dpcvx.models.fit_plan.FitPlan.with_feature_map`; a learner that does not plan first is fitted
   through its ``fit``).

By sequential composition the release (statistics, model) is (eps_s + eps_fit, delta)-DP; the model holds the
map (the privatised statistics, nothing else read off the data) and its certificate's ``column_statistics``
record names the mechanism, eps_s, the sensitivity and the released values. Replace-one neighbours only (n
public: the means divide by it). Off by default.

``column_statistics="ranges"`` (docs/theory.md, section 34) follows the same order with a scale-free statistic in
place of the sums of step 3: one noisy histogram per column on a public dyadic grid over [-R, R]
(:mod:`dpcvx.privacy.column_histogram`: discrete Laplace of scale 2 d / eps_s, eps_s-DP), whose kept mass gives
each column's range. For the classifiers (no label) the map of step 4 is then the fill map (:func:`fill_map`: a
located column narrower than the public fill level is centred at its range's midpoint and widened to it; every other
column keeps its public centre and scale); with a label it is the ranges' map (:func:`ranges_map`,
:func:`dpcvx.data.standardiser.range_map`: centre the range's midpoint, scale from its width, each output clipped).
Its error is in rows, not in units of R, so it locates a column that fills a thousandth of its public range. A
private class count (``class_weight="balanced"`` without ``class_prior``, or ``class_prior="private"``) composes with
either statistic: the fit on the map draws it inside eps_fit (:mod:`dpcvx.models.class_count`), still one charge.

The classifiers' default ``column_statistics="auto"`` resolves, before anything is charged, to "ranges" or to no
statistics by a public rule (:func:`auto_statistics`, :func:`ranges_by_default`): a fit that can draw them and then
solve on a path with a proved iteration budget, and a histogram threshold T of at most ``AUTO_ROWS`` n rows
(docs/theory.md, section 34); with more than two classes, drawn once for the k one-vs-rest fits (section 15; the
same rule, measured on a family of multiclass tables by ``benchmarks/multiclass_ranges.py``).

With a label (``label_learner``: :class:`~dpcvx.DPHuberRegressor`'s ``column_statistics``, "auto" by default;
docs/theory.md section 34.1) the label y, clipped onto the learner's public [-B, B], is one more histogram on the
public grid of 2^D_l cells over [-B, B] (D_l = :func:`~dpcvx.privacy.column_histogram.label_depth` of the public n
and eps_l, recorded as ``label_depth``), released separately at eps_l = ``LABEL_SHARE`` epsilon (discrete Laplace
of scale 2 / eps_l: one record moves two of its cells by 1); its range gives the centre c and bound B' of
:func:`dpcvx.data.standardiser.histogram_label_range` (post-processing); the features' histograms are then on the
grid of 2^D cells whose depth D is the public rule :func:`~dpcvx.privacy.column_histogram.histogram_depth` of n, d
and eps_s (DPHuberRegressor's eps_s = ``REGRESSION_SHARE`` epsilon), the learner at B' (``label_learner(B')``: its
loss constants follow B') is fitted on y - c clipped onto [-B', B'], and c is added to the intercept. The three
parts compose to (eps_s + eps_l + eps_fit, delta)-DP.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import numpy as np
from scipy import sparse

from ..data.blocks import is_dask
from ..data.notes import notes_dropped, warn_unresolved_columns
from ..data.rows import RowMap
from ..data.standardiser import (
    FILL_FLOOR_CELLS,
    RANGES_CLIP,
    REGRESSION_FLOOR_CELLS,
    REGRESSION_WINDOW,
    ColumnStandardiser,
    fill_map,
    histogram_label_range,
    least_half_width,
    least_label_bound,
    ranges_map,
    sums_map,
)
from ..exceptions import InputError, InputTypeError, float_errors_ignored
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.column_histogram import (
    HISTOGRAM_DEPTH,
    HISTOGRAM_LEVEL,
    LABEL_MIN_DEPTH,
    histogram_depth,
    histogram_level,
    histogram_levels,
    histogram_ranges,
    histogram_sensitivity,
    histogram_threshold,
    label_depth,
    noisy_histograms,
    running_noise,
)
from ..privacy.column_ranges import VALUE_BLOCK, grid_points, least_rows
from ..privacy.column_sums import lattice_contributions, sums_sensitivity
from ..privacy.composition import check_delta, sequential_epsilon
from ..privacy.exact_sampling import discrete_laplace_array, integer_source
from ..privacy.linear_calibration import gaussian_output
from ..privacy.neighbours import REPLACE_ONE_STATEMENT, Neighbours
from ..privacy.privacy_curve import DrawnPart, draws_then_fit_curve, fit_after_draws_part
from ..privacy.rng import RandomState, shared_rng
from ..release.draw_texts import LABEL_THEOREM, RANGES_THEOREM, STATISTICS_THEOREM, statistics_guarantee
from ..release.draw_texts import STATISTICS_COMPOSITION as COMPOSITION
from ..release.model import composed_epsilon
from ..release.usefulness import checks_are_off
from ..validation import check_bound
from .class_count import RatesPlan, draws_count
from .contract import learner_copy
from .erm_inputs import check_column_statistics
from .failure import after_charge, composite
from .fit_plan import FitPlan, composite_ledger_line, fit_ledger_text, plan_conditional
from .private_norm import draws_bounds, split_budget

__all__ = ["AUTO", "AUTO_ROWS", "COLUMN_STATISTICS_SHARE", "LABEL_SHARE", "LATTICE_BITS", "REGRESSION_SHARE",
           "STATISTICS_THEOREM", "StatisticsPlan", "StandardisedPlan", "auto_statistics", "counted_fit_share",
           "draw_map", "draws_statistics", "label_range_offered", "label_range_rows", "placeholder_learner",
           "plan_column_statistics", "ranges_by_default", "ranges_keep_cells",
           "regression_ranges_locate", "statistics_plan", "statistics_record",
           "release_column_statistics", "release_label_range", "release_ranges"]

PROCEDURE_NAME = "a fit with private column statistics"
COLUMN_STATISTICS_SHARE = 0.1  # eps_s = 10% of the budget by default
#: eps_l / epsilon of the label's histogram (with ``label_learner``): the level is defined from n = 2,011 rows at
#: epsilon 1 (0.2 would need 3,016); fixed on synthetic tables, prices, rents and wages500 before any held-out table
#: was fitted
LABEL_SHARE = 0.3
#: eps_s / epsilon of the features' histograms with a label's range (DPHuberRegressor): with LOCATED_FILL
#: (:func:`~dpcvx.privacy.column_histogram.histogram_depth`) fixed on the development tables energy, trips, sensors and
#: clinic, with wages500, rents, prices, claims and heavy, in the seventh session, before the held-out regression
#: family was fitted (0.1: energy 0.36 of the gap at epsilon 1; 0.15: 0.51; 0.2: 0.52, prices 0.70 -> 0.83)
REGRESSION_SHARE = 0.2
LATTICE_BITS = 20              # the lattice g = R 2^-20 of the rounded contributions
#: The classifiers' default ``column_statistics="auto"`` draws the ranges when the histograms' threshold T is at
#: most AUTO_ROWS n: a cell holding (1 - 2 q) / 2 of the rows is kept, so a column whose middle 1 - 2 q of rows lies
#: in two cells is located (:func:`ranges_by_default`; public n, d, epsilon and share only).
AUTO = "auto"
AUTO_ROWS = (1 - 2 * HISTOGRAM_LEVEL) / 2


def draws_statistics(learner: Any) -> bool:
    """Whether ``fit`` draws private column statistics (``column_statistics=True`` or ``"ranges"``)."""
    option = getattr(learner, "column_statistics", False)  # an estimator's "auto" is resolved before: not drawn here
    return option == "ranges" if isinstance(option, str) else (
        check_column_statistics("column_statistics", option) is True)


def ranges_keep_cells(n: int, d: int, eps_statistics: float, depth: int = HISTOGRAM_DEPTH,
                      rows: float = AUTO_ROWS) -> bool:
    """Whether the features' histograms of n rows and d columns at eps_s on the grid of 2^``depth`` cells keep a
    cell of ``rows`` n rows: T = THRESHOLD_FACTOR (2 d / eps_s) ln(2^D) <= ``rows`` n
    (:func:`dpcvx.privacy.column_histogram.histogram_threshold`). At the default AUTO_ROWS a column whose middle
    1 - 2 q of rows lies in two cells is located; at ``rows`` = 1, T above n, no cell is kept but by the noise's
    chance. Public n, d, eps_s and D only, never the data."""
    return histogram_threshold(d, eps_statistics, depth) <= rows * n


def ranges_by_default(n: int, d: int, epsilon: float, share: Any) -> bool:
    """The public rule of ``column_statistics="auto"`` for a binary fit of n rows and d columns: the histograms at
    eps_s = share epsilon keep a cell of AUTO_ROWS n rows (:func:`ranges_keep_cells` on the classifiers' grid of
    2^HISTOGRAM_DEPTH cells). Never reads the data."""
    return ranges_keep_cells(n, d, split_budget(epsilon, share, "column_statistics_share")[0])


def regression_ranges_locate(n: int, d: int, epsilon: float) -> bool:
    """Whether :class:`~dpcvx.DPHuberRegressor`'s features' histograms at ``epsilon`` can keep a cell at all: T <= n
    (:func:`ranges_keep_cells` with ``rows`` = 1) at eps_s = REGRESSION_SHARE epsilon on the grid of
    :func:`~dpcvx.privacy.column_histogram.histogram_depth` (n, d, eps_s), the grid its fit draws on. Not the rule of
    its "auto" (which draws wherever :func:`label_range_offered` holds): where this fails its warning names the
    ranges' share and column_statistics=False (:func:`dpcvx.sklearn.noise_warning.ranges_share_text`).
    benchmarks/results/huber_auto_rule.md measured column_statistics=False better in 7 of the 8 cells where it fails
    and far worse in the 8th, whose label fills a sliver of a loose declared label range, so "auto" was not changed
    to it. Public n, d and epsilon only."""
    eps_statistics = split_budget(epsilon, REGRESSION_SHARE, "column_statistics_share")[0]
    return ranges_keep_cells(n, d, eps_statistics, histogram_depth(n, d, eps_statistics), rows=1.0)


def auto_statistics(learner: Any, X: Any, epsilon: float, neighbours: Any) -> bool | str:
    """What ``column_statistics="auto"`` resolves to for a :class:`~dpcvx.models.erm.PrivateERM` ``learner`` fitted on
    X (a binary fit, or one-vs-rest's k fits, which draw once: :mod:`dpcvx.models.multiclass`), before anything is
    charged: "ranges" when the fit can draw them (replace-one, clipping on, no feature
    map, no private bound, dense rows in memory or a numpy.memmap, whose rows the draw reads by blocks; not a Dask X),
    :func:`ranges_by_default` says so at X's public shape, and the fit
    after the draw takes Newton's smooth path (:meth:`PrivateERM.smooth_budgeted
    <dpcvx.models.erm.PrivateERM.smooth_budgeted>`: not a user's solver, which a composite procedure refuses, nor an
    L1 or elastic-net penalty's proximal path, where the ranges' gain is unmeasured); else False."""
    shape = np.shape(X)
    drawable = (not draws_bounds(learner) and getattr(learner, "feature_map", None) is None
                and bool(getattr(learner, "clip", True)) and not sparse.issparse(X) and not is_dask(X)
                and len(shape) == 2 and shape[0] >= 1 and shape[1] >= 1
                and Neighbours.parse(neighbours) is Neighbours.REPLACE_ONE)
    share = learner.column_statistics_share
    return ("ranges" if drawable and ranges_by_default(int(shape[0]), int(shape[1]), epsilon, share)
            and learner.smooth_budgeted(int(shape[1])) else False)


@dataclass(frozen=True)
class StatisticsPlan:
    """What the checks fixed before anything is charged: the split, delta, n, d, the public R and the statistic
    (``ranges``: the histograms' ranges; else the sums and sums of squares)."""

    eps_statistics: float
    eps_fit: float
    delta: float
    n: int
    d: int
    norm: float
    ranges: bool = False
    label_bound: float | None = None  # the public B of the label's histogram (with a label_learner)
    eps_label: float = 0.0

    @property
    def total(self) -> float:
        """eps_s (+ eps_l) + eps_fit (:func:`~dpcvx.privacy.composition.sequential_epsilon`, the release's order);
        a fit that draws a class count inside eps_fit is charged :meth:`StandardisedPlan.shares`' composition."""
        return sequential_epsilon([epsilon for _, epsilon in self.drawn] + [self.eps_fit])

    @property
    def drawn(self) -> list[tuple[DrawnPart, float]]:
        """The draws before the fit as the curve's parts: the ranges' or the sums' eps_s, and the label range's eps_l
        with a label."""
        statistics = (DrawnPart.RANGES if self.ranges else DrawnPart.SUMS, self.eps_statistics)
        return [statistics, (DrawnPart.LABEL_RANGE, self.eps_label)] if self.label_bound is not None else [statistics]

    @property
    def label_depth(self) -> int | None:
        """The depth D of the label's grid at this n (:func:`~dpcvx.privacy.column_histogram.label_depth` of the
        public n and eps_l); None when n is too small for a level at any depth."""
        return label_depth(self.n, self.eps_label)

    @property
    def label_level(self) -> float | None:
        """The public level q of the label's range at this n on the grid of :attr:`label_depth`
        (:func:`~dpcvx.privacy.column_histogram.histogram_level`); None when n is too small for it (a run of
        :func:`dpcvx.tune` on fewer rows than the plan's): then the label's range is not drawn and the fit keeps the
        public B (c = 0)."""
        depth = self.label_depth
        return None if depth is None else histogram_level(self.n, 1, self.eps_label, depth)

    @property
    def depth(self) -> int:
        """The depth D of the features' grid: ``HISTOGRAM_DEPTH`` for the classifiers; with a label, the public rule
        of :func:`~dpcvx.privacy.column_histogram.histogram_depth` at n, d and eps_s."""
        if self.label_bound is None:
            return HISTOGRAM_DEPTH
        return histogram_depth(self.n, self.d, self.eps_statistics)

    @property
    def sensitivity(self) -> int:
        """2 (A + S) (:func:`dpcvx.privacy.column_sums.sums_sensitivity`), or 2 d for the histograms
        (:func:`dpcvx.privacy.column_histogram.histogram_sensitivity`)."""
        return histogram_sensitivity(self.d) if self.ranges else sums_sensitivity(self.d, LATTICE_BITS)

    @property
    def scale(self) -> Fraction:
        """The discrete Laplace scale sensitivity / eps_s, exact."""
        return Fraction(self.sensitivity) / Fraction(self.eps_statistics)

    def at(self, X: Any) -> StatisticsPlan:
        """This plan at the rows of X (their public n), refused before any charge unless X is 2-D with at least
        one row and the planned d columns."""
        shape = np.shape(X)
        if len(shape) != 2 or shape[0] < 1 or shape[1] != self.d:
            raise InputError(f"this plan is for a 2-D X of at least one row and {self.d} columns, got shape {shape}: "
                             "plan again for these columns. Nothing was charged")
        return replace(self, n=int(shape[0]))


def _with_map(learner: Any, standardiser_: ColumnStandardiser, remedy: str = "") -> Any:
    """A copy of ``learner`` that fits on the map's outputs (its R the map's norm bound), drawing nothing; one that
    cannot be copied refused (:func:`~dpcvx.models.contract.learner_copy`, ``remedy`` ending its message): the
    placeholder before the charge refuses it, so a fit after the charge copies a learner copied once already."""
    candidate = learner_copy(learner, remedy)
    candidate.set_params(feature_map=standardiser_, data_norm=None, column_statistics=False)
    return candidate


def label_range_offered(n: int, epsilon: float) -> bool:
    """Whether a fit of n rows at ``epsilon`` can draw a label's range (eps_l = LABEL_SHARE epsilon): the public rule
    of :func:`~dpcvx.privacy.column_histogram.label_depth` (a level at some depth), a function of the public n and
    epsilon only."""
    return label_depth(n, LABEL_SHARE * epsilon) is not None


def label_range_rows(epsilon: float, depth: int = LABEL_MIN_DEPTH) -> int:
    """The least n at which the label's grid of 2^``depth`` cells has a level at ``epsilon``: the least n of the
    range rule (:func:`~dpcvx.privacy.column_ranges.least_rows`) at that grid's running noise sigma_r. At the
    coarsest grid (``LABEL_MIN_DEPTH``, the default) it is the least n at which :func:`label_range_offered` holds.
    Public."""
    return least_rows(running_noise(1, LABEL_SHARE * epsilon, depth))


def _three_way(epsilon: float, share: Any) -> tuple[float, float, float]:
    """(eps_s, eps_l, eps_fit): eps_s = share epsilon, eps_l = LABEL_SHARE epsilon, their sum at most epsilon."""
    eps_statistics = split_budget(epsilon, share, "column_statistics_share")[0]  # the share's one check
    if not share < 1 - LABEL_SHARE:
        raise InputError(f"column_statistics_share must lie in (0, {1 - LABEL_SHARE:g}) with a label's range, "
                         f"got {share}. Nothing was charged")
    eps_label, rest = split_budget(epsilon, LABEL_SHARE, "LABEL_SHARE")
    eps_fit = rest - eps_statistics
    while eps_statistics + eps_label + eps_fit > epsilon:
        eps_fit = math.nextafter(eps_fit, 0.0)
    return eps_statistics, eps_label, eps_fit


def counted_fit_share(epsilon: float, eps_statistics: float, eps_fit: float, count_share: Any) -> float:
    """The statistics' eps_fit for a fit that draws a private class count inside it: ``eps_fit`` (the statistics'
    two-way split of ``epsilon``, :func:`~dpcvx.models.private_norm.split_budget`) stepped down by ulps until the
    count's split of it, (eps_c, fit_c) = split_budget(eps_fit, ``count_share``), composes with eps_s in the
    release's order (:meth:`StandardisedPlan.shares`) to at most ``epsilon``:
    sequential_epsilon([eps_c, eps_s, fit_c]) <= epsilon, exactly, in floating point.

    Each two-way split fits (fl(eps_c + fit_c) <= eps_fit, fl(eps_s + eps_fit) <= epsilon), but the nested sum adds
    its three shares in another order, and came to epsilon + 1 ulp at some epsilons (3 stated 3.0000000000000004;
    the list in tests/models/test_nested_budget_split.py, a probe of the sixty-fourth session): a tuned release stated
    more than its candidate's budget, and the OpenDP bridge refused the fit. Here it states at most epsilon.

    Termination: with u = 2^-53, c + f <= eps_fit (1 + u) and the nested sum is at most (c + s + f)(1 + u)^2, so at
    most (eps_fit + s)(1 + u)^3; and s + eps_fit <= epsilon (1 + u) from the first split. The loop therefore stops
    once eps_fit has fallen by at most about 4 u epsilon (two ulps of epsilon), about 2 ulp(epsilon) / ulp(eps_fit)
    + 1 steps (one step at most over 60,120 pairs of epsilon in 0.1..100 and shares, the session's check).
    Positivity: split_budget refuses (InputError, nothing charged) a part below EPSILON_MIN, so eps_fit never reaches
    0; the loop either returns a positive share or refuses before any charge. Where the nested sum already fits,
    eps_fit is the split's, unchanged."""
    while True:
        eps_count, fit = split_budget(eps_fit, count_share, "class_count_share")
        if sequential_epsilon([eps_count, eps_statistics, fit]) <= epsilon:
            return eps_fit
        eps_fit = math.nextafter(eps_fit, 0.0)


def plan_column_statistics(learner: Any, X: Any, y: Any, epsilon: float, *,
                           accountant: PrivacyAccountant | None = None,
                           label_learner: Callable[[float], Any] | None = None,
                           **fit_params: Any) -> StandardisedPlan:
    """Every check of the fit, nothing charged or drawn: the :class:`StandardisedPlan`. A learner that plans first
    is planned once, on the rows through a placeholder map of the public R (its centre and multiplier enter no check
    or constant); the released map is bound to that plan after each draw (:meth:`FitPlan.with_feature_map`). One that
    draws a private class count (inside eps_fit) is planned once too, as a :class:`~dpcvx.models.class_count.RatesPlan`
    through the placeholder map: each draw binds its map, then the count's rates. Another learner runs its
    ``check_fit_inputs`` and is fitted through its ``fit``. With ``label_learner`` (the learner at a
    label bound B', its constants following B') the label's range is drawn too (module docstring) and the fit is
    the learner ``label_learner(B')``'s, through its ``fit`` (its checks are the placeholder's at the public B)."""
    check_accountant(accountant)
    plan = statistics_plan(learner, X, epsilon, fit_params, label_learner)
    if draws_count(learner) and label_learner is None:  # the count splits eps_fit again (not one-vs-rest's k fits)
        plan = replace(plan, eps_fit=counted_fit_share(epsilon, plan.eps_statistics, plan.eps_fit,
                                                       learner.class_count_share))
    placeholder = placeholder_learner(learner, plan)
    options = {key: value for key, value in fit_params.items() if key != "sample_weight"}
    with composite(PROCEDURE_NAME):
        if getattr(placeholder, "plans_first", False) is True:
            fit_plan = placeholder.plan(X, y, epsilon=plan.eps_fit, **fit_params)
            assert isinstance(fit_plan, (FitPlan, RatesPlan))  # the placeholder draws a class count at most
            return StandardisedPlan(learner, plan, options, fit_plan, fit_plan.classes, label_learner)
        classes = placeholder.check_fit_inputs(X, y, epsilon=plan.eps_fit, **fit_params)
        return StandardisedPlan(learner, plan, options, None, classes, label_learner)


def statistics_plan(learner: Any, X: Any, epsilon: float, fit_params: dict[str, Any],
                    label_learner: Callable[[float], Any] | None = None) -> StatisticsPlan:
    """The checks of a draw of private column statistics before a fit of ``learner`` on X at ``epsilon`` (its
    ``fit_params``: delta, neighbours, feature_map ...), reading X's public shape only, nothing charged or drawn: the
    :class:`StatisticsPlan` (the split of epsilon, delta, n, d, the public R). A fit on the map it gives is planned by
    the caller, through :func:`placeholder_learner` (:func:`plan_column_statistics`; one-vs-rest's k fits,
    :class:`~dpcvx.models.multiclass.PrivateMulticlassERM`)."""
    if draws_bounds(learner):
        raise InputError("column_statistics=True draws private statistics; with a private bound the fit would "
                         "compose more draws, which is not offered: pass public bounds. Nothing was charged")
    if getattr(learner, "feature_map", None) is not None:
        raise InputError("column_statistics=True makes the feature map (the standardiser); pass no feature_map. "
                         "Nothing was charged")
    if Neighbours.parse(fit_params.get("neighbours", Neighbours.REPLACE_ONE)) is not Neighbours.REPLACE_ONE:
        raise InputError("private column statistics are offered under replace-one neighbours (n public: the means "
                         "divide by it). Nothing was charged")
    if not getattr(learner, "clip", True):
        raise InputError("column_statistics=True clips the standardised rows onto R; clip=False would refuse rows "
                         "after the charge, so it is refused now. Nothing was charged")
    if sparse.issparse(X) or is_dask(X):
        raise InputTypeError("private column statistics need dense rows, in memory or a numpy.memmap (centring fills "
                             "a sparse matrix; the draw reads a memmap's rows by blocks here, not a Dask X's chunks "
                             "where they live). Nothing was charged")
    norm = check_bound("data_norm", learner.data_norm)
    label_bound = None
    if label_learner is None:
        eps_statistics, eps_fit = split_budget(epsilon, learner.column_statistics_share, "column_statistics_share")
        eps_label = 0.0
    else:
        if learner.column_statistics != "ranges":
            raise InputError("a label's range is drawn with column_statistics='ranges'. Nothing was charged")
        label_bound = check_bound("label_bound", learner.label_bound)
        eps_statistics, eps_label, eps_fit = _three_way(epsilon, learner.column_statistics_share)
        depth = label_depth(int(np.shape(X)[0]), eps_label)
        if depth is None:
            raise InputError(f"{np.shape(X)[0]} rows are too few for the label range's noise at eps_l = "
                             f"{eps_label:g} (dpcvx.privacy.column_histogram.label_depth); pass "
                             "column_statistics=False. Nothing was charged")
        # the learner at the narrowest B' the draw can release is made now, so that one it refuses (DPHuberRegressor's
        # m = B' / 4 below the loss's range) is refused before the charge; without a level the fit takes the public B
        level = histogram_level(int(np.shape(X)[0]), 1, eps_label, depth)
        if level is not None:
            label_learner(least_label_bound(label_bound, level))
    delta = check_delta(fit_params.get("delta", 0.0))
    shape = np.shape(X)
    if len(shape) != 2 or shape[0] < 1 or shape[1] < 1:
        raise InputError(f"X must be a 2-D array of at least one row and one column, got shape {shape}")
    return StatisticsPlan(eps_statistics, eps_fit, delta, int(shape[0]), int(shape[1]), norm,
                          learner.column_statistics == "ranges", label_bound, eps_label)


def placeholder_learner(learner: Any, plan: StatisticsPlan) -> Any:
    """A copy of ``learner`` that fits on a placeholder map of the public R, drawing nothing: the identity, its
    outputs clipped onto R. Its centre and multiplier enter no check or constant, so a plan made with it holds once
    the released map is bound in its place (:meth:`FitPlan.with_feature_map
    <dpcvx.models.fit_plan.FitPlan.with_feature_map>`)."""
    return _with_map(learner, ColumnStandardiser(np.zeros(plan.d), np.ones(plan.d), plan.norm),
                     "; nothing was charged")


@dataclass(frozen=True)
class StandardisedPlan:
    """A fit with private column statistics planned once (:func:`plan_column_statistics`): public values only.

    :meth:`fit` charges once, releases the statistics of its rows and binds the map they give to the one plan of the
    fit (:meth:`FitPlan.with_feature_map`), its only late-bound part; :func:`dpcvx.tune` fits every run of a
    candidate from it.

    Attributes
    ----------
    learner : the learner (``column_statistics=True``)
    statistics : the statistics' plan (the split, delta, d, the public R; n is each fit's)
    options : the fit's other arguments (mechanism, delta, split, ...)
    plan : the fit's plan with a placeholder map (a :class:`~dpcvx.models.class_count.RatesPlan` when the fit draws
        a private class count: its one plan at the rates (1/2, 1/2), the map and the released rates bound per fit;
        None: the learner does not plan first and is fitted through ``fit``)
    classes : the learner's public classes (None for a regression)
    label_learner : the learner at a label bound B' when the label's range is drawn (else None)
    """

    learner: Any
    statistics: StatisticsPlan
    options: dict[str, Any]
    plan: FitPlan | RatesPlan | None
    classes: tuple[Any, ...] | None
    label_learner: Callable[[float], Any] | None = None

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            sample_weight: Any = None) -> Any:
        """The plan executed on (X, y) (:meth:`execute`). With an ``accountant`` the rows are first checked
        (:meth:`check`), so that a refused call spends nothing; without one nothing is charged here and the fit
        checks its rows after the draw (inside :func:`dpcvx.tune`, whose one charge came before every run)."""
        check_accountant(accountant)
        if accountant is not None:
            self.check(X, y, sample_weight)
        return self.execute(X, y, random_state, accountant, sample_weight)

    def check(self, X: Any, y: Any, sample_weight: Any) -> None:
        """The fit's checks on (X, y), as the plan checked its own rows (through the placeholder map), nothing
        charged or drawn."""
        self.statistics.at(X)
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        with notes_dropped():  # the placeholder map's clipping counts are not the fit's
            if self.plan is None:
                _with_map(self.learner, ColumnStandardiser(np.zeros(self.statistics.d), np.ones(
                    self.statistics.d), self.statistics.norm)).check_fit_inputs(
                    X, y, epsilon=self.statistics.eps_fit, **self.options, **weighted)
            elif isinstance(self.plan, RatesPlan):  # at both ends of the count's released rates
                self.plan.check(X, y, sample_weight)
            else:
                self.plan.checked(X, y, sample_weight)

    def ledger_line(self, plan: StatisticsPlan) -> str:
        """The charge's ledger line for the statistics' plan at this fit's n
        (:func:`~dpcvx.models.fit_plan.composite_ledger_line`): the fit as it names itself (the learner, its loss,
        the mechanism, n), then every draw: the statistics (eps_s), the label's range (eps_l, when drawn) and a
        class count drawn inside eps_fit (eps_c), and the fit's own epsilon."""
        draws = [("private column ranges" if plan.ranges else "private column statistics", "eps_s",
                  plan.eps_statistics)]
        if plan.label_bound is not None:
            draws.append(("private label range", "eps_l", plan.eps_label))
        eps_fit = plan.eps_fit
        if isinstance(self.plan, RatesPlan):  # the count splits eps_fit again
            draws += self.plan.draws(plan.n)
            eps_fit = self.plan.count.at(plan.n).eps_fit
        return composite_ledger_line(fit_ledger_text(self.learner, self.plan, plan.n), draws, eps_fit)

    def shares(self, plan: StatisticsPlan) -> tuple[list[tuple[DrawnPart, float]], float]:
        """(the draws before the fit, the fit's epsilon) as the release states them, for the statistics' plan at this
        fit's n: a class count drawn inside eps_fit (:class:`~dpcvx.models.class_count.RatesPlan`) first, then the
        statistics (and the label's range), the order of the release's records
        (:func:`~dpcvx.release.model.drawn_records`, :func:`~dpcvx.release.model.drawn_parts`), and the fit's own
        epsilon (the count's eps_fit when it splits eps_fit again). The charge's total
        (:func:`~dpcvx.privacy.composition.sequential_epsilon` of these shares in this order) and its curve
        (:func:`~dpcvx.privacy.privacy_curve.draws_then_fit_curve` of them) are then the release's total_epsilon and
        privacy curve, to the last bit: charged as the eps_s + eps_fit of the statistics' split, a fit at epsilon 3
        was charged 3.0 for a release stating 3.0000000000000004, and its charged curve had the fit's Gaussian at the
        statistics' eps_fit and no part for the count."""
        if isinstance(self.plan, RatesPlan):
            count = self.plan.count.at(plan.n)
            return [(DrawnPart.COUNT, count.eps_count), *plan.drawn], count.eps_fit
        return plan.drawn, plan.eps_fit

    @float_errors_ignored
    def execute(self, X: Any, y: Any, random_state: RandomState, accountant: PrivacyAccountant | None,
                sample_weight: Any) -> Any:
        """Charge once, release the statistics, fit on the map (module docstring, steps 2 to 5)."""
        plan = self.statistics.at(X)
        rng = shared_rng(random_state)  # one stream for the statistics and the fit; a bad seed refused before charging
        if accountant is not None:  # the release's shares, in its order (:meth:`shares`)
            drawn, eps_fit = self.shares(plan)
            accountant.spend(sequential_epsilon([epsilon for _, epsilon in drawn] + [eps_fit]), plan.delta,
                             description=self.ledger_line(plan),
                             curve=draws_then_fit_curve(drawn, fit_after_draws_part(
                                 eps_fit, plan.delta, gaussian_output(self.options, self.learner.float_safe))),
                             conditional=plan_conditional(self.plan))
        mapped, values = draw_map(X, plan, rng)
        shift, labels = 0.0, y
        if plan.label_bound is not None:
            level, depth, label_cells = plan.label_level, plan.label_depth, None
            shift, label_bound = 0.0, plan.label_bound  # too few rows for the level: the public B
            if level is not None and depth is not None:
                label_cells = release_label_range(np.asarray(y, dtype=float), plan, level, depth, integer_source(rng))
                shift, label_bound = histogram_label_range(label_cells, plan.label_bound, level, depth)
            assert self.label_learner is not None  # a plan with a label bound has one
            # y clipped onto the public [-B, B] before its released centre c is taken off: the learner clips y - c onto
            # [-B', B'] only, and B' may reach past B - |c| (label_range), which let a label beyond the declared bound
            # into the fit unclipped, so an out-of-bound label and its clipped value gave different releases
            learner = self.label_learner(label_bound)
            labels = np.clip(np.asarray(y, dtype=float), -plan.label_bound, plan.label_bound) - shift
            values.update(label_epsilon=plan.eps_label, label_bound=plan.label_bound, label_depth=depth,
                          label_level=level,
                          label_cells=None if label_cells is None else label_cells.tolist(),
                          label_theorem=LABEL_THEOREM)
        weighted = {} if sample_weight is None else {"sample_weight": sample_weight}
        # the map's outputs beyond R are clipped by its public rule, not a fault of the rows: the NOT PRIVATE
        # ClippingWarning of the checks before the charge (through the placeholder map) counted the user's rows
        with after_charge(PROCEDURE_NAME), notes_dropped():  # cannot fail under the rule (models.failure)
            if plan.label_bound is not None:  # the learner at B': planned through its fit (its checks ran)
                model = _with_map(learner, mapped).fit(X, labels, epsilon=plan.eps_fit, random_state=rng,
                                                       **self.options, **weighted)
            elif self.plan is None:
                model = _with_map(self.learner, mapped).fit(X, y, epsilon=plan.eps_fit, random_state=rng,
                                                            **self.options, **weighted)
            elif isinstance(self.plan, RatesPlan):  # the one plan, its map bound now, the count drawn inside eps_fit
                model = self.plan.with_feature_map(mapped).execute(X, y, rng, None, sample_weight)
            else:  # the one plan, its map bound now: every check ran before the charge
                model = self.plan.with_feature_map(mapped).fit(X, y, random_state=rng, sample_weight=sample_weight)
        fitted = model.certificate
        record = statistics_record(plan, values)
        # the release's total, summed as its certificate sums it (composed_epsilon): the charge's (:meth:`shares`);
        # a count drawn inside eps_fit splits it again, so plan.total may differ in the last bit
        total = composed_epsilon((*fitted.private_bounds, record), fitted.epsilon)
        record["total_epsilon"] = total
        weights = fitted.weights  # a private class count drawn inside eps_fit: its record states the release's total
        if weights is not None and weights.private_count is not None:
            weights = replace(weights, private_count={**weights.private_count, "total_epsilon": total})
        model.certificate = replace(fitted, column_statistics=record, weights=weights, guarantee=statistics_guarantee(
            total, fitted.delta, plan.eps_statistics, plan.eps_label, plan.eps_fit, fitted.guarantee))
        return model.shifted(shift) if shift else model  # the private label centre: post-processing


def draw_map(X: Any, plan: StatisticsPlan, rng: RandomState) -> tuple[ColumnStandardiser, dict]:
    """The features' statistics of X's rows released at eps_s (``plan``: the ranges' histograms or the sums, module
    docstring steps 3 and 4) from ``rng`` (None: the OS CSPRNG; a seed or a generator: reproducible), and the map
    they give, with the released values as a certificate records them (:func:`statistics_record`)."""
    if plan.ranges:
        released = release_ranges(np.asarray(X), plan, integer_source(rng))
        mapped = (fill_map(released, plan.norm) if plan.label_bound is None
                  else ranges_map(released, plan.norm, REGRESSION_FLOOR_CELLS, plan.depth))
        if not checks_are_off():  # NOT PRIVATE, for the data owner: never inside tune; the least width of the map
            floor = 2 * least_half_width(plan.norm, FILL_FLOOR_CELLS if plan.label_bound is None
                                         else REGRESSION_FLOOR_CELLS)
            warn_unresolved_columns(X, grid_points(released, np.full(plan.d, plan.norm), plan.depth), floor,
                                    plan.norm, "classifier" if plan.label_bound is None else "DPHuberRegressor")
        values: dict[str, Any] = {"depth": plan.depth, "level": HISTOGRAM_LEVEL, "cells": released.tolist(),
                                  "theorem": RANGES_THEOREM}
    else:
        released = release_column_statistics(np.asarray(X), plan, integer_source(rng))
        mapped = sums_map(released, plan.n, plan.norm, plan.scale, LATTICE_BITS)
        values = {"lattice_bits": LATTICE_BITS, "sums": [int(value) for value in released],
                  "theorem": STATISTICS_THEOREM}
    return mapped, values


def statistics_record(plan: StatisticsPlan, values: dict[str, Any]) -> dict[str, Any]:
    """The record a certificate keeps of a draw of column statistics: eps_s, n, the sensitivity, the released
    ``values`` (:func:`draw_map`'s, a label's range's with them), the neighbour relation and the composition; the
    caller adds the release's ``total_epsilon``."""
    return {"epsilon": plan.eps_statistics, "n": plan.n, "sensitivity": plan.sensitivity, **values,
            "neighbours": REPLACE_ONE_STATEMENT, "composition": COMPOSITION}


def _clipped(X: np.ndarray, plan: StatisticsPlan) -> np.ndarray:
    """The rows clipped onto the learner's public ||x|| <= R (a new array: the copy made here is clipped in place)."""
    return RowMap(norm_bound=plan.norm).clip(np.array(X, dtype=np.float64), in_place=True)[0]


def release_ranges(X: np.ndarray, plan: StatisticsPlan, source: Any) -> np.ndarray:
    """The released 2 x d grid indices of the columns' ranges (:mod:`dpcvx.privacy.column_histogram`), of the rows
    clipped onto the learner's public ||x|| <= R as the histograms read them, a block at a time (each row's factor a
    function of that row alone: the rows of :func:`_clipped`, with no whole copy)."""
    clip = RowMap(norm_bound=plan.norm).clip
    noisy = noisy_histograms(X, np.full(plan.d, plan.norm), plan.eps_statistics, source,
                             plan.depth, row_map=lambda rows: clip(rows)[0])
    # the public n: a column whose kept cells hold under KEPT_SHARE n is sought on the coarser grids, within the window
    # its map keeps unclipped (a regressor's ranges_map on its grid of histogram_depth, the classifiers' fill map)
    return histogram_ranges(noisy, plan.eps_statistics, plan.n,
                            window=RANGES_CLIP if plan.label_bound is None else REGRESSION_WINDOW)


def release_label_range(y: np.ndarray, plan: StatisticsPlan, level: float, depth: int, source: Any) -> np.ndarray:
    """The released 2 x 1 grid indices of the label's levels q, 1 - q: its histogram (y clipped onto the public
    [-B, B]) on the grid of 2^depth cells at eps_l (:mod:`dpcvx.privacy.column_histogram` with one column)."""
    bound = np.array([plan.label_bound], dtype=float)
    noisy = noisy_histograms(y[:, None], bound, plan.eps_label, source, depth,
                             row_map=lambda labels: np.clip(labels, -bound, bound))  # by blocks: no clipped copy
    return histogram_levels(noisy, plan.n, level)



def _contributions(X: np.ndarray, plan: StatisticsPlan) -> np.ndarray:
    """Each record's integer vector c(x) (module docstring, step 3) of its row clipped onto R; int64 (n, 2 d)."""
    return lattice_contributions(_clipped(X, plan) / plan.norm, LATTICE_BITS)


def release_column_statistics(X: np.ndarray, plan: StatisticsPlan, source: Any) -> np.ndarray:
    """The released integer sums: sum_i c(x_i) plus i.i.d. discrete Laplace of scale 2 (A + S) / eps_s. The sums are
    taken a block of rows at a time (each record's c(x) a function of its row alone, integer sums exact in any order:
    the same sums as of the whole), so a memmap's rows are never copied whole: each block's contributions are
    ``VALUE_BLOCK`` integers."""
    step, sums = max(1, VALUE_BLOCK // (2 * plan.d)), np.zeros(2 * plan.d, dtype=np.int64)
    for start in range(0, X.shape[0], step):
        sums += _contributions(X[start:start + step], plan).sum(axis=0)
    return sums + discrete_laplace_array(plan.scale, 2 * plan.d, source)


