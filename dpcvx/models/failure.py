"""The failure rule: after the charge, a fit must not fail, alone or in a composite procedure (docs/theory.md, 7.1).

A composite procedure (:func:`dpcvx.tune`, the one-vs-rest learner, a private bound followed by a
fit) charges its budget once and then runs fits on the private data. Its proof covers what those
fits release; it covers an exception only if the exception's probability is the same on
neighbouring data sets. A solver that gives up after ``max_iter`` iterations on some data and not
on others, a user's ``np.seterr(all="raise")`` that turns an overflow at one extreme margin into an
error, or a learner whose ``fit`` rejects an argument only when it is first called, all release an
event no theorem covers (the audit of full-data selection measured a lower bound of 3.54 on
epsilon at a claimed 0.1 from the event "every run failed").

So the rule, enforced here and nowhere else:

1. **Only proved methods.** Every fit, a plain one too, refuses before anything is charged a solve path
   without a practical proved iteration budget (:func:`require_proved`; the budget is
   :mod:`dpcvx.solvers.budget`): a user's solver, a conic-only problem, Newton beyond
   ``MAX_PROVED_ITERATIONS`` or without a proved curvature c (linear or kernel:
   :func:`~dpcvx.solvers.choice.refuse_unsafeguarded`; :class:`~dpcvx.solvers.kernel.KernelERM` for the kernel
   learners). A plain fit's failure after its charge is a release as well (section 7.1).
2. **Rehearsal.** Every candidate's ``fit`` runs once on synthetic public rows before the charge
   (:func:`rehearse`): an argument its ``fit`` does not take, an import that fails, a setting it
   refuses, all surface while nothing is spent, and the message may name them (the rows are public).
3. **Fixed numerics.** The fits after the charge run with numpy's floating-point errors ignored
   and warnings recorded (:func:`fixed_numerics`): the user's global settings cannot turn a
   data-dependent overflow or warning into an exception (every public entry that reads the rows ignores
   numpy's errors too: :func:`~dpcvx.exceptions.float_errors_ignored`).
4. **No silent catch.** A fit that still raises after the charge is a bug: the procedure stops
   with :class:`~dpcvx.exceptions.SolverError` naming the rule (:func:`charged`, :func:`after_charge`); it
   never scores the failure and goes on, which would make the failure part of the output.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import scipy.sparse as sparse

from ..data.notes import notes_dropped
from ..exceptions import DPCVXWarning, InputError, SolverError, SourceChangedError, warn_shown
from ..privacy.rng import resolve_rng
from ..solvers.choice import refuse_unsafeguarded

__all__ = ["composite", "require_proved", "rehearse", "rehearsing", "fixed_numerics",
           "declarations_told", "charged", "after_charge", "REHEARSAL_ROWS"]

REHEARSAL_ROWS = 64  # synthetic rows of a rehearsal (fewer when the data set has fewer)
REHEARSAL_SEED = 0  # a seeded procedure's rehearsal noise: a fixed seed, nothing of it is released

_PROCEDURE: ContextVar[str | None] = ContextVar("dpcvx_composite_procedure", default=None)
# True in the fits a procedure runs after its charge (fixed_numerics): their public declarations were checked and
# warned of before it (declarations_told)
_TOLD: ContextVar[bool] = ContextVar("dpcvx_declarations_told", default=False)


def declarations_told() -> bool:
    """Whether the fit runs after a procedure's charge (:func:`fixed_numerics`): the procedure's checks gave the
    warnings of the learners' public declarations (ClassOrderWarning) before the charge, and a fit does not give
    them again."""
    return _TOLD.get()
_REHEARSING: ContextVar[bool] = ContextVar("dpcvx_rehearsing", default=False)


def rehearsing() -> bool:
    """Whether the current fit is a rehearsal on synthetic public rows (:func:`rehearse`): a learner that logs
    its fits (a test's spy) can tell them from the real ones."""
    return _REHEARSING.get()


@contextmanager
def composite(procedure: str) -> Iterator[None]:
    """Mark the checks and fits run inside ``procedure`` (a name for messages) as those of a composite
    procedure: :func:`require_proved`'s refusals and :func:`rehearse` name it."""
    token = _PROCEDURE.set(procedure)
    try:
        yield
    finally:
        _PROCEDURE.reset(token)


def require_proved(proved: bool, learner: str, reason: str) -> None:
    """Refuse, before the charge, a fit whose success is not proved from public quantities (rule 1): a solve path
    without a proved iteration budget within ``MAX_PROVED_ITERATIONS`` (a user's solver, a conic-only problem,
    Newton without a proved c or beyond the limit). ``reason`` says which path it would take and how to get a
    proved one. Every fit, alone or inside a composite procedure (whose name the message then gives): a plain fit
    that charged and then failed on one neighbour and released on the other released that event, which no theorem
    covers (a conic-only regularizer, 0.5 ||w||^2 + log_sum_exp(w): SolverError on a data set with one label
    flipped, a release on the other; docs/theory.md, section 7.1). The refusal is
    :func:`~dpcvx.solvers.choice.refuse_unsafeguarded`'s (the kernel learners' too), the procedure's name first."""
    if proved:
        return
    procedure = _PROCEDURE.get()  # inside one, the refusal names it first: the same refusal as the fit's alone
    refuse_unsafeguarded(learner if procedure is None else f"{procedure}: {learner}", reason)


def _synthetic(X: Any, rows: int) -> Any:
    """``rows`` public rows of X's width and kind: the first ``min(rows, d)`` unit vectors times 1/2, then zeros."""
    d = X.shape[1]
    dense = np.zeros((rows, d))
    index = np.arange(min(rows, d))
    dense[index, index] = 0.5
    return sparse.csr_matrix(dense) if sparse.issparse(X) else dense


def _labels(classes: Sequence[Any] | None, rows: int) -> np.ndarray:
    """The public classes in turn (every class present); for a learner that declares none, -1 and +1 in turn,
    labels that dpcvx's default classes and any regression's label bound >= 1 both accept."""
    pair = (-1, 1) if classes is None else classes
    return np.array([pair[i % len(pair)] for i in range(rows)])


def rehearse(fits: Sequence[Callable[[Any, np.ndarray, np.random.Generator | None], Any]],
             classes: Sequence[Sequence[Any] | None], X: Any, procedure: str, seeded: bool,
             rows: int | None = None) -> None:
    """Fit every candidate once on synthetic public rows, with no accountant, before the charge: ``fits[i](X, y,
    random_state)`` fits candidate i (a copy of it, or from its plan) with the procedure's budget.

    ``random_state`` is of the kind the fits after the charge receive: for a ``seeded`` procedure a generator with
    the fixed seed ``REHEARSAL_SEED`` (the procedure's own stream is left as it is), else None, so that an unseeded
    rehearsal draws from the OS, as the fits after the charge do, and its exact samplers take their array path. With a
    seeded source they take the scalar samplers (a seed's draws stay those they gave before the array path existed):
    a rehearsal of an unseeded tune drew each candidate's column histograms so, 0.16 s each at 20 columns, most of a
    tune's time at 100,000 rows (docs/performance.md, round 25). Nothing of a rehearsal is released.

    The rows (:func:`_synthetic`) and labels (the candidate's public classes in turn) are functions of
    public quantities only (X's width and kind, the number of rows capped at ``REHEARSAL_ROWS``, or ``rows``), so
    any error is public and is raised with its message as an :class:`InputError`.
    """
    rows = min(X.shape[0], REHEARSAL_ROWS) if rows is None else rows
    synthetic = _synthetic(X, rows)
    for index, (fit, declared) in enumerate(zip(fits, classes, strict=True)):
        token = _REHEARSING.set(True)
        try:
            # numpy's errors ignored and every warning dropped: a warning about 64 synthetic rows (a small-table or
            # noise warning) says nothing of the user's data, and as an error it would refuse a sound candidate; so
            # are the clipping notes a fit holds for its enclosing checks (notes_dropped): a regression's rehearsal,
            # its synthetic labels outside the declared (lo, hi), was shown as "32 of 64 labels lay outside"
            with np.errstate(all="ignore"), warnings.catch_warnings(), notes_dropped():
                warnings.simplefilter("ignore")
                fit(synthetic, _labels(declared, rows), resolve_rng(REHEARSAL_SEED) if seeded else None)
        except Exception as error:  # noqa: BLE001 - public rows: the error and its message are public
            raise InputError(
                f"{procedure}: candidate {index + 1}'s fit fails on {rows} synthetic public rows of the data's width, "
                f"before anything is charged ({type(error).__name__}: {error}). Nothing was charged") from None
        finally:
            _REHEARSING.reset(token)


def least_rows(fits: Sequence[Callable[[Any, np.ndarray, np.random.Generator | None], Any]],
               classes: Sequence[Sequence[Any] | None], X: Any, procedure: str, seeded: bool,
               likely: Callable[[int], bool]) -> int:
    """A number of rows every candidate fits on, for a procedure whose fits see a part of random size (full-data
    selection's coin-chosen training rows), which draws parts of at least that many rows: a learner can refuse a
    part too small for it (a private class count needs two rows), and after the charge that refusal would be a
    failure. The ``REHEARSAL_ROWS`` rows :func:`rehearse` fitted them on when parts that large are ``likely`` (no
    rehearsal more); else (and for n below them: parts of all n rows would leave none to score on) the fewest of 1,
    2, 4, ... below min(n, ``REHEARSAL_ROWS``) on which every candidate's rehearsal fits, or that when none does.
    Public: the rows are synthetic, their number public."""
    full = min(X.shape[0], REHEARSAL_ROWS)
    if full == REHEARSAL_ROWS and likely(full):
        return full
    size = 1
    while size < full:
        try:
            rehearse(fits, classes, X, procedure, seeded, rows=size)
            return size
        except InputError:
            size *= 2
    return full


@contextmanager
def fixed_numerics() -> Iterator[None]:
    """numpy's floating-point errors ignored and warnings recorded for the block; dpcvx's own warnings
    (public statements) are issued again, once each, when it ends, at the user's line
    (:func:`~dpcvx.exceptions.user_stacklevel` passes contextlib's frame). Its fits run after the charge, so a
    warning of their public declarations alone, which the procedure's checks gave before the charge, is not given
    again (:func:`declarations_told`: tune showed ClassOrderWarning twice, once from contextlib.py)."""
    token = _TOLD.set(True)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
    finally:
        _TOLD.reset(token)
    seen: set[tuple[type, str]] = set()
    for message in caught:
        key = (message.category, str(message.message))
        if issubclass(message.category, DPCVXWarning) and key not in seen:
            seen.add(key)
            warn_shown(str(message.message), message.category)


@contextmanager
def charged(procedure: str) -> Iterator[None]:
    """A fit of ``procedure`` after its one charge (rule 4): an exception it raises is a bug under the rule (the
    budget is spent, the event is not covered by the proof) and leaves the block as a
    :class:`~dpcvx.exceptions.SolverError` that names the rule and withholds the private error's text."""
    try:
        yield
    except SourceChangedError:  # not a bug of the rule but a Dask X whose values changed under the fit: its own words
        raise  # (public: the chunk's bounds), which say that the budget is spent and nothing may be published
    except Exception as error:
        raise SolverError(
            f"{procedure}: a fit raised {type(error).__name__} after the charge. Under dpcvx's failure rule this "
            "cannot happen (docs/theory.md, section 7.1), so it is a bug: please report it. The budget is spent, and "
            "the event itself is not covered by the privacy proof: do not publish it") from None


@contextmanager
def after_charge(procedure: str) -> Iterator[None]:
    """The fits a composite procedure runs after its one charge: inside :func:`composite`, with
    :func:`fixed_numerics`, an exception re-raised by :func:`charged`."""
    with composite(procedure), fixed_numerics(), charged(procedure):
        yield
