"""scikit-learn estimators: private linear classifiers for pipelines and notebooks.

:class:`DPLogisticRegression`, :class:`DPHuberSVM` and the generic
:class:`DPERMClassifier` wrap :class:`~dpcvx.models.erm.PrivateERM`: every fit is one
private release (verify, calibrate, solve exactly, certificate). They follow
scikit-learn's conventions (``get_params``/``set_params``, ``clone``,
``Pipeline``, ``cross_val_score``); fitted attributes are set together at the
very end of :meth:`fit`, so an interrupted or refused fit leaves no partial
model.

Two layers. :class:`~dpcvx.models.erm.PrivateERM` is the mathematical layer, as in
the papers: labels -1/+1 (``classes=(-1, 1)``), no intercept, and no default
norm bound (``data_norm`` must be given). The estimators follow scikit-learn
instead: ``classes=(0, 1)``, an intercept (``fit_intercept=True``) and
``data_norm=1.0``, the bound of rows scaled by a :class:`~dpcvx.PublicSchema`.
Each estimator builds a PrivateERM with these settings and calls its ``fit``.

Labels: ``classes`` is the PUBLIC pair (negative, positive), default
``(0, 1)``, the labels scikit-learn users usually have. It is never inferred
from ``y``: the set of labels present is a statistic of the data (it reveals,
for example, that every record has the same label), so a sample holding one
label fits like any other. ``y`` with other labels raises
:class:`~dpcvx.exceptions.InputError` (a ValueError); every such message names
the declared classes and the parameter that sets them, ``classes=``: pass
``classes=(-1, 1)`` or ``classes=("no", "yes")`` for such data. ``classes_`` keeps the declared order (the later
of a pair is the positive class, which ``threshold`` and ``class_prior`` speak of); scikit-learn's scorers order
classes as ``np.unique`` does, so classes out of sorted order get a
:class:`~dpcvx.exceptions.ClassOrderWarning` before the fit. Continuous and
multiclass targets are refused the same way, opening with scikit-learn's wording ("Unknown label type:
continuous"; "Only binary classification is supported with two declared classes", which goes on to say that
declaring every class, ``classes=(0, 1, 2)``, fits a multiclass model).

Inputs: ``fit`` and ``predict`` check X (and y) with scikit-learn's
``validate_data`` (its messages, raised as InputError; an entry that is not a
number raises :class:`InputTypeError`, also a TypeError), with dpcvx's own where it names more: a
pandas, polars or pyarrow table's categorical or text column and a NaN, missing or infinite entry are
named by the column's name and the row (:func:`dpcvx.sklearn.inputs.refuse_unusable_table`), as
:class:`~dpcvx.models.erm.PrivateERM` names them. ``predict`` refuses X
with another number of features (or other DataFrame column names) than the
fit. scipy.sparse X is accepted and fitted as CSR. ``check_estimator`` passes
except the checks that train on labels other than ``classes``
(tests/sklearn/test_sklearn_conformance.py lists them).

scikit-learn's ``C`` and dpcvx's ``lam``: scikit-learn minimises
``C * sum_i l(y_i w^T x_i) + 0.5 ||w||^2``; dpcvx minimises the average
``(1/n) sum_i l(y_i w^T x_i) + lam * 0.5 ||w||^2``. Dividing the first by
``C n`` gives the second with ``lam = 1 / (C n)``: the same minimiser (before
noise), intercept included when scikit-learn regularizes it as liblinear does
(an ``intercept_scaling`` column). So ``C=1`` on 10,000 rows is ``lam=1e-4``.
The estimators take ``lam`` only (n is public, but a second parameter for the
same quantity would make ``get_params`` ambiguous); set ``lam=1 / (C * n)``.
Unlike ``C``, a ``lam`` is not tied to n: the same lam is the same amount of
regularization per record on 1,000 or 1,000,000 rows.

When the noise dominates: after each fit, :func:`warn_if_noise_dominates` compares,
from the release certificate only (epsilon, delta, n, d, the mechanism's noise law, lam
and the verified L, c, m, R; never the data or the fitted weights), the noise's typical
share of a decision value with the share a model of lam="auto"'s comparator norm reaches
at this lam (:func:`~dpcvx.sklearn.noise_warning.margin_noise_to_signal`, docs/theory.md
section 21). Above ``NOISE_RATIO_LIMIT`` (3, fitted on synthetic data only) the release
is predicted to score no better than the majority class and a
:class:`NoiseDominatesWarning` says so, at the line of your code that called ``fit``
(also through a Pipeline or ``cross_val_score``). Its advice: raise epsilon or n, use fewer features, or
see ``lam="auto"``. Useless releases: ``certificate_.findings``, ConstantPredictionWarning, SmallTableWarning
and the NOT PRIVATE TrainingRowsWarning (never inside ``dpcvx.tune``): docs/theory.md, section 32.

Noise: with ``random_state=None`` (the default) each fit draws fresh noise
from operating-system entropy, so the clones that scikit-learn makes never
share it. An int seed makes fits reproducible, and two releases with the same
seed on the same or neighbouring data share their noise, so their difference
cancels it: a privacy loss, for experiments only. Generators are refused (see
``random_state`` of :class:`DPERMClassifier`).

Privacy accounting: each call to :meth:`fit` spends ``epsilon`` on the rows
it is given. Cross-validation and grid search fit many times on overlapping
rows, so the cost of their fits is the sum of the epsilons of the fits that saw a
record, and that is all an accountant counts: the held-out scores they compute
(``cv_results_``, ``best_score_``, ``cross_val_score``'s scores) are exact
functions of the held-out rows, without noise, and so is any choice made from
them (``best_params_``, ``best_estimator_``); they are not charged and not
private, and no epsilon covers them. ``dpcvx.tune`` makes the choice privately,
its cost charged (docs/tuning.md).

scikit-learn is an optional dependency: ``pip install "dpcvx[sklearn]"``.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, cast

import numpy as np

from ..advice import flag_text, python_only, setting
from ..exceptions import float_errors_ignored
from ..version import SCIKIT_LEARN_MINIMUM, dependency_error

try:
    from sklearn.base import ClassifierMixin
    from sklearn.utils.metaestimators import available_if
except ImportError as error:  # exercised in a subprocess without sklearn (tests/sklearn/test_estimators.py)
    raise dependency_error(error, "scikit-learn", SCIKIT_LEARN_MINIMUM, "sklearn", "the dpcvx estimators") from error

from .. import losses
from ..data.blocks import is_out_of_core, public_shape
from ..data.notes import columns_named
from ..exceptions import ConstantPredictionWarning, InputError, NoiseDominatesWarning
from ..models.class_count import (
    CLASS_COUNT_SHARE,
    PRIVATE_PRIOR,
    count_at_floor,
    floor_class,
    prior_cuts,
    released_rates,
)
from ..models.column_statistics import AUTO, COLUMN_STATISTICS_SHARE, auto_statistics
from ..models.erm import PrivateERM, verdict_in_plan
from ..models.erm_inputs import SETTINGS, column_statistics_option
from ..models.intercept_offset import THRESHOLD, CentredRidge, prior_entropy, threshold_cut
from ..models.multiclass import PrivateMulticlassERM, check_one_row_map
from ..models.private_norm import NORM_SHARE
from ..models.record_weights import check_class_prior, effective_view, mean_weight, require_weight_bound
from ..models.training_rows import (
    ONE_VS_REST_OTHER,
    PRIOR_ADVICE_FLOOR,
    SCALE_WORDS,
    deferred,
    left_to_caller,
    one_vs_rest_scale,
    sampled_rows,
    warn_at_cut,
    warn_on_training_rows,
    weighed_accuracies,
    weighs_classes,
)
from ..privacy.accountant import PrivacyAccountant, check_accountant
from ..privacy.calibrate import SPLITS
from ..privacy.neighbours import Neighbours
from ..privacy.rng import check_estimator_seed
from ..release.input_record import HoldsNoInput
from ..release.model import PrivateModel, ReleaseCertificate, named, weighted_share
from ..release.multiclass_model import MulticlassCertificate, PrivateMulticlassModel
from ..release.usefulness import Held, called, constant_at_cut, held_warnings, rare_class_advice, speaker, warn_release
from ..release.weight_rules import log_odds, prior_rates
from ..validation import (
    Check,
    check_choice,
    check_classes,
    check_delta,
    check_epsilon,
    check_parameters,
    check_public_classes,
    check_threshold,
    class_labels,
    decision_cut,
    declared_labels,
    fraction,
    missing_labels,
    optional,
    outside_classes,
    refuse_weights,
    sample_size,
)
from ..verification.loss_declaration import loss_at_zero
from ..verification.verdict import Mechanism
from ..verification.verifier import Loss, Regularizer
from .estimator_plan import EstimatorPlan, LearnerPlan, PlansFirst, ShapedPlan
from .inputs import (
    NamedParameters,
    check_fitted,
    fit_accountant,
    keep_parameters,
    label_error,
    unnamed,
    validated_input,
    warn_if_unsorted_classes,
)
from .noise_warning import (
    NOISE_RATIO_LIMIT,
    gaussian_delta,
    lam_rule_advice,
    noise_in_predictions,
    noise_to_signal,
    sample_weight_bound,
    warn_if_count_at_floor,
    warn_if_noise_dominates,
    warn_if_small_table,
)

if TYPE_CHECKING:  # pragma: no cover - CVXPY is imported where an expression is built (a catalogue fit needs none)
    pass

__all__ = [
    "DPERMClassifier",
    "DPHuberSVM",
    "DPLogisticRegression",
    "NoiseDominatesWarning",
    "noise_in_predictions",
    "noise_to_signal",
    "warn_if_noise_dominates",
    "NOISE_RATIO_LIMIT",
]


#: the estimators' parameters that are :class:`~dpcvx.models.erm.PrivateERM`'s settings, passed to its constructor
#: the key of the fitted estimator's ``__dict__`` holding the public offset rates its fit read
#: (:meth:`_PrivateLinearClassifier._fitted_offset`): not a parameter and not a public fitted attribute
FITTED_OFFSET = "_fitted_offset_rates"

LEARNER_SETTINGS = ("lam", "data_norm", "norm_range", "norm_share", "fit_intercept", "intercept_scaling", "clip",
                    "solver", "float_safe", "allow_large_delta", "sample_weight_bound", "class_count_share",
                    "column_statistics_share")


class _Entry(NamedTuple):
    """A classifier's fit after its public checks (:meth:`_PrivateLinearClassifier._public_checks`), before the data is
    read: what its planning and its fit take from them."""

    multiclass: bool  # one-vs-rest of more than two public classes
    seed: int | None
    cut: float  # the decision cut (NaN: "prior", known after the fit)
    #: the fit's one learner, built from the public parameters at the entry (column_statistics="auto" not yet
    #: resolved: :meth:`_PrivateLinearClassifier._resolved` sets it at X's shape)
    learner: PrivateERM
    #: the mechanism parsed once by the declared table (:attr:`_PrivateLinearClassifier._parameters`); the learner
    #: takes the typed value, which no layer parses again (:meth:`Mechanism.of <dpcvx.Mechanism.of>`)
    mechanism: Mechanism


def _offset_rates_of(public: tuple[float, float] | None, certificate: Any) -> tuple[float, float] | None:
    """The class rates of a binary release's intercept offset: the ``public`` prior's, else those of the private
    count the release holds (:func:`~dpcvx.release.weight_rules.released_rates`), else None."""
    return public if public is not None else released_rates(getattr(certificate, "weights", None))


class _PrivateLinearClassifier(PlansFirst[_Entry], ClassifierMixin, NamedParameters, HoldsNoInput):
    """Shared fit/predict of the dpcvx estimators; subclasses name the loss and regularizer."""

    #: ``random_state`` takes None or an int only (see :func:`dpcvx.privacy.rng.check_estimator_seed`).
    #: A caller holding a generator (``dpcvx.tune``) passes ``int(generator.integers(2**63 - 1))``
    #: instead: a fresh seed per estimator, reproducible from the caller's own seed.
    seed_only_random_state = True
    #: the parameters read after a fit, post-processing of the release (public, no privacy spent): set after a fit,
    #: one takes effect in every method that reads it (predict, predict_proba, score, ``decision_cut_``,
    #: ``model_`` and ``dpcvx.save``), checked there against the release (:meth:`_cut_of`: a value the fit would
    #: refuse for it is refused with the fit's InputError). Every other parameter takes effect at the next fit
    #: only: what predict needs of one (the offset's public rates) is kept from the fit (:meth:`_fitted_offset`).
    _post_fit_parameters: ClassVar[tuple[str, ...]] = ("threshold",)
    predicts_per_row = True  # a released linear model predicts each row alone (models.contract)
    #: the declared constraints of the estimator's parameters, each checked once at ``fit`` and ``plan``
    #: (:func:`dpcvx.validation.check_parameters`) before anything is read of the data, whatever the other
    #: parameters: those passed to the learner by :class:`~dpcvx.models.erm.PrivateERM`'s own checks
    #: (:data:`dpcvx.models.erm_inputs.SETTINGS`, run again when it plans), the budget by the checks of its ``fit``
    _parameters: ClassVar[dict[str, Check]] = {
        **{name: SETTINGS[name] for name in LEARNER_SETTINGS},
        "epsilon": lambda name, value: check_epsilon(value, name),
        "delta": lambda name, value: check_delta(value, name),
        "mechanism": lambda name, value: Mechanism.of(value),
        "split": optional(lambda name, value: check_choice(name, value, SPLITS)),
        "neighbours": lambda name, value: Neighbours.parse(value, name),
        "n_public": optional(lambda name, value: sample_size(value, name)),
        "threshold": THRESHOLD,
        "column_statistics": column_statistics_option,
        "accountant": lambda name, value: check_accountant(value)}

    def _loss(self) -> Loss:
        raise NotImplementedError

    def _regularizer(self) -> Regularizer | None:
        return None  # PrivateERM's default, 0.5 ||w||^2

    #: whether a ``class_prior`` without class weights centres the intercept at the public log-odds
    #: (:mod:`dpcvx.models.intercept_offset`): the logistic loss only, whose Bayes intercept that is
    offsets_intercept = False

    def _offset_applies(self) -> bool:
        """Whether a ``class_prior`` (public, or "private": one private count) sets the intercept offset: no class
        weights, the default ridge, an intercept and a numeric ``data_norm`` (one-vs-rest: each class's fit against
        the rest, from its own private count; :meth:`_check_class_prior` takes "private" only there)."""
        return (self.offsets_intercept and self.class_weight is None and self._regularizer() is None
                and bool(self.fit_intercept) and not isinstance(self.data_norm, str))

    def _private_prior(self) -> bool:
        return isinstance(self.class_prior, str) and self.class_prior == PRIVATE_PRIOR

    def _offset_rates(self) -> tuple[float, float] | None:
        """The PUBLIC rates of the intercept offset (``class_prior`` given as rates, :meth:`_offset_applies`), else
        None (no offset, or the rates of a private count, known after the fit: :meth:`_rates`)."""
        if self.class_prior is None or self._private_prior() or not self._offset_applies():
            return None
        return check_class_prior(self.class_prior, check_classes(self.classes))

    def _rates(self, certificate: Any) -> tuple[float, float] | None:
        """The class rates of the offset at a fit: the public prior's, or those of the count the release holds."""
        return _offset_rates_of(self._offset_rates(), certificate)

    def _fitted_offset(self) -> tuple[float, float] | None:
        """The public rates of the offset the fitted release was centred at (:meth:`_offset_rates` as the fit read
        them, kept with the release under :data:`FITTED_OFFSET`), or None: what :meth:`_cut` reads after the fit, so
        that a ``class_prior``, ``class_weight`` ... set after it changes the next fit only, as every parameter but
        the post-processing ones (:attr:`_post_fit_parameters`). A ``class_prior`` of (0.5, 0.5) set after a fit at
        (0.3, 0.7) with ``threshold="prior"`` moved predict's cut from log(7 / 3) to 0, the release unchanged, and
        ``class_prior=None`` refused the release's own offset. An estimator pickled before they were kept reads its
        parameters, as it did."""
        if FITTED_OFFSET not in self.__dict__:
            return self._offset_rates()
        return cast("tuple[float, float] | None", self.__dict__[FITTED_OFFSET])

    def _private_erm(self, statistics: bool | str = False) -> PrivateERM:
        """The learner, with ``statistics`` its column statistics (``column_statistics`` resolved:
        :meth:`_statistics`)."""
        learner = self._weighted_erm(statistics)
        rates = self._offset_rates()
        if rates is not None:   # the ridge centred at b0 / s, fixed before the fit from public inputs only
            learner.regularizer = CentredRidge(log_odds(rates) / learner.row_map().intercept_scaling)
        return learner

    def _resolved(self, learner: PrivateERM, X: Any) -> PrivateERM:
        """The fit's one ``learner`` (built at the entry: :meth:`_learner_checks`) with ``column_statistics`` for a fit
        on X: "auto" resolved by its public rule before anything is charged
        (:func:`~dpcvx.models.column_statistics.auto_statistics` of this learner at X's public shape, which reads its
        declaration, never its statistics option; for more than two classes the ranges are drawn once for the k
        one-vs-rest fits), else as given. The same learner: a second one built here to resolve "auto" was a throwaway
        (three learners per fit, where one is the fit's)."""
        option = column_statistics_option("column_statistics", self.column_statistics)  # np.True_ drawn as True
        statistics = auto_statistics(learner, X, self.epsilon, self.neighbours) if option == AUTO else option
        learner.column_statistics = statistics  # its own setting (set_params would walk its signature each fit)
        return learner

    def _weighted_erm(self, statistics: bool | str) -> PrivateERM:
        learner = PrivateERM(
            loss=self._loss(),
            regularizer=self._regularizer(),
            lam=self.lam,
            data_norm=self.data_norm,
            norm_range=self.norm_range,
            norm_share=self.norm_share,
            fit_intercept=self.fit_intercept,
            intercept_scaling=self.intercept_scaling,
            clip=self.clip,
            classes=self.classes,
            solver=self.solver,
            float_safe=self.float_safe,
            allow_large_delta=self.allow_large_delta,
            sample_weight_bound=self.sample_weight_bound,
            class_weight=self.class_weight,
            # class_weight=None: public rates set the offset here (_private_erm); "private" is drawn by the learner
            class_prior=self.class_prior if self.class_weight is not None or self._private_prior() else None,
            class_count_share=self.class_count_share,
            column_statistics=statistics,
            column_statistics_share=self.column_statistics_share,
        )
        learner.shown_as = type(self).__name__
        return learner

    def _validated(self, X: Any, y: Any = None, *, reset: bool) -> Any:  # (X, y, copy) if reset, else X
        """X (and y) checked as scikit-learn checks them (:func:`dpcvx.sklearn.inputs.validated_input`)."""
        return validated_input(self, X, y, reset=reset)

    @property
    def _multiclass(self) -> bool:
        """More than two public classes: one-vs-rest (:class:`~dpcvx.models.multiclass.PrivateMulticlassERM`)."""
        return len(check_public_classes(self.classes)) > 2

    def _labels_checked(self, y: np.ndarray, multiclass: bool) -> tuple[np.ndarray, tuple[Any, ...]]:
        """(y read by value against the PUBLIC ``classes``, the classes): "1.0", "01", "true", True or Decimal("1")
        is the class 1 or "1" whatever type the column's reader gave it (:func:`~dpcvx.validation.declared_labels`),
        so that the learner, the owner's notes and the scores see labels spelled as the classes; labels outside them
        refused (never inferred from y)."""
        classes = check_public_classes(self.classes) if multiclass else check_classes(self.classes)
        y = declared_labels(y, classes)
        outside = outside_classes(y, classes)
        if outside is not None:
            raise label_error(type(self).__name__, y, outside, classes)
        return y, classes

    def _label_refusal(self, y: Any, multiclass: bool, refusal: InputError) -> InputError:
        """scikit-learn's refusal of X or y, or, when y is a vector of labels with a NaN, infinite or missing one
        (None, pandas' NA), the refusal :class:`~dpcvx.models.erm.PrivateERM`, tune and the kernel learners give it:
        a missing label in the one wording of a missing label (:func:`~dpcvx.validation.missing_refusal`, a RowError
        naming its row), an infinite one as a label outside the declared classes. Not scikit-learn's words ("Input y
        contains NaN", "Input contains NaN", or a TypeError naming no cause): its conformance checks ask a third
        party's estimator for a ValueError only, which InputError is."""
        try:
            labels = np.asarray(y)
        except UnicodeDecodeError:  # bytes that are not ASCII beside text: refused by the labels' reading (own_types)
            return refusal
        finite = labels.dtype.kind != "f" or bool(np.all(np.isfinite(labels)))
        if labels.ndim != 1 or (finite and not missing_labels(labels).any()):
            return refusal
        try:
            self._labels_checked(labels, multiclass)
        except InputError as outside:
            return outside
        return refusal

    @float_errors_ignored
    def fit(self, X: Any, y: Any, sample_weight: Any = None, *,
            accountant: PrivacyAccountant | None = None) -> _PrivateLinearClassifier:
        """Release an (``epsilon``, ``delta``)-differentially private model of (X, y).

        ``accountant`` (a :class:`dpcvx.PrivacyAccountant`, or the constructor's, not both) is charged (epsilon,
        delta) before any noise is drawn; its ledger line names this estimator, the loss and the mechanism.

        Raises :class:`~dpcvx.exceptions.AssumptionError` when the certificate
        does not allow ``mechanism``, :class:`~dpcvx.exceptions.InputError` for
        malformed data (scikit-learn's messages) or labels outside ``classes``
        (the message names the declared pair and ``classes=``), and
        :class:`~dpcvx.exceptions.SolverError` when the solve is not exact
        enough. In every such case no fitted attribute is set or changed.

        With ``random_state=None`` every call draws fresh noise from
        operating-system entropy, so clones fitted by ``GridSearchCV`` or
        ``cross_val_score`` never share noise. A ``random_state`` that is not
        None or a non-negative int raises InputError before anything is spent.

        Warns :class:`NoiseDominatesWarning` after the release when its
        expected noise dominates (a function of public quantities only).

        ``sample_weight`` (scikit-learn's keyword) needs the public ``sample_weight_bound``; ``class_weight``
        is a public dict or "balanced" (:class:`~dpcvx.models.erm.PrivateERM`; docs/theory.md, section 21).
        More than two classes take no weights (UnsupportedWeightsError, before anything is spent).
        """
        # every warning of the fit names this estimator; a note on clipped rows, X's columns
        with called(type(self).__name__), columns_named(X):
            return self._fit(X, y, sample_weight, accountant, None)

    def _plan_context(self, sample_weight: Any) -> _Entry:
        """The fit's public checks (:meth:`_public_checks`): whether it is one-vs-rest, and its one learner (the
        loss's verdict left to the plan that follows: :func:`~dpcvx.models.erm.verdict_in_plan`)."""
        with verdict_in_plan():
            return self._public_checks(sample_weight)

    def _planned_rows(self, shaped: ShapedPlan | None, X: Any, y: Any,
                      entry: _Entry, sample_weight: Any) -> EstimatorPlan:
        """:meth:`plan` after its public checks: scikit-learn's checks of X and y, then ``shaped`` bound to them,
        or (None) the entry's learner's plan made on them."""
        multiclass = entry.multiclass
        X, y, _, classes = self._checked_data(X, y, multiclass)
        if shaped is not None:  # its rows bound and checked (nothing charged), as the fit binds them
            shaped[1].checked(X, y, sample_weight)
            return EstimatorPlan(self, *shaped)
        learner = self._resolved(entry.learner, X)
        relation = {"neighbours": self.neighbours, "n_public": self.n_public}
        plan: LearnerPlan
        if multiclass:
            plan = PrivateMulticlassERM(learner.set_params(classes=(-1, 1)), classes).plan(
                X, y, self.epsilon, entry.mechanism, delta=self.delta, split=self.split, **relation)
        else:
            plan = learner.plan(X, y, epsilon=self.epsilon, delta=self.delta, mechanism=entry.mechanism,
                                split=self.split, sample_weight=sample_weight, **relation)
        return EstimatorPlan(self, learner, plan)

    def _shaped_plan(self, X: Any, entry: _Entry,
                     sample_weight: Any) -> ShapedPlan | None:
        """The learner and its one plan made at X's public width (:func:`~dpcvx.data.blocks.public_shape`) before
        scikit-learn's checks read a value of X or y: the verification and the mechanism's verdict first
        (:meth:`PrivateERM._shaped_plan <dpcvx.models.erm.PrivateERM._shaped_plan>`, one-vs-rest's
        :meth:`~dpcvx.models.multiclass.PrivateMulticlassERM._shaped_plan`). None for an X whose shape is its values'
        (a list, or one scikit-learn's checks refuse by its shape) and for a learner that first draws a private
        statistic (its composite plan reads the rows). The learner is the entry's (:meth:`_public_checks`)."""
        if public_shape(X) is None:
            return None
        multiclass = entry.multiclass
        learner = self._resolved(entry.learner, X)
        if learner.draws_first:
            return None
        options = {"split": self.split, "neighbours": self.neighbours, "n_public": self.n_public}
        if multiclass:
            binary = learner.set_params(classes=(-1, 1))
            plan = PrivateMulticlassERM(binary, check_public_classes(self.classes))._shaped_plan(
                X, self.epsilon, entry.mechanism, self.delta, options, None)
            return (learner, plan) if plan.binary is not None else None
        return learner, learner._shaped_plan(X, self.epsilon, entry.mechanism, delta=self.delta,
                                             sample_weight=sample_weight, **options)

    def check_params(self, sample_weight: Any = None) -> None:
        """Raise the error :meth:`fit` would raise for this classifier's parameters (and ``sample_weight``, given to
        fit) before it reads any data, charging and drawing nothing (its first checks, which it runs again). For a
        caller that holds the parameters before the data (``dpcvx fit`` refuses them before it opens the file,
        :func:`dpcvx.as_opendp_measurement` when it makes the measurement); :meth:`plan` checks the data too."""
        self._public_checks(sample_weight)

    def _public_checks(self, sample_weight: Any, learner: PrivateERM | None = None) -> _Entry:
        """(one-vs-rest, the seed, the decision cut, the fit's learner), checked before anything is read of the data:
        the declared parameters (:attr:`_parameters`), then the rules between them. ``learner``: a plan's (the fit of
        an :class:`~dpcvx.sklearn.estimator_plan.EstimatorPlan`), checked again for this call; else the one learner
        of this fit is built here (:meth:`_learner_checks`)."""
        multiclass = self._multiclass
        warn_if_unsorted_classes(type(self).__name__, self.classes)
        if multiclass:
            refuse_weights(type(self).__name__, self._one_vs_rest_weights(), sample_weight=sample_weight,
                           class_weight=self.class_weight)
            check_one_row_map(self)
        checked = check_parameters(self, self._parameters)  # the declared table, once per public entry
        require_weight_bound(sample_weight, self.sample_weight_bound, type(self).__name__)  # named as called
        seed = check_estimator_seed(self.random_state, type(self).__name__)
        self._check_class_prior(multiclass)
        mechanism = checked["mechanism"]
        learner = self._learner_checks(multiclass, sample_weight, learner, mechanism)
        if checked["threshold"] == "prior":   # the cut at the offset's log-odds, known after the fit (_cut)
            if self.class_prior is None or not self._offset_applies():
                prior = setting("threshold", repr("prior"), "prior")
                raise InputError(f"{prior} cuts at the log-odds of the intercept "
                                 f"offset's class rates: it needs {setting('class_prior')} (public rates or 'private') "
                                 f"with {setting('class_weight', 'None')} in DPLogisticRegression. Nothing was charged")
            return _Entry(multiclass, seed, math.nan, learner, mechanism)
        return _Entry(multiclass, seed, decision_cut(checked["threshold"], not multiclass), learner, mechanism)

    def _learner_checks(self, multiclass: bool, sample_weight: Any, learner: PrivateERM | None,
                        mechanism: Mechanism) -> PrivateERM:
        """The learner's own checks of the budget, mechanism, split and neighbour relation (``n_public``, delta below
        1 / n_public, a mechanism the loss does not allow at this delta ...: :meth:`dpcvx.PrivateERM.check_options`,
        one-vs-rest's at each class's share), made at the entry, before the data: the fit made them only after reading
        X and y. The learner checked is returned: the fit's one learner (issue 41: one per fit), built here from the
        public parameters unless a plan's is given; its column statistics "auto", resolved at X's shape
        (:meth:`_resolved`), is checked as none here, as resolved by the fit. More than two classes: the learner is
        the binary one of the k fits (classes -1/+1), as every one-vs-rest path sets it."""
        if learner is None:
            option = column_statistics_option("column_statistics", self.column_statistics)
            learner = self._private_erm(False if option == AUTO else option)
        options = {"delta": self.delta, "split": self.split, "neighbours": self.neighbours, "n_public": self.n_public}
        if multiclass:
            PrivateMulticlassERM(learner.set_params(classes=(-1, 1)), check_public_classes(self.classes)
                                 ).check_options(self.epsilon, mechanism, **options)
        else:
            learner.check_options(self.epsilon, mechanism, sample_weight=sample_weight, **options)
        return learner

    def _check_class_prior(self, multiclass: bool) -> None:
        """Refuse, before anything is charged, a ``class_prior`` of two classes that is not "private" or their public
        rates (:func:`~dpcvx.models.record_weights.check_class_prior`, the one check of the rates), and any
        ``class_prior`` that would have no effect: without class weights it is read only as the logistic intercept
        offset (:meth:`_offset_applies`); with ``class_weight="balanced"`` it gives the weights, and a dict of weights
        refuses it (:func:`~dpcvx.models.record_weights.plan_weights`). More than two classes take "private" only."""
        if self.class_prior is None:
            return
        private = setting("class_prior", repr(PRIVATE_PRIOR), PRIVATE_PRIOR)
        if multiclass and not self._private_prior():
            raise InputError(f"one-vs-rest of more than two classes takes {private} only (each class's fit against "
                             f"the rest draws its own private count within its share epsilon / k), got "
                             f"{setting('class_prior', repr(self.class_prior), flag_text(self.class_prior))}: rates "
                             "of k classes are no pair. Nothing was charged")
        if not multiclass and not self._private_prior():
            check_class_prior(self.class_prior, check_classes(self.classes))
        if self.class_weight is None and not self._offset_applies():
            prior, balanced = setting("class_prior"), setting("class_weight", repr("balanced"), "balanced")
            fix = (f"leave {prior} out" if multiclass else
                   f"leave {prior} out, or pass {balanced} to weigh the classes by it")
            given = setting("class_prior", repr(self.class_prior), flag_text(self.class_prior))
            ridge = python_only("penalty='l2'")
            raise InputError(f"{given} without class weights sets the logistic intercept offset: DPLogisticRegression "
                             f"with {ridge}, {setting('fit_intercept', 'True')}, a numeric "
                             f"{setting('data_norm')} (one-vs-rest too: {private}); here it would have no effect: "
                             f"{fix}. Nothing "
                             "was charged")

    def _one_vs_rest_weights(self) -> str:
        """Why a fit of more than two classes takes no weights, and the fit that does (:meth:`_public_checks`)."""
        return (f"with more than two classes (classes={self.classes!r}) it fits one-vs-rest, and this estimator passes "
                "no weights to its k problems (class c against the rest): its class_weight names the k classes, not "
                "the two sides of each problem. Leave them out; on imbalanced classes, "
                f"{type(self).__name__}(classes={self.classes!r}, class_prior='private', threshold='prior') fits each "
                "class against the rest from its own private count at epsilon / k and predicts the class of the "
                "largest score minus its cut (docs/theory.md, section 15; measured to raise balanced accuracy "
                f"on synthetic many-class tables only at {SCALE_WORDS} of {PRIOR_ADVICE_FLOOR:,} or more: "
                "benchmarks/results/multiclass_prior_many.md; on real tables, UCI Adult's occupation and "
                "education, in none of 6 cells, its accuracy below the default's in each: multiclass_prior_real.md; "
                "on 3 to 7 classes, at any scale, both ways, its "
                "accuracy often below a constant prediction's: multiclass_prior_ordinal.md); "
                "to weigh every class's problem alike, dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(..., "
                "sample_weight_bound=w_max or class_weight={-1: ..., 1: ...}), classes) calibrates each for its "
                "w_max (docs/theory.md, section 21)")

    def _checked_data(self, X: Any, y: Any, multiclass: bool) -> tuple[Any, np.ndarray, Any, tuple[Any, ...]]:
        """(X, y, the checked copy, the public classes): scikit-learn's checks and the labels, read by value
        against the classes (:meth:`_labels_checked`)."""
        try:
            X, y, checked = self._validated(X, y, reset=True)
        except InputError as refusal:  # a NaN label: refused as on every path, outside the classes, by its row
            raise self._label_refusal(y, multiclass, refusal) from None
        labels, classes = self._labels_checked(y, multiclass)
        return X, labels, checked, classes

    def _fit(self, X: Any, y: Any, sample_weight: Any, accountant: PrivacyAccountant | None,
             planned: EstimatorPlan | None) -> _PrivateLinearClassifier:
        """:meth:`fit`, from ``planned`` when given (made by :meth:`plan` with these parameters)."""
        # before anything is spent; the fit's one learner (a plan's, checked again, or built there)
        with verdict_in_plan():  # the loss's verdict: the plan's, on the fit's one verification
            entry = self._public_checks(sample_weight, None if planned is None else cast(PrivateERM, planned.learner))
        multiclass, seed, cut = entry.multiclass, entry.seed, entry.cut
        in_memory = not is_out_of_core(X)
        if planned is None:  # the learner's plan at X's public width, its verdict before X or y is read
            shaped = self._shaped_plan(X, entry, sample_weight)
            planned = None if shaped is None else EstimatorPlan(self, *shaped)
        X, y, checked, classes = self._checked_data(X, y, multiclass)
        model: PrivateModel | PrivateMulticlassModel
        relation = {"neighbours": self.neighbours, "n_public": self.n_public}
        learner = self._resolved(entry.learner, X) if planned is None else planned.learner
        assert isinstance(learner, PrivateERM)  # a classifier's learner
        # the training-rows check (models.training_rows): a binary learner's plan leaves the counts at any cut, from
        # the solver's margins, for this estimator's cut (below); one-vs-rest in memory is checked on its argmax
        owner = type(self).__name__
        # a binary fit's public release warnings are held until its decision cut is known (_held_at_cut)
        holding: AbstractContextManager[Held] = nullcontext([]) if multiclass else held_warnings()
        with fit_accountant(self, accountant) as charged, deferred(owner) as check, \
                left_to_caller() if multiclass and in_memory else nullcontext(), holding as held:
            if planned is not None:
                released = planned.plan.fit(X, y, random_state=seed, accountant=charged, sample_weight=sample_weight)
                assert isinstance(released, (PrivateModel, PrivateMulticlassModel))  # a classifier's plan
                model = released
            elif multiclass:
                binary = learner.set_params(classes=(-1, 1))
                model = PrivateMulticlassERM(binary, classes).fit(
                    X, y, self.epsilon, entry.mechanism, delta=self.delta, split=self.split, random_state=seed,
                    accountant=charged, **relation)
            else:
                binary_model = learner.fit(
                    X, y, epsilon=self.epsilon, delta=self.delta, mechanism=entry.mechanism, split=self.split,
                    random_state=seed, accountant=charged, sample_weight=sample_weight, **relation,
                )
                assert isinstance(binary_model, PrivateModel)  # task="classification"
                model = binary_model
        offset = self._offset_rates()  # the offset's public rates, kept with the release (_fitted_offset)
        released_cut = self._cut_at(model, offset) if isinstance(model, PrivateModel) else None  # binary: predict's
        if isinstance(model, PrivateModel):
            assert released_cut is not None
            self._held_at_cut(owner, model, held, released_cut)
        fitted = self._fitted_attributes(model)
        self._warn_if_noise_dominates(model, learner.loss)
        certificate = model.certificate.per_class[0] if isinstance(model, PrivateMulticlassModel) else model.certificate
        warn_if_small_table(type(self).__name__, int(certificate.constants.n), fitted["n_features_in_"],
                            certificate.epsilon, None if multiclass else self._public_rate(certificate, cut),
                            total_epsilon=model.epsilon,
                            classes=len(model.classes_) if isinstance(model, PrivateMulticlassModel) else None,
                            floored=not multiclass and count_at_floor(getattr(certificate, "weights", None)),
                            weight_bound=sample_weight_bound(certificate), delta=gaussian_delta(certificate))
        warn_if_count_at_floor(owner, self._classes_at_floor(model), multiclass=multiclass)
        # NOT PRIVATE, fixed text, never inside tune (models.training_rows)
        if isinstance(model, PrivateMulticlassModel):
            if in_memory:  # one-vs-rest's predictions (at its cuts) over the public classes, no sort of the rows
                prior_cuts = self._offset_applies()  # its settings take the prior cuts the notes advise
                warn_on_training_rows(owner, self._predicted(model, X), y, classes=model.classes_,
                                      located=model.certificate.column_statistics is not None,
                                      for_accuracy=sample_weight is None,  # one-vs-rest: no class weights
                                      weighed=weighs_classes(self),  # threshold="prior": not fitted for accuracy
                                      unweighted=None if prior_cuts else ONE_VS_REST_OTHER,
                                      scored=functools.partial(_sampled_scores, model, X, y)
                                      if prior_cuts and self.class_prior is None else None,
                                      compared=functools.partial(self._weighed_accuracies, model, X, y)
                                      if prior_cuts and self.class_prior is not None and weighs_classes(self)
                                      else None,
                                      scale=one_vs_rest_scale(int(certificate.constants.n),
                                                              float(model.certificate.epsilon), len(model.classes_)))
        else:  # the binary release's rows on either side of the cut, counted by its plan
            assert released_cut is not None
            warn_at_cut(check, released_cut, weighs_classes(self))
        # the fitted attributes together, once nothing is left that can raise (a warning about the release is shown,
        # never raised: exceptions.warn_shown)
        if hasattr(checked, "feature_names_in_"):   # set by validate_data for a DataFrame
            fitted["feature_names_in_"] = checked.feature_names_in_
            named(model, checked.feature_names_in_)   # model_'s own, as dpcvx.save(model_) writes them
        else:
            self.__dict__.pop("feature_names_in_", None)   # from an earlier fit on a DataFrame
        self.__dict__.update(fitted)
        self.__dict__[FITTED_OFFSET] = offset
        return self

    def _held_at_cut(self, owner: str, model: PrivateModel, held: Held, cut: float) -> None:
        """Show a binary fit's held release warnings (:func:`~dpcvx.release.usefulness.held_warnings`) for the
        predictor this estimator has: at cut 0 (threshold 1/2) as the release states them; at another public cut the
        release's one-class finding (stated at cut 0) is not what ``predict`` does, so the one-class check is made
        again at the cut (:func:`~dpcvx.release.usefulness.constant_at_cut`). Public: the weights, R and ``cut``
        (:meth:`_cut`)."""
        plain = self.class_weight is None and self.class_prior is None  # no fix of a rare class was asked for
        for text, category in held:
            if cut == 0 or category is not ConstantPredictionWarning:
                rare = plain and category is ConstantPredictionWarning
                warn_release(text + (rare_class_advice() if rare else ""), category)
        constant = None if cut == 0 else constant_at_cut(model.coef_, model.intercept_, model.classes_,
                                                         model.rows.norm_bound, cut)
        if constant is not None:
            warn_release(f"{speaker(owner)}: {constant}", ConstantPredictionWarning)

    @staticmethod
    def _classes_at_floor(model: PrivateModel | PrivateMulticlassModel) -> list[tuple[Any, dict[str, Any]]]:
        """The classes whose private count the release holds at its public floor (:func:`~dpcvx.models.class_count.
        floor_class`: the released counts and n only), each with its count's public record (n, floor, eps_c): a
        binary release's rarer class, or each one-vs-rest class whose own count is the floor."""
        classes = np.asarray(model.classes_).tolist()  # Python values, as a message shows them (1, not np.int64(1))
        # each class's fit against the rest: the pair (the rest, c), so a floor of c's count gives c, and a floor of
        # the rest's count, or none, gives None
        pairs = ([(getattr(part, "weights", None), (None, c)) for c, part in
                  zip(classes, model.certificate.per_class, strict=True)]
                 if isinstance(model, PrivateMulticlassModel) else
                 [(getattr(model.certificate, "weights", None), tuple(classes))])
        found = [(floor_class(weights, pair), weights) for weights, pair in pairs]
        return [(c, dict(weights.private_count)) for c, weights in found
                if c is not None and weights is not None and weights.private_count is not None]

    def _public_rate(self, certificate: Any, cut: float) -> float | None:
        """A public rate of ``classes[1]`` for the small-table rule: the rate its class weights balance (one rule for
        the weights of a dict, of "balanced" at a prior or at the released count, with sample_weight or without:
        :func:`~dpcvx.release.weight_rules.prior_rates`), else the offset's prior, else a public threshold."""
        weights = getattr(certificate, "weights", None)
        pairs = None if weights is None else weights.class_weights
        if pairs is not None:
            return prior_rates([weight for _, weight in pairs])[1]
        rates = self._rates(certificate)
        # the checked float (a Fraction threshold reached the warning's %g after the charge: a bare TypeError)
        return rates[1] if rates is not None else None if cut == 0 else check_threshold("threshold", self.threshold)

    def _warn_if_noise_dominates(self, model: PrivateModel | PrivateMulticlassModel, loss: Loss) -> None:
        """NoiseDominatesWarning when the release is mostly noise (public quantities only)."""
        # balanced weights: the view of n s_bar records, Lam / s_bar and Delta / s_bar (section 21)
        certificate, mean = ((model.certificate.per_class[0], 1.0) if isinstance(model, PrivateMulticlassModel)
                             else (effective_view(model.certificate), mean_weight(model.certificate)))
        rates = None if isinstance(model, PrivateMulticlassModel) else self._rates(model.certificate)
        # the signal is measured against the offset model: its loss H(pi)
        gain = loss_at_zero(loss) if rates is None else prior_entropy(rates)
        multiclass = isinstance(model, PrivateMulticlassModel)  # one class's certificate: its part of epsilon
        warn_if_noise_dominates(type(self).__name__, certificate, gain,
                                lam_advice=lambda: self._lam_advice(certificate), mean_weight=mean,
                                total_epsilon=model.epsilon,
                                classes=len(model.classes_) if multiclass else None)

    def _lam_advice(self, certificate: ReleaseCertificate) -> str:
        """The warning's lam advice: the value of the public rule lam="auto" (docs/theory.md, section 25), for
        the binary learner that was fitted (one-vs-rest: each class against the rest, classes -1/+1)."""
        binary = {"classes": (-1, 1)} if self._multiclass else {}
        return lam_rule_advice(certificate, self.lam, lambda: self._private_erm().set_params(
            data_norm=certificate.data_norm, norm_range=None, **binary))

    @staticmethod
    def _fitted_attributes(model: PrivateModel | PrivateMulticlassModel) -> dict[str, Any]:
        if isinstance(model, PrivateMulticlassModel):
            return {"model_": model, "certificate_": model.certificate, "classes_": model.classes_,
                    "coef_": model.coef_, "intercept_": model.intercept_, "n_features_in_": model.coef_.shape[1]}
        return {
            "model_": model,
            "certificate_": model.certificate,
            "classes_": model.classes_,
            "coef_": model.coef_[np.newaxis, :],
            "intercept_": np.array([model.intercept_]),
            "n_features_in_": model.coef_.shape[0],
        }

    def decision_function(self, X: Any) -> np.ndarray:
        """w^T x + b for each row (clipped to ``data_norm`` as in training); > 0 means ``classes[1]``.

        With more than two public classes: the (n, k) one-vs-rest scores."""
        check_fitted(self)
        return self._scorer().decision_function(self._validated(X, reset=False))

    def predict(self, X: Any) -> np.ndarray:
        """The predicted labels, values of ``classes`` (binary: at the public ``threshold``)."""
        check_fitted(self)
        return self._predicted(self._scorer(), self._validated(X, reset=False))

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy of :meth:`predict` on (X, y), weighted by ``sample_weight`` when given (scikit-learn's ``score``,
        :func:`~dpcvx.release.model.weighted_share`). Labels outside the public classes are refused, as the
        release's score refuses them (:func:`~dpcvx.validation.class_labels`): scikit-learn's counted them as
        mistakes, and a label column of another shape was scikit-learn's bare ValueError."""
        predictions = self.predict(X)
        labels = class_labels(y, predictions.shape[0], tuple(np.asarray(self.classes_).tolist()))
        return weighted_share(predictions == labels, sample_weight)

    def _offers_probabilities(self) -> bool:
        """Whether :meth:`predict_proba` is offered (scikit-learn's ``available_if``, as SGDClassifier's by its loss):
        after a fit as the release offers it (:func:`~dpcvx.release.model.require_probabilities`, the one rule of
        every release and of ``dpcvx predict``); before, for the catalogue's logistic loss, whose releases have
        that rule's loss text (a loss of one's own is known by its verified text only, at the fit)."""
        model = self.__dict__.get("model_")
        if model is not None:
            return hasattr(model, "predict_proba")
        try:
            loss = self._loss()
        except InputError:  # refused by fit, with its message
            return False
        entry = losses.catalogue_entry(loss)  # a subclass of MarginLoss is a loss of one's own
        return entry is not None and entry.spec == losses.logistic().spec

    @available_if(_offers_probabilities)
    def predict_proba(self, X: Any) -> np.ndarray:
        """(n, 2) probabilities of ``classes_[0]`` and ``classes_[1]``: 1 - s and s, s = sigmoid(w^T x + b).

        They are the link of the objective that was fitted. With no class setting, measured close to calibrated on
        ``benchmarks/probability_calibration.py``'s four tables (held-out Brier score at epsilon 1: rare3 0.0253
        against 0.0250 for non-private scikit-learn and 0.0271 for the public rate; adult 0.1188 against 0.1079
        and 0.1814). ``threshold=`` moves :meth:`predict`'s cut only and leaves them exactly as they are: the
        choice when the probabilities are used. ``class_weight`` (a dict or "balanced") fits the classes
        re-weighted, so these are the probabilities of the re-weighted classes, pushed toward 1/2 for a rare class,
        not the population's (Brier 0.1763 on rare3 and 0.1550 on adult at epsilon 1 with "balanced"); the
        intercept offset of ``class_prior`` (with ``class_weight=None``) changed them little there (0.0251, 0.1180).
        A calibrator fitted on the private rows (scikit-learn's ``CalibratedClassifierCV``) is outside the
        guarantee: its folds are charged fits, and its map is fitted without noise (docs/getting-started.md).

        With k > 2 public classes: (n, k), the softmax of the one-vs-rest scores minus the cuts (s_c - t_c,
        :attr:`decision_cut_`: 0 at the default threshold), a column for every declared class (also for a class absent
        from the training data): its largest column is the class :meth:`predict` says; a monotone map of the scores,
        not a calibrated probability. Offered for a release of the logistic loss only: another loss has no
        probability model (AttributeError, as the release's)."""
        check_fitted(self)
        scorer = self._scorer()  # a binary release's probabilities do not depend on the cut
        scorer = self._at_cut(scorer) if isinstance(scorer, PrivateMulticlassModel) else scorer
        return scorer.predict_proba(self._validated(X, reset=False))

    def _weighed_accuracies(self, model: PrivateMulticlassModel, X: Any, y: np.ndarray
                            ) -> tuple[float, float] | None:
        """NOT PRIVATE: :func:`~dpcvx.models.training_rows.weighed_accuracies` on at most MISSED_ROWS evenly spaced
        checked training rows, the release predicting at this estimator's cuts."""
        rows = sampled_rows(X.shape[0])
        return weighed_accuracies(self._predicted(model, X[rows]), X[rows], np.asarray(y)[rows], model.classes_)

    def _predicted(self, model: PrivateModel | PrivateMulticlassModel, X: Any) -> np.ndarray:
        """The release's labels for checked rows X at the public decision threshold (one-vs-rest: the class of the
        largest score minus its cut, :meth:`_at_cut`)."""
        if isinstance(model, PrivateMulticlassModel):
            return self._at_cut(model).predict(X)
        return np.where(self._above_cut(model, X), model.classes_[1], model.classes_[0])

    def _at_cut(self, model: PrivateMulticlassModel) -> PrivateMulticlassModel:
        """The one-vs-rest release predicting at this estimator's cuts (:meth:`_cuts`): a shallow copy whose
        ``decision_cut`` they are (the estimator's methods score with :meth:`_scorer`'s copy)."""
        cut = copy.copy(model)
        cut.decision_cut = self._cuts(model)
        return cut

    def _cuts(self, model: PrivateMulticlassModel) -> np.ndarray:
        """One-vs-rest's (k,) cuts t of the public ``threshold``: 0 at 0.5 (the largest score); for "prior", t_c the
        log-odds of class c's released count (:func:`~dpcvx.models.class_count.prior_cuts`, a public function of
        the release)."""
        checked = THRESHOLD("threshold", self.threshold)
        if checked != "prior":  # the fit's rule (a number other than 0.5 refused), for a threshold set after it
            decision_cut(checked, False)
            return np.zeros(len(model.classes_))
        cuts = prior_cuts(model.certificate.per_class)
        if cuts is None:
            raise InputError("threshold='prior' needs class rates: this release has no private class counts; they "
                             "are drawn by a fit with class_prior='private' (class_weight='balanced' weighs the "
                             "classes and gives no offset): refit with it, or set a numeric threshold")
        return cuts

    def _above_cut(self, model: PrivateModel, X: Any) -> np.ndarray:
        """Whether each checked row's decision value is above the binary release's cut (:meth:`_cut`): the rows it
        predicts ``classes[1]``."""
        return np.asarray(model.decision_function(X) > self._cut(model))

    @property
    def decision_cut_(self) -> float | np.ndarray:
        """The decision cut of the current ``threshold`` for the fitted binary release (:meth:`_cut`): :meth:`predict`
        says ``classes[1]`` where the decision value is above it. A public number (of the public threshold and of the
        release); ``dpcvx.save`` writes it, so that the loaded model predicts at it.

        One-vs-rest: the (k,) cuts t (:meth:`_cuts`), :meth:`predict` the class of the largest
        ``decision_function(X)[:, c] - t[c]``: zeros at the default threshold 0.5; with ``class_prior="private"``
        and ``threshold="prior"``, t_c the log-odds of class c's released count."""
        check_fitted(self)
        return self._cut_of(self.__dict__["model_"])

    def _cut_of(self, model: PrivateModel | PrivateMulticlassModel) -> float | np.ndarray:
        """The decision cut(s) of the current ``threshold`` for the release ``model`` (:attr:`decision_cut_`)."""
        if isinstance(model, PrivateMulticlassModel):
            return self._cuts(model)
        return self._cut(model)

    @property
    def model_(self) -> PrivateModel | PrivateMulticlassModel:
        """The release, predicting as this estimator does: its ``decision_cut`` is :attr:`decision_cut_`, the cut of
        the current ``threshold`` (a public number, set again at each access: ``set_params(threshold=...)`` after a fit
        moves it, no refit), and its ``feature_names_in_`` the names of the table it was fitted on. So
        ``estimator.model_.predict(X)`` is ``estimator.predict(X)``, and ``dpcvx.save(estimator.model_, path)``
        writes the file ``dpcvx.save(estimator, path)`` writes (the release's cut was 0 and its names none: a saved
        ``model_`` predicted at threshold 0.5). Kept in the instance's ``__dict__`` under its own name (``vars``
        lists it, scikit-learn's ``check_is_fitted`` reads it); AttributeError before a fit."""
        release = self.__dict__.get("model_")
        if release is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'model_' (it is set by fit)")
        release.decision_cut = self._cut_of(release)
        return release

    def _scorer(self) -> PrivateModel | PrivateMulticlassModel:
        """The fitted release as this estimator's methods score with it: without the names (:func:`~dpcvx.sklearn
        .inputs.unnamed`), its rows checked by the estimator."""
        return unnamed(self.__dict__["model_"])

    def _cut(self, model: PrivateModel) -> float:
        """The decision cut of the fitted binary release (:meth:`_cut_at` at the offset the fit took,
        :meth:`_fitted_offset`)."""
        return self._cut_at(model, self._fitted_offset())

    def _cut_at(self, model: PrivateModel, public: tuple[float, float] | None) -> float:
        """The decision cut of a binary release: log(t / (1 - t)) of the public ``threshold``, or for
        threshold="prior" the log-odds of the offset's rates (the ``public`` prior's, at the fit's, or the released
        count's: a public function of the release, docs/theory.md section 21)."""
        cut = threshold_cut(self.threshold, _offset_rates_of(public, model.certificate))
        if cut is None:
            raise InputError("threshold='prior' needs class rates: this release has no intercept offset; the offset "
                             "is the fit's class_prior (public rates (RATE_0, RATE_1), or 'private' for a released "
                             "count; class_weight='balanced' weighs the classes and gives none): refit with it, or set "
                             "a numeric threshold")
        return cut

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:  # noqa: N803 - scikit-learn's signature
        """scikit-learn's repr, then the effective lam after a fit whose Delta raised lam."""
        fitted = getattr(self, "certificate_", None)
        certificate = fitted.per_class[0] if isinstance(fitted, MulticlassCertificate) else fitted
        effective, lam = getattr(certificate, "effective_lam", None), getattr(certificate, "constants", {}).get("lam")
        raised = "" if effective is None else f" [fitted: effective lam {effective:.3g}, raised from lam {lam:.3g} " \
            "by objective perturbation's Delta]"
        return super().__repr__(N_CHAR_MAX) + raised

    def __sklearn_tags__(self) -> Any:  # sklearn.utils.Tags (scikit-learn >= 1.6)
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False   # the classes are public, declared by ``classes``
        tags.classifier_tags.poor_score = True     # a private model of check_estimator's tiny sets is noisy
        tags.input_tags.sparse = True              # scipy.sparse X is fitted as CSR
        return tags

    def _more_tags(self) -> dict[str, Any]:  # the same tags for scikit-learn < 1.6
        return {"poor_score": True, "binary_only": True}


def _sampled_scores(model: PrivateMulticlassModel, X: Any, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """NOT PRIVATE: one-vs-rest's decision values on at most MISSED_ROWS evenly spaced checked training rows, and
    their labels' positions in ``model.classes_`` (:func:`~dpcvx.models.training_rows.prior_cut_accuracies`)."""
    rows = sampled_rows(X.shape[0])
    classes = np.asarray(model.classes_)
    order = np.argsort(classes, kind="stable")
    labels = order[np.searchsorted(classes[order], np.asarray(y)[rows])]
    return np.asarray(model.decision_function(X[rows]), dtype=float), labels


class DPERMClassifier(_PrivateLinearClassifier):
    """A private linear classifier for any verified margin loss and regularizer.

    Output perturbation (Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011), Theorem 1) or objective perturbation
    (Theorem 2; for delta > 0 the Gaussian form, and for a constraint set or a non-smooth regularizer Kifer, Smith
    and Thakurta, COLT 2012, Theorem 1) of the regularized ERM over the classes' margins z = y w^T x; the proofs
    are in docs/theory.md, sections 2 to 4, 12 and 14.

    The scikit-learn face of :class:`~dpcvx.models.erm.PrivateERM`: PrivateERM is the
    mathematical layer (labels -1/+1, no intercept, no default ``data_norm``);
    this estimator follows scikit-learn (``classes=(0, 1)``, an intercept,
    ``data_norm=1.0`` for rows scaled by a :class:`~dpcvx.PublicSchema`) and
    builds a PrivateERM with those settings for each fit. A constant the
    verifier could only estimate (not prove) is always refused: the estimators
    take neither PrivateERM's ``allow_estimates`` nor its ``strict``, which acts
    only with it.

    Parameters
    ----------
    loss : str or callable, default "logistic"
        A catalogue spec (``"logistic"``, ``"huber:h=0.5"``, see
        :func:`dpcvx.losses.from_spec`) or a callable ``z -> l(z)`` returning a
        CVXPY expression of the margin z = y w^T x.
    regularizer : callable, optional
        ``w -> N(w)``, a CVXPY expression; default ``0.5 * cp.sum_squares(w)``.
    epsilon : float, default 1.0
        Privacy budget spent by each :meth:`fit`.
    delta : float, default 0.0
        0 gives the pure-epsilon mechanisms (noise density ~ exp(-beta ||b||));
        delta > 0 gives (epsilon, delta)-DP with Gaussian noise, far less noise in
        high dimension (docs/mechanisms.md). Choose delta well below 1/n (1/n^2
        is common). Objective perturbation with delta > 0 needs a C^2 loss
        (logistic, not the Huber hinge).
    mechanism : {"objective", "output"}, default "objective"
        Objective perturbation (Algorithm 2) or output perturbation
        (Algorithm 1); see docs/mechanisms.md.
    lam : float or "auto", default "auto"
        Regularization weight Lam of J(w) = (1/n) sum l + Lam N(w), the average
        loss. "auto" chooses it at each fit by the public rule of
        :mod:`dpcvx.privacy.lam_rule` (docs/theory.md, section 25) from n,
        epsilon, delta, the mechanism, the verified constants and the number of
        columns of X (public: the width is part of the declared schema, never a
        statistic of the values); it costs no privacy and the certificate
        records it (``certificate_.lam_rule``). scikit-learn's ``C`` (objective
        C sum l + 0.5 ||w||^2) corresponds to ``lam = 1 / (C n)``: ``C=1`` on
        10,000 rows is ``lam=1e-4``. A lam too small for epsilon, n and d gives
        a :class:`NoiseDominatesWarning`.
    data_norm : float, default 1.0
        Public bound R on ||x||; rows beyond it are scaled onto it (``clip``).
        Never taken from the data: scale features by public bounds first
        (for example :class:`dpcvx.PublicSchema`, whose rows have norm <= 1).
        Unlike :class:`~dpcvx.models.erm.PrivateERM` (no default), the estimators
        default to 1.0, the bound of a PublicSchema's rows.
        "private" (opt-in, with ``norm_range``): R is bought with ``norm_share`` of
        epsilon by the exponential-mechanism quantile of the row norms over the
        powers of two in ``norm_range`` (:class:`~dpcvx.models.erm.PrivateERM`'s
        ``data_norm``); ``certificate_.total_epsilon`` is the cost, charged once.
    fit_intercept : bool, default True
        Append a constant feature ``intercept_scaling``; it lies inside the
        norm bound, the regularizer and the noise (R grows to sqrt(R^2 + s^2)).
    intercept_scaling : float or "auto", default "auto"
        The constant s. "auto": s = sqrt(R B0 / W) (0.61 R by default), the value
        that minimises the bound of ``lam="auto"`` for an intercept of public
        prior |b| <= B0 = log 19 (:func:`dpcvx.privacy.lam_rule.intercept_scaling`,
        docs/theory.md, section 25.7); 1.0 before. Measured on Adult: lower
        error than 1.0 at eps 0.1 and 1 (benchmarks/results/intercept_options*.md).
    classes : pair or sequence, default (0, 1)
        The public (negative, positive) labels; never inferred from y.
        PrivateERM, the mathematical layer, defaults to (-1, 1); the
        estimators to scikit-learn's (0, 1). Labels outside the pair raise
        InputError naming the pair and this parameter. More than two public
        classes, e.g. ``classes=(0, 1, 2, 3, 4)``, fit one-vs-rest under ONE
        total (epsilon, delta) (:class:`dpcvx.models.multiclass.PrivateMulticlassERM`;
        docs/tutorial-multiclass.md); ``coef_`` is then (k, d). Each label is read by its
        value, whatever type the column's reader gave it: "1", "1.0", "true", True and
        Decimal("1") are the class 1, the integer 1 the class "1"
        (:func:`dpcvx.validation.declared_labels`); two classes of one value, ("1", "1.0"),
        are refused when declared.
    split : {"max", "paper", "rank-one"} or None, default None
        Budget split of objective perturbation (:func:`dpcvx.privacy.calibrate.objective_perturbation`): None is
        "max". Output perturbation takes none: any split given with ``mechanism="output"`` is refused.
    random_state : None or int, default None
        None draws fresh noise from operating-system entropy at every fit
        (the only choice for a real release; clones made by ``GridSearchCV``,
        ``cross_val_score`` or ``Pipeline`` then never share noise). A
        non-negative int makes fits reproducible, for experiments and tests:
        two releases with the same int seed on the same or neighbouring data
        share their noise vector, and the difference of the two releases
        cancels it (a privacy loss). A ``numpy.random.Generator`` or
        ``RandomState`` is refused (InputError): ``sklearn.base.clone``
        deep-copies it, so every clone would draw the identical noise. (A
        generator may be passed to :meth:`dpcvx.PrivateERM.fit` directly.)
    clip : bool, default True
        Scale rows with ||x|| > R onto the bound (True) or refuse them (False).
    solver : {"auto", "fast", "cvxpy"}, default "auto"
    class_weight : None, dict or "balanced", default None
        A PUBLIC dict {class: weight >= 0} (a class not named weighs 1; L and c grow by the largest weight), or
        "balanced": w_k = min_j pi_j / pi_k (largest 1) from ``class_prior``, else from ONE private count of
        ``classes[1]`` bought with ``class_count_share`` of epsilon and charged with the fit in one certificate
        (``certificate_.weights``). The count is released clamped onto [f, n - f], f = ceil(0.01 n)
        (``MIN_CLASS_RATE``, public): a class rarer than 1 % is fitted as one of 1 % (a ClassFloorWarning says
        so when the count is the floor); give such a class's rate as a public ``class_prior`` if public facts
        know it. The effective sample size becomes about twice the smallest class's count (docs/theory.md,
        section 21). Binary only.
    class_prior : dict, pair or "private", optional
        PUBLIC rates of the classes (known without this data) for ``class_weight="balanced"``: no count is drawn.
        With ``class_weight=None`` (DPLogisticRegression, default ridge): the intercept's ridge is centred at the
        public log-odds log(pi_1 / pi_0), fixed before the fit (:mod:`dpcvx.models.intercept_offset`).
        "private": the rates of ONE private count of ``classes[1]`` (``class_count_share`` of epsilon, charged with
        the fit once), for the weights of "balanced" or, with ``class_weight=None``, the offset at their log-odds
        (and the cut of ``threshold="prior"``); ``certificate_.weights`` records the count (docs/theory.md, 21).
        The count is clamped onto [f, n - f], f = ceil(0.01 n) (``MIN_CLASS_RATE``): the rates are never below
        1 %, and a rarer class is read at 1 %.
        More than two classes take "private" only: each class's fit against the rest draws its own count of that
        class (``class_count_share`` of its share epsilon / k, inside it: the k releases compose to the one total,
        docs/theory.md section 15; pure epsilon or objective perturbation), each recorded in
        ``model_.certificate.per_class``.
        Where it would have no effect (class_weight=None with another loss, an l1 or elastic-net penalty, no
        intercept or data_norm="private"; a dict of class weights) it is refused
        (InputError) before anything is charged, as are rates that are not in (0, 1) or do not sum to 1.
    class_count_share : float, default 0.05
        The share eps_c / epsilon of the private class count (:mod:`dpcvx.models.class_count`).
    column_statistics : "auto", "ranges", True or False, default "auto"
        Private column statistics (the route when the schema's public ranges are loose): one private release drawn
        inside ``fit`` with ``column_statistics_share`` of epsilon, charged with the fit once, that centres and
        scales the columns before the fit and is kept in the model; ``certificate_.column_statistics`` records it
        (:mod:`dpcvx.models.column_statistics`). With more than two classes it is drawn once, before the k
        one-vs-rest fits, which share its map and split the rest of epsilon (docs/theory.md, section 15; the record
        is ``model_.certificate.column_statistics``). "ranges": each column's range from a noisy histogram on a
        public grid (scale-free, pure epsilon; section 34); True: per-column sums and sums of squares (section 33).
        "auto" (the default) draws the ranges by a PUBLIC rule, resolved before anything is charged: replace-one,
        ``clip=True``, a numeric ``data_norm``, dense rows in memory, and the histograms' threshold T = 2 (2 d /
        eps_s) ln(256) at most 0.4 n (n rows, d columns, eps_s the share of epsilon); otherwise it draws nothing
        (:func:`~dpcvx.models.column_statistics.auto_statistics`; for more than two classes the same rule,
        benchmarks/multiclass_ranges.py). A plan (:meth:`plan`, :func:`dpcvx.tune`) resolves it at the planned
        rows' shape.
    column_statistics_share : float, default 0.1
        The share eps_s / epsilon of the column statistics.
    sample_weight_bound : float, optional
        The PUBLIC bound w_max of ``fit(..., sample_weight=)``: weights are clipped onto [0, w_max] and L, c
        are multiplied by w_max (docs/theory.md, section 21). Without it sample_weight is refused.
    float_safe : bool, default False
        True: exact integer noise on a public lattice, a proof that holds for the doubles released
        (:class:`~dpcvx.models.erm.PrivateERM`'s ``float_safe``; the certificate names the
        floating-point guarantee, docs/mechanisms.md).
    norm_range : pair (r_min, r_max), optional
        The PUBLIC range of ``data_norm="private"`` (refused with a numeric data_norm).
    norm_share : float, default 0.1
        The share eps_q / epsilon that ``data_norm="private"`` spends on R.
    allow_large_delta : bool, default False
        delta must be below 1/n (n: the number of training rows, public under replace-one); a larger
        delta raises InputError before anything is spent unless this is True (a mechanism that publishes
        each record whole with probability delta is (0, delta)-DP).
    threshold : float in (0, 1) or "prior", default 0.5
        PUBLIC: predict says ``classes[1]`` when w^T x + b > log(t / (1 - t)) (post-processing; ``decision_cut_`` is the
        cut, ``model_.decision_cut`` too, and ``dpcvx.save`` writes it with the release, so the loaded model
        predicts at it); a published rate of ``classes[1]`` is balanced accuracy's Bayes rule (docs/theory.md,
        section 32).
        "prior": t is the intercept offset's rate of ``classes[1]`` (``class_prior``, public or the released count:
        a public function of the release), with ``class_weight=None``.
        More than two classes: 0.5 (the default: predict the class of the largest one-vs-rest score) or "prior"
        with ``class_prior="private"``: predict the class c of the largest s_c - t_c, s_c = w_c^T x + b_c and t_c
        = log(n~_c / (n - n~_c)) the log-odds of class c's released count (``decision_cut_``, (k,)); on a table
        with one class at 80 % and nine at 2.2 % (n 20,000, d 8) it scored balanced accuracy 0.76 at epsilon 1
        where the largest score alone scored 0.18 (benchmarks/results/multiclass_prior_*.md). On 8 to 16 classes
        with shares down to 0.5 % it did better than the default only at n x epsilon / k (n the training rows, or
        ``n_public`` under add/remove neighbours) of 2,000 or more
        (``dpcvx.models.training_rows.PRIOR_ADVICE_FLOOR``); below that it did worse in balanced accuracy in 16 of
        40 cells, and its accuracy fell below a constant prediction's in 28
        (benchmarks/results/multiclass_prior_many*.md). On real tables (UCI Adult's occupation, 14 classes, and
        education, 16 levels, epsilon 0.5 to 3) it helped in none of 6 cells: its accuracy fell below the
        default's in each and below a constant prediction's in 5 (benchmarks/results/multiclass_prior_real.md),
        so the NOT PRIVATE note advises it nowhere. On 3 to 7 classes it was measured both ways at any scale
        (benchmarks/results/multiclass_prior_ordinal.md): below 2,000 better in balanced accuracy by more than 0.02
        in 10 of 31 cells, worse in 8; at 2,000 or more better in 17 of 46, worse in none, but its accuracy fell
        below a constant prediction's in 6 of the 9 cells that record one (on an ordinal grade of 7 classes with
        thin end grades, balanced accuracy within 0.03 of the default's and accuracy far below it).
        The one parameter read after the fit: ``set_params(threshold=...)`` on a fitted estimator takes effect,
        no refit, in predict, predict_proba, score, ``decision_cut_``, ``model_`` and ``dpcvx.save``, and a value
        the fit would refuse (a number other than 0.5 for more than two classes, "prior" without the release's
        rates) is refused there with the fit's InputError. Every other parameter set after a fit takes effect at
        the next fit only (``class_prior``'s rates for "prior" are those the fit took).
    neighbours : {"replace-one", "add-remove"}, default "replace-one"
        The neighbour relation the guarantee is proved for (:meth:`dpcvx.PrivateERM.fit`'s):
        "add-remove" (OpenDP's and DP-SGD's unit; delta > 0) keeps n private and needs ``n_public``.
    n_public : int, optional
        With ``neighbours="add-remove"``: a public data-set size chosen without looking at the data.
    accountant : dpcvx.PrivacyAccountant, optional
        Charged by every :meth:`fit` before any noise is drawn (or pass it to ``fit``, not both).
        ``sklearn.base.clone`` keeps the same accountant (it is one budget for one data set), so the
        fits of ``cross_val_score`` or ``GridSearchCV`` are all charged to it: the fits only. Their held-out
        scores, and the hyperparameters chosen from them (``best_params_``), are computed without noise: not
        charged and not private (module docstring); ``dpcvx.tune`` chooses privately.

    Attributes
    ----------
    model_ : dpcvx.PrivateModel
        The release, predicting as the estimator does (its ``decision_cut`` is ``decision_cut_``, its
        ``feature_names_in_`` the fitted table's); save it with ``dpcvx.save(estimator, path)``, the same file
        as ``dpcvx.save(estimator.model_, path)`` (or a pipeline of a PublicSchema and this estimator: the
        schema is kept).
    certificate_ : dpcvx.ReleaseCertificate
        What the release relies on: theorem, constants, epsilon, calibration, the public gradient bound gamma (never a
        measured residual: that is in ``diagnostics_``, NOT PRIVATE).
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    decision_cut_ : float
        Two classes: the cut log(t / (1 - t)) of the current ``threshold`` t (or of "prior"'s rate) on the decision
        value; ``dpcvx.save`` writes it, so the loaded model predicts as this estimator does.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame with string column names.

    Warns
    -----
    NoiseDominatesWarning
        When the noise's typical share of a decision value is more than
        ``NOISE_RATIO_LIMIT`` times the share of a model of lam="auto"'s
        comparator norm (public quantities only; see
        :func:`~dpcvx.sklearn.noise_warning.margin_noise_to_signal`).
    dpcvx.ClippingWarning
        When rows above ``data_norm`` were scaled onto it (shown to you only).
    """

    def __init__(self, loss: Any = "logistic", regularizer: Any = None, *, epsilon: float = 1.0,
                 delta: float = 0.0, mechanism: str = "objective", lam: float | str = "auto",
                 data_norm: float | str = 1.0, fit_intercept: bool = True, intercept_scaling: float | str = "auto",
                 classes: Sequence[Any] = (0, 1), split: str | None = None, random_state: Any = None,
                 clip: bool = True, solver: str = "auto",
                 class_weight: Any = None, class_prior: Any = None,
                 class_count_share: float = CLASS_COUNT_SHARE, sample_weight_bound: float | None = None,
                 column_statistics: bool | str = AUTO, column_statistics_share: float = COLUMN_STATISTICS_SHARE,
                 float_safe: bool = False, norm_range: tuple[float, float] | None = None,
                 norm_share: float = NORM_SHARE, allow_large_delta: bool = False,
                 threshold: float | Literal["prior"] = 0.5, neighbours: str = "replace-one",
                 n_public: int | None = None, accountant: PrivacyAccountant | None = None):
        keep_parameters(self, locals())

    def _loss(self) -> Loss:
        return losses.from_spec(self.loss) if isinstance(self.loss, str) else self.loss

    def _regularizer(self) -> Regularizer | None:
        return self.regularizer


PENALTIES = ("l2", "l1", "elasticnet")


class DPLogisticRegression(_PrivateLinearClassifier):
    """Private regularized logistic regression, l(z) = log(1 + e^{-z}) (L = 1, c = 1/4).

    Parameters and attributes as :class:`DPERMClassifier` (without ``loss``
    and ``regularizer``), plus scikit-learn's ``penalty`` and ``l1_ratio``.
    L1 terms are released by objective perturbation under Kifer, Smith and
    Thakurta (2012) and solved by proximal Newton (docs/theory.md, section 14).
    The release has no exact zeros (the noise reaches every weight); for a
    sparse model use ``estimator.model_.sparsify(threshold)`` with a public
    threshold (post-processing, no privacy cost; :mod:`dpcvx.release.sparsify`).
    :meth:`predict_proba` is the sigmoid of the decision function.

    Compared with :class:`~dpcvx.models.erm.PrivateERM` (the mathematical layer:
    labels -1/+1, no intercept, no default ``data_norm``), this estimator
    follows scikit-learn: ``classes=(0, 1)``, ``fit_intercept=True`` and
    ``data_norm=1.0``. scikit-learn's ``LogisticRegression(C=C)`` on n rows
    corresponds to ``lam = 1 / (C n)``.

    Parameters
    ----------
    penalty : {"l2", "l1", "elasticnet"}
        The regularizer N(w): 0.5 ||w||^2 ("l2", the default), ||w||_1 ("l1"),
        or l1_ratio ||w||_1 + (1 - l1_ratio) / 2 ||w||^2 ("elasticnet").
    l1_ratio : float, optional
        The L1 share of "elasticnet", in [0, 1].
    """

    offsets_intercept = True
    _parameters: ClassVar[dict[str, Check]] = {
        **_PrivateLinearClassifier._parameters,
        "penalty": lambda name, value: check_choice(name, value, PENALTIES),
        "l1_ratio": optional(lambda name, value: fraction(name, value, allow_zero=True, allow_one=True)),
    }

    def __init__(self, *, epsilon: float = 1.0, delta: float = 0.0, mechanism: str = "objective",
                 lam: float | str = "auto", data_norm: float | str = 1.0, fit_intercept: bool = True,
                 intercept_scaling: float | str = "auto", classes: Sequence[Any] = (0, 1), split: str | None = None,
                 random_state: Any = None, clip: bool = True, solver: str = "auto",
                 penalty: str = "l2", l1_ratio: float | None = None,
                 class_weight: Any = None, class_prior: Any = None,
                 class_count_share: float = CLASS_COUNT_SHARE, sample_weight_bound: float | None = None,
                 column_statistics: bool | str = AUTO, column_statistics_share: float = COLUMN_STATISTICS_SHARE,
                 float_safe: bool = False, norm_range: tuple[float, float] | None = None,
                 norm_share: float = NORM_SHARE, allow_large_delta: bool = False,
                 threshold: float | Literal["prior"] = 0.5, neighbours: str = "replace-one",
                 n_public: int | None = None, accountant: PrivacyAccountant | None = None):
        keep_parameters(self, locals())

    def _loss(self) -> Loss:
        return losses.logistic()

    def _regularizer(self) -> Regularizer | None:
        """N(w) of ``penalty`` (checked with ``l1_ratio`` in the declared table, :attr:`_parameters`)."""
        if self.penalty == "l2":
            return None
        if self.penalty == "l1":
            return ElasticNet(1.0)
        if self.l1_ratio is None or self.l1_ratio == 0:
            raise InputError(f"penalty='elasticnet' needs l1_ratio in (0, 1] (scikit-learn's name), got "
                             f"{self.l1_ratio!r}")
        return ElasticNet(float(self.l1_ratio))


@dataclass(frozen=True)
class ElasticNet:
    """N(w) = ratio ||w||_1 + (1 - ratio) / 2 ||w||^2 (``penalty="l1"``: ratio 1, ||w||_1 alone), as scikit-learn's
    ``l1_ratio`` weighs them: a value of its public ratio, so that a plan holding it pickles."""

    ratio: float

    def __call__(self, w: Any) -> Any:
        import cvxpy as cp  # the default l2 penalty needs no CVXPY (verifier.default_ridge)

        if self.ratio == 1.0:
            return cp.norm1(w)
        return self.ratio * cp.norm1(w) + (1 - self.ratio) / 2 * cp.sum_squares(w)


class DPHuberSVM(_PrivateLinearClassifier):
    """Private L2-regularized Huber support vector machine (Huber hinge with width ``h``).

    l(z) is 0 for z > 1 + h, (1 + h - z)^2 / (4h) near 1 and 1 - z below 1 - h;
    L = 1, c = 1/(2h). Parameters and attributes as :class:`DPERMClassifier`
    (without ``loss`` and ``regularizer``), plus ``h``.

    Compared with :class:`~dpcvx.models.erm.PrivateERM` (the mathematical layer:
    labels -1/+1, no intercept, no default ``data_norm``), this estimator
    follows scikit-learn: ``classes=(0, 1)``, ``fit_intercept=True`` and
    ``data_norm=1.0``. An SVM's ``C`` on n rows corresponds to
    ``lam = 1 / (C n)``.

    Paper: Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011), Sec. 3.4.2 (the Huber SVM, the Huber hinge of
    eq. (23)) and Corollary 4 (objective perturbation with it); proof: docs/theory.md, sections 2 to 4.

    Parameters
    ----------
    h : float
        The width of the Huber hinge, > 0 (default 0.5).
    """

    def __init__(self, h: float = 0.5, *, epsilon: float = 1.0, delta: float = 0.0, mechanism: str = "objective",
                 lam: float | str = "auto", data_norm: float | str = 1.0, fit_intercept: bool = True,
                 intercept_scaling: float | str = "auto", classes: Sequence[Any] = (0, 1), split: str | None = None,
                 random_state: Any = None, clip: bool = True, solver: str = "auto",
                 class_weight: Any = None, class_prior: Any = None,
                 class_count_share: float = CLASS_COUNT_SHARE, sample_weight_bound: float | None = None,
                 column_statistics: bool | str = AUTO, column_statistics_share: float = COLUMN_STATISTICS_SHARE,
                 float_safe: bool = False,
                 norm_range: tuple[float, float] | None = None, norm_share: float = NORM_SHARE,
                 allow_large_delta: bool = False, threshold: float | Literal["prior"] = 0.5,
                 neighbours: str = "replace-one", n_public: int | None = None,
                 accountant: PrivacyAccountant | None = None):
        keep_parameters(self, locals())

    def _loss(self) -> Loss:
        return losses.huber_hinge(self.h)
