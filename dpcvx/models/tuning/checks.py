"""The checks every tuning procedure runs before it charges: the grid, the data, each candidate.

Shared by :mod:`.split` (Algorithm 4) and :mod:`.full_data` (random stopping). Nothing here
draws randomness or reads a private value into a message; :func:`count_mistakes` is the one
function that reads held-out rows, and its count is never released without noise.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sparse
from numpy.typing import ArrayLike

from ...data.blocks import public_shape
from ...data.notes import checks_then_notes
from ...exceptions import AssumptionError, InputError, UnsupportedWeightsError, float_errors_ignored, withheld
from ...privacy.accountant import check_accountant, check_cost
from ...privacy.exact_sampling import IntegerSource, integer_source
from ...privacy.neighbours import Neighbours
from ...privacy.partition import child_seed
from ...privacy.privacy_curve import PrivacyCurve
from ...privacy.rng import RandomState, resolve_rng
from ...release.usefulness import Held, held_warnings
from ...validation import (
    check_classes,
    check_delta,
    check_delta_for_n,
    check_labels,
    check_public_classes,
    check_table,
    declared_labels,
    label_vector,
    not_two_dimensional,
    numeric_targets,
    outside_classes,
    outside_head,
    refuse_misread,
    refuse_non_finite,
    refuse_unknown_parameters,
)
from ..contract import (
    Plan,
    binding_error,
    check_tunable,
    held_values,
    learner_copy,
    predicts_per_row,
    refuse_held_accountant,
)
from ..erm import PrivateERM
from ..failure import composite, least_rows, rehearse
from ..fit_plan import FitPlan
from ..multiclass import MulticlassPlan, PrivateMulticlassERM
from .renyi import check_run_curve
from .scores import ClippedSquaredError, Mistakes, Score, resolve_score, total_units
from .tuning_certificate import format_params

__all__ = ["expand_grid", "count_mistakes", "check_declared_labels", "BudgetInConstructor", "Setup", "prepare",
           "shaped_then_read", "plan_candidate", "fit_candidate"]

RESERVED_FIT_KEYWORDS = ("epsilon", "random_state", "accountant")
_BUDGET_PARAMETERS = ("epsilon", "delta", "random_state")
# tune's own arguments, which no candidate may set (a grid's accountant was charged by every fit)
_TUNE_ARGUMENTS = (*_BUDGET_PARAMETERS, "accountant")


def expand_grid(grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]]) -> tuple[dict, ...]:
    """The candidate parameter settings, in order.

    A dict of lists gives their Cartesian product (keys in the dict's order,
    the last key varying fastest); a list of dicts is taken as it is. Each candidate holds a copy of each value
    (:func:`~dpcvx.models.contract.held_values`, as scikit-learn's grid search clones them): a dict or list of the
    grid that the caller changes in place later (a ``class_weight``, ``classes``) changes neither the candidates
    checked, fitted and stated by the certificate nor the selected model's parameters.
    """
    if isinstance(grid, Mapping):
        if not grid:
            raise InputError("grid is empty; give at least one parameter with a list of values")
        for name, values in grid.items():
            if not isinstance(name, str):
                raise InputError(f"grid keys must be parameter names (str), got {name!r}")
            if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
                raise InputError(f"grid[{name!r}] must be a list of values, got {values!r}; "
                                 f"write {{{name!r}: [{values!r}]}} for a single value")
            if isinstance(values, AbstractSet):  # its order, the candidates' order, changes with the hash seed
                raise InputError(f"grid[{name!r}] is a set, whose order (the candidates' order, which the certificate "
                                 "states and a seed reproduces) is not fixed; give a list")
        names = list(grid)
        value_lists = [list(grid[name]) for name in names]
        if any(not values for values in value_lists):
            raise InputError("every grid entry needs at least one value; "
                             f"empty: {[name for name, values in zip(names, value_lists, strict=True) if not values]}")
        return _refuse_tune_arguments(tuple(held_values(dict(zip(names, point, strict=True)))
                                            for point in itertools.product(*value_lists)))
    if isinstance(grid, (str, bytes, AbstractSet)) or not isinstance(grid, Iterable) or hasattr(grid, "shape"):
        # an array (numpy, pandas) is no grid: it is most likely the data, passed in the grid's place
        raise InputError(f"grid must be a dict of lists or a list of dicts, got {type(grid).__name__} (tune's "
                         "arguments are tune(estimator, X, y, grid, ...))")
    candidates = tuple(grid)
    if not candidates:
        raise InputError("grid is an empty list; give at least one parameter setting")
    for point in candidates:
        if not isinstance(point, Mapping) or not all(isinstance(name, str) for name in point):
            # its type only: a list of values in the grid's place may be data, which a message never quotes
            raise InputError("each grid point must be a dict of parameter names to values, got "
                             + (f"a dict whose keys are not all str (keys {sorted(map(repr, point))})"
                                if isinstance(point, Mapping) else f"a {type(point).__name__}"))
    return _refuse_tune_arguments(tuple(held_values(point) for point in candidates))


def list_of_grids_note(grid: Any, refusal: str) -> str:
    """What ``refusal`` adds for a grid that is a list of dicts, one of whose list values it refuses (it names the
    list): tune takes such a grid as its candidates, one setting each (:func:`expand_grid`), where scikit-learn's
    ``param_grid`` takes each dict as a grid of lists to try. Empty otherwise: a list may be a setting
    (``label_bound=[0, 365]``), so neither the grid alone nor another refusal gets it."""
    if isinstance(grid, (Mapping, str, bytes)) or not isinstance(grid, Sequence):
        return ""
    listed = sorted({name for point in grid if isinstance(point, Mapping) for name, value in point.items()
                     if isinstance(value, list) and repr(value) in refusal}, key=str)
    if not listed:
        return ""
    return (f". The grid is a list of dicts, which tune takes as its candidates, one setting each: {listed} were "
            "given a list as one candidate's value, not as values to try (scikit-learn's list of grids). Give one "
            "dict of lists (their Cartesian product), or join the candidates of each grid: "
            "[*expand_grid(grid_1), *expand_grid(grid_2)] (dpcvx.models.tuning.expand_grid)")


def _refuse_tune_arguments(candidates: tuple[dict, ...]) -> tuple[dict, ...]:
    """The candidates, none setting one of tune's own arguments (epsilon, delta, random_state, accountant)."""
    owned = sorted({name for point in candidates for name in point} & set(_TUNE_ARGUMENTS))
    if owned:
        raise InputError(f"the grid must not set {owned}: tune passes epsilon, delta and the random generator "
                         "to every candidate itself, and charges its accountant once for the whole procedure")
    return candidates


def count_mistakes(model: Any, X: Any, y: ArrayLike) -> int:
    """Number of rows of (X, y) where ``model.predict`` differs from y (the unweighted :class:`.scores.Mistakes`)."""
    return total_units(Mistakes(), model, X, np.asarray(y))


def check_declared_labels(y: np.ndarray, classes: Sequence[Any], fixed: bool = False) -> None:
    """Refuse labels outside a learner's public classes (two or more; never read off y). ``fixed``: the learner
    takes no ``classes`` (the kernel learners' are -1 and +1), so the refusal says to map the labels onto them, not to
    pass a parameter it does not have. Each label is read by its value (:func:`~dpcvx.validation.declared_labels`:
    "1.0" is the class 1), as the candidate's fit reads it and the score compares it
    (:func:`~dpcvx.models.tuning.scores.total_units`)."""
    public = check_public_classes(classes)
    y = declared_labels(y, public)
    if fixed:
        outside = outside_classes(y, public)
        if outside is not None:
            raise InputError(f"{outside_head(outside, y, public, fixed=True)}: map the labels onto them, for "
                             "example 2 * y - 1 for labels 0 and 1. Labels are never inferred from the data")
        return
    if len(public) == 2:
        check_labels(y, y.shape[0], check_classes(public))
        return
    outside = outside_classes(y, public)
    if outside is not None:
        raise InputError(f"{outside_head(outside, y, public)}. Labels are never inferred from the data: add them "
                         "to classes=")



class BudgetInConstructor:
    """Adapter for learners that take their budget in the constructor.

    Such a learner (the scikit-learn estimators dpcvx.DPLogisticRegression,
    DPHuberSVM, DPERMClassifier, or a user's own) is built as
    ``learner_class(**params, epsilon=, random_state=)``, plus ``delta=`` when
    tune's delta is positive, and ``fit(X, y, **fit_params)`` returns the
    fitted learner. The adapter gives it the interface :func:`tune` calls, so every
    candidate gets tune's epsilon and tune's generator (independent noise
    across candidates; a seed shared between them would break the guarantee)::

        tune(BudgetInConstructor(dpcvx.DPLogisticRegression, data_norm=1.0), X, y,
             {"lam": [1e-3, 1e-2]}, epsilon=1.0)

    dpcvx's own learners (PrivateERM, TDDL, TDIL) take the budget in ``fit`` and
    need no adapter.

    ``params`` are the constructor's other parameters; the grid sets them
    through :meth:`set_params`.

    Checked at construction (InputError): ``learner_class`` is a class with a ``fit`` method whose constructor
    takes ``epsilon`` (when its signature can be read), and ``params`` are names its constructor takes, none of them
    tune's (epsilon, delta, random_state). The values of ``params`` are the learner's to check: they are checked
    when :func:`tune` builds and plans each candidate, before anything is charged (``lam=-1.0`` is refused there).
    """

    def __init__(self, learner_class: type, **params: Any) -> None:
        if not isinstance(learner_class, type):
            raise InputError(f"BudgetInConstructor takes a learner's class (such as dpcvx.DPLogisticRegression), "
                             f"got {type(learner_class).__name__} {learner_class!r:.60}")
        if not callable(getattr(learner_class, "fit", None)):
            raise InputError(f"BudgetInConstructor takes a learner's class, with a fit method (such as "
                             f"dpcvx.DPLogisticRegression); {learner_class.__name__} has none")
        keywords = _keywords(learner_class)
        if keywords is not None and "epsilon" not in keywords:
            raise InputError(f"{learner_class.__name__}'s constructor takes no epsilon: a learner that takes its "
                             "budget in fit (PrivateERM, TDDL, TDIL) is given to tune itself, with no adapter")
        self.learner_class = learner_class
        self.params: dict[str, Any] = {}
        self.set_params(**params)

    @property
    def predicts_per_row(self) -> bool:
        """The wrapped class's declaration (:mod:`dpcvx.models.contract`)."""
        return predicts_per_row(self.learner_class)

    def get_params(self, deep: bool = True) -> dict:
        return dict(self.params)

    def set_params(self, **params: Any) -> BudgetInConstructor:
        reserved = sorted(set(params) & set(_BUDGET_PARAMETERS))
        if reserved:
            raise InputError(f"{reserved} must not be set here: tune passes epsilon, delta and "
                             "the random generator to every candidate")
        keywords = _keywords(self.learner_class)
        if keywords is not None:  # refused here, by name, not when a candidate is built
            refuse_unknown_parameters(self.learner_class.__name__, params,
                                      [name for name in keywords if name not in _BUDGET_PARAMETERS],
                                      "tune passes epsilon, delta and random_state")
        self.params.update(params)
        return self

    def _build(self, epsilon: float, random_state: RandomState, delta: float) -> Any:
        delta = check_delta(delta)  # compared below: checked first (a string raised a bare TypeError)
        budget = {"epsilon": epsilon, "random_state": _constructor_seed(self.learner_class, random_state)}
        if delta > 0 or _takes_keyword(self.learner_class, "delta"):  # delta = 0 too: never the class's default
            budget["delta"] = delta
        try:
            return self.learner_class(**self.params, **budget)
        except TypeError as error:
            raise InputError(f"could not build {self.learner_class.__name__} with {self.params}: "
                             f"{error}") from None

    @float_errors_ignored
    def fit(self, X: Any, y: ArrayLike, epsilon: float, random_state: RandomState = None, delta: float = 0.0,
            **fit_params: Any) -> Any:
        return self._build(epsilon, random_state, delta).fit(X, y, **fit_params)

    #: tune plans every candidate through :meth:`plan` (the learner it builds plans, or is checked, there)
    plans_first = True

    @float_errors_ignored
    def plan(self, X: Any, y: np.ndarray, epsilon: float, delta: float = 0.0, **fit_params: Any) -> ConstructorPlan:
        """Every check of :meth:`fit`, fitting nothing: builds the learner (its constructor checks the
        parameters; seed 0, nothing is drawn), checks that its fit takes ``fit_params`` and y against its public
        ``classes`` when it declares them, then plans it once when it plans first (``plans_first``: its
        ``plan``, as the estimators over PrivateERM do) or runs its own ``check_fit_inputs`` when it has one
        (:func:`plan_candidate`). Each fit of the returned plan fits with a fresh seed from tune's generator."""
        classes, planned = self._checked(X, y, epsilon, delta, fit_params)
        return ConstructorPlan(self, epsilon, delta, fit_params, planned, classes)

    def check_fit_inputs(self, X: Any, y: np.ndarray, epsilon: float, delta: float = 0.0,
                         **fit_params: Any) -> tuple | None:
        """The learner contract's check (:mod:`dpcvx.models.contract`), as a composite procedure asks it of its
        learner before its one charge (a private bound, a private class count): the learner built and checked as
        :meth:`plan` checks it, charging and drawing nothing, no plan kept. Returns the learner's public classes (or
        None)."""
        return self._checked(X, y, epsilon, delta, fit_params)[0]

    def _checked(self, X: Any, y: np.ndarray, epsilon: float, delta: float,
                 fit_params: Mapping[str, Any]) -> tuple[tuple | None, Plan | None]:
        """The learner built (its constructor checks the parameters; seed 0, nothing is drawn) and checked by
        :func:`plan_candidate`: its public classes and its plan (the estimators' checks are their plan)."""
        return plan_candidate(self._build(epsilon, 0, delta), X, y, fit_params)

    def _plan_at_width(self, X: Any, epsilon: float, fit_params: Mapping[str, Any]) -> Shaped | None:
        """:meth:`plan` in two steps for :func:`shaped_then_read`: the learner built and planned at X's public
        width before a value is read (an estimator's ``_plan_at_width``), then (the returned callable) its checks
        on a part's rows and y against its public classes (:func:`plan_candidate`). None for a learner
        without that first step (planned by :meth:`plan` on its part)."""
        options = dict(fit_params)
        delta = options.pop("delta", 0.0)
        if options or not callable(getattr(self.learner_class, "_plan_at_width", None)):
            return None
        learner = self._build(epsilon, 0, delta)  # built once, as plan builds it
        return functools.partial(self._bound, learner, learner._plan_at_width(X), epsilon, delta)

    def _bound(self, learner: Any, shaped: Shaped | None, epsilon: float, delta: float, X: Any,
               y: np.ndarray) -> ConstructorPlan:
        """The plan :meth:`plan` returns, from the learner's plan made at X's width (:meth:`_plan_at_width`; None:
        made on the rows)."""
        classes, planned = plan_candidate(learner, X, y, {}, shaped=shaped)
        return ConstructorPlan(self, epsilon, delta, {}, planned, classes)

    def __repr__(self) -> str:
        return f"BudgetInConstructor({self.learner_class.__name__}, {format_params(self.params)})"



def _constructor_seed(learner_class: type, random_state: RandomState) -> RandomState:
    """The ``random_state`` a learner built with its budget gets: the scikit-learn estimators take an int seed (a
    Generator would be shared by clones), so a fresh one is drawn from tune's generator for each build or fit."""
    if getattr(learner_class, "seed_only_random_state", False) and isinstance(random_state, np.random.Generator):
        return child_seed(random_state)
    return random_state


@dataclass(frozen=True)
class ConstructorPlan:
    """The plan of a learner that takes its budget in the constructor (:meth:`BudgetInConstructor.plan`): its
    public ``classes`` (or None) and the built learner's one plan (None when it does not plan first). Each
    :meth:`fit` gets a fresh seed, as :meth:`BudgetInConstructor.fit` builds the learner with one, and fits from
    that plan, or builds and fits the learner (``adapter.fit``) when it has none."""

    adapter: BudgetInConstructor
    epsilon: float
    delta: float
    fit_params: dict[str, Any]
    plan: Plan | None
    classes: tuple | None

    @float_errors_ignored
    def fit(self, X: Any, y: Any, *, random_state: RandomState = None) -> Any:
        if self.plan is None:
            return self.adapter.fit(X, y, self.epsilon, random_state, self.delta, **self.fit_params)
        return self.plan.fit(X, y, random_state=_constructor_seed(self.adapter.learner_class, random_state))


def _takes_budget_in_constructor(learner: Any) -> bool:
    cls = learner if isinstance(learner, type) else type(learner)
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    fit = getattr(cls, "fit", None)
    return "epsilon" in parameters and not (callable(fit) and _accepts_keywords(fit, ("epsilon",)))


def refuse_own_budget(learner: Any, epsilon: float, delta: float) -> None:
    """Refuse an estimator (a learner that takes its budget in its constructor, :func:`adapt`) whose epsilon or
    delta was set to a value other than its constructor's default and other than tune's: tune spends its own
    budget, passing each candidate's fits their share of it, and would replace the estimator's without a word.
    The standard of :func:`~dpcvx.opendp_bridge.as_opendp_measurement`, which refuses a budget other than the
    estimator's own. A budget left at its default (or equal to tune's) is tune's to set, as documented."""
    if isinstance(learner, type) or not hasattr(learner, "get_params") or not _takes_budget_in_constructor(learner):
        return
    name, params = type(learner).__name__, learner.get_params(deep=False)
    defaults = inspect.signature(type(learner)).parameters
    for label, given in (("epsilon", epsilon), ("delta", delta)):
        if label not in params or label not in defaults:
            continue
        held, default = params[label], defaults[label].default
        if _same_number(held, default) or _same_number(held, given):
            continue
        raise InputError(f"tune got {label}={given!r} for {name}, whose own {label} is {held!r}: tune spends its "
                         f"own budget, passing each candidate's fits their share of it, and would replace the "
                         f"estimator's. Pass tune {label}={held!r}, or leave {label} at {name}'s default "
                         f"(set_params({label}={default!r})). Nothing was charged")


def _same_number(value: Any, other: Any) -> bool:
    """Whether two budget settings are the same number (a setting that is no number is the estimator's to refuse:
    never the same)."""
    try:
        return bool(float(value) == float(other))
    except (TypeError, ValueError):
        return False


def adapt(learner: Any) -> Any:
    """Wrap a learner that takes its budget in the constructor (a class or an estimator)."""
    if isinstance(learner, BudgetInConstructor) or not _takes_budget_in_constructor(learner):
        return learner
    if isinstance(learner, type):
        return BudgetInConstructor(learner)
    if hasattr(learner, "get_params"):
        params = {key: value for key, value in learner.get_params(deep=False).items()
                  if key not in _BUDGET_PARAMETERS}
        return BudgetInConstructor(type(learner), **params)
    return learner


def configure(learner: Any, params: dict) -> Any:
    """A fresh learner with ``params``: a copy of an estimator with set_params, or factory(**params)."""
    if not isinstance(learner, type) and hasattr(learner, "fit") and hasattr(learner, "set_params"):
        candidate = learner_copy(learner)
        candidate.set_params(**params)
    elif callable(learner):
        try:
            candidate = learner(**params)
        except TypeError as error:
            raise InputError(f"could not build the learner with {params}: {error}. Grid keys "
                             "must be parameters of the learner's constructor; wrap a learner "
                             "that takes its budget in the constructor in BudgetInConstructor"
                             ) from None
    else:
        raise InputError(
            "learner must be an estimator with get_params/set_params and fit, or a class or "
            f"factory taking the grid's parameters; got {type(learner).__name__}. Nothing was charged"
        )
    fit = getattr(candidate, "fit", None)
    if not callable(fit):
        raise InputError(f"the learner built from {params} has no fit method")
    if not _accepts_keywords(fit, ("epsilon", "random_state")):
        raise InputError(
            f"{type(candidate).__name__}.fit does not take epsilon and random_state; wrap a "
            "learner that takes its budget in the constructor in BudgetInConstructor"
        )
    return candidate


def _takes_keyword(function: Any, name: str) -> bool:
    """Whether ``function`` names ``name`` among its parameters (a **kwargs catch-all does not count)."""
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _keywords(function: Any) -> list[str] | None:
    """The keyword arguments ``function`` takes, in its signature's order; None when any would do (a **kwargs
    catch-all) or its signature is unknown."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters):
        return None
    return [parameter.name for parameter in parameters
            if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)]


def _accepts_keywords(function: Any, names: Sequence[str]) -> bool:
    """Whether ``function`` can be called with these keyword arguments (True if unknown)."""
    keywords = _keywords(function)
    return keywords is None or set(names) <= set(keywords)


def data(X: Any, y: ArrayLike) -> tuple[Any, np.ndarray]:  # X: an array or a scipy.sparse matrix
    """(X as an array or CSR, y as an array), their shapes checked; a table's column that is not finite numbers is
    refused by its name first (:func:`~dpcvx.validation.check_table`), as every fit names it."""
    refuse_misread("X", X)
    check_table(X)
    rows = X.tocsr() if sparse.issparse(X) else np.asarray(X)
    if rows.ndim != 2:
        raise not_two_dimensional("X", rows.shape)
    labels = label_vector(y, rows.shape[0])  # a column vector flattened, as every fit takes it
    assert isinstance(labels, np.ndarray)
    return rows, labels


def plan_candidate(candidate: Any, X: Any, y: np.ndarray, fit_params: Mapping[str, Any],
                   epsilon: float | None = None, shaped: Shaped | None = None) -> tuple[tuple | None, Plan | None]:
    """What a candidate's fit would refuse, checked before anything is charged: the public label pair it
    declares (or None) and its plan (None for a learner that does not plan first). ``shaped``: its plan made at
    X's public width before tune read a value (:func:`shaped_then_read`), bound here to (X, y) in its place.

    * its fit must take the keyword arguments tune passes;
    * y must hold only the learner's public ``classes`` when it declares them
      (the pair is public; it is never read off y);
    * a learner that plans first (``plans_first``: :class:`~dpcvx.models.erm.PrivateERM`, one-vs-rest, AdaSSP's
      :class:`~dpcvx.models.linear_regression.PrivateLinearRegression`, the estimators through
      :class:`BudgetInConstructor`) is planned once (its ``plan``, a
      :class:`~dpcvx.models.contract.Plan`), and every fit of it runs from that plan; another
      learner's own ``check_fit_inputs(X, y, **fit_params)`` runs when it has one. Both get ``epsilon=``
      when they take that keyword (as PrivateERM and the kernel learners do).
    """
    fit = getattr(candidate, "fit", None)
    if callable(fit) and not _accepts_keywords(fit, tuple(fit_params)):
        raise InputError(f"{type(candidate).__name__}.fit does not take the argument(s) "
                         f"{sorted(fit_params)} (from fit_params / mechanism / delta)")
    plans = shaped is not None or getattr(candidate, "plans_first", False) is True
    # a learner that plans first declares its classes by its plan (None for a regression: PrivateERM with
    # task="regression" keeps its classes attribute at the default pair, which its fits never read)
    classes = None if plans else getattr(candidate, "classes", None)
    if classes is not None:
        check_declared_labels(y, classes, fixed_classes(candidate))
    check = shaped if shaped is not None else candidate.plan if plans else \
        getattr(candidate, "check_fit_inputs", None)
    plan = None
    if callable(check):
        if shaped is not None:
            fit_params = {}  # given to the plan at its making
        elif epsilon is not None and "epsilon" not in fit_params and _takes_keyword(check, "epsilon"):
            fit_params = dict(fit_params, epsilon=epsilon)
        try:
            declared = check(X, y, **fit_params)
        except TypeError as error:  # arguments the check does not take (public), or raised on the data
            unbound = binding_error(check, X, y, **fit_params)
            if unbound is not None and "missing" in unbound:  # a fit argument only the caller can give (TDDL's Z)
                raise InputError(f"{type(candidate).__name__}'s fit needs an argument tune was not given "
                                 f"({unbound.replace('missing a required argument', 'missing')}): pass it in "
                                 "fit_params, for example dpcvx.tune(..., fit_params={'Z': Z}) for TDDL's public "
                                 "sample. Nothing was charged") from None
            reason = str(error) if isinstance(error, InputError) or unbound is not None else withheld(error)
            raise InputError(f"{type(candidate).__name__} refuses the fit arguments: {reason}") from None
        if plans:
            plan, declared = declared, declared.classes
        if classes is None and isinstance(declared, tuple):
            classes = declared
    return classes, plan


def fixed_classes(candidate: Any) -> bool:
    """Whether a learner's public classes are its own, not a parameter (no ``classes`` among its parameters: the
    kernel learners' -1 and +1)."""
    get_params = getattr(candidate, "get_params", None)
    return not (callable(get_params) and "classes" in get_params(deep=False))


def check_and_rehearse(setup: Setup, X: Any, y: np.ndarray, parts: Sequence[np.ndarray | slice], epsilon: float,
                       procedure: str, shaped: Sequence[Shaped | None], likely: Callable[[int], bool] | None = None,
                       curves: Sequence[PrivacyCurve] = ()) -> tuple[tuple[Plan | None, ...], int]:
    """Before the charge, under the failure rule (:mod:`dpcvx.models.failure`): each candidate checked on its
    part (parameters, fit arguments, labels against its public classes on all of y, the score against those
    classes) and planned once when it plans first (its ``shaped`` plan, made before the data was read, bound to
    its part's rows), then every candidate rehearsed on synthetic public rows of
    the first part's width and kind (from its plan). Returns the candidates' plans (None: no plan) and, given
    ``likely`` (whether parts of that many rows are drawn often enough), rows every candidate fits on
    (:func:`~dpcvx.models.failure.least_rows`; else 1). ``curves``: the Renyi curves claimed before the fits
    (full-data selection with delta > 0, :mod:`.renyi`), one a candidate; each rehearsed release's own curve is
    checked against its claim (:func:`~.renyi.check_run_curve`), so that a claim the release does not keep is
    refused here, before the charge, not after a fit on the private rows (the release's curve is a function of
    public settings only, the same on synthetic rows as on the data's)."""
    declared, plans = [], []
    with composite(procedure), checks_then_notes():  # a clipping note the candidates' checks repeat, shown once
        for candidate, rows, early in zip(setup.learners, parts, shaped, strict=True):
            classes, plan = plan_candidate(candidate, X[rows], y[rows], setup.keywords, epsilon, early)
            if classes is not None:  # the held-out rows are labelled like the rest
                check_declared_labels(y, classes, fixed_classes(candidate))
            setup.score.check_classes(classes)
            declared.append(classes)
            plans.append(plan)
        claims: Sequence[PrivacyCurve | None] = curves or [None] * len(plans)
        fits = [_rehearsal(setup, candidate, plan, epsilon, claim)
                for candidate, plan, claim in zip(setup.learners, plans, claims, strict=True)]
        rehearse(fits, declared, X[parts[0]], procedure, setup.source.reproducible)
        fewest = 1 if likely is None else least_rows(fits, declared, X[parts[0]], procedure,
                                                     setup.source.reproducible, likely)
    return tuple(plans), fewest


def _rehearsal(setup: Setup, candidate: Any, plan: Plan | None, epsilon: float,
               claim: PrivacyCurve | None = None) -> Callable[[Any, np.ndarray, np.random.Generator | None], Any]:
    """How a rehearsal fits a candidate: from its plan, else a copy of it with tune's fit arguments; with a
    ``claim``, the fitted release's curve checked against it (:func:`~.renyi.check_run_curve`)."""
    def fit(X: Any, y: np.ndarray, rng: np.random.Generator | None) -> Any:
        if plan is not None:
            model = plan.fit(X, y, random_state=rng)
        else:
            model = learner_copy(candidate, "").fit(X, y, epsilon=epsilon, random_state=rng, **setup.keywords)
        if claim is not None:
            check_run_curve(model, claim)
        return model
    return fit


def fit_candidate(setup: Setup, learner: Any, plan: Plan | None, X: Any, y: np.ndarray,
                  epsilon: float) -> tuple[Any, Any, Held]:
    """A candidate fitted on (X, y) with ``epsilon`` and tune's fit arguments: from its plan when it has one
    (made once, before the charge), else ``learner.fit``. Returns the model, the fit's diagnostics (NOT
    PRIVATE: the data owner's, taken off the model or the learner that made it) and its public warnings about
    its release, kept (:func:`~dpcvx.release.usefulness.held_warnings`): shown only if this run is released."""
    with held_warnings() as held:
        if plan is not None:
            learner = plan.learner if isinstance(plan, FitPlan) else None  # a PrivateERM's plan: its diagnostics
            model = plan.fit(X, y, random_state=setup.fit_random_state)
        else:
            model = learner.fit(X, y, epsilon=epsilon, random_state=setup.fit_random_state, **setup.keywords)
    diagnostics = take_diagnostics(model)
    return model, take_diagnostics(learner) if diagnostics is None else diagnostics, held


def release_certificate(model: Any) -> Any:
    """A fitted model's certificate: ``certificate`` (dpcvx's releases) or ``certificate_`` (the estimators)."""
    certificate = getattr(model, "certificate", None)
    return getattr(model, "certificate_", None) if certificate is None else certificate


def check_release_cost(model: Any, epsilon: float, delta: float) -> None:
    """Refuse a model whose own certificate reports more than the (epsilon, delta) it was given, or a
    relation other than replace-one (a second line of defence after :func:`_check_tunable`)."""
    certificate = release_certificate(model)
    spent_epsilon = getattr(certificate, "epsilon", epsilon)
    spent_delta = getattr(certificate, "delta", delta)
    if spent_epsilon > epsilon or spent_delta > delta:
        raise AssumptionError(
            f"a candidate's certificate reports (epsilon={spent_epsilon:g}, delta={spent_delta:g}) "
            f"but tune gave it (epsilon={epsilon:g}, delta={delta:g}); nothing is released. The "
            "learner's fit must honour the epsilon (and delta) it is given"
        )
    curve = getattr(certificate, "privacy_curve", None)
    if isinstance(curve, PrivacyCurve) and curve.neighbours is not Neighbours.REPLACE_ONE:
        raise AssumptionError(f"a candidate's certificate is proved for {curve.neighbours} neighbours, and tune's "
                              "guarantee needs replace-one candidates; nothing is released")


def take_diagnostics(holder: Any) -> Any:
    """Remove and return ``holder.diagnostics_`` (None when it has none)."""
    diagnostics = getattr(holder, "diagnostics_", None)
    if diagnostics is not None:
        with contextlib.suppress(AttributeError):
            delattr(holder, "diagnostics_")
    return diagnostics



@dataclass(frozen=True)
class Setup:
    """The checked inputs every procedure starts from: the grid, the budget, the fit arguments, one
    configured learner per candidate (capability and relation checked) and the generator."""

    candidates: tuple[dict, ...]
    epsilon: float
    delta: float
    keywords: dict
    learners: list
    rng: np.random.Generator
    source: IntegerSource  # the exact samplers' integers: the OS CSPRNG unless the user gave a seed
    score: Score  # what a candidate is scored by on held-out rows (public, fixed before any fit)

    @property
    def fit_random_state(self) -> np.random.Generator | None:
        """What each fit receives: None when the user gave no seed (each fit draws its own OS entropy, its
        exact samplers the OS CSPRNG), else the seeded generator (the whole run reproducible)."""
        return self.rng if self.source.reproducible else None


def prepare(learner: Any, grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]],
            epsilon: float, delta: float, mechanism: str | None, fit_params: Mapping[str, Any] | None,
            accountant: Any, random_state: RandomState, score: Any = None) -> Setup:
    """Check everything that reads no private value and needs no procedure's budget (grid, budget, fit arguments,
    accountant, each candidate's capability and relation, the score for the learners' task); returns the setup.
    The data is read after each candidate's verdict (:func:`shaped_then_read`)."""
    candidates = expand_grid(grid)
    epsilon, delta = check_cost(epsilon, delta)
    refuse_own_budget(learner, epsilon, delta)
    rng = resolve_rng(random_state)
    if fit_params is not None and not (isinstance(fit_params, Mapping)
                                       and all(isinstance(name, str) for name in fit_params)):
        raise InputError(f"fit_params must be a dict of keyword arguments of the learner's fit (for example "
                         f"{{'Z': Z}} for TDDL's public sample), got {type(fit_params).__name__}")
    keywords = held_values(fit_params or {})  # copies: the certificate states them (a TDDL's Z changed after tune)
    reserved = sorted(set(keywords) & set(RESERVED_FIT_KEYWORDS))
    if reserved:
        raise InputError(f"fit_params must not set {reserved}: tune passes epsilon and the random "
                         "generator itself, and charges the accountant once for the whole procedure")
    if "sample_weight" in keywords:
        raise UnsupportedWeightsError(
            "tune takes no sample_weight: its split and its rehearsal fit parts of the rows, which weights passed "
            "for the whole of X do not follow. Weigh the classes with the learner's public class_weight, or fit the "
            "weighted learner directly; nothing was charged")
    if mechanism is not None:
        keywords["mechanism"] = mechanism
    if delta > 0:
        keywords["delta"] = delta
    check_accountant(accountant)
    refuse_held_accountant(learner, "tune charges its own accountant once for the whole procedure, and each "
                           "candidate's fits would charge a copy of that one besides", "Pass it to tune "
                           "(accountant=...) and set_params(accountant=None) on the learner. Nothing was charged")
    adapted = adapt(learner)
    learners = [configure(adapted, params) for params in candidates]
    for candidate in learners:  # nothing of the data is read for the capability and relation
        name = (candidate.learner_class.__name__ if isinstance(candidate, BudgetInConstructor)
                else type(candidate).__name__)
        check_tunable(candidate, keywords, name)
    scored = resolve_score(score, learners)
    source = integer_source(None if random_state is None else rng)
    return Setup(candidates, epsilon, delta, keywords, learners, rng, source, scored)


#: a candidate's plan made at X's public width before a value of X or y was read (:func:`shaped_then_read`): binds
#: it to a part's rows (X, y), their checks run, and returns the plan its fits run from
Shaped = Callable[[Any, np.ndarray], Plan]


def shaped_then_read(setup: Setup, X: Any, y: ArrayLike, epsilon: float,
                     procedure: str) -> tuple[tuple[Shaped | None, ...], Any, np.ndarray]:
    """Each candidate's verdict before a value of X or y is read, then the data read: a candidate that plans first
    and draws nothing first (:class:`~dpcvx.models.erm.PrivateERM`, one-vs-rest over one, an estimator over one
    through :class:`BudgetInConstructor`) is planned once at X's
    public width (:func:`~dpcvx.data.blocks.public_shape`; the one verification and the mechanism's verdict) with
    the ``epsilon`` its fits use, under the failure rule (:func:`~dpcvx.models.failure.composite`); its plan is
    bound to its part's rows in :func:`check_and_rehearse`. Then (X, y) as arrays, their shapes checked and X
    finite. Another candidate, or an X whose shape is its values' (a list), is planned on its part (None). A
    regression's y (scored by :class:`.scores.ClippedSquaredError`) is read as float64 targets
    (:func:`~dpcvx.validation.numeric_targets`, the learners' own read), so that every fit, score and the owner's note
    after the charge get the targets the checks passed: a boolean or Decimal y, which the candidates' checks read as
    floats, raised numpy's TypeError in tune's note on the training rows after the charge."""
    shaped: tuple[Shaped | None, ...] = (None,) * len(setup.learners)
    if public_shape(X) is not None:
        with composite(procedure):
            shaped = tuple(_shaped(candidate, X, setup.keywords, epsilon) for candidate in setup.learners)
    given = X
    X, y = data(X, y)  # the data read once every check and verdict that reads no private value has been made
    refuse_non_finite(given, X)  # named by row and column, as every fit names it (dpcvx.validation)
    if isinstance(setup.score, ClippedSquaredError):  # a regression's targets as every regressor's fit reads them
        y, _ = numeric_targets(y, X.shape[0])
    return shaped, X, y


def _shaped(candidate: Any, X: Any, fit_params: Mapping[str, Any], epsilon: float) -> Shaped | None:
    """:func:`shaped_then_read`'s plan of one candidate at X's public width (None: planned on its part): a
    :class:`~dpcvx.models.erm.PrivateERM`'s, one-vs-rest's over one, an estimator's through
    :class:`BudgetInConstructor` (its ``_plan_at_width``)."""
    if isinstance(candidate, BudgetInConstructor):
        return candidate._plan_at_width(X, epsilon, fit_params)
    learner = candidate.binary if isinstance(candidate, PrivateMulticlassERM) else candidate
    if not (isinstance(learner, PrivateERM) and learner.plans_first and not learner.draws_first
            and candidate.plans_first and _accepts_keywords(candidate.fit, tuple(fit_params))):
        return None  # planned on its part; fit arguments its fit does not take refused there by their names
    try:
        if isinstance(candidate, PrivateMulticlassERM):
            options = dict(fit_params)
            plan = candidate._shaped_plan(X, epsilon, options.pop("mechanism", "objective"),
                                          options.pop("delta", 0.0), options, None)
            return functools.partial(_bound, plan)  # its binary PrivateERM's one plan made (draws nothing first)
        candidate._check_settings()
        return functools.partial(_bound, candidate._shaped_plan(X, epsilon, **fit_params))
    except TypeError as error:  # arguments the plan does not take (public: no value was read)
        raise InputError(f"{type(candidate).__name__} refuses the fit arguments: {error}") from None


def _bound(plan: FitPlan | MulticlassPlan, X: Any, y: np.ndarray) -> FitPlan | MulticlassPlan:
    """``plan`` bound to (X, y), every check of a fit on them run (nothing charged), as its learner's ``plan``
    binds it (:meth:`FitPlan.checked <dpcvx.models.fit_plan.FitPlan.checked>`, :meth:`MulticlassPlan.checked
    <dpcvx.models.multiclass.MulticlassPlan.checked>`)."""
    plan.checked(X, y)
    return plan


def check_delta_at_n(setup: Setup, X: Any) -> None:
    """Refuse a delta that is not below 1/n at X's public number of rows (:func:`check_delta_for_n`, the check every
    entry makes) unless every candidate accepts it knowingly (``allow_large_delta=True``), before either procedure
    runs: the full-data procedure answered delta=0.5 on 200 rows with its refusal of a candidate without a Renyi
    curve, and the split procedure checked each part's rows alone (delta=0.01 passed on 200 rows, below 1/66). X
    whose shape is its values' (a list) is counted when read, where the candidates' checks refuse the delta."""
    shape = public_shape(X)
    if setup.delta == 0 or shape is None:
        return
    allowed = all(bool(candidate.params.get("allow_large_delta", False) if isinstance(candidate, BudgetInConstructor)
                       else getattr(getattr(candidate, "binary", candidate), "allow_large_delta", False))
                  for candidate in setup.learners)
    check_delta_for_n(setup.delta, int(shape[0]), allowed)
