"""What a procedure may assume of a learner's predictions: the ``predicts_per_row`` capability.

:func:`dpcvx.tune` (Algorithm 4 of JMLR 2011) scores every candidate by its
mistakes on PRIVATE held-out rows, z_i = #{j : predict(x_j) != y_j}, and proves
the selection private because one changed held-out record moves each z_i by at
most 1. That holds only when the prediction of a row is a function of that row
and of a model already released (private by the learner's own guarantee), so
that scoring reads each held-out row once and keeps nothing of it.

An interactive learner breaks both halves: :class:`dpcvx.PINP` answers each row
with a curator that updates on the rows it is asked about, so a held-out row
can change later answers (z_i moves by more than 1), the rows that trigger an
update become the released centres verbatim, and a row outside the public
ball makes the curator raise after the budget is charged.

A learner class states its capability as the class attribute
``predicts_per_row`` (a ``ClassVar[bool]``):

* True: ``fit`` releases a model and ``predict`` maps each row alone through it
  (PrivateERM, TDDL, TDIL, the linear and multiclass learners, the estimators);
* False: predictions depend on the queries asked (PINP).

A learner that does not declare it is treated as not per-row: the property is a
proof obligation of the learner, never guessed from its name or behaviour.
"""

from __future__ import annotations

import copy
import inspect
import sys
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from ..exceptions import InputError
from ..privacy.accountant import PrivacyAccountant
from ..privacy.neighbours import Neighbours
from ..validation import refuse_unknown_parameters

__all__ = ["predicts_per_row", "copied", "learner_copy", "check_tunable", "binding_error", "refuse_held_accountant",
           "FIT_KEYWORDS", "Learner", "Plan", "ConstructorParameters", "without_diagnostics", "held_values",
           "as_planned", "plain_parameter_names"]


class ConstructorParameters:
    """scikit-learn's parameter interface for a learner whose constructor holds its settings and whose ``fit`` takes
    the budget: ``get_params`` (the constructor's parameters) and ``set_params`` (in place; an unknown name refused,
    :func:`~dpcvx.validation.refuse_unknown_parameters`), which :func:`dpcvx.tune` and ``clone`` use. A value is
    checked where the fit checks it (validate once, at the fit). PrivateLinearRegression had neither, so ``tune``
    refused it as no estimator, where PrivateERM and the kernel learners were tuned."""

    #: the parameters ``repr`` always shows; the others it shows when not at their defaults
    _SHOWN: ClassVar[tuple[str, ...]] = ()

    def __repr__(self) -> str:
        """The class with :attr:`_SHOWN`'s parameters, then every other parameter not at its default (a default
        instance's value, as its constructor normalises it: of the first class up the MRO built without arguments,
        so a user's subclass whose constructor requires one is shown by its dpcvx base's defaults)."""
        default = next(instance for instance in map(_built_without_arguments, type(self).__mro__)
                       if instance is not None)
        shown = [*self._SHOWN, *(name for name in self._parameter_names()
                                 if name not in self._SHOWN and not _is_default(getattr(self, name),
                                                                                getattr(default, name, _NONE)))]
        return f"{type(self).__name__}(" + ", ".join(f"{name}={getattr(self, name)!r}" for name in shown) + ")"

    @classmethod
    def _parameter_names(cls) -> tuple[str, ...]:
        """The constructor's parameter names, read off its signature once per class (:data:`_SIGNATURE_NAMES`):
        ``inspect.signature`` took about a quarter of a millisecond at each ``get_params``, ``set_params`` and
        plan."""
        names = _SIGNATURE_NAMES.get(cls)
        if names is None:
            names = _SIGNATURE_NAMES[cls] = tuple(name for name in inspect.signature(cls.__init__).parameters
                                                  if name != "self")
        return names

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters (``deep`` is accepted for scikit-learn compatibility)."""
        return {name: getattr(self, name) for name in self._parameter_names()}

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle holds the settings and what the fit kept, never :func:`without_diagnostics`'s."""
        return without_diagnostics(self)

    def set_params(self, **params: Any) -> Any:
        """Set constructor parameters in place; unknown names raise InputError."""
        refuse_unknown_parameters(type(self).__name__, params, self._parameter_names(),
                                  "epsilon, delta and random_state go to fit")
        for name, value in params.items():
            setattr(self, name, value)
        return self


#: each class's constructor parameter names (:meth:`ConstructorParameters._parameter_names`), and the names whose
#: values :func:`as_planned` copies (:func:`plain_parameter_names`; None for a class whose get_params it calls)
_SIGNATURE_NAMES: dict[type, tuple[str, ...]] = {}
_PLAIN_NAMES: dict[type, tuple[str, ...] | None] = {}


def plain_parameter_names(cls: type) -> tuple[str, ...] | None:
    """The names ``cls``'s ``get_params(deep=False)`` returns, looked up once per class, where it is ``{name:
    getattr(owner, name)}`` over them: :class:`ConstructorParameters`'s (its constructor's signature) and
    scikit-learn's ``BaseEstimator``'s (the class's ``_get_param_names``, a subclass's own included). None for a
    class with another ``get_params`` (one-vs-rest's, a user's), which :func:`as_planned` calls each time. Each
    ``get_params`` read the constructor's signature (``inspect.signature``) at every call, and a plan and its fit
    called it twice: about half a millisecond, 6 to 8 % of an estimator's plan and fit on small data (P8 F1,
    sixty-eighth session)."""
    if cls in _PLAIN_NAMES:
        return _PLAIN_NAMES[cls]
    get_params = getattr(cls, "get_params", None)
    sklearn_base = sys.modules.get("sklearn.base")  # imported wherever a class has scikit-learn's get_params
    names: tuple[str, ...] | None = None
    if get_params is ConstructorParameters.get_params:
        names = cls._parameter_names()  # type: ignore[attr-defined]
    elif sklearn_base is not None and get_params is sklearn_base.BaseEstimator.get_params:
        names = tuple(cls._get_param_names())  # type: ignore[attr-defined]
    _PLAIN_NAMES[cls] = names
    return names


def without_diagnostics(learner: Any) -> dict[str, Any]:
    """The learner's state for a copy or a pickle, without ``diagnostics_`` (NOT PRIVATE: the solver's iterations,
    timings and residual measured on the private rows, for this process's data owner only). A fit plan holds its
    learner, and once a plan had fitted, its pickle carried the last fit's solver statistics, which differ between
    neighbouring data sets (an attacker probe: the residual 1.716e-08 against 1.768e-08), where a plan holds public
    values only."""
    state = dict(learner.__dict__)
    state.pop("diagnostics_", None)
    return state


def held_values(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """Each parameter value as a copy of its own (``copy.deepcopy``, as scikit-learn's ``clone`` copies a parameter
    that is not an estimator), a :class:`~dpcvx.privacy.accountant.PrivacyAccountant` kept as the one object (one
    budget for one data set, as ``clone`` keeps it: its ``__sklearn_clone__``). What a plan or a procedure holds
    across its checks and its charge: a dict, list or array the caller keeps and changes in place afterwards
    (``class_weight[1] = 50``, ``classes.append(2)``) then changed nothing of what was checked, fitted or reported,
    where a shallow copy shared it, and the fit released weight 1 under an estimator saying 50 (an attacker probe,
    sixty-seventh session). One memo for all values: two parameters holding one object hold one copy of it. A value
    that cannot be copied (a loss holding an open file or a lock) is refused by its name with
    :class:`~dpcvx.exceptions.InputError`, before anything is charged (it raised copy's bare TypeError: an attacker
    probe, sixty-seventh session)."""
    memo: dict[int, Any] = {id(value): value for value in parameters.values() if isinstance(value, PrivacyAccountant)}
    return {name: copied(value, name, "a plan holds a copy of each parameter value as planned, so that nothing "
                         "changed after planning reaches its fits", ", or call fit, which plans and fits in one "
                         "call; nothing was charged", memo) for name, value in parameters.items()}


def copied(value: Any, name: str, reason: str, remedy: str = "", memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy(value, memo)``, or :class:`~dpcvx.exceptions.InputError` naming ``name`` and why a copy is
    taken (``reason``) when the value cannot be copied (an open file, a lock or a socket held by a loss, a map or
    ``cvxpy_options``): the one refusal of every copy dpcvx takes of a caller's learner or parameter value, where
    copy's bare TypeError escaped (one-vs-rest's ``check_options`` and fit with column statistics, tune's candidates:
    analyst probe P5, session 68)."""
    try:
        return copy.deepcopy(value, memo)
    except (TypeError, copy.Error) as error:
        raise InputError(f"{name}={type(value).__name__}(...) cannot be copied ({error}): {reason}. Give the object a "
                         f"__deepcopy__ (or hold the file or lock outside it){remedy}") from error


def learner_copy(learner: Any, remedy: str = "; nothing was charged") -> Any:
    """A copy of the caller's ``learner`` of its own, which dpcvx changes (``set_params``) and fits while the
    caller's is left as given: :func:`copied`, refused with InputError when a value it holds cannot be copied."""
    return copied(learner, "learner", "dpcvx fits a copy of it, leaving the caller's learner unchanged", remedy)


def as_planned(owner: Any) -> Any:
    """A copy of the learner or estimator ``owner`` holding a copy of each of its parameter values
    (:func:`held_values`; other attributes shared, as a shallow copy shares them, ``diagnostics_`` left out): what a
    ``plan`` holds, so that neither ``set_params`` nor a value changed in place after planning changes what the plan
    checked, what its fits release or what they report. A plan held its learner itself: AdaSSP's plan read
    ``label_bound`` when it fitted, so a ``set_params(label_bound=10)`` after planning at 0.1 clipped the labels at
    10 under noise calibrated for 0.1 (sixty-seventh session); PrivateERM's solver read ``cvxpy_options`` when it
    solved, so an option added in place was refused only after the charge; an estimator's plan held the estimator
    itself, so a ``set_params`` after planning (an invalid ``fit_intercept``, another epsilon) was fitted by a plan
    checked on the old values (sixty-sixth session), and a shallow copy still shared a ``class_weight`` dict with the
    caller. Each fitted estimator an estimator's plan returns is such a copy too. The parameters' names are looked up
    once per class (:func:`plain_parameter_names`), their values read at each call."""
    names = plain_parameter_names(type(owner))  # looked up once per class; the values read at each call
    parameters = owner.get_params(deep=False) if names is None else {name: getattr(owner, name) for name in names}
    planned = copy.copy(owner)
    planned.__dict__.update(held_values(parameters))
    return planned


_NONE = object()  # the default of a parameter the default instance lacks (a subclass's own): always shown


def _built_without_arguments(cls: type) -> Any:
    """``cls()``, or None when its constructor requires an argument (``object()`` ends every search)."""
    try:
        return cls()
    except TypeError:
        return None


def _is_default(value: Any, default: Any) -> bool:
    """Whether a setting holds its default: the same object, or an equal value of the same type."""
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):  # an array's == is elementwise
        return False


def predicts_per_row(learner: Any) -> bool:
    """Whether ``learner`` (an instance or a class) declares ``predicts_per_row = True``."""
    return getattr(learner, "predicts_per_row", None) is True


def binding_error(function: Any, *args: Any, **keywords: Any) -> str | None:
    """Why ``function`` cannot be called with these arguments (:mod:`inspect`'s text, which names parameters, never
    a value: "missing a required argument: 'delta'"), or None when it can or its signature cannot be read."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*args, **keywords)
    except TypeError as error:
        return str(error)
    return None


def refuse_fit_arguments(caller: str, learner: Any, *args: Any, **keywords: Any) -> None:
    """Refuse, before anything is charged, fit arguments that ``caller`` would pass on to ``learner.fit`` and that it
    cannot take (:func:`binding_error`: an unknown keyword raised a bare TypeError naming an internal method)."""
    why = binding_error(learner.fit, *args, **keywords)
    if why is not None:
        raise InputError(f"{caller} passes its other arguments on to {type(learner).__name__}.fit, which cannot be "
                         f"called with them ({why}). Nothing was charged")


def refuse_held_accountant(learner: Any, consequence: str, remedy: str) -> None:
    """Refuse, before anything is charged, a learner that holds an accountant of its own (an estimator's
    ``accountant=``) where a procedure fits copies of it (:func:`dpcvx.tune`, an OpenDP measurement,
    :func:`~dpcvx.models.release_audit.audit_release_file`): each copy charges a copy of that accountant, which nobody
    reads, and the caller's accountant is never charged. ``consequence`` says what the procedure's copies would
    charge, ``remedy`` what to do."""
    get_params = getattr(learner, "get_params", None)
    held = get_params(deep=False).get("accountant") if callable(get_params) else None
    if held is not None:
        raise InputError(f"{type(learner).__name__} has accountant= from its constructor: {consequence}. {remedy}")


def check_tunable(candidate: Any, fit_params: Mapping[str, Any], name: str) -> None:
    """Refuse, before anything is charged, a candidate outside the proof of :func:`dpcvx.tune`: one whose
    predictions are not a per-row function of a released model, or one set to fit under add-remove
    neighbours (the proof and its parts are replace-one, with n public). ``name`` names the learner."""
    if not predicts_per_row(candidate):
        raise InputError(
            f"tune scores each candidate by its mistakes on private held-out rows, which is private only "
            f"when a prediction is a per-row function of a released model; {name} does not declare "
            "predicts_per_row = True (an interactive learner such as PINP would take the held-out rows as "
            "queries and publish those that trigger updates). Nothing was charged. Tune a learner that "
            "releases a model (PrivateERM, TDDL, TDIL, the estimators), or declare predicts_per_row = True "
            "on your learner class if its predict maps each row alone through its released model")
    params = candidate.get_params() if callable(getattr(candidate, "get_params", None)) else {}
    relation = fit_params.get("neighbours", params.get("neighbours", Neighbours.REPLACE_ONE))
    if isinstance(relation, (str, Neighbours)) and Neighbours.parse(relation) is not Neighbours.REPLACE_ONE:
        raise InputError(f"tune's guarantee (Algorithm 4 and random stopping alike) is proved for replace-one "
                         f"neighbours with n public, "
                         f"and {name} is set to fit under {relation}; nothing was charged. Tune it under "
                         "neighbours='replace-one'")


# -- the learner contract ------------------------------------------------------------------------

FIT_KEYWORDS = ("epsilon", "delta", "random_state", "accountant")
"""The keywords every learner's ``fit`` takes: the budget, the noise source and the accountant charged
once, after every check and before any noise is drawn (a refused call spends nothing)."""


class Learner(Protocol):
    """What the CLI, :func:`dpcvx.tune` and the one-vs-rest learner may call on a dpcvx learner.

    * ``check_fit_inputs(X, y, *, epsilon, delta, **options)``: the plan. Every check ``fit``
      makes (validate the data, verify the problem, calibrate, refuse), with nothing charged and
      nothing drawn; it returns the public classes (or None). :class:`dpcvx.PrivateERM` also
      offers the plan itself (``plan``, a :class:`~dpcvx.models.fit_plan.FitPlan`): its public
      calibration a composition reads, and :func:`dpcvx.tune` fits every run of a candidate from it.
      A learner whose ``plans_first`` is True offers ``plan(X, y, *, epsilon, delta, **options)``
      returning a :class:`Plan` (PrivateERM, PrivateMulticlassERM, PrivateLinearRegression, the estimators
      through :class:`dpcvx.BudgetInConstructor`).
    * ``fit(X, y, *, epsilon, delta, random_state, accountant, **options)``: execute. The
      options are the learner's own (the ERM learners' ``mechanism`` and ``split``, TDDL's
      public sample ``Z``).
    * ``predicts_per_row`` (above).
    """

    predicts_per_row: ClassVar[bool]

    def fit(self, X: Any, y: Any, *, epsilon: float, delta: float, random_state: Any,
            accountant: Any, **options: Any) -> Any: ...


class Plan(Protocol):
    """A fit planned once from public inputs, every check done (:meth:`Learner.fit`'s first half): its public
    ``classes`` (None for a regression) and ``fit(X, y, *, random_state)``, which executes it on rows of the
    planned width (:class:`~dpcvx.models.fit_plan.FitPlan`, :class:`~dpcvx.models.multiclass.MulticlassPlan`,
    :class:`~dpcvx.models.linear_regression.AdaSSPPlan`, :class:`~dpcvx.sklearn.estimator_plan.EstimatorPlan`)."""

    @property
    def classes(self) -> tuple[Any, ...] | None: ...

    def fit(self, X: Any, y: Any, *, random_state: Any = None) -> Any: ...
