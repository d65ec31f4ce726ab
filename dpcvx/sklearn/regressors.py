"""scikit-learn regressors: DPLinearRegression (AdaSSP) and DPHuberRegressor (objective or output perturbation).

Both follow scikit-learn's regressor contract (``fit``, ``predict``, ``score``
as R^2; every parameter has a default) and take the data contract as
parameters: ``data_norm`` (public bound R on ||x||, default 1 for rows scaled by a
:class:`~dpcvx.PublicSchema`) and ``label_bound``: a public bound B on |y| (default 1),
or a public range ``(lo, hi)`` as diffprivlib's ``bounds_y``. A range is centred by the
public shift c = (lo + hi) / 2: the learner fits y - c with B = (hi - lo) / 2, and the
released intercept adds c back (post-processing of a public constant, so the guarantee
is that of the centred fit; ``certificate.label_bound`` is that B). Rows beyond R and
labels beyond the bounds are scaled onto them (``clip=True``, with a
:class:`~dpcvx.ClippingWarning` that gives the count and the fix) or refused. The bounds
are never read off the data.

Sparse rows: a scipy.sparse X (CSR, CSC, ..., or a pandas DataFrame of sparse columns) is fitted as a CSR, as
the classifiers fit it, and ``predict`` and ``score`` take it. The release is the dense fit's with the same seed,
wherever the fit takes the same mechanism: AdaSSP's bit for bit, a solver's to its tolerance (the last digits: a
sparse product rounds otherwise). The private ranges (``column_statistics`` "ranges" or True,
``mechanism="gradient"``) centre the columns, which fills a sparse matrix: they refuse a sparse X with
:class:`~dpcvx.exceptions.InputTypeError` naming the setting, before any charge. Under ``column_statistics="auto"``
a sparse X draws none, as a Dask X draws none (X's kind is public): where dense rows of the same n would search the
label's range, the fit takes the mechanism without it and warns that the label was not located. AdaSSP's statistics
are d x d dense matrices for a sparse X too: a DPLinearRegression (AdaSSP or the descent) of more than
:data:`dpcvx.models.linear_regression.WIDEST` weights (columns plus the intercept) warns
:class:`~dpcvx.exceptions.CostWarning` before any charge, with the memory it will hold and the alternatives (a sparse
100,000 x 20,000 fit had not finished after 10 minutes).

Pure epsilon: :class:`DPHuberRegressor` is pure epsilon by default. For
:class:`DPLinearRegression`, ``delta=0`` with a public ``weight_bound`` selects objective
perturbation on the ball ||w|| <= W (pure epsilon); without ``weight_bound`` the refusal
names the pure options. When the expected noise dominates (public quantities only) a
:class:`~dpcvx.sklearn.noise_warning.NoiseDominatesWarning` points at the line that called ``fit``; its advice on
lam names only lam="auto": the value of the public rule for objective and output perturbation, and for
AdaSSP nothing (AdaSSP chooses its own ridge; an extra one raised the test MSE on real tables,
benchmarks/results/warning_advice.md). :class:`DPHuberRegressor` takes ``sample_weight`` with the public
``sample_weight_bound`` (docs/theory.md, section 21); :class:`DPLinearRegression` refuses it with
:class:`~dpcvx.exceptions.UnsupportedWeightsError` (AdaSSP's statistics are calibrated for unit weights).

- :class:`DPLinearRegression`: least squares. It is not Lipschitz, so the ERM theorems
  do not cover it without a bound on w. Three mechanisms handle it: AdaSSP (Wang 2018),
  whose three releases are calibrated jointly as one Gaussian mechanism
  (:mod:`dpcvx.privacy.adassp`), noisy gradient descent on clipped residuals on rows and a label mapped by private
  ranges (``mechanism="gradient"``, :mod:`dpcvx.privacy.gradient_descent`), and objective perturbation on the ball
  ||w|| <= W (``mechanism="objective"``, ``weight_bound=W``; KST12 with L = W R + B, docs/theory.md section 16).
  ``mechanism="auto"`` (the default) descends wherever the fit searches a private range first (mechanism
  "gradient-ranged"): under replace-one, for dense rows (in memory or a numpy.memmap), clip=True, lam "auto" or 0,
  ``column_statistics`` "auto" or "ranges", and enough rows for the search's noise, every column's and the label's
  ranges, or with too few rows for every column's search but enough for the label's, the label's range alone (the
  rows keep their public map), searched in the same joint Gaussian; on the held-out tables of
  benchmarks/gradient_regression.py it recovered more of the gap than AdaSSP in every cell at epsilon 0.3 and 1
  (benchmarks/results/gradient_regression_held_out.md). Elsewhere AdaSSP, as before: on columns and a label
  mapped by private ranges (mechanism "adassp-ranged") when the settings allow the ranges but not the descent
  (lam > 0), plain AdaSSP with fewer rows than the label's search needs (and a
  :class:`~dpcvx.sklearn.noise_warning.NoiseDominatesWarning` that the label was not located: the descent at the
  public label bound was far worse than AdaSSP there) or under settings that search no range. The rule is public
  (the settings, epsilon, delta, d and n) and made per fit
  (:meth:`~dpcvx.models.linear_regression.AdaSSPPlan.descends_at`); the certificate names the mechanism.
  ``mechanism="adassp"`` keeps AdaSSP (with ranges under ``column_statistics="auto"``) at every n.
- :class:`DPHuberRegressor`: the Huber loss of the residual (``m`` its threshold;
  L = m, c = 1), through :class:`~dpcvx.models.erm.PrivateERM` with ``task="regression"``.
  It is piecewise C^2, which the Gaussian objective perturbation does not cover.
  ``mechanism="auto"`` therefore uses pure-epsilon objective perturbation whatever delta
  is: epsilon-DP implies (epsilon, delta)-DP, and it needs far less noise than output
  perturbation here. The certificate then states delta = 0. Under ``neighbours="add-remove"``
  (``n_public`` the public size) the pure-epsilon mechanisms are not derived, so "auto" is the
  Gaussian output perturbation at the given delta > 0 (C^1 suffices). By default
  (``column_statistics="auto"``, when a public rule of n and epsilon allows it) the fit first draws private
  ranges of the columns and of the label (noisy histograms, pure epsilon, one charge; docs/theory.md
  section 34.1) and fits at the label's released bound B'.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

import numpy as np
from scipy import sparse

from ..exceptions import float_errors_ignored
from ..version import SCIKIT_LEARN_MINIMUM, dependency_error

try:
    from sklearn.base import RegressorMixin
    from sklearn.utils.validation import validate_data
except ImportError as error:  # as in dpcvx.sklearn.classifiers
    raise dependency_error(error, "scikit-learn", SCIKIT_LEARN_MINIMUM, "sklearn", "the dpcvx estimators") from error

from .. import losses
from ..advice import flag_text, huber_auto, huber_without_search, setting
from ..data.blocks import is_dask, is_out_of_core, public_shape
from ..data.notes import columns_named, input_column_names
from ..data.standardiser import histogram_label_range
from ..exceptions import InputError
from ..models.column_statistics import (
    REGRESSION_SHARE,
    StandardisedPlan,
    label_range_offered,
    label_range_rows,
    plan_column_statistics,
)
from ..models.erm import PrivateERM, verdict_in_plan
from ..models.erm_inputs import (
    PRIVATE,
    SETTINGS,
    check_settings,
    column_statistics_option,
    is_private,
    neighbour_relation,
)
from ..models.fit_plan import FitPlan
from ..models.linear_regression import PURE_EPSILON_OPTIONS, PrivateLinearRegression
from ..models.private_norm import NORM_SHARE
from ..models.record_weights import require_weight_bound
from ..models.training_rows import left_to_caller, warn_on_regression_fit
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.adassp import label_search_rows
from ..privacy.column_histogram import LABEL_LOCATED_DEPTH
from ..privacy.neighbours import Neighbours
from ..privacy.rng import check_estimator_seed
from ..release.input_record import HoldsNoInput
from ..release.model import ReleaseCertificate, named
from ..release.range_clip import said_as
from ..release.regression_model import PrivateRegressionModel, SufficientStatisticsCertificate, r2_score
from ..release.usefulness import called
from ..validation import (
    Check,
    check_bound,
    check_choice,
    check_delta,
    check_delta_for_n,
    check_epsilon,
    check_flag,
    check_lam,
    check_parameters,
    declared_label_range,
    fraction,
    label_range,
    optional,
    or_literal,
    positive,
    refuse_non_number_targets,
    refuse_weights,
    sample_size,
)
from ..verification.verdict import Mechanism
from .adassp_warning import warn_if_adassp_noise_dominates
from .estimator_plan import EstimatorPlan, LearnerPlan, PlansFirst, ShapedPlan
from .inputs import (
    NamedParameters,
    check_fitted,
    check_shapes,
    fit_accountant,
    keep_feature_names,
    keep_parameters,
    refuse_unusable_table,
    scikit_learn_refusal,
    type_refusal,
    unnamed,
    validate_streamed,
    validated_input,
)
from .noise_warning import (
    gaussian_delta,
    label_not_located,
    label_unresolved_text,
    lam_rule_advice,
    ranges_share_text,
    sample_weight_bound,
    warn_if_noise_dominates,
    warn_if_small_table,
)

__all__ = ["DPLinearRegression", "DPHuberRegressor"]

MECHANISMS = ("auto", "adassp", "objective", "gradient")
#: m / B of DPHuberRegressor(m="auto"): the Huber threshold at a quarter of the public label bound (docs/theory.md,
#: section 16; read off benchmarks/adassp_gap.py's grid, then checked on held-out tables).
HUBER_FRACTION = 0.25


def _is(value: Any, option: str) -> bool:
    """Whether a checked parameter is the named ``option`` (a flag, numpy's too, is never one)."""
    return isinstance(value, str) and value == option


def _huber_statistics(name: str, value: bool | str) -> bool | str:
    """DPHuberRegressor's ``column_statistics``, checked by :func:`~dpcvx.models.erm_inputs.column_statistics_option`
    (a bool, never a numpy one, by then): its draw is the ranges, so True (the column sums of DPLinearRegression and
    the classifiers) is refused."""
    if value is True:
        raise InputError(f"{name}=True (private column sums) is not offered by DPHuberRegressor, whose private "
                         f"statistics are the ranges of the columns and the label: pass 'auto', 'ranges' or False. "
                         f"Nothing was charged")
    return value


def _extra_ridge(name: str, lam: Any) -> float | str:
    """DPLinearRegression's lam: "auto" or a number, >= 0 for AdaSSP (an extra ridge); mechanism="objective"'s
    lam > 0 is :class:`~dpcvx.models.erm.PrivateERM`'s rule (its table)."""
    if not isinstance(lam, str):
        return check_lam(name, lam, allow_zero=True)
    if lam == "auto":
        return lam
    raise InputError(f"{name} must be 'auto' or a number (AdaSSP: {name} >= 0, an extra ridge; mechanism='objective': "
                     f"{name} > 0, the ridge of the objective, or 'auto', the public rule of docs/theory.md, section "
                     f"25), got {lam!r}")


def _unsearched_kind(X: Any) -> str | None:
    """The kind of an X whose rows ``column_statistics="auto"`` draws no private ranges of, whatever n: "a Dask X" (the
    draws read the rows here, a numpy.memmap's by blocks, not a Dask X's chunks where they live) or "a scipy.sparse X"
    (the map centres the columns, which fills a sparse matrix); None for rows in memory or a numpy.memmap. X's kind
    only, never its values."""
    if is_dask(X):
        return "a Dask X"
    return "a scipy.sparse X" if sparse.issparse(X) else None


def _not_located(kind: str, label_bound: float) -> str:
    """The text of :class:`~dpcvx.sklearn.noise_warning.NoiseDominatesWarning` when ``column_statistics="auto"`` drew
    no label range because X is of ``kind`` (:func:`_unsearched_kind`), though the public n and epsilon allow it; B the
    public half-width. A function of X's kind and the public B only."""
    fix = ("fit on the rows as a numpy.memmap (written once, chunk by chunk: docs/scale.md) or in memory" if
           kind == "a Dask X" else "fit on X.toarray() (a public, loss-free conversion) where it fits in memory")
    return (f"the label was not located: column_statistics='auto' draws no private ranges for {kind} (dense rows in "
            "memory and a numpy.memmap draw them), so the fit centred the labels at the public label range's midpoint "
            f"and its noise scales with the public half-width B={label_bound:g}. If the labels fill a small part of "
            "that range, the predictions can be far worse than the labels' mean. This reads the input's kind and "
            f"public settings only, never the data. To fix: {fix}, or declare the tightest public label range your "
            "data dictionary guarantees (label_bound=(lo, hi), never read off the data)")


#: a regressor's learner: the PrivateERM of its objective and output releases, or AdaSSP's
Learner = PrivateERM | PrivateLinearRegression


def _named(owner: Any, settings: PrivateERM | None, **params: Any) -> PrivateERM:
    """A regressor's PrivateERM with ``params`` (every setting its release gives; the rest at PrivateERM's defaults),
    named by ``owner``: ``settings`` (:meth:`_PrivateRegressor._shared_settings`, a PrivateERM at the defaults but
    the shared settings, which ``params`` all name) given them in place, else built. The fit's one learner is
    its entry's settings object, not a second one built (issue 41)."""
    learner = PrivateERM(**params) if settings is None else settings.set_params(**params)
    learner.shown_as = type(owner).__name__
    return learner


class _Call(NamedTuple):
    """A fit's public inputs checked at its entry (:meth:`_PrivateRegressor._public_checks`), as the fit reads them."""

    epsilon: float
    delta: float
    shift: float  # the public shift of the labels
    label_bound: float | str  # the centred label bound B, or "private"
    seed: int | None
    n_public: int | None  # the public size under add-remove
    #: the fit's one learner, built and checked at the entry (:meth:`_PrivateRegressor._mechanism_checks`) from the
    #: public parameters: the PrivateERM of the objective and output releases, or AdaSSP's learner; the plan and the
    #: release take it (issue 41: one learner per fit, never a second built to plan or fit)
    learner: Learner | None = None
    #: the mechanism as the declared table checked it, once (DPHuberRegressor: a typed
    #: :class:`~dpcvx.verification.verdict.Mechanism` or "auto"), passed on typed: no layer parses it again
    mechanism: Any = None


class _PrivateRegressor(PlansFirst[_Call], RegressorMixin, NamedParameters, HoldsNoInput):
    """Shared validation, label centring, fitted attributes and prediction."""

    predicts_per_row = True  # a released linear model predicts each row alone (models.contract)
    seed_only_random_state = True  # an int seed or None: tune's BudgetInConstructor draws one per candidate
    takes_weights = False  # whether fit takes sample_weight (with the public sample_weight_bound)
    #: the declared constraints of the estimator's own parameters, checked once at ``fit`` (and ``plan``), before
    #: anything reads them, whether or not the fit's settings use them (:func:`dpcvx.validation.check_parameters`);
    #: the settings shared with PrivateERM are then checked by its own check (:meth:`_shared_settings`). A subclass
    #: extends this table with its own parameters.
    _parameters: ClassVar[dict[str, Check]] = {
        "epsilon": lambda name, value: check_epsilon(value, name),
        "delta": lambda name, value: check_delta(value, name),
        "neighbours": lambda name, value: Neighbours.parse(value, name),
        "n_public": optional(lambda name, value: sample_size(value, name)),
        "float_safe": check_flag,
        "norm_share": fraction,  # PrivateERM's check (erm_inputs.private_bounds), here whether a bound is drawn or not
        "column_statistics": column_statistics_option,
        "accountant": lambda name, value: check_accountant(value),
    }

    def _release(self, X: np.ndarray, y: np.ndarray, call: _Call, accountant: PrivacyAccountant | None,
                 sample_weight: Any = None) -> PrivateRegressionModel:
        raise NotImplementedError

    def _learner(self, label_bound: float | str, settings: PrivateERM | None = None) -> PrivateERM:
        """The PrivateERM of the objective and output releases (AdaSSP aside) at the centred label bound: built, or
        ``settings`` (:meth:`_shared_settings`, checked at the entry) given the release's own settings, in place."""
        raise NotImplementedError

    def _unlocated_label(self, X: Any, n: int, certificate: Any, call: _Call) -> str | None:
        """The text of the public rule "the label was not located" for a fit on X (its kind only) of n rows and the
        release's public bounds, or None."""
        raise NotImplementedError

    def _ranges_note(self, certificate: Any) -> str | None:
        """The text of a public rule on the private ranges the release drew (DPHuberRegressor's), or None."""
        return None

    def _weight_ball(self) -> float | None:
        """The public radius W of the ball ||w|| <= W the objective and output releases are constrained to, None
        without one: a bound on ||w*|| of its own, which the reach of a prediction takes (noise_warning)."""
        return None

    def _loss(self, label_bound: float | str) -> losses.MarginLoss:
        """The loss the objective and output releases fit at the centred label bound B (their learner's,
        :meth:`_learner`)."""
        raise NotImplementedError

    def _rule(self, certificate: ReleaseCertificate) -> PrivateERM:
        """The learner of a release at its certificate's public bounds: what lam="auto" is asked about, built only
        when NoiseDominatesWarning gives its advice (not one learner more per fit)."""
        return self._learner(check_bound("label_bound", certificate.label_bound)).set_params(
            data_norm=certificate.data_norm, norm_range=None, label_range=None)

    def _plan_context(self, sample_weight: Any) -> _Call:
        """The fit's public checks (:meth:`_public_checks`): its planning's context (the loss's verdict left to the
        plan that follows: :func:`~dpcvx.models.erm.verdict_in_plan`)."""
        with verdict_in_plan():
            return self._public_checks(sample_weight)

    def _planned_rows(self, shaped: ShapedPlan | None, X: Any, y: Any, call: _Call,
                      sample_weight: Any) -> EstimatorPlan:
        """:meth:`plan` after its public checks: scikit-learn's checks of X and y, then ``shaped`` bound to them,
        or (None) the learner's plan made on them. Its clipping notes speak of the declared range, as the fit's do
        (:func:`~dpcvx.validation.declared_label_range`; a tune run's said "|y| > B = 200" of labels in (0, 400))."""
        checked, targets = self._checked_data(copy.copy(self), X, y)
        self._checks_at_n(int(targets.shape[0]), call)
        with declared_label_range(self.label_bound):
            if shaped is not None:  # its rows bound and checked (nothing charged), as the fit binds them
                shaped[1].checked(checked, targets - call.shift, sample_weight)
                return EstimatorPlan(self, *shaped)
            return EstimatorPlan(self, *self._planned(checked, targets - call.shift, call, sample_weight))

    def _planned(self, X: Any, y: np.ndarray, call: _Call,
                 sample_weight: Any) -> tuple[PrivateERM | PrivateLinearRegression, LearnerPlan]:
        """(the learner, its plan) of a fit on checked rows and centred labels (:meth:`plan`)."""
        raise NotImplementedError

    def _checks_at_n(self, n: int, call: _Call) -> None:
        """The estimator's own refusals at the fit's n rows, before anything is charged (the learner's are its own)."""

    def _shaped_plan(self, X: Any, call: _Call, sample_weight: Any) -> tuple[PrivateERM, FitPlan] | None:
        """The learner and its one plan made at X's public width before scikit-learn's checks read a value of X or
        y (the verification and the mechanism's verdict first, :meth:`PrivateERM._shaped_plan
        <dpcvx.models.erm.PrivateERM._shaped_plan>`); None where the fit's plan is made on the checked rows."""
        return None

    @float_errors_ignored
    def fit(self, X: Any, y: Any, sample_weight: Any = None, *,
            accountant: PrivacyAccountant | None = None) -> _PrivateRegressor:
        """Release an (``epsilon``, ``delta``)-differentially private regression of (X, y).

        ``accountant`` (or the constructor's, not both) is charged before any noise is drawn; its
        ledger line names this estimator. ``sample_weight`` (scikit-learn's keyword): DPHuberRegressor's needs the
        public ``sample_weight_bound``; DPLinearRegression refuses weights with
        :class:`~dpcvx.exceptions.UnsupportedWeightsError`, before anything is spent.
        """
        # every warning of the fit names this estimator; a note on clipped rows, X's columns
        with called(type(self).__name__), columns_named(X):
            return self._fit(X, y, sample_weight, accountant, None)

    def _shared_settings(self, label_bound: float | str) -> PrivateERM:
        """A PrivateERM holding the settings the regressors share with it (the flags, the public bounds and the ranges
        of private ones; ``label_bound`` the centred half-width B of a public range, or "private"), for its own check
        (:func:`~dpcvx.models.erm_inputs.check_settings`) at the entry: they are checked as DPLogisticRegression's
        learner checks them, whichever mechanism the fit takes (AdaSSP reads no ``norm_range``, yet one given with a
        public ``data_norm`` is refused, as there)."""
        # a regression loss of the catalogue (its task is checked; the release's own learner holds the loss it fits)
        return PrivateERM(loss=losses.squared_error(), task="regression", data_norm=self.data_norm,
                          norm_range=self.norm_range,
                          label_bound=label_bound, label_range=self.label_range, fit_intercept=self.fit_intercept,
                          clip=self.clip, allow_large_delta=self.allow_large_delta)

    def check_params(self, sample_weight: Any = None) -> None:
        """Raise the error :meth:`fit` would raise for this regressor's parameters (and ``sample_weight``, given to
        fit) before it reads any data, charging and drawing nothing (as the classifiers' ``check_params``)."""
        self._public_checks(sample_weight)

    def _mechanism_checks(self, call: _Call, sample_weight: Any, settings: PrivateERM | None,
                          planned: Learner | None) -> Learner:
        """The refusals of the mechanism the parameters choose, which need no data, made at the entry (the fit made
        them only after reading X and y), on the fit's one learner, returned: ``planned`` (a plan's, checked again),
        else ``settings`` given the release's own settings (:meth:`_learner`), or AdaSSP's learner."""
        raise NotImplementedError

    def _public_checks(self, sample_weight: Any, planned: Learner | None = None) -> _Call:
        """The fit's public inputs, checked before the data: every parameter, once (the declared table, then the
        settings shared with PrivateERM), then the weights and the seed; last the mechanism's refusals, on the fit's
        one learner (:attr:`_Call.learner`): ``planned``, the learner of the plan a fit executes
        (:class:`~dpcvx.sklearn.estimator_plan.EstimatorPlan`), or one built here."""
        checked = check_parameters(self, self._parameters)  # the declared table, once per public entry
        # label_bound="private": B is drawn by PrivateERM's fit, around 0 (no public shift); a public bound B or range
        # (lo, hi) is the shift c and the half-width B that PrivateERM's settings then hold
        shift, bound = (0.0, PRIVATE) if is_private(self.label_bound) else label_range(self.label_bound)
        # a plan's PrivateERM holds the settings; AdaSSP's plan has none, and its fit changes only the seed of the
        # estimator planned, whose settings were checked then (EstimatorPlan.fit): no settings object per run
        settings = (planned if isinstance(planned, PrivateERM) else None if planned is not None
                    else self._shared_settings(bound))
        if settings is not None:
            check_settings(settings)
        if not self.takes_weights:
            refuse_weights(type(self).__name__, sample_weight=sample_weight)
        else:  # refused naming this estimator, not the learner it fits with
            require_weight_bound(sample_weight, self.sample_weight_bound, type(self).__name__)
        seed = check_estimator_seed(self.random_state, type(self).__name__)
        call = _Call(checked["epsilon"], checked["delta"], shift, bound, seed, checked["n_public"],
                     mechanism=checked["mechanism"])
        return call._replace(learner=self._mechanism_checks(call, sample_weight, settings, planned))

    @staticmethod
    def _checked_data(owner: _PrivateRegressor, X: Any, y: Any) -> tuple[Any, np.ndarray]:
        """(X, y as floats) checked as scikit-learn checks them; ``owner`` gets ``n_features_in_`` (and a table's
        ``feature_names_in_``)."""
        refuse_unusable_table(X)
        # numpy would read a date as a count of days, scikit-learn with it, and so would the float conversion below:
        # y is refused once, before either (the learner's own check then meets float64 targets, a dtype test)
        try:
            if is_out_of_core(X):  # read by row blocks, never loaded whole
                checked, targets = validate_streamed(owner, X, y)
                refuse_non_number_targets("y", targets)  # y as read (a Dask y computed once), not yet converted
            else:
                refuse_non_number_targets("y", y)  # numpy reads a date as a count of days, "1.5" as 1.5
                check_shapes(X, y)  # every entry's words for a shape, before scikit-learn's conversion
                # a scipy.sparse X (or a table of sparse columns) as a CSR, as the classifiers take it: the learners
                # read it as such, and a mechanism that needs dense rows refuses it by name before any charge
                checked, targets = validate_data(owner, X, y, accept_sparse="csr", y_numeric=True, reset=True)
                keep_feature_names(owner, X)
            return checked, np.asarray(targets, dtype=float)
        except InputError:
            raise
        except TypeError as error:  # an entry float() refuses (a dict, a date object): typed, as the classifiers'
            raise type_refusal(error, type(owner).__name__, X, y) from None
        except ValueError as error:
            raise scikit_learn_refusal(error, X, y) from None

    def _fit(self, X: Any, y: Any, sample_weight: Any, accountant: PrivacyAccountant | None,
             planned: EstimatorPlan | None) -> _PrivateRegressor:
        """:meth:`fit`, from ``planned`` when given (made by ``plan`` with these parameters)."""
        with verdict_in_plan():  # the loss's verdict: the plan's, on the fit's one verification
            call = self._public_checks(sample_weight, None if planned is None else planned.learner)
        if planned is None:  # the learner's plan at X's public width, its verdict before X or y is read
            shaped = self._shaped_plan(X, call, sample_weight)
            planned = None if shaped is None else EstimatorPlan(self, *shaped)
        # scikit-learn's checks set n_features_in_ (and a table's feature_names_in_) on the estimator they check: on a
        # copy, so that a refused fit leaves this one as it was (its earlier fit's names and width with its model)
        shape = copy.copy(self)
        checked, targets = self._checked_data(shape, X, y)
        self._checks_at_n(int(targets.shape[0]), call)
        centred = targets - call.shift if call.shift else targets  # no copy without a shift
        # the learner clips the centred labels: its warning speaks of the range declared here
        # the learner's own training-rows check left to this one, which checks what the estimator predicts
        with fit_accountant(self, accountant) as charged, declared_label_range(self.label_bound), left_to_caller():
            if planned is None:
                model = self._release(checked, centred, call, charged, sample_weight)
            else:
                released = planned.plan.fit(checked, centred, random_state=call.seed, accountant=charged,
                                            sample_weight=sample_weight)
                assert isinstance(released, PrivateRegressionModel)  # a regressor's plan
                model = released
        if call.shift:  # the public shift added back: post-processing
            model = model.label_shifted(call.shift)
        certificate = model.certificate
        # X's kind as the fit read it: a table of sparse columns is a scipy.sparse X by then
        ranges = self._ranges_note(certificate)
        unlocated = "; and ".join(text for text in (self._unlocated_label(checked, int(targets.shape[0]), certificate,
                                                                          call), ranges) if text is not None) or None
        # n under replace-one (the relation makes it public), the given n_public under add/remove (n is private):
        # a rule that read the rows' count there would tell the table's size by whether it fired and by its text
        public_rows = int(targets.shape[0]) if certificate.relation is Neighbours.REPLACE_ONE else call.n_public
        assert public_rows is not None  # add-remove needs n_public (erm_inputs.neighbour_relation, at the entry)
        if isinstance(certificate, ReleaseCertificate):  # objective or output perturbation (not AdaSSP)
            # the release's loss at its public label bound; its learner there (the lam rule) only for the advice
            residual = self._loss(check_bound("label_bound", certificate.label_bound))
            warn_if_noise_dominates(type(self).__name__, certificate, None, prediction_scale=certificate.label_bound,
                                    lam_advice=lambda: lam_rule_advice(certificate, self.lam,
                                                                       lambda: self._rule(certificate)),
                                    also=unlocated, residual_loss=residual, weight_ball=self._weight_ball())
        else:  # AdaSSP: the public rule of its own noise scales
            warn_if_adassp_noise_dominates(type(self).__name__, certificate, public_rows, also=unlocated)
        warn_if_small_table(type(self).__name__, public_rows, int(np.size(model.coef_)), certificate.epsilon,
                            regression=True, total_epsilon=model.epsilon, weight_bound=sample_weight_bound(certificate),
                            delta=gaussian_delta(certificate),
                            gain=None if ranges is None else f"{huber_without_search()} (the NoiseDominatesWarning's "
                            "note on the ranges: here they took half of epsilon and could locate nothing)")
        # NOT PRIVATE, fixed text, never inside tune (models.training_rows), X's kind deciding how its checked rows
        # are read again; judged on the labels as given and on the labels clipped onto the declared range, warning
        # only when both find no better than a constant
        declared = None if isinstance(call.label_bound, str) else (call.shift - call.label_bound,
                                                                   call.shift + call.label_bound)
        # the advice after MAP_LOST was measured after the defaults only (training_rows.map_lost_advice)
        defaults = getattr(self, "mechanism", "auto") == "auto" and self.column_statistics == "auto"
        warn_on_regression_fit(type(self).__name__, model, X, targets, declared, read=checked, defaults=defaults)
        # the fitted attributes last, together: a fit that raises sets none
        self.__dict__.pop("feature_names_in_", None)  # from an earlier fit on a table
        self.__dict__.update({name: shape.__dict__[name] for name in ("n_features_in_", "feature_names_in_")
                              if name in shape.__dict__})
        # model_ keeps the table's names, as dpcvx.save(estimator.model_) writes them (predict checks them itself)
        self.model_, self.certificate_ = named(model, shape.__dict__.get("feature_names_in_")), certificate
        self.coef_, self.intercept_ = model.coef_, model.intercept_
        return self

    def __sklearn_tags__(self) -> Any:  # sklearn.utils.Tags (scikit-learn >= 1.6)
        tags = super().__sklearn_tags__()
        # check_regressors_train's R^2 threshold on a few hundred rows: a private model's noise is the
        # price of the guarantee, not a defect (scikit-learn's tag for estimators with a poor score).
        tags.regressor_tags.poor_score = True
        tags.input_tags.sparse = True  # scipy.sparse X is fitted as CSR, as the classifiers fit it
        return tags

    def _more_tags(self) -> dict[str, Any]:  # the same tag for scikit-learn < 1.6
        return {"poor_score": True}

    def predict(self, X: Any) -> np.ndarray:
        check_fitted(self)
        # not the release's own name; the columns by the names of the table fitted, else of the array a public
        # schema just returned (a pipeline's predict), as the fit's notes name them
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            try:
                names = input_column_names(X)
            except InputError:  # repeated names: validated_input refuses them in its words, below
                names = None
        with said_as(type(self).__name__, names):
            return unnamed(self.model_).predict(validated_input(self, X, reset=False))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """R^2 of :meth:`predict` on (X, y), weighted by ``sample_weight`` when given (scikit-learn's ``score``): the
        release's :func:`~dpcvx.release.regression_model.r2_score`, whose targets are checked as a fit checks them
        (scikit-learn's raised its bare ValueError for a NaN target or a target of another length)."""
        return r2_score(y, self.predict(X), sample_weight)


class DPLinearRegression(_PrivateRegressor):
    """Private least squares: noisy gradient descent on privately mapped rows where the fit searches a private range,
    else AdaSSP, each with a joint Gaussian calibration (module docstring).

    Parameters
    ----------
    epsilon, delta : privacy budget (delta > 0; default 1e-6, keep it well below 1/n).
    lam : "auto" (the default) or a number. AdaSSP: an extra ridge n lam ||w||^2 / 2 on top of AdaSSP's own
        adaptive ridge, which AdaSSP already chooses from public quantities (Wang 2018); "auto" adds none (lam 0).
        mechanism="objective": the ridge of the objective, "auto" the public rule of docs/theory.md, section 25
        (with W the ball's radius).
    data_norm, label_bound : public bounds R on ||x|| and B on |y| (default 1 and 1); label_bound may be
        a public range (lo, hi), centred by the shift (lo + hi) / 2 (module docstring).
    fit_intercept : default True (a constant feature inside the norm bound). AdaSSP: the feature's scale s is
        the public rule :func:`~dpcvx.privacy.adassp.adassp_intercept_scaling` (the smallest s <= 1 whose
        direction AdaSSP's ridge shrinks by at most a tenth; 1 under add-remove); noisy gradient descent: s = R /
        sqrt(d) (:func:`~dpcvx.privacy.gradient_descent.gradient_intercept_scaling`); recorded in the certificate.
    mechanism : "auto" (the default: noisy gradient descent where the fit searches a private range first and its
        settings allow it, else AdaSSP; module docstring,
        :meth:`~dpcvx.models.linear_regression.AdaSSPPlan.descends_at`), "adassp" (AdaSSP at every n), "objective"
        (least squares on the ball ||w|| <= weight_bound, KST12; replace-one neighbours), or "gradient": noisy
        gradient descent on clipped residuals on the rows and label mapped by private ranges (mechanism
        "gradient-ranged", :mod:`dpcvx.privacy.gradient_descent`, docs/theory.md section 16.1): every column's and
        the label's, or under ``column_statistics="auto"`` with too few rows for every column's search the label's
        alone; replace-one, dense rows in memory or a numpy.memmap, clip=True, float_safe=False, lam "auto" or 0,
        ``column_statistics`` "auto" or "ranges", and n large enough for the label's search ("auto") or every
        column's ("ranges"), else refused before any charge.
    weight_bound : the public radius W of the ball (required by mechanism="objective").
    neighbours : "replace-one" (default) or "add-remove" (AdaSSP; it needs ``n_public``).
    n_public : int, optional
        With ``neighbours="add-remove"``: a public data-set size chosen without looking at the data. AdaSSP's noise
        reads no n; delta must be below 1/n_public (``allow_large_delta``), and the public warnings read it.
    clip : scale rows and labels onto the bounds (True) or refuse them (False).
    random_state : None (fresh OS entropy) or an int seed for experiments.
    float_safe : True for exact lattice noise (:class:`~dpcvx.models.erm.PrivateERM`'s ``float_safe``):
        mechanism="objective" only; AdaSSP's certificate says "mitigation-only" and it refuses True.
    norm_range, label_range, norm_share : with ``data_norm="private"`` and/or ``label_bound="private"``
        (mechanism="objective"), R and/or B are bought with ``norm_share`` of epsilon over the powers of two
        in the public ``norm_range`` / ``label_range`` (:class:`~dpcvx.models.erm.PrivateERM`'s opt-in;
        ``certificate_.total_epsilon`` is the cost).
    allow_large_delta : delta must be below 1/n (n the training rows) unless True (PrivateERM's parameter).
    column_statistics : "auto" (the default), "ranges", True or False. "ranges": AdaSSP on columns and a label
        mapped by private per-column ranges (a noisy binary search of Gaussian counts, whose error is in rows, not
        in units of R), searched first in the same joint Gaussian and charged with the fit (mechanism
        "adassp-ranged"; :mod:`dpcvx.privacy.column_ranges`, docs/theory.md section 16): it keeps the signal when
        the columns fill a small part of their public ranges, where plain AdaSSP's ridge exceeds their
        eigenvalues (benchmarks/results/column_ranges.md). True: the older map of private column sums and sums of
        squares (mechanism "adassp-standardised"). "auto": "ranges" under replace-one for dense rows in memory
        or a numpy.memmap (not a Dask X) with clip=True when n is large enough for the search's noise (a public rule
        of n, d, epsilon and delta: :func:`dpcvx.privacy.column_ranges.range_level`); else the label's range alone
        when n is large enough for that search (the rows keep their public map; docs/theory.md section 16, "the
        label's range alone"); else plain AdaSSP (mechanism "adassp"), which then warns that the label was not
        located; False: plain AdaSSP. Under the default mechanism, a fit that searches a range descends (mechanism
        "gradient-ranged") rather than running AdaSSP on the map.
    accountant : a :class:`dpcvx.PrivacyAccountant` charged by every fit (or pass it to ``fit``, not both);
        ``clone`` keeps the same one, so the fits of ``cross_val_score`` or ``GridSearchCV`` are all charged to
        it: the fits only. Their held-out scores, and the hyperparameters chosen from them, are computed without
        noise: not charged and not private; ``dpcvx.tune`` chooses privately (docs/tuning.md).
    """

    _parameters: ClassVar[dict[str, Check]] = {
        **_PrivateRegressor._parameters,
        "mechanism": lambda name, value: check_choice(name, value, MECHANISMS),
        "lam": _extra_ridge,
        "weight_bound": optional(check_bound),
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 1e-6, lam: float | str = "auto",
                 data_norm: float | str = 1.0, label_bound: float | tuple[float, float] | str = 1.0,
                 fit_intercept: bool = True,
                 mechanism: str = "auto", weight_bound: float | None = None, neighbours: str = "replace-one",
                 n_public: int | None = None, clip: bool = True, random_state: Any = None, float_safe: bool = False,
                 norm_range: tuple[float, float] | None = None, norm_share: float = NORM_SHARE,
                 label_range: tuple[float, float] | None = None,
                 allow_large_delta: bool = False, column_statistics: bool | str = "auto",
                 accountant: PrivacyAccountant | None = None) -> None:
        keep_parameters(self, locals())

    @property
    def _pure(self) -> bool:
        """delta = 0 (checked in the declared table: a number in [0, 1), numpy's too)."""
        return float(self.delta) == 0

    @property
    def _on_a_ball(self) -> bool:
        """Whether the fit is least squares on the public ball (objective perturbation through PrivateERM)."""
        return self.mechanism == Mechanism.OBJECTIVE or (self._pure and self.mechanism == "auto"
                                                          and self.weight_bound is not None)

    def _release(self, X: np.ndarray, y: np.ndarray, call: _Call, accountant: PrivacyAccountant | None,
                 sample_weight: Any = None) -> PrivateRegressionModel:
        if self._on_a_ball:
            return self._least_squares_on_a_ball(X, y, call, accountant)
        adassp = call.learner
        assert isinstance(adassp, PrivateLinearRegression)  # not on the ball (_mechanism_checks)
        return adassp.fit(X, y, call.epsilon, call.delta, neighbours=self.neighbours, n_public=self.n_public,
                          random_state=call.seed, accountant=accountant)

    def _planned(self, X: Any, y: np.ndarray, call: _Call,
                 sample_weight: Any) -> tuple[PrivateERM | PrivateLinearRegression, LearnerPlan]:
        learner = call.learner  # the entry's (_mechanism_checks)
        if self._on_a_ball:
            assert isinstance(learner, PrivateERM)
            return learner, learner.plan(X, y, epsilon=call.epsilon, mechanism="objective", delta=call.delta)
        adassp = learner
        assert isinstance(adassp, PrivateLinearRegression)
        return adassp, adassp.plan(X, y, call.epsilon, call.delta, neighbours=self.neighbours,
                                   n_public=self.n_public)

    def _mechanism_checks(self, call: _Call, sample_weight: Any, settings: PrivateERM | None,
                          planned: Learner | None) -> Learner:
        """The refusals of least squares on the ball or of AdaSSP / noisy gradient descent, whichever the parameters
        choose (delta = 0 with a Gaussian mechanism, float_safe, private bounds, a ball without weight_bound ...),
        at the entry: :meth:`fit` made them only after reading X and y (weights are refused by the entry). The
        learner checked is the fit's (returned)."""
        if self._on_a_ball:
            return self._ball_learner(call.label_bound, settings, planned)
        adassp = planned if isinstance(planned, PrivateLinearRegression) else self._adassp(call.label_bound)
        adassp.check_options(call.epsilon, call.delta, neighbours=self.neighbours, n_public=self.n_public)
        return adassp

    def _adassp(self, label_bound: float | str) -> PrivateLinearRegression:
        """The least-squares learner of a fit not on the ball (its refusals first): ``mechanism`` "adassp",
        "gradient", or "auto", the learner's "auto" (noisy gradient descent for a fit that searches a private range,
        else AdaSSP: :meth:`~dpcvx.models.linear_regression.AdaSSPPlan.descends_at`, decided per fit); column
        statistics decided from public facts of X, the intercept's scale by the mechanism's public rule at the fit's
        n ("auto")."""
        method = ("noisy gradient descent" if _is(self.mechanism, "gradient") else "AdaSSP" if
                  _is(self.mechanism, "adassp") else "noisy gradient descent or AdaSSP")
        if self._pure:
            raise InputError(f"delta=0 asks for pure epsilon-DP; mechanism={self.mechanism!r} ({method}) is a "
                             f"Gaussian mechanism and needs delta > 0. {PURE_EPSILON_OPTIONS}. Nothing was charged")
        if self.float_safe:
            raise InputError(f"float_safe=True: {method} has no floating-point-safe form (its certificate says "
                             "'mitigation-only'); use mechanism='objective' with a public weight_bound, whose "
                             "pure-epsilon release is proved for floating point")
        if isinstance(self.data_norm, str) or isinstance(label_bound, str):
            raise InputError(f"{method} needs public numeric data_norm and label_bound; 'private' bounds are offered "
                             "for mechanism='objective' (least squares on a public ball, through PrivateERM). "
                             "Nothing was charged")
        extra = 0.0 if isinstance(self.lam, str) else float(self.lam)  # "auto": AdaSSP's own ridge, no extra one
        return PrivateLinearRegression(self.data_norm, label_bound, lam=extra, fit_intercept=self.fit_intercept,
                                       clip=self.clip, intercept_scaling="auto",
                                       allow_large_delta=self.allow_large_delta,
                                       column_statistics=self._sums(),
                                       column_ranges=self._column_ranges(),
                                       mechanism=str(self.mechanism))  # "objective" fits on the ball

    def _sums(self) -> bool:
        """Whether ``column_statistics`` (checked in the declared table) asks for the column sums: True, numpy's too."""
        return not isinstance(self.column_statistics, str) and bool(self.column_statistics)

    def _column_ranges(self) -> bool | str:
        """The learner's ``column_ranges`` from ``column_statistics`` (checked in the declared table): "ranges" the
        ranges (True); "auto" the learner's "auto" (the ranges under replace-one for dense rows in memory or a memmap
        with clip=True when the search's level at the fit's n is defined, else the label's range alone when its level
        is, else plain AdaSSP; public facts of the call); True (the column sums) or False: none."""
        if _is(self.column_statistics, "ranges"):
            return True
        return "auto" if _is(self.column_statistics, "auto") else False

    def _unlocated_label(self, X: Any, n: int, certificate: Any, call: _Call) -> str | None:
        """AdaSSP's label not located at too few rows for its range search is its own warning's rule
        (:mod:`~dpcvx.sklearn.adassp_warning`); here the other case: a plain AdaSSP release of n rows enough for the
        label's search (:func:`~dpcvx.privacy.adassp.label_search_rows`) under replace-one with clip=True, for which
        ``column_statistics="auto"`` drew no ranges because X is a Dask or a scipy.sparse X (:func:`_not_located`).
        Public only. Least squares on a ball draws no ranges and is not said to."""
        if (not isinstance(certificate, SufficientStatisticsCertificate) or not _is(self.column_statistics, "auto")
                or _unsearched_kind(X) is None or not self.clip):
            return None
        calibration = certificate.calibration
        if (calibration.range_columns > 0 or calibration.neighbours is not Neighbours.REPLACE_ONE
                or n < label_search_rows(calibration.epsilon, calibration.delta)):
            return None
        return _not_located(str(_unsearched_kind(X)), calibration.label_bound)

    def _least_squares_on_a_ball(self, X: np.ndarray, y: np.ndarray, call: _Call,
                                 accountant: PrivacyAccountant | None) -> PrivateRegressionModel:
        learner = call.learner  # the entry's (_ball_learner, checked there)
        assert isinstance(learner, PrivateERM)
        model = learner.fit(X, y, call.epsilon, "objective", delta=call.delta, random_state=call.seed,
                            accountant=accountant)
        assert isinstance(model, PrivateRegressionModel)
        return model

    def _ball_learner(self, label_bound: float | str, settings: PrivateERM | None,
                      planned: Learner | None) -> PrivateERM:
        """The PrivateERM of least squares on the public ball (its refusals first): ``planned`` (a plan's), else
        ``settings`` given its own."""
        if self._sums() or _is(self.column_statistics, "ranges"):
            raise InputError("column_statistics=True is offered with AdaSSP (mechanism 'auto' or 'adassp'); "
                             "least squares on a ball (mechanism='objective') takes none. Nothing was charged")
        if self.weight_bound is None:
            raise InputError("mechanism='objective' needs weight_bound: a PUBLIC radius W, the weights are "
                             "restricted to ||w|| <= W (never read off the data)")
        if Neighbours.parse(self.neighbours) is not Neighbours.REPLACE_ONE:
            raise InputError("mechanism='objective' is offered under replace-one neighbours here; use "
                             "mechanism='adassp' for add-remove")
        neighbour_relation(Neighbours.REPLACE_ONE, 0.0, self.n_public)  # n_public refused, in the one check's words
        return planned if isinstance(planned, PrivateERM) else self._learner(label_bound, settings)

    def _weight_ball(self) -> float | None:
        return self.weight_bound  # the ball of every objective and output release here (_ball_learner)

    def _loss(self, label_bound: float | str) -> losses.MarginLoss:
        return losses.squared_error()  # least squares on the ball, whatever B

    def _learner(self, label_bound: float | str, settings: PrivateERM | None = None) -> PrivateERM:
        return _named(self, settings, loss=self._loss(label_bound), task="regression", label_bound=label_bound,
                      lam=self.lam, data_norm=self.data_norm, norm_range=self.norm_range,
                      norm_share=self.norm_share, label_range=self.label_range,
                      fit_intercept=self.fit_intercept, allow_large_delta=self.allow_large_delta,
                      clip=self.clip, constraints=WeightBall(self.weight_bound), float_safe=self.float_safe)


@dataclass(frozen=True)
class WeightBall:
    """The constraint set ||w|| <= ``radius`` of ``weight_bound`` (checked in the declared table): a value of the
    public radius, so that a plan holding it pickles."""

    radius: float

    def __call__(self, w: Any) -> list[Any]:
        import cvxpy as cp  # the ball's constraint (the other regressors need no CVXPY)

        return [cp.norm(w, 2) <= self.radius]


class DPHuberRegressor(_PrivateRegressor):
    """Private Huber regression: the Huber loss of the residual r = w^T x - y with threshold ``m`` (module docstring).

    rho_m(r) = r^2 / 2 for |r| <= m and m |r| - m^2 / 2 beyond (Huber 1964), so L = m and c = 1, minimised with the
    ridge lam / 2 ||w||^2 by objective perturbation (Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011), Theorem 2:
    pure epsilon) or output perturbation (Theorem 1, or its Gaussian form at delta > 0, which ``mechanism="auto"``
    takes under add-remove), which hold for a loss of the residual as for a margin loss (docs/theory.md, section 16).

    The parameters not listed below (``epsilon``, ``delta``, ``data_norm``, ``label_bound``,
    ``fit_intercept``, ``clip``, ``random_state``, ``allow_large_delta``, ``accountant``) are
    :class:`DPLinearRegression`'s.

    Parameters
    ----------
    m : float or "auto"
        The Huber threshold of the residual, or "auto" (the default): m = B / 4 of the public label bound B after
        centring (``HUBER_FRACTION``; docs/theory.md, section 16, "the Huber threshold's public rule"), a
        function of public B only (of the released B' when ``column_statistics`` draws the label's range). The
        objective perturbation's noise scales with L = m, not with B; the former default m = 1 ignored the label's
        scale. With ``label_bound="private"`` "auto" is refused before any
        charge: pass a number.
    lam : float or "auto"
        The L2 regularization weight, or "auto" (the default): the public rule of docs/theory.md, section 25,
        with the regression prior of section 25.9 (a comparator whose predictions stay within the label
        bound B, W = B / R, and an intercept |b| <= B); it costs no privacy and the certificate records it
        (``certificate_.lam_rule``). Measured against the former default 1e-3 in
        benchmarks/results/warning_advice.md.
    mechanism : {"auto", "objective", "output"}
        "auto": pure-epsilon objective perturbation, a stronger guarantee than any delta > 0; under
        add-remove neighbours, Gaussian output perturbation (module docstring).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbour relation the guarantee is proved for (:meth:`dpcvx.PrivateERM.fit`'s): "add-remove"
        (OpenDP's and DP-SGD's unit) needs delta > 0 and ``n_public``, and keeps n private.
    n_public : int, optional
        With ``neighbours="add-remove"``: a public data-set size chosen without looking at the data.
    float_safe : bool
        :class:`~dpcvx.models.erm.PrivateERM`'s: exact lattice noise, the certificate names the guarantee.
    norm_range, label_range, norm_share
        With ``data_norm="private"`` / ``label_bound="private"``: PrivateERM's opt-in private bounds R and B.
    sample_weight_bound : float, optional
        The PUBLIC bound w_max of ``fit(..., sample_weight=)``: weights clipped onto [0, w_max], L and c
        multiplied by w_max (PrivateERM's; docs/theory.md, section 21). Without it sample_weight is refused.
    column_statistics : {"auto", "ranges", False}
        "ranges": private ranges of the columns and of the label, drawn inside ``fit`` and charged with it once (pure
        epsilon: noisy histograms, :mod:`dpcvx.models.column_statistics`, docs/theory.md section 34.1): the columns are
        centred and scaled by theirs (eps_s = 0.2 epsilon, on a grid whose depth is a public rule of n, d and eps_s),
        the label is centred at its range's midpoint c and clipped onto B' (eps_l = 0.3 epsilon, on a grid of 2^4 to
        2^8 cells over [-B, B] whose depth is a public rule of n and eps_l,
        :func:`~dpcvx.privacy.column_histogram.label_depth`: coarser at small n epsilon), and the fit (the
        rest) takes B' for B, so m="auto" is B' / 4; c is added to the intercept. It keeps the signal when the columns
        and the label fill a small part of their public ranges, and costs the fit half of the budget where they do
        not (benchmarks/results/huber_ranges.md). "auto" (the default): "ranges" under replace-one for dense rows in
        memory with clip=True, public numeric bounds and float_safe=False when the public rule of n and epsilon
        (:func:`~dpcvx.models.column_statistics.label_range_offered`) holds, else none. False: none. Below the least
        n of that rule (:func:`~dpcvx.models.column_statistics.label_range_rows`) no label range is drawn, and under
        replace-one with a public label bound the fit warns
        :class:`~dpcvx.sklearn.noise_warning.NoiseDominatesWarning` that the label was not located, and, when its range
        was drawn on a grid coarser than 2^6 cells (``LABEL_LOCATED_DEPTH``), that it was located only coarsely
        (docs/theory.md section 34.1, "the warning"). Where the ranges were drawn but the features' histograms can
        keep no cell (their threshold above n at this n, d and epsilon:
        :func:`~dpcvx.models.column_statistics.regression_ranges_locate`; wide one-hot blocks), the warning names the
        ranges' share of epsilon and ``column_statistics=False`` with what it measured
        (benchmarks/results/huber_auto_rule.md; docs/getting-started.md says what to expect on one-hot-heavy and
        zero-inflated tables).
    """

    takes_weights = True
    _parameters: ClassVar[dict[str, Check]] = {
        **_PrivateRegressor._parameters,
        "m": or_literal("auto", positive),
        "lam": SETTINGS["lam"],
        "mechanism": lambda name, value: value if _is(value, "auto") else Mechanism.of(value, also=("auto",)),
        "sample_weight_bound": optional(check_bound),
        "column_statistics": lambda name, value: _huber_statistics(name, column_statistics_option(name, value)),
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, m: float | str = "auto", lam: float | str = "auto",
                 data_norm: float | str = 1.0, label_bound: float | tuple[float, float] | str = 1.0,
                 fit_intercept: bool = True,
                 mechanism: str = "auto", clip: bool = True, random_state: Any = None,
                 float_safe: bool = False, norm_range: tuple[float, float] | None = None,
                 norm_share: float = NORM_SHARE, label_range: tuple[float, float] | None = None,
                 allow_large_delta: bool = False, neighbours: str = "replace-one", n_public: int | None = None,
                 sample_weight_bound: float | None = None, column_statistics: bool | str = "auto",
                 accountant: PrivacyAccountant | None = None) -> None:
        keep_parameters(self, locals())

    def _planned(self, X: Any, y: np.ndarray, call: _Call,
                 sample_weight: Any) -> tuple[PrivateERM | PrivateLinearRegression, LearnerPlan]:
        mechanism, delta = self._mechanism(call)
        learner = call.learner  # the entry's (_mechanism_checks)
        assert isinstance(learner, PrivateERM)
        if self._draws_ranges(X, call):
            return learner, self._ranged(learner, X, y, call, sample_weight)
        return learner, learner.plan(X, y, epsilon=call.epsilon, mechanism=mechanism, delta=delta,
                                     neighbours=self.neighbours, n_public=self.n_public, sample_weight=sample_weight)

    def _shaped_plan(self, X: Any, call: _Call, sample_weight: Any) -> tuple[PrivateERM, FitPlan] | None:
        """The plan at X's public width (:func:`~dpcvx.data.blocks.public_shape`) of a fit that draws nothing first;
        None for an X whose shape is its values' (a list) and for a fit that first draws ranges or a private bound
        (its composite plan reads the rows)."""
        if public_shape(X) is None or self._draws_ranges(X, call):
            return None
        learner = call.learner  # the entry's (_mechanism_checks)
        assert isinstance(learner, PrivateERM)
        if learner.draws_first:
            return None
        mechanism, delta = self._mechanism(call)
        return learner, learner._shaped_plan(X, call.epsilon, mechanism, delta=delta, neighbours=self.neighbours,
                                             n_public=self.n_public, sample_weight=sample_weight)

    def _mechanism_checks(self, call: _Call, sample_weight: Any, settings: PrivateERM | None,
                          planned: Learner | None) -> PrivateERM:
        """The learner's checks of the budget, the mechanism and the neighbour relation (``n_public`` under
        add-remove, none under replace-one, delta below 1 / n_public: :meth:`dpcvx.PrivateERM.check_options`), made
        at the entry: the fit made them only after reading X and y. The learner checked is the fit's (returned)."""
        mechanism, delta = self._mechanism(call)
        learner = planned if isinstance(planned, PrivateERM) else self._learner(call.label_bound, settings)
        learner.check_options(call.epsilon, mechanism, delta=delta, neighbours=self.neighbours,
                              n_public=self.n_public, sample_weight=sample_weight)
        return learner

    def _draws_ranges(self, X: Any, call: _Call) -> bool:
        """Whether the fit draws the ranges of the columns and the label: "ranges", or "auto" when the public facts of
        the call allow them (class docstring; resolved before any charge)."""
        if not _is(self.column_statistics, "auto"):  # checked in the declared table: "ranges", False (numpy's too)
            return _is(self.column_statistics, "ranges")
        return (self._settings_draw(call) and _unsearched_kind(X) is None
                and label_range_offered(int(np.shape(X)[0]), call.epsilon))

    def _settings_draw(self, call: _Call) -> bool:
        """Whether "auto" draws the ranges for rows it reads (in memory or a memmap) at an n the public rule allows:
        replace-one (n public), clip=True, float_safe=False and public bounds (all checked in the declared table)."""
        return (Neighbours.parse(self.neighbours) is Neighbours.REPLACE_ONE and bool(self.clip)
                and not self.float_safe and not is_private(self.data_norm) and not is_private(call.label_bound))

    def _ranged(self, learner: PrivateERM, X: Any, y: np.ndarray, call: _Call, sample_weight: Any) -> StandardisedPlan:
        """The plan of a fit that draws the ranges of the columns and the label first (every check, nothing
        charged): the learner at a released bound B' is ``self._learner(B')`` (m="auto" follows B')."""
        mechanism, delta = self._mechanism(call)
        learner.set_params(column_statistics="ranges", column_statistics_share=REGRESSION_SHARE)
        return plan_column_statistics(learner, X, y, call.epsilon, label_learner=self._learner, mechanism=mechanism,
                                      delta=delta, neighbours=self.neighbours, n_public=self.n_public,
                                      sample_weight=sample_weight)

    def _checks_at_n(self, n: int, call: _Call) -> None:
        """A delta that "auto" does not use (pure epsilon) is refused at n as every fit refuses it
        (:func:`~dpcvx.validation.check_delta_for_n`): delta = 0.5 was taken without a word."""
        if self._mechanism(call)[1] != call.delta:
            check_delta_for_n(call.delta, n, self.allow_large_delta)

    def _mechanism(self, call: _Call) -> tuple[Mechanism, float]:
        """The mechanism and delta of a fit, typed: "auto" is pure-epsilon objective perturbation, or under
        add-remove the Gaussian output perturbation (module docstring)."""
        mechanism, delta = call.mechanism, call.delta  # both checked in the declared table, once
        if _is(mechanism, "auto") and Neighbours.parse(self.neighbours) is Neighbours.ADD_REMOVE:
            return Mechanism.OUTPUT, delta  # Gaussian: no pure-epsilon mechanism is derived for add-remove
        if _is(mechanism, "auto"):  # pure epsilon: (epsilon, 0) implies (epsilon, delta) (module docstring)
            return Mechanism.OBJECTIVE, 0.0
        return mechanism, delta

    def _release(self, X: np.ndarray, y: np.ndarray, call: _Call, accountant: PrivacyAccountant | None,
                 sample_weight: Any = None) -> PrivateRegressionModel:
        mechanism, delta = self._mechanism(call)
        learner = call.learner  # the entry's (_mechanism_checks)
        assert isinstance(learner, PrivateERM)
        if self._draws_ranges(X, call):
            model = self._ranged(learner, X, y, call, sample_weight).fit(
                X, y, random_state=call.seed, accountant=accountant, sample_weight=sample_weight)
        else:
            model = learner.fit(X, y, call.epsilon, mechanism, delta=delta, random_state=call.seed,
                                accountant=accountant, neighbours=self.neighbours, n_public=self.n_public,
                                sample_weight=sample_weight)
        assert isinstance(model, PrivateRegressionModel)
        return model

    def _unlocated_label(self, X: Any, n: int, certificate: ReleaseCertificate, call: _Call) -> str | None:
        """The label is not located when, under replace-one with a public label bound, n is below
        :func:`~dpcvx.models.column_statistics.label_range_rows` at epsilon: no option draws a label range there, so
        the labels are centred at the public midpoint and the noise scales with the public B; nor when n suffices but
        ``column_statistics="auto"`` would have drawn the ranges of these rows in memory or on a memmap but X is a
        Dask or a scipy.sparse X (:func:`_not_located`). It is located only coarsely when the release drew its range
        on a grid coarser than ``LABEL_LOCATED_DEPTH`` (the certificate's public ``label_depth``): the released B' is
        then at least a cell wide; and it is not resolved when, on a finer grid, its released range is one cell
        (:func:`~dpcvx.sklearn.noise_warning.label_unresolved_text`: hours 0..200 declared (0, 1e6) gave R^2 -2.5 with
        no public word). Public n, epsilon, B, the settings, X's kind and the release's depth and cells only; nothing
        public tells whether the labels fill their range, so it is said whenever that holds."""
        label_bound = certificate.label_bound
        if (label_bound is None or is_private(call.label_bound)
                or Neighbours.parse(self.neighbours) is not Neighbours.REPLACE_ONE):
            return None
        least = label_range_rows(call.epsilon)
        if n < least:
            return label_not_located(n, least, label_bound, epsilon=call.epsilon)
        record = certificate.column_statistics
        kind = _unsearched_kind(X)
        if record is None and kind is not None and _is(self.column_statistics, "auto") and self._settings_draw(call):
            return _not_located(kind, label_bound)
        depth = record.get("label_depth") if record is not None else None
        if record is None or depth is None:
            return None
        if depth >= LABEL_LOCATED_DEPTH:  # located on a fine grid: unresolved where its range is one cell
            (low,), (high,) = record["label_cells"]
            if high - low > 1:
                return None
            centre, _ = histogram_label_range(np.array(record["label_cells"]), float(record["label_bound"]),
                                              float(record["label_level"]), int(depth))
            return label_unresolved_text(float(record["label_bound"]), int(depth), float(label_bound), centre)
        return label_not_located(n, label_range_rows(call.epsilon, LABEL_LOCATED_DEPTH), float(record["label_bound"]),
                                 coarse_cells=1 << int(depth), epsilon=call.epsilon)

    def _ranges_note(self, certificate: Any) -> str | None:
        """:func:`~dpcvx.sklearn.noise_warning.ranges_share_text` of the release's record: the columns' and the
        label's ranges were drawn where the features' histograms can keep no cell (public n, d, eps_s and the
        grid's depth only)."""
        return ranges_share_text(getattr(certificate, "column_statistics", None))

    def _loss(self, label_bound: float | str) -> losses.MarginLoss:
        """The Huber loss of the residual at its threshold: ``m`` as given, or "auto": B / 4 of the public centred
        label bound B (B' of a drawn label range). A derived m the loss does not take is refused naming the label
        bound that set it, not the m the user never gave."""
        if not isinstance(self.m, str):  # checked in the declared table (_parameters)
            return losses.huber_regression(float(self.m))
        if is_private(label_bound):
            raise InputError("m='auto' is B / 4 of a PUBLIC label bound B; with label_bound='private' there is none "
                             "before the fit: pass a number m. Nothing was charged")
        bound = check_bound("label_bound", label_bound)
        try:
            return losses.huber_regression(HUBER_FRACTION * bound)
        except InputError:  # the loss's own range check, of the m derived here
            low, high = losses.HUBER_THRESHOLDS
            drawn = bound != label_range(self.label_bound)[1]  # B' of a label range column_statistics would draw
            given = setting("label_bound", repr(self.label_bound), flag_text(self.label_bound))
            source = (f"column_statistics may draw a label range as narrow as B = {bound:g} within {given}" if drawn
                      else f"{given} gives B = {bound:g}")
            declare = (f"pass {setting('column_statistics', 'False')} or a wider {setting('label_bound')} (rescale "
                       "the target)" if drawn else f"declare a {setting('label_bound')} whose half-width lies in "
                       f"[{low / HUBER_FRACTION:g}, {high / HUBER_FRACTION:g}] (rescale the target)")
            raise InputError(f"{huber_auto()} is B / 4 of the label's half-width B: {source}, "
                             f"and m = {HUBER_FRACTION * bound:g} is outside the Huber threshold's range {low:g} <= m "
                             f"<= {high:g}: {declare}, or pass a number {setting('m', 'M')}. Nothing was "
                             "charged") from None

    def _learner(self, label_bound: float | str, settings: PrivateERM | None = None) -> PrivateERM:
        return _named(self, settings, loss=self._loss(label_bound), task="regression",
                      label_bound=label_bound,
                      lam=self.lam, data_norm=self.data_norm, norm_range=self.norm_range,
                      norm_share=self.norm_share, label_range=self.label_range,
                      fit_intercept=self.fit_intercept, allow_large_delta=self.allow_large_delta,
                      clip=self.clip, float_safe=self.float_safe, sample_weight_bound=self.sample_weight_bound)
