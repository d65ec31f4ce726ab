"""The ``dpcvx`` command line: ``demo``, ``verify``, ``fit`` and ``predict``.

Exit status: one code per kind of error, from the table :data:`EXIT_CODES`
(``docs/robustness.md`` is generated from it): 0 success, 2 usage error, 3
input error (a file, value or parameter), 4 the certificate does not allow
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
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import gzip
import io
import os
import runpy
import sys
import tempfile
import textwrap
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, TextIO

import numpy as np

from . import losses
from .data.files import atomic_write, check_writable, os_error_message, read_json, read_text
from .data.parquet import is_parquet, parquet_chunks
from .data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema
from .demo import DEMO_MAX_DRAWS, DEMO_MAX_N, DEMO_MAX_SEED, DEMO_MIN_N
from .exceptions import (
    AssumptionError,
    BudgetExceededError,
    DPCVXError,
    FileError,
    InputError,
    NumericRangeError,
    SolverError,
    UsageError,
)
from .models.erm import PrivateERM
from .models.linear_regression import PrivateLinearRegression
from .models.multiclass import PrivateMulticlassERM
from .progress import progress
from .release.serialization import load, save
from .validation import MODERATE_MAX, MODERATE_MIN, check_delta, check_epsilon, parse_integer, positive
from .verification.verifier import PROBE_DIM

__all__ = ["main", "build_parser", "EXIT_CODES", "EXIT_OK", "EXIT_USAGE", "EXIT_INPUT", "EXIT_REFUSED",
           "EXIT_SOLVER", "EXIT_BUDGET", "EXIT_INTERRUPTED", "EXIT_BROKEN_PIPE", "EXIT_BUG", "exit_code", "error_line",
           "error_table"]

EXIT_OK, EXIT_BUG, EXIT_USAGE, EXIT_INPUT, EXIT_REFUSED, EXIT_SOLVER, EXIT_BUDGET = 0, 1, 2, 3, 4, 5, 6
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141


@dataclasses.dataclass(frozen=True)
class ExitCode:
    """One row of the exit-code table: the error class, its exit status, the word stderr uses for it,
    its meaning and an example message."""

    error: type
    code: int
    kind: str
    meaning: str
    example: str


# THE table of exit codes: main() maps an error to the row of its most specific class listed here,
# and docs/robustness.md is generated from it (docs/make_robustness.py). Keep it in sync by editing
# it here only.
EXIT_CODES: tuple[ExitCode, ...] = (
    ExitCode(UsageError, EXIT_USAGE, "usage error",
             "the command line is malformed: unknown command or option, missing or malformed option value",
             "dpcvx: usage error: argument --epsilon: must be a positive number in the range dpcvx computes "
             "with, got '0' (epsilon must be finite and positive, got 0.0) (see: dpcvx fit --help)"),
    ExitCode(InputError, EXIT_INPUT, "input error",
             "a value, column, label or parameter is invalid",
             "dpcvx: input error: train.csv has no column(s) ['salary'] among its 4 columns. Check the "
             "spelling (names are case-sensitive); the header's cells are not shown (if the file has no "
             "header row, its first record was read as one: pass --no-header with --names)"),
    ExitCode(FileError, EXIT_INPUT, "input error",
             "a file cannot be read or written, or is not what it must be (encoding, JSON, format, "
             "a model file that fails validation)",
             "dpcvx: input error: model file missing.json does not exist; check the path"),
    ExitCode(NumericRangeError, EXIT_INPUT, "input error",
             "public parameters too extreme to compute the constants or the calibration in floating point",
             "dpcvx: input error: the public parameters (--data-norm 1, --lam 0.001, --epsilon 1, --loss "
             "logistic) are too extreme to compute the constants and the noise in floating point "
             "(OverflowError: math range error); use moderate values (for example a Huber width h between "
             "1e-8 and 1e8)"),
    ExitCode(AssumptionError, EXIT_REFUSED, "refused",
             "the certificate does not allow the requested mechanism: a condition of the privacy "
             "theorem fails or was not established",
             "dpcvx: refused: output perturbation is not allowed: Theorem 1 (output perturbation), "
             "Chaudhuri, Monteleoni, Sarwate, JMLR 12 (2011) needs - differentiability (l is continuously "
             "differentiable (C^1)): l' jumps at z = 1 fix: smooth the kink: dpcvx.losses.huber_hinge(h=0.5) "
             "replaces the hinge max(0, 1 - z); in general use a differentiable loss"),
    ExitCode(SolverError, EXIT_SOLVER, "solver error",
             "the perturbed problem was not solved to the required accuracy; nothing is released",
             "dpcvx: solver error: CVXPY solver CLARABEL returned status 'infeasible'; nothing is released. "
             "Try another cvxpy_solver or solver='fast'"),
    ExitCode(BudgetExceededError, EXIT_BUDGET, "budget exceeded",
             "a privacy accountant refused a computation that would exceed its budget",
             "dpcvx: budget exceeded: PrivateERM.fit (objective perturbation, n=50) needs (epsilon=2, "
             "delta=0) but only (epsilon=1, delta=0) of the budget (epsilon=1, delta=0) remains (spent: "
             "epsilon=0, delta=0); nothing was computed. Use a smaller epsilon or a new dataset."),
    ExitCode(DPCVXError, EXIT_INPUT, "error", "any other dpcvx error", "dpcvx: error: (its message)"),
)


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


def error_line(error: DPCVXError) -> str:
    """The one line main() prints for ``error``: ``dpcvx: <kind>: <message>`` with line breaks removed."""
    prefix = _row(error).kind
    text = " ".join(part.strip() for part in str(error).splitlines() if part.strip())
    return f"dpcvx: {prefix}: {text or type(error).__name__}"


def error_table() -> str:
    """The exit-code table as Markdown (docs/robustness.md embeds it)."""
    lines = ["| error class | exit status | meaning | example message |", "|---|---|---|---|",
             f"| (none) | {EXIT_OK} | success | |"]
    for row in EXIT_CODES:
        name = f"dpcvx.exceptions.{row.error.__name__}"
        parents = [base.__name__ for base in row.error.__bases__ if issubclass(base, DPCVXError)]
        kind = f"`{name}`" + (f" (an {', '.join(parents)})" if parents and parents != ["DPCVXError"] else "")
        example = row.example.replace("|", "\\|")
        lines.append(f"| {kind} | {row.code} | {row.meaning} | `` {example} `` |")
    lines.append(f"| KeyboardInterrupt (Ctrl-C) | {EXIT_INTERRUPTED} | interrupted; no file is left half written "
                 "| `` dpcvx: interrupted `` |")
    lines.append(f"| BrokenPipeError (the reader of standard output went away, as in `dpcvx predict ... \\| head`) "
                 f"| {EXIT_BROKEN_PIPE} | the conventional status of a closed pipe; nothing on stderr | |")
    lines.append(f"| any other exception | {EXIT_BUG} | a bug in dpcvx: Python prints a traceback; please "
                 "report it | |")
    return "\n".join(lines) + "\n"
MAX_DIM = 100_000  # verify --dim: the regularizer is analysed at this many features at most
ROWS_NOTE = "(rows count from 0 at the first line after the header)"
NOT = "not "  # without --negative, the negative class is called "not " + the first --positive value
USER_FILE_WARNING = ("A .py file is run as Python code (like `python FILE`): pass only files "
                     "you wrote or trust.")


# --- argument types (argparse turns ArgumentTypeError into a usage error, exit 2) --------------

# Public real parameters on the command line are checked by the library's own validators
# (dpcvx.validation): epsilon within [EPSILON_MIN, EPSILON_MAX], the other positive numbers and the
# column bounds within [MODERATE_MIN, MODERATE_MAX], where squares, products and reciprocals stay
# finite. The range is stated once, there.
NUMBER_RANGE = (MODERATE_MIN, MODERATE_MAX)


def _number_type(check: Callable[[float], float], kind: str, refused: str) -> Callable[[str], float]:
    """An argparse type: ``float(text)`` checked by a dpcvx.validation function, its InputError a usage error.

    ``kind`` names what a non-number should have been; ``refused`` leads the message of a number the
    check refuses (the check's own message follows in brackets).
    """
    def parse(text: str) -> float:
        try:
            number = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {kind}, got {text[:40]!r}") from None
        try:
            return check(number)
        except InputError as error:
            raise argparse.ArgumentTypeError(f"{refused}, got {text[:40]!r} ({error})") from None
    return parse


def _positive_number(name: str) -> Callable[[str], float]:
    check = check_epsilon if name == "epsilon" else (
        lambda number: positive(name, number, minimum=MODERATE_MIN, maximum=MODERATE_MAX))
    return _number_type(check, "a positive number",
                        "must be a positive number in the range dpcvx computes with")


_delta_value = _number_type(check_delta, "a number in [0, 1)", "must be a number in [0, 1)")


def _integer_from(name: str, minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: dpcvx.validation.parse_integer, its InputError turned into a usage error."""
    def parse(text: str) -> int:
        try:
            return parse_integer(name, text, minimum=minimum, maximum=maximum)
        except InputError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def _numeric_column(text: str) -> NumericColumn:
    parts = text.rsplit(":", 2)
    try:
        if len(parts) != 3:
            raise ValueError
        name, lo, hi = parts[0], float(parts[1]), float(parts[2])
        if not all(abs(bound) <= NUMBER_RANGE[1] for bound in (lo, hi)):
            raise ValueError(f"bounds must lie within +-{MODERATE_MAX:g}")
        return NumericColumn(name, lo, hi, source="dpcvx fit --numeric")
    except ValueError as error:  # float() or InputError (empty name, lo >= hi, non-finite)
        detail = f": {error}" if str(error) else ""
        raise argparse.ArgumentTypeError(
            f"expected NAME:LO:HI with public bounds LO < HI, for example age:17:90; got {text!r}{detail}"
        ) from error


def _categorical_column(text: str) -> CategoricalColumn:
    name, sep, categories = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return CategoricalColumn(name, tuple(c.strip() for c in categories.split(",")),
                                 source="dpcvx fit --categorical")
    except ValueError as error:
        detail = f": {error}" if str(error) else ""
        raise argparse.ArgumentTypeError(
            f"expected NAME:CAT1,CAT2,... with the public categories, for example "
            f"sex:Female,Male; got {text!r}{detail}"
        ) from error


# --- inputs ----------------------------------------------------------------------------------


def _run_user_file(path: str) -> dict[str, Any]:
    """The global names a user's Python file defines (the file is executed)."""
    if not Path(path).is_file():
        raise InputError(f"Python file {path} does not exist")
    try:
        return runpy.run_path(path, run_name="dpcvx_user_file")
    except (Exception, SystemExit) as error:  # the user's code: report whatever it raised, exit() included
        raise InputError(f"running {path} failed: {type(error).__name__}: {error}") from None


def _defined(namespace: dict[str, Any], name: str, path: str, example: str) -> Callable:
    value = namespace.get(name)
    if not callable(value):
        found = "is not callable" if name in namespace else "is not defined"
        raise InputError(f"{path}: `{name}` {found}; define it, for example {example}")
    return value


def _problem(args: argparse.Namespace) -> tuple[Any, Any]:
    """(loss, regularizer) from --loss (catalogue spec or .py file) and --regularizer."""
    regularizer = None
    if args.loss.endswith(".py"):
        namespace = _run_user_file(args.loss)
        loss = _defined(namespace, "loss", args.loss, "loss = lambda z: cp.logistic(-z)")
        if "regularizer" in namespace:
            regularizer = _defined(namespace, "regularizer", args.loss,
                                   "regularizer = lambda w: 0.5 * cp.sum_squares(w)")
    else:
        loss = losses.from_spec(args.loss)
    if args.regularizer is not None:
        if not args.regularizer.endswith(".py"):
            raise InputError(f"--regularizer takes a Python file defining regularizer(w), got "
                             f"{args.regularizer!r}")
        regularizer = _defined(_run_user_file(args.regularizer), "regularizer", args.regularizer,
                               "regularizer = lambda w: 0.5 * cp.sum_squares(w)")
    return loss, regularizer


def _names(names: Sequence[str], limit: int = 20) -> str:
    """A list of column names for a message: the first ``limit`` of them, and how many more."""
    shown = list(names[:limit])
    return f"{shown}" if len(names) <= limit else f"{shown[:-1] + ['...']} ({len(names)} columns)"


GZIP_MAGIC = b"\x1f\x8b"  # the first two bytes of every gzip file


@dataclasses.dataclass(frozen=True)
class Layout:
    """How a data file is laid out: its column names (None: the first line is a header row naming
    them) and how many lines to skip before the header or the first record."""

    names: tuple[str, ...] | None = None
    skip_lines: int = 0

    def rows_note(self) -> str:
        """How the row numbers of error messages count."""
        if self.names is None and not self.skip_lines:
            return ROWS_NOTE
        first = "the first line after the header" if self.names is None else "the first record"
        skipped = f", the first {self.skip_lines} line(s) of the file skipped" if self.skip_lines else ""
        return f"(rows count from 0 at {first}{skipped}; blank lines are not rows)"


def _is_gzip(path: Path) -> bool:
    """A gzip file: a .gz name, or gzip's magic bytes whatever the name."""
    if path.suffix.lower() == ".gz":
        return True
    with path.open("rb") as handle:
        return handle.read(2) == GZIP_MAGIC


def _open_text(path: Path, compressed: bool) -> TextIO:
    """``path`` as UTF-8 text (a byte-order mark dropped); a gzip file is decompressed as it is read."""
    if compressed:
        return gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    return path.open(newline="", encoding="utf-8-sig")


def _check_gzip(path: Path) -> None:
    """Raise the gzip error of a damaged file, if it is one.

    gzip checks its data only at the end of the stream: before that, damaged data can decode as
    text that looks like a malformed record. A reading error in a gzip file is therefore checked
    against the whole stream, so that damage is reported as damage.
    """
    try:
        with gzip.open(path, "rb") as stream:
            while stream.read(1 << 20):
                pass
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise _gzip_error(path, error) from None
    except OSError:
        pass  # the reading error stands


def _gzip_error(path: Path, error: Exception) -> FileError:
    if isinstance(error, EOFError):
        reason = ("the compressed data end early (a truncated file or an unfinished download); "
                  "download or compress it again")
    elif str(error).startswith("Not a gzipped file"):
        reason = "it does not start like a gzip file; if it is plain text, rename it without .gz"
    else:
        reason = f"its compressed data are damaged ({error}); download or compress it again"
    return FileError(f"{path} is not a valid gzip file: {reason}")


def _read_table_columns(path: str | Path, columns: Sequence[str], layout: Layout = Layout(),
                      label: str | None = None) -> dict[str, np.ndarray]:
    """The named columns of a CSV (or Parquet: :func:`_table_chunks`) file, as arrays of cells with
    surrounding whitespace stripped.

    The file may be gzip-compressed (read as a stream). Its columns are named by its header row,
    or by ``layout.names`` for a file without one. ``label`` is the target column, named in the
    error when it is the one missing. Linear in the size of the file: the names are indexed once by
    a dict.
    """
    (table,) = _table_chunks(path, columns, layout, label, chunk_rows=None)
    return table


def _table_chunks(path: str | Path, columns: Sequence[str], layout: Layout = Layout(), label: str | None = None,
                  chunk_rows: int | None = None) -> Iterator[dict[str, np.ndarray]]:
    """The named columns of a CSV or (by its suffix) Parquet file, by chunks of ``chunk_rows`` records."""
    if not is_parquet(path):
        return _csv_chunks(path, columns, layout, label, chunk_rows)
    if layout != Layout():
        raise InputError("--no-header, --names and --skip-lines describe CSV files; a Parquet file names its columns")
    return parquet_chunks(path, columns, label, chunk_rows)


def _csv_chunks(path: str | Path, columns: Sequence[str], layout: Layout = Layout(), label: str | None = None,
                chunk_rows: int | None = None) -> Iterator[dict[str, np.ndarray]]:
    """:func:`_read_table_columns` by chunks of ``chunk_rows`` records (None: one chunk), read as a stream."""
    path = Path(path)
    values: dict[str, list[str]] = {name: [] for name in columns}
    seen = 0
    compressed = False
    try:
        compressed = _is_gzip(path)
        with _open_text(path, compressed) as handle:
            for _ in range(layout.skip_lines):
                if not handle.readline():
                    break  # the file has fewer lines
            reader = csv.reader(handle, skipinitialspace=True)
            if layout.names is None:
                header = [cell.strip() for cell in next(reader, [])]
                if not any(header):
                    raise InputError(f"{path} is empty; it needs a header row naming the columns (or "
                                     "give the names with --no-header --names)")
                given = "the header has"
            else:
                header = list(layout.names)
                given = "--names gives"
            position = {name: index for index, name in enumerate(header)}
            # The header's cells are never shown: without --no-header the first row read as a header may be
            # a record (private). Messages name positions, counts and the names the user gave (public).
            if len(position) != len(header):
                first = {name: index for index, name in reversed(list(enumerate(header)))}
                repeats = [index + 1 for index, name in enumerate(header) if first[name] != index]
                raise InputError(f"{path}: the header repeats a column name at field(s) {repeats[:20]}"
                                 f"{_header_hint(layout)}")
            missing = [name for name in columns if name not in position]
            if missing == [label]:
                where = "--names" if layout.names is not None else "its header"
                raise InputError(f"{path} has no label column {label!r} (--target) among the {len(header)} "
                                 f"columns named by {where}. Check the spelling (names are case-sensitive)"
                                 f"{_header_hint(layout)}")
            if missing:
                raise InputError(f"{path} has no column(s) {_names(missing)} among its {len(header)} columns. "
                                 f"Check the spelling (names are case-sensitive){_header_hint(layout)}")
            positions = [position[name] for name in columns]
            for row in reader:
                if not row or (len(row) == 1 and len(header) > 1 and not row[0].strip()):
                    continue  # blank line
                if len(row) != len(header):
                    line = reader.line_num + layout.skip_lines
                    hint = ""
                    if layout.names is not None and seen == 0 and not values[columns[0]]:  # the first record
                        hint = ("; check --names (one name per column, in file order), or skip a title "
                                "line such as adult.test's with --skip-lines")
                    raise InputError(f"{path}, line {line}: {len(row)} fields, but {given} {len(header)}"
                                     + (" names" if layout.names is not None else "") + hint)
                for name, index in zip(columns, positions, strict=True):
                    values[name].append(row[index].strip())
                if chunk_rows is not None and len(values[columns[0]]) == chunk_rows:
                    seen += chunk_rows
                    yield {name: np.array(column, dtype=str) for name, column in values.items()}
                    values = {name: [] for name in columns}
    except UnicodeDecodeError as error:
        if compressed:
            _check_gzip(path)
        raise FileError(f"{path} is not UTF-8 text (byte {error.start} of a line cannot be decoded); "
                        "convert it, or save the sheet as CSV UTF-8") from None
    except csv.Error as error:
        if compressed:
            _check_gzip(path)
        raise FileError(f"{path} is not a well-formed CSV file: {error}") from None
    except InputError:
        if compressed:
            _check_gzip(path)
        raise
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:  # BadGzipFile is an OSError: first
        raise _gzip_error(path, error) from None
    except OSError as error:
        raise FileError(f"data file {os_error_message(path, error)}") from None
    if not values[columns[0]] and seen == 0:
        raise InputError(f"{path} has a header but no data rows" if layout.names is None else
                         f"{path} has no data rows")
    if values[columns[0]]:
        yield {name: np.array(column, dtype=str) for name, column in values.items()}


def _header_hint(layout: Layout) -> str:
    """The fix when a file has no header row (its first record was read as one); no cell is shown."""
    if layout.names is not None:
        return ""
    return ("; the header's cells are not shown (if the file has no header row, its first record was read "
            "as one: pass --no-header with --names)")


def _encode(schema: PublicSchema, table: dict[str, np.ndarray], path: str, layout: Layout = Layout()) -> np.ndarray:
    try:
        return schema.transform(table)
    except InputError as error:
        raise InputError(f"{path}: {error} {layout.rows_note()}") from None


def _split_names(text: str) -> list[str]:
    """Column names separated by commas or line breaks, surrounding whitespace stripped, empty ones dropped."""
    return [name.strip() for line in text.splitlines() for name in line.split(",") if name.strip()]


def _column_names(text: str) -> tuple[str, ...]:
    """--names a,b,c: the column names of a file without a header row."""
    names = _split_names(text)
    if not names:
        raise argparse.ArgumentTypeError(f"expected the column names separated by commas, got {text[:40]!r}")
    return tuple(names)


def _layout(args: argparse.Namespace) -> Layout:
    """The data file's layout from --no-header, --names/--names-file and --skip-lines."""
    names = args.names
    if args.names_file is not None:
        if names is not None:
            raise UsageError("give the column names with --names or with --names-file, not both")
        names = tuple(_split_names(read_text(args.names_file, "names file")))
        if not names:
            raise FileError(f"names file {args.names_file} holds no column names; write them one per "
                            "line or separated by commas")
    if args.no_header and names is None:
        raise UsageError("--no-header needs the column names: give --names a,b,c (in file order) or "
                         "--names-file FILE")
    if names is not None and not args.no_header:
        raise UsageError("--names and --names-file are for a file without a header row: add --no-header "
                         "(a file with a header row names its own columns)")
    if names is not None and len(set(names)) != len(names):
        repeated = sorted(name for name, count in Counter(names).items() if count > 1)
        raise UsageError(f"the column names repeat {_names(repeated)}; each column needs its own name")
    return Layout(names, args.skip_lines)


def _schema(args: argparse.Namespace) -> PublicSchema:
    """The public schema from --schema or --numeric/--categorical, with norm --data-norm."""
    if args.schema is not None and args.columns:
        raise InputError("give the columns either in --schema FILE or with --numeric/--categorical, "
                         "not both")
    if args.schema is not None:
        data = read_json(args.schema, "schema file")
        try:
            schema = PublicSchema.from_dict(data)
        except InputError as error:
            raise InputError(f"schema file {args.schema}: {error}") from None
        norm = schema.norm if args.data_norm is None else args.data_norm
    elif args.columns:
        if args.data_norm is None:
            raise InputError("--data-norm R is required: the public bound on the norm of an encoded "
                             "row (numeric columns are scaled to [0, 1] and one-hot blocks have norm "
                             "1, so R = 1 scales every row into the unit ball)")
        schema = PublicSchema(tuple(args.columns))
        norm = args.data_norm
    else:
        raise InputError("no feature columns: give --numeric NAME:LO:HI and/or --categorical "
                         "NAME:CAT1,CAT2 for each feature, or --schema FILE")
    if args.target in schema.column_names:
        raise InputError(f"the target column {args.target!r} is also a feature column; remove it "
                         "from the features")
    return dataclasses.replace(schema, norm=norm)


def _label_values(args: argparse.Namespace) -> tuple[str, str]:
    """The public pair (negative class, positive class) of the model from --positive/--negative."""
    if not args.positive:
        raise InputError("a binary classifier needs --positive VALUE (the public positive label); for more "
                         "classes give --classes A,B,C, for a regression --task regression --label-bound B")
    positives, negatives = args.positive, args.negative or []
    both = [value for value in dict.fromkeys(positives) if value in negatives]
    if both:
        raise InputError(f"--positive and --negative must differ, both give {_names(both)}")
    return (negatives[0] if negatives else NOT + positives[0]), positives[0]


MISSING_LABELS = ("", "?")  # an empty label cell, or UCI's "?": a record without a label


def _labels(raw: np.ndarray, args: argparse.Namespace, layout: Layout) -> np.ndarray:
    """The target column mapped to the public pair of classes; nothing about the labels is inferred.

    Every --positive value is the positive class. Without --negative (or with --others-negative)
    every other value is negative; with --negative, a value that is neither is an error. Its
    message counts the unexpected values but does not show them (it is about private records).
    """
    negative, positive = _label_values(args)
    given = set(args.positive) | set(args.negative or [])
    absent = np.isin(raw, [token for token in MISSING_LABELS if token not in given])
    if np.any(absent):
        raise InputError(
            f"{args.data}: {int(absent.sum())} row(s) have no label (an empty cell or '?') in column "
            f"{args.target!r}, the first in row {int(np.flatnonzero(absent)[0])} {layout.rows_note()}; "
            "drop those records or give the label the file uses with --positive/--negative")
    is_positive = np.isin(raw, args.positive)
    if args.negative and not args.others_negative:
        outside = ~(is_positive | np.isin(raw, args.negative))
        if np.any(outside):
            count, distinct = int(outside.sum()), len(set(raw[outside].tolist()))
            raise InputError(
                f"{args.data}: {count} row(s) of column {args.target!r} ({distinct} distinct value(s)) are "
                f"neither --positive nor --negative; the first is row {int(np.flatnonzero(outside)[0])} "
                f"{layout.rows_note()}. Give every label value "
                "(--positive and --negative can be repeated: --positive A --positive B), "
                "or omit --negative to count every value other than --positive as negative")
    return np.where(is_positive, positive, negative)


# --- commands --------------------------------------------------------------------------------


def _demo(args: argparse.Namespace) -> int:
    from .demo import plot_demo, run_demo

    check_writable(args.plot, "plot")
    start = time.perf_counter()
    result = run_demo(n=args.n, draws=args.draws, random_state=args.seed)
    print(result.certificate)
    print()
    print(result.release)
    print()
    print(f"Test accuracy (mean ± std over {result.draws} noise draws), n = {result.n_train}:")
    print(result.table())
    try:
        path = plot_demo(result, args.plot)
    except ImportError:
        print("\nmatplotlib is not installed: no plot (pip install 'dpcvx[plot]')")
    else:
        print(f"\nplot written to {Path(path).resolve()}")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    loss, regularizer = _problem(args)
    erm = PrivateERM(loss=loss, regularizer=regularizer, strict=args.strict,
                     allow_estimates=args.allow_estimates)
    try:
        certificate = erm.verify(args.dim, progress=True)  # a bar on a terminal only
    except (OverflowError, ZeroDivisionError) as error:  # constants of an extreme loss parameter
        raise _numeric_range(args, error) from None
    print(certificate)
    certificate.require(args.mechanism)  # AssumptionError: main() reports it, exit EXIT_REFUSED
    return EXIT_OK


def _numeric_range(args: argparse.Namespace, error: ArithmeticError) -> NumericRangeError:
    """The error for public parameters whose calibration overflows (OverflowError, ZeroDivisionError)."""
    names = [f"--{name.replace('_', '-')} {getattr(args, name):g}" for name in ("data_norm", "lam", "epsilon")
             if isinstance(getattr(args, name, None), float)]
    given = f"the public parameters ({', '.join(names + [f'--loss {args.loss}'])})"
    return NumericRangeError(f"{given} are too extreme to compute the constants and the noise in floating point "
                             f"({type(error).__name__}: {error}); use moderate values (for example a "
                             "Huber width h between 1e-8 and 1e8)")


def _task_labels(raw: np.ndarray, args: argparse.Namespace, layout: Layout) -> np.ndarray:
    """Regression targets (numbers) or multiclass labels (values of --classes); nothing is inferred."""
    absent = np.isin(raw, MISSING_LABELS)
    if np.any(absent):
        raise InputError(f"{args.data}: {int(absent.sum())} row(s) have no label in column {args.target!r}, the "
                         f"first in row {int(np.flatnonzero(absent)[0])} {layout.rows_note()}")
    if args.task == "regression":
        try:
            return raw.astype(float)
        except ValueError:
            raise InputError(f"{args.data}: column {args.target!r} holds values that are not numbers; a "
                             "regression target must be numeric") from None
    outside = ~np.isin(raw, args.classes)
    if np.any(outside):
        raise InputError(f"{args.data}: {int(outside.sum())} row(s) of column {args.target!r} are not among "
                         f"--classes; the first is row {int(np.flatnonzero(outside)[0])} {layout.rows_note()}. "
                         "The classes are public: list every one")
    return raw


def _learner(args: argparse.Namespace, loss: Any, regularizer: Any, norm: float) -> Any:
    """The learner for --task and --classes: PrivateERM, one-vs-rest, or AdaSSP least squares."""
    common = {"lam": args.lam, "data_norm": norm, "fit_intercept": args.fit_intercept,
              "verbose": bool(args.chunk_rows), "float_safe": args.float_safe}
    if args.task == "regression":
        if args.label_bound is None:
            raise InputError("--task regression needs --label-bound B: a PUBLIC bound on |target|")
        if args.loss == "logistic":  # the default: least squares by AdaSSP
            if args.float_safe:
                raise InputError("--float-safe: AdaSSP least squares (the default regression) has no floating-point-"
                                 "safe form; give a Lipschitz residual loss, e.g. --loss huber_regression:m=1")
            return PrivateLinearRegression(norm, args.label_bound, fit_intercept=args.fit_intercept)
        return PrivateERM(loss=loss, regularizer=regularizer, task="regression", label_bound=args.label_bound,
                          strict=args.strict, allow_estimates=args.allow_estimates, **common)
    if args.classes is not None:
        binary = PrivateERM(loss=loss, regularizer=regularizer, classes=(-1, 1), strict=args.strict,
                            allow_estimates=args.allow_estimates, **common)
        return PrivateMulticlassERM(binary, tuple(args.classes))
    return PrivateERM(loss=loss, regularizer=regularizer, classes=_label_values(args), strict=args.strict,
                      allow_estimates=args.allow_estimates, **common)


def _fit(args: argparse.Namespace) -> int:
    check_writable(args.out, "model")
    binary = args.task == "classification" and args.classes is None
    if binary:
        _label_values(args)
    elif args.positive or args.negative:
        raise InputError("--positive/--negative name a binary classifier's labels; with --classes or --task "
                         "regression leave them out")
    layout = _layout(args)
    loss, regularizer = _problem(args)
    schema = _schema(args)
    # Progress shows the public steps only (on a terminal; nothing measured on the data).
    scratch = tempfile.TemporaryDirectory(prefix="dpcvx-fit-") if args.chunk_rows else None
    with progress(4, "dpcvx fit", verbose=True) as steps, scratch or contextlib.nullcontext():
        columns = schema.column_names + (args.target,)
        labels_of = _labels if binary else _task_labels
        if scratch is None:
            table = _read_table_columns(args.data, columns, layout, label=args.target)
            steps.update()
            X = _encode(schema, table, args.data, layout)
            y = labels_of(table[args.target], args, layout)
        else:
            X, y = _encode_by_chunks(args, schema, columns, layout, labels_of, Path(scratch.name))
            steps.update()
        steps.update()
        learner = _learner(args, loss, regularizer, schema.norm)
        try:
            if isinstance(learner, PrivateLinearRegression):
                model = learner.fit(X, y, args.epsilon, args.delta, random_state=args.random_state)
            else:
                model = learner.fit(X, y, args.epsilon, args.mechanism, delta=args.delta, split=args.split,
                                    random_state=args.random_state)
        except (OverflowError, ZeroDivisionError) as error:  # the calibration of extreme public numbers
            raise _numeric_range(args, error) from None
        steps.update()
        save(model, args.out, schema=schema)
        steps.update()
    print(model.certificate)
    print(f"\nmodel written to {args.out} ({X.shape[0]} rows, {X.shape[1]} features)")
    return EXIT_OK


def _encode_by_chunks(args: argparse.Namespace, schema: PublicSchema, columns: Sequence[str], layout: Layout,
                      labels_of: Callable[..., np.ndarray], directory: Path) -> tuple[np.ndarray, np.ndarray]:
    """The encoded rows of a CSV file read ``--chunk-rows`` records at a time into a memmap in ``directory``.

    The file is never held whole: each chunk is encoded and appended to a float64 file, which
    the fit then reads by row blocks (dpcvx.data.blocks). The scratch directory is removed after
    the fit. Errors name the chunk's rows.
    """
    raw, labels, rows, chunks = directory / "rows.f64", [], 0, 0
    with open(raw, "wb") as handle:
        for chunk in _table_chunks(args.data, columns, layout, label=args.target, chunk_rows=args.chunk_rows):
            count = len(chunk[args.target])
            try:
                block = _encode(schema, chunk, args.data, layout)
                labels.append(labels_of(chunk[args.target], args, layout))
            except InputError as error:
                raise InputError(f"in data rows {rows}..{rows + count - 1} (read by --chunk-rows): {error}") from None
            handle.write(np.ascontiguousarray(block, dtype=np.float64).tobytes())
            rows, chunks = rows + count, chunks + 1
    width = schema.dimension
    X = np.memmap(raw, dtype=np.float64, mode="r", shape=(rows, width))
    return X, np.concatenate(labels)


def _write_predictions(handle: IO[str], predictions: np.ndarray, decisions: np.ndarray) -> None:
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["prediction", "decision"])
    writer.writerows(zip(predictions.tolist(), (repr(float(v)) for v in decisions), strict=True))


def _predict(args: argparse.Namespace) -> int:
    layout = _layout(args)
    model = load(args.model)
    schema: PublicSchema | None = getattr(model, "schema", None)  # load() attaches the file's schema
    if schema is None:
        raise InputError(f"{args.model} holds no public schema (it was saved from Python without "
                         "one), so the CSV columns cannot be encoded; predict in Python with "
                         "dpcvx.load(path).predict(X), or save it with dpcvx.save(model, path, schema=...)")
    if args.out is not None:
        check_writable(args.out, "predictions")
    X = _encode(schema, _read_table_columns(args.data, schema.column_names, layout), args.data, layout)
    predictions, decisions = model.predict(X), model.decision_function(X)
    if decisions.ndim == 2:  # multiclass: the score of the predicted class
        decisions = decisions.max(axis=1)
    if args.out is None:
        text = io.StringIO()  # all or nothing on standard output too
        _write_predictions(text, predictions, decisions)
        sys.stdout.write(text.getvalue())
        return EXIT_OK
    atomic_write(args.out, lambda handle: _write_predictions(handle, predictions, decisions),
                 what="predictions")
    print(f"{len(predictions)} predictions written to {args.out}")
    return EXIT_OK


# --- parser ----------------------------------------------------------------------------------


def _add_problem_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup, loss_default: str | None) -> None:
    parser.add_argument(
        "--loss", required=loss_default is None, default=loss_default, metavar="SPEC|PATH.py",
        help="the margin loss l(z): a catalogue spec, 'logistic' or 'huber:h=0.5' (Huber hinge "
             "of width h), or a Python file defining loss(z) (and optionally regularizer(w)) with "
             f"CVXPY. {USER_FILE_WARNING}" + (f" Default: {loss_default}." if loss_default else ""),
    )
    parser.add_argument(
        "--regularizer", metavar="PATH.py",
        help="a Python file defining regularizer(w) with CVXPY (default: the loss file's "
             f"regularizer, else 0.5 * cp.sum_squares(w)). {USER_FILE_WARNING}",
    )
    parser.add_argument("--mechanism", choices=("objective", "output"), default="objective",
                        help="objective perturbation (Algorithm 2, default) or output perturbation "
                             "(Algorithm 1); see docs/mechanisms.md")
    parser.add_argument("--strict", action="store_true",
                        help="refuse conditions the verifier established only numerically")
    parser.add_argument("--allow-estimates", action="store_true",
                        help="accept constants the verifier could only estimate (not prove); the "
                             "guarantee is then CONDITIONAL on the estimates being right")


def _add_file_arguments(parser: argparse.ArgumentParser) -> None:
    """How to read DATA: a header row or --no-header with the names; gzip is recognised by itself."""
    group = parser.add_argument_group(
        "reading DATA", _text("DATA is a CSV file, UTF-8, plain or gzip-compressed (a .gz name or gzip "
                              "content, decompressed as it is read). Surrounding whitespace of each cell "
                              "is stripped, so UCI's ', ' separator reads as ','. Blank lines are skipped."))
    group.add_argument("--no-header", action="store_true",
                       help="the file has no header row: every line is a record; name the columns with "
                            "--names or --names-file")
    group.add_argument("--names", type=_column_names, metavar="A,B,C,...",
                       help="with --no-header: the names of ALL the file's columns, in file order, "
                            "separated by commas")
    group.add_argument("--names-file", metavar="FILE",
                       help="with --no-header: a text file with the column names, one per line or "
                            "separated by commas")
    group.add_argument("--skip-lines", type=_integer_from("skip_lines", 0), default=0, metavar="N",
                       help="skip the first N lines before the header or the first record (for example "
                            "the title line '|1x3 Cross validator' of UCI's adult.test: --skip-lines 1)")


def _text(paragraph: str) -> str:
    """A help paragraph wrapped for RawDescriptionHelpFormatter (which keeps examples' line breaks)."""
    return textwrap.fill(paragraph, width=78)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors raised as :class:`UsageError` (one line, exit 2) instead of printed."""

    def error(self, message: str):
        raise UsageError(f"{message} (see: {self.prog} --help)")


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="dpcvx", formatter_class=raw,
        description="Differentially private ERM with machine-checked privacy certificates.",
        epilog=_text(f"Exit status: {EXIT_OK} success; {EXIT_USAGE} usage error; {EXIT_INPUT} input "
                     f"error (file, value, parameter); {EXIT_REFUSED} the certificate does not allow "
                     f"the mechanism; {EXIT_SOLVER} solver failure; {EXIT_BUDGET} privacy budget "
                     "exceeded; each error is one line on stderr (docs/robustness.md). `dpcvx COMMAND "
                     "--help` describes each command; docs/cli.md has examples."),
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    demo = commands.add_parser(
        "demo", help="verify, fit both mechanisms on built-in synthetic data, print and plot",
        description="Run the main job on built-in synthetic data (no download): verify the "
                    "logistic and Huber losses, fit output and objective perturbation at "
                    "several epsilon, print the certificate and a results table, plot accuracy.",
    )
    demo.add_argument("--n", type=_integer_from("n", DEMO_MIN_N, DEMO_MAX_N), default=20000,
                      help=f"training rows, {DEMO_MIN_N} to {DEMO_MAX_N} (default 20000)")
    demo.add_argument("--draws", type=_integer_from("draws", 1, DEMO_MAX_DRAWS), default=5,
                      help=f"noise draws per point, 1 to {DEMO_MAX_DRAWS} (default 5)")
    demo.add_argument("--seed", type=_integer_from("random_state", 0, DEMO_MAX_SEED), default=0,
                      help="seed of data and noise, a non-negative integer (default 0)")
    demo.add_argument("--plot", default="dpcvx-demo.png",
                      help="PNG path (default dpcvx-demo.png in the current directory); the absolute "
                           "path written is printed")
    demo.set_defaults(handler=_demo)

    verify = commands.add_parser(
        "verify", help="print the privacy certificate of a loss and regularizer", formatter_class=raw,
        description=_text("Check the conditions of the privacy theorems for a loss (and "
                          "regularizer) and print the certificate: each condition, its constant "
                          "and how it was established. Exit status 0 when --mechanism is allowed, "
                          "1 when it is not (the failing conditions and their fixes go to stderr)."),
        epilog="examples:\n"
               "  dpcvx verify --loss logistic\n"
               "  dpcvx verify --loss huber:h=0.5 --mechanism output\n"
               "  dpcvx verify --loss my_loss.py --strict",
    )
    _add_problem_arguments(verify, loss_default=None)
    verify.add_argument("--dim", type=_integer_from("dim", 1, MAX_DIM), default=PROBE_DIM,
                        help=f"number of features at which the regularizer is analysed "
                             f"(default {PROBE_DIM})")
    verify.set_defaults(handler=_verify)

    fit = commands.add_parser(
        "fit", help="fit a private linear classifier on a CSV file and save it as JSON",
        formatter_class=raw,
        description=_text("Encode the feature columns with PUBLIC bounds and categories (never "
                          "read off the data), scale each row into the norm bound R, map labels "
                          "with the public --positive (and --negative) values, fit with "
                          "epsilon-differential privacy, and write the model with its release "
                          "certificate."),
        epilog="examples:\n"
               "  dpcvx fit adult.csv --target income --positive '>50K' --negative '<=50K' \\\n"
               "      --numeric age:17:90 --categorical sex:Female,Male \\\n"
               "      --epsilon 0.5 --lam 1e-3 --data-norm 1 --fit-intercept --out model.json\n"
               "  dpcvx fit adult.data.gz --no-header --names-file adult.columns \\\n"
               "      --target income --positive '>50K' --schema adult-schema.json \\\n"
               "      --epsilon 0.5 --lam 1e-3 --fit-intercept --out model.json",
    )
    fit.add_argument("data", metavar="DATA", help="CSV file (plain or .gz) with a header row, or "
                                                  "--no-header and the column names")
    _add_file_arguments(fit)
    labels = fit.add_argument_group(
        "labels", _text("Label values are public: they are never inferred from the data. Every "
                        "--positive value is the positive class. Without --negative every other value "
                        "is negative (the negative class is then called 'not VALUE', VALUE the first "
                        "--positive). With --negative a value that is neither is an error, unless "
                        "--others-negative is given. A record without a label (an empty cell or '?') "
                        "is an error."))
    labels.add_argument("--target", required=True, metavar="COLUMN", help="the label column")
    labels.add_argument("--positive", action="append", metavar="VALUE",
                        help="a label value of the positive class; repeat it for several values "
                             "(--positive '>50K' --positive '>50K.')")
    labels.add_argument("--negative", action="append", metavar="VALUE",
                        help="a label value of the negative class (optional; repeatable); the first "
                             "names the negative class")
    labels.add_argument("--others-negative", action="store_true",
                        help="with --negative: treat every value other than --positive as negative "
                             "(one versus rest) instead of refusing it")
    labels.add_argument("--classes", type=_column_names, metavar="A,B,C,...",
                        help="every PUBLIC class of a multiclass model (one-vs-rest under one total "
                             "budget); a label outside them is an error")
    labels.add_argument("--task", choices=("classification", "regression"), default="classification",
                        help="regression: a numeric target with --label-bound; the default loss is "
                             "least squares by AdaSSP (needs --delta > 0), or give --loss huber_regression:m=1")
    labels.add_argument("--label-bound", type=_positive_number("label_bound"), metavar="B",
                        help="PUBLIC bound on |target| of a regression; targets beyond it are clipped")
    features = fit.add_argument_group(
        "features", _text("Give every feature column with its public domain, on the command line "
                          "(repeat the options; feature order is the order given) or in a schema "
                          "file. Columns not named are ignored."))
    features.add_argument("--numeric", dest="columns", action="append", type=_numeric_column,
                          metavar="NAME:LO:HI",
                          help="numeric column with public bounds; values are clipped to "
                               "[LO, HI] and scaled to [0, 1]")
    features.add_argument("--categorical", dest="columns", action="append",
                          type=_categorical_column, metavar="NAME:CAT1,CAT2,...",
                          help="categorical column with its public categories, one-hot encoded "
                               "(a value outside the list encodes as all zeros)")
    features.add_argument("--schema", metavar="SCHEMA.json",
                          help="a PublicSchema JSON file (docs/datasets.md), instead of "
                               "--numeric/--categorical")
    privacy = fit.add_argument_group("privacy and model")
    privacy.add_argument("--epsilon", required=True, type=_positive_number("epsilon"),
                         metavar="E", help="privacy budget of this release")
    privacy.add_argument("--delta", type=_delta_value, default=0.0, metavar="D",
                         help="delta of (epsilon, delta)-DP (default 0: pure epsilon). delta > 0 uses "
                              "Gaussian noise, far less noise in high dimension; choose it well below "
                              "1/n, 1/n^2 is common (docs/mechanisms.md)")
    privacy.add_argument("--lam", required=True, type=_positive_number("lam"), metavar="L",
                         help="regularization weight Lam of (1/n) sum l(y w^T x) + Lam N(w)")
    privacy.add_argument("--data-norm", type=_positive_number("data_norm"), metavar="R",
                         help="public bound R on the norm of an encoded row; rows are scaled into "
                              "it (required with --numeric/--categorical; default with --schema: "
                              "the file's norm)")
    _add_problem_arguments(privacy, loss_default="logistic")
    privacy.add_argument("--fit-intercept", action="store_true",
                         help="add an intercept (a constant feature inside the norm bound and "
                              "the regularizer)")
    privacy.add_argument("--float-safe", action="store_true",
                         help="exact integer noise on a public lattice: a privacy proof that holds for the "
                              "doubles released; the certificate names the floating-point guarantee "
                              "(docs/mechanisms.md)")
    privacy.add_argument("--split", choices=("max", "paper"), default="max",
                         help="objective perturbation budget split (default max; docs/theory.md)")
    privacy.add_argument("--chunk-rows", type=_integer_from("chunk_rows", 1000), metavar="N",
                         help="read the CSV N records at a time into a temporary memory-mapped file and fit "
                              "it by row blocks: for files larger than memory (docs/scale.md)")
    privacy.add_argument("--random-state", type=_integer_from("random_state", 0), metavar="SEED",
                         help="seed of the noise, for experiments only: a real release must use "
                              "the default, fresh operating-system entropy")
    fit.add_argument("--out", required=True, metavar="MODEL.json", help="where to write the model")
    fit.set_defaults(handler=_fit)

    predict = commands.add_parser(
        "predict", help="predict labels for a CSV file with a saved model", formatter_class=raw,
        description=_text("Encode DATA with the model's saved public schema and write one row "
                          "per record: the predicted label and the decision value w^T x + b. "
                          "Other columns, the label column included, are ignored."),
        epilog="example:\n  dpcvx predict model.json new.csv --out predictions.csv",
    )
    predict.add_argument("model", metavar="MODEL.json", help="a model written by dpcvx fit")
    predict.add_argument("data", metavar="DATA", help="CSV file (plain or .gz) with a header row, or "
                                                      "--no-header and the column names")
    _add_file_arguments(predict)
    predict.add_argument("--out", metavar="PREDICTIONS.csv",
                         help="write the predictions here (default: standard output)")
    predict.set_defaults(handler=_predict)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` (default: sys.argv[1:]); return the exit status.

    Every :class:`~dpcvx.exceptions.DPCVXError` becomes one line on stderr and
    the exit status of its class in :data:`EXIT_CODES`; anything else is a bug.
    """
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exit_:  # --help and --version print and exit 0
            return exit_.code if isinstance(exit_.code, int) else EXIT_OK
        return args.handler(args)
    except DPCVXError as error:
        print(error_line(error), file=sys.stderr)
        return exit_code(error)
    except KeyboardInterrupt:
        print("dpcvx: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader of standard output went away (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    sys.exit(main())
