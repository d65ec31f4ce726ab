"""What :func:`dpcvx.tune` scores a candidate by: a per-row loss in whole units of a public grid.

docs/theory.md, section 24.4. A score is the sum, over the held-out rows, of a per-row loss u(f(x), y) of
the row and of the released model's prediction f(x) (a per-row prediction, :mod:`dpcvx.models.contract`),
rounded to an integer number of units in {0, ..., K}. K, the unit and the rounding are public, fixed
before any fit, so replacing one held-out row moves the total by at most K: the score's sensitivity is
exactly K (the clip to {0, ..., K} holds it whatever the floating point does), and the exact samplers
apply unchanged with epsilon / K (full-data: a discrete Laplace count of scale K / e_Q; split: the
exponential mechanism over integer totals with sensitivity K).

* :class:`Mistakes`: a count of mistakes, each row's weighted by its class's PUBLIC weight
  (``class_weight``, a dict over the learner's public classes). Without weights a mistake is one unit and
  K = 1 (the count of JMLR 2011, Algorithm 4). With weights, w_c is rounded to ``steps`` units of
  max_c w_c / ``steps``, so K = ``steps``.
* :class:`ClippedSquaredError`: min((f(x) - y)^2, C) for a PUBLIC bound C, rounded to ``steps`` units of
  C / ``steps`` (K = ``steps``); a prediction that is not finite costs C. A regressor's default C is
  (hi - lo)^2 for its public label range (2 B for a bound B).

Not offered: balanced accuracy over the held-out part's own class counts. Its per-class weights 1 / n_c are
read off the held-out rows, so one replaced row moves them too, and the sensitivity grows like 1 / min_c n_c,
a statistic of the data with no public bound (a class with one held-out row moves the score by 1 / 2).
Weights fixed before any fit (a public prior, or ``class_weight="balanced"`` computed from a separately
charged class count) give the same emphasis with a public sensitivity.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

import numpy as np

from ...exceptions import InputError
from ...validation import check_bound, declared_labels, integer, label_range, non_negative
from ..linear_regression import PrivateLinearRegression

__all__ = ["Score", "Mistakes", "ClippedSquaredError", "STEPS", "SQUARED_ERROR_STEPS", "MISTAKES_RECORD", "describe",
           "resolve_score", "declared_label_range", "is_regressor", "total_units"]

#: The default number of units of a weighted mistake's largest weight.
STEPS = 100
#: The default number of units of the squared error's bound C: the noise's scale in squared error is C / e_Q whatever
#: K is (docs/theory.md, section 24.4), so a fine grid costs nothing, while 100 units rounded every residual below
#: sqrt(C / 200) to 0 (a target of 1000 +- 50 in a public range (0, 2000): every row scored 0 for a good model and for
#: the mean alike, and the selection was blind).
SQUARED_ERROR_STEPS = 10**6

_REFUSED = {
    "balanced_accuracy": ("balanced accuracy over the held-out part's own class counts is not offered: its "
                          "weights 1 / n_c are read off the held-out rows, so its sensitivity (up to 1 / min n_c) "
                          "depends on the data. Use score=Mistakes(class_weight={...}) with weights fixed before "
                          "any fit"),
}


class Score(Protocol):
    """A per-row loss in whole units of a public grid (module docstring)."""

    @property
    def name(self) -> str: ...

    @property
    def sensitivity(self) -> int: ...

    @property
    def unit(self) -> Fraction: ...

    def row_units(self, predictions: np.ndarray, labels: np.ndarray) -> np.ndarray: ...

    def check_classes(self, classes: Sequence[Any] | None) -> None: ...

    def to_dict(self) -> dict: ...


def _steps(steps: Any) -> int:
    return integer("steps", steps, maximum=10**6)  # the public grid's units


@dataclass(frozen=True)
class Mistakes:
    """The (class-weighted) count of mistakes: a mistake on a row of class c costs w_c (module docstring).

    ``class_weight``: None (every mistake one unit, sensitivity 1) or a PUBLIC dict from each of the
    learner's public classes to a weight >= 0, fixed before any fit; never computed from the held-out rows.
    """

    class_weight: Mapping[Any, float] | None = None
    steps: int = STEPS
    units: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.class_weight is None:
            object.__setattr__(self, "units", {})
            return
        if not isinstance(self.class_weight, Mapping) or not self.class_weight:
            raise InputError("class_weight must be a non-empty dict {class: weight} of public weights "
                             f"(balanced accuracy is not offered: its weights depend on the data), got "
                             f"{self.class_weight!r}")
        weights = {}
        for label, weight in self.class_weight.items():
            weights[label] = Fraction(non_negative(f"class_weight[{label!r}]", weight))
        top = max(weights.values())
        if top == 0:
            raise InputError("class_weight gives every class the weight 0: every candidate would score 0")
        steps = _steps(self.steps)
        # w_c / max w rounded to the nearest of steps units, exactly (rationals): the public grid
        units = {label: int(round(weight / top * steps)) for label, weight in weights.items()}
        object.__setattr__(self, "units", units)

    @property
    def name(self) -> str:
        return "mistakes" if self.class_weight is None else "class-weighted mistakes"

    @property
    def sensitivity(self) -> int:
        """K: the most one row can add (a mistake of the heaviest class)."""
        return 1 if self.class_weight is None else max(self.units.values())

    @property
    def unit(self) -> Fraction:
        """What one unit is worth: one mistake, or max w_c / steps of weight."""
        if self.class_weight is None:
            return Fraction(1)
        return Fraction(float(max(self.class_weight.values()))) / _steps(self.steps)

    def check_classes(self, classes: Sequence[Any] | None) -> None:
        """A regressor has no classes (refused); with weights, every public class must have one."""
        if classes is None and self.class_weight is not None:
            raise InputError("score=Mistakes(class_weight=...) needs a learner that declares its public classes "
                             "(classes=...): the weights are looked up by class. Nothing was charged")
        if self.class_weight is not None and classes is not None:
            missing = [label for label in classes if label not in self.units]
            if missing:
                raise InputError(f"class_weight gives no weight to the public class(es) {missing!r}; name every "
                                 "class of the learner's classes. Nothing was charged")

    def row_units(self, predictions: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """Each row's units: 0 when predicted right, else 1 (unweighted) or its class's units."""
        wrong = predictions != labels
        if self.class_weight is None:
            return wrong.astype(np.int64)
        units = np.zeros(labels.shape[0], dtype=np.int64)
        for label, value in self.units.items():
            units[wrong & (labels == label)] = value
        return units

    def to_dict(self) -> dict:
        record: dict[str, Any] = {"name": self.name, "sensitivity": self.sensitivity, "unit": str(self.unit)}
        if self.class_weight is not None:
            record["class_weight"] = {repr(label): float(weight) for label, weight in self.class_weight.items()}
            record["units"] = {repr(label): value for label, value in self.units.items()}
        return record


@dataclass(frozen=True)
class ClippedSquaredError:
    """min((f(x) - y)^2, C) in units of C / ``steps``, rounded to the nearest (module docstring).

    ``bound`` C is PUBLIC; None takes the learner's public label range: C = (hi - lo)^2."""

    bound: float | None = None
    steps: int = SQUARED_ERROR_STEPS

    def __post_init__(self) -> None:
        if self.bound is not None:
            check_bound("ClippedSquaredError bound", self.bound)
        _steps(self.steps)

    name = "clipped squared error"

    @property
    def sensitivity(self) -> int:
        return _steps(self.steps)

    @property
    def unit(self) -> Fraction:
        if self.bound is None:
            raise InputError("the squared error's bound C is not resolved")
        return Fraction(float(self.bound)) / self.sensitivity

    def check_classes(self, classes: Sequence[Any] | None) -> None:
        if classes is not None:
            raise InputError("score=ClippedSquaredError scores a regressor's values; this learner declares public "
                             "classes (a classifier): score it by Mistakes. Nothing was charged")

    def row_units(self, predictions: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """round(min(r^2, C) steps / C) for each residual r, clipped to 0 .. steps (a non-finite r costs steps)."""
        assert self.bound is not None
        with np.errstate(all="ignore"):
            squared = (np.asarray(predictions, dtype=float) - np.asarray(labels, dtype=float)) ** 2
            scaled = np.floor(np.minimum(squared, self.bound) * (self.sensitivity / self.bound) + 0.5)
        scaled = np.where(np.isfinite(scaled), scaled, self.sensitivity)
        return np.clip(scaled, 0, self.sensitivity).astype(np.int64)

    def to_dict(self) -> dict:
        return {"name": self.name, "sensitivity": self.sensitivity, "unit": str(self.unit), "bound": self.bound}


MISTAKES_RECORD = Mistakes().to_dict()


def describe(record: Mapping[str, Any]) -> str:
    """A score's record in words, for a certificate: what it counts, its unit and its sensitivity K."""
    if record["name"] == "mistakes":
        return "its mistakes (a count of sensitivity 1)"
    if record["name"] == "clipped squared error":
        return (f"its squared error clipped to {record['bound']:g}, each row rounded to units of {record['unit']} "
                f"(a total of sensitivity {record['sensitivity']} units)")
    return (f"its class-weighted mistakes, the public weights rounded to units {record['units']} "
            f"(a total of sensitivity {record['sensitivity']} units)")


def is_regressor(candidate: Any) -> bool:
    """Whether a candidate predicts values: PrivateERM with task="regression", PrivateLinearRegression, or a
    scikit-learn regressor (a subclass of RegressorMixin, whose module is then loaded). Public settings only."""
    cls = getattr(candidate, "learner_class", None) or type(candidate)
    task = _setting(candidate, "task")
    if isinstance(task, str):
        return task == "regression"
    if issubclass(cls, PrivateLinearRegression):
        return True
    base = sys.modules.get("sklearn.base")
    return base is not None and issubclass(cls, base.RegressorMixin)


def _setting(candidate: Any, name: str) -> Any:
    """A public constructor setting of a candidate (a BudgetInConstructor's parameter or its class default)."""
    cls = getattr(candidate, "learner_class", None)
    if cls is None:
        return getattr(candidate, name, None)
    if name in candidate.params:
        return candidate.params[name]
    try:
        parameter = inspect.signature(cls).parameters.get(name)
    except (TypeError, ValueError):
        return None
    return None if parameter is None or parameter.default is inspect.Parameter.empty else parameter.default


def _numeric_label_bound(candidate: Any) -> Any:
    """A candidate's ``label_bound`` setting when it declares one as a number or a pair, else None."""
    declared = _setting(candidate, "label_bound")
    return None if isinstance(declared, str) else declared


def _default_bound(candidate: Any) -> float:
    declared = _numeric_label_bound(candidate)
    if declared is None:
        raise InputError("tune scores a regressor by its squared error clipped to a PUBLIC bound C; this learner "
                         f"has no public numeric label_bound ({_setting(candidate, 'label_bound')!r}) to take "
                         "C = (hi - lo)^2 from: pass score=ClippedSquaredError(bound=C). Nothing was charged")
    _, half_width = label_range(declared)
    return (2 * half_width) ** 2


def declared_label_range(candidate: Any) -> tuple[float, float] | None:
    """A regressor candidate's public label range (lo, hi) from its ``label_bound`` setting (B: (-B, B)); None when
    it declares none as a number."""
    declared = _numeric_label_bound(candidate)
    if declared is None:
        return None
    centre, half_width = label_range(declared)
    return centre - half_width, centre + half_width


def resolve_score(score: Any, learners: Sequence[Any]) -> Score:
    """The score of this tuning (checked before any charge): the given one, or the learners' task's default
    (:class:`Mistakes` for classifiers, :class:`ClippedSquaredError` at the label range for regressors)."""
    if isinstance(score, str):
        if score in _REFUSED:
            raise InputError(_REFUSED[score] + ". Nothing was charged")
        if score == "mistakes":
            score = Mistakes()
        elif score == "squared_error":
            score = ClippedSquaredError()
        else:
            raise InputError(f"score must be 'mistakes', 'squared_error', Mistakes(...) or ClippedSquaredError(...), "
                             f"got {score!r}")
    regressors = [is_regressor(candidate) for candidate in learners]
    if any(regressors) and not all(regressors):
        raise InputError("the grid mixes classifiers and regressors; one score cannot rank both. Nothing was charged")
    if score is None:
        score = ClippedSquaredError() if regressors[0] else Mistakes()
    if not isinstance(score, (Mistakes, ClippedSquaredError)):
        raise InputError(f"score must be Mistakes(...) or ClippedSquaredError(...), got {type(score).__name__}")
    if regressors[0] and isinstance(score, Mistakes):
        raise InputError("a regressor's predictions are values: a count of exact mistakes is meaningless. Score it "
                         "by score=ClippedSquaredError(bound=C). Nothing was charged")
    if not regressors[0] and isinstance(score, ClippedSquaredError):
        raise InputError("score=ClippedSquaredError scores a regressor's values; a classifier is scored by "
                         "Mistakes (class_weight= for public weights). Nothing was charged")
    if isinstance(score, ClippedSquaredError) and score.bound is None:
        bounds = {_default_bound(candidate) for candidate in learners}
        if len(bounds) > 1:
            raise InputError("the candidates' label bounds differ, so their squared errors have no one default "
                             "bound: pass score=ClippedSquaredError(bound=C). Nothing was charged")
        score = ClippedSquaredError(bounds.pop(), score.steps)
    return score


def total_units(score: Score, model: Any, X: Any, y: np.ndarray) -> int:
    """The score's integer total on (X, y): the sum of each row's units (read by :mod:`.full_data` and
    :mod:`.split` on the held-out part only; never released without noise). A classifier's labels are read by value
    against its public ``classes_`` (:func:`~dpcvx.validation.declared_labels`: "1.0" is the class 1), as its fit
    read them: each candidate's own classes, which tune's candidates may spell differently."""
    predictions = np.asarray(model.predict(X)).ravel()
    labels = np.asarray(y).ravel()
    classes = getattr(model, "classes_", None)
    if classes is not None:
        labels = declared_labels(labels, tuple(np.asarray(classes).tolist()))
    if predictions.shape != labels.shape:
        raise InputError(f"model.predict returned {predictions.shape[0]} values for {labels.shape[0]} rows")
    return int(score.row_units(predictions, labels).sum())
