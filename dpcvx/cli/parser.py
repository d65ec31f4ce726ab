"""The ``dpcvx`` argument parser: the commands, their options, and the argparse types that check them.

Usage errors (an unknown option, a malformed or out-of-range value) are raised as
:class:`~dpcvx.exceptions.UsageError`: one line on stderr, exit 2.

Building the parser imports nothing heavy (no numpy, no CVXPY): ``dpcvx --help`` and ``dpcvx
--version`` answer in the time Python takes to start (benchmarks/accounting_cli.py). The argparse
types import the library's validators when they check a value, and each command's module is
imported when the command runs (:func:`dpcvx.cli.main`, by the parser's ``command`` default).
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from collections.abc import Callable
from typing import Any, NoReturn

from ..exceptions import InputError, UsageError
from ..limits import DEMO_MAX_DRAWS, DEMO_MAX_N, DEMO_MIN_N, PROBE_DIM, SEED_MAX, SEED_MAX_TEXT, SPLITS
from ..version import __version__
from .exit_codes import EXIT_REFUSED, status_summary

__all__ = ["build_parser"]

MAX_DIM = 100_000  # verify --dim: the regularizer is analysed at this many features at most

USER_FILE_WARNING = ("A .py file is run as Python code (like `python FILE`): pass only files "
                     "you wrote or trust.")


# --- argument types (argparse turns ArgumentTypeError into a usage error, exit 2) --------------

# Public real parameters on the command line are checked by the library's own validators
# (dpcvx.validation, imported when a value is checked): epsilon within [EPSILON_MIN, EPSILON_MAX], the public
# bounds within [BOUND_MIN, BOUND_MAX] and lam within [MODERATE_MIN, MODERATE_MAX], where squares, products and
# reciprocals stay finite. Each range is stated once, there.


def _validation() -> Any:
    """dpcvx.validation, imported when a value is checked (it imports numpy and scipy.sparse)."""
    from .. import validation

    return validation


class _BeyondFloat(ValueError):
    """A number of an option that a double cannot hold: it would read as 0 or as infinity (1e-400, 1e400), so a
    check of the value would quote 0.0 or inf, not what was written."""


def _detail(error: ValueError) -> str:
    """What a refusal of an option's number adds to its "got <the text>": why a number was refused when it reads as
    another (:class:`_BeyondFloat`), else nothing."""
    return f": {error}" if isinstance(error, _BeyondFloat) else ""


def _number(text: str) -> float:
    """The number written in ``text``, ValueError otherwise: the one reading of every number of an option (each
    caller says what was expected), by the grammar of a number in a data file's cell
    (:data:`dpcvx.tables.NUMBER_TEXT`: plain ASCII decimal or scientific notation; no digit separators "_", no other
    scripts' digits, no "nan" or "inf", where Python's float() takes all of these), imported when a value is checked
    as the validators are, and without surrounding spaces."""
    from ..tables import text_number

    if text != text.strip():
        raise ValueError("surrounding spaces")
    number = text_number(text)
    mantissa = text.lower().partition("e")[0]
    if math.isinf(number) or (number == 0 and any(digit in mantissa for digit in "123456789")):
        raise _BeyondFloat(f"{text} is beyond the range of a double-precision float, which reads it as {number} "
                           f"(a magnitude from 5e-324 to {sys.float_info.max:.4g}, or 0)")
    return number


def _number_type(check: Callable[[float], float], kind: str) -> Callable[[str], float]:
    """An argparse type: the number in ``text`` (:func:`_number`) checked by a dpcvx.validation function, its
    InputError a usage error.

    ``kind`` names what a non-number should have been; a number the check refuses gets the check's own
    message, which names the value and the range (the API's words, said once).
    """
    def parse(text: str) -> float:
        return _checked_number(text, check, kind)
    return parse


#: how a NaN or an infinity may be written (Python's float() reads them; an option's number grammar does not)
_NON_FINITE = ("nan", "inf", "infinity")


def _checked_number(text: str, check: Callable[[float], float] | None, kind: str) -> float:
    """The number in ``text`` (:func:`_number`) checked by the API's ``check`` (its InputError an argparse error,
    the API's words), or "must be ``kind``". A NaN or an infinity, which the grammar of a number refuses, is passed
    to ``check`` when there is one, so that ``--epsilon nan`` is refused in the API's words ("must be finite and
    positive, got nan"), as ``epsilon=float("nan")`` is."""
    try:
        number = _number(text)
    except ValueError as error:
        if check is None or text.lower().lstrip("+-") not in _NON_FINITE:
            raise argparse.ArgumentTypeError(f"must be {kind}, got {text[:40]!r}{_detail(error)}") from None
        number = float(text)
    if check is None:
        return number
    try:
        checked = check(number)
    except InputError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    if not math.isfinite(checked):  # a check that let a NaN or an infinity through: the grammar's refusal stands
        raise argparse.ArgumentTypeError(f"must be {kind}, got {text[:40]!r}")
    return checked


def _positive_number(name: str) -> Callable[[str], float]:
    def check(number: float) -> float:
        validation = _validation()
        if name == "epsilon":
            return float(validation.check_epsilon(number))
        return float(validation.check_bound(name, number))  # data_norm, label_bound
    return _number_type(check, "a positive number")


_delta_value = _number_type(lambda number: float(_validation().check_delta(number)), "a number in [0, 1)")

AUTO = "auto"
PRIOR = "prior"  # --threshold prior: the cut at the log-odds of the class prior (the estimators' threshold="prior")


def _keyword_or_number(keyword: str, expected: str,
                       check: Callable[[float], float] | None = None) -> Callable[[str], float | str]:
    """A parser of ``keyword`` exactly, or a number, as the API's parameter of that name takes them: other text is a
    usage error (``expected`` says what is). A number's range is the API's ``check`` here when it depends on nothing
    else (its InputError a usage error in argparse's frame, as every other option's), else the API's check when the
    fit runs (an input error, as in Python)."""
    def parse(text: str) -> float | str:
        return keyword if text == keyword else _checked_number(text, check, expected)
    return parse


#: --lam: "auto" (the public rule, the estimators' default) or a number (> 0 for objective and output perturbation,
#: >= 0 for AdaSSP's extra ridge: checked by the API's check_lam)
_lam_value = _keyword_or_number(AUTO, "'auto' or a number")
#: --threshold: "prior" or a number in (0, 1) (the estimators' check, validation.check_threshold)
_threshold_value = _keyword_or_number(PRIOR, "'prior' or a probability in (0, 1)",
                                      lambda number: _validation().check_threshold("threshold", number))


BALANCED = "balanced"  # --class-weight balanced: the estimators' class_weight="balanced", its one value here


def _class_weight(text: str) -> str:
    """--class-weight: "balanced", the one value of the estimators' ``class_weight`` a command line names (a dict
    of weights per class is Python's only); anything else is a malformed value, a usage error naming it."""
    if text != BALANCED:
        raise argparse.ArgumentTypeError(f"the command line takes 'balanced' only (each class weighed by min_j pi_j "
                                         f"/ pi_k, the rates of --class-prior or of one private count), got "
                                         f"{text[:40]!r}")
    return text


def _class_prior(text: str) -> tuple[float, float] | str:
    """--class-prior: "private" or the public rates NEG,POS, as the estimators' ``class_prior`` (they check the
    rates: each in (0, 1), summing to 1)."""
    if text == "private":
        return text
    try:
        negative, positive = _number_pair(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"expected 'private' or the public rates of the negative and the positive "
                                         f"class, NEG,POS, for example 0.97,0.03; got {text[:40]!r}"
                                         f"{_detail(error) or _pair_hint(text, '--class-prior', '0.97,0.03')}"
                                         ) from None
    return negative, positive


def _number_pair(text: str) -> tuple[float, float]:
    """The two numbers of a pair option's value "A,B" (:func:`_number` each), spaces around the comma allowed (a
    quoted '-5, 5'); ValueError for anything else."""
    parts = text.split(",")
    if len(parts) != 2:
        raise ValueError(f"not two numbers: {text[:40]!r}")
    first, second = (_number(part.strip()) for part in parts)
    return first, second


def _pair_hint(text: str, option: str, example: str) -> str:
    """The advice for a pair split by the shell: ``--label-bound -5, 5`` gives the option '-5,' (and a stray 5)."""
    if text.strip().endswith(",") or text.strip().startswith(","):
        return (f"; a pair is one word: {option} {example} (or {option}={example}), or quoted when it holds a "
                f"space: {option} '{example.replace(',', ', ')}'")
    return ""


def _label_bound(text: str) -> float | tuple[float, float]:
    """--label-bound B (|y| <= B) or LO,HI (LO <= y <= HI), checked by dpcvx.validation.label_range."""
    if "," not in text:
        return _positive_number("label_bound")(text)
    try:
        lo, hi = _number_pair(text)
        _validation().label_range((lo, hi))
    except (ValueError, InputError) as error:  # not two numbers, LO >= HI, a half-width out of range
        detail = f" ({error})" if isinstance(error, InputError) else (
            _detail(error) or _pair_hint(text, "--label-bound", "-5,5"))
        raise argparse.ArgumentTypeError(f"expected B or LO,HI with public numbers LO < HI, for example 0,50; "
                                         f"got {text[:40]!r}{detail}") from None
    return lo, hi


def _integer_from(name: str, minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: dpcvx.validation.parse_integer, its InputError turned into a usage error."""
    def parse(text: str) -> int:
        try:
            return int(_validation().parse_integer(name, text, minimum=minimum, maximum=maximum))
        except InputError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    return parse


def _seed(name: str) -> Callable[[str], int]:
    """An argparse type of a seed (``--random-state``, ``demo --seed``): an integer written in ASCII digits, checked by
    the one rule of every seed (:func:`dpcvx.privacy.rng.check_seed`), in its words."""
    def parse(text: str) -> int:
        from ..privacy.rng import check_seed, seed_rule

        try:
            value = _validation().parse_integer(name, text, minimum=0, max_digits=len(str(SEED_MAX)))
        except InputError:
            raise argparse.ArgumentTypeError(f"{seed_rule(name, none=False, generator=False)}; got "
                                             f"{text[:40]!r}") from None
        try:
            return int(check_seed(name, value, generator=False))  # type: ignore[arg-type]
        except InputError:
            raise argparse.ArgumentTypeError(f"{seed_rule(name, none=False, generator=False)}; got "
                                             f"{text[:40]!r}") from None
    return parse


def _numeric_column(text: str) -> Any:  # a dpcvx.data.preprocessing.NumericColumn
    from ..data.preprocessing import SCALES, NumericColumn

    if _joined_columns(text):  # a:-10:10,b:0:1 read as one column named "a:-10:10,b" (exit 3: no such column)
        raise argparse.ArgumentTypeError(f"one column per --numeric: repeat the option (--numeric "
                                         f"{' --numeric '.join(text.split(','))}); got {text!r}")
    body, _, last = text.rpartition(":")
    scaled = last in SCALES  # NAME:LO:HI[:log], NumericColumn's scale
    scale, parts = (last, body.rsplit(":", 2)) if scaled else ("linear", text.rsplit(":", 2))
    try:
        if len(parts) != 3:
            raise ValueError
        name, lo, hi = parts[0], _number(parts[1]), _number(parts[2])
        # NumericColumn's checks are the one rule of bounds (a schema file's and Python's alike)
        return NumericColumn(name, lo, hi, source="dpcvx fit --numeric", scale=scale)
    except ValueError as error:  # _number or InputError (empty name, lo >= hi, non-finite)
        detail = f": {error}" if str(error) else ""
        raise argparse.ArgumentTypeError(
            f"expected NAME:LO:HI[:log] with public bounds LO < HI, for example age:17:90 or amount:0:1e6:log; got "
            f"{text!r}{detail}"
        ) from error


def _joined_columns(text: str) -> bool:
    """Whether ``text`` is several NAME:LO:HI[:log] joined by commas: every comma-separated piece ends in two numbers
    (and a scale), so the whole is no one column's name and bounds."""
    from ..data.preprocessing import SCALES

    pieces = text.split(",")
    if len(pieces) < 2:
        return False
    for piece in pieces:
        parts = piece.split(":")
        if parts[-1] in SCALES:
            parts = parts[:-1]
        if len(parts) < 3 or not parts[0]:
            return False
        try:
            _number(parts[-2]), _number(parts[-1])
        except ValueError:
            return False
    return True


def _categorical_column(text: str) -> Any:  # a dpcvx.data.preprocessing.CategoricalColumn
    from ..data.preprocessing import CategoricalColumn

    name, sep, categories = text.partition(":")
    try:
        if not sep:
            raise ValueError
        entries = _comma_entries(categories, "categories", whole="; a category that holds a comma is declared "
                                 "in a --schema file (docs/datasets.md)")
        return CategoricalColumn(name, entries, source="dpcvx fit --categorical")
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"column {name!r}: {error}") from None
    except InputError as error:  # the syntax was right: the column refused its categories, in its own words
        raise argparse.ArgumentTypeError(str(error)) from None
    except ValueError as error:
        detail = f": {error}" if str(error) else ""
        raise argparse.ArgumentTypeError(
            f"expected NAME:CAT1,CAT2,... with the public categories, for example "
            f"sex:Female,Male; got {text!r}{detail}"
        ) from error


def _name_and_number(text: str, example: str) -> tuple[str, float]:
    """NAME=VALUE with a public number (--impute, --missing-code); ``example`` is the message's."""
    name, sep, value = text.rpartition("=")
    try:
        if not sep or not name:
            raise ValueError
        return name, _number(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE with a public number, for example {example}; "
                                         f"got {text[:40]!r}{_detail(error)}") from None


def _imputed_value(text: str) -> tuple[str, float]:
    """--impute NAME=VALUE: a numeric column's public imputed value (its bounds are checked by the column)."""
    return _name_and_number(text, "age=17")


def _missing_code(text: str) -> tuple[str, float]:
    """--missing-code NAME=VALUE: a number that stands for a missing value in the numeric column NAME only."""
    return _name_and_number(text, "pdays=999")


def _comma_entries(text: str, what: str, whole: str | None = None) -> tuple[str, ...]:
    """The entries of a comma-separated option value. An empty entry (a,,b or a trailing comma) is refused: dropping
    it would silently change the count of names or classes. Surrounding whitespace is stripped, or, given ``whole``
    (the message's end: how to give an entry whole, spaces and commas kept), an entry with surrounding whitespace is
    refused: "a, b c"
    may mean one entry with a comma, and its parts would be taken as two without a word."""
    entries = tuple(entry.strip() for entry in text.split(","))
    if not any(entries):
        raise argparse.ArgumentTypeError(f"expected the {what} separated by commas, got {text[:40]!r}")
    if "" in entries:
        raise argparse.ArgumentTypeError(f"entry {entries.index('') + 1} of {text[:60]!r} is empty: give the {what} "
                                         "separated by single commas, none empty")
    if whole is not None:
        spaced = [index for index, entry in enumerate(text.split(",")) if entry != entry.strip()]
        if spaced:
            raise argparse.ArgumentTypeError(
                f"entry {spaced[0] + 1} of {text[:60]!r} has surrounding spaces, which would be dropped: give the "
                f"{what} separated by commas alone (a,b,c){whole}")
    return entries


def _input_path(text: str) -> str:
    """A file the command reads: any name but the empty one (which names no file: the current directory)."""
    if not text:
        raise argparse.ArgumentTypeError("expected the path of a file, got an empty name")
    return text


def _loss_source(text: str) -> str:
    """--loss SPEC|PATH.py: a catalogue spec or the path of a loss file (a file name may hold any byte)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a catalogue loss ('logistic', 'huber:h=0.5') or the path of a "
                                         "Python file defining loss(z), got an empty text")
    return text


def _add_overwrite(command: argparse.ArgumentParser, option: str, note: str = "") -> None:
    """--overwrite: allow the file ``option`` names to replace an existing file (without it, an existing file is
    refused before any work, exit status 3, and kept byte for byte)."""
    command.add_argument("--overwrite", action="store_true",
                         help=f"replace the file {option} names if it exists (without it an existing file is "
                              f"refused{note} and kept); a file the command reads is refused either way")


def _output_path(text: str) -> str:
    """A file the command writes (--out, --plot): any name but the empty one and '-', which names standard output in
    other tools: a file named '-' would be written (predict and report write standard output without --out)."""
    if text == "-":
        raise argparse.ArgumentTypeError("'-' is not standard output here but a file name: give a file path (./- for a "
                                         "file named '-'); predict and report write standard output without --out")
    return _input_path(text)


#: the options' types that name a file (or a loss file): the operating system's names, any byte allowed
_FILE_NAMES = (_input_path, _output_path, _loss_source)


def _column_names(text: str) -> tuple[str, ...]:
    """--names a,b,c: the column names of a file without a header row (the user's own names: spaces around them are
    dropped, as a header row's are)."""
    return _comma_entries(text, "column names")


def _class_labels(text: str) -> tuple[str, ...]:
    """--classes a,b,c: every public class of a multiclass model, as the target column's text holds them; a label
    with surrounding spaces or a comma is given whole with --class (:func:`_comma_entries` refuses the spaces)."""
    return _comma_entries(text, "class labels", whole=", or each one whole, spaces and commas kept, with --class "
                          "LABEL (repeatable)")


# --- parser ----------------------------------------------------------------------------------


def _add_problem_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup, loss_default: str | None,
                           mechanism_default: str | None, mechanism_help: str) -> None:
    """The problem's options. ``loss_default`` is the text of --loss's default (the task's own loss: the value stays
    None, so that a loss the user names is told from the default), else --loss is required."""
    parser.add_argument(
        "--loss", required=loss_default is None, type=_loss_source, metavar="SPEC|PATH.py",
        help="the margin loss l(z): a catalogue spec, 'logistic' or 'huber:h=0.5' (Huber hinge "
             "of width h), or a Python file defining loss(z) (and optionally regularizer(w)) with "
             f"CVXPY. {USER_FILE_WARNING}" + (f" Default: {loss_default}." if loss_default else ""),
    )
    parser.add_argument(
        "--regularizer", type=_input_path, metavar="PATH.py",
        help="a Python file defining regularizer(w) with CVXPY (default: the loss file's "
             f"regularizer, else 0.5 * cp.sum_squares(w)). {USER_FILE_WARNING}",
    )
    parser.add_argument("--mechanism", choices=("objective", "output"), default=mechanism_default,
                        help="objective perturbation (Algorithm 2) or output perturbation (Algorithm 1); see "
                             f"docs/mechanisms.md. Default: {mechanism_help}")
    parser.add_argument("--strict", action="store_true",
                        help="refuse estimated constants even with --allow-estimates (without it they are refused "
                             "already, and --strict alone is refused); proofs (symbolic, validated, DCP) are always "
                             "accepted")
    parser.add_argument("--allow-estimates", action="store_true",
                        help="accept constants the verifier could only estimate (not prove); the "
                             "guarantee is then CONDITIONAL on the estimates being right. dpcvx fit then fits with "
                             "the learner PrivateERM, which takes none of the estimators' class options "
                             "(--class-weight, --class-prior, --threshold ...)")


def _add_file_arguments(parser: argparse.ArgumentParser) -> None:
    """How to read DATA: a header row or --no-header with the names; gzip is recognised by itself."""
    group = parser.add_argument_group(
        "reading DATA", _text("DATA is a CSV file, UTF-8, plain or gzip-compressed (a .gz name or gzip "
                              "content, decompressed as it is read), or a Parquet file (a .parquet or .pq name; "
                              "the dask extra), whose columns name themselves. Surrounding whitespace of each CSV "
                              "cell is stripped, so UCI's ', ' separator reads as ','. Blank lines are skipped."))
    group.add_argument("--no-header", action="store_true",
                       help="the file has no header row: every line is a record; name the columns with "
                            "--names or --names-file")
    group.add_argument("--names", type=_column_names, metavar="A,B,C,...",
                       help="with --no-header: the names of ALL the file's columns, in file order, "
                            "separated by commas")
    group.add_argument("--names-file", type=_input_path, metavar="FILE",
                       help="with --no-header: a text file with the column names, one per line or "
                            "separated by commas")
    group.add_argument("--missing", action="append", default=[], metavar="TEXT",
                       help="a cell text that stands for a missing value in a feature column (repeatable: "
                            "--missing '' --missing NA); a numeric column then needs a public imputed value "
                            "(fit: --impute NAME=VALUE, or \"missing\" in the schema file), a categorical "
                            "column lists TEXT among its categories. A numeric column with a public imputed "
                            "value imputes it for an empty or '?' cell too; one without refuses such a cell. "
                            "fit keeps each TEXT in the model file for each numeric column with an imputed value, "
                            "one that is a number (--missing 999) as a missing code (\"missing_codes\" in the "
                            "schema file), any other (--missing NA) as a missing text (\"missing_texts\"): "
                            "predict reads it as fit did without --missing again")
    group.add_argument("--skip-lines", type=_integer_from("--skip-lines", 0), default=0, metavar="N",
                       help="skip the first N lines before the header or the first record (for example "
                            "the title line '|1x3 Cross validator' of UCI's adult.test: --skip-lines 1)")


MIN_CHUNK_ROWS = 1000  # the least --chunk-rows (fit and predict)
#: the option meant by a word that abbreviates another (other tools' names): said when its value is refused
MEANT = {"--label": "the label column is --target COLUMN", "--lab": "the label column is --target COLUMN"}


def _add_chunk_rows(parser: argparse.ArgumentParser | argparse._ArgumentGroup, then: str) -> None:
    """--chunk-rows N, fit's and predict's one option (default: the file read whole): DATA read N records at a time,
    ``then`` saying what the command does with them."""
    parser.add_argument("--chunk-rows", type=_integer_from("--chunk-rows", MIN_CHUNK_ROWS), metavar="N",
                        help=f"read DATA (CSV or Parquet) N >= {MIN_CHUNK_ROWS} records at a time {then}: for files "
                             "larger than memory (docs/scale.md; default: the file read whole)")


def _text(paragraph: str) -> str:
    """A help paragraph wrapped for RawDescriptionHelpFormatter (which keeps examples' line breaks)."""
    return textwrap.fill(paragraph, width=78)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors raised as :class:`UsageError` (one line, exit 2) instead of printed, and a value
    that begins with '-' taken after its option and a space as after '=' (:meth:`parse_known_args`)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}{self._abbreviation_words(message)} (see: {self.prog} --help)")

    def _abbreviation_words(self, message: str) -> str:
        """What a refusal of an option's value adds when the user wrote an abbreviation argparse read as that option
        (``--label label`` read as ``--label-bound``: the refusal named an option the user never wrote): the word
        written, the option it was read as, and the option meant when it is a known one (:data:`MEANT`)."""
        for full, written in getattr(self, "_abbreviated", {}).items():
            if f"argument {full}:" in message or f"argument {full}/" in message:
                meant = MEANT.get(written)
                return (f"; {written} was read as {full}, the one option it abbreviates: "
                        + (meant if meant else "if you meant another option, write its whole name"))
        return ""

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's parse, an unrecognized word refused pointing at the help of its command (``dpcvx fit --help``),
        whose parser left it to this one."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            command = getattr(parsed, "command", None)
            prog = self.prog if command is None else f"{self.prog} {command}"
            raise UsageError(f"unrecognized arguments: {' '.join(extra)} (see: {prog} --help)")
        return parsed

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """argparse's parse, after :meth:`_attach_values`: each command's parser runs it on its own options (the
        subcommands' parsers are of this class), and refuses first an option it does not have
        (:meth:`_refuse_unknown_options`)."""
        words = self._attach_values(sys.argv[1:] if args is None else list(args))
        self._refuse_unknown_options(words)
        # the abbreviations argparse will read as whole options, for the words of a refusal (_abbreviation_words)
        self._abbreviated = {}
        for word in words:
            if word == "--":
                break
            name = word.split("=", 1)[0]
            full = self._full_option(name) if name.startswith("--") else name
            if full != name:
                self._abbreviated[full] = name
        parsed, extra = super().parse_known_args(words, namespace)
        self._refuse_invalid_text(parsed)
        return parsed, extra

    def _refuse_invalid_text(self, parsed: argparse.Namespace) -> None:
        """Refuse an option's text that holds a lone surrogate (a byte that is not UTF-8 in an argument, read by
        Python's surrogateescape: :func:`dpcvx.data.files.unpaired_surrogate`), before any work. A label, class,
        column name or missing-value text becomes part of the model file, which cannot hold it: ``--positive``,
        ``--names`` or ``--missing`` with such a byte were fitted, and the model then refused at save, after the
        noise was drawn (an attacker probe, sixty-second session). A file name is the operating system's and may
        hold any byte (:data:`_FILE_NAMES`): Python opens it as it is."""
        from ..data.files import unpaired_surrogate

        for action in self._actions:
            text = None if action.type in _FILE_NAMES else unpaired_surrogate(getattr(parsed, action.dest, None))
            if text is None:
                continue
            option = action.option_strings[-1] if action.option_strings else action.dest
            self.error(f"argument {option}: {text!r} holds a byte that is not UTF-8 (read as "
                       "a lone surrogate); the model file, its report and predictions hold text in UTF-8 only: write "
                       "it in UTF-8")

    def _refuse_unknown_options(self, words: list[str]) -> None:
        """A command's parser refuses a long option it does not have (``dpcvx fit data.csv --bogus``) before argparse
        reports the required options missing, which hid the misspelt one; an abbreviation of several options is left
        to argparse ("ambiguous option"), and nothing after a bare '--' is read."""
        if self._subparsers is not None:  # the top parser: its command's parser reads the command's options
            return
        for word in words:
            if word == "--":
                return
            name = word.split("=", 1)[0]
            known = name in self._option_string_actions or (  # or an abbreviation of one or more (argparse's)
                self.allow_abbrev and any(option.startswith(name) for option in self._option_string_actions))
            if word.startswith("--") and not known:
                raise UsageError(f"unrecognized arguments: {word} (see: {self.prog} --help)")

    def _attach_values(self, args: list[str]) -> list[str]:
        """``args`` with each option that takes one value joined to a following word that begins with a single '-'
        and is not one of this parser's options: ``--label-bound -5,5`` read as ``--label-bound=-5,5``, ``--epsilon
        -1e-3`` as ``--epsilon=-1e-3`` (refused by the option's own check, not by argparse's "expected one
        argument": argparse takes a word that begins with '-' for an option unless it is a plain negative number
        such as -5). A word beginning with '--' stays an option, and nothing after a bare '--' is changed. An option
        abbreviated as argparse allows (``--label -5,5``, a prefix of one option only) is joined as its whole name."""
        takes_value = {option for action in self._actions if action.nargs is None
                       for option in action.option_strings}
        attached: list[str] = []
        for index, word in enumerate(args):
            if attached and attached[-1] == "--":
                return attached + args[index:]
            if (attached and self._full_option(attached[-1]) in takes_value and word.startswith("-")
                    and not word.startswith("--") and word not in self._option_string_actions):
                attached[-1] = f"{attached[-1]}={word}"
            else:
                attached.append(word)
        return attached


    def _full_option(self, word: str) -> str:
        """The option ``word`` names: itself, or with argparse's ``allow_abbrev`` the one long option it is a prefix
        of (``word`` unchanged when it is a prefix of none or of several: argparse reports those)."""
        if word in self._option_string_actions or not (self.allow_abbrev and word.startswith("--")):
            return word
        named = [option for option in self._option_string_actions if option.startswith(word)]
        return named[0] if len(named) == 1 else word


def build_parser() -> argparse.ArgumentParser:
    raw = argparse.RawDescriptionHelpFormatter
    parser = _Parser(
        prog="dpcvx", formatter_class=raw,
        description="Differentially private ERM with machine-checked privacy certificates.",
        # every status main() returns, from the one table (exit_codes: EXIT_CODES and PROCESS_STATUSES)
        epilog=_text(f"Exit status: {status_summary()}; each error is one line on stderr (docs/robustness.md). "
                     "`dpcvx COMMAND --help` describes each command; docs/cli.md has examples."),
    )
    parser.add_argument("--version", action="version", version=f"dpcvx {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    demo = commands.add_parser(
        "demo", help="verify, fit both mechanisms on built-in synthetic data, print and plot",
        description="Run the main job on built-in synthetic data (no download): verify the "
                    "logistic and Huber losses, fit output and objective perturbation at "
                    "several epsilon, print the certificate and a results table, plot accuracy.",
    )
    demo.add_argument("--n", type=_integer_from("--n", DEMO_MIN_N, DEMO_MAX_N), default=20000,
                      help=f"training rows, {DEMO_MIN_N} to {DEMO_MAX_N} (default 20000)")
    demo.add_argument("--draws", type=_integer_from("--draws", 1, DEMO_MAX_DRAWS), default=5,
                      help=f"noise draws per point, 1 to {DEMO_MAX_DRAWS} (default 5)")
    demo.add_argument("--seed", type=_seed("--seed"), default=0,
                      help=f"seed of data and noise, an integer from 0 to {SEED_MAX_TEXT} (default 0)")
    demo.add_argument("--plot", type=_output_path, default=None,
                      help="PNG path (default dpcvx-demo.png in the current directory, replaced only if an "
                           "earlier demo wrote it; an existing file you name is kept, unless --overwrite); the "
                           "absolute path written is printed")
    _add_overwrite(demo, "--plot")
    demo.set_defaults(command="demo")

    verify = commands.add_parser(
        "verify", help="print the privacy certificate of a loss and regularizer", formatter_class=raw,
        description=_text("Check the conditions of the privacy theorems for a loss (and "
                          "regularizer) and print the certificate: each condition, its constant "
                          "and how it was established. Exit status 0 when --mechanism is allowed, "
                          f"{EXIT_REFUSED} when it is not (the failing conditions and their fixes go to stderr)."),
        epilog="examples:\n"
               "  dpcvx verify --loss logistic\n"
               "  dpcvx verify --loss huber:h=0.5 --mechanism output\n"
               "  dpcvx verify --loss my_loss.py --allow-estimates",
    )
    _add_problem_arguments(verify, loss_default=None, mechanism_default="objective", mechanism_help="objective")
    verify.add_argument("--dim", type=_integer_from("--dim", 1, MAX_DIM), default=PROBE_DIM,
                        help=f"number of features at which the regularizer is analysed "
                             f"(default {PROBE_DIM})")
    verify.set_defaults(command="verify")

    fit = commands.add_parser(
        "fit", help="fit a private model (binary or multiclass classifier, or regression) on a CSV or "
                    "Parquet file and save it as JSON",
        formatter_class=raw,
        description=_text("Fit one of the tasks of the library with (epsilon, delta)-differential privacy: "
                          "a binary classifier (--positive), a multiclass classifier (--classes, "
                          "one-vs-rest) or a regression (--task regression, least squares or a Huber "
                          "loss). Encode the feature columns with PUBLIC bounds and categories (never "
                          "read off the data), scale each row into the norm bound R, map labels "
                          "with the public values given, and write the model with its release "
                          "certificate. The fit is the Python estimator's (DPLogisticRegression, DPERMClassifier, "
                          "DPLinearRegression, DPHuberRegressor): its defaults (lam 'auto', an intercept, private "
                          "column statistics by its public rule) but two, its checks and its warnings (on stderr). "
                          "The two: --data-norm is required with --numeric/--categorical (the estimators' "
                          "data_norm defaults to 1), and --delta defaults to 0, pure epsilon (DPLinearRegression's "
                          "delta to 1e-6): the default regression needs --delta. A "
                          "--out that is a file the command reads is refused."),
        epilog="examples:\n"
               "  dpcvx fit adult.csv --target income --positive '>50K' --negative '<=50K' \\\n"
               "      --numeric age:17:90 --categorical sex:Female,Male \\\n"
               "      --epsilon 0.5 --data-norm 1 --out model.json\n"
               "  dpcvx fit adult.data.gz --no-header --names-file adult.columns \\\n"
               "      --target income --positive '>50K' --schema adult-schema.json \\\n"
               "      --epsilon 0.5 --lam 1e-3 --out model.json\n"
               "  dpcvx fit houses.csv --task regression --target price --label-bound 0,500000 \\\n"
               "      --numeric rooms:1:10 --data-norm 1 --epsilon 1 --delta 1e-6 --out price.json",
    )
    fit.add_argument("data", type=_input_path, metavar="DATA",
                     help="CSV file (plain or .gz) with a header row, or --no-header and the column names; or a "
                          "Parquet file (a .parquet or .pq name)")
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
    labels.add_argument("--classes", type=_class_labels, metavar="A,B,C,...",
                        help="every PUBLIC class of a multiclass model (one-vs-rest under one total "
                             "budget), separated by commas; a label outside them is an error")
    labels.add_argument("--class", dest="class_labels", action="append", metavar="LABEL",
                        help="one PUBLIC class, taken whole (its commas and spaces kept), instead of --classes; "
                             "repeat it for every class (--class 'a, b' --class c)")
    labels.add_argument("--task", choices=("classification", "regression"), default="classification",
                        help="regression: a numeric target with --label-bound; the default is least squares "
                             "by DPLinearRegression's mechanism (noisy gradient descent on private ranges, or "
                             "AdaSSP where no range is searched; needs --delta > 0), or give --loss "
                             "huber_regression (a Huber loss, its threshold m = B / 4 of the label bound by the "
                             "public rule; huber_regression:m=M gives m in the target's unit)")
    labels.add_argument("--label-bound", type=_label_bound, metavar="B|LO,HI",
                        help="PUBLIC bound on the target of a regression: B for |target| <= B, or the range "
                             "LO,HI (centred by the public shift (LO + HI) / 2); targets beyond it are clipped. "
                             "A negative LO follows the option as any value does: --label-bound -5,5")
    features = fit.add_argument_group(
        "features", _text("Give every feature column with its public domain, on the command line "
                          "(repeat the options; feature order is the order given) or in a schema "
                          "file. Columns not named are ignored."))
    features.add_argument("--numeric", dest="columns", action="append", type=_numeric_column,
                          metavar="NAME:LO:HI[:log]",
                          help="numeric column with public bounds; values are clipped to "
                               "[LO, HI], scaled to [0, 1] and centred to [-1/2, 1/2]; with :log scaled by "
                               "log(1 + v - LO) / log(1 + HI - LO) (a heavy-tailed amount or count)")
    features.add_argument("--categorical", dest="columns", action="append",
                          type=_categorical_column, metavar="NAME:CAT1,CAT2,...",
                          help="categorical column with its public categories, one-hot encoded "
                               "(a value outside the list encodes as all zeros)")
    features.add_argument("--impute", action="append", default=[], type=_imputed_value, metavar="NAME=VALUE",
                          help="the PUBLIC value imputed for a missing value (see --missing) of the numeric "
                               "column NAME, within its bounds, for example age=17")
    features.add_argument("--missing-code", action="append", default=[], type=_missing_code, metavar="NAME=VALUE",
                          help="a number that stands for a missing value in the numeric column NAME only "
                               "(repeatable), for example pdays=999: --missing 999 reads 999 as missing in every "
                               "numeric column, a real 999 of another column included. NAME needs a public "
                               "imputed value (--impute NAME=VALUE, or \"missing\" in the schema file); the model "
                               "file keeps the code among NAME's \"missing_codes\", and predict reads it as fit did")
    features.add_argument("--schema", type=_input_path, metavar="SCHEMA.json",
                          help="a PublicSchema JSON file (docs/datasets.md), instead of "
                               "--numeric/--categorical")
    privacy = fit.add_argument_group("privacy and model")
    privacy.add_argument("--epsilon", required=True, type=_positive_number("epsilon"),
                         metavar="E", help="privacy budget of this release")
    privacy.add_argument("--delta", type=_delta_value, default=0.0, metavar="D",
                         help="delta of (epsilon, delta)-DP (default 0: pure epsilon). delta > 0 uses "
                              "Gaussian noise, far less noise in high dimension; choose it well below "
                              "1/n, 1/n^2 is common (docs/mechanisms.md)")
    privacy.add_argument("--allow-large-delta", action="store_true",
                         help="accept a delta of 1/n or more (refused by default: a mechanism that publishes "
                              "each record whole with probability delta is (0, delta)-DP)")
    privacy.add_argument("--lam", type=_lam_value, metavar="L|auto",
                         help="regularization weight Lam of (1/n) sum l(y w^T x) + Lam N(w), the API's lam: a "
                              "number (checked as the API checks it) or 'auto', the default, the public rule of the "
                              "estimators (docs/theory.md, section 25), which costs no privacy; for AdaSSP regression "
                              "the extra ridge ('auto': none)")
    privacy.add_argument("--data-norm", type=_positive_number("data_norm"), metavar="R",
                         help="public bound R on the norm of an encoded row; rows are scaled into "
                              "it (required with --numeric/--categorical; default with --schema: "
                              "the file's norm)")
    _add_problem_arguments(privacy, loss_default="logistic for a classifier; for --task regression least squares by "
                                                 "DPLinearRegression's mechanism (name a regression loss such as "
                                                 "huber_regression for another)",
                           mechanism_default=None,
                           mechanism_help="the estimator's (objective for a classifier; for the default regression "
                                          "DPLinearRegression's 'auto': noisy gradient descent on private ranges, "
                                          "else AdaSSP; for a Huber regression pure-epsilon objective perturbation)")
    classification = fit.add_argument_group(
        "classification", _text("The options of the Python estimators (DPLogisticRegression, DPERMClassifier), named "
                                "and checked as there, for a binary classifier: for a rare class, --class-weight "
                                "balanced (with --class-prior private or public rates), or an intercept centred at the "
                                "log-odds of --class-prior with --threshold prior (docs/theory.md, section 21). More "
                                "than two --classes may take --class-prior private with --threshold prior, an option "
                                "and not the default: each class's fit then draws its own private count within "
                                "epsilon / k and the model predicts the class of the largest score minus the "
                                "log-odds of its count (docs/theory.md, section 15); where a few classes are rare and "
                                "epsilon / k is small, it can cost accuracy."))
    classification.add_argument("--class-weight", type=_class_weight, metavar=BALANCED,
                                help="class_weight: 'balanced' weighs each class by min_j pi_j / pi_k, the rates of "
                                     "--class-prior, else of ONE private count of the positive class bought with a "
                                     "share of epsilon (binary only; default: none)")
    classification.add_argument("--class-prior", type=_class_prior, metavar="private|NEG,POS",
                                help="class_prior: the PUBLIC rates of the negative and the positive class (known "
                                     "without this data, summing to 1, for example 0.97,0.03), or 'private': ONE "
                                     "private count of the positive class. Without --class-weight (logistic loss): "
                                     "the intercept is centred at their log-odds")
    classification.add_argument("--threshold", type=_threshold_value, metavar="T|prior",
                                help="threshold: predict the positive class when its probability exceeds T in (0, 1) "
                                     "(default 0.5), or 'prior' (the rate of --class-prior); post-processing. The "
                                     "model file keeps its decision cut, at which dpcvx predict predicts")
    privacy.add_argument("--fit-intercept", action=argparse.BooleanOptionalAction, default=True,
                         help="an intercept (a constant feature inside the norm bound and the regularizer); "
                              "on by default, as in the estimators: --no-fit-intercept leaves it out")
    privacy.add_argument("--no-column-statistics", dest="column_statistics", action="store_const", const=False,
                         default="auto",
                         help="draw no private column statistics (the estimators' column_statistics=False). By "
                              "default ('auto') a fit draws private ranges of the columns (and of a regression's "
                              "label) with a share of epsilon when a public rule of n and epsilon allows it, as the "
                              "estimators do, in memory and with --chunk-rows alike")
    privacy.add_argument("--float-safe", action="store_true",
                         help="exact integer noise on a public lattice: a privacy proof that holds for the "
                              "doubles released; the certificate names the floating-point guarantee "
                              "(docs/mechanisms.md). Objective perturbation with --delta (Gaussian) has no such form "
                              "and refuses it")
    privacy.add_argument("--split", choices=SPLITS,
                         help="objective perturbation budget split (default max; docs/theory.md); a fit by "
                              "another mechanism takes none: --split is refused with it, whatever its value")
    _add_chunk_rows(privacy, "into a temporary memory-mapped file and fit it by row blocks")
    privacy.add_argument("--random-state", type=_seed("--random-state"), metavar="SEED",
                         help=f"seed of the noise, an integer from 0 to {SEED_MAX_TEXT}, for experiments only: a real "
                              "release must use the default, fresh operating-system entropy")
    fit.add_argument("--out", required=True, type=_output_path, metavar="MODEL.json",
                     help="where to write the model (a new file: an existing one is kept, unless --overwrite)")
    _add_overwrite(fit, "--out", " (checked before the fit: a refused fit spends nothing)")
    fit.set_defaults(command="fit")

    predict = commands.add_parser(
        "predict", help="predict labels, values or probabilities for a CSV or Parquet file with a saved model",
        formatter_class=raw,
        description=_text("Encode DATA with the model's saved public schema and write one row "
                          "per record: the predicted label (a binary classifier's at the decision cut its "
                          "file holds, that of dpcvx fit's --threshold), the decision value w^T x + b (a multiclass "
                          "model: the score of the predicted class) and, for a logistic model, the "
                          "probabilities of the estimators' predict_proba: 'probability:CLASS' of the "
                          "positive class (binary), of every class (multiclass, the softmax of the scores). "
                          "Other columns, the label column included, are ignored."),
        epilog="example:\n  dpcvx predict model.json new.csv --out predictions.csv",
    )
    predict.add_argument("model", type=_input_path, metavar="MODEL.json", help="a model written by dpcvx fit")
    predict.add_argument("data", type=_input_path, metavar="DATA",
                     help="CSV file (plain or .gz) with a header row, or --no-header and the column names; or a "
                          "Parquet file (a .parquet or .pq name)")
    _add_file_arguments(predict)
    predict.add_argument("--threshold", type=_threshold_value, metavar="T|prior",
                         help="a binary classifier's public decision threshold, as dpcvx fit's, in place of the "
                              "model file's (default: the file's, that of dpcvx fit's --threshold, else 0.5): predict "
                              "the positive class when its probability exceeds T in (0, 1), or 'prior': the rate of "
                              "the release's private class count (fit with --class-prior private)")
    _add_chunk_rows(predict, "and encode, score and write each chunk before reading the next (the same output as "
                             "a whole read)")
    predict.add_argument("--out", type=_output_path, metavar="PREDICTIONS.csv",
                         help="write the predictions here (default: standard output; an existing file is kept, "
                              "unless --overwrite)")
    _add_overwrite(predict, "--out")
    predict.set_defaults(command="predict")

    report = commands.add_parser(
        "report", help="write the plain-language privacy report of a saved model", formatter_class=raw,
        description=_text("Write the privacy report of MODEL.json for a reader who is not a privacy "
                          "expert: what was protected and under which neighbour relation, epsilon and "
                          "delta explained, the public inputs, what is not covered, the privacy curve, "
                          "and the theorems and constants for an auditor."),
        epilog="example:\n  dpcvx report model.json --out report.html",
    )
    report.add_argument("model", type=_input_path, metavar="MODEL.json",
                        help="a model written by dpcvx fit or dpcvx.save")
    report.add_argument("--out", type=_output_path, metavar="REPORT.md|REPORT.html",
                        help="write the report here, HTML for a .html name (default: Markdown on standard output; "
                             "an existing file is kept, unless --overwrite)")
    _add_overwrite(report, "--out")
    report.add_argument("--format", choices=("markdown", "html"), help="markdown or html (default: from --out)")
    report.add_argument("--embed-plot", action="store_true",
                        help="embed the plot of the privacy curve in Markdown, as an SVG data URI: one line of some "
                             "24,000 characters (default: a note says where it is; HTML always holds it)")
    report.set_defaults(command="report")
    return parser
