"""The command line's exit statuses: one per kind of error, and the one line stderr shows for it.

:data:`EXIT_CODES` is THE table: ``main()`` maps an error to the row of its most specific class,
and ``docs/robustness.md`` is generated from it (``docs/make_robustness.py``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

from ..exceptions import (
    AssumptionError,
    BudgetExceededError,
    DPCVXError,
    DPCVXWarning,
    FileError,
    InputError,
    NumericRangeError,
    OverwriteError,
    SolverError,
    UsageError,
)

__all__ = ["EXIT_CODES", "EXIT_OK", "EXIT_USAGE", "EXIT_INPUT", "EXIT_REFUSED", "EXIT_SOLVER", "EXIT_BUDGET",
           "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE", "EXIT_BUG", "ExitCode", "PROCESS_STATUSES", "ProcessStatus",
           "exit_code", "error_line", "error_table", "status_summary", "WARNING_AS_ERROR"]

EXIT_OK, EXIT_BUG, EXIT_USAGE, EXIT_INPUT, EXIT_REFUSED, EXIT_SOLVER, EXIT_BUDGET = 0, 1, 2, 3, 4, 5, 6
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141

#: what main() prints before a dpcvx warning a warning filter made an error (exit :data:`EXIT_INPUT`): a warning on
#: public inputs alone, before the charge; one that read the rows, or about a release already paid for, is shown,
#: never raised (:func:`dpcvx.exceptions.warn_shown`)
WARNING_AS_ERROR = "warning made an error"


@dataclasses.dataclass(frozen=True)
class ExitCode:
    """One row of the exit-code table: the error class, its exit status, the word stderr uses for it and its
    meaning. A subclass of ``error`` not listed has the row of its nearest listed ancestor. No example message is
    written here: docs/make_robustness.py makes each by raising the error for real (:func:`error_table`)."""

    error: type
    code: int
    kind: str
    meaning: str
    #: the words after the status in ``dpcvx --help`` (:func:`status_summary`), when its ``kind`` alone says too little
    brief: str = ""


# THE table of exit codes: main() maps an error to the row of its most specific class listed here,
# and docs/robustness.md is generated from it (docs/make_robustness.py). Keep it in sync by editing
# it here only.
EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(UsageError, EXIT_USAGE, "usage error",
             "the command line is malformed: unknown command or option, missing or malformed option value, or "
             "options wrong together whatever the data (refused before any input file is read)",
             brief="usage error: options wrong whatever the data, a bad value among them, refused before any file is "
                   "read"),
    ExitCode(InputError, EXIT_INPUT, "input error",
             "a value, column, label or parameter is invalid: a file, or a value wrong for the data or the model read "
             "(a --delta of 1/n or more, --threshold for a regression model)",
             brief="input error: a file, or a value wrong for the data or the model read (a --delta of 1/n or more)"),
    ExitCode(FileError, EXIT_INPUT, "input error",
             "a file cannot be read or written, or is not what it must be (encoding, JSON, format, "
             "a model file that fails validation)"),
    ExitCode(OverwriteError, EXIT_INPUT, "input error",
             "an output (--out, --plot) names an existing file and --overwrite was not given: the file is kept, "
             "refused before any work (a fit is not charged)"),
    ExitCode(NumericRangeError, EXIT_INPUT, "input error",
             "public parameters too extreme to compute the constants or the calibration in floating point"),
    ExitCode(AssumptionError, EXIT_REFUSED, "refused",
             "the certificate does not allow the requested mechanism: a condition of the privacy "
             "theorem fails or was not established",
             brief="refused: the certificate does not allow the mechanism"),
    ExitCode(SolverError, EXIT_SOLVER, "solver error",
             "the perturbed problem was not solved to the required accuracy; nothing is released",
             brief="solver error: nothing is released"),
    ExitCode(BudgetExceededError, EXIT_BUDGET, "budget exceeded",
             "reserved: a privacy accountant refused a computation that would exceed its budget. No command charges "
             "an accountant (each fit spends its own --epsilon), so none returns it; the Python API raises the error",
             brief="reserved for a privacy budget exceeded (no command charges an accountant: none returns it)"),
    ExitCode(DPCVXError, EXIT_INPUT, "error", "any other dpcvx error"),
)


@dataclasses.dataclass(frozen=True)
class ProcessStatus:
    """A row of the exit-status table that no dpcvx error has: success, a warning made an error, a signal, a bug.
    ``cause`` is the table's first cell (Markdown), ``brief`` the words after the status in ``dpcvx --help``."""

    cause: str
    code: int
    meaning: str
    example: str
    brief: str


#: The rest of THE table (:data:`EXIT_CODES` holds the dpcvx errors' rows): what ``main()`` returns for the causes
#: that are not a dpcvx error. :func:`error_table` (docs/robustness.md) and :func:`status_summary` (``dpcvx --help``)
#: are both written from the two.
PROCESS_STATUSES: tuple[ProcessStatus, ...] = (
    ProcessStatus("(none)", EXIT_OK, "success", "", "success"),
    ProcessStatus("a `dpcvx.exceptions.DPCVXWarning` made an error by a warning filter (`python -W error`)",
                  EXIT_INPUT, "refused before the charge, on public inputs alone (a warning that read the rows, "
                  "or about a release already paid for, is shown, never raised)",
                  f"dpcvx: {WARNING_AS_ERROR}: (its text)", "input error"),
    ProcessStatus("KeyboardInterrupt (Ctrl-C)", EXIT_INTERRUPTED, "interrupted; no file is left half written",
                  "dpcvx: interrupted", "interrupted (Ctrl-C)"),
    ProcessStatus("BrokenPipeError (the reader of standard output went away, as in `dpcvx predict ... | head`)",
                  EXIT_BROKEN_PIPE, "the conventional status of a closed pipe; nothing on stderr", "",
                  "the reader of standard output went away (a closed pipe)"),
    ProcessStatus("any other exception", EXIT_BUG, "a bug in dpcvx: Python prints a traceback; please report it", "",
                  "a bug in dpcvx (a traceback: please report it)"),
)


def status_summary() -> str:
    """Every exit status ``main()`` returns, once, in increasing order, with the words of its first row in the table
    (:data:`EXIT_CODES`, then :data:`PROCESS_STATUSES`): the text of ``dpcvx --help``, as "0 success; 1 ...; ...".
    """
    words: dict[int, str] = {}
    rows: tuple[ExitCode | ProcessStatus, ...] = (*EXIT_CODES, *PROCESS_STATUSES)
    for row in rows:
        words.setdefault(row.code, row.brief or (row.kind if isinstance(row, ExitCode) else ""))
    return "; ".join(f"{code} {words[code]}" for code in sorted(words))


def _row_of(error: type) -> ExitCode:
    """The EXIT_CODES row of the most specific class in ``error``'s MRO listed there."""
    for cls in error.__mro__:
        for row in EXIT_CODES:
            if row.error is cls:
                return row
    raise TypeError(f"{error.__name__} is not a dpcvx error")


def exit_code(error: DPCVXError) -> int:
    """The command line's exit status for ``error`` (from :data:`EXIT_CODES`)."""
    return _row_of(type(error)).code


def error_line(error: DPCVXError | DPCVXWarning) -> str:
    """The one line main() prints for ``error``: ``dpcvx: <kind>: <message>`` with line breaks removed; a dpcvx
    warning that a warning filter made an error (``python -W error``) as ``dpcvx: warning made an error: ...``."""
    prefix = WARNING_AS_ERROR if isinstance(error, DPCVXWarning) else _row_of(type(error)).kind
    text = " ".join(part.strip() for part in str(error).splitlines() if part.strip())
    return f"dpcvx: {prefix}: {text or type(error).__name__}"


def _article(word: str) -> str:
    """"an" before a vowel, else "a" (an InputError, a FileError)."""
    return "an" if word[:1].upper() in "AEIOU" else "a"


def _summary(cls: type) -> str:
    """The first sentence of ``cls``'s docstring, its reST roles and double backquotes written as Markdown code: the
    meaning of an error class in :func:`error_table` when :data:`EXIT_CODES` has no row of its own for it."""
    text = " ".join((cls.__doc__ or "").split())
    end = text.find(". ")
    sentence = text if end < 0 else text[:end + 1]
    sentence = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", sentence).replace("``", "`")
    return sentence.removesuffix(".")


def _cause(error: type) -> str:
    """The first cell of an error class's row: its full name and its nearest dpcvx parent(s)."""
    parents = [base.__name__ for base in error.__bases__ if issubclass(base, DPCVXError)]
    named = f"`{error.__module__}.{error.__qualname__}`"
    return named + (f" ({_article(parents[0])} {', '.join(parents)})" if parents and parents != ["DPCVXError"]
                    else "")


def error_table(examples: Mapping[type, str] | None = None) -> str:
    """The exit-code table as Markdown (docs/robustness.md embeds it): success, then a row for each error class of
    :data:`EXIT_CODES` followed by the classes of ``examples`` whose nearest listed ancestor it is, then the other
    causes of :data:`PROCESS_STATUSES`.

    ``examples`` maps an error class to the line ``main()`` prints for it (:func:`error_line`). docs/make_robustness.py
    gives one for every subclass of :class:`~dpcvx.exceptions.DPCVXError`, each made by running the code that
    raises it, so that no example is a hand-written string that can drift from the code; a class of ``examples``
    without an :data:`EXIT_CODES` row of its own shows its exit status (its ancestor's) and the first sentence of its
    docstring (:func:`_summary`)."""
    examples = dict(examples or {})
    for error in examples:
        if not (isinstance(error, type) and issubclass(error, DPCVXError)):
            raise TypeError(f"examples maps dpcvx error classes to their messages, got {error!r}")
    listed = {row.error for row in EXIT_CODES}
    lines = ["| error class | exit status | meaning | example message |", "|---|---|---|---|"]

    def line(cause: str, code: int, meaning: str, example: str) -> str:
        cell = " `` " + example.replace("|", "\\|") + " `` " if example else " "
        return f"| {cause} | {code} | {meaning} |{cell}|"

    success, *others = PROCESS_STATUSES
    lines.append(line(success.cause, success.code, success.meaning, success.example))
    for row in EXIT_CODES:  # the dpcvx errors, each listed class followed by its unlisted subclasses
        lines.append(line(_cause(row.error), row.code, row.meaning, examples.get(row.error, "")))
        below = [error for error in examples if error not in listed and _row_of(error) is row]
        # a parent before its subclasses (NotFittedError, then EstimatorNotFittedError), else by name
        depth = lambda error: sum(issubclass(cls, DPCVXError) for cls in error.__mro__)  # noqa: E731
        for error in sorted(below, key=lambda error: (depth(error), error.__qualname__)):
            lines.append(line(_cause(error), row.code, _summary(error), examples[error]))
    for status in others:
        lines.append(line(status.cause.replace("|", "\\|"), status.code, status.meaning, status.example))
    return "\n".join(lines) + "\n"
