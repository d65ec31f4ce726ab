"""Whether a released classifier predicts one class on every row it can see: a public check of the release.

A released linear classifier predicts from s(x) = w^T x + b over rows mapped as in training and
clipped to the public bound R (:meth:`dpcvx.data.rows.RowMap.clip`), so ||x|| <= R for every row
it will ever score. By Cauchy-Schwarz |w^T x| <= ||w|| R, hence

* b > ||w|| R: s(x) > 0 on every such row, the positive class everywhere;
* b + ||w|| R <= 0: s(x) <= 0 on every such row, the negative class everywhere.

For k one-vs-rest scores s_i(x) = w_i^T x + b_i (the argmax, ties to the first), class i wins on every
row when b_i - b_j > ||w_i - w_j|| R for every j != i. Each test reads only the released weights and
the public bound R: post-processing of the release, no privacy spent (docs/theory.md, section "A
release that predicts one class"). The bound ||w|| R is rounded up by a relative 1e-9 so that a
floating-point score never contradicts the statement. The test is sufficient, not necessary: a
release may still predict one class on every row the data hold (a NOT PRIVATE question,
:mod:`dpcvx.models.training_rows`).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..advice import for_reader, setting
from ..exceptions import ConstantPredictionWarning, warn_shown

__all__ = ["constant_at_cut", "constant_class", "one_class_findings", "rare_class_advice", "warn_if_constant",
           "checks_off", "checks_are_off", "warn_release", "held_warnings", "emit", "Held", "called", "speaker",
           "estimator_called", "part_of_a_release"]

_UP = 1.0 + 1e-9  # the safe side of ||w|| R computed in floating point
_OFF: contextvars.ContextVar[bool] = contextvars.ContextVar("dpcvx_usefulness_checks_off", default=False)

#: The public warnings about one fit's release, kept by :func:`held_warnings`: (text, warning class) pairs.
Held = list[tuple[str, type[Warning]]]
_HELD: contextvars.ContextVar[Held | None] = contextvars.ContextVar("dpcvx_release_warnings_held", default=None)
_CALLED: contextvars.ContextVar[str | None] = contextvars.ContextVar("dpcvx_called_class", default=None)
_PARTS: contextvars.ContextVar[frozenset[type[Warning]]] = contextvars.ContextVar("dpcvx_part_warnings",
                                                                                  default=frozenset())


@contextmanager
def checks_off() -> Iterator[None]:
    """Within this block no fit warns about its release: :func:`dpcvx.tune` runs its candidates inside it, since a
    candidate that is not selected is not released, and a warning about it would tell more than tune's proof covers
    (the public warnings of :func:`warn_release`, kept per run by :func:`held_warnings`, and the NOT PRIVATE
    :mod:`dpcvx.models.training_rows`, never run)."""
    token = _OFF.set(True)
    try:
        yield
    finally:
        _OFF.reset(token)


def checks_are_off() -> bool:
    """True inside :func:`checks_off`."""
    return _OFF.get()


@contextmanager
def held_warnings() -> Iterator[Held]:
    """Within this block the public warnings about a fit's release (:func:`warn_release`) are kept in the list it
    gives, not shown: :func:`dpcvx.tune` fits each run inside one, so a run that is not released tells nothing (its
    values, and by the count of warnings the number of runs), and shows the selected run's once, after the
    selection (:func:`emit`), from the values its release holds."""
    held: Held = []
    token = _HELD.set(held)
    try:
        yield held
    finally:
        _HELD.reset(token)


@contextmanager
def part_of_a_release(*categories: type[Warning]) -> Iterator[None]:
    """Within this block the fits are parts of one release, which judges itself: their :func:`warn_release` of
    ``categories`` is dropped, shown or kept (:func:`held_warnings`) alike. One-vs-rest's class against the rest may
    predict one side everywhere while the argmax does not: a warnings filter hid that part's
    ConstantPredictionWarning from a direct fit only, and inside :func:`dpcvx.tune`, whose warnings are kept before
    any filter, "predicts the class -1 on every row" (the rest, no declared class) reached the user."""
    token = _PARTS.set(_PARTS.get() | frozenset(categories))
    try:
        yield
    finally:
        _PARTS.reset(token)


@contextmanager
def called(name: str) -> Iterator[None]:
    """The block of a fit the user called on the class ``name`` (an estimator: DPLogisticRegression ...): every warning
    of the fit, its learner's within (a :class:`~dpcvx.models.erm.PrivateERM`, one-vs-rest), names ``name``
    (:func:`speaker`). The outermost block names the source: a fit within a fit speaks for the one the user called."""
    token = _CALLED.set(_CALLED.get() or name)
    try:
        yield
    finally:
        _CALLED.reset(token)


def speaker(owner: str) -> str:
    """The class a fit's warning names as its source: the one the user called (:func:`called`), else ``owner`` (the
    class that warns, itself called by the user: PrivateERM, a kernel learner). Every warning of a fit that names its
    source names it by this."""
    return _CALLED.get() or owner


def estimator_called() -> bool:
    """Whether the fit that runs is one the user called on an estimator (:func:`called`), not on a learner such as
    PrivateERM: an advice names the settings of the class the user holds (an estimator's ``threshold``)."""
    return _CALLED.get() is not None


def warn_release(text: str, category: type[Warning]) -> None:
    """The one way a fit warns about its release from public quantities (ConstantPredictionWarning,
    NoiseDominatesWarning, SmallTableWarning, ClassFloorWarning): at the user's line, kept instead inside
    :func:`held_warnings`, and dropped inside :func:`checks_off` otherwise (a fit of tune's that is no run, such as
    a rehearsal)."""
    if category in _PARTS.get():
        return
    held = _HELD.get()
    if held is not None:
        held.append((text, category))
    elif not _OFF.get():
        warn_shown(text, category)


def emit(held: Held, *, tuned: bool = False) -> None:
    """Show warnings kept by :func:`held_warnings` (the released run's), each once, at the user's line. ``tuned``: the
    run :func:`dpcvx.tune` released, whose ConstantPredictionWarning advises a wider grid or budget
    (:data:`TUNED_ADVICE`) where a fit's advises choosing the settings with dpcvx.tune, which was done."""
    for text, category in dict.fromkeys(held):
        if tuned and category is ConstantPredictionWarning:
            text = text.replace(TUNE_ADVICE, TUNED_ADVICE)
        warn_shown(text, category)


def constant_class(coef: np.ndarray, intercept: float | np.ndarray, norm_bound: float, cut: float = 0.0) -> int | None:
    """The index (into the public classes) predicted on every row of norm <= ``norm_bound``, else None.

    ``coef`` (d,) with a scalar ``intercept`` (binary: index 1 when w^T x + b > ``cut`` everywhere, 0 when
    w^T x + b <= ``cut`` everywhere; ``cut`` a classifier's public decision cut, 0 at threshold 1/2) or (k, d)
    with k intercepts (one-vs-rest argmax, no cut).
    """
    weights = np.asarray(coef, dtype=float)
    if weights.ndim == 1:
        b = float(intercept) - cut
        reach = float(np.linalg.norm(weights)) * norm_bound * _UP
        if b > reach:
            return 1
        return 0 if b + reach <= 0 else None
    offsets = np.asarray(intercept, dtype=float)
    for i in range(weights.shape[0]):
        others = [j for j in range(weights.shape[0]) if j != i]
        reach = np.linalg.norm(weights[i] - weights[others], axis=1) * norm_bound * _UP
        if np.all(offsets[i] - offsets[others] > reach):
            return i
    return None


#: The advice a constant classifier's finding ends with (:func:`one_class_findings`, :func:`constant_at_cut`)
TUNE_ADVICE = "choose the settings with dpcvx.tune (the private way)"
#: The advice its ConstantPredictionWarning gives instead when :func:`dpcvx.tune` selected the release (:func:`emit`):
#: tune's choice was that advice, followed
TUNED_ADVICE = ("widen dpcvx.tune's candidate grid (larger lam values, another loss or threshold) or give the "
                "selection a larger epsilon or more rows: dpcvx.tune chose this release as the best of its candidates")


def rare_class_advice() -> str:
    """What a binary estimator's ConstantPredictionWarning adds when it was fitted without class weights or a class
    prior (public settings): on a rare class (1 % positives) such a fit predicts the common class everywhere at
    every epsilon and n a probe tried, where the intercept at the log-odds of one private count, cut there, reached
    balanced accuracy 0.75 (docs/theory.md, section 21)."""
    private, prior = setting("class_prior", repr("private"), "private"), setting("threshold", repr("prior"), "prior")
    return (f". If one class is rare, a larger epsilon or n may not mend it: fit with {private} and {prior} (the "
            "intercept at the log-odds of one private count of the classes, and predict's cut there)")


def one_class_findings(coef: np.ndarray, intercept: float | np.ndarray, classes: Any,
                       norm_bound: float) -> tuple[str, ...]:
    """The certificate's statement when the release predicts one class on every row (else ``()``)."""
    index = constant_class(coef, intercept, norm_bound)
    if index is None:
        return ()
    label = np.asarray(classes).tolist()[index]
    return (f"constant classifier: the release predicts the class {label!r} on every row of norm at most "
            f"R = {norm_bound:g}, which is every row it can score (the intercept outweighs ||w|| R; a public "
            "check of the released weights, no privacy spent). It is no better than predicting that class "
            f"without data: raise epsilon or n, use fewer columns, or {TUNE_ADVICE}",)


def constant_at_cut(coef: np.ndarray, intercept: float, classes: Any, norm_bound: float, cut: float) -> str | None:
    """The text of :class:`~dpcvx.exceptions.ConstantPredictionWarning` for a binary classifier that predicts at the
    public decision cut ``cut`` (not 0: its threshold is not 1/2) when it predicts one class on every row of norm at
    most R there, else None. The certificate's findings (:func:`one_class_findings`) state the release at cut 0,
    which is not what such a classifier predicts (docs/theory.md, section "A release that predicts one class")."""
    index = constant_class(coef, intercept, norm_bound, cut)
    if index is None:
        return None
    label = np.asarray(classes).tolist()[index]
    return (f"constant classifier at its decision cut {cut:g}: it predicts the class {label!r} on every row of "
            f"norm at most R = {norm_bound:g}, which is every row it can score (|b - cut| outweighs ||w|| R; a public "
            "check of the released weights and the public threshold, no privacy spent; the certificate's findings "
            "are stated at cut 0). It is no better than predicting that class without data: raise epsilon or n, "
            f"use fewer columns, choose another threshold, or {TUNE_ADVICE}")


def warn_if_constant(owner: str, findings: tuple[str, ...]) -> None:
    """Warn :class:`~dpcvx.exceptions.ConstantPredictionWarning` with the certificate's finding, if any."""
    for finding in findings:
        warn_release(f"{speaker(owner)}: {for_reader(finding)}", ConstantPredictionWarning)
