"""PrivateLinearRegression: least squares released by AdaSSP with its three statistics calibrated jointly.

The mathematical layer (as :class:`~dpcvx.models.erm.PrivateERM` is for
classification): public bounds ``data_norm`` (R on ||x||) and ``label_bound``
(B on |y|) are the data contract; rows beyond R are scaled onto it and
labels beyond B clipped onto [-B, B] (or refused with ``clip=False``). The
calibration is :mod:`dpcvx.privacy.adassp`; the estimator on top is
:class:`dpcvx.DPLinearRegression`.

Order in :meth:`PrivateLinearRegression.fit`: validate every input, charge the
accountant once, then draw noise. :meth:`PrivateLinearRegression.plan` makes every check and the calibration,
which read public inputs only (epsilon, delta, the bounds, the width d, the relation, n when public), once: an
:class:`AdaSSPPlan`, executed on rows of that width (:meth:`AdaSSPPlan.fit`; :func:`dpcvx.tune` fits every run of
a candidate from its one plan, as :class:`~dpcvx.models.fit_plan.FitPlan` does for PrivateERM).

With ``column_statistics=True`` (mechanism ``adassp-standardised``; :mod:`dpcvx.privacy.adassp`, docs/theory.md
section 16) the fit first releases the column sums and sums of squares of the rows clipped onto R, in the same
joint Gaussian as AdaSSP's statistics, and runs AdaSSP on the rows centred and scaled by the map they give
(:meth:`~dpcvx.data.standardiser.ColumnStandardiser.from_moments`), clipped onto R. The model keeps the map in its
row map, so ``predict`` maps new rows as the fit did; the certificate's ``column_statistics`` record holds the
released sums.

With ``column_ranges=True`` (mechanism ``adassp-ranged``; :mod:`dpcvx.privacy.column_ranges`, docs/theory.md
section 16) the fit first searches a private range of every column and of the label (Gaussian counts in the same
joint Gaussian), maps the columns by :func:`~dpcvx.data.standardiser.range_map` and the label by
:func:`~dpcvx.data.standardiser.label_range` (y - c clipped onto [-B', B']), runs AdaSSP on those, and adds c to
the intercept. The certificate states the public B as its label bound, its calibration B' (the sigma of X^T y), and
its ``column_statistics`` record holds the released ranges, the level and the public B. Under
``column_ranges="auto"``, when n is too small for the search of every column but not for the label's, the label's
range alone is searched (:meth:`AdaSSPPlan.ranges_at`; the rows keep their public map). A numpy.memmap's rows are
searched by row blocks, clipped onto R as each is read (:class:`~dpcvx.privacy.column_ranges.ValueBlocks`: the
counts, and so the ranges, of the same rows in memory, with no copy of them); a Dask X is not searched.

Width: every mechanism here holds d x d matrices (AdaSSP's statistics and noise, the descent's top eigenvalue), dense
for a sparse X too, so a fit of more than :data:`WIDEST` weights (columns plus the intercept) warns
:class:`~dpcvx.exceptions.CostWarning` when bound, before any statistic is computed or anything charged
(:func:`too_wide`: the width alone), with the memory and the alternatives.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, NamedTuple

import numpy as np
from scipy import sparse

from ..data.blocks import RowBlocks, is_dask, is_out_of_core, matrix_shape
from ..data.notes import checks_then_notes, warn_clipped, warn_clipped_rows, warn_unresolved_columns
from ..data.rows import RowMap
from ..data.standardiser import FLOOR_CELLS, adassp_map, label_range, least_half_width, range_map
from ..exceptions import CostWarning, InputError, InputTypeError, float_errors_ignored
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.adassp import (
    COLUMN_SPREAD,
    AdaSSPCalibration,
    adassp_calibration,
    adassp_intercept_scaling,
    label_search_rows,
    range_search_level,
)
from ..privacy.column_ranges import HIGHEST_LEVEL, SEARCH_DEPTH, VALUE_BLOCK, ValueBlocks, release_ranges
from ..privacy.gradient_descent import (
    STEPS,
    GradientCalibration,
    descent_momentum,
    descent_steps,
    gradient_calibration,
    gradient_intercept_scaling,
)
from ..privacy.neighbours import Neighbours
from ..privacy.rng import NoiseSource, RandomState, resolve_rng
from ..release.draw_texts import BOUNDS_CLIPPED, NOT_CLIPPED
from ..release.model import named
from ..release.regression_model import (
    LinearRegressionModel,
    PrivateRegressionModel,
    SufficientStatisticsCertificate,
    sufficient_statistics_statement,
)
from ..release.usefulness import checks_are_off, speaker
from ..tables import feature_names
from ..validation import (
    check_bound,
    check_choice,
    check_delta,
    check_delta_for_n,
    check_epsilon,
    check_flag,
    check_lam,
    check_targets,
    fraction,
    label_clipping_note,
    label_codes,
    public_arithmetic,
    refuse_weights,
    target_values,
)
from ..version import __version__
from .contract import ConstructorParameters, as_planned
from .descent_reach import descent_shortfall, reach_checked, warn_descent_shortfall
from .erm_inputs import SETTINGS, neighbour_relation, symmetric_label_bound
from .training_rows import warn_on_learner_fit

__all__ = ["PrivateLinearRegression", "AdaSSPPlan", "WIDEST", "too_wide"]

#: The most weights (columns, plus the intercept) a PrivateLinearRegression fit takes without a CostWarning. AdaSSP
#: and the descent's top eigenvalue each hold (d x d) matrices of doubles (the Gram matrix X^T X, dense for a sparse
#: X too; AdaSSP's Gaussian noise; the eigendecomposition's copy) and decompose one in time cubic in d: measured
#: (probe, one BLAS thread, session 61) eigvalsh of 4,000 x 4,000 took 7.2 s and a sparse DPLinearRegression fit of
#: 50,000 x 4,000 10.2 s; a fit of 100,000 x 20,000 (3.6 M stored values) had not finished after 10 minutes at
#: 6.6 GB. At 10,000 weights a matrix is 0.8 GB and the decomposition about 2 minutes (cubic from 7.2 s). A public
#: rule of the width alone.
WIDEST = 10_000

#: The pure-epsilon least-squares releases dpcvx offers, named in every refusal of delta = 0.
PURE_EPSILON_OPTIONS = (
    "Pure epsilon options: DPLinearRegression(delta=0, weight_bound=W, lam=...) (objective perturbation "
    "of least squares on the public ball ||w|| <= W, KST12; mechanism='objective'), "
    "PrivateERM(loss=dpcvx.losses.squared_error(), task='regression', constraints=...) for the same in the "
    "mathematical layer, or DPHuberRegressor (pure epsilon by default). Otherwise pass a delta in (0, 1), "
    "well below 1/n"
)

#: PrivateLinearRegression's ``mechanism``: AdaSSP, noisy gradient descent on clipped residuals (mechanism
#: ``gradient-ranged``; :mod:`dpcvx.privacy.gradient_descent`), or "auto", the descent wherever a fit searches a
#: private range and AdaSSP elsewhere (:meth:`AdaSSPPlan.descends_at`; DPLinearRegression's default)
MECHANISMS = ("adassp", "gradient", "auto")

RELATIONS = {
    Neighbours.REPLACE_ONE: "replace-one: neighbouring data sets differ in one record, replaced by another",
    Neighbours.ADD_REMOVE: "add-remove: neighbouring data sets differ by one record added or removed (n is not used)",
}


class PrivateLinearRegression(ConstructorParameters):
    """Private least squares by AdaSSP (Wang 2018) with a joint Gaussian calibration.

    Parameters
    ----------
    data_norm : float
        Public bound R on ||x|| (never read off the data).
    label_bound : float
        Public bound B on |y|.
    lam : float, default 0
        An extra ridge n Lam ||w||^2 / 2 on top of AdaSSP's adaptive one (replace-one only: it uses n): 0 or in
        [1e-150, 1e150] (:func:`~dpcvx.validation.check_lam`, as DPLinearRegression and the command line check it).
    fit_intercept : as :class:`~dpcvx.models.erm.PrivateERM`.
    intercept_scaling : float or "auto", default 1
        The constant feature s, in [1e-75, 1e75] as PrivateERM's (checked whether or not ``fit_intercept``);
        "auto": AdaSSP's public rule at the fit's epsilon, delta, width and public n
        (:func:`~dpcvx.privacy.adassp.adassp_intercept_scaling`; 1 under add-remove, where n is private).
    clip : bool
        Scale rows onto R and clip labels onto [-B, B] (True), or refuse them (False).
    failure_probability : float, default 0.05
        rho of AdaSSP: its eigenvalue and ridge bounds hold with probability 1 - rho
        (utility only; the privacy guarantee holds always).
    allow_large_delta : bool, default False
        delta must be below 1/n unless this is True (:func:`dpcvx.validation.check_delta_for_n`; under add-remove,
        where n is private, below 1/n_public, the public size ``fit`` takes).
    column_statistics : bool, default False
        Release private column statistics first and run AdaSSP on the columns they centre and scale (module
        docstring); replace-one neighbours, dense rows in memory and ``clip=True`` only.
    column_ranges : bool or "auto", default False
        Search private ranges of the columns and the label first and run AdaSSP on the rows and labels they map
        (module docstring); the same conditions (a numpy.memmap's rows searched by blocks), not with
        ``column_statistics``, and n large enough for the
        search's noise (:func:`dpcvx.privacy.column_ranges.range_level`), else refused before any charge.
        "auto": the ranges when every condition holds at the fit's n (public facts of the call), else plain AdaSSP.
    mechanism : {"adassp", "gradient"}, default "adassp"
        "gradient": noisy gradient descent on clipped residuals on the rows and labels the private ranges map
        (mechanism ``gradient-ranged``, :mod:`dpcvx.privacy.gradient_descent`, docs/theory.md section 16): the
        search of every column and the label (``column_ranges=True``; under "auto" as AdaSSP's "auto" searches:
        every column's when n allows it, else the label's alone, the rows keeping their public map), then a private
        top eigenvalue, T noisy gradient steps (``STEPS``, or ``LONG_STEPS`` where n epsilon / d >= ``LONG_STEPS_AT``:
        :func:`~dpcvx.privacy.gradient_descent.descent_steps`) and, with an intercept, a private level (the mean
        residual). Replace-one, dense rows in memory or a numpy.memmap,
        ``clip=True``, lam=0 and n large enough for the search (of every column with True, of the label's at least
        with "auto") only; else refused before any charge. "auto" (:class:`dpcvx.DPLinearRegression`'s default):
        "gradient" for a fit that searches a private range first (every column's or the label's alone) with lam=0,
        else "adassp" (:meth:`AdaSSPPlan.descends_at`, decided per fit from public facts: the settings, epsilon,
        delta, the width and n).
    """

    predicts_per_row: ClassVar[bool] = True  # a released model predicts each row alone (models.contract)

    #: the public bounds, always shown by ``repr`` (every other parameter when not at its default)
    _SHOWN = ("data_norm", "label_bound")

    def __init__(self, data_norm: float | None = None, label_bound: float | None = None, *, lam: float = 0.0,
                 fit_intercept: bool = False, intercept_scaling: float | str = 1.0, clip: bool = True,
                 failure_probability: float = 0.05, allow_large_delta: bool = False,
                 column_statistics: bool = False, column_ranges: bool | str = False,
                 mechanism: str = "adassp") -> None:
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.lam = lam
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.clip = clip
        self.failure_probability = failure_probability
        self.allow_large_delta = allow_large_delta
        self.column_statistics = column_statistics
        self.column_ranges = column_ranges
        self.mechanism = mechanism

    def _mechanism(self) -> str:
        """``mechanism`` checked: "adassp", "gradient" or "auto"."""
        return check_choice("mechanism", self.mechanism, MECHANISMS)

    def _ranges_option(self) -> bool | str:
        """``column_ranges`` checked: "auto", or True or False (a numpy bool as the bool it is)."""
        if isinstance(self.column_ranges, str) and self.column_ranges == "auto":
            return "auto"
        return check_flag("column_ranges", self.column_ranges)

    @property
    def _auto_scaling(self) -> bool:
        return isinstance(self.intercept_scaling, str) and self.intercept_scaling == "auto"

    def _lam(self) -> float:
        """``lam`` checked: AdaSSP's extra ridge, 0 or in [LAM_MIN, LAM_MAX] (:func:`~dpcvx.validation.check_lam`,
        the check of DPLinearRegression's and the command line's lam)."""
        return check_lam("lam", self.lam, allow_zero=True)

    def _scaling(self) -> float:
        """The numeric ``intercept_scaling`` checked as PrivateERM and the estimators check it
        (:data:`~dpcvx.models.erm_inputs.SETTINGS`: a public bound in [BOUND_MIN, BOUND_MAX], whatever
        ``fit_intercept``); "auto" is refused here, where there is no fit whose rule would set it."""
        scaling = SETTINGS["intercept_scaling"]("intercept_scaling", self.intercept_scaling)
        if isinstance(scaling, str):
            raise InputError("intercept_scaling='auto' is AdaSSP's rule at a fit's epsilon, delta and n; here there "
                             "are none: pass a number")
        return scaling

    def _rows(self, scaling: float | None = None) -> RowMap:
        """The public row map, its constant feature at ``scaling`` (a public rule's, for "auto"; default: the
        numeric ``intercept_scaling``, checked)."""
        if self.data_norm is None or self.label_bound is None:
            raise InputError("data_norm and label_bound are required: PUBLIC bounds on ||x|| and |y|, never "
                             "read off the data")
        return RowMap(norm_bound=check_bound("data_norm", self.data_norm),
                      fit_intercept=check_flag("fit_intercept", self.fit_intercept),
                      intercept_scaling=self._scaling() if scaling is None else scaling)

    def _label_bound(self) -> float:
        """B, the public bound on |y| (a (lo, hi) pair refused with the shift that makes one)."""
        return symmetric_label_bound(self.label_bound)

    def _statistics(self, X: Any, y: Any, rows: RowMap | None = None, quiet: bool = False,
                    label_bound: float | None = None, shift: float = 0.0) -> tuple[RowMap, np.ndarray, np.ndarray, int]:
        """(row map, X^T X, X^T y, n) of the mapped rows and clipped labels; a memmap or Dask X by row blocks.
        ``rows``: the row map (default: the public bounds'); ``quiet``: no clipping warnings (given already);
        ``label_bound``: the bound the labels are clipped onto (default the public B); ``shift``: the private label
        centre c, the labels y - c (by blocks, with no whole copy, for rows read by blocks)."""
        rows = self._rows() if rows is None else rows
        refuse = not check_flag("clip", self.clip)
        public = self._label_bound()
        bound = public if label_bound is None else label_bound
        if is_out_of_core(X):
            blocks = RowBlocks(X, rows)
            n, d = blocks.shape
            # the labels clipped a block at a time: no n-vector of them (the same values as clipping them whole)
            targets, _, clipped_labels = target_values(y, n, bound, refuse)
            codes = label_codes(targets, bound) if clipped_labels else ()
            gram, moment, clipped_rows = np.zeros((d, d)), np.zeros(d), 0
            for start, block, clipped in blocks.blocks(refuse):
                gram += block.T @ block
                moment += block.T @ _centred_labels(targets[start:start + block.shape[0]], public, shift, bound)
                clipped_rows += clipped
        else:
            mapped, clipped_rows = rows.apply(X, refuse=refuse)
            n = mapped.shape[0]
            shifted = _centred_labels(np.asarray(y, dtype=float), public, shift, bound) if shift else y
            labels, clipped_labels, centred_codes = check_targets(shifted, n, bound, refuse)
            codes = tuple(code + shift for code in centred_codes)  # in the frame of the memmap branch: y, not y - c
            gram = np.asarray((mapped.T @ mapped).todense() if hasattr(mapped, "todense") else mapped.T @ mapped)
            moment = np.asarray(mapped.T @ labels).ravel()
        if clipped_rows and not quiet:
            warn_clipped_rows(clipped_rows, n, rows, None if is_out_of_core(X) else mapped)
        if clipped_labels and not quiet:
            warn_clipped(label_clipping_note(clipped_labels, n, self._label_bound(), codes))
        return rows, gram, moment, n

    def calibrate(self, epsilon: float, delta: float, dim: int, neighbours: Neighbours | str = Neighbours.REPLACE_ONE,
                  rows: RowMap | None = None, ranges: int | None = None,
                  gradient: bool | None = None, steps: int = STEPS,
                  momentum: float = 0.0) -> AdaSSPCalibration | GradientCalibration:
        """The AdaSSP calibration (with ``mechanism="gradient"``, noisy gradient descent's) for this learner's public
        bounds at ``dim`` weights (intercept included); ``rows`` the fit's row map (default: the public bounds', a
        numeric ``intercept_scaling``); ``ranges`` the number of columns whose ranges are searched first (default:
        every column and the label with ``column_ranges=True`` or ``mechanism="gradient"``, else none); ``gradient``
        the descent's or AdaSSP's (default: ``mechanism="gradient"``'s; the plan passes it under "auto": its
        :meth:`AdaSSPPlan.descends_at`); ``steps`` the descent's T (the plan passes
        :func:`~dpcvx.privacy.gradient_descent.descent_steps` at the fit's n), its level released with an intercept,
        and ``momentum`` its beta (the plan passes :func:`~dpcvx.privacy.gradient_descent.descent_momentum`).
        The plan's one calibration goes through this hook
        (:meth:`AdaSSPPlan.calibrate`)."""
        rows = self._rows() if rows is None else rows
        gradient = self._mechanism() == "gradient" if gradient is None else gradient
        if ranges is None:
            ranges = dim - self.fit_intercept + 1 if gradient or self._ranges_option() is True else 0
        if gradient:
            if Neighbours.parse(neighbours) is not Neighbours.REPLACE_ONE:
                raise InputError("mechanism='gradient' is offered under replace-one neighbours (n public: the range "
                                 "search's level and the step's curvature read it); use mechanism='adassp'")
            return gradient_calibration(epsilon, delta, dim=dim, data_norm=rows.effective_norm_bound,
                                        label_bound=self._label_bound(), range_columns=ranges,
                                        failure_probability=self.failure_probability, steps=steps,
                                        level=self.fit_intercept, momentum=momentum)
        return adassp_calibration(epsilon, delta, dim=dim, data_norm=rows.effective_norm_bound,
                                  label_bound=self._label_bound(), neighbours=neighbours,
                                  failure_probability=self.failure_probability,
                                  column_statistics=self.column_statistics, range_columns=ranges)

    @property
    def plans_first(self) -> bool:
        """Whether :meth:`fit` is one plan executed (:meth:`plan`), so :func:`dpcvx.tune` plans once (False when a
        subclass replaces :meth:`fit`)."""
        return type(self).fit is PrivateLinearRegression.fit

    @float_errors_ignored
    def plan(self, X: Any, y: Any, epsilon: float, delta: float = 0.0, *, neighbours: Neighbours | str = "replace-one",
             n_public: int | None = None, sample_weight: None = None) -> AdaSSPPlan:
        """Every check of :meth:`fit` on (X, y) and the calibration, with nothing charged and nothing drawn: the
        :class:`AdaSSPPlan`, whose ``fit(X2, y2, random_state=..., accountant=...)`` executes it on rows of the
        same width. The plan holds a copy of this learner as planned, each parameter value copied
        (:func:`~dpcvx.models.contract.as_planned`): the plan reads its bounds when it fits, and a
        ``set_params(label_bound=10)`` after planning at 0.1 clipped the labels at 10 under noise calibrated for 0.1."""
        return as_planned(self)._planned(X, y, epsilon, delta, neighbours, n_public, sample_weight)[0]

    def _planned(self, X: Any, y: Any, epsilon: float, delta: float, neighbours: Neighbours | str,
                 n_public: int | None, sample_weight: Any) -> tuple[AdaSSPPlan, _Bound]:
        """The public checks (budget, relation, settings), the plan at X's width, and the plan bound to (X, y)."""
        refuse_weights(type(self).__name__, sample_weight=sample_weight)
        epsilon, delta, relation, lam, standardised, ranged, gradient = self._checked(X, epsilon, delta, neighbours,
                                                                                      n_public)
        plan = AdaSSPPlan(self, epsilon, delta, relation, lam, standardised, matrix_shape(X)[1], ranged, gradient)
        return plan, plan.bind(X, y)

    def _checked(self, X: Any, epsilon: float, delta: float, neighbours: Neighbours | str, n_public: int | None
                 ) -> tuple[float, float, Neighbours, float, bool, bool | str, bool | str]:
        """(epsilon, delta, relation, lam, column_statistics, the plan's ``ranged`` and ``gradient``) checked: the
        budget (delta > 0: AdaSSP is a Gaussian mechanism), the relation (``n_public`` under add-remove, delta below
        1/n_public: :func:`~dpcvx.models.erm_inputs.neighbour_relation`, every learner's check), the settings and
        the relation they need, the row bounds. ``X`` the rows (their kind decides what the maps can read) or None
        before any data (:meth:`check_options`): the checks of the rows' kind then wait for :meth:`fit`."""
        epsilon, delta = check_epsilon(epsilon), check_delta(delta)
        if delta == 0:
            raise InputError(f"delta=0 asks for pure epsilon-DP, which AdaSSP (a Gaussian mechanism) cannot give. "
                             f"{PURE_EPSILON_OPTIONS}")
        lam = self._lam()
        check_flag("allow_large_delta", self.allow_large_delta)  # read at n's check, checked here whatever delta is
        relation, _ = neighbour_relation(neighbours, delta, n_public, self.allow_large_delta)
        if relation is Neighbours.ADD_REMOVE and lam > 0:
            raise InputError("lam > 0 scales the ridge by n, which add-remove keeps private; use lam=0 "
                             "(AdaSSP's adaptive ridge needs no n)")
        standardised = check_flag("column_statistics", self.column_statistics)
        mechanism = self._mechanism()
        gradient: bool | str = mechanism == "gradient"
        if gradient:
            ranged: bool | str = self._refuse_for_gradient(X, relation, standardised, lam)
        else:
            ranged = self._ranges_setting(X, relation, standardised)
            if standardised or ranged is True:
                self._refuse_for_statistics(X, relation, "column_ranges=True (DPLinearRegression: column_statistics="
                                            "'ranges')" if ranged else "column_statistics=True")
            if mechanism == "auto" and ranged is not False and lam == 0:  # the ranges searched as the descent needs
                gradient = "auto"  # per fit: where a range is searched at its n (AdaSSPPlan.descends_at)
        self._rows(None if not self._auto_scaling else 1.0)  # the bounds and the intercept's settings
        self._label_bound()
        fraction("failure_probability", self.failure_probability)
        check_flag("clip", self.clip)
        return epsilon, delta, relation, lam, standardised, ranged, gradient

    def check_options(self, epsilon: float, delta: float = 0.0, *, neighbours: Neighbours | str = "replace-one",
                      n_public: int | None = None, random_state: RandomState = None,
                      sample_weight: None = None) -> None:
        """Raise the error :meth:`fit` would raise for these options before it reads any data, charging and drawing
        nothing: weights (refused), the budget, the settings and the neighbour relation (:meth:`_checked`),
        ``random_state``. For a caller that holds the options before the data (:func:`dpcvx.as_opendp_measurement`);
        :meth:`plan` checks the data too (delta below 1/n among them: n is the data's)."""
        refuse_weights(type(self).__name__, sample_weight=sample_weight)
        self._checked(None, epsilon, delta, neighbours, n_public)
        resolve_rng(random_state)

    @float_errors_ignored
    def fit(self, X: Any, y: Any, epsilon: float, delta: float = 0.0, *, neighbours: Neighbours | str = "replace-one",
            n_public: int | None = None, random_state: RandomState = None,
            accountant: PrivacyAccountant | None = None, sample_weight: None = None) -> PrivateRegressionModel:
        """Release an (epsilon, delta)-DP least-squares model of (X, y) (delta > 0).

        AdaSSP is a Gaussian mechanism: delta = 0 (the default, as every learner's; a call without delta meets the
        refusal, not a missing argument) is refused with the pure-epsilon options named
        (:data:`PURE_EPSILON_OPTIONS`). ``neighbours="add-remove"`` needs ``n_public``, a public data-set size
        chosen without looking at the data, below whose inverse delta must lie (AdaSSP's noise reads no n).
        ``sample_weight`` other than None is refused (:func:`dpcvx.validation.refuse_weights`). :meth:`plan`, then
        the plan executed; then the release's predictions on its training rows are checked (NOT PRIVATE,
        :func:`~dpcvx.models.training_rows.warn_on_learner_fit`)."""
        check_accountant(accountant)
        resolve_rng(random_state)  # refused before any data is read, as every learner's fit refuses it
        names = feature_names(X)  # a table's column names, kept by the release (mixed types refused before the charge)
        plan, bound = self._planned(X, y, epsilon, delta, neighbours, n_public, sample_weight)
        released = named(plan.execute(bound, random_state, accountant), names)
        warn_on_learner_fit(type(self).__name__, released, X, y)  # NOT PRIVATE: its training rows
        return released

    def _ranges_setting(self, X: Any, relation: Neighbours, standardised: bool) -> bool | str:
        """``column_ranges`` checked: True, False, or "auto" when the search is offered for X (replace-one, dense
        rows in memory or a numpy.memmap, clip=True, no column statistics; n is read per fit), else False."""
        setting = self._ranges_option()
        if setting == "auto":
            offered = (relation is Neighbours.REPLACE_ONE and not standardised and check_flag("clip", self.clip)
                       and not is_dask(X) and not sparse.issparse(X))
            return "auto" if offered else False
        if setting and standardised:
            raise InputError("column_statistics and column_ranges are two maps; pass one. Nothing was charged")
        return setting

    def _refuse_for_statistics(self, X: Any, relation: Neighbours, setting: str) -> None:
        """``setting``: column_statistics=True, column_ranges=True or mechanism='gradient' (which searches the
        ranges): replace-one (n public), dense rows (the column sums in memory, the ranges in memory or a
        numpy.memmap, read by blocks), clip=True; before any charge. ``X`` None (no data yet: :meth:`check_options`)
        passes the rows' conditions, which :meth:`fit` checks on its rows."""
        if relation is not Neighbours.REPLACE_ONE:
            raise InputError(f"{setting} is offered under replace-one neighbours (n public: the map divides by "
                             "it). Nothing was charged")
        ranges = setting != "column_statistics=True"  # searched by row blocks; the column sums read rows in memory
        if sparse.issparse(X) or is_dask(X) or not ranges and is_out_of_core(X):
            readable = "in memory or a numpy.memmap" if ranges else "in memory"
            # the input's kind, as the column statistics' refusal (models.column_statistics) and every entry's
            raise InputTypeError(f"{setting} needs dense rows {readable} (centring fills a sparse matrix; a Dask "
                                 "X's chunks are not read by the draw). Nothing was charged")
        if not check_flag("clip", self.clip):
            raise InputError(f"{setting} clips the mapped rows onto R; clip=False would refuse rows after the "
                             "charge, so it is refused now. Nothing was charged")

    def _refuse_for_gradient(self, X: Any, relation: Neighbours, standardised: bool, lam: float) -> bool | str:
        """mechanism='gradient''s settings: private ranges searched (``column_ranges`` True or "auto", no column
        statistics), lam = 0, and :meth:`_refuse_for_statistics`'s conditions; before any charge. The plan's
        ``ranged``: True (every column's range) or "auto" (every column's, else the label's alone, at the fit's n:
        :meth:`AdaSSPPlan.ranges_at`; n is checked per fit: :meth:`AdaSSPPlan.bind`)."""
        setting = self._ranges_option()
        if standardised or setting is False:
            raise InputError("mechanism='gradient' runs on the rows and labels mapped by private ranges (of every "
                             "column and the label, or of the label alone): pass column_ranges=True or 'auto' "
                             "(DPLinearRegression: column_statistics='auto' or 'ranges') and column_statistics=False, "
                             "or use mechanism='adassp'. Nothing was charged")
        if lam > 0:
            raise InputError("lam > 0 (an extra ridge) is offered with mechanism='adassp'; mechanism='gradient' "
                             "takes none: use lam=0. Nothing was charged")
        self._refuse_for_statistics(X, relation, "mechanism='gradient'")
        return setting

    def _clipped_rows(self, X: Any, y: Any) -> tuple[np.ndarray | RowBlocks, np.ndarray, int]:
        """(the rows clipped onto R without the constant feature, the checked labels, n): a memmap's rows as row blocks
        clipped as each is read (checked here in one pass, never held whole); the labels checked once, as a 1-D float
        vector (the caller's float64 array itself, or its flat view: a column vector is one label a row), not yet
        clipped; the clipping warnings given once."""
        norm = check_bound("data_norm", self.data_norm)
        clipped: np.ndarray | RowBlocks
        row_map = RowMap(norm_bound=norm)
        if is_out_of_core(X):  # a memmap: a Dask X is not searched (_ranges_setting, _refuse_for_statistics)
            clipped = RowBlocks(X, row_map, block_rows=max(1, VALUE_BLOCK // (X.shape[1] + 1)))
            count = clipped.validate(refuse=False)
        else:
            rows, count = row_map.apply(X)
            clipped = np.asarray(rows)
        n = clipped.shape[0]
        label_bound = self._label_bound()
        labels, _, clipped_labels = target_values(y, n, label_bound, False)
        if count:
            warn_clipped_rows(count, n, row_map, clipped)
        if clipped_labels:
            warn_clipped(label_clipping_note(clipped_labels, n, label_bound, label_codes(labels, label_bound)))
        return clipped, labels, n

    def fit_nonprivate(self, X: Any, y: Any) -> LinearRegressionModel:
        """Least squares (with the ridge n Lam) on the clipped data: NOT private, a baseline."""
        rows, gram, moment, n = self._statistics(X, y)
        theta = np.linalg.lstsq(gram + n * self._lam() * np.eye(gram.shape[0]), moment,
                                rcond=None)[0]
        return LinearRegressionModel(*rows.split_weights(theta), rows)


def too_wide(dim: int, sparse_rows: bool = False) -> str | None:
    """The :class:`~dpcvx.exceptions.CostWarning` of a PrivateLinearRegression fit of ``dim`` weights (the columns,
    plus the intercept), or None within :data:`WIDEST`: public facts only (the width, and whether X is sparse), said
    before any statistic is computed or anything charged."""
    if dim <= WIDEST:
        return None
    gb = 8 * dim * dim / 1e9
    sparse_note = (" A sparse X is no cheaper here: X^T X is a dense matrix of that size." if sparse_rows else "")
    return (f"a private linear regression of {dim:,} weights (columns, plus the intercept) holds {dim:,} x {dim:,} "
            f"matrices of doubles ({gb:.3g} GB each: the Gram matrix X^T X, AdaSSP's noise, the eigendecomposition's "
            f"copy) and decomposes one in time cubic in the width, slow above {WIDEST:,} weights "
            f"(dpcvx.models.linear_regression.WIDEST; a fit of 20,000 columns had not finished after 10 minutes)."
            f"{sparse_note} Fixes: fewer columns, chosen without reading the private rows (a public selection, "
            "feature hashing or a public random projection to at most "
            f"{WIDEST - 1:,} columns); for a label of classes, DPLogisticRegression fits sparse rows of this width "
            "without a d x d matrix. Nothing is charged yet: interrupting now spends nothing")


def _centred_labels(labels: np.ndarray, public: float, shift: float, bound: float) -> np.ndarray:
    """The labels a ranged fit reads, as a new array: clipped onto the public [-B, B] (as every path clips a label),
    moved by the private centre c (``shift``), then clipped onto [-B', B'] (``bound``, the released B')."""
    centred = np.clip(labels, -public, public)
    centred -= shift
    return np.clip(centred, -bound, bound, out=centred)


def _range_values(clipped: np.ndarray | RowBlocks, y: Any, label_bound: float,
                  features: bool) -> np.ndarray | ValueBlocks:
    """The values of the searches: the rows clipped onto R beside the labels clipped onto the public [-B, B]
    (``features``), or the labels alone. A memmap's (``clipped`` its :class:`~dpcvx.data.blocks.RowBlocks`) by row
    blocks (:class:`~dpcvx.privacy.column_ranges.ValueBlocks`), each block's rows and labels clipped as it is read
    (each row's factor a function of that row alone, each label's clip of that label: the values of the rows in
    memory), with no whole copy of either."""
    labels = np.asarray(y, dtype=float)
    if isinstance(clipped, np.ndarray):
        clipped_labels = np.clip(labels, -label_bound, label_bound)
        return np.column_stack([clipped, clipped_labels]) if features else clipped_labels[:, None]
    n, d = clipped.shape

    def read() -> Iterator[np.ndarray]:
        if not features:
            step = VALUE_BLOCK
            yield from (np.clip(labels[a:a + step], -label_bound, label_bound)[:, None] for a in range(0, n, step))
            return
        for start, block, _ in clipped.blocks():
            yield np.column_stack([block, np.clip(labels[start:start + block.shape[0]], -label_bound, label_bound)])

    return ValueBlocks(n, d + 1 if features else 1, read)


class _Bound(NamedTuple):
    """A plan bound to one data set, every check passed: what its execution reads (never released)."""

    X: Any
    y: Any
    n: int
    rows: RowMap
    calibration: AdaSSPCalibration | GradientCalibration
    statistics: tuple[np.ndarray, np.ndarray] | None  # plain AdaSSP: X^T X and X^T y of the mapped rows
    clipped: np.ndarray | RowBlocks | None  # with a map: the rows clipped onto R (a memmap's by blocks; the statistics
    # follow the draw)
    level: float | None = None  # with private ranges: the search's public level at n


@dataclass(frozen=True)
class AdaSSPPlan:
    """One AdaSSP fit planned from public inputs and checked (:meth:`PrivateLinearRegression.plan`): public values
    only. :meth:`calibrate` makes the calibration once per public intercept scale (once per n under
    ``intercept_scaling="auto"``, else once); :meth:`fit` executes the plan on rows of ``width`` columns; with
    column statistics the released map is bound per fit (the draw's one late-bound part).

    Attributes
    ----------
    learner : the learner whose settings and ``calibrate`` hook the plan reads
    epsilon, delta, relation : the checked budget and neighbour relation
    lam : the checked extra ridge
    standardised : whether the fit first releases column statistics (mechanism ``adassp-standardised``)
    width : the number of input columns
    ranged : whether the fit first searches private ranges (mechanism ``adassp-ranged``): True, False, or "auto"
        (when the search's level at the fit's n is defined: :meth:`ranges_at`)
    gradient : whether the fit descends noisy gradients on the mapped rows instead of AdaSSP's release (mechanism
        ``gradient-ranged``): True (then ``ranged`` is True or "auto", and a fit of n rows too few for the label's
        search is refused: :meth:`bind`), "auto" (each fit that searches a range descends, the others release
        AdaSSP's statistics: :meth:`descends_at`), or False
    """

    learner: PrivateLinearRegression
    epsilon: float
    delta: float
    relation: Neighbours
    lam: float
    standardised: bool
    width: int
    ranged: bool | str = False
    gradient: bool | str = False
    _calibrations: dict[tuple[float, int, int, float], tuple[RowMap, AdaSSPCalibration | GradientCalibration]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    @property
    def classes(self) -> None:
        """A regression has no classes (:class:`~dpcvx.models.contract.Plan`)."""
        return None

    @property
    def dim(self) -> int:
        """The released weights' number: the width, plus the intercept."""
        return self.width + (1 if self.learner.fit_intercept else 0)

    def scaling(self, n: int) -> float:
        """The constant feature's public scale s of a fit of n rows: the learner's number, or under "auto" AdaSSP's
        rule at (epsilon, delta, d, R, rho, n) under replace-one and 1 under add-remove (n private, not read); the
        descent's R / sqrt(d) with ``gradient`` (:func:`~dpcvx.privacy.gradient_descent.gradient_intercept_scaling`)."""
        learner = self.learner
        if not learner._auto_scaling:
            return learner._scaling()
        if not learner.fit_intercept or self.relation is not Neighbours.REPLACE_ONE:
            return 1.0
        if self.descends_at(n):  # the descent's rule: the intercept's eigenvalue of the order of a mapped column's
            return gradient_intercept_scaling(check_bound("data_norm", learner.data_norm), self.width)
        return adassp_intercept_scaling(self.epsilon, self.delta, dim=self.dim,
                                        data_norm=check_bound("data_norm", learner.data_norm), n=n,
                                        failure_probability=learner.failure_probability,
                                        column_statistics=self.standardised, range_columns=self.ranges_at(n))

    def ranges_at(self, n: int) -> int:
        """The number of columns whose private ranges a fit of n rows searches first: every column and the label
        (width + 1) when set, or under "auto" when the search's public level at n is defined for them; else, under
        "auto", the label's alone (1) when its level is defined (docs/theory.md section 16, "the label's range
        alone"); else 0 (:func:`~dpcvx.privacy.adassp.range_search_level`: epsilon, delta, the width and n)."""
        every = self.width + 1
        if self.ranged != "auto":
            return every if self.ranged is True else 0
        for columns in (every, 1):
            if range_search_level(self.epsilon, self.delta, columns=columns, n=n) is not None:
                return columns
        return 0

    def descends_at(self, n: int) -> bool:
        """Whether a fit of n rows descends noisy gradients (mechanism ``gradient-ranged``) rather than releasing
        AdaSSP's statistics: always with ``mechanism="gradient"``; under "auto" (DPLinearRegression's default) exactly
        when it searches a private range first (:meth:`ranges_at` > 0: every column's or the label's alone), the plan's
        other settings allowing the descent (:meth:`PrivateLinearRegression.plan`); else never. The one rule of the
        choice: the fit's calibration, its certificate's mechanism and the intercept's scale read it (public: the
        settings, epsilon, delta, the width and n)."""
        return self.gradient is True or (self.gradient == "auto" and self.ranges_at(n) > 0)

    def calibrate(self, n: int) -> tuple[RowMap, AdaSSPCalibration | GradientCalibration]:
        """(the row map, the calibration) of a fit of n rows, computed once per intercept scale s, search and number
        of descent steps and momentum (all public)."""
        scale, ranges = self.scaling(n), self.ranges_at(n)
        descends = self.descends_at(n)
        steps = descent_steps(n, self.epsilon, self.width) if descends else 0
        momentum = descent_momentum(n, self.epsilon, self.width) if descends else 0.0
        if (scale, ranges, steps, momentum) not in self._calibrations:  # "auto": the descent follows the ranges
            rows = self.learner._rows(scale)
            searched: dict[str, Any] = {"ranges": ranges} if ranges else {}  # a hook without ``ranges`` still serves
            if self.gradient == "auto":
                searched["gradient"] = descends
            if steps:
                searched["steps"] = steps
            if momentum:
                searched["momentum"] = momentum
            with public_arithmetic(epsilon=self.epsilon, delta=self.delta, d=self.dim):
                self._calibrations[scale, ranges, steps, momentum] = rows, self.learner.calibrate(
                    self.epsilon, self.delta, self.dim, self.relation, rows, **searched)
        return self._calibrations[scale, ranges, steps, momentum]

    @float_errors_ignored
    def bind(self, X: Any, y: Any) -> _Bound:
        """The checks of a fit on (X, y), nothing charged or drawn: the width, the rows and labels (clipped or
        refused), delta below 1/n (replace-one), the calibration at n; plain AdaSSP's statistics computed. The
        clipping counts are shown once every check has passed (:func:`~dpcvx.data.notes.checks_then_notes`)."""
        with checks_then_notes():
            return self._bound(X, y)

    def _bound(self, X: Any, y: Any) -> _Bound:
        """:meth:`bind`'s checks."""
        rows_in, width = matrix_shape(X)
        if width != self.width:
            raise InputError(f"this plan is for rows of {self.width} columns, got {width}: plan again for these "
                             "columns")
        ranges = self.ranges_at(rows_in)
        if self.gradient is True and not ranges:  # too few rows for the label's search: no map to descend on
            raise InputError(f"mechanism='gradient': {rows_in} rows are too few for the search of the label's range "
                             f"at epsilon {self.epsilon:g} and delta {self.delta:g} (it needs n >= "
                             f"{label_search_rows(self.epsilon, self.delta)}), and noisy gradient descent at the "
                             "public label bound is not offered; mechanism='adassp' fits with no search. Nothing was "
                             "charged")
        cost = too_wide(self.dim, sparse.issparse(X))
        if cost is not None:
            warnings.warn(cost, CostWarning, stacklevel=2)
        rows, calibration = self.calibrate(rows_in)
        learner, statistics, clipped, level = self.learner, None, None, None
        if self.standardised or ranges:  # later steps read the checked 1-D labels, never the caller's y as given
            clipped, y, n = learner._clipped_rows(X, y)
        else:
            _, gram, moment, n = learner._statistics(X, y, rows)
            statistics = gram, moment
        if self.relation is Neighbours.REPLACE_ONE:  # n is public (under add-remove it is not, and is not read)
            check_delta_for_n(self.delta, n, learner.allow_large_delta)
        if ranges:
            level = calibration.range_level(n)
            if level is None:
                setting, fix = (("mechanism='gradient'", "; column_ranges='auto' (DPLinearRegression: "
                                 "column_statistics='auto') searches the label's range alone at fewer rows") if
                                self.gradient is True else
                                ("column_ranges=True (DPLinearRegression: column_statistics='ranges')", ""))
                raise InputError(f"{setting}: {n} rows are too few for the range search's noise at epsilon "
                                 f"{self.epsilon:g} (its level would exceed {HIGHEST_LEVEL}; "
                                 f"dpcvx.privacy.column_ranges.range_level){fix}. Nothing was charged")
        return _Bound(X, y, n, rows, calibration, statistics, clipped, level)

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: RandomState = None, accountant: PrivacyAccountant | None = None,
            sample_weight: None = None) -> PrivateRegressionModel:
        """Execute the plan on (X, y): check, then charge ``accountant`` once, draw, release. A refused call
        spends nothing."""
        refuse_weights(type(self.learner).__name__, sample_weight=sample_weight)
        check_accountant(accountant)
        released = self.execute(self.bind(X, y), random_state, accountant)
        warn_on_learner_fit(type(self.learner).__name__, released, X, y)  # NOT PRIVATE: its training rows
        return released

    @float_errors_ignored
    def execute(self, bound: _Bound, random_state: RandomState,
                accountant: PrivacyAccountant | None) -> PrivateRegressionModel:
        """Charge, draw and release on data :meth:`bind` has checked."""
        rows, calibration, n, ranged = bound.rows, bound.calibration, bound.n, bound.level is not None
        rng = resolve_rng(random_state)
        if accountant is not None:
            method = "noisy gradient descent" if isinstance(calibration, GradientCalibration) else "AdaSSP"
            accountant.spend(self.epsilon, self.delta, description=f"PrivateLinearRegression.fit "
                             f"({method}{' with private column statistics' if self.standardised else ''}"
                             f"{' with private ranges' if ranged else ''}, {self.relation})",
                             curve=calibration.privacy_curve(self.epsilon, self.delta), neighbours=self.relation)
        record, shift = None, 0.0
        if ranged:  # the ranges, then their maps, then AdaSSP or the descent
            rows, shift, label_bound, record = self._ranged_map(bound, rng)
            calibration = replace(calibration, label_bound=label_bound)
            if isinstance(calibration, GradientCalibration):
                theta = _descend(bound, rows, calibration, shift, rng, type(self.learner).__name__)
                model = PrivateRegressionModel(*rows.split_weights(theta), rows, self._certificate(
                    calibration, rows, record, NoiseSource.of(random_state)))
                return model.shifted(shift)  # the private label centre: post-processing
            rows, gram, moment, n = self.learner._statistics(bound.X, bound.y, rows, quiet=True,
                                                             label_bound=label_bound, shift=shift)
        elif bound.clipped is not None:  # the column statistics, then the map they give (post-processing), then AdaSSP
            assert isinstance(bound.clipped, np.ndarray)  # the column sums read rows in memory (_refuse_for_statistics)
            assert isinstance(calibration, AdaSSPCalibration)  # mechanism='gradient' takes no column statistics
            released = calibration.release_column_moments(bound.clipped, rng)
            rows = replace(rows, feature_map=adassp_map(released, calibration, rows.norm_bound, n))
            rows, gram, moment, n = self.learner._statistics(bound.X, bound.y, rows, quiet=True)
            record = {"n": n, "spread": COLUMN_SPREAD, "sums": released.tolist()}
        else:
            assert bound.statistics is not None
            gram, moment = bound.statistics
        assert isinstance(calibration, AdaSSPCalibration)  # the descent returned above
        certificate = self._certificate(calibration, rows, record, NoiseSource.of(random_state))
        mass = n * rows.intercept_scaling**2 if self.relation is Neighbours.REPLACE_ONE else None  # n s^2: public
        theta = calibration.release(gram, moment, rng, extra_ridge=n * self.lam, intercept=rows.fit_intercept,
                                    intercept_mass=mass)
        model = PrivateRegressionModel(*rows.split_weights(theta), rows, certificate)
        return model.shifted(shift) if shift else model  # the private label centre: post-processing

    def _ranged_map(self, bound: _Bound, rng: np.random.Generator) -> tuple[RowMap, float, float, dict]:
        """The private ranges searched (the calibration's count sigma at the bound's level), and what they give
        (post-processing with public d, R, B and the level): (the row map, with the features' range map unless the
        label's range alone was searched; the label centre c; its bound B'; the certificate's record)."""
        rows, calibration = bound.rows, bound.calibration
        assert bound.level is not None and bound.clipped is not None  # bind: the ranges' level and clipped rows
        public_bound = calibration.label_bound
        features = calibration.range_columns > 1  # else the label's range alone; the rows keep the public map
        ranges = release_ranges(_range_values(bound.clipped, bound.y, public_bound, features),
                                np.append(np.full(self.width if features else 0, rows.norm_bound), public_bound),
                                bound.level, calibration.count_sigma, rng)
        shift, label_bound = label_range(ranges[:, -1:], bound.level, public_bound)
        if features:
            rows = replace(rows, feature_map=range_map(ranges[:, :-1], bound.level, rows.norm_bound))
            if not checks_are_off():  # NOT PRIVATE, for the data owner: never inside tune; range_map's least width
                warn_unresolved_columns(bound.clipped, ranges[:, :-1],
                                        2 * least_half_width(rows.norm_bound, FLOOR_CELLS, SEARCH_DEPTH),
                                        rows.norm_bound, "DPLinearRegression")
        record = {"n": bound.n, "level": bound.level, "label_bound": public_bound, "ranges": ranges.tolist()}
        return rows, shift, label_bound, record

    def _certificate(self, calibration: AdaSSPCalibration | GradientCalibration, rows: RowMap,
                     record: dict | None, noise_source: NoiseSource) -> SufficientStatisticsCertificate:
        """The release's certificate: the mechanism and theorem of the fit, its calibration (at the released B' when
        ranges were searched), the public bounds, the record of the released map (``record``) and where the noise
        came from (``noise_source``, of the fit's ``random_state``)."""
        mechanism, guarantee = sufficient_statistics_statement(calibration)
        return SufficientStatisticsCertificate(
            mechanism=mechanism, guarantee=guarantee,
            epsilon=self.epsilon, delta=self.delta, calibration=calibration, data_norm=rows.norm_bound,
            effective_norm_bound=rows.effective_norm_bound,
            label_bound=check_bound("label_bound", self.learner.label_bound),
            fit_intercept=rows.fit_intercept, intercept_scaling=rows.intercept_scaling,
            clipping=BOUNDS_CLIPPED if self.learner.clip else NOT_CLIPPED,
            neighbours=RELATIONS[calibration.neighbours], library_version=__version__, column_statistics=record,
            noise_source=noise_source)


def _descend(bound: _Bound, rows: RowMap, calibration: GradientCalibration, shift: float,
             rng: np.random.Generator, owner: str) -> np.ndarray:
    """Noisy gradient descent on clipped residuals (:mod:`dpcvx.privacy.gradient_descent`, steps 1-4) on the rows
    ``rows`` maps (clipped onto R_eff, the intercept column appended) and the labels y - c clipped onto [-B', B']
    (B' the calibration's label bound): the noisy top eigenvalue sets the curvature Lambda, then T steps
    w <- v - (Z^T clip(Z v - y', +-tau) + noise) / Lambda from w = 0 at v = w + beta (w - w_previous) (the
    calibration's momentum beta; v = w without it), then (with the level) the intercept weight moves
    by S_hat / (n s), S_hat the noisy sum of y' - clip(Z w, +-B') and s the intercept column's value. A memmap's rows
    are mapped once, by row blocks, into a temporary file whose blocks every pass reads (:meth:`RowBlocks.mapped_copy`;
    mapped on every pass, the same blocks and sums, where it cannot be written: a 200,000 x 20 file's fit took 10
    times the in-memory one's); rows in memory once. The calibration draws each noisy value (rounded to its grid)."""
    if isinstance(bound.clipped, RowBlocks):
        mapped_blocks = RowBlocks(bound.X, rows).mapped_copy()

        def blocks() -> Iterator[tuple[int, np.ndarray]]:
            return ((start, block) for start, block, _ in mapped_blocks.blocks())
    else:
        mapped = np.asarray(rows.apply(bound.X)[0])

        def blocks() -> Iterator[tuple[int, np.ndarray]]:
            return iter(((0, mapped),))
    public, clip = bound.calibration.label_bound, calibration.label_bound  # B (bind's), B'
    # a memmap's labels are centred a block at a time on every pass (an n-vector of them was 0.1 of a 1,000,000 x 10
    # file): the same values, elementwise
    centred = None if isinstance(bound.clipped, RowBlocks) else _centred_labels(bound.y, public, shift, clip)
    dim, tau = calibration.dim, calibration.residual_clip

    def labels(start: int, block: np.ndarray) -> np.ndarray:
        these = slice(start, start + block.shape[0])
        return _centred_labels(bound.y[these], public, shift, clip) if centred is None else centred[these]

    checked = not checks_are_off()  # NOT PRIVATE, for the data owner (never inside tune): descent_reach's sums
    gram, moment, square, label_sum = np.zeros((dim, dim)), np.zeros(dim), 0.0, 0.0
    for start, block in blocks():
        gram += block.T @ block
        if checked:
            these = labels(start, block)
            moment += block.T @ these
            square, label_sum = square + float(these @ these), label_sum + float(np.sum(these))
    curvature = calibration.curvature(calibration.release_eigenvalue(float(np.linalg.eigvalsh(gram)[-1]), rng),
                                      bound.n)

    weights = previous = np.zeros(dim)
    beta = calibration.momentum
    for _ in range(calibration.steps):
        point = weights + beta * (weights - previous) if beta else weights  # heavy-ball: released w's only
        gradient = np.zeros(dim)
        for start, block in blocks():
            gradient += block.T @ np.clip(block @ point - labels(start, block), -tau, tau)
        previous, weights = weights, point - calibration.release_gradient(gradient, rng) / curvature
    if calibration.level:  # step 4: each residual in [-2B', 2B'] (the level's sensitivity 4B')
        total = math.fsum(float(np.sum(labels(start, block) - np.clip(block @ weights, -clip, clip)))
                          for start, block in blocks())
        weights[-1] += calibration.release_level(total, rng) / (bound.n * rows.intercept_scaling)
    width = calibration.dim - (1 if rows.fit_intercept else 0)
    if checked and reach_checked(bound.n, calibration.epsilon, width):  # after every draw; a public gate on
        # n eps / d (descent_reach.REACH_AT)
        warn_descent_shortfall(descent_shortfall(gram, moment, square, label_sum, bound.n, curvature,
                                                 calibration.steps, calibration.momentum,
                                                 rows.intercept_scaling if rows.fit_intercept else None),
                               speaker(owner), width,
                               clip / public if bound.level is not None else None)  # B' / B: released, public
    return weights
