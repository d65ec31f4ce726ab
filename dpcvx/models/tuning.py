"""Private parameter tuning: Algorithm 4 of Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011).

For m candidate parameter settings and an epsilon-DP learner A:

1. split the n rows at random into m + 1 disjoint parts D_1..D_{m+1} of
   k = floor(n / (m + 1)) rows each; the n mod (m + 1) leftover rows are not
   used at all (the parts stay equal, as in the paper);
2. fit f_i = A(D_i, params_i, epsilon) for i = 1..m, each with the full epsilon;
3. count z_i, the mistakes of f_i on D_{m+1};
4. release f_i with probability proportional to exp(-epsilon z_i / 2)
   (the exponential mechanism of McSherry and Talwar 2007 with score -z_i).

Guarantee: the whole procedure is epsilon-DP for all n rows (the paper's
privacy theorem for Algorithm 4; the short argument follows). Neighbouring
datasets differ in one record. The random split does not look at the data,
so the record lies in one part (or in the unused rows, which change nothing):

* in D_j, j <= m: only f_j depends on it, and A is epsilon-DP; the selection
  given (f_1..f_m) reads D_{m+1} only, so the joint law of the models and the
  selected index moves by at most a factor e^epsilon;
* in D_{m+1}: the models do not depend on it and each z_i moves by at most 1
  (sensitivity 1), so each selection probability moves by at most
  e^{epsilon/2} in its numerator and e^{epsilon/2} in the normalising sum.

This is parallel composition over disjoint parts; with an (epsilon, delta)
learner the first case, hence the whole, is (epsilon, delta)-DP. Releasing
f_i is post-processing.

Neighbours: replace-one with n public (the data sets have the same size n
and differ in one record); the split depends on n and the generator only.

Only the selected model and its parameters are released; the selected index
(the exponential mechanism's output) and everything that depends on it sit
under "privatised" keys. The mistake counts z_i are never returned, stored or
logged: they are exact functions of D_{m+1} that no noise has touched, so
publishing them is not covered by the guarantee (two of them, or one count
before and after a record changes, show whether a given held-out record was
misclassified). Solver statistics of the selected model (a learner's
``diagnostics_``) are moved to ``TuningResult.diagnostics_``, marked NOT
PRIVATE, and kept out of the release.

Learners: the sensitivity-1 argument needs each candidate's prediction of a
held-out row to be a function of that row and of the released model only. A
learner declares this as ``predicts_per_row = True``
(:mod:`dpcvx.models.contract`); any other learner (the interactive
:class:`dpcvx.PINP`, which would take the held-out rows as queries and publish
those that trigger updates as its centres, or a learner that does not declare
it) is refused before anything is charged. So is a candidate fitted under
add-remove neighbours: the argument above is for replace-one, and tuning's
parts use n.

Order: every input (grid, budget, data, labels against the learner's public
classes, each candidate's capability, relation, parameters and fit arguments
on its own part) is checked first, then the accountant is charged once, as a
replace-one charge, then the candidates are fitted and the noise drawn. A
refused call spends nothing.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import itertools
import json
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sparse
from numpy.typing import ArrayLike

from ..exceptions import AssumptionError, InputError
from ..privacy.accountant import PrivacyAccountant, check_accountant, check_cost
from ..privacy.exponential import exponential_probabilities, sample_exponential
from ..privacy.neighbours import Neighbours
from ..privacy.partition import child_seed, disjoint_parts
from ..privacy.privacy_curve import PrivacyCurve
from ..privacy.rng import RandomState, resolve_rng
from ..progress import progress
from ..release.model import Release
from ..release.serialization import model_to_dict
from ..validation import check_classes, check_labels
from .contract import check_tunable, predicts_per_row
from .kernel_learner import Diagnostics

__all__ = [
    "tune",
    "TuningResult",
    "TuningCertificate",
    "BudgetInConstructor",
    "expand_grid",
    "disjoint_parts",
    "count_mistakes",
    "selection_probabilities",
    "select_exponential",
]

logger = logging.getLogger(__name__)

PROCEDURE = ("Algorithm 4 (private parameter tuning) of Chaudhuri, Monteleoni and Sarwate, "
             "JMLR 12 (2011)")
NEIGHBOUR_RELATION = ("replace-one, n public: neighbouring data sets have the same public size n and "
                      "differ in one record (x_i, y_i)")
THEOREM = ("the privacy theorem for Algorithm 4 of Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011): "
           "disjoint parts (parallel composition) plus the exponential mechanism (McSherry and "
           "Talwar 2007) with score -z_i of sensitivity 1")
_RESERVED_FIT_KEYWORDS = ("epsilon", "random_state", "accountant")
_BUDGET_PARAMETERS = ("epsilon", "delta", "random_state")
MISTAKE_SENSITIVITY = 1.0  # one held-out record changes each mistake count z_i by at most 1


# -- the steps of Algorithm 4 ---------------------------------------------------------------


def expand_grid(grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]]) -> tuple[dict, ...]:
    """The candidate parameter settings, in order.

    A dict of lists gives their Cartesian product (keys in the dict's order,
    the last key varying fastest); a list of dicts is taken as it is.
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
        names = list(grid)
        value_lists = [list(grid[name]) for name in names]
        if any(not values for values in value_lists):
            raise InputError("every grid entry needs at least one value; "
                             f"empty: {[name for name, values in zip(names, value_lists, strict=True) if not values]}")
        return tuple(dict(zip(names, point, strict=True)) for point in itertools.product(*value_lists))
    if isinstance(grid, (str, bytes)) or not isinstance(grid, Iterable):
        raise InputError(f"grid must be a dict of lists or a list of dicts, got {type(grid).__name__}")
    candidates = tuple(grid)
    if not candidates:
        raise InputError("grid is an empty list; give at least one parameter setting")
    for point in candidates:
        if not isinstance(point, Mapping) or not all(isinstance(name, str) for name in point):
            raise InputError(f"each grid point must be a dict of parameter names to values, got {point!r}")
    return tuple(dict(point) for point in candidates)


def count_mistakes(model: Any, X: Any, y: ArrayLike) -> int:
    """Number of rows of (X, y) where ``model.predict`` differs from y."""
    predictions = np.asarray(model.predict(X)).ravel()
    labels = np.asarray(y).ravel()
    if predictions.shape != labels.shape:
        raise InputError(f"model.predict returned {predictions.shape[0]} labels for "
                         f"{labels.shape[0]} rows")
    return int(np.count_nonzero(predictions != labels))


def selection_probabilities(mistakes: Sequence[float], epsilon: float) -> np.ndarray:
    """p_i = exp(-epsilon z_i / 2) / sum_j exp(-epsilon z_j / 2) (JMLR 2011, Algorithm 4).

    The exponential mechanism (:mod:`dpcvx.privacy.exponential`) with score
    -z_i, whose sensitivity is 1 (one record of the held-out part changes each
    mistake count by at most 1).
    """
    counts = np.asarray(mistakes, dtype=float)
    if counts.ndim != 1 or counts.size == 0 or not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise InputError("mistakes must be a non-empty list of finite counts >= 0")
    return exponential_probabilities(-counts, epsilon, MISTAKE_SENSITIVITY)


def select_exponential(mistakes: Sequence[float], epsilon: float, rng: np.random.Generator) -> int:
    """Index i drawn with probability :func:`selection_probabilities` (mistakes, epsilon)[i]."""
    selection_probabilities(mistakes, epsilon)  # the checks on the counts
    return sample_exponential(-np.asarray(mistakes, dtype=float), epsilon, MISTAKE_SENSITIVITY, rng)


# -- what tune releases ------------------------------------------------------------------------


def _public_value(value: Any) -> Any:
    """A grid value as JSON: numbers, strings, booleans and None as they are, the rest by repr."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    return repr(value)


def _public_params(params: Mapping[str, Any]) -> dict:
    return {name: _public_value(value) for name, value in params.items()}


def _format_params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in _public_params(params).items())


@dataclass(frozen=True)
class TuningCertificate:
    """The record of one run of Algorithm 4: what was done and why it is (epsilon, delta)-DP.

    ``candidates`` is the grid in the order it was tried, ``selected_index``
    the position of the released candidate in it, ``release`` the selected
    model's own certificate (None if the learner gives none), ``fit_params``
    the keyword arguments every fit received besides epsilon and the random
    generator. The mistake counts are not part of it (see the module notes).
    ``selected_index`` is the exponential mechanism's (privatised) output: in
    :meth:`to_dict` it and the selected parameters sit under "privatised".
    """

    epsilon: float
    delta: float
    candidates: tuple[dict, ...]
    selected_index: int
    n: int
    part_size: int
    fit_params: dict
    release: Any = None

    procedure = PROCEDURE
    neighbour_relation = NEIGHBOUR_RELATION
    theorem = THEOREM

    @property
    def m(self) -> int:
        """Number of candidates."""
        return len(self.candidates)

    @property
    def part_sizes(self) -> tuple[int, ...]:
        """Sizes of D_1..D_m (training) and D_{m+1} (held out for the selection)."""
        return (self.part_size,) * (self.m + 1)

    @property
    def unused_rows(self) -> int:
        """n mod (m + 1) rows left out so that the parts are equal; they are never read."""
        return self.n - self.part_size * (self.m + 1)

    @property
    def selected_params(self) -> dict:
        return dict(self.candidates[self.selected_index])

    @property
    def guarantee(self) -> str:
        return (
            f"({self.epsilon:g}, {self.delta:g})-differential privacy for all {self.n} rows: "
            f"the {self.m + 1} parts are disjoint and each is used by one step only. Parts "
            f"1..{self.m} each train one candidate with a learner that is "
            f"({self.epsilon:g}, {self.delta:g})-DP; part {self.m + 1} is used only by the exponential "
            "mechanism, which draws "
            f"candidate i with probability proportional to exp(-{self.epsilon:g} z_i / 2), z_i "
            "= its mistakes on that part, a score of sensitivity 1, so it is "
            f"{self.epsilon:g}-DP. A change of one record touches one part, so by parallel "
            f"composition the whole costs the maximum of the parts' costs, not their sum "
            f"(JMLR 2011, Algorithm 4). The {self.unused_rows} unused rows are never read."
        )

    def to_dict(self) -> dict:
        release = self.release.to_dict() if hasattr(self.release, "to_dict") else None
        return {
            "procedure": self.procedure,
            "guarantee": self.guarantee,
            "neighbour_relation": self.neighbour_relation,
            "theorem": self.theorem,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "n": self.n,
            "m": self.m,
            "part_sizes": list(self.part_sizes),
            "unused_rows": self.unused_rows,
            "candidates": [_public_params(point) for point in self.candidates],
            "fit_params": _public_params(self.fit_params),
            "privatised": {
                "selected_index": self.selected_index,
                "selected_params": _public_params(self.selected_params),
            },
            # the selected model's own certificate (public constants given the selection)
            "release": release,
        }

    def __str__(self) -> str:
        lines = [
            f"dpcvx tuning: {self.procedure}",
            f"guarantee: {self.guarantee}",
            f"neighbouring data sets: {self.neighbour_relation}",
            f"n = {self.n}: m + 1 = {self.m + 1} parts of {self.part_size} rows "
            f"({self.unused_rows} unused)",
            "candidates: " + ", ".join("{" + _format_params(point) + "}" for point in self.candidates),
            f"selected (privatised, by the exponential mechanism): candidate {self.selected_index + 1} "
            f"of {self.m}, " + _format_params(self.selected_params),
        ]
        if self.fit_params:
            lines.append("fit arguments: " + _format_params(self.fit_params))
        if self.release is not None:
            lines.append(f"selected model's release (trained on its part of {self.part_size} rows):")
            lines.append(str(self.release))
        return "\n".join(lines)


@dataclass(frozen=True)
class TuningResult:
    """What :func:`tune` releases: the selected model, its parameters and the certificate.

    ``diagnostics_`` is not part of the release: it holds what the selected
    learner measured on its private part (for example a kernel learner's
    solve report), for the data owner only; its repr starts with
    "NOT PRIVATE: do not publish". :meth:`to_dict`, :meth:`to_json`, repr and
    str never include it.
    """

    model: Any
    params: dict
    certificate: TuningCertificate
    diagnostics_: Diagnostics = field(default_factory=Diagnostics, repr=False, compare=False)

    @property
    def epsilon(self) -> float:
        return self.certificate.epsilon

    def to_dict(self) -> dict:
        """The release, JSON-ready: the certificate, the selected model's own release (a dpcvx
        release in its file form, :func:`dpcvx.release.serialization.model_to_dict`; another
        model through its ``to_dict``) and, under "privatised", the selected parameters."""
        model = model_to_dict(self.model) if isinstance(self.model, Release) else (
            self.model.to_dict() if hasattr(self.model, "to_dict") else None)
        return {"type": "TuningResult", "certificate": self.certificate.to_dict(),
                "model": model, "privatised": {"params": _public_params(self.params)}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def __str__(self) -> str:
        return f"{self.certificate}\nreleased model: {self.model!r}"

    def __repr__(self) -> str:
        return (f"TuningResult(params={{{_format_params(self.params)}}}, epsilon={self.certificate.epsilon:g}, "
                f"delta={self.certificate.delta:g}, model={self.model!r})")


# -- learners -------------------------------------------------------------------------------


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
    """

    def __init__(self, learner_class: type, **params: Any) -> None:
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
        self.params.update(params)
        return self

    def _build(self, epsilon: float, random_state: RandomState, delta: float) -> Any:
        if getattr(self.learner_class, "seed_only_random_state", False) and isinstance(
                random_state, np.random.Generator):
            # the scikit-learn estimators take an int seed (a Generator would be shared by
            # clones): draw a fresh one from tune's generator for this candidate
            random_state = child_seed(random_state)
        budget = {"epsilon": epsilon, "random_state": random_state}
        if delta > 0:  # pure-DP learners (the scikit-learn estimators) take no delta
            budget["delta"] = delta
        try:
            return self.learner_class(**self.params, **budget)
        except TypeError as error:
            raise InputError(f"could not build {self.learner_class.__name__} with {self.params}: "
                             f"{error}") from None

    def fit(self, X: Any, y: ArrayLike, epsilon: float, random_state: RandomState = None, delta: float = 0.0,
            **fit_params: Any) -> Any:
        return self._build(epsilon, random_state, delta).fit(X, y, **fit_params)

    def check_fit_inputs(self, X: Any, y: np.ndarray, epsilon: float, delta: float = 0.0,
                         **fit_params: Any) -> tuple | None:
        """Raise the error :meth:`fit` would raise for bad parameters or input, fitting nothing.

        Builds the learner (its constructor checks the parameters), checks that
        its fit takes ``fit_params``, checks y against its public ``classes``
        when it declares them, and calls its own ``check_fit_inputs`` when it
        has one (dpcvx.TDDL, PINP, TDIL). Returns the learner's public classes (or None).
        """
        learner = self._build(epsilon, 0, delta)  # a fixed seed: nothing is drawn here
        return _check_candidate(learner, X, y, fit_params)

    def __repr__(self) -> str:
        return f"BudgetInConstructor({self.learner_class.__name__}, {_format_params(self.params)})"


# -- tune ----------------------------------------------------------------------------------


def _takes_budget_in_constructor(learner: Any) -> bool:
    cls = learner if isinstance(learner, type) else type(learner)
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    fit = getattr(cls, "fit", None)
    return "epsilon" in parameters and not (callable(fit) and _accepts_keywords(fit, ("epsilon",)))


def _adapt(learner: Any) -> Any:
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


def _configure(learner: Any, params: dict) -> Any:
    """A fresh learner with ``params``: a copy of an estimator with set_params, or factory(**params)."""
    if not isinstance(learner, type) and hasattr(learner, "fit") and hasattr(learner, "set_params"):
        candidate = copy.deepcopy(learner)
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
            f"factory taking the grid's parameters; got {type(learner).__name__}"
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


def _accepts_keywords(function: Any, names: Sequence[str]) -> bool:
    """Whether ``function`` can be called with these keyword arguments (True if unknown)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return True
    if any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters):
        return True
    keywords = {parameter.name for parameter in parameters
                if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)}
    return set(names) <= keywords


def _data(X: Any, y: ArrayLike) -> tuple[Any, np.ndarray]:  # X: an array or a scipy.sparse matrix
    rows = X.tocsr() if sparse.issparse(X) else np.asarray(X)
    labels = np.asarray(y)
    if rows.ndim != 2:
        raise InputError(f"X must be 2-D (n samples x d features), got shape {rows.shape}")
    if labels.ndim != 1 or labels.shape[0] != rows.shape[0]:
        raise InputError(f"y must be 1-D with one label per row of X: X has {rows.shape[0]} rows, "
                         f"y has shape {labels.shape}")
    return rows, labels


def _check_finite(X: Any) -> None:
    values = X.data if sparse.issparse(X) else X
    if np.issubdtype(values.dtype, np.number) and not np.all(np.isfinite(values)):
        raise InputError("X contains NaN or infinite values; remove or impute them first")


def _check_candidate(candidate: Any, X: Any, y: np.ndarray, fit_params: Mapping[str, Any],
                     epsilon: float | None = None) -> tuple | None:
    """What a candidate's fit would refuse, checked before anything is charged; returns the
    public label pair it declares (or None).

    * its fit must take the keyword arguments tune passes;
    * y must hold only the learner's public ``classes`` when it declares them
      (the pair is public; it is never read off y);
    * the learner's own ``check_fit_inputs(X, y, **fit_params)`` when it has one, with
      ``epsilon=`` when it takes that keyword (as PrivateERM and the kernel learners do).
    """
    fit = getattr(candidate, "fit", None)
    if callable(fit) and not _accepts_keywords(fit, tuple(fit_params)):
        raise InputError(f"{type(candidate).__name__}.fit does not take the argument(s) "
                         f"{sorted(fit_params)} (from fit_params / mechanism / delta)")
    classes = getattr(candidate, "classes", None)
    if classes is not None:
        check_labels(y, y.shape[0], check_classes(classes))
    check = getattr(candidate, "check_fit_inputs", None)
    if callable(check):
        if epsilon is not None and "epsilon" not in fit_params and _takes_keyword(check, "epsilon"):
            fit_params = dict(fit_params, epsilon=epsilon)
        try:
            declared = check(X, y, **fit_params)
        except TypeError as error:
            raise InputError(f"{type(candidate).__name__} refuses the fit arguments: {error}") from None
        if classes is None and isinstance(declared, tuple):
            classes = declared
    return classes


def _check_release_cost(model: Any, epsilon: float, delta: float) -> None:
    """Refuse a model whose own certificate reports more than the (epsilon, delta) it was given, or a
    relation other than replace-one (a second line of defence after :func:`_check_tunable`)."""
    certificate = getattr(model, "certificate", None)
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


def _take_diagnostics(holder: Any) -> Any:
    """Remove and return ``holder.diagnostics_`` (None when it has none)."""
    diagnostics = getattr(holder, "diagnostics_", None)
    if diagnostics is not None:
        with contextlib.suppress(AttributeError):
            delattr(holder, "diagnostics_")
    return diagnostics


def tune(
    learner: Any,
    X: Any,
    y: ArrayLike,
    grid: Mapping[str, Sequence] | Sequence[Mapping[str, Any]],
    epsilon: float,
    *,
    mechanism: str | None = None,
    delta: float = 0.0,
    fit_params: Mapping[str, Any] | None = None,
    accountant: PrivacyAccountant | None = None,
    random_state: RandomState = None,
    verbose: bool = False,
) -> TuningResult:
    """Choose parameters privately and release one model (JMLR 2011, Algorithm 4).

    Parameters
    ----------
    learner : estimator or factory
        An object with ``get_params``/``set_params`` and ``fit`` (copied, never
        modified), or a class or function called as ``learner(**params)``.
        Each candidate is fitted as ``fit(X_i, y_i, epsilon=epsilon,
        random_state=generator, **fit_params)``. It must declare
        ``predicts_per_row = True`` (:mod:`dpcvx.models.contract`): its model's
        ``predict`` classifies each row on its own. An interactive learner
        (dpcvx.PINP, whose answers depend on earlier queries) would break the
        sensitivity-1 argument and is refused before anything is charged, as is
        a candidate fitted under add-remove neighbours. Wrap learners that take
        epsilon in their constructor in :class:`BudgetInConstructor`.
    grid : dict of lists (Cartesian product) or list of dicts
        Constructor parameters to try; see :func:`expand_grid`. m = the number
        of candidates, and the data are split into m + 1 parts.
    epsilon : float
        The budget of the whole procedure; each candidate is fitted with all
        of it, and the selection uses it too (see the module notes).
    mechanism : str, optional
        Passed to every fit as ``mechanism=`` ("objective" or "output" for
        :class:`~dpcvx.models.erm.PrivateERM`); omitted when None.
    delta : float
        For (epsilon, delta)-DP learners: passed to every fit as ``delta=``
        when positive, and charged. The procedure is then (epsilon, delta)-DP.
    fit_params : dict, optional
        Further keyword arguments for every fit (for example ``split``).
    accountant : PrivacyAccountant, optional
        Charged (epsilon, delta) once, by parallel composition over the m + 1
        disjoint parts, after the inputs are checked and before any fit; a
        refusal raises :class:`~dpcvx.exceptions.BudgetExceededError` and
        nothing is fitted. The fits themselves are not charged again.
    random_state : None, int or numpy Generator
        Drives the split, every fit's noise and the selection (None: OS entropy).
    verbose : bool
        Show a progress bar (tqdm, if installed) when stderr is a terminal: the count of
        candidates fitted and the elapsed time, nothing measured on the data
        (:func:`dpcvx.progress.progress`).

    Returns
    -------
    TuningResult
        ``model`` (the selected candidate's model, trained on its part only),
        ``params`` and ``certificate`` (:class:`TuningCertificate`). The
        candidates' mistake counts are not returned, stored or logged. The
        selected model's ``diagnostics_`` (solver statistics on private
        data), if it has any, are moved to ``TuningResult.diagnostics_``
        (NOT PRIVATE: do not publish).

    Every input is checked before the accountant is charged: X finite, y
    against the learner's public ``classes`` (all of y, held-out part
    included), and each candidate's parameters and fit arguments on its own
    part (through ``check_fit_inputs`` when the learner has it, as
    :class:`BudgetInConstructor` and the dpcvx kernel learners do).
    """
    candidates = expand_grid(grid)
    epsilon, delta = check_cost(epsilon, delta)
    X, y = _data(X, y)
    keywords = dict(fit_params or {})
    reserved = sorted(set(keywords) & set(_RESERVED_FIT_KEYWORDS))
    if reserved:
        raise InputError(f"fit_params must not set {reserved}: tune passes epsilon and the random "
                         "generator itself, and charges the accountant once for the whole procedure")
    if mechanism is not None:
        keywords["mechanism"] = mechanism
    if delta > 0:
        keywords["delta"] = delta
    m, n = len(candidates), X.shape[0]
    check_accountant(accountant)
    rng = resolve_rng(random_state)
    parts = disjoint_parts(n, m + 1, rng)  # reads n only; refuses too few rows
    learner = _adapt(learner)
    learners = [_configure(learner, params) for params in candidates]
    _check_finite(X)
    for candidate in learners:  # the capability and relation first: nothing of the data is read for them
        name = type(candidate.learner_class if isinstance(candidate, BudgetInConstructor) else candidate).__name__
        check_tunable(candidate, keywords, name)
    for candidate, rows in zip(learners, parts[:-1], strict=True):
        classes = _check_candidate(candidate, X[rows], y[rows], keywords, epsilon)
        if classes is not None:  # the held-out part is labelled like the rest
            check_labels(y, n, check_classes(classes))

    if accountant is not None:
        accountant.spend_parallel(
            [(epsilon, delta)] * (m + 1),
            description=f"dpcvx.tune (Algorithm 4, m={m} candidates, n={n})",
            neighbours=Neighbours.REPLACE_ONE,
        )
    held_out = parts[-1]
    X_held_out, y_held_out = X[held_out], y[held_out]
    logger.debug("Algorithm 4: n=%d rows, m=%d candidates, %d parts of %d rows, %d rows unused",
                 n, m, m + 1, held_out.size, n - held_out.size * (m + 1))

    models, mistakes = [], []
    with progress(m, "dpcvx.tune (Algorithm 4)", unit="candidate", verbose=verbose) as bar:
        for index, (candidate, rows) in enumerate(zip(learners, parts[:-1], strict=True)):
            logger.debug("Algorithm 4: fitting candidate %d of %d on its part", index + 1, m)
            model = candidate.fit(X[rows], y[rows], epsilon=epsilon, random_state=rng, **keywords)
            _check_release_cost(model, epsilon, delta)
            mistakes.append(count_mistakes(model, X_held_out, y_held_out))
            models.append(model)
            bar.update()
    selected = select_exponential(mistakes, epsilon, rng)
    del mistakes  # never stored, returned or logged
    logger.debug("Algorithm 4: released candidate %d of %d", selected + 1, m)

    model = models[selected]
    # the data owner's, never part of the release: on the model, or on the learner that made it
    selected_diagnostics = _take_diagnostics(model)
    if selected_diagnostics is None:
        selected_diagnostics = _take_diagnostics(learners[selected])
    certificate = TuningCertificate(
        epsilon=epsilon,
        delta=delta,
        candidates=candidates,
        selected_index=selected,
        n=n,
        part_size=int(held_out.size),
        fit_params=keywords,
        release=getattr(model, "certificate", None),
    )
    diagnostics = Diagnostics() if selected_diagnostics is None else Diagnostics(
        selected_model=selected_diagnostics)
    return TuningResult(model=model, params=dict(candidates[selected]), certificate=certificate,
                        diagnostics_=diagnostics)
