"""Typed errors and warnings of dpcvx.

Every error dpcvx raises derives from :class:`DPCVXError`, so callers can catch
the whole family at once. Each message names the problem and a fix.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, ClassVar, ParamSpec, Protocol, TypeVar

__all__ = [
    "DPCVXError",
    "InputError",
    "UsageError",
    "LossDeclarationError",
    "FileError",
    "OverwriteError",
    "NumericRangeError",
    "BudgetLimitError",
    "NonPublicSchemaError",
    "AssumptionError",
    "FailedCondition",
    "SolverError",
    "SourceChangedError",
    "BudgetExceededError",
    "DPCVXWarning",
    "ClippingWarning",
    "RangeClipWarning",
    "CostWarning",
    "ExponentialCostWarning",
    "PaperModeWarning",
    "ConstantPredictionWarning",
    "TrainingRowsWarning",
    "SmallTableWarning",
    "ClassFloorWarning",
    "UndeclaredCategoryWarning",
    "OutOfBoundsWarning",
    "LevelErasedWarning",
    "UnresolvedColumnWarning",
    "SlowDescentWarning",
    "KernelScaleWarning",
    "PublicSampleWarning",
    "UnprotectedFileWarning",
    "ClassOrderWarning",
    "NoiseDominatesWarning",
    "UnsupportedWeightsError",
    "InputTypeError",
    "NotFittedError",
    "a_value_of",
    "user_stacklevel",
    "warn_shown",
    "errors_shown",
    "float_errors_ignored",
    "withheld",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


class DPCVXError(Exception):
    """Base class of every error raised by dpcvx."""


class InputError(DPCVXError, ValueError):
    """The data or a parameter is malformed (shape, NaN, label, range)."""


class UsageError(InputError):
    """A command line is malformed: unknown command or option, a missing or malformed option value."""


class InputTypeError(InputError, TypeError):
    """X holds an entry that is not a number (a dict, a list), or is sparse where dense rows are needed: an InputError
    and, as in scikit-learn (``float()`` refuses it), a TypeError. Every entry refuses a sparse X it cannot take with
    it: the estimators, the kernel learners and their feature map."""


class LossDeclarationError(InputError, TypeError):
    """A loss not given in the form dpcvx reads: neither a catalogue name nor a callable (a CVXPY expression, a number),
    or a callable that builds no scalar CVXPY expression of the one margin z that is a sum over records (a second
    argument as scikit-learn's loss(z, y), a float or numpy value, an error it raises, a non-finite constant). An
    InputError and a TypeError, raised before anything is charged, leading with the cause and its fix;
    :func:`dpcvx.verify` reports the callable's failure as its certificate's failed ``declaration`` row."""


class NotFittedError(InputError, AttributeError):
    """A learner used before its fit: a prediction, a release or ``dpcvx.save`` of a learner not fitted. An InputError
    and, as scikit-learn's ``NotFittedError`` is (a ValueError and an AttributeError), an AttributeError. The
    estimators of :mod:`dpcvx.sklearn` raise a subclass that is scikit-learn's ``NotFittedError`` too
    (:func:`dpcvx.sklearn.inputs.check_fitted`), which scikit-learn's code and conformance checks catch; so do the
    kernel learners and ``dpcvx.save`` when scikit-learn is installed (:func:`not_fitted_error`), and this class
    without it (scikit-learn is no core dependency)."""


@functools.cache
def estimator_not_fitted() -> type[NotFittedError]:
    """The class of a learner used before its fit: with scikit-learn installed, ``EstimatorNotFittedError``, dpcvx's
    :class:`NotFittedError` and scikit-learn's ``NotFittedError`` at once, which scikit-learn's code and conformance
    checks catch (made once, on first use: ``import dpcvx`` imports no scikit-learn; it is
    ``dpcvx.sklearn.inputs.EstimatorNotFittedError``); without it, :class:`NotFittedError`."""
    try:
        from sklearn.exceptions import NotFittedError as ScikitLearnNotFitted
    except ImportError:  # scikit-learn is optional
        return NotFittedError
    return type("EstimatorNotFittedError", (NotFittedError, ScikitLearnNotFitted), {
        "__module__": "dpcvx.sklearn.inputs", "__qualname__": "EstimatorNotFittedError",
        "__doc__": "A learner used before its fit: dpcvx's NotFittedError (an InputError, so a DPCVXError) and "
                   "scikit-learn's NotFittedError, which its code and its conformance checks catch."})


def not_fitted_error(message: str) -> NotFittedError:
    """The one error of a learner used before its fit, saying ``message`` (:func:`estimator_not_fitted`'s class):
    code catching scikit-learn's ``NotFittedError`` catches every dpcvx learner's, the estimators', the kernel
    learners' (which ``clone`` and ``get_params`` take, and which raised dpcvx's class only) and ``dpcvx.save``'s."""
    return estimator_not_fitted()(message)


class FileError(InputError):
    """A file cannot be read or written, or does not hold what it must (encoding, JSON, format)."""


class OverwriteError(FileError, FileExistsError):
    """A writer was given the name of a file that exists, without ``overwrite=True`` (the command line's
    ``--overwrite``): the file is kept, byte for byte. A :class:`FileError` and, as ``open(path, "x")`` raises, a
    FileExistsError. Refused before any work, and before anything is charged."""


class NumericRangeError(InputError):
    """Public parameters so extreme that the calibration overflows or underflows in floating point."""


class BudgetLimitError(InputError):
    """A budget outside the range a mechanism takes (objective perturbation with delta > 0 takes epsilon <= 700).
    Where a composite passed on a part of the user's epsilon (one class's of one-vs-rest, what column statistics or
    a private count leave), the refusal quotes that part as epsilon', with how it stands to the epsilon the user
    set, and the limit on what the user sets (:mod:`dpcvx.privacy.budget_part`): analyst probe P7 (session 68,
    finding 3) read "epsilon=749.99999999925 is above 700 ... choose epsilon <= 700" after passing epsilon=3000
    to a four-class fit, which took epsilon=2800. ``name`` the budget ("epsilon"), ``value`` the part checked and
    ``limit`` its bound; ``stated`` each (value, limit on it) the message was restated on, the user's last;
    ``classes`` the one-vs-rest classes the part is one of (None: no split over classes). Where the loss's own
    conditions refuse the mechanism at every epsilon (objective perturbation with delta > 0 for the piecewise C^2
    Huber losses), the refusal is that verdict's :class:`AssumptionError` instead, since no epsilon it could advise
    is accepted (analyst probe P5, session 68, finding 7)."""

    def __init__(self, message: str, *, name: str = "epsilon", value: float = math.nan, limit: float = math.nan,
                 reason: str = "", alternatives: str = "", stated: tuple[tuple[float, float], ...] = (),
                 classes: int | None = None) -> None:
        super().__init__(message)
        self.name, self.value, self.limit, self.reason, self.alternatives = name, value, limit, reason, alternatives
        self.stated = stated or ((value, limit),)
        self.classes = classes


class NonPublicSchemaError(InputError):
    """A release was to carry a schema whose bounds or categories were read off the data
    (:func:`dpcvx.data.preprocessing.paper_schema`, a loader's ``mode="paper"``): not public inputs."""


class FailedCondition(Protocol):
    """What an :class:`AssumptionError` holds of each failing condition
    (:class:`dpcvx.verification.condition.Condition` is one; this module imports nothing of dpcvx)."""

    @property
    def name(self) -> str: ...

    @property
    def passed(self) -> bool | None: ...

    @property
    def detail(self) -> str: ...

    @property
    def fix(self) -> str: ...


class AssumptionError(DPCVXError):
    """A condition of the privacy theorem does not hold (or was not established).

    Raised at fit time when the certificate does not allow the requested
    mechanism. ``failures`` lists the failing conditions of the certificate.
    """

    def __init__(self, message: str, failures: Iterable[FailedCondition] = ()) -> None:
        super().__init__(message)
        self.failures = tuple(failures)


class SolverError(DPCVXError):
    """The perturbed problem was not solved to the required accuracy.

    Nothing is released: the privacy proofs assume the exact minimiser.
    """


class SourceChangedError(InputError):
    """A Dask X computed other values on a later pass than in the validation pass that checked it.

    A Dask graph is computed again on every pass over its chunks, and every privacy proof is about one data set:
    a release fitted on values that no check saw, or on different values in different passes, is covered by none.
    So the validation pass keeps a fingerprint of each chunk (:func:`dpcvx.data.blocks.chunk_fingerprint`, exact
    integer arithmetic on the values' bits: the same values give the same fingerprint on every pass, whatever the
    scheduler or the chunk's memory) and every later read compares it before the chunk is used. A change can only
    be seen on a later read, which for the solvers of PrivateERM and its estimators comes after the charge (their
    passes need the noise): the budget stays charged (conservatively) and nothing is released. Fix: make the graph
    compute the same values every time (``X = X.persist()``, or seed its randomness). Raised with the chunk's
    rows named (:func:`dpcvx.data.blocks.source_changed`)."""


class UnsupportedWeightsError(InputError, TypeError):
    """``sample_weight`` or ``class_weight`` was given where record weights cannot be taken.

    A weighted loss (1/n) sum_i s_i l(...) with a PUBLIC bound s_i <= w_max has
    Lipschitz constant w_max L and curvature bound w_max c (docs/theory.md, section 21):
    the binary linear learners calibrate for it, on X in memory or a numpy memmap, and so
    does :class:`~dpcvx.PrivateMulticlassERM` for every class's problem when its binary
    learner takes weights. It is refused, before anything is charged, without
    ``sample_weight_bound``, with ``float_safe=True``, by the estimators with more than two
    classes (whose ``class_weight`` names the k classes, not the two sides of a one-vs-rest
    problem), by the learners not calibrated for weights, and for a Dask X. A TypeError
    too, as scikit-learn raises for a fit keyword an estimator does not take.
    """


class BudgetExceededError(DPCVXError):
    """A privacy accountant refused a computation that would exceed its budget."""


class DPCVXWarning(UserWarning):
    """Base class of dpcvx warnings. ``reads_private_data``: the warning's text is a statistic of the private rows (a
    NOT PRIVATE warning, for the data owner only), where the others read public inputs and released values alone;
    :func:`dpcvx.as_opendp_measurement` shows only the others to whoever calls the measurement."""

    reads_private_data: ClassVar[bool] = False


class ClippingWarning(DPCVXWarning):
    """Rows with norm above the public bound were clipped (shown only to the curator)."""

    reads_private_data = True


class RangeClipWarning(ClippingWarning):
    """Public: at prediction, a large share of the caller's new rows lie beyond a column range a regression
    release's private column statistics located on its training rows, and the ranges' map clips them onto it, so the
    predictions cannot extrapolate beyond those ranges (a trend, time-ordered rows, drift:
    :mod:`dpcvx.release.range_clip`). A function of the caller's rows and the release's public map only, never said
    inside a fit (its rows are training rows); a ClippingWarning, so a filter of that class takes it too."""

    reads_private_data = False


class CostWarning(DPCVXWarning):
    """A fit whose time or memory grows fast with a public size (the width, the input dimension), said before
    anything is computed or charged: interrupting then spends nothing."""


class ExponentialCostWarning(CostWarning):
    """TDIL searches a net of the input ball whose size is exponential in the input dimension."""


class PaperModeWarning(DPCVXWarning):
    """A loader's ``mode="paper"`` read column bounds, categories or dropped records off the data."""

    reads_private_data = True


class ConstantPredictionWarning(DPCVXWarning):
    """A released classifier predicts one class on every row of norm at most R: a public check of the release
    (:mod:`dpcvx.release.usefulness`), also stated in its certificate."""


class NoiseDominatesWarning(DPCVXWarning):
    """The release is predicted to be mostly noise, from public quantities only: for a classifier, the noise's share
    of a decision value exceeds ``NOISE_RATIO_LIMIT`` times the share of a model of lam='auto''s comparator norm (the
    release is then predicted to score no better than the majority class); for a regressor, the noise exceeds the
    bound on the weights or the label bound, lam's shrinkage keeps every prediction closer to the labels' centre
    than their spread, or lam='auto''s own guarantee promises little beyond a constant model
    (:func:`dpcvx.sklearn.noise_warning.warn_if_noise_dominates`); for PINP,
    its accuracy guarantee is no better than the answer 0 (:meth:`dpcvx.models.pinp.PINP.fit`)."""


class SmallTableWarning(DPCVXWarning):
    """n epsilon / d is small: by the d / (n epsilon) lower bound of private ERM, no private linear model
    recovers much of the non-private one's accuracy here (public quantities only:
    :func:`dpcvx.sklearn.noise_warning.warn_if_small_table`). Its limit is a line below which little can be expected,
    not one above which a release is useful: a default classifier just above it can score the majority class's
    accuracy with no warning (docs/theory.md section 32), so score a release on held-out rows whatever it says."""


class ClassFloorWarning(DPCVXWarning):
    """A private class count (``class_weight="balanced"`` or ``class_prior="private"``) was released at its public
    floor, ceil(MIN_CLASS_RATE n) or n minus it: the class rates the fit used are the floor's (1 %), not an estimate
    of the data's, whose rarer class may be rarer still, or whose count's noise (scale 1 / eps_c, stated) may have
    carried it onto the floor. A function of the released count, the public n and eps_c only (post-processing:
    :func:`dpcvx.sklearn.noise_warning.warn_if_count_at_floor`)."""


class TrainingRowsWarning(DPCVXWarning):
    """NOT PRIVATE: on its training rows the release predicts one class, or does no better than a constant, or (a
    regression) keeps under 0.6 of what least squares explains on the same rows, or its located column windows clip
    more than a quarter of them onto one edge of a column (:mod:`dpcvx.models.training_rows`).
    Shown to the data owner only; never part of a release.

    ``finding``: the fixed text of the finding said (one of :mod:`dpcvx.models.training_rows`' constants, such as
    ``MAP_LOST``), None where the warning was made without one. Read it to tell which finding a fit said: the
    message also holds the speaker and the advice, and a text match counted a finding wherever one text quoted
    another's."""

    reads_private_data = True
    #: the finding said (the instance's, set by the constructor; None where the warning was made without one)
    finding: str | None = None

    def __init__(self, *args: object, finding: str | None = None) -> None:
        super().__init__(*args)
        self.finding = finding


class UndeclaredCategoryWarning(DPCVXWarning):
    """NOT PRIVATE: most rows of a categorical column hold values outside its declared categories, which a non-strict
    :class:`~dpcvx.data.preprocessing.PublicSchema` encodes as the all-zero block: a model learns nothing from that
    column; or rows hold a value that is a declared category but for how the table was read (whitespace, letter
    case), or a missing value no category takes, encoded as that block too; or (the command line, one versus rest)
    labels that write a --positive value in another spelling (letter case, surrounding spaces or punctuation: UCI
    Adult's test file writes '>50K.'), counted as negative, named with the fix before the fit. Shown to the data owner
    only; never part of a release."""

    reads_private_data = True


class OutOfBoundsWarning(DPCVXWarning):
    """NOT PRIVATE: most rows of a numeric column lie outside its declared public bounds, and a
    :class:`~dpcvx.data.preprocessing.PublicSchema` clips each onto them: the column is then nearly constant and a
    model learns little from it (bounds in other units, for example); or many rows hold one value outside them, read as
    the bound (a code such as 999 for "unknown"). Shown to the data owner only; never part of a release."""

    reads_private_data = True


class LevelErasedWarning(DPCVXWarning):
    """NOT PRIVATE: a :class:`~dpcvx.data.preprocessing.PublicSchema`'s row map x / max(1, ||x|| / R) erases what
    numeric columns carry: many of them lie in one part of their declared public ranges, so that every coded row sits
    near one point and the map erases their common level; or a column varies so little within its range that the
    map's factor, set by the other columns, moves it more than its own values do (:mod:`dpcvx.data.shared_level`).
    Shown to the data owner only; never part of a release."""

    reads_private_data = True


class UnresolvedColumnWarning(DPCVXWarning):
    """NOT PRIVATE: the private column ranges located a column within a few cells of their public grid while its
    training rows vary over a small part of those cells, so the ranges' map scales it by the cells' width, not by its
    own spread, and the fit's noise weighs on it at least four times as much, so a model sees less of it (a column
    that fills a sliver of its declared range, or raw columns in units far smaller than the one public bound R;
    :func:`dpcvx.data.notes.warn_unresolved_columns`). Shown to the data owner only; never part of a release."""

    reads_private_data = True


class SlowDescentWarning(DPCVXWarning):
    """NOT PRIVATE: noisy gradient descent's T steps (mechanism ``gradient-ranged``) could not reach least squares on
    its mapped training rows even without noise: one direction of Z^T Z (a level the columns share, such as 0/1 flags
    that are mostly 0) sets the step size and the others barely move (:mod:`dpcvx.models.descent_reach`). Shown to
    the data owner only; never part of a release."""

    reads_private_data = True


class KernelScaleWarning(DPCVXWarning):
    """NOT PRIVATE: :class:`~dpcvx.RandomFourierFeatures` fitted on rows so far apart at its gamma that the kernel
    between almost every pair of them is below e^-30 (raw columns in their own units, codes such as 99 for missing):
    the random features of such rows are unrelated, and a model of them predicts little better than chance
    (:func:`dpcvx.data.notes.warn_far_apart`). Shown to the data owner only; never part of a release."""

    reads_private_data = True


class PublicSampleWarning(DPCVXWarning):
    """NOT PRIVATE: rows of :class:`~dpcvx.TDDL`'s public sample ``Z`` are also rows of its training data. The release
    holds Z as it is (its predictor's centres), so such a row is published verbatim, which no guarantee covers: Z must
    be public points, never the private records (:func:`dpcvx.data.notes.warn_public_sample`). Shown to the data
    owner only; never part of a release."""

    reads_private_data = True


class ClassOrderWarning(DPCVXWarning):
    """A scikit-learn estimator's declared classes are not in sorted order: ``classes_`` keeps the declared order (the
    later of a pair is the positive class), while scikit-learn's scorers order classes as ``np.unique`` does, so they
    read ``predict_proba``'s columns and ``decision_function``'s sign as another class's. A public declaration, no
    data."""


class UnprotectedFileWarning(DPCVXWarning):
    """A model file of a format version before the digest (format version 10) was loaded: an edit of a field that no
    check compares with another copy cannot be detected in it, and a current file relabelled as that version, its
    digest removed, reads the same (:mod:`dpcvx.release.records.upgrade`)."""


def a_value_of(value: object) -> str:
    """The name of ``value``'s type with its indefinite article, as a message names an entry it does not show: "an
    int", "an Interval", "an OverflowError", "a complex", "a uint8" (an before a, e, i, o; "u" is read as "you" in
    numpy's unsigned types)."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeio' else 'a'} {name}"


def withheld(error: BaseException) -> str:
    """What a dpcvx message may say of a foreign exception raised on the data: its type, never its text.

    The text of an exception raised by numpy, scikit-learn, gzip, pyarrow or a user's
    callable while it reads the data can quote the value it failed on (a cell, a label,
    the first bytes of a file, a checksum of the content). A refusal names counts,
    positions and public facts only (docs/theory.md, section 30), so the
    text is left out, and so is the chained exception (raise ... from None).
    """
    return f"{a_value_of(error)} (its text is not shown: it can quote the data)"


#: Packages whose frames lie between the user's line and dpcvx: scikit-learn's wrappers (Pipeline,
#: ``cross_val_score``, its fit context) and joblib, which runs scikit-learn's parallel fits.
_WRAPPERS = ("sklearn", "joblib")


def _internal_directories() -> tuple[str, ...]:
    """dpcvx's package directory and those of the imported wrappers: frames there are not the user's."""
    directories = [os.path.dirname(os.path.abspath(__file__))]
    for name in _WRAPPERS:
        location = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(location, str):
            directories.append(os.path.dirname(os.path.abspath(location)))
    return tuple(directory + os.sep for directory in directories)


def warn_shown(text: str | Warning, category: type[Warning]) -> None:
    """Warn ``text`` at the user's line under the user's warning filters but one: an ``"error"`` filter shows it (as
    ``"always"``) instead of raising it; ``"ignore"`` and a recording block (``pytest.warns``,
    ``catch_warnings(record=True)``) see it as before. The one way dpcvx warns of

    - a note read off the private rows (a ``category`` whose ``reads_private_data`` is set: clipped rows, columns
      outside their bounds, the training rows' fit), before the charge or after it: raised by a filter before the
      charge, it would refuse the call on one record's value and release on its neighbour's, so that whether a call
      releases would tell the record (docs/theory.md, section 30, "Warnings under a filter");
    - a release the budget has already paid for (its usefulness, a note found after the charge): raised, it would
      lose a release whose epsilon the accountant has spent, where a refused call must spend nothing (section 7.1).

    A warning about public inputs alone before the charge (a paper-mode loader, TDIL's net, a feature name) is
    ``warnings.warn``'s, which a filter may make an error: whether it is raised depends on no record."""
    import warnings

    level = user_stacklevel()
    with errors_shown():
        warnings.warn(text, category, stacklevel=level)


# What one call of a public entry learnt about its inputs, shared by the fits it runs (:func:`call_memo`)
_CALL_MEMO: contextvars.ContextVar[dict[Any, Any] | None] = contextvars.ContextVar("dpcvx_call_memo", default=None)


@contextlib.contextmanager
def _one_call() -> Iterator[None]:
    """The outermost entry's call opens a fresh memo (:func:`call_memo`), closed when it returns or raises; an
    entry called inside it (a multiclass fit's binary fits, a selection's candidates) shares it."""
    if _CALL_MEMO.get() is not None:
        yield
        return
    token = _CALL_MEMO.set({})
    try:
        yield
    finally:
        _CALL_MEMO.reset(token)


def call_memo() -> dict[Any, Any] | None:
    """The memo of the public call running (None outside one): a Dask X's chunk fingerprints, kept by the first
    validation pass so that every fit of the call, and every read, sees the values that pass checked
    (:class:`SourceChangedError`): one release is about one data set, whatever fits a procedure runs."""
    return _CALL_MEMO.get()


def float_errors_ignored(entry: Callable[_P, _R]) -> Callable[_P, _R]:
    """``entry`` (a public method or function that reads the private rows: a fit, a plan, a transform) run with
    numpy's floating-point errors ignored, whatever the user's ``np.seterr``: an underflow, overflow or invalid
    operation on one record (a subnormal entry, a row of 1e200) raised ``FloatingPointError`` under ``all="raise"``,
    or a warning an "error" filter raised, so that a call refused on that record's data set and released on its
    neighbour's, or failed after its charge (docs/theory.md, section 30, "Warnings under a filter"). The arithmetic is
    the same; a result that is not finite is refused or compares nothing by dpcvx's own checks, and an inner
    ``np.errstate`` of dpcvx's (a calibration's overflow check) still applies within. The outermost entry's call also
    opens the memo its fits share (:func:`call_memo`)."""

    @functools.wraps(entry)
    def fixed(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        import numpy as np

        with np.errstate(all="ignore"), _one_call():
            return entry(*args, **kwargs)

    setattr(fixed, FLOAT_ERRORS_IGNORED, True)  # what tests/privacy/test_notes_never_raised.py reads of every entry
    return fixed


#: the attribute :func:`float_errors_ignored` sets on the entry it wraps
FLOAT_ERRORS_IGNORED = "_dpcvx_float_errors_ignored"


@contextlib.contextmanager
def errors_shown() -> Iterator[None]:
    """A block whose warnings an ``"error"`` filter shows (as ``"always"``) instead of raising: the user's filters,
    copied and restored on exit, with each "error" action rewritten (:func:`warn_shown`; the OpenDP bridge's replay
    of a measurement's public warnings, after its release)."""
    import warnings

    with warnings.catch_warnings():  # its own copy of the filters, restored on exit
        # rewritten in place: a filter's category may be a tuple (simplefilter takes one), which filterwarnings refuses
        warnings.filters[:] = [("always" if entry[0] == "error" else entry[0], *entry[1:])  # type: ignore[index]
                               for entry in warnings.filters]
        yield


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that names the first frame outside dpcvx and its wrappers.

    Call it in the function that calls ``warnings.warn``. It walks up from that
    function past every frame whose file lies in dpcvx's, scikit-learn's or joblib's
    package (a Pipeline, ``cross_val_score``, scikit-learn's fit wrapper), so the
    warning points at the user's line however deep the call.
    """
    internal = _internal_directories()
    frame = sys._getframe(1)  # the caller of warnings.warn: stacklevel 1
    level = 1
    while frame.f_back is not None and _internal_frame(os.path.abspath(frame.f_code.co_filename), internal):
        frame = frame.f_back
        level += 1
    return level


def _internal_frame(path: str, internal: tuple[str, ...]) -> bool:
    """Whether a frame of the file ``path`` is dpcvx's or a wrapper's (``internal``: their directories), or
    contextlib's: the frame of a generator context manager's ``__exit__`` (``@contextmanager``) stands between the
    frame that warns after its ``yield`` and the ``with`` that left it, so that a warning issued there (tune's
    charged block, :func:`dpcvx.models.failure.fixed_numerics`) pointed at contextlib.py, not at the user's line."""
    return path.startswith(internal) or path == _CONTEXTLIB


_CONTEXTLIB = os.path.abspath(contextlib.__file__)
