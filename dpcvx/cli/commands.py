"""The ``dpcvx`` commands: ``demo``, ``verify``, ``fit``, ``predict`` and ``report``, and the inputs they read.

Features are encoded by a :class:`~dpcvx.data.preprocessing.PublicSchema` given on the command line
or in a schema file; labels by the public values given on the command line; nothing about the
encoding is read off the data. Every file a command writes (model, predictions, plot) is written
atomically (:func:`dpcvx.data.files.atomic_write`): all of it, or nothing and the previous file
unchanged.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import gzip
import io
import os
import re
import runpy
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np
from scipy.special import expit

from .. import losses
from ..advice import FEW, a_few, encoded_columns
from ..data.columns import MISSING_TOKENS, NOT_A_NUMBER, marker_numbers, spells_infinity
from ..data.csv_table import Layout, name_list, read_table_columns, refuse_csv_layout, split_names, table_chunks
from ..data.files import atomic_write, check_writable, printable, read_json, read_text
from ..data.parquet import is_parquet
from ..data.preprocessing import NumericColumn, PublicSchema, notes_shown_once
from ..data.shared_level import level_checks_off
from ..exceptions import (
    DPCVXError,
    FileError,
    InputError,
    NumericRangeError,
    OverwriteError,
    UndeclaredCategoryWarning,
    UsageError,
    warn_shown,
)
from ..models.class_count import prior_cuts, released_rates
from ..models.erm import PrivateERM
from ..models.intercept_offset import threshold_cut
from ..models.multiclass import PrivateMulticlassERM
from ..privacy.lam_rule import check_rule_regularizer
from ..progress import progress
from ..release.encodable import warn_if_encodable_constant
from ..release.kernel_model import NO_SCHEMA, PrivateKernelModel
from ..release.model import PrivateModel, Release
from ..release.multiclass_model import PrivateMulticlassModel, softmax_in_place
from ..release.range_clip import one_range_note
from ..release.report import check_embed_plot, suffix_format
from ..release.serialization import load, write_model
from ..release.usefulness import rare_class_advice
from ..tables import (
    NEAR_SPELLING,
    RowError,
    by_value,
    declared_texts,
    missing_spellings,
    repeated_names,
    shared_key,
    spelled_missing,
    spelled_timestamp,
    spelling_variants,
    such_rows,
    text_numbers,
)
from ..validation import (
    MISSING_CLASS,
    NORMALISE_FILE,
    check_public_classes,
    label_range,
    missing_refusal,
    near_miss_note,
)
from ..verification.verifier import check_estimate_options, verify_regularizer
from .exit_codes import EXIT_OK

__all__ = ["demo_command", "fit_command", "predict_command", "report_command", "verify_command"]

NOT = "not "  # without --negative, the negative class is called "not " + the first --positive value

MISSING_LABELS = MISSING_TOKENS  # an empty label cell, or UCI's "?": a record without a label (Python's y too)
MISSING_TEXT = MISSING_LABELS  # cells a numeric column without a declared rule refuses with the advice of --missing

Read = TypeVar("Read")  # what a chunked read makes of each chunk (_read_by_chunks)


# --- inputs ----------------------------------------------------------------------------------


def _run_user_file(path: str) -> dict[str, Any]:
    """The global names a user's Python file defines (the file is executed)."""
    if os.path.isdir(path):
        raise FileError(f"Python file {path} is a directory, not a file; give the path of a file")
    if not os.path.isfile(path):  # False for a name the system refuses (too long), where Path.is_file raises
        raise InputError(f"Python file {path} does not exist")
    try:
        return runpy.run_path(path, run_name="dpcvx_user_file")
    except (Exception, SystemExit) as error:  # the user's code: report whatever it raised, exit() included
        raise InputError(f"running {path} failed: {type(error).__name__}: {error}") from None


def _defined(namespace: dict[str, Any], name: str, path: str, example: str) -> Callable[..., Any]:
    value = namespace.get(name)
    if not callable(value):
        found = "is not callable" if name in namespace else "is not defined"
        raise InputError(f"{path}: `{name}` {found}; define it, for example {example}")
    return value


def _problem(args: argparse.Namespace, catalogue: losses.MarginLoss | None) -> tuple[Any, Any]:
    """(loss, regularizer) from --loss (``catalogue``, its spec as :func:`_catalogue_loss` parsed it, or a .py file)
    and --regularizer. Without --loss (fit's default, the task's own loss): logistic for a classifier, None for a
    regression (least squares by AdaSSP)."""
    regularizer = None
    loss: Any = catalogue
    if args.loss is None:
        loss = None if args.task == "regression" else losses.logistic()
    elif args.loss.endswith(".py"):
        namespace = _run_user_file(args.loss)
        loss = _defined(namespace, "loss", args.loss, "loss = lambda z: cp.logistic(-z)")
        if "regularizer" in namespace:
            regularizer = _defined(namespace, "regularizer", args.loss,
                                   "regularizer = lambda w: 0.5 * cp.sum_squares(w)")
    if args.regularizer is not None:  # a .py file (_problem_usage)
        regularizer = _defined(_run_user_file(args.regularizer), "regularizer", args.regularizer,
                               "regularizer = lambda w: 0.5 * cp.sum_squares(w)")
    return loss, regularizer


def _refuse_header_rows(table: dict[str, np.ndarray], path: str, layout: Layout) -> None:
    """Refuse the rows of a file where every column read (``table``'s: the features and the target) holds its own
    name: the header repeated, as when CSV files are joined with their header rows. Such a row is no record; read as
    one, a categorical column would encode it as an unknown category and a one-versus-rest label as negative, without
    a word. The columns not read do not count (they may differ). One comparison of the first column, whose hits
    alone the others are compared at; a column read as numbers holds no name."""
    repeated: np.ndarray | None = None
    for name, values in table.items():
        if values.dtype.kind != "U":
            return
        equal = values == name
        repeated = equal if repeated is None else repeated & equal
        if not repeated.any():
            return
    if repeated is not None:
        raise RowError(f"{path}: {int(repeated.sum())} row(s) repeat the header (every column read holds its own "
                       "name), the first is row ", int(np.flatnonzero(repeated)[0]), f" {layout.rows_note()}: files "
                       "joined with their header rows? Remove the repeated header lines, keeping the first")


def _encode(schema: PublicSchema, table: dict[str, np.ndarray], path: str, layout: Layout,
            missing: Sequence[str], fitting: bool) -> np.ndarray:
    """The rows of ``table`` encoded by ``schema``, ``missing`` cells marked missing (:func:`_with_missing`; its
    advice is for ``dpcvx fit`` when ``fitting``, else for ``dpcvx predict``, which reads the schema a model saved
    and so is not told to change its encoding: :func:`~dpcvx.data.shared_level.level_checks_off`)."""
    _refuse_header_rows(table, path, layout)
    marked = _with_missing(schema, table, path, layout, missing, fitting)  # its errors name the file and the rows
    try:
        with contextlib.nullcontext() if fitting else level_checks_off():  # a released model's schema is fixed
            return schema.transform(marked)
    except RowError as error:  # keeps its row, which a chunked read renumbers
        raise error.noted(f"{path}: ", layout.rows_note()) from None
    except InputError as error:
        raise InputError(f"{path}: {error} {layout.rows_note()}") from None


def _with_missing(schema: PublicSchema, table: dict[str, np.ndarray], path: str, layout: Layout,
                  missing: Sequence[str], fitting: bool) -> dict[str, np.ndarray]:
    """The table with the cells of ``missing`` (--missing) in numeric columns marked missing for the schema.

    A numeric column with a public imputed value (--impute, or "missing" in the schema file) gets
    it for them; without one, a declared missing cell, or an empty or '?' cell, is refused with the
    flags that declare it (the values are never shown: they are data). A column the typed reader read as numbers
    (an empty cell NaN) has its cells compared with the texts that are numbers as numbers: ``--missing 999``
    marks a cell 999 (or 999.0) there as it does the text "999" in a column read as text.
    """
    numeric = [column for column in schema.columns if isinstance(column, NumericColumn) and column.name in table]
    text = [column for column in numeric if table[column.name].dtype.kind == "U"]
    typed = [column for column in numeric if table[column.name].dtype.kind == "f"]  # pyarrow: an empty cell is NaN
    codes = _markers(missing)[0]
    # one comparison a text over all the numeric cells at once; the columns with a hit are looked at one by one
    hits = []
    if text:
        hit = _cells_in(np.stack([table[column.name] for column in text]), (*missing, *MISSING_TEXT))
        hits += [] if hit is None else [text[i] for i in np.flatnonzero(hit.any(axis=1)).tolist()]
    if typed:
        stacked = np.stack([table[column.name] for column in typed])
        empty = np.isnan(stacked) | np.isin(stacked, codes)
        hits += [typed[i] for i in np.flatnonzero(empty.any(axis=1)).tolist()]
    marked = dict(table)
    for column in hits:
        values = table[column.name]
        if values.dtype.kind == "f":
            coded = np.isin(values, codes)
            declared = (np.isnan(values) | coded) if "" in missing else coded if coded.any() else None
            blank = None if "" in missing else np.isnan(values)
        else:
            declared, blank = _cells_in(values, missing), _cells_in(values, MISSING_TEXT)
            if blank is not None and declared is not None:
                blank &= ~declared
        bounds, name = f"within [{column.lo:g}, {column.hi:g}]", column.name
        impute = f"a public imputed value --impute {name}=VALUE {bounds} (or \"missing\" in the schema file)"
        if column.missing is None:
            if blank is not None and blank.any():
                raise RowError(
                    f"{path}: numeric column {name!r} holds a missing or non-finite value in row ",
                    int(np.flatnonzero(blank)[0]), f" {layout.rows_note()} {such_rows(int(blank.sum()))}. If it "
                    "marks a missing value, " + (f"declare it with --missing '' (or --missing '?') and {impute}"
                                                 if fitting else _refit(name, impute)) + "; else clean the file")
            if declared is not None and declared.any():
                per_column = (". If the code stands for a missing value in other columns only (999 for \"never\" "
                              f"in one column, a real 999 in {name!r}), declare it for those columns alone with "
                              "--missing-code COLUMN=VALUE instead of --missing, and leave this column's values as "
                              "they are" if fitting and codes else "")
                raise RowError(
                    f"{path}: numeric column {name!r} has {int(declared.sum())} missing value(s) (--missing), "
                    "the first in row ", int(np.flatnonzero(declared)[0]), f" {layout.rows_note()}; "
                    + (f"give it {impute}" if fitting else _refit(name, impute) + ", or clean the file")
                    + per_column)
        elif declared is not None:  # "" (text) or NaN (numbers) is a missing value to a column with a rule
            marked[name] = np.where(declared, "" if values.dtype.kind == "U" else np.nan, values)
    return marked


def _markers(texts: Sequence[str]) -> tuple[list[float], list[str]]:
    """(the finite numbers among the --missing texts ("999", "-1"), as a column read as numbers holds them; the
    other texts ("NA"), stripped as a cell is, but "" and "?", which are missing values already): split by
    :func:`~dpcvx.data.columns.marker_numbers`, as a numeric column's declaration splits them."""
    numbers_, number = marker_numbers(texts)
    words = [text.strip() for text, coded in zip(texts, number.tolist(), strict=True)
             if not coded and text.strip() not in MISSING_TOKENS]
    return numbers_[number].tolist(), words


def _refit(name: str, impute: str) -> str:
    """Predict's advice for a missing value in the numeric column ``name`` of a model that imputes none."""
    return (f"the model imputes none for column {name!r}: fit it again with --missing '' (or --missing '?') and "
            f"{impute}; the model file keeps that value, and predict imputes it")


def _check_layout(args: argparse.Namespace) -> None:
    """The usage errors of --no-header, --names/--names-file and --skip-lines, before any file is read."""
    if args.names is not None and args.names_file is not None:
        raise UsageError("give the column names with --names or with --names-file, not both")
    given = args.names is not None or args.names_file is not None
    if args.no_header and not given:
        raise UsageError("--no-header needs the column names: give --names a,b,c (in file order) or "
                         "--names-file FILE")
    if given and not args.no_header:
        raise UsageError("--names and --names-file are for a file without a header row: add --no-header "
                         "(a file with a header row names its own columns)")
    with _as_usage():  # a Parquet file is known by its suffix
        refuse_csv_layout(args.data, args.no_header or bool(args.skip_lines))
    repeated = sorted(repeated_names(args.names or ()))
    if repeated:
        raise UsageError(f"the column names repeat {name_list(repeated)}; each column needs its own name")


def _layout(args: argparse.Namespace) -> Layout:
    """The data file's layout from --no-header, --names/--names-file and --skip-lines (:func:`_check_layout` passed):
    the names file is read here."""
    names = args.names
    if args.names_file is not None:
        names = tuple(split_names(read_text(args.names_file, "names file")))
        if not names:
            raise FileError(f"names file {args.names_file} holds no column names; write them one per "
                            "line or separated by commas")
        repeated = repeated_names(names)
        if repeated:  # positions, not the names: a data file given by mistake as the names file would be printed
            first = next(index for index, name in enumerate(names) if name in names[:index])
            raise FileError(f"names file {args.names_file}: {len(repeated)} column name(s) repeat, the first at "
                            f"name {first + 1} of {len(names)} (the names are not shown: a file given here by "
                            "mistake may hold data); each column needs its own name")
    return Layout(names, args.skip_lines)


OVERWRITE = "--overwrite"  # the option that lets an output replace an existing file (named in the refusal)

# the files a command reads, by the attribute of its arguments that names them: its --out is refused when it is one
INPUT_FILES = (("data", "data file"), ("model", "model file"), ("schema", "schema file"),
               ("names_file", "names file"), ("loss", "loss file"), ("regularizer", "regularizer file"))


def _check_out(args: argparse.Namespace, what: str) -> Path:
    """Refuse, before any work, an --out that :func:`atomic_write` could not write, that is a file the command
    reads (its data, model, schema, names or Python file): the output would replace the user's file, or, without
    --overwrite, that exists (an :class:`~dpcvx.exceptions.OverwriteError`). The one check of --out: the writer
    after the work moves the output to the checked path without checking again (without --overwrite, only if the
    name is still free). Returns the checked path."""
    given = ((getattr(args, name, None), kind) for name, kind in INPUT_FILES)
    # --loss is a file when it names a .py (else a catalogue spec); the other names are files
    inputs = [(path, kind) for path, kind in given
              if isinstance(path, str) and (kind != "loss file" or path.endswith(".py"))]
    return check_writable(args.out, what, inputs, overwrite=args.overwrite, option=OVERWRITE)


def _schema(args: argparse.Namespace) -> PublicSchema:
    """The public schema from --schema or --numeric/--categorical, with norm --data-norm. Its InputErrors are about
    the command line's columns (a usage error, :func:`_fit_usage`) or the schema file's."""
    if args.schema is not None:
        data = read_json(args.schema, "schema file")
        try:
            schema = PublicSchema.from_dict(data)
        except InputError as error:
            raise InputError(f"schema file {args.schema}: {error}") from None
        norm = schema.norm if args.data_norm is None else args.data_norm
    elif args.columns:
        schema = PublicSchema(tuple(args.columns))
        if args.data_norm is None:
            raise UsageError("--data-norm R is required: the public bound on the norm of an encoded "
                             "row (numeric columns are centred in [-1/2, 1/2] and one-hot blocks have "
                             "norm 1, so R = 1 scales every row into the unit ball, dividing a row of norm above "
                             f"1 by its norm; R = {schema.largest_row_norm:.4g}, the largest these columns allow, "
                             "scales none, at noise in proportion to R)")
        norm = args.data_norm
    else:
        raise UsageError("no feature columns: give --numeric NAME:LO:HI and/or --categorical "
                         "NAME:CAT1,CAT2 for each feature, or --schema FILE")
    # its values checked against the columns the command line names (a usage error), or the schema file's (a file's)
    with _as_usage(option="--impute", command=args.command) if args.schema is None else contextlib.nullcontext():
        schema = _imputed(schema, args.impute, args.missing)
    with _as_usage(option="--missing-code", command=args.command) if args.schema is None else contextlib.nullcontext():
        schema = dataclasses.replace(schema, columns=_with_column_codes(schema.columns, args.missing_code))
    if args.target in schema.column_names:
        raise InputError(f"the target column {args.target!r} is also a feature column; remove it "
                         "from the features")
    return dataclasses.replace(schema, norm=norm)


def _cells_in(values: np.ndarray, texts: Sequence[str]) -> np.ndarray | None:
    """The mask of the cells equal to one of ``texts``, None when there is none."""
    found = None
    for text in texts:
        equal = values == text
        if equal.any():
            found = equal if found is None else found | equal
    return found


def _imputed(schema: PublicSchema, imputations: Sequence[tuple[str, float]], missing: Sequence[str]) -> PublicSchema:
    """The schema with --impute NAME=VALUE set as the public imputed value of each named numeric column, and the
    --missing texts among the missing values of each numeric column with an imputed value, a number (999) among its
    missing codes, any other ("NA") among its missing texts ("" and "?" are missing values already): the model file
    keeps them, so that predict reads a code or a text as fit did without --missing again (--missing-code, one
    column's code: :func:`_with_column_codes`)."""
    repeated = sorted(repeated_names([name for name, _ in imputations]))
    if repeated:
        raise InputError(f"--impute gives {name_list(repeated)} more than one value; give each column one")
    values = dict(imputations)
    numeric = {column.name for column in schema.columns if isinstance(column, NumericColumn)}
    unknown = [name for name in values if name not in numeric]
    if unknown:
        raise InputError(f"--impute names {name_list(unknown)}, which are not numeric feature columns "
                         f"({name_list(sorted(numeric))}); a categorical column lists its missing text among its "
                         "categories")
    codes, words = _markers(missing)
    columns = tuple(_with_markers(dataclasses.replace(column, missing=values[column.name])
                                  if column.name in values else column, codes, words)
                    if isinstance(column, NumericColumn) else column
                    for column in schema.columns)
    return dataclasses.replace(schema, columns=columns)


def _with_column_codes(columns: tuple[Any, ...], column_codes: Sequence[tuple[str, float]]) -> tuple[Any, ...]:
    """``columns`` with each --missing-code NAME=VALUE among the missing codes of the numeric column NAME only (the
    model file keeps it there, so predict reads it as fit did). A code one column uses (999 for "never contacted")
    may be a real value of another (a call of 999 seconds), which --missing, read in every numeric column, would
    take as missing too. NAME must be a numeric feature column with a public imputed value (what the code reads as)."""
    if not column_codes:
        return columns
    numeric = {column.name: column for column in columns if isinstance(column, NumericColumn)}
    unknown = [name for name, _ in column_codes if name not in numeric]
    if unknown:
        raise InputError(f"--missing-code names {name_list(unknown)}, which are not numeric feature columns "
                         f"({name_list(sorted(numeric))}); a categorical column lists its missing text among its "
                         "categories")
    bare = [name for name, _ in column_codes if numeric[name].missing is None]
    if bare:
        raise InputError(f"--missing-code names {name_list(bare)}, which has no public imputed value to read the "
                         f"code as: give it --impute {bare[0]}=VALUE within its bounds (or \"missing\" in the schema "
                         "file)")
    by_name: dict[str, list[float]] = {}
    for name, code in column_codes:
        by_name.setdefault(name, []).append(code)
    return tuple(_with_markers(column, by_name[column.name], ()) if column.name in by_name else column
                 for column in columns)


def _with_markers(column: NumericColumn, codes: Sequence[float], texts: Sequence[str]) -> NumericColumn:
    """``column`` with ``codes`` added to its missing codes and ``texts`` to its missing texts where it has an
    imputed value (one without refuses such a cell, :func:`_with_missing`)."""
    if column.missing is None:
        return column
    added = tuple(code for code in dict.fromkeys(codes) if code not in column.missing_codes)
    words = tuple(text for text in dict.fromkeys(texts) if text not in column.missing_texts)
    if not added and not words:
        return column
    return dataclasses.replace(column, missing_codes=column.missing_codes + added,
                               missing_texts=column.missing_texts + words)


def _refuse_spaced_labels(args: argparse.Namespace) -> None:
    """A label given with surrounding whitespace (--positive, --negative, --class) for a CSV file, whose cells are
    read with theirs stripped (UCI's ', ' separator): it could match no record, and every record would take the
    other class. A Parquet file keeps its text as written, spaces included."""
    if is_parquet(args.data):
        return
    given = [("--positive", value) for value in args.positive or []] + [
        ("--negative", value) for value in args.negative or []] + [
        ("--class", value) for value in args.class_labels or []]
    spaced = [(option, value) for option, value in given if value != value.strip()]
    if spaced:
        option, value = spaced[0]
        raise UsageError(f"{option} {value!r} has surrounding spaces, but a CSV file's cells are read with theirs "
                         f"stripped: it would match no record; give it as {value.strip()!r}")


def _refuse_same_number_labels(args: argparse.Namespace) -> None:
    """Two labels of different classes that a reader may give as one value ("1" and "1.0", "7" and "07", "true" and
    "1": :func:`dpcvx.tables.reading_key`): a label cell is read by that value (:func:`dpcvx.tables.by_value`, the
    Python entries' reading too), so such a cell would be both. Refused before any file is read."""
    # each class a group of its own; --positive may be repeated, its labels one class
    groups = ([[label] for label in dict.fromkeys(args.classes)] if args.classes is not None
              else [args.positive or [], args.negative or []])
    shared = shared_key(groups)
    if shared is not None:
        raise UsageError(f"the labels {shared[0]!r} and {shared[1]!r} write the same value, and a label cell is read "
                         "by its value (a file's 1, 1.0, 01, true and True are one label): give one of them")


def _refuse_missing_labels(args: argparse.Namespace) -> None:
    """A --positive, --negative or --classes label that spells a missing value ("NA", "NaN", "null":
    :func:`dpcvx.tables.spelled_missing`), refused before any file is read, as the Python API refuses such a declared
    class: pyarrow reads it as a null in a column of codes (a Parquet file it wrote from such a CSV holds nulls) and
    keeps the text once one label is text, so one record decided whether the fit was refused (an attacker probe,
    session 65: --positive NA released on a file with one label "x" and was refused on its neighbour). A label that
    spells a timestamp, or two that spell one time of day, likewise (:func:`dpcvx.tables.spelled_timestamp`)."""
    for option, values in (("--positive", args.positive), ("--negative", args.negative), ("--classes", args.classes)):
        null = spelled_missing(values or [])
        if null is not None:
            raise UsageError(f"{option} {null!r} {MISSING_CLASS}")
        timed = spelled_timestamp(values or [])
        if timed is not None:  # as a declared class is refused (dpcvx.validation._refuse_repeated_classes)
            raise UsageError(f"{option} {timed}")


def _label_values(args: argparse.Namespace) -> tuple[str, str]:
    """The public pair (negative class, positive class) of the model from --positive/--negative."""
    if not args.positive:
        raise UsageError("a binary classifier needs --positive VALUE (the public positive label); for more "
                         "classes give --classes A,B,C, for a regression --task regression --label-bound B")
    positives, negatives = args.positive, args.negative or []
    both = [value for value in dict.fromkeys(positives) if value in negatives]
    if both:
        raise UsageError(f"--positive and --negative must differ, both give {name_list(both)}")
    return (negatives[0] if negatives else NOT + positives[0]), positives[0]

def _missing_labels(args: argparse.Namespace, layout: Layout, absent: np.ndarray, declared: str = "") -> RowError:
    """The refusal of the label cells ``absent`` (an empty cell or '?', a Parquet file's null or NaN too; ``declared``:
    how one becomes a class), in the Python API's words (:func:`~dpcvx.validation.missing_refusal`), the file, column
    and rows named."""
    cells = "an empty cell, '?', a null or NaN" if is_parquet(args.data) else "an empty cell or '?'"
    return missing_refusal(f"{args.data}: column {args.target!r}", int(absent.sum()), int(np.flatnonzero(absent)[0]),
                           f"missing values ({cells}{declared})", layout.rows_note())


def _refuse_absent_labels(raw: np.ndarray, args: argparse.Namespace, layout: Layout,
                          given: Collection[str] = ()) -> None:
    """Refuse the label cells that are no label: an empty cell or '?' that no label option names (``given``), and
    text that spells a missing value, 'NA' or 'NaN' (:func:`dpcvx.tables.missing_spellings`: pyarrow's null until one
    label is text; no declared label spells one), in the one wording of a missing label (:func:`_missing_labels`).
    The one check of a binary, multiclass and regression target: a regression's 'NA' was refused as "not a number"
    with the advice of --missing/--impute, which do not apply to the target, where an empty cell, a Parquet null and
    pandas' NA got the missing-label refusal (a probe, session 67)."""
    absent = np.isin(raw, [token for token in MISSING_LABELS if token not in given]) | missing_spellings(raw)
    if np.any(absent):
        raise _missing_labels(args, layout, absent, ", or text that spells one, 'NA' or 'NaN', as a reader of "
                              "numbers reads it")


def _target(args: argparse.Namespace) -> str:
    """The label column as a refusal names it (:func:`dpcvx.tables.declared_texts`)."""
    return f"{args.data}: column {args.target!r}"


def _labels(raw: np.ndarray, args: argparse.Namespace, layout: Layout) -> np.ndarray:
    """The target column mapped to the public pair of classes; nothing about the labels is inferred.

    Every --positive value is the positive class. Without --negative (or with --others-negative)
    every other value is negative; with --negative, a value that is neither is an error. Its
    message counts the unexpected values but does not show them (it is about private records).
    """
    negative, positive = _label_values(args)
    raw = by_value(declared_texts(raw, [*args.positive, *(args.negative or [])], _target(args)),
                   [*args.positive, *(args.negative or [])])
    _refuse_absent_labels(raw, args, layout, {*args.positive, *(args.negative or [])})
    is_positive = np.isin(raw, args.positive)
    if args.negative and not args.others_negative:
        outside = ~(is_positive | np.isin(raw, args.negative))
        if np.any(outside):
            count, distinct = int(outside.sum()), len(set(raw[outside].tolist()))
            declared = [*args.positive, *args.negative]
            case = near_miss_note(raw[outside], declared, "a --positive or --negative value", "normalise the "
                                  "column in the file first, or give each spelling of a class (--positive and "
                                  "--negative can be repeated)")
            raise RowError(
                f"{args.data}: {count} row(s) of column {args.target!r} ({distinct} distinct value(s)) are "
                "neither --positive nor --negative; the first is row ", int(np.flatnonzero(outside)[0]),
                f" {layout.rows_note()}{case}. Give every label value "
                "(--positive and --negative can be repeated: --positive A --positive B), "
                "or omit --negative to count every value other than --positive as negative")
    elif not args.others_negative:  # one versus rest: a variant spelling of --positive is negative, and told
        _warn_variant_labels(raw, args)
    return np.where(is_positive, positive, negative)


def _warn_variant_labels(raw: np.ndarray, args: argparse.Namespace) -> None:
    """One versus rest (no --negative): warn, NOT PRIVATE (it reads the labels), of labels that write a --positive
    value in another spelling (:func:`dpcvx.tables.spelling_variants`, the one check of a near spelling: 'yes' for
    'Yes', '>50K.' for '>50K'), which count as negative as every other value does (a label that writes its number
    another way, '1.0' for '1', is that label: :func:`dpcvx.tables.by_value`). Shown,
    never raised (:func:`~dpcvx.exceptions.warn_shown`): every value other than --positive is a negative record here,
    so a refusal would be decided by one record's spelling (it was: one label 'a' against --positive A refused the
    fit, 'Q' was released; an attacker probe, sixtieth session). It runs as the labels are read, before the fit and
    its charge. The text names the column, the near spellings (the first few: a warning to the data owner, who must
    see which spelling to give) and the fix written with them, no row: UCI Adult's test file writes '>50K.', which
    a warning of letter case and spaces alone missed, and the fit was released predicting one class (an analyst
    probe, session 71, P8 F1)."""
    near = spelling_variants(raw, args.positive)
    spelled = int(near.sum())
    if spelled:
        spellings = list(dict.fromkeys(raw[near].tolist()))
        given = " ".join(f"--positive {shlex.quote(value)}" for value in [*args.positive, *spellings[:FEW]])
        warn_shown(f"{args.data}: in column {args.target!r}, {spelled} row(s) hold a label that differs from a "
                   f"--positive value only in {NEAR_SPELLING}: {a_few([repr(value) for value in spellings])}. "
                   "Without --negative they count as negative. Give each spelling of the positive class "
                   f"(--positive is repeatable: {given}), or normalise the column in the file first; if they are "
                   "another class, say so with --others-negative. NOT PRIVATE: this "
                   "check read the labels; it is shown to you only and is not part of any release.",
                   UndeclaredCategoryWarning)


# --- commands --------------------------------------------------------------------------------


def demo_command(args: argparse.Namespace) -> int:
    from ..demo import DEMO_PLOT, demo_wrote, run_demo, write_plot

    overwrite = args.overwrite
    if args.plot is None:  # the default file: replaced only if an earlier demo wrote it, never a file of the user's
        if os.path.lexists(DEMO_PLOT) and not overwrite and not demo_wrote(DEMO_PLOT):
            raise OverwriteError(f"{DEMO_PLOT} exists and was not written by dpcvx demo: it is kept; give the plot "
                                 f"another file with --plot PATH, or pass {OVERWRITE} to replace it")
        overwrite = overwrite or os.path.lexists(DEMO_PLOT)  # an earlier demo's plot
        args.plot = DEMO_PLOT
    plot = check_writable(args.plot, "plot", overwrite=overwrite, option=OVERWRITE)  # the one check, before the runs
    start = time.perf_counter()
    result = run_demo(n=args.n, draws=args.draws, random_state=args.seed)
    print(result.certificate)
    print()
    print(result.release)
    print()
    print(f"Test accuracy (mean ± std over {result.draws} noise draws), n = {result.n_train}:")
    print(result.table())
    for finding in result.findings:  # the demo's own findings, once each (its fits at small epsilon, by design)
        print(f"\n{finding}")
    try:
        path = write_plot(result, plot, overwrite=overwrite, option=OVERWRITE)
    except ImportError:
        print("\nmatplotlib is not installed: no plot (pip install 'dpcvx[plot]')")
    else:
        print(f"\nplot written to {Path(path).resolve()}")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return EXIT_OK


def verify_command(args: argparse.Namespace) -> int:
    _problem_usage(args)  # before a file is run
    loss, regularizer = _problem(args, _catalogue_loss(args))
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
    loss = args.loss if args.loss is not None or args.task == "regression" else "logistic"  # fit's default
    given = f"the public parameters ({', '.join(names + ([] if loss is None else [f'--loss {loss}']))})"
    return NumericRangeError(f"{given} are too extreme to compute the constants and the noise in floating point "
                             f"({type(error).__name__}: {error}); use moderate values (for example a "
                             "Huber width h between 1e-8 and 1e8)")


def _task_labels(raw: np.ndarray, args: argparse.Namespace, layout: Layout) -> np.ndarray:
    """Regression targets (numbers) or multiclass labels (values of --classes); nothing is inferred."""
    _refuse_absent_labels(raw, args, layout)
    if args.task == "regression":
        targets, bad = text_numbers(raw)
        if bad.any():
            raise RowError(f"{args.data}: {int(bad.sum())} row(s) of column {args.target!r} hold a value that is "
                           "not a number, the first in row ", int(np.flatnonzero(bad)[0]), f" {layout.rows_note()} "
                           "(the values are not shown: they are data); "
                           + ("the cell is an infinity (\"inf\"): a label is a finite number within the label range; "
                              if spells_infinity(raw[int(np.flatnonzero(bad)[0])]) else "") + NOT_A_NUMBER)
        return targets
    raw = by_value(declared_texts(raw, args.classes, _target(args)), args.classes)
    outside = ~np.isin(raw, args.classes)
    if np.any(outside):
        # labels that are a class but for letter case, spaces or punctuation: the file's column is normalised, never
        # listed (a class each spelling); the API's wording (validation.near_miss_note)
        case = near_miss_note(raw[outside], args.classes, "a declared class", NORMALISE_FILE)
        advice = ("" if case else " The classes are public: list every one (a label with a comma or surrounding "
                  "spaces whole, with --class LABEL repeated)")
        raise RowError(f"{args.data}: {int(outside.sum())} row(s) of column {args.target!r} are not among "
                       "--classes; the first is row ", int(np.flatnonzero(outside)[0]), f" {layout.rows_note()}"
                       f"{case}.{advice}")
    return raw


# the estimators' options of a classifier: (argument, option)
CLASSIFICATION_OPTIONS = (("class_weight", "--class-weight"), ("class_prior", "--class-prior"),
                          ("threshold", "--threshold"))

# what fit's options ask it to fit (:func:`_fit_kind`): an estimator of the Python API, or the learner
LOGISTIC, ERM_CLASSIFIER, LEAST_SQUARES, HUBER, LEARNER = ("DPLogisticRegression", "DPERMClassifier",
                                                           "DPLinearRegression", "DPHuberRegressor", "PrivateERM")


def _given(args: argparse.Namespace) -> list[str]:
    """The classifier options of :data:`CLASSIFICATION_OPTIONS` given on the command line."""
    return [option for name, option in CLASSIFICATION_OPTIONS if getattr(args, name) is not None]


def _classes(args: argparse.Namespace) -> tuple[Any, ...]:
    """The public classes of a classifier: --classes, else the pair (negative, positive) of --positive/--negative."""
    return tuple(args.classes) if args.classes is not None else _label_values(args)


def _lam(args: argparse.Namespace) -> float | str:
    """--lam as the estimators take ``lam``: "auto" when left out (their default), else as given, checked by the
    API (:func:`dpcvx.validation.check_lam`: in [LAM_MIN, LAM_MAX], > 0 for objective and output perturbation,
    >= 0 for AdaSSP's extra ridge) before the data is read (:func:`_checked_fitter`)."""
    return "auto" if args.lam is None else args.lam


@contextlib.contextmanager
def _as_usage(prefix: str = "", option: str | None = None, command: str | None = None) -> Iterator[None]:
    """An :class:`InputError` of a check of the options alone as the usage error it is (exit 2): the options are
    wrong whatever the data. A file's errors (FileError) and those of extreme numbers (NumericRangeError) pass.
    With ``option`` (one option's value checked after parsing, against the others: --impute's against its column's
    bounds), in the frame argparse gives an option's bad value: "argument OPTION: ... (see: dpcvx COMMAND --help)".
    With ``command`` and no ``option``, a refusal that opens with one option's name ("--lam must be finite and
    positive", the learner's check of one value) gets that frame too, without ``prefix``: the refusal of
    ``--lam -3`` read "DPLogisticRegression refuses these options: --lam ..." where ``--epsilon 0``'s, checked by
    argparse, read "argument --epsilon: --epsilon ..."; a refusal of options together keeps ``prefix``."""
    try:
        yield
    except (UsageError, FileError, NumericRangeError):
        raise
    except InputError as error:
        opening = _OPTION_OPENING.match(str(error)) if option is None and command is not None else None
        if opening is not None:
            option, prefix = opening.group(1), ""
        if option is not None:
            raise UsageError(f"argument {option}: {prefix}{error} (see: dpcvx {command} --help)") from None
        raise UsageError(f"{prefix}{error}") from None


#: a refusal that opens with one option's name and says what its value must be: "--lam must be ..."
_OPTION_OPENING = re.compile(r"^(--[a-z][a-z0-9-]*) must\b")


def _catalogue_loss(args: argparse.Namespace) -> losses.MarginLoss | None:
    """The catalogue loss --loss names (None for a .py file or the task's default), a malformed or unknown spec a
    usage error: the one parse of the spec of a command, its value passed on."""
    if args.loss is None or args.loss.endswith(".py"):
        return None
    with _as_usage("--loss: "):
        return losses.from_spec(args.loss)


def _problem_usage(args: argparse.Namespace) -> None:
    """verify's and fit's problem options checked before any file is run: --strict without --allow-estimates (it
    would change nothing) and --regularizer's form (--loss's spec is :func:`_catalogue_loss`'s)."""
    with _as_usage():
        check_estimate_options(args.strict, args.allow_estimates, ("--strict", "--allow-estimates"))
    if args.regularizer is not None and not args.regularizer.endswith(".py"):
        raise UsageError(f"--regularizer takes a Python file defining regularizer(w) (a name ending in .py), got "
                         f"{args.regularizer!r}")


def _fit_kind(args: argparse.Namespace, loss: losses.MarginLoss | None) -> str:
    """What fit's options ask it to fit, from the options alone: the estimator of the Python API a Python user would
    fit (LOGISTIC for the default logistic loss, ERM_CLASSIFIER for another loss or a regularizer file, LEAST_SQUARES
    for the default regression, HUBER for --loss huber_regression), or LEARNER (PrivateERM, or one-vs-rest of it)
    where no estimator takes them: --allow-estimates, a regression by another loss or with a regularizer file.
    ``loss`` is --loss's catalogue loss (:func:`_catalogue_loss`)."""
    if args.task == "regression":
        if args.loss is None:
            return LEAST_SQUARES
        plain = not args.allow_estimates and args.regularizer is None
        return HUBER if plain and loss is not None and loss.name == "huber_regression" else LEARNER
    if args.allow_estimates:
        return LEARNER
    return LOGISTIC if args.loss in (None, "logistic") and args.regularizer is None else ERM_CLASSIFIER


def _fit_usage(args: argparse.Namespace) -> tuple[PublicSchema | None, losses.MarginLoss | None, str]:
    """Refuse, as a usage error (exit 2) before any file is opened and anything is charged, every combination of
    fit's options that is wrong whatever the data: the labels of another kind of model or none, an option the
    requested fit would not read (it would be ignored), a loss of the other task. Returns the schema of the feature
    columns given on the command line (None with --schema, a file read later), --loss's catalogue loss
    (:func:`_catalogue_loss`) and what fits (:func:`_fit_kind`)."""
    if args.class_labels is not None:
        if args.classes is not None:
            raise UsageError("give the classes with --classes A,B,C or with --class LABEL (repeated), not both")
        args.classes = tuple(args.class_labels)  # one attribute of the declared classes from here on
    regression = args.task == "regression"
    binary = [option for option, value in (("--positive", args.positive), ("--negative", args.negative),
                                           ("--others-negative", args.others_negative)) if value]
    if regression and args.classes is not None:
        raise UsageError("--classes/--class name a classifier's public classes; the target of --task regression is "
                         "a number bounded by --label-bound: leave them out")
    if regression or args.classes is not None:
        if binary:
            raise UsageError(f"{', '.join(binary)}: options of a binary classifier's labels; with "
                             f"{'--task regression' if regression else '--classes'} leave them out")
    else:
        _label_values(args)
    if args.classes is not None:
        if "" in args.classes:
            raise UsageError("a class label is empty: an empty label cell is a missing label; give the classes the "
                             "target column holds")
        _refuse_spaced_labels(args)  # in the command line's words, before the Python entry's check of the classes
        _refuse_same_number_labels(args)  # (which refuses two of one reading key too)
        with _as_usage("--classes: "):
            check_public_classes(args.classes)
    if regression and args.label_bound is None:
        raise UsageError("--task regression needs --label-bound B (|target| <= B) or LO,HI: a PUBLIC bound on the "
                         "target")
    _refuse_spaced_labels(args)
    _refuse_same_number_labels(args)
    _refuse_missing_labels(args)
    _refuse_other_task_options(args)
    _check_layout(args)
    loss = _catalogue_loss(args)
    kind = _fit_kind(args, loss)
    if args.class_weight is not None and args.classes is not None and len(args.classes) > 2:
        raise UsageError("--class-weight weighs the two sides of a binary classifier; more than two --classes are "
                         "fitted one-vs-rest, which takes no weights: leave it out; on imbalanced classes use "
                         "--class-prior private with --threshold prior (each class's fit draws its own private count "
                         "at epsilon / k), or fit a rare class against the rest as a binary classifier, --positive "
                         "CLASS --others-negative (with --class-weight balanced)")
    if _given(args) and kind == LEARNER:
        given = _given(args)
        raise UsageError(f"{', '.join(given)} {'is an option' if len(given) == 1 else 'are options'} of the "
                         "estimators, which take no --allow-estimates (with it the fit is PrivateERM's, which the "
                         f"command line gives no class options): leave {'it' if len(given) == 1 else 'them'} or "
                         "--allow-estimates out")
    _problem_usage(args)
    if loss is not None:
        with _as_usage("--loss: "):
            losses.check_task(loss, args.task)
    if kind == LEAST_SQUARES:
        _refuse_least_squares_options(args)
    _refuse_options_that_change_nothing(args, kind)
    if args.split is not None and kind in (LEAST_SQUARES, HUBER):  # under output perturbation: the learner's check
        raise UsageError(f"--split sets the budget split of objective perturbation for a classifier (or "
                         f"--allow-estimates); {kind} takes none: leave it out")
    if args.schema is not None:
        if args.columns:
            raise UsageError("give the columns either in --schema FILE or with --numeric/--categorical, not both")
        return None, loss, kind
    with _as_usage():
        return _schema(args), loss, kind


def _refuse_options_that_change_nothing(args: argparse.Namespace, kind: str) -> None:
    """Refuse a flag that would change nothing in the requested fit (it would be accepted silently, as if it did):
    --allow-large-delta at --delta 0 (no delta to allow), --no-column-statistics where the learner fits (PrivateERM
    draws none); --strict without --allow-estimates is :func:`_problem_usage`'s. (--others-negative without
    --negative states the default, the documented one-vs-rest idiom --positive CLASS --others-negative.)"""
    if args.allow_large_delta and args.delta == 0:
        raise UsageError("--allow-large-delta accepts a --delta of 1/n or more; at --delta 0 (pure epsilon, the "
                         "default) there is none: leave it out, or give the --delta it allows")
    if args.column_statistics is False and kind == LEARNER:
        raise UsageError("--no-column-statistics: this fit (--allow-estimates, or a regression by a loss no "
                         "estimator takes) is PrivateERM's, which draws no column statistics: leave it out")


def _refuse_other_task_options(args: argparse.Namespace) -> None:
    """Refuse, as a usage error, an option of the other task, which the fit would not read: a classifier's options
    (:data:`CLASSIFICATION_OPTIONS`) with --task regression, --label-bound without it."""
    if args.task == "regression" and _given(args):
        raise UsageError(f"{', '.join(_given(args))} set options of a classifier; a regression takes none: leave "
                         "them out")
    if args.task != "regression" and args.label_bound is not None:
        raise UsageError("--label-bound bounds the target of a regression (--task regression); a classifier's labels "
                         "are its public classes and take no bound: leave it out")


def _refuse_least_squares_options(args: argparse.Namespace) -> None:
    """Refuse what the default regression cannot take: least squares by AdaSSP or noisy gradient descent
    (DPLinearRegression's default mechanism, Gaussian: it needs delta > 0, has no floating-point-safe form, no
    regularizer and no constant to estimate), whose pure-epsilon form (objective perturbation on a public ball of
    weights) the command line does not offer; DPLinearRegression's own refusals name its Python parameters and
    DPHuberRegressor."""
    if args.regularizer is not None or args.allow_estimates:
        option = "--regularizer" if args.regularizer is not None else "--allow-estimates"
        raise UsageError(f"{option} with --task regression needs --loss: least squares by AdaSSP, the default, "
                         "takes no regularizer and has no constant to estimate; name a regression loss (for "
                         f"example --loss huber_regression) or leave {option} out")
    given = ("--float-safe" if args.float_safe else f"--mechanism {args.mechanism}" if args.mechanism is not None
             else "--delta 0 (the default: pure epsilon)" if args.delta == 0 else None)
    if given is not None:
        raise UsageError(f"{given}: --task regression without --loss is least squares by AdaSSP or noisy gradient "
                         "descent, Gaussian mechanisms that need --delta D > 0 (well below 1/n, for example --delta "
                         "1e-6) and take no --mechanism or --float-safe; for pure epsilon, objective perturbation or "
                         "--float-safe give --loss huber_regression (a Huber regression). Nothing was charged")


def _checked_fitter(args: argparse.Namespace, kind: str, loss: Any, regularizer: Any,
                    norm: float) -> tuple[Any, dict[str, Any] | None]:
    """(what fits, its fit options) that these options describe (:func:`_fit_kind`), its parameters checked by its
    own checks before the data is read (a refusal is a usage error: the options are wrong whatever the data).

    The estimator of the Python API (:mod:`dpcvx.sklearn`) with options None, so that a command-line fit has its
    defaults, checks and warnings: DPLogisticRegression for the default logistic loss, DPERMClassifier for another
    loss or a regularizer file (binary over the --positive/--negative pair, or one-vs-rest over --classes);
    DPLinearRegression for the default regression and DPHuberRegressor for --loss huber_regression (its m "auto"
    without ``:m=``). Else the learner (PrivateERM, binary or a regression, or one-vs-rest) with its own fit
    options (the mechanism and split); its fit takes the contract's epsilon, delta and random_state
    (dpcvx.models.contract)."""
    common = {"lam": _lam(args), "data_norm": norm, "fit_intercept": args.fit_intercept,
              "float_safe": args.float_safe, "allow_large_delta": args.allow_large_delta}
    if kind == LEARNER:
        options = {"mechanism": args.mechanism or "objective", "split": args.split}
        settings = {**common, "intercept_scaling": "auto", "verbose": bool(args.chunk_rows), "strict": args.strict,
                    "allow_estimates": args.allow_estimates}
        learner: Any
        if args.task == "regression":
            bound = label_range(args.label_bound)[1]  # the half-width; the fit sees y - (LO + HI) / 2
            learner = PrivateERM(loss=loss, regularizer=regularizer, task="regression", label_bound=bound, **settings)
        elif args.classes is not None and len(args.classes) > 2:
            binary = PrivateERM(loss=loss, regularizer=regularizer, classes=(-1, 1), **settings)
            learner = PrivateMulticlassERM(binary, tuple(args.classes))
        else:
            learner = PrivateERM(loss=loss, regularizer=regularizer, classes=_classes(args), **settings)
        with _as_usage(f"{type(learner).__name__} refuses these options: ", command=args.command):
            learner.check_options(args.epsilon, options["mechanism"], delta=args.delta, split=options["split"],
                                  random_state=args.random_state)
        return learner, options
    try:
        from ..sklearn.classifiers import DPERMClassifier, DPLogisticRegression
        from ..sklearn.regressors import DPHuberRegressor, DPLinearRegression
    except ImportError as error:  # scikit-learn is the extra dpcvx[sklearn]
        raise DPCVXError(f"dpcvx fit fits the estimators of the Python API: {error}") from None
    common.update(epsilon=args.epsilon, delta=args.delta, random_state=args.random_state,
                  column_statistics=args.column_statistics)
    mechanism = {} if args.mechanism is None else {"mechanism": args.mechanism}  # else the estimator's default
    estimator: Any
    if kind == LEAST_SQUARES:
        estimator = DPLinearRegression(label_bound=args.label_bound, **mechanism, **common)
    elif kind == HUBER:
        m = dict(loss.params)["m"] if ":" in args.loss else "auto"
        estimator = DPHuberRegressor(m=m, label_bound=args.label_bound, **mechanism, **common)
    else:
        classifier = {"classes": _classes(args), "split": args.split,
                      "class_weight": args.class_weight, "class_prior": args.class_prior,
                      "threshold": 0.5 if args.threshold is None else args.threshold, **mechanism, **common}
        estimator = (DPLogisticRegression(**classifier) if kind == LOGISTIC else
                     DPERMClassifier(loss=loss, regularizer=regularizer, **classifier))
    with _as_usage(f"{type(estimator).__name__} refuses these options: ", command=args.command):
        estimator.check_params()  # the checks its fit runs before it reads the data
    return estimator, None


def _check_lam_rule(args: argparse.Namespace, kind: str, regularizer: Any, schema: PublicSchema) -> None:
    """``--lam auto`` (the default) for a regularizer that is not strongly convex, a usage error before the data is
    read: the rule's check (:func:`~dpcvx.privacy.lam_rule.check_rule_regularizer`) at the modulus m the verifier
    proves for the regularizer at the fit's width (the schema's columns and the intercept), which the fit verifies
    again (cached). A regularizer the verifier cannot analyse is left to the fit's verification, which refuses it.
    The default regression's 'auto' is no extra ridge, and takes no rule."""
    if _lam(args) != "auto" or kind == LEAST_SQUARES:
        return
    width = schema.dimension + (1 if args.fit_intercept else 0)
    analysis = verify_regularizer(regularizer, width).analysis
    if analysis is not None:
        with _as_usage():
            check_rule_regularizer(float(analysis.strong_convexity))


def _release(args: argparse.Namespace, X: np.ndarray, y: np.ndarray, fitter: Any,
             options: dict[str, Any] | None) -> tuple[Any, Any]:
    """(what to save, the release) of the fit: the fitted estimator (options None; its warnings go to stderr),
    saved with its threshold's decision cut, and its release; else the learner's release, twice."""
    shift = 0.0
    try:
        if options is None:
            return fitter.fit(X, y), fitter.model_
        shift = label_range(args.label_bound)[0] if args.task == "regression" else 0.0  # public: LO,HI's centre
        model = fitter.fit(X, y - shift if shift else y, epsilon=args.epsilon, delta=args.delta,
                           random_state=args.random_state, **options)
    except (OverflowError, ZeroDivisionError) as error:  # the calibration of extreme public numbers
        raise _numeric_range(args, error) from None
    released = model.label_shifted(shift) if shift else model  # added back to the intercept, recorded
    return released, released


def fit_command(args: argparse.Namespace) -> int:
    """Fit and save a model: every usage error first (:func:`_fit_usage`), then the --out path, the loss and
    regularizer files (which the fit's checks need) and the fit's own checks of its parameters
    (:func:`_checked_fitter`), then the names and schema files (the checks again at a schema file's norm, and
    ``--lam auto``'s at the schema's width: :func:`_check_lam_rule`), and only then the data is read and the fit
    charged: an option that is wrong whatever the data is a usage error before a names or schema file is read."""
    schema, catalogue, kind = _fit_usage(args)
    out = _check_out(args, "model")  # before the fit is charged: a refused --out spends nothing
    binary = args.task == "classification" and args.classes is None
    loss, regularizer = _problem(args, catalogue)
    norm = PublicSchema.norm if args.data_norm is None else args.data_norm  # a schema file's norm: its default here
    fitter, options = _checked_fitter(args, kind, loss, regularizer, norm)
    layout = _layout(args)
    schema = schema or _schema(args)
    if schema.norm != norm:  # the schema file's own norm
        fitter, options = _checked_fitter(args, kind, loss, regularizer, schema.norm)
    _check_lam_rule(args, kind, regularizer, schema)
    # Progress shows the public steps only (on a terminal; nothing measured on the data).
    scratch = tempfile.TemporaryDirectory(prefix="dpcvx-fit-") if args.chunk_rows else None
    with progress(4, "dpcvx fit", verbose=True) as steps, scratch or contextlib.nullcontext():
        columns = schema.column_names + (args.target,)
        labels_of = _labels if binary else _task_labels
        if scratch is None:
            table = read_table_columns(args.data, columns, layout, label=args.target, numeric=schema.numeric_names)
            steps.update()
            X = _encode(schema, table, args.data, layout, args.missing, fitting=True)
            y = labels_of(table[args.target], args, layout)
        else:
            X, y = _encode_by_chunks(args, schema, columns, layout, labels_of, Path(scratch.name))
            steps.update()
        steps.update()
        with encoded_columns(tuple((column.name, len(column.feature_names)) for column in schema.columns)):
            fitted, model = _release(args, X, y, fitter, options)
        steps.update()
        # an estimator's threshold as its decision cut, which predict uses; --out was checked above, once
        write_model(fitted, out, schema=schema, overwrite=args.overwrite, option=OVERWRITE)
        args.released = out  # an interrupt from here on says the release is whole and spent (main)
        steps.update()
    cut = getattr(fitted, "decision_cut_", 0.0)
    if isinstance(model, (PrivateModel, PrivateMulticlassModel)):  # a classifier's, on the schema
        plain = getattr(fitted, "class_weight", None) is None and getattr(fitted, "class_prior", None) is None
        binary_estimator = options is None and isinstance(model, PrivateModel)
        warn_if_encodable_constant(type(fitted).__name__, model, schema, cut,
                                   rare_class_advice() if binary_estimator and plain else "")
    print(model.certificate)
    print(f"\nmodel written to {args.out} ({X.shape[0]} rows, {X.shape[1]} features)")
    if isinstance(cut, np.ndarray):  # one-vs-rest's k cuts
        if np.any(cut != 0):
            print(f"--threshold {args.threshold}: the model predicts the class c of the largest decision value minus "
                  f"its cut t_c = log-odds of its released count ({', '.join(f'{value:.6g}' for value in cut)}); "
                  "dpcvx predict uses these cuts (its --threshold overrides them)")
    elif cut != 0:
        print(f"--threshold {args.threshold}: the model predicts {model.classes_[1]} where the decision value exceeds "
              f"{cut:.6g}; dpcvx predict uses this cut (its --threshold overrides it)")
    return EXIT_OK


def _encode_by_chunks(args: argparse.Namespace, schema: PublicSchema, columns: Sequence[str], layout: Layout,
                      labels_of: Callable[..., np.ndarray], directory: Path) -> tuple[np.ndarray, np.ndarray]:
    """The encoded rows of a CSV file read ``--chunk-rows`` records at a time into a memmap in ``directory``.

    The file is never held whole: each chunk is encoded and appended to a float64 file, which
    the fit then reads by row blocks (dpcvx.data.blocks). The scratch directory is removed after
    the fit. An error about one row names it in the whole file; any other names the chunk's rows.
    The schema's NOT PRIVATE level check (:mod:`dpcvx.data.shared_level`) reads the first chunk only: a fit of
    5,000 rows by 1,000 showed its warning five times, each naming other columns.
    """
    checked = iter([True])  # the schema's level check reads the first chunk: one warning a fit, not one a chunk

    def read(chunk: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        with contextlib.nullcontext() if next(checked, False) else level_checks_off():
            return (_encode(schema, chunk, args.data, layout, args.missing, fitting=True),
                    labels_of(chunk[args.target], args, layout))

    raw, labels, rows = directory / "rows.f64", [], 0
    with open(raw, "wb") as handle:
        for block, chunk_labels in _read_by_chunks(args, columns, layout, schema.numeric_names, read, args.target):
            handle.write(np.ascontiguousarray(block, dtype=np.float64).tobytes())
            labels.append(chunk_labels)
            rows += block.shape[0]
    width = schema.dimension
    X = np.memmap(raw, dtype=np.float64, mode="r", shape=(rows, width))
    return X, np.concatenate(labels)


def _read_by_chunks(args: argparse.Namespace, columns: Sequence[str], layout: Layout, numeric: Sequence[str],
                    read: Callable[[dict[str, np.ndarray]], Read], label: str | None = None) -> Iterator[Read]:
    """``read`` of each chunk of ``--chunk-rows`` records of the data file (:func:`table_chunks`), in file order: the
    one chunked read of fit and predict. An error about one row names it in the whole file, as a read of the whole
    file names it (``read`` names it in its chunk); any other names the chunk's rows. The schema's NOT PRIVATE notes
    are shown once for the file, as a read of the whole file shows them (:func:`notes_shown_once`)."""
    rows, shown = 0, set[str]()
    for chunk in table_chunks(args.data, columns, layout, label=label, chunk_rows=args.chunk_rows, numeric=numeric):
        count = len(chunk[columns[0]])
        try:
            with notes_shown_once(shown):
                result = read(chunk)
        except RowError as error:  # its row in the whole file (its counts are the chunk's)
            raise error.shifted(rows, f"in data rows {rows}..{rows + count - 1} (read by --chunk-rows): ") from None
        except InputError as error:
            raise InputError(f"in data rows {rows}..{rows + count - 1} (read by --chunk-rows): {error}") from None
        yield result
        rows += count


def _probability_names(model: Release) -> list[str]:
    """The probability columns of a logistic model, as the estimators' ``predict_proba``: 'probability:CLASS' of the
    positive class of a binary model (the sigmoid of w^T x + b), of every class of a multiclass one (the softmax of the
    one-vs-rest scores); none for another loss (its decision value is no log-odds)."""
    certificate: Any = model.certificate
    per_class = getattr(certificate, "per_class", None)
    verification = getattr(per_class[0] if per_class else certificate, "verification", None)
    if not losses.has_probabilities(getattr(verification, "loss", None)):
        return []
    if per_class:
        return [f"probability:{label}" for label in model.classes_.tolist()]  # type: ignore[attr-defined]
    return [f"probability:{model.classes_[1]}"]  # type: ignore[attr-defined]


def _threshold_cut(model: Release, threshold: float | str) -> float | np.ndarray:
    """The decision cut of --threshold for a binary release, in place of the file's, as the estimators' ``threshold``
    (post-processing): log(t / (1 - t)) of a public t (their check), or for "prior" the log-odds of the class rates of
    the release's private count (``class_prior='private'``: a public function of the release). A multiclass release's
    k cuts: 0.5 zeros, "prior" the log-odds of each class's released count (:func:`~dpcvx.models.class_count.
    prior_cuts`)."""
    if isinstance(model, PrivateMulticlassModel):
        cuts = prior_cuts(model.certificate.per_class) if threshold == "prior" else np.zeros(len(model.classes_))
        if (threshold != "prior" and threshold != 0.5) or cuts is None:
            raise InputError("--threshold with a multiclass model takes 0.5 (the class of the largest score) or prior "
                             "(of the largest score minus the log-odds of its class's released count, a fit with "
                             "--class-prior private)" + ("; this model holds no such counts" if cuts is None else ""))
        return cuts
    if not isinstance(model, PrivateModel):
        raise InputError(f"--threshold cuts the decision value of a binary classifier; {model.kind} models predict "
                         "without one: leave it out")
    cut = threshold_cut(threshold, released_rates(model.certificate.weights))
    if cut is None:
        raise InputError("--threshold prior cuts at the log-odds of the class rates the release counted (fit with "
                         "--class-prior private); this release has none. A model fitted with --threshold prior "
                         "and a public class prior predicts at its cut without --threshold; or give the positive "
                         "class's rate as the threshold (--threshold 0.03)")
    return cut


def _encoded_rows(args: argparse.Namespace, schema: PublicSchema, layout: Layout) -> Iterator[np.ndarray]:
    """The data file's records encoded by ``schema``: read whole, or ``--chunk-rows`` at a time as fit reads them."""
    columns, numeric = schema.column_names, schema.numeric_names

    def encode(table: dict[str, np.ndarray]) -> np.ndarray:
        return _encode(schema, table, args.data, layout, args.missing, fitting=False)

    if args.chunk_rows is None:
        yield encode(read_table_columns(args.data, columns, layout, numeric=numeric))
    else:
        yield from _read_by_chunks(args, columns, layout, numeric, encode)


def _regrouped_rows(blocks: Iterable[np.ndarray], rows: int | None) -> Iterator[np.ndarray]:
    """The rows of ``blocks`` in groups of ``rows`` from the first, the last group the rest (None: the blocks as they
    come): a group within one block is a view of it, one across blocks is copied into one buffer of ``rows`` rows,
    reused (a group is used before the next is asked for). Grouped by the model's :meth:`~Release.score_rows`, a
    file read in chunks is scored as its whole read is, bit for bit."""
    if rows is None:
        yield from blocks
        return
    buffer: np.ndarray | None = None
    filled = 0  # rows of the buffer holding the group under way
    tail: np.ndarray | None = None  # the last block's rows after its groups: yielded as a view if no block follows
    for block in blocks:
        if tail is not None:
            buffer = np.empty((rows, block.shape[1])) if buffer is None else buffer
            buffer[:tail.shape[0]] = tail
            filled, tail = tail.shape[0], None
        start = 0
        if filled:
            assert buffer is not None  # filled above
            start = min(rows - filled, block.shape[0])
            buffer[filled:filled + start] = block[:start]
            filled += start
            if filled < rows:
                continue
            yield buffer
            filled = 0
        while block.shape[0] - start >= rows:
            yield block[start:start + rows]
            start += rows
        if start < block.shape[0]:
            tail = block[start:]
    if tail is not None:
        yield tail
    elif filled:
        assert buffer is not None
        yield buffer[:filled]


WRITE_ROWS = 1024  # predictions turned into text at a time


def _write_predictions(handle: IO[str], model: Release, groups: Iterable[np.ndarray], names: list[str]) -> int:
    """Write the header and one line per row of ``groups`` (prediction, decision value, the probabilities ``names``
    names), each row scored once; the number of rows written. The note on rows beyond the release's located ranges
    names its columns by the encoded features' names of the schema :func:`~dpcvx.load` attached from the file
    (public; analyst probe P2, session 71, finding 6: it said "column 10" where the file's schema names it
    'lag11:scaled')."""
    writer = csv.writer(handle, lineterminator="\n")
    writer.writerow(["prediction", "decision", *names])
    columns = getattr(getattr(model, "schema", None), "feature_names", None)
    with one_range_note("dpcvx predict", columns):  # the share of the file's rows the release's ranges clip, said once
        return _written_groups(writer, model, groups, names)


def _written_groups(writer: Any, model: Release, groups: Iterable[np.ndarray], names: list[str]) -> int:
    """Write one line per row of ``groups`` (:func:`_write_predictions`); the number of rows written."""
    count = 0
    for rows in groups:
        scores = model.decision_function(rows)
        predictions = model.predictions(scores)
        if scores.ndim == 2:  # multiclass: the predicted class's score, that of the largest s_c - t_c (its cuts t)
            cuts = model.decision_cut  # type: ignore[attr-defined]  # a multiclass release
            if np.any(cuts):
                cut = scores - cuts
                decisions = scores[np.arange(len(scores)), np.argmax(cut, axis=1)]
            else:  # the default cuts 0: no copy of the block's scores (the chunked read's memory)
                cut, decisions = scores, scores.max(axis=1)
        else:
            decisions = scores
        probabilities = np.empty((len(predictions), 0))
        if names:  # a multiclass model's softmax of s - t in place (predict_proba's), after its scores were used
            probabilities = softmax_in_place(cut) if scores.ndim == 2 else expit(scores)[:, np.newaxis]
        for start in range(0, len(predictions), WRITE_ROWS):  # Python's objects for a few rows at a time
            part = slice(start, start + WRITE_ROWS)
            for label, decision, row in zip(predictions[part].tolist(), decisions[part].tolist(),
                                            probabilities[part].tolist(), strict=True):
                writer.writerow([label, repr(float(decision)), *(repr(float(p)) for p in row)])
        count += len(predictions)
    return count


def _gzipped(handle: IO[bytes], write: Callable[[IO[str]], Read]) -> Read:
    """``write`` to a gzip stream of UTF-8 text on the binary ``handle`` (no time stamp in its header: the same
    predictions give the same bytes)."""
    with gzip.GzipFile(fileobj=handle, mode="wb", mtime=0) as compressed, \
            io.TextIOWrapper(compressed, encoding="utf-8", newline="") as text:
        return write(text)


def predict_command(args: argparse.Namespace) -> int:
    """Predict for each record of the data file with a saved model, read whole or ``--chunk-rows`` records at a time
    (never held whole): each group of rows is encoded, scored once and written before the next is read, the same file
    either way. The output is written all or nothing (on standard output too, through a temporary file)."""
    _check_layout(args)  # --threshold's range was checked as it was parsed; "prior" needs the model's release
    _check_overwrite(args, "the predictions go")
    out = None if args.out is None else _check_out(args, "predictions")
    layout = _layout(args)
    model = load(args.model)
    schema: PublicSchema | None = getattr(model, "schema", None)  # load() attaches the file's schema
    if isinstance(model, PrivateKernelModel):  # never a schema: the advice to save one could not be followed
        raise InputError(f"{args.model} holds a kernel release: {NO_SCHEMA}, which dpcvx predict does not read "
                         "from a data file; predict in Python with dpcvx.load(path).predict(X), X the rows of the "
                         "columns it was fitted on")
    if schema is None:
        raise InputError(f"{args.model} holds no public schema (it was saved from Python without "
                         "one), so the CSV columns cannot be encoded; predict in Python with "
                         "dpcvx.load(path).predict(X), or save it with dpcvx.save(model, path, schema=...)")
    if args.threshold is not None:  # the file's decision cut (that of dpcvx fit's --threshold), unless overridden
        cut = _threshold_cut(model, args.threshold)
        model.decision_cut = cut  # type: ignore[attr-defined]  # a binary release (checked)
    names = _probability_names(model)
    groups = _regrouped_rows(_encoded_rows(args, schema, layout), model.score_rows(schema.dimension))
    if out is None:
        with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as text:  # all or nothing on standard output
            _write_predictions(text, model, groups, names)
            text.seek(0)
            if sys.stdout.isatty():  # a class name's control characters as escapes, never acted on by the terminal
                for line in text:
                    sys.stdout.write(printable(line))
            else:  # a pipe or a file gets the predictions as --out writes them
                shutil.copyfileobj(text, sys.stdout)
        return EXIT_OK
    written = []
    replace = {"overwrite": args.overwrite, "option": OVERWRITE}  # --out was checked above, once
    if str(args.out).lower().endswith(".gz"):  # gzip-compressed, as fit and predict read a .gz file
        atomic_write(out, lambda handle: written.append(_gzipped(handle, lambda text: _write_predictions(
            text, model, groups, names))), binary=True, what="predictions", **replace)
    else:
        atomic_write(out, lambda handle: written.append(_write_predictions(handle, model, groups, names)),
                     what="predictions", **replace)
    print(f"{written[0]} predictions written to {args.out}")
    return EXIT_OK


def _check_overwrite(args: argparse.Namespace, what: str) -> None:
    """--overwrite without --out: the command writes to standard output (``what`` goes there), which --overwrite
    does not concern, so it would change nothing; refused (a usage error, exit 2, before anything is read), as every
    flag that would change nothing is (docs/cli.md), where it was accepted as if it did."""
    if args.overwrite and args.out is None:
        raise UsageError(f"--overwrite lets --out replace an existing file; without --out {what} to standard output, "
                         "so --overwrite would change nothing: give --out FILE, or leave --overwrite out")


def report_command(args: argparse.Namespace) -> int:
    """The privacy report of a saved model (:mod:`dpcvx.release.report`), on standard output or in --out. Options
    that would change nothing (--overwrite without --out, --embed-plot for HTML, which always holds the plot) are
    refused before the model is read."""
    _check_overwrite(args, "the report goes")
    out = None
    if args.out is not None:
        out = _check_out(args, "report")  # an --out that would replace an input first: the user's file is at stake
        if args.format is None and suffix_format(args.out) is None:
            raise UsageError(f"--out {args.out}: the report is written as HTML or Markdown, and the name says "
                             "neither: name it .html or .md, or give --format markdown or --format html")
    form = args.format or (None if args.out is None else suffix_format(args.out)) or "markdown"
    with _as_usage():  # --out was checked above, once
        check_embed_plot(form, args.embed_plot, ("--embed-plot", "--format html" if args.format else
                                                                 f"--out {args.out}"))
    report = load(args.model).report()
    text = report.render(form, embed_plot=args.embed_plot)
    if out is None:
        sys.stdout.write(text)
        return EXIT_OK
    atomic_write(out, lambda handle: handle.write(text), what="report", overwrite=args.overwrite, option=OVERWRITE)
    print(f"report written to {args.out}")
    return EXIT_OK
