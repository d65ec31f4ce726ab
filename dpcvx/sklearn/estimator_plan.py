"""The plan of an estimator's fit: made once from public inputs and checked, executed on each data set.

``estimator.plan(X, y)`` (:class:`~dpcvx.sklearn.classifiers.DPLogisticRegression` and the other estimators
over :class:`~dpcvx.models.erm.PrivateERM`) runs every check of ``estimator.fit(X, y)`` (scikit-learn's input
checks, the public classes, the learner's settings, the verified problem, the calibration) with nothing charged
and nothing drawn, and returns an :class:`EstimatorPlan`: the estimator's parameters, the learner they build and
that learner's one plan (a :class:`~dpcvx.models.fit_plan.FitPlan`, a
:class:`~dpcvx.models.multiclass.MulticlassPlan` for one-vs-rest, or AdaSSP's
:class:`~dpcvx.models.linear_regression.AdaSSPPlan` for :class:`~dpcvx.DPLinearRegression`).
:meth:`EstimatorPlan.fit` executes it on rows of the same width and returns a fitted copy of the estimator, as
``fit`` would have fitted it: :func:`dpcvx.tune` plans each estimator candidate once and fits every run from that
plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..data.notes import columns_named
from ..exceptions import float_errors_ignored
from ..models.class_count import RatesPlan
from ..models.column_statistics import StandardisedPlan
from ..models.contract import as_planned
from ..models.erm import PrivateERM
from ..models.fit_plan import FitPlan
from ..models.linear_regression import AdaSSPPlan, PrivateLinearRegression
from ..models.multiclass import MulticlassPlan
from ..models.private_norm import BoundPlan
from ..privacy.accountant import PrivacyAccountant
from ..release.usefulness import called

__all__ = ["EstimatorPlan", "LearnerPlan", "PlansFirst", "ShapedPlan"]

#: the plan of the learner an estimator builds
LearnerPlan = FitPlan | MulticlassPlan | AdaSSPPlan | StandardisedPlan | RatesPlan | BoundPlan
#: a learner and its one plan made at X's public width, before a value of X or y is read (``_shaped_plan``)
ShapedPlan = tuple[PrivateERM, FitPlan | MulticlassPlan]


@dataclass(frozen=True)
class EstimatorPlan:
    """An estimator's fit planned once (public values only).

    Attributes
    ----------
    estimator : the planned estimator (never modified: each :meth:`fit` fits a copy of it)
    learner : the learner its parameters build (a :class:`~dpcvx.models.erm.PrivateERM`, or AdaSSP's
        :class:`~dpcvx.models.linear_regression.PrivateLinearRegression`)
    plan : the learner's plan, a :class:`~dpcvx.models.fit_plan.FitPlan`, for more than two public classes
        a :class:`~dpcvx.models.multiclass.MulticlassPlan`, for AdaSSP an
        :class:`~dpcvx.models.linear_regression.AdaSSPPlan`
    """

    estimator: Any
    learner: PrivateERM | PrivateLinearRegression
    plan: LearnerPlan

    @property
    def classes(self) -> tuple[Any, ...] | None:
        """The estimator's public classes (None for a regressor)."""
        return self.plan.classes

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: Any = None, accountant: PrivacyAccountant | None = None,
            sample_weight: Any = None) -> Any:
        """A copy of the estimator with ``random_state`` (None or an int seed), fitted on (X, y) from this plan:
        the estimator's ``fit`` with the planning already done (checks of X and y, then one charge, then the
        noise). A refused call spends nothing."""
        estimator = as_planned(self.estimator)  # its own parameter values: the plan's stay as planned
        estimator.random_state = random_state
        # every warning of the fit names the estimator; a note on clipped rows, X's columns
        with called(type(estimator).__name__), columns_named(X):
            return estimator._fit(X, y, sample_weight, accountant, self)


#: what an estimator's public checks hand its planning (:meth:`PlansFirst._plan_context`)
Context = TypeVar("Context")


class PlansFirst(Generic[Context]):
    """The planning of an estimator whose :meth:`fit` is one plan executed: :meth:`plan` and, for
    :func:`dpcvx.tune`, :meth:`_plan_at_width`, the same two steps for every estimator (a classifier's context is
    whether it fits one-vs-rest, a regressor's its checked call), each estimator saying how its plan is made at X's
    width (``_shaped_plan``) and bound to checked rows (``_planned_rows``)."""

    #: :meth:`fit` is one plan executed, a composite draw's too (column statistics, a class count, a norm bound,
    #: private label ranges: the learner's :data:`LearnerPlan`), so a caller may plan once
    plans_first = True
    #: a fit on a table keeps its column names as ``feature_names_in_``
    #: (:func:`~dpcvx.sklearn.inputs.keep_feature_names`), which its predictions check; :func:`dpcvx.tune`, whose runs
    #: fit parts of X as arrays, gives them to the selected estimator
    keeps_feature_names = True

    @float_errors_ignored
    def plan(self, X: Any, y: Any, sample_weight: Any = None) -> EstimatorPlan:
        """Every check of :meth:`fit` on (X, y), with nothing charged and nothing drawn: the
        :class:`EstimatorPlan`, whose ``fit(X2, y2, random_state=...)`` fits a copy of this estimator on rows of the
        same width (:func:`dpcvx.tune` fits every run of a candidate from it). The plan holds a copy of this
        estimator as planned: a ``set_params`` after planning changes neither what the plan checked nor what its
        fits release (:func:`~dpcvx.models.contract.as_planned`)."""
        planned = as_planned(self)
        context = planned._plan_context(sample_weight)
        return planned._planned_rows(planned._shaped_plan(X, context, sample_weight), X, y, context, sample_weight)

    def _plan_at_width(self, X: Any) -> Callable[[Any, Any], EstimatorPlan] | None:
        """:meth:`plan`'s checks before a value of X or y is read, its learner's one plan made at X's public width
        (``_shaped_plan``): what binds that plan to rows (X, y) of that width, their checks run there, and returns
        the :class:`EstimatorPlan` (:func:`dpcvx.tune` plans a candidate here before it reads the data). None where
        the plan is made on the checked rows (:meth:`plan`). Planned on a copy, as :meth:`plan` is."""
        planned = as_planned(self)
        context = planned._plan_context(None)
        shaped = planned._shaped_plan(X, context, None)
        if shaped is None:
            return None
        return lambda X, y: planned._planned_rows(shaped, X, y, context, None)

    def _plan_context(self, sample_weight: Any) -> Context:
        """The fit's public checks (before anything is read of the data), as its planning needs them."""
        raise NotImplementedError

    def _shaped_plan(self, X: Any, context: Context, sample_weight: Any) -> ShapedPlan | None:
        """The learner and its one plan made at X's public width before a value of X or y is read; None where the
        plan is made on the checked rows."""
        raise NotImplementedError

    def _planned_rows(self, shaped: ShapedPlan | None, X: Any, y: Any, context: Context,
                      sample_weight: Any) -> EstimatorPlan:
        """:meth:`plan` after its public checks: the estimator's checks of X and y, then ``shaped`` bound to them,
        or (None) the learner's plan made on them."""
        raise NotImplementedError
