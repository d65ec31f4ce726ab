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

import copy
from dataclasses import dataclass
from typing import Any

from ..models.class_count import RatesPlan
from ..models.column_statistics import StandardisedPlan
from ..models.erm import PrivateERM
from ..models.fit_plan import FitPlan
from ..models.linear_regression import AdaSSPPlan, PrivateLinearRegression
from ..models.multiclass import MulticlassPlan
from ..models.private_norm import BoundPlan
from ..privacy.accountant import PrivacyAccountant
from ..release.usefulness import called

__all__ = ["EstimatorPlan", "LearnerPlan"]

#: the plan of the learner an estimator builds
LearnerPlan = FitPlan | MulticlassPlan | AdaSSPPlan | StandardisedPlan | RatesPlan | BoundPlan


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

    def fit(self, X: Any, y: Any, *, random_state: Any = None, accountant: PrivacyAccountant | None = None,
            sample_weight: Any = None) -> Any:
        """A copy of the estimator with ``random_state`` (None or an int seed), fitted on (X, y) from this plan:
        the estimator's ``fit`` with the planning already done (checks of X and y, then one charge, then the
        noise). A refused call spends nothing."""
        estimator = copy.copy(self.estimator)
        estimator.random_state = random_state
        with called(type(estimator).__name__):  # every warning of the fit names the estimator
            return estimator._fit(X, y, sample_weight, accountant, self)
