"""The ``dpcvx`` command line: ``demo``, ``verify``, ``fit``, ``predict`` and ``report``, a thin face of the
Python API: ``fit`` fits the estimator a Python user would (its defaults, checks and warnings).

Exit status: one code per kind of error, from the table :data:`EXIT_CODES`
(``docs/robustness.md`` is generated from it): 0 success, 2 usage error (options wrong
whatever the data, a bad value among them, refused before any file is read), 3 input error (a file, or a value
wrong for the data or the model read), 4 the certificate does not allow
the requested mechanism, 5 solver failure, 6 privacy budget exceeded. Every
error is ONE ``dpcvx: ...`` line on stderr naming the problem and the fix;
a traceback (exit 1) can only come from a bug in dpcvx itself.

Tables are CSV files read with the standard ``csv`` module: UTF-8, plain or
gzip-compressed (decompressed as a stream), surrounding whitespace of each
cell ignored, with a header row or ``--no-header`` and the column names
given with ``--names``/``--names-file`` (UCI's files), or Parquet files (by the
suffix .parquet or .pq; pyarrow, from the dask extra). Features are
encoded by a :class:`~dpcvx.data.preprocessing.PublicSchema` given on the command
line or in a schema file; nothing about the encoding is read off the data.
Every file the command line writes (model, predictions, plot) is written
atomically (:func:`dpcvx.data.files.atomic_write`): all of it, or nothing and the
previous file unchanged.

``dpcvx --help`` and ``dpcvx --version`` import no numpy and no CVXPY: the parser is built from
light modules, and a command's module is imported when it runs.

This package parses and dispatches: :mod:`.parser` (the commands and their options),
:mod:`.commands` (what each command does), :mod:`.exit_codes` (the table of exit statuses);
the CSV reader is :mod:`dpcvx.data.csv_table`.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import sys
import warnings
from collections.abc import Callable

from ..advice import on_command_line
from ..exceptions import DPCVXError, DPCVXWarning, FileError, float_errors_ignored
from .exit_codes import (
    EXIT_BROKEN_PIPE,
    EXIT_BUDGET,
    EXIT_BUG,
    EXIT_CODES,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_SOLVER,
    EXIT_USAGE,
    error_line,
    error_table,
    exit_code,
)
from .parser import build_parser

__all__ = ["main", "build_parser", "EXIT_CODES", "EXIT_OK", "EXIT_USAGE", "EXIT_INPUT", "EXIT_REFUSED",
           "EXIT_SOLVER", "EXIT_BUDGET", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE", "EXIT_BUG", "exit_code", "error_line",
           "error_table"]


def _format_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    line: str | None = None) -> str:
    """A warning raised while a command runs, as the command line shows it: ``dpcvx: warning: CATEGORY: message``,
    in place of Python's ``FILE:LINE: CATEGORY: message`` and the source line that raised it (a line of dpcvx's
    code, or the ``dpcvx`` script's ``sys.exit(main())``, which tell a user of the command nothing). Only the text
    changes: Python's filters (``-W``, ``PYTHONWARNINGS``) still decide which warnings show, and where (stderr), and
    a caller that records warnings (``warnings.catch_warnings(record=True)``) still gets them."""
    return f"dpcvx: warning: {category.__name__}: {message}\n"


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); return the exit status.

    Every :class:`~dpcvx.exceptions.DPCVXError` becomes one line on stderr and
    the exit status of its class in :data:`EXIT_CODES`; anything else is a bug. A warning shows as
    ``dpcvx: warning: ...`` on stderr (:func:`_format_warning`). A warning or error that advises a setting names the
    command line's flag for it, not the Python parameter (:mod:`dpcvx.advice`).
    """
    args: argparse.Namespace | None = None
    try:
        try:
            with on_command_line():  # an option's refusal names the flags too, as the command's do
                args = build_parser().parse_args(argv)
        except SystemExit as exit_:  # --help and --version print and exit 0
            return exit_.code if isinstance(exit_.code, int) else EXIT_OK
        from . import commands  # the command's heavy imports (numpy, CVXPY), only when one runs

        handler: Callable[[argparse.Namespace], int] = getattr(commands, f"{args.command}_command")
        shown, warnings.formatwarning = warnings.formatwarning, _format_warning
        try:
            with on_command_line():  # messages name the flags of the command line (dpcvx.advice)
                status = float_errors_ignored(handler)(args)  # numpy's errors ignored: a command reads the rows
            sys.stdout.flush()  # a full device fails here, not in the interpreter's exit
            return status
        finally:  # the caller's format again (a test, a program that runs main)
            warnings.formatwarning = shown
    except DPCVXError as error:
        print(error_line(error), file=sys.stderr)
        return exit_code(error)
    except DPCVXWarning as warning:  # made an error by the caller's filter (python -W error), before any charge
        print(error_line(warning), file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        # after fit wrote its model (printing the certificate, say): the release is whole and its budget spent, and
        # a user told only "interrupted" could fit again and spend it twice (attacker probe P5 F7, session 70)
        released = getattr(args, "released", None)
        print("dpcvx: interrupted" + ("" if released is None else (
            f" after the model was written whole to {released}: that release is complete and its "
            "budget spent (fitting again would spend it again)")), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of standard output went away (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as error:
        if error.errno not in _OUTPUT_ERRORS:
            raise
        # standard output (a full device, a closed descriptor): every file the command reads or writes is a FileError
        with contextlib.suppress(OSError, ValueError, AttributeError):  # nothing more is written to it at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        failed = FileError(f"standard output could not be written ({type(error).__name__}: {error}); what the "
                           "command printed is incomplete (a file it wrote before, such as --out, is whole)")
        print(error_line(failed), file=sys.stderr)
        return exit_code(failed)


#: the errors of a device that cannot take what is written to it: a full disk or quota, an I/O error, a closed
#: descriptor (standard output, which is no file the command opened: those are FileErrors)
_OUTPUT_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EBADF, errno.EFBIG})
