"""The command line's exit statuses: one per kind of error, and the one line stderr shows for it.

:data:`EXIT_CODES` is THE table: ``main()`` maps an error to the row of its most specific class,
and ``docs/robustness.md`` is generated from it (``docs/make_robustness.py``).
"""

from __future__ import annotations

import dataclasses

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
    """One row of the exit-code table: the error class, its exit status, the word stderr uses for it,
    its meaning and an example message."""

    error: type
    code: int
    kind: str
    meaning: str
    example: str
    #: the words after the status in ``dpcvx --help`` (:func:`status_summary`), when its ``kind`` alone says too little
    brief: str = ""


# THE table of exit codes: main() maps an error to the row of its most specific class listed here,
# and docs/robustness.md is generated from it (docs/make_robustness.py). Keep it in sync by editing
# it here only.
EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(UsageError, EXIT_USAGE, "usage error",
             "the command line is malformed: unknown command or option, missing or malformed option value, or "
             "options wrong together whatever the data (refused before any input file is read)",
             "dpcvx: usage error: argument --epsilon: --epsilon must be finite and positive, got 0.0 (see: dpcvx fit "
             "--help)",
             brief="usage error: options wrong whatever the data, a bad value among them, refused before any file is "
                   "read"),
    ExitCode(InputError, EXIT_INPUT, "input error",
             "a value, column, label or parameter is invalid: a file, or a value wrong for the data or the model read "
             "(a --delta of 1/n or more, --threshold for a regression model)",
             "dpcvx: input error: train.csv has no column(s) ['salary'] among its 4 columns. Check the "
             "spelling (names are case-sensitive); the header's cells are not shown (if the file has no "
             "header row, its first record was read as one: pass --no-header with --names)",
             brief="input error: a file, or a value wrong for the data or the model read (a --delta of 1/n or more)"),
    ExitCode(FileError, EXIT_INPUT, "input error",
             "a file cannot be read or written, or is not what it must be (encoding, JSON, format, "
             "a model file that fails validation)",
             "dpcvx: input error: model file missing.json does not exist; check the path"),
    ExitCode(OverwriteError, EXIT_INPUT, "input error",
             "an output (--out, --plot) names an existing file and --overwrite was not given: the file is kept, "
             "refused before any work (a fit is not charged)",
             "dpcvx: input error: cannot write the model to /home/me/keep.csv: the file exists, and it is kept; "
             "choose another path, or pass --overwrite to replace it"),
    ExitCode(NumericRangeError, EXIT_INPUT, "input error",
             "public parameters too extreme to compute the constants or the calibration in floating point",
             "dpcvx: input error: the public parameters (epsilon = 1, delta = 0, lam = 0.001, R = 1) are too "
             "extreme to compute the constants and the noise in floating point (OverflowError: math range error); "
             "use moderate values (a loss divided by a public constant k, with lam divided by k, has the same "
             "minimiser); nothing was charged"),
    ExitCode(AssumptionError, EXIT_REFUSED, "refused",
             "the certificate does not allow the requested mechanism: a condition of the privacy "
             "theorem fails or was not established",
             "dpcvx: refused: output perturbation is not allowed: Theorem 1 (output perturbation), "
             "Chaudhuri, Monteleoni, Sarwate, JMLR 12 (2011) needs - differentiability (l is continuously "
             "differentiable (C^1)): l' jumps at z = 1 fix: smooth the kink: --loss huber_hinge:h=0.5 "
             "replaces the hinge max(0, 1 - z) of a classifier, --loss huber_regression (cp.huber(p - y, m), m "
             "in the label's unit, B its bound) the absolute error |p - y| of a regression; in general use a "
             "differentiable loss",
             brief="refused: the certificate does not allow the mechanism"),
    ExitCode(SolverError, EXIT_SOLVER, "solver error",
             "the perturbed problem was not solved to the required accuracy; nothing is released",
             "dpcvx: solver error: CVXPY solver CLARABEL returned status 'infeasible'; nothing is released. "
             "Try another cvxpy_solver or solver='fast'",
             brief="solver error: nothing is released"),
    ExitCode(BudgetExceededError, EXIT_BUDGET, "budget exceeded",
             "reserved: a privacy accountant refused a computation that would exceed its budget. No command charges "
             "an accountant (each fit spends its own --epsilon), so none returns it; the Python API raises the error",
             "dpcvx: budget exceeded: PrivateERM.fit (loss logistic, objective perturbation, n=50) needs (epsilon=2, "
             "delta=0) but only (epsilon=1, delta=0) of the budget (epsilon=1, delta=0) remains (spent: "
             "epsilon=0, delta=0); nothing was computed. Use a smaller epsilon or a new dataset.",
             brief="reserved for a privacy budget exceeded (no command charges an accountant: none returns it)"),
    ExitCode(DPCVXError, EXIT_INPUT, "error", "any other dpcvx error", "dpcvx: error: (its message)"),
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


def _row(error: BaseException) -> ExitCode:
    """The EXIT_CODES row of the most specific class of ``error`` listed there."""
    for cls in type(error).__mro__:
        for row in EXIT_CODES:
            if row.error is cls:
                return row
    raise TypeError(f"{type(error).__name__} is not a dpcvx error")


def exit_code(error: DPCVXError) -> int:
    """The command line's exit status for ``error`` (from :data:`EXIT_CODES`)."""
    return _row(error).code


def error_line(error: DPCVXError | DPCVXWarning) -> str:
    """The one line main() prints for ``error``: ``dpcvx: <kind>: <message>`` with line breaks removed; a dpcvx
    warning that a warning filter made an error (``python -W error``) as ``dpcvx: warning made an error: ...``."""
    prefix = WARNING_AS_ERROR if isinstance(error, DPCVXWarning) else _row(error).kind
    text = " ".join(part.strip() for part in str(error).splitlines() if part.strip())
    return f"dpcvx: {prefix}: {text or type(error).__name__}"


def _article(word: str) -> str:
    """"an" before a vowel, else "a" (an InputError, a FileError)."""
    return "an" if word[:1].upper() in "AEIOU" else "a"


def error_table() -> str:
    """The exit-code table as Markdown (docs/robustness.md embeds it)."""
    lines = ["| error class | exit status | meaning | example message |", "|---|---|---|---|"]
    rows: tuple[ExitCode | ProcessStatus, ...] = (PROCESS_STATUSES[0], *EXIT_CODES, *PROCESS_STATUSES[1:])
    for row in rows:  # success first, the dpcvx errors, then the other causes
        if isinstance(row, ProcessStatus):
            cause = row.cause.replace("|", "\\|")
        else:
            name = f"dpcvx.exceptions.{row.error.__name__}"
            parents = [base.__name__ for base in row.error.__bases__ if issubclass(base, DPCVXError)]
            cause = f"`{name}`" + (f" ({_article(parents[0])} {', '.join(parents)})" if parents
                                   and parents != ["DPCVXError"] else "")
        example = " `` " + row.example.replace("|", "\\|") + " `` " if row.example else " "
        lines.append(f"| {cause} | {row.code} | {row.meaning} |{example}|")
    return "\n".join(lines) + "\n"
