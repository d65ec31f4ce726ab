"""Input checks shared by every learner: typed errors that name the problem and the fix.

Inputs are never modified in place. A column-major float64 array is used as
it is (dpcvx only reads it); anything else is converted into a new one (the
solvers' matrix products are markedly faster in column-major order).

Every input check of dpcvx is here, one function per check: positive and
non-negative numbers (:func:`positive`, :func:`non_negative`), privacy
budgets (:func:`check_epsilon`, :func:`check_delta`), numbers in [0, 1]
(:func:`fraction`), integers and counts (:func:`is_integer`,
:func:`integer`, :func:`sample_size`, and :func:`parse_integer` for text:
command-line arguments, JSON files), matrices, labels, flags and choices.

Scalar parameters go through :func:`positive` (or :func:`check_epsilon`),
which refuses non-numbers (str, None, bool, complex), NaN, infinity and, by
default, numbers outside [``POSITIVE_MIN``, ``POSITIVE_MAX``]: subnormal
values, whose reciprocal overflows or which round to zero when halved, and
values above 1 / ``POSITIVE_MIN``. Callers state a tighter sane range with
``minimum=`` / ``maximum=``; ``MODERATE_MIN`` / ``MODERATE_MAX`` is a range
whose squares and reciprocals stay finite and normal.

A learner's declared parameters are checked once, at its public entry, from a table
``{parameter: check}`` in the manner of scikit-learn's ``_parameter_constraints``
(:func:`check_parameters`): each check is one of the functions here, called as
``check(name, value)``, or built from them by :func:`optional` (None or the check) and
:func:`or_literal` (a keyword such as "auto", or the check).
"""

from __future__ import annotations

import contextvars
import math
import numbers
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from functools import partial
from typing import Any, Literal, overload

import numpy as np
import scipy.sparse as sparse

from .advice import command_line_runs, named, setting
from .exceptions import InputError, InputTypeError, NumericRangeError, UnsupportedWeightsError, a_value_of, withheld
from .tables import (
    MISSING_TOKENS,
    NEAR_SPELLING,
    NonFiniteError,
    RowError,
    by_value,
    column_names,
    day_texts,
    declared_texts,
    finite_numbers,
    first_non_number,
    kept_spelling,
    non_finite_error,
    non_numeric_entry,
    own_types,
    plain_matrix,
    reading_key,
    refuse_kind,
    refuse_non_numbers,
    refuse_sparse_fill,
    shared_key,
    spelled_missing,
    spelled_timestamp,
    spelling_variants,
    such_rows,
    table_matrix,
)

__all__ = [
    "MISSING_CLASS",
    "check_callable",
    "class_labels",
    "label_vector",
    "declared_labels",
    "one_dimensional_labels",
    "outside_refusal",
    "not_two_dimensional",
    "check_shape",
    "finite",
    "number_text",
    "positive",
    "non_negative",
    "check_epsilon",
    "check_public_classes",
    "check_targets",
    "label_codes",
    "CLIPPED_END_SHARE",
    "clipped_ends",
    "released_ends",
    "narrow_range_advice",
    "target_values",
    "numeric_targets",
    "check_delta",
    "fraction",
    "integer",
    "is_integer",
    "parse_integer",
    "sample_size",
    "check_bound",
    "check_interval",
    "check_rows",
    "check_delta_for_n",
    "refuse_non_finite_targets",
    "width_refusal",
    "missing_refusal",
    "MISSING_ADVICE",
    "BOUND_MIN",
    "BOUND_MAX",
    "check_matrix",
    "check_table",
    "check_finite",
    "refuse_misread",
    "refuse_non_number_targets",
    "real_values",
    "check_labels",
    "SignBits",
    "one_vs_rest_signs",
    "outside_classes",
    "outside_head",
    "missing_labels",
    "check_classes",
    "scalar_label",
    "check_flag",
    "check_choice",
    "check_threshold",
    "check_lam",
    "Check",
    "check_parameters",
    "check_fields",
    "epsilon_value",
    "delta_value",
    "instance_of",
    "tuple_of",
    "optional",
    "or_literal",
    "POSITIVE_MIN",
    "POSITIVE_MAX",
    "MODERATE_MIN",
    "MODERATE_MAX",
    "EPSILON_MIN",
    "EPSILON_MAX",
    "LAM_MIN",
    "LAM_MAX",
]

# The smallest normal double and its reciprocal (about 2.2e-308 and 4.5e307): outside this
# range 1/x overflows or x/2 and x/4 lose their precision (5e-324 / 4 == 0).
POSITIVE_MIN = sys.float_info.min
POSITIVE_MAX = 1.0 / sys.float_info.min
# Squares, products of two and reciprocals of numbers in this range are finite and normal.
MODERATE_MIN = 1e-150
MODERATE_MAX = 1e150
# A privacy budget outside [1e-12, 1e6] is meaningless (1e-12: the noise swamps any signal;
# 1e6: no privacy) and makes the calibrations overflow or underflow (exp(eps), eps / 4).
EPSILON_MIN = 1e-12
EPSILON_MAX = 1e6


def _short(value: Any, limit: int = 60) -> str:
    """repr(value) for a message, cut to its head and tail beyond ``limit`` characters; an integer of more than
    ``limit`` digits by its number of digits (Python turns none of more than 4,300 digits into text)."""
    if isinstance(value, numbers.Integral) and abs(int(value)) >= 10**limit:
        number = abs(int(value))
        exponent = int(math.log10(number))  # to within one of the exact power of 10
        exponent += (number >= 10 ** (exponent + 1)) - (number < 10**exponent)
        return f"an integer of {exponent + 1} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 20] + "..." + text[-10:]


def number_text(number: float) -> str:
    """``number`` for a message: as ``:g`` writes it (six significant digits) when that reads back as the same double,
    else with the fewest more digits that do (at most 17), so a value just outside a range never reads as inside it
    (``:g`` wrote 1.0000001e6 as "1e+06", the end of [.., 1e6])."""
    for digits in range(6, 18):
        text = f"{number:.{digits}g}"
        if float(text) == number:
            # a subnormal reads back from fewer digits than it holds: repr's shortest text is what was written
            # (1e-320, where :g wrote 9.99989e-321)
            return repr(number) if len(repr(number)) < len(text) else text
    return repr(number)  # NaN and infinities read back unequal


def _real(name: str, value: Any, what: str, finite: str = "finite and positive") -> float:
    """value as a finite float, or an InputError naming ``name``: refuses str, None, bool, complex (saying it must
    be ``what``) and NaN or infinity (saying it must be ``finite``). A zero is +0.0 (-0.0 would reach a certificate
    and a file as "-0")."""
    if type(value) is float:  # the common case, without the ABC checks below (a calibration's many checks)
        if not math.isfinite(value):
            raise InputError(f"{named(name)} must be {finite}, got {value}")
        return value if value else 0.0  # the object itself (scikit-learn's clone compares by identity); -0.0 -> 0.0
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InputError(f"{name} must be {what}, got {_short(value)} ({a_value_of(value)}); pass an int or a float")
    try:
        number = float(value)
    except (OverflowError, ValueError, TypeError):
        raise InputError(f"{name} must be {what}, got {_short(value)}, which is beyond the float range") from None
    if not math.isfinite(number):
        raise InputError(f"{named(name)} must be {finite}, got {number}")
    return number if number else 0.0


def finite(name: str, value: Any) -> float:
    """value as a finite float (any sign): refuses str, None, bool, complex, NaN, infinity and numbers too large
    for a float, with the words of every number's check (a column's public bounds, an imputed value)."""
    return _real(name, value, "a finite number", "finite")


def positive(name: str, value: Any, *, minimum: float | None = None, maximum: float | None = None) -> float:
    """value as a float in [minimum, maximum] (default [POSITIVE_MIN, POSITIVE_MAX]), finite and > 0.

    Refuses str, None, bool, complex, NaN, infinity and numbers too large for a
    float. ``minimum`` / ``maximum`` state the sane range of a parameter whose
    downstream computations would overflow or underflow outside it.
    """
    number = _real(name, value, "a positive number")
    low = POSITIVE_MIN if minimum is None else float(minimum)
    high = POSITIVE_MAX if maximum is None else float(maximum)
    if not number > 0:
        raise InputError(f"{named(name)} must be finite and positive, got {number}")
    if not low <= number <= high:
        raise InputError(
            f"{named(name, number_text(number))} is outside the range [{number_text(low)}, {number_text(high)}] in "
            f"which dpcvx's computations stay finite and accurate; choose {named(name)} within it"
        )
    return number


def non_negative(name: str, value: Any) -> float:
    """value as a finite float >= 0 (a curvature bound c, say); refuses str, None, bool, complex, NaN."""
    number = _real(name, value, "a non-negative number", "finite and non-negative (>= 0)")
    if not number >= 0:
        raise InputError(f"{named(name)} must be finite and non-negative (>= 0), got {number}")
    return number


def check_callable(name: str, value: Any, signature: str) -> Callable[..., Any]:
    """``value``, a user's function (``signature`` says of what, for example "w -> CVXPY expression"): anything that
    is not callable is refused here, before any data is read, where the verifier met it only inside a fit."""
    if not callable(value):
        raise InputError(f"{name} must be a callable {signature}, got {_short(repr(value))} ({a_value_of(value)})")
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon", *, minimum: float = EPSILON_MIN,
                  maximum: float = EPSILON_MAX) -> float:
    """A privacy budget: a float in [EPSILON_MIN, EPSILON_MAX] = [1e-12, 1e6] by default.

    Tiny budgets (5e-324 / 4 rounds to 0) and huge ones (exp(eps) overflows,
    the noise scale 1/beta underflows) break the calibrations; neither is a
    meaningful privacy level.
    """
    return positive(name, epsilon, minimum=minimum, maximum=maximum)


def fraction(name: str, value: Any, *, allow_zero: bool = False, allow_one: bool = False) -> float:
    """A probability-like number in (0, 1), [0, 1), (0, 1] or [0, 1]: refuses str, None, bool, complex, NaN.

    For delta (``fraction("delta", delta, allow_zero=True)`` is [0, 1)), confidences and
    sampling fractions. A positive value below POSITIVE_MIN (subnormal) is refused too.
    """
    interval = ("[" if allow_zero else "(") + "0, 1" + ("]" if allow_one else ")")
    number = _real(name, value, f"a number in {interval}", f"a finite number in {interval}")
    low_ok = number > 0 or (allow_zero and number == 0)
    high_ok = number < 1 or (allow_one and number == 1)
    if not (low_ok and high_ok):
        raise InputError(f"{named(name)} must lie in {interval}, got {number}")
    if 0 < number < POSITIVE_MIN:
        raise InputError(f"{named(name, number_text(number))} is subnormal (below {number_text(POSITIVE_MIN)}); use "
                         f"{'0 or ' if allow_zero else ''}a larger value")
    return number


def check_delta(delta: Any, name: str = "delta", *, allow_zero: bool = True) -> float:
    """The delta of (epsilon, delta)-DP: a float in [0, 1) (0 for pure epsilon-DP), or (0, 1).

    ``allow_zero=False`` for a mechanism that needs delta > 0 (the Gaussian
    mechanism). Refuses str, None, bool, complex, NaN and subnormal values
    (see :func:`fraction`).
    """
    return fraction(name, delta, allow_zero=allow_zero)


#: A public bound (data_norm R, label_bound B, weight_bound W) lies in [1e-75, 1e75]: the calibrations multiply
#: up to four of them (R^2 B^2 in AdaSSP's sensitivities), which stay finite and normal there.
BOUND_MIN = 1e-75
BOUND_MAX = 1e75


def check_bound(name: str, value: Any) -> float:
    """A public bound (data_norm, label_bound, weight_bound) as a float in [BOUND_MIN, BOUND_MAX]."""
    return positive(name, value, minimum=BOUND_MIN, maximum=BOUND_MAX)


#: A regularization weight Lam lies in [1e-150, 1e150] (``MODERATE_MIN``, ``MODERATE_MAX``): the calibrations and
#: the noise warning square Lam's products with n, epsilon and the bounds (the l2-Laplace beta = n m Lam eps / (2 L R),
#: E||b||^2 = d (d + 1) / beta^2), which stay finite there. The library, the estimators, tune's grids (through
#: them) and the command line accept this range and no other (:func:`check_lam`).
LAM_MIN = MODERATE_MIN
LAM_MAX = MODERATE_MAX


def check_lam(name: str, value: Any, *, allow_zero: bool = False) -> float:
    """A numeric regularization weight Lam as a float in [LAM_MIN, LAM_MAX]; 0 too with ``allow_zero`` (AdaSSP's
    extra ridge, which may be none). Refuses str, None, bool, complex, NaN and infinity (:func:`positive`);
    the keyword "auto" is each learner's to accept."""
    if allow_zero and non_negative(name, value) == 0:
        return 0.0
    return positive(name, value, minimum=LAM_MIN, maximum=LAM_MAX)


def check_delta_for_n(delta: float, n: int, allow_large_delta: Any = False, name: str = "n") -> float:
    """Refuse a delta that is not below 1/n (n: the public number of records; ``name`` says which, "n_public" under
    add-remove, where the number of records is private and never shown) unless ``allow_large_delta``.

    The mechanism that publishes each record whole with probability delta is (0, delta)-DP; at delta >= 1/n
    it publishes a record in expectation. A release's delta must be well below 1/n (1/n^2 is common).
    """
    if delta * n >= 1 and not check_flag("allow_large_delta", allow_large_delta):
        raise InputError(f"{setting('delta', number_text(delta))} is not below 1/{name} = {1 / n:.3g} ({name} = {n}): "
                         "a mechanism that publishes each record whole with probability delta satisfies (0, delta)-DP, "
                         f"and at this delta it publishes about {delta * n:.3g} records in full. Choose delta well "
                         f"below 1/{name} (1/{name}^2 = {1 / n ** 2:.3g} is common), or pass "
                         f"{setting('allow_large_delta', 'True')} to accept it knowingly. Nothing was charged")
    return delta


def _integer_range(minimum: int | None, maximum: int | None) -> str:
    if minimum == 1 and maximum is None:
        return "a positive integer"
    if minimum is None:
        return "an integer" if maximum is None else f"an integer <= {maximum}"
    return f"an integer >= {minimum}" if maximum is None else f"an integer from {minimum} to {maximum}"


def is_integer(value: Any) -> bool:
    """Whether value is an integer (int, numpy integer): bool, floats and str are not."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def integer(name: str, value: Any, *, minimum: int | None = 1, maximum: int | None = None) -> int:
    """value as an int in [minimum, maximum] (default: >= 1, a count); refuses bool, floats, str."""
    number = int(value) if is_integer(value) else None
    if number is None or (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise InputError(f"{name} must be {_integer_range(minimum, maximum)}, got {_short(value)}")
    return number


_INT64_MAX = 2**63 - 1  # the largest size or index of an array


def sample_size(n: Any, name: str = "n") -> int:
    """n as an int >= 1: :func:`integer` with its default range, and at most 2^63 - 1, the largest size an array can
    have (numpy raised a bare ValueError for a count of 2^70)."""
    size = integer(name, n)
    if size > _INT64_MAX:
        raise InputError(f"{name}={_short(size)} is beyond 2^63 - 1, the largest size an array can have")
    return size


_PLAIN_INTEGER = re.compile(r"[+-]?[0-9]+")


def parse_integer(name: str, text: str, *, minimum: int | None = 1, maximum: int | None = None,
                  max_digits: int | None = None) -> int:
    """The integer written in ``text`` (a command-line argument, a JSON number), checked by :func:`integer`.

    ``max_digits`` refuses longer numbers before converting them (a guard
    against hostile input: converting a huge digit string costs quadratic time).
    Only ASCII digits with an optional sign are read: Python's int() also takes
    "1_0", surrounding spaces and other scripts' digits.
    """
    digits = len(text.strip().lstrip("+-"))
    if max_digits is not None and digits > max_digits:
        raise InputError(f"{name} must have at most {max_digits} digits, got an integer of {digits} digits")
    try:
        if not _PLAIN_INTEGER.fullmatch(text):
            raise ValueError(text)
        value = int(text)
    except ValueError:  # not an integer, or more digits than int() accepts
        raise InputError(f"{name} must be {_integer_range(minimum, maximum)}, got {_short(text)}") from None
    return integer(name, value, minimum=minimum, maximum=maximum)


def real_values(name: str, values: Any) -> np.ndarray:
    """values as a float64 array of real numbers (numbers of a numeric dtype, or objects that are numbers by the rule
    X follows, :func:`dpcvx.tables.is_number`: as a nullable pandas column gives them, a Decimal too); InputError
    naming ``name`` and the position of the first entry that is not one (text, however numeric it looks, None, a
    complex number, a numpy duration; never its value). numpy's float conversion read "1.5" as 1.5, dropped a complex
    entry's imaginary part, and raised a bare ValueError for other text, as numpy's array raises one for ragged rows
    (refused here as rows of different lengths)."""
    try:
        array = np.asarray(values)
    except ValueError:  # rows of different lengths ("inhomogeneous shape"), which numpy makes no array of
        raise InputError(f"{name} must hold real numbers in rows of one length: its rows differ in length") from None
    if array.dtype.kind in "biuf":
        return array.astype(np.float64, copy=False)
    culprit = first_non_number(array)
    if array.dtype.kind != "O" or culprit is not None:
        what = (f"entry {culprit} is {a_value_of(array.flat[culprit])} (its value is not shown: it is data)"
                if culprit is not None else f"its entries have dtype {array.dtype}")
        raise InputError(f"{name} must hold real numbers: {what}")
    try:
        return array.astype(np.float64)
    except (ValueError, OverflowError):  # an integer or a Decimal beyond the float range, a signalling NaN
        raise InputError(f"{name} must hold real numbers within the float range") from None


def check_finite(name: str, values: Any, fix: str = "") -> np.ndarray:
    """values as a float64 array of real numbers (:func:`real_values`); InputError naming ``name`` if any entry is
    NaN or infinite."""
    array = real_values(name, values)
    if not np.all(np.isfinite(array)):
        raise InputError(f"{name} has NaN or infinite entries{'; ' + fix if fix else ''}")
    return array


# Rows per block when a row-major array is converted: a block of both arrays stays in cache.
_BLOCK_ROWS = 1024
# Entries per block of rows that check_rows converts and checks: 2 MB of float64.
_CHECK_ENTRIES = 1 << 18

def _name_the_culprit(X: Any, name: str, error: Exception) -> InputError:
    """An InputError naming the first entry (and DataFrame column) that is not a real number; the
    conversion's own text is withheld (numpy's quotes the entry)."""
    return non_numeric_entry(X, name) or InputError(f"{name} must be a numeric 2-D array: converting it "
                                                    f"raised {withheld(error)}")


def _contiguous(X: Any, name: str = "X", spare_columns: int = 0) -> tuple[np.ndarray, bool]:
    """(X as a contiguous float64 array, whether that array is new): X itself when it already is one,
    column-major or row-major (the solvers read row-major rows by cache-sized row blocks, column-major
    ones by BLAS directly); a pandas DataFrame of plain numbers as the array pandas gives
    (:func:`dpcvx.tables.plain_matrix`, then as any array), any other table column by column
    (:func:`dpcvx.tables.table_matrix`); an
    array stored by columns (column-major, or a view of such an array's columns) of another dtype or not contiguous
    column-major, cast column by column; any other numeric array row-major, copied a block of rows at a time
    (:func:`_copied_by_rows`).

    A new array for a 2-D numeric input gets ``spare_columns`` more columns after X's (uninitialised; the
    result is the view of the first columns, its ``.base`` the whole buffer, row-major: the solvers read it by
    row blocks), so a caller appending columns (the intercept feature) does not copy the data twice (a table
    twice: filled column by column into a column-major array, whose strided writes into a row-major one cost
    five times as much at 200,000 x 119 in a one-off timing, then copied by blocks of rows).

    Row-major for a row-major source (float32, integers, a column slice of a row-major array): its rows are cast in
    the order they are stored, where a column-major copy wrote them strided, and the solvers then read the copy by
    row blocks. In a one-off timing of the copy (least of 3) at 20,000 x 1,000 from float32, 28 ms against 68 ms;
    at 300,000 x 500 162 ms against 377 ms; from a view of every second column, 45 ms against 67 ms.
    """
    if column_names(X) is not None:  # a pandas or polars DataFrame, a pyarrow Table
        plain = plain_matrix(X)  # a pandas frame of plain numbers at once: maybe its own memory, or a strided view
        if plain is None:
            table = table_matrix(X, name)  # column by column into a column-major array (fast); beside spare columns
            return (_copied_by_rows(table, spare_columns) if spare_columns else table), True  # row-major: one copy more
        X = plain  # then as any array: used as it is when contiguous float64 (never written), else converted
    refuse_misread(name, X)
    try:
        array = np.asarray(X)
    except (TypeError, ValueError) as error:  # ragged nested lists (numpy's text is not shown)
        raise InputError(f"{name} must be a numeric 2-D array with rows of equal length: numpy refused it "
                         f"with {withheld(error)}") from None
    refuse_kind(name, array.dtype)
    refuse_non_numbers(array, name)
    if array.dtype == np.float64 and (array.flags.f_contiguous or (array.ndim == 2 and array.flags.c_contiguous)):
        return array, False
    column_major = array.ndim == 2 and (array.flags.f_contiguous or abs(array.strides[0]) < abs(array.strides[1]))
    if array.ndim != 2 or array.dtype.kind not in "biuf" or (column_major and not spare_columns):
        try:
            converted = np.asarray(array, dtype=np.float64, order="F")
        except (TypeError, ValueError, OverflowError) as error:
            raise _name_the_culprit(X, name, error) from None
        return converted, not np.may_share_memory(converted, array)
    return _copied_by_rows(array, spare_columns), True


def _copied_by_rows(array: np.ndarray, spare_columns: int) -> np.ndarray:
    """A 2-D numeric array as a new row-major float64 one, copied a block of rows at a time (a strided source's
    reads stay in cache), with ``spare_columns`` more columns (the result the view of its first columns)."""
    buffer = np.empty((array.shape[0], array.shape[1] + spare_columns), dtype=np.float64)
    out = buffer[:, :array.shape[1]] if spare_columns else buffer
    for start in range(0, array.shape[0], _BLOCK_ROWS):
        out[start:start + _BLOCK_ROWS] = array[start:start + _BLOCK_ROWS]
    return out


def _converted(X: Any, name: str, spare_columns: int) -> tuple[np.ndarray | sparse.csr_matrix, bool]:
    """(X as a 2-D float64 array or CSR with a row and a column, whether it is new): every check of
    check_matrix but the finite one. A float64 CSR comes as a new CSR object over read-only views of the
    caller's arrays (see _csr), any other sparse X as a copy; see _contiguous for arrays."""
    if sparse.issparse(X):
        refuse_kind(name, X.dtype)
        if X.dtype.kind not in "biuf":
            raise InputError(f"{name} is a sparse matrix of dtype {X.dtype}; convert it to float64")
        matrix, fresh = _csr(X)
    else:
        try:
            matrix, fresh = _contiguous(X, name, spare_columns)
        except (TypeError, ValueError, OverflowError) as error:
            if isinstance(error, InputError):
                raise
            raise InputError(f"{name} must be a numeric 2-D array: converting it raised {withheld(error)}") from None
    check_shape(name, matrix.shape)
    return matrix, fresh


def check_shape(name: str, shape: tuple[int, ...], container: str | None = None) -> None:
    """The one refusal of a matrix ``name`` (X) by its shape alone, every entry's (PrivateERM, the kernel learners,
    the estimators, predict): not 2-D (:func:`not_two_dimensional`), or no row or no column. Its words hold
    scikit-learn's ("0 feature(s) (shape=(12, 0)) while a minimum of 1 is required", "Reshape your data"), which its
    conformance checks match. ``container``: what ``name`` is when it is no array (a pandas Series), named too."""
    if len(shape) != 2:
        raise not_two_dimensional(name, shape, container)
    for size, what in ((shape[0], "sample"), (shape[1], "feature")):
        if size == 0:
            raise InputError(f"{name} is empty: 0 {what}(s) (shape=({shape[0]}, {shape[1]})) while a minimum of 1 is "
                             "required; at least one row and one column are needed")


def width_refusal(name: str, width: int, expected: int, owner: str = "the model", *, after: str = "",
                  note: str = "") -> InputError:
    """The one refusal of rows ``name`` of ``width`` features where ``owner`` takes ``expected`` (``after``: where
    the width was counted, " after the feature map"; ``note``: why it takes that many), in scikit-learn's words,
    which the estimators' predict gives and its conformance checks match, at every entry: the estimators, their
    releases (after the feature map), the kernel learners and their releases, RandomFourierFeatures."""
    return InputError(f"{name} has {width} features{after}, but {owner} is expecting {expected} features as "
                      f"input{note}.")


def not_two_dimensional(name: str, shape: tuple[int, ...], container: str | None = None) -> InputError:
    """The one refusal of a matrix ``name`` (X) that is not 2-D, with the reshapes that make it so (``container``:
    the type of a ``name`` that is no array, named)."""
    got = f"a {container} of shape {shape}" if container else f"shape {shape}"
    return InputError(f"{name} must be 2-D (n samples x d features), got {got}. Reshape your data: "
                      f"{name}.reshape(-1, 1) if it has a single feature, or {name}.reshape(1, -1) if it is a single "
                      "sample")


def _csr(X: Any) -> tuple[sparse.csr_matrix, bool]:
    """(sparse X as a float64 CSR, whether it is a copy). A float64 CSR, in any form (indices unsorted,
    entries repeated), comes as a new CSR object over read-only views of its arrays: nothing is copied,
    its form is checked on that object, never taken from the caller's cached flags, and an in-place
    rewrite (scipy's sort_indices, sum_duplicates, eliminate_zeros, or a user's feature map) raises
    instead of changing the caller's arrays. Any other sparse X is copied."""
    if X.format != "csr" or X.dtype != np.float64:
        return sparse.csr_matrix(X, dtype=np.float64, copy=True), True
    return _read_only(X), False


def _read_only(X: Any) -> Any:
    """A read-only view of an array, or a new CSR object over read-only views of a CSR's arrays (the
    caller's own flags are left as they are)."""
    if sparse.issparse(X):
        return sparse.csr_matrix((_read_only(X.data), _read_only(X.indices), _read_only(X.indptr)), shape=X.shape)
    view = X.view()
    view.flags.writeable = False
    return view


def _checked_matrix(X: Any, name: str = "X", spare_columns: int = 0) -> tuple[np.ndarray | sparse.csr_matrix, bool]:
    """(check_matrix(X), whether the result is a new object dpcvx may write to); see _contiguous."""
    matrix, fresh = _converted(X, name, spare_columns)
    # one pass without a temporary: a finite sum means every entry is finite (NaN and inf
    # propagate); only an infinite or NaN sum (or an overflow) needs the elementwise check
    with np.errstate(over="ignore", invalid="ignore"):
        total_finite = np.isfinite(np.sum(matrix.data if sparse.issparse(matrix) else matrix))
    if not total_finite:
        refuse_non_finite(X, matrix, name)
    return matrix, fresh


def refuse_non_finite(X: Any, matrix: np.ndarray | sparse.csr_matrix, name: str = "X") -> None:
    """The one refusal of a NaN or infinite entry of a matrix: checked entry by entry, a NonFiniteError naming
    the first by its row and column (a table's column by its name). ``X`` is the input as given, ``matrix`` it
    as a 2-D array or CSR; a matrix of entries that are not numbers is left to the conversion's checks."""
    values = np.asarray(matrix.data if sparse.issparse(matrix) else matrix)
    if not np.issubdtype(values.dtype, np.number) or np.all(np.isfinite(values)):
        return
    i, j = _first_non_finite(X, matrix)
    raise non_finite_error(name, i, j, column_names(X))


def _first_non_finite(X: Any, matrix: np.ndarray | sparse.csr_matrix) -> tuple[int, int]:
    """(row, column) of the first NaN or infinite entry: in row-major order for an array; for sparse X in the
    storage order of X as a CSR, or of the checked matrix when only its summed duplicates overflowed."""
    if not sparse.issparse(matrix):
        i, j = np.argwhere(~np.isfinite(matrix))[0]
        return int(i), int(j)
    layout = sparse.csr_matrix(X, dtype=np.float64)
    if np.all(np.isfinite(layout.data)):  # only the checked matrix's summed duplicates overflowed
        layout = matrix
    coo = layout.tocoo()
    k = int(np.flatnonzero(~np.isfinite(coo.data))[0])
    return int(coo.row[k]), int(coo.col[k])


def check_matrix(X: Any, name: str = "X") -> np.ndarray | sparse.csr_matrix:
    """A finite 2-D column-major float64 array (the input itself when it already is one) or CSR.

    The result is only ever read, never written: every later step that changes
    values (clipping, the intercept column) builds a new array. A float64 CSR
    shares the caller's arrays through read-only views (a new CSR object, its
    form checked afresh); other sparse input is copied into a CSR.
    Bool entries are read as 0/1. Complex, datetime, timedelta, text and
    object entries that are not real numbers give an :class:`InputError`
    naming the column (for a DataFrame) and the fix.
    """
    return _checked_matrix(X, name)[0]


def check_table(X: Any, name: str = "X") -> None:
    """Refuse a table (pandas, polars, pyarrow) with a column that is not finite numbers (categorical, text, a NaN,
    missing or infinite entry), naming the column by its name (:func:`check_matrix`'s refusal), before another
    conversion (numpy's, scikit-learn's) turns the table into an array without names. One read of each column, and
    no copy of a table of finite numbers; any other input passes. A pandas table of sparse columns whose fill value
    is not 0 is refused first (:func:`~dpcvx.tables.refuse_sparse_fill`)."""
    refuse_sparse_fill(X)
    if column_names(X) is not None and not finite_numbers(X):
        check_matrix(X, name)


def check_rows(X: np.ndarray, name: str = "X", first: int = 0) -> None:
    """:func:`check_matrix`'s refusals of the rows of a 2-D numeric array X from row ``first`` on, read and converted
    a block of rows (about 2 MB of float64) at a time, so that a memmap of another dtype or memory order is never
    copied whole: a NaN or infinite entry is named by its row in the whole of X, the first in row-major order, as
    check_matrix names it."""
    step = max(1, _CHECK_ENTRIES // max(X.shape[1], 1))
    for start in range(first, X.shape[0], step):
        try:
            check_matrix(X[start:start + step], name)
        except NonFiniteError as error:
            raise non_finite_error(name, start + error.row, error.column) from None


def check_classes(classes: Any, saved: bool = False) -> tuple:
    """The public pair (negative, positive) of label values (:func:`check_public_classes`, of two)."""
    _refuse_unordered(classes)
    try:
        negative, positive_label = classes
    except (TypeError, ValueError):
        raise InputError(f"classes must be a pair (negative, positive), got {classes!r}") from None
    _refuse_unmatchable_classes((negative, positive_label), classes)
    _refuse_repeated_classes((negative, positive_label), classes, saved)
    return negative, positive_label


def check_public_classes(classes: Any) -> tuple:
    """The public class set: an ordered sequence of at least two distinct labels (never read off the data), no two
    of which share a reading key (:func:`_refuse_repeated_classes`)."""
    _refuse_unordered(classes)
    values = tuple(value.item() if isinstance(value, np.generic) else value for value in classes)
    if len(values) < 2:
        raise InputError(f"classes must name at least two public classes, got {classes!r}")
    _refuse_unmatchable_classes(values, classes)
    _refuse_repeated_classes(values, classes)
    return values


def _refuse_repeated_classes(values: tuple, classes: Any, saved: bool = False) -> None:
    """The one refusal of a class declared twice, for a pair and a class set alike: an equal value (classes=(1, 1)),
    or two that share a reading key (:func:`dpcvx.tables.shared_key`: "1" and "1.0", "1" and "true", "7" and "07"),
    since a label is read by its value (:func:`declared_labels`) and one of that value would be both. Refused when
    declared, before any data is read or any budget charged; a model file's classes (``saved``: fitted before this
    refusal) are kept, a key two of them share then read as neither. A class that spells a missing value ("NA",
    "NaN", "null": :func:`dpcvx.tables.spelled_missing`) is refused likewise (a saved one kept): a reader may read
    such a label as a missing one, pyarrow in a column of codes until one record is text, so one record decided
    whether the fit was refused (an attacker probe, session 65)."""
    if len(set(values)) != len(values):
        raise InputError(f"classes must be distinct values, got {classes!r}")
    shared = None if saved else shared_key([value] for value in values)
    if shared is not None:
        raise InputError(f"classes {shared[0]!r} and {shared[1]!r} are one value, and a label is read by its value "
                         "(a table's 1, 1.0, 01, true and True are one label, whichever type its reader gave the "
                         f"column): declare one of them, got {classes!r}"
                         + kept_spelling(shared[0], shared[1], "labels"))
    null = None if saved else spelled_missing(values)
    if null is not None:
        raise InputError(f"class {null!r} {MISSING_CLASS}, got {classes!r}")
    timed = None if saved else spelled_timestamp(values)
    if timed is not None:  # a reader types such labels timestamps or times (dpcvx.tables.declared_days)
        raise InputError(f"class {timed}, got {classes!r}")


#: Why a declared class (or a command-line label) that spells a missing value is refused, and the fix
MISSING_CLASS = ("spells a missing value, which a table's reader may read as one (pandas' read_csv, pyarrow in a "
                 "column of codes until one record is text), so whether a label is this class would depend on the "
                 "reader and the other records: write the class another way in the data and the declaration (for "
                 "example 'N/A' as 'unknown', 'NA' as 'North America')")


def _refuse_unordered(classes: Any) -> None:
    """Refuse classes that are not an ordered sequence: a str, a set, a dict or its keys (a set's order is not
    fixed, and the order decides the positive class and the model's columns)."""
    if isinstance(classes, (str, bytes, AbstractSet, Mapping)) or not hasattr(classes, "__iter__"):
        raise InputError(f"classes must be an ordered sequence (a tuple or list) of the public class labels, got "
                         f"{classes!r}; a set has no fixed order, and the order decides the positive class and the "
                         "model's columns")


def scalar_label(value: Any) -> str | int | float | None:
    """A class label as the Python scalar it holds (a numpy scalar unwrapped; a bool is an int), or None when it is
    not a string or a number (a tuple, a list, None, bytes, a complex): the one rule of what a label may be, for a
    fit's declared classes and a model file's."""
    plain = value.item() if isinstance(value, np.generic) else value
    return plain if isinstance(plain, (str, int, float)) else None


def _refuse_unmatchable_classes(values: tuple, classes: Any) -> None:
    """Refuse a declared class that is not a string or a number (a tuple, a list, None, ...: a model file holds
    labels that are strings or numbers, and a label array of tuples is 2-D), and one no label can be told apart by:
    NaN (equal to no label), and True or False beside numbers (True == 1 and False == 0, so the label 1 would be the
    class True)."""
    for value in values:
        if scalar_label(value) is None:
            raise InputError(f"class label {value!r} is not a string or a number: classes must be strings or numbers "
                             f"(the labels a model file holds), got {classes!r}; encode each class as one")
    if any(isinstance(value, float) and math.isnan(value) for value in values):
        raise InputError(f"classes holds NaN, which no label equals; declare the classes as numbers or strings, "
                         f"got {classes!r}")
    flags = [isinstance(value, bool) for value in values]
    if any(flags) and not all(flags) and any(isinstance(value, numbers.Number) for value in values
                                             if not isinstance(value, bool)):
        raise InputError(f"classes mixes True/False with numbers, which they equal (True == 1, False == 0); declare "
                         f"them all as numbers or all as bools, got {classes!r}")
    if len({isinstance(value, str) for value in values}) > 1:
        raise InputError(f"classes mixes strings and numbers, which one label array cannot hold (numpy makes the "
                         f"numbers strings: a prediction 0 would come back as '0'); declare them all as strings or all "
                         f"as numbers, got {classes!r}")


TASKS = ("classification", "regression")


def refuse_misread(name: str, values: Any, labels: bool = False) -> None:
    """Refuse a container that numpy's and scikit-learn's conversions misread, X or y (the one check, before any
    conversion): a masked array with masked (missing) entries, whose values under the mask they read as data; an
    iterator (a generator, a map), which numpy reads as one object and which can be read once only; and, for labels,
    a sparse matrix (one label a row is a dense vector)."""
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        raise InputError(f"{name} is a masked array with masked (missing) entries; impute them with a public "
                         f"rule or drop those records first ({name}.filled(value) fills them)")
    if isinstance(values, Iterator):
        raise InputError(f"{name} is an iterator ({type(values).__name__}), which can be read once only; pass a list "
                         f"or an array (list({name}) or np.array(list({name})))")
    if labels and sparse.issparse(values):
        raise InputError(f"{name} is a sparse matrix; labels are one value a row: pass a dense 1-D array "
                         f"({name}.toarray().ravel())")


def refuse_complex_and_time(name: str, array: np.ndarray, must: str) -> None:
    """Refuse a column of complex numbers (a float conversion drops the imaginary part; ``1+0j == 1``, so a label
    compared with a class would pass as it), or of dates or durations (a datetime64 or timedelta64 dtype, which numpy
    reads as a count of its units), by the column's dtype, a public fact of its type: the one check of targets'
    (:func:`refuse_non_number_targets`) and labels' (:func:`label_vector`) kinds, before anything is charged.
    ``must`` says what the values must be."""
    if array.dtype.kind == "c":
        # scikit-learn's words first (its check_estimator's check_complex_data looks for them)
        raise InputError(f"Complex data not supported: {name} has dtype {array.dtype}, and {must}")
    if array.dtype.kind in "Mm":
        refuse_kind(name, array.dtype)


def refuse_non_number_targets(name: str, values: Any) -> None:
    """Refuse regression targets that are not numbers, as X's entries are refused
    (:func:`dpcvx.tables.refuse_non_numbers`): masked entries (:func:`refuse_misread`), complex numbers (whose
    imaginary part a float conversion drops), dates and durations (a datetime64 or timedelta64 dtype, or such entries
    among objects), which numpy reads as a count of their units, and text, which numpy's and scikit-learn's float
    conversions read as numbers when it looks like one ("1.5")."""
    refuse_misread(name, values, labels=True)
    array = own_types(values, name)  # a list's one text never makes its numbers text (the refusal names that entry)
    refuse_complex_and_time(name, array, "regression targets must be real numbers")
    if array.dtype == object and array.ndim == 1:  # None or pandas' NA among the targets: a missing target, refused
        _refuse_targets(array, missing_labels)     # as a NaN one is (:func:`refuse_non_finite_targets`)
    refuse_non_numbers(array, name)


def label_vector(y: Any, n: int, classes: Sequence[Any] | None = None) -> np.ndarray | SignBits:
    """y as a 1-D array of n labels (a column vector (n, 1) is flattened), or labels held as bits as they are
    (:class:`SignBits`, read a part at a time); InputError naming the shapes otherwise: a row (1, n) is refused, as
    the estimators (scikit-learn's ``column_or_1d``) refuse it, in their words (:func:`one_dimensional_labels`).

    Given the PUBLIC ``classes``, each label is read by its value (:func:`declared_labels`): "1.0", "01", "true",
    True or Decimal("1") is the class 1 (or "1"), whatever type its reader gave the whole column, so that every
    entry's labels, checked here once, reach the fit, the score and the owner's notes spelled as the classes. A date
    or a timestamp at midnight without a timezone, is its day's ISO text, and a timestamp with a time of day is
    refused by its row (:func:`dpcvx.tables.day_texts`), as a schema's category reads it."""
    if y is None:
        raise InputError("y is missing (None): pass the labels, one per row of X")
    if isinstance(y, SignBits):
        labels: np.ndarray | SignBits = y
    else:
        refuse_misread("y", y, labels=True)
        labels = day_texts(one_dimensional_labels(own_types(y)), what="y")  # a date, a midnight timestamp: its day
        # complex, date and duration labels refused by kind at every entry (PrivateERM compared 1+0j with the
        # class 1 and released where DPLogisticRegression refused; both took a timedelta64 0/1 column as the classes)
        refuse_complex_and_time("y", labels, "regression targets must be real numbers, labels numbers or text")
        if classes is not None:
            labels = declared_labels(labels, classes, days=False)  # (its days read above)
    if labels.shape[0] != n:
        raise InputError(f"X has {n} rows but y has {labels.shape[0]} labels")
    return labels


def declared_labels(labels: np.ndarray, classes: Sequence[Any], days: bool = True) -> np.ndarray:
    """``labels`` (1-D) read against the PUBLIC ``classes`` by value (:func:`dpcvx.tables.by_value`): a label that
    is a class stays; one that is no class but stands for the number of exactly one class ("1.0", "01", " 1",
    "true", True, Decimal("1") for 1 or "1": :func:`dpcvx.tables.reading_key`) is that class; any other stays, for
    the refusal of labels outside the classes; a date of a day's unit is its ISO text first
    (:func:`dpcvx.tables.day_texts`: pyarrow types a column of ISO dates date32 until one label is other text).
    ``labels`` itself when every label is a class (compared
    ``LABEL_CHUNK`` at a time, :func:`outside_classes`): a release on labels that were classes is unchanged. The
    one reading of labels at every entry that takes them against declared classes (PrivateERM, the estimators,
    PrivateMulticlassERM, tune, the kernel learners, a release's score); classes that share a key were refused when
    declared (:func:`_refuse_repeated_classes`; a model file saved
    before keeps them: a key two of its classes share reads as neither). ``days`` False: the caller has read the
    dates already (:func:`label_vector`; a second look at every label's type cost as much as the rest)."""
    if days:
        labels = day_texts(labels, what="y")
    if outside_classes(labels, classes) is None:
        return labels
    labels = declared_texts(labels, classes)
    keys = [reading_key(label) for label in classes]
    unique = [label for label, key in zip(classes, keys, strict=True) if key is None or keys.count(key) == 1]
    return by_value(labels, unique)


def one_dimensional_labels(y: np.ndarray) -> np.ndarray:
    """y flattened when it is a column (n, 1), as scikit-learn's ``column_or_1d`` flattens it; any other shape but 1-D
    (a row (1, n), a matrix, a scalar) refused in its words, at every entry (the estimators, the learners, ``score``,
    :func:`dpcvx.tune`)."""
    if y.ndim == 2 and y.shape[1] == 1:
        return y.ravel()
    if y.ndim != 1:
        raise InputError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    return y


def check_targets(y: Any, n: int, label_bound: float,
                  refuse: bool) -> tuple[np.ndarray, int, tuple[float, ...]]:
    """Regression targets clipped to the PUBLIC [-B, B] (or refused), how many were clipped
    (:func:`target_values`): into a new array, or into the float copy that made (one n-vector); and the clipped
    values that look like a code for a missing value (:func:`label_codes`, read before clipping; for the owner's
    :func:`label_clipping_note` only)."""
    values, copied, outside = target_values(y, n, label_bound, refuse)
    codes = label_codes(values, label_bound) if outside else ()
    return np.clip(values, -label_bound, label_bound, out=values if copied else None), outside, codes


def label_codes(values: np.ndarray, label_bound: float | None = None) -> tuple[float, ...]:
    """The values at the top and bottom ends of the 1-D labels ``values`` that look like a code for a missing or
    unknown value rather than a label: the largest (least) value, held by at least two rows and at most half of
    them, lying at least as far beyond the labels between the two ends as those spread (999 over scores in
    [0, 100]: 899 beyond a spread of 100; with a code at either end, each read against the labels between them).
    With ``label_bound`` B, only such values with |value| > B (the ones clipping moved). A statistic of the private
    labels: it only words the owner's NOT PRIVATE notes (:func:`label_clipping_note`,
    :func:`dpcvx.models.training_rows.regression_finding`), never a release. Read ``LABEL_CHUNK`` values at a time
    (no n-vector of temporaries)."""
    low, high = _extremes(values, [])
    if not low < high:
        return ()
    rest_low, rest_high = _extremes(values, [high, low])  # the labels between the two ends
    if not rest_low < rest_high:
        return ()
    codes = []
    for end, gap in ((high, high - rest_high), (low, rest_low - low)):
        count, _ = _counted(values, partial(np.equal, end))
        if 2 <= count <= values.shape[0] / 2 and gap >= rest_high - rest_low:
            codes.append(end)
    return tuple(code for code in codes if label_bound is None or abs(code) > label_bound)


def _extremes(values: np.ndarray, excluded: list[float]) -> tuple[float, float]:
    """(the least, the largest) of ``values`` other than ``excluded`` ((inf, -inf) for none), a chunk at a time."""
    low, high = math.inf, -math.inf
    for start in range(0, values.shape[0], LABEL_CHUNK):
        part = values[start:start + LABEL_CHUNK]
        if excluded:
            part = part[~np.isin(part, excluded)]
        if part.size:
            low, high = min(low, float(part.min())), max(high, float(part.max()))
    return low, high


def target_values(y: Any, n: int, label_bound: float, refuse: bool) -> tuple[np.ndarray, bool, int]:
    """(the regression targets as float64, whether that is a copy made here, how many lie outside the PUBLIC
    [-B, B]), checked: finite, and none outside with ``refuse`` (clip=False). float64 targets are the caller's
    array, never changed; a reader by blocks clips each block's part (:mod:`dpcvx.models.linear_regression`).

    B is never read off the data. The count is for the data owner only (it is
    computed on the private data and never part of a release).
    """
    values, copied = numeric_targets(y, n)
    outside, first = _counted(values, lambda part: np.abs(part) > label_bound)
    if refuse and outside:
        raise InputError(f"y has {outside} values with |y| > label_bound = {label_bound:g} (first at row "
                         f"{first}) and clip=False; use clip=True to clip them onto "
                         f"[-B, B], or a larger PUBLIC bound (never one read off the data)")
    return values, copied, outside


def numeric_targets(y: Any, n: int) -> tuple[np.ndarray, bool]:
    """(the n regression targets as float64, whether that is a copy made here), checked: numbers (no text, date,
    duration or complex: :func:`refuse_non_number_targets`) and finite. The one read of a regressor's y, the
    learners' (:func:`target_values`) and :func:`dpcvx.tune`'s before its charge: tune scored, and told the owner of,
    the targets as given after the charge, where a boolean or Decimal column, which every regressor's fit reads as
    floats, raised numpy's TypeError with the budget spent."""
    labels = label_vector(y, n)
    refuse_non_number_targets("y", labels)
    try:
        values = np.asarray(labels, dtype=float)
    except (TypeError, ValueError):
        raise InputError("regression targets y must be numbers") from None
    refuse_non_finite_targets(values)
    return values, values is not labels


def _counted(values: np.ndarray, test: Callable[[np.ndarray], np.ndarray]) -> tuple[int, int | None]:
    """(how many of the 1-D ``values`` pass ``test``, the first that does or None), tested ``LABEL_CHUNK`` values at a
    time: the temporaries weigh a chunk, not n (a memmap regression's fit held an |y| n-vector and two boolean ones,
    1.25 of the file's 8 bytes a row at one column)."""
    count, first = 0, None
    for start in range(0, values.shape[0], LABEL_CHUNK):
        hits = test(values[start:start + LABEL_CHUNK])
        found = int(np.count_nonzero(hits))
        if found and first is None:
            first = start + int(np.flatnonzero(hits)[0])
        count += found
    return count, first


def refuse_non_finite_targets(values: np.ndarray) -> None:
    """The one refusal of a NaN, missing or infinite regression target, naming its row."""
    _refuse_targets(values, lambda part: ~np.isfinite(part))


def _refuse_targets(values: np.ndarray, test: Callable[[np.ndarray], np.ndarray]) -> None:
    """:func:`refuse_non_finite_targets`' refusal of the targets that ``test`` finds (NaN or infinite floats, or
    missing entries among objects), counted and the first placed."""
    bad, first = _counted(values, test)
    if bad and first is not None:
        raise missing_refusal("y", bad, first, "NaN, missing or infinite values")


def missing_refusal(name: str, count: int, first: int, kinds: str = "NaN or missing values",
                    rows_note: str = "") -> RowError:
    """The one refusal of missing values among labels or targets (``count`` of them, the first at row ``first``;
    ``kinds``: what is missing, a regression's infinite target too), counted and placed, never shown, at every
    entry: a regression's target, a classifier's or kernel learner's label (:func:`outside_labels`), an audit's, and
    the command line's label column (``name`` the file and column, ``rows_note`` how its rows count; a
    :class:`~dpcvx.tables.RowError`, so a chunked read renumbers the row within the whole file).

    Its advice offers both fixes with what each costs, neither free. A public rule (a constant label) is a function
    of the record alone: replace-one neighbours stay neighbours and n is kept, so the guarantee covers the records
    as they came (docs/datasets.md: "a public rule, never a dropped record"); but an invented label is label noise,
    biasing the model toward it in proportion to the share imputed. Removing the records is what statistics usually
    does with a missing outcome; but n is public under replace-one (docs/theory.md, section 9), so the n released
    then tells how many records had no label, and the guarantee covers the records kept."""
    return RowError(f"{name} holds {kinds}, first at row ", first,
                    f"{rows_note and ' ' + rows_note} {such_rows(count)}; {MISSING_ADVICE}")


#: The advice of :func:`missing_refusal`: both fixes and the cost of each.
MISSING_ADVICE = ("remove them or impute them with a public rule first: removing them changes the public n, which then "
                  "tells how many there were; an imputed constant biases the model toward it")


#: The fix of labels that are a declared class but for letter case, surrounding spaces or punctuation
#: (:data:`~dpcvx.tables.NEAR_SPELLING`; :func:`near_miss_note`): Python's y, and a data file's label column (the
#: command line's)
NORMALISE_Y = ("normalise y first: a label map from each spelling to its class, y.map({...}), or for example "
               "y.str.strip().str.rstrip('.').str.lower() with the classes in lower case")
NORMALISE_FILE = ("normalise the column in the file first (one letter case, no surrounding spaces, quotes or trailing "
                  "'.') and declare each class in that spelling; listing the other spellings as classes would make "
                  "each a class of its own")


def near_miss_note(labels: np.ndarray, declared: Sequence[Any], what: str, fix: str) -> str:
    """' (k of them differ from <what> only in <NEAR_SPELLING>: <fix>)' for the ``labels`` outside
    the ``declared`` ones that are a declared text but for those (:func:`dpcvx.tables.spelling_variants`, the one
    check of a near spelling); '' when none is. The one wording of such labels, in Python's refusal
    (:func:`outside_labels`) and the command line's (--classes, --positive and --negative): the CLI told a file's
    "agree" against --classes Agree to list every class, which would have made "agree" a class of its own (a
    sixty-sixth session probe). A count, never a value: a refusal may be logged where a warning to the data owner
    is not."""
    variants = int(np.count_nonzero(spelling_variants(labels, declared)))
    return f" ({variants} of them differ from {what} only in {NEAR_SPELLING}: {fix})" if variants \
        else ""


def outside_labels(outside: np.ndarray, labels: Any, classes: Sequence[Any]) -> str:
    """'k label(s) (the first at row i; values withheld: they are data)': counts and positions only, and how many
    of them are a declared class but for letter case, surrounding spaces or punctuation
    (:func:`dpcvx.tables.spelling_variants`),
    with its fix (a label that stands for a declared class's number, "1.0" for 1, is that class: every entry reads
    labels by value, :func:`declared_labels`, before this refusal). A missing
    label among them (:func:`missing_labels`) is no label outside the classes: it is refused first, in the one
    wording of a missing label or target (:func:`missing_refusal`); so is the text '' or '?' outside the classes
    (``MISSING_TOKENS``), as the command line refuses an empty or '?' label cell its --positive and --negative do
    not name: a record without a label, not a third class."""
    values = np.asarray(labels)[outside]
    tokens = np.fromiter((isinstance(value, str) and value in MISSING_TOKENS for value in values.ravel()), dtype=bool,
                         count=values.size).reshape(values.shape) if values.dtype.kind in "OUS" else None
    missing = missing_labels(values) if tokens is None else missing_labels(values) | tokens
    if missing.any():
        kinds = "NaN or missing values" + (" ('' or '?', unless classes= declares it)" if tokens is not None
                                           and tokens.any() else "")
        raise missing_refusal("y", int(np.count_nonzero(missing)), int(np.flatnonzero(outside)[np.argmax(missing)]),
                              kinds)
    case = near_miss_note(values, classes, "a declared class", NORMALISE_Y)
    return (f"{int(np.count_nonzero(outside))} label(s), the first at row {int(np.flatnonzero(outside)[0])} "
            f"(their values are not shown: they are data){case},")


def missing_labels(values: np.ndarray) -> np.ndarray:
    """Which labels are missing values: NaN, None, or a table's missing value (pandas' NA and NaT, numpy's NaT)."""
    if values.dtype.kind in "fc":
        return np.isnan(values)
    if values.dtype.kind in "mM":
        return np.isnat(values)
    if values.dtype.kind != "O":
        return np.zeros(values.shape, dtype=bool)
    return np.fromiter((value is None or (isinstance(value, (float, np.floating)) and value != value)
                        or type(value).__name__ in ("NAType", "NaTType") for value in values.ravel()),
                       dtype=bool, count=values.size).reshape(values.shape)


def check_interval(name: str, lo: float, hi: float, *, allow_equal: bool = False) -> tuple[float, float]:
    """A public range (lo, hi) whose ends are checked numbers: InputError unless lo < hi (lo <= hi with
    ``allow_equal``, a range of one point), in one wording for every public range (a column's bounds,
    ``label_bound=(lo, hi)``, ``norm_range``, ``fit_private_norm``'s r_min and r_max)."""
    if not (lo <= hi if allow_equal else lo < hi):
        order = "lo <= hi" if allow_equal else "lo < hi"
        raise InputError(f"{name} = ({number_text(lo)}, {number_text(hi)}) is reversed or empty: a public range "
                         f"(lo, hi) needs {order}; give its lower end first")
    return lo, hi


def label_range(label_bound: Any) -> tuple[float, float]:
    """(public shift c, half-width B) of a label bound: B gives (0, B), |y| <= B; a pair (lo, hi) gives
    ((lo + hi) / 2, (hi - lo) / 2), so that lo <= y <= hi is |y - c| <= B. Both are public declarations."""
    if isinstance(label_bound, (tuple, list)):
        if len(label_bound) != 2:
            raise InputError(f"label_bound must be a number B (|y| <= B) or a pair (lo, hi), got "
                             f"{len(label_bound)} values")
        lo, hi = (_real(f"label_bound {name}", value, "a finite number", "finite")
                  for name, value in zip(("lo", "hi"), label_bound, strict=True))
        check_interval("label_bound", lo, hi)
        return (lo + hi) / 2, check_bound("label_bound half-width (hi - lo) / 2", (hi - lo) / 2)
    return 0.0, check_bound("label_bound", label_bound)


#: Why a learner without a weighted calibration refuses weights, and which learners take them.
UNIT_WEIGHTS = ("its noise is calibrated for unit weights. Weights are taken by the binary linear learners "
                "(PrivateERM, DPLogisticRegression, DPHuberSVM, DPERMClassifier, DPHuberRegressor; "
                "PrivateMulticlassERM over such a PrivateERM) with a PUBLIC "
                "bound sample_weight_bound=w_max >= every weight, which multiplies the Lipschitz constant L and the "
                "curvature bound c by w_max (docs/theory.md, section 'Sample and class weights')")


def refuse_weights(owner: str, why: str = UNIT_WEIGHTS, **weights: Any) -> None:
    """Refuse ``sample_weight`` / ``class_weight`` other than None where a learner (or, ``why`` says, a fit of
    it) has no weighted calibration."""
    given = [name for name, value in weights.items() if value is not None]
    if given:
        raise UnsupportedWeightsError(f"{owner} does not take {' or '.join(given)}: {why}. Nothing was charged")


#: The public label range (lo, hi) the user declared to the fit running (:func:`declared_label_range`), None when B was
#: declared (|y| <= B) or no fit declared one
_LABEL_RANGE: contextvars.ContextVar[tuple[float, float] | None] = contextvars.ContextVar("dpcvx_label_range",
                                                                                        default=None)


@contextmanager
def public_arithmetic(**public: Any) -> Iterator[None]:
    """Within this block (a calibration: public numbers only, before any charge) an OverflowError or a
    ZeroDivisionError is a :class:`~dpcvx.exceptions.NumericRangeError` naming the ``public`` values: Python's float
    arithmetic raises those where the constants and the noise of extreme parameters (R = 1e20 with lam = 1e-150) leave
    the double range, and every entry point, not only the command line, says so in the library's own error."""
    try:
        yield
    except (OverflowError, ZeroDivisionError) as error:
        given = ", ".join(f"{name} = {value:g}" if isinstance(value, (int, float)) else f"{name} = {value}"
                          for name, value in public.items())
        raise NumericRangeError(f"the public parameters ({given}) are too extreme to compute the constants and the "
                                f"noise in floating point ({type(error).__name__}: {error}); use moderate values (a "
                                "loss divided by a public constant k, with lam divided by k, has the same minimiser); "
                                "nothing was charged") from None


@contextmanager
def declared_label_range(label_bound: Any) -> Iterator[None]:
    """Within this block a regression's clipping warning (:func:`label_clipping_note`) speaks of the range
    ``label_bound`` = (lo, hi) the user declared (an estimator fits y - (lo + hi) / 2 within [-B, B], B = (hi - lo) /
    2: its learner sees only the centred labels and B); a bound B, or "private", changes nothing."""
    declared = (tuple(label_range(label_bound)) if isinstance(label_bound, (tuple, list)) else None)
    token = _LABEL_RANGE.set(None if declared is None else (declared[0] - declared[1], declared[0] + declared[1]))
    try:
        yield
    finally:
        _LABEL_RANGE.reset(token)


def label_clipping_note(clipped: int, n: int, label_bound: float, codes: tuple[float, ...] = ()) -> str:
    """The ClippingWarning text for regression labels: the count (owner only) and the fix, a public bound; in the
    terms the user declared the bound in (:func:`declared_label_range`). ``codes``: clipped values that look like a
    code for a missing value (:func:`label_codes`, in the fit's frame [-B, B]), named first by their end (the
    largest or least label; a value is data, never shown) with their own fix: a
    score in [0, 100] with 4 % of its labels at the code 999 was told only to declare a range holding every label,
    and declared (0, 999), its model (R^2 0.77 on the rows with real labels, the non-private 0.78) was then called
    useless on its training rows, the code never named."""
    declared = _LABEL_RANGE.get()
    shown = "NOT PRIVATE: this count is shown to you only and is not part of the release. Fix: "
    ends = " and ".join(f"the {'largest' if value > 0 else 'least'} label" for value in codes)
    code = ("" if not codes else
            f"Among them {ends} {'repeats' if len(codes) == 1 else 'repeat'} on several rows, far beyond the other "
            "labels (its value is not shown: it is data): if it is a code for a missing or unknown value (such as "
            "999 or -1), drop those rows or read it as missing before the fit (a range widened to hold a code fits "
            "the code as a label). ")
    if declared is not None:
        return (f"{clipped} of {n} labels lay outside the declared range [lo, hi] = [{declared[0]:g}, "
                f"{declared[1]:g}] and were clipped onto it. {code}{shown}declare a range that holds every label the "
                "target can take, known without looking at the data (a unit, a scale's documented limits), as "
                f"{setting('label_bound', '(lo, hi)', 'LO,HI')}; the noise grows with its width hi - lo")
    return (f"{clipped} of {n} labels had |y| > B = {label_bound:g} and were clipped onto [-B, B]. {code}{shown}"
            "declare the range your labels can take, known without looking at the data (a unit, a scale's documented "
            f"limits), as {setting('label_bound', 'B')} for |y| <= B or"
            + ("" if command_line_runs() else ", with the estimators,")  # the command line centres every fit's
            + f" {setting('label_bound', '(lo, hi)', 'LO,HI')} for lo <= y <= hi (centred by the public shift "
            "(lo + hi) / 2); the noise grows with B")


#: A declared label range (lo, hi) is too narrow for the training labels when more than this share of them lay beyond
#: one of its ends and were clipped onto it (:func:`clipped_ends`). It is the tail of the 10 % and 90 % points by which
#: :func:`dpcvx.models.training_rows.label_range_too_wide` reads how much of the range the labels fill: beyond this
#: share at an end, that point is the end itself, a clipped value, and the narrow spread it gives is the clipping's,
#: not the labels' (an analyst probe, session 63: prices of mean about 1,000 declared (0, 500), 95 to 98 % of the labels
#: clipped onto 500, were told "Declare a narrower public label_bound" in 4 of 5 fits while the ClippingWarning of the
#: same fit said to declare a range that holds every label).
CLIPPED_END_SHARE = 0.1


def clipped_ends(labels: np.ndarray, label_range: tuple[float, float] | None) -> tuple[str, ...]:
    """The ends ("lower", "upper", in that order) of the declared ``label_range`` (lo, hi) beyond which more than
    :data:`CLIPPED_END_SHARE` of the training ``labels`` (1-D) lay (y < lo, y > hi: the labels the ClippingWarning
    counts); () for none, no range or no labels. Labels that share a value beyond an end and look like a code for a
    missing value (:func:`label_codes`) are not counted: the ClippingWarning names the code and its own fix. A
    statistic of the private labels: it only decides the direction of the owner's NOT PRIVATE notes
    (:func:`narrow_range_advice`), never a release."""
    if label_range is None or labels.size == 0:
        return ()
    low, high = label_range
    codes = [code for code in label_codes(labels) if not low <= code <= high]
    kept = labels[~np.isin(labels, codes)] if codes else labels
    least = CLIPPED_END_SHARE * labels.size
    return tuple(end for end, beyond in (("lower", np.count_nonzero(kept < low)),
                                         ("upper", np.count_nonzero(kept > high))) if beyond > least)


def released_ends(centre: float, label_bound: float, cell: float) -> tuple[str, ...]:
    """The end ("lower" or "upper") of the declared [-B, B] (``label_bound`` B, the fit's frame) within a ``cell`` of
    which a private label range's released ``centre`` c lies (|c| > B - cell), else (): most labels lay at that end,
    or beyond it and clipped onto it. c is the centre of the grid CELLS the released range spans, the same rule at
    both ends: the histogram's range (cell edges on both sides) as released, the search's (each end a cell's upper
    edge) half a cell lower (:func:`dpcvx.sklearn.adassp_warning.label_unresolved`), so labels all in the outermost
    cell give c = +-(B - cell / 2) on every grid. Post-processing of the released centre with the public B and grid
    only: it words :class:`~dpcvx.exceptions.NoiseDominatesWarning` (:func:`narrow_range_advice` with
    ``seen=False``)."""
    if abs(centre) <= label_bound - cell:
        return ()
    return ("upper",) if centre > 0 else ("lower",)


def narrow_range_advice(ends: tuple[str, ...], seen: bool) -> str:
    """The one text that gives a declared label range a direction when labels pile at its ``ends``
    (:func:`clipped_ends`, :func:`released_ends`): it is too narrow there, never to be narrowed, and the fix is the
    range the labels can take, known without looking at them. ``seen``: the ends were counted on the training labels
    (NOT PRIVATE, :func:`clipped_ends`: the TrainingRowsWarning's note and tune's), which say "reaches further
    above/below"; else they were read off the released range (public: the NoiseDominatesWarning, which cannot tell
    labels piled at an end from labels clipped onto it): it says what holds if the ClippingWarning, which read the
    labels, counts labels beyond the end, and never "further below" or "above", which on a label whose natural floor
    is that end (a cost 0 on most rows, declared (0, hi)) pointed below a floor no label lies beyond (an analyst
    probe, session 63). "" for no end. Every note that advises on label_bound says a direction through this text or
    not at all (:func:`label_clipping_note` says "holds every label", the same direction)."""
    if not ends:
        return ""
    where = " and ".join(f"{'lower' if end == 'lower' else 'upper'} end" for end in ends)
    bound = setting("label_bound", "(lo, hi)", "LO,HI")
    known = "known without looking at them (a unit, a scale's documented limits)"
    if seen:
        further = " and ".join("below" if end == "lower" else "above" for end in ends)
        return (f" More than a tenth of its training labels lay beyond the declared label range's {where} and were "
                "clipped onto it (the ClippingWarning counts them): the range is too narrow for these labels, not too "
                f"wide, and a narrower one would clip more. To fix: declare the range the labels can take, {known}, "
                f"as {bound}: one that reaches further {further}; the noise grows with its width, so no further than "
                "the labels can go.")
    return (f" If this fit's ClippingWarning (NOT PRIVATE, shown to you only) counts labels beyond that end, the "
            "declared range is too narrow for them, not too wide, and a narrower one would clip more: declare the "
            f"range the labels can take, {known}, as {bound}, one that holds every label; the noise grows with its "
            "width.")


#: The eight labels -1/+1 of each byte of bits, first bit first (a block's part is a lookup per byte: 6 us
#: against 11 us for unpacking and mapping the 43,690 labels of a 5,000,000 x 2 memmap's block, where a slice of
#: one-byte labels took none; a pass multiplies them by the block's products, 38 us)
_BYTE_SIGNS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).view(np.int8) * np.int8(2) - np.int8(1)


class SignBits:
    """n labels -1/+1: ``bits`` holds 1 for +1, packed big-endian eight to a byte (:func:`numpy.packbits`).

    A fit of rows read by blocks (a memmap or Dask X, :class:`~dpcvx.data.blocks.RowBlocks`) holds its labels while it
    reads the file, and each pass reads them a block's part at a time. One byte a row was an eighth of a one-column
    file of float64 (issue 44: a 10,000,000 x 1 memmap's fit grew by 0.159 of it, 0.125 of which the labels); as bits
    they are a 64th. :func:`check_labels` packs them (``packed=True``); a part is the int8 -1/+1 the unpacked array
    would give there, so a label times a float64 is the same float64 as before.

    Indexing by a slice or by integer row indices gives those labels as a new int8 array of -1/+1; passes over
    row blocks take their part by a slice (:meth:`dpcvx.data.blocks.RowBlocks.map`), a recomputed margin by the
    rows it reads (:class:`dpcvx.solvers.blockwise.RowMargins`). ``numpy.asarray`` gives all n of them (one byte
    a row, for a caller that needs them at once: a fit's record weights, its training-rows counts on margins it
    keeps)."""

    __slots__ = ("bits", "n")

    ndim = 1
    dtype = np.dtype(np.int8)

    def __init__(self, bits: np.ndarray, n: int) -> None:
        if bits.dtype != np.uint8 or bits.shape != ((n + 7) // 8,):
            raise ValueError(f"{n} labels take {(n + 7) // 8} bytes of bits, got {bits.dtype} {bits.shape}")
        self.bits, self.n = bits, n

    @classmethod
    def empty(cls, n: int) -> SignBits:
        """n labels to be set by :meth:`put`."""
        return cls(np.empty((n + 7) // 8, dtype=np.uint8), n)

    def put(self, start: int, positive: np.ndarray) -> None:
        """Labels ``start`` .. ``start + len(positive)``: +1 where ``positive`` (booleans), else -1. ``start`` is a
        multiple of 8, and so is ``len(positive)`` unless those labels are the last."""
        self.bits[start // 8:(start + positive.shape[0] + 7) // 8] = np.packbits(positive)

    def positives(self) -> int:
        """How many labels are +1 (the bits set; those past the n-th are 0)."""
        return int(np.bitwise_count(self.bits).sum())

    @property
    def shape(self) -> tuple[int]:
        return (self.n,)

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, rows: slice | np.ndarray) -> np.ndarray:
        """The labels of ``rows`` (a slice, or integer indices), int8 -1/+1."""
        if isinstance(rows, slice):
            start, stop, step = rows.indices(self.n)
            if step != 1:
                return self[np.arange(start, stop, step)]
            stop = max(start, stop)
            first = start - start % 8  # each byte's eight signs looked up at once: half the time of unpacking
            return np.take(_BYTE_SIGNS, self.bits[first // 8:(stop + 7) // 8], axis=0).reshape(-1)[
                start - first:stop - first]
        index = np.asarray(rows)
        if index.dtype.kind not in "iu":
            raise IndexError(f"labels are indexed by a slice or integer rows, got {index.dtype}")
        if index.size and (index.min() < -self.n or index.max() >= self.n):
            raise IndexError(f"row indices must lie in [-{self.n}, {self.n})")
        index = np.where(index < 0, index + self.n, index)
        ones = (self.bits[index >> 3] >> (7 - (index & 7)).astype(np.uint8)) & np.uint8(1)
        signs = ones.view(np.int8)
        signs *= 2
        signs -= 1
        return signs

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        signs = self[:]
        return signs if dtype is None else signs.astype(dtype)

    def __repr__(self) -> str:
        return f"SignBits(n={self.n})"


#: Labels compared at a time by :func:`check_labels` (2^16: its temporaries are 64 kB booleans)
LABEL_CHUNK = 1 << 16


@overload
def check_labels(y: Any, n: int, classes: tuple, dtype: type = ..., *, packed: Literal[False] = ...,
                 scored: bool = ...) -> np.ndarray: ...
@overload
def check_labels(y: Any, n: int, classes: tuple, dtype: type = ..., *, packed: Literal[True],
                 scored: bool = ...) -> SignBits: ...
@overload
def check_labels(y: Any, n: int, classes: tuple, dtype: type = ..., *, packed: bool,
                 scored: bool = ...) -> np.ndarray | SignBits: ...
def check_labels(y: Any, n: int, classes: tuple, dtype: type = np.float64, *,
                 packed: bool = False, scored: bool = False) -> np.ndarray | SignBits:
    """Map labels to -1/+1 (of ``dtype``) using the PUBLIC pair ``classes``; never infer it from y. With ``packed``,
    one bit a label (:class:`SignBits`, parts given as int8 -1/+1): a fit of rows read by blocks.

    The labels are 2 [y == positive] - 1, the boolean array converted to 0/1 and mapped in place: at 1,000,000
    random labels 0.5 ms against 3.7 ms for ``np.where(y == positive, 1.0, -1.0)``, whose per-element choice
    follows the labels' random order (least of 30 in one process, one thread). The refusal counts the labels
    that are either class and looks for the others only when that count falls short of n. The whole check on
    the family sweep's 1,000,000 isotropic labels 4.33 -> 1.30 ms, balance 2% (98 % one class) 1.21 -> 1.02 ms
    (least of 15 calls in each of 3 processes alternating with main at b8f86bf).

    The comparisons run ``LABEL_CHUNK`` labels at a time, so their boolean temporaries weigh a chunk, not n
    bytes each: beside one-byte labels (a narrow memmap's solve, issue 44) three whole boolean vectors were
    3 bytes a row, 0.375 of a one-column file; the one-byte labels themselves were 0.125 of it, the bits are
    0.016. ``scored``: the labels a release's score compares with its predictions (the refusal says so,
    :func:`outside_refusal`)."""
    labels = label_vector(y, n, classes)
    negative, positive_label = classes
    signs: np.ndarray | SignBits = SignBits.empty(n) if packed else np.empty(n, dtype=dtype)
    known = 0
    for start in range(0, n, LABEL_CHUNK):  # a chunk is a whole number of bytes of bits
        part = labels[start:start + LABEL_CHUNK]
        is_positive = _equal(part, positive_label)
        known += int(np.count_nonzero(is_positive)) + int(np.count_nonzero(_equal(part, negative)))
        if isinstance(signs, SignBits):
            signs.put(start, is_positive)
            continue
        out = signs[start:start + LABEL_CHUNK]
        out[...] = is_positive
        out *= 2
        out -= 1
    if known != n:
        outside = outside_classes(labels, classes)
        assert outside is not None
        raise outside_refusal(outside, labels, classes, scored)
    return signs


def outside_refusal(outside: np.ndarray, labels: np.ndarray | SignBits, classes: tuple, scored: bool) -> InputError:
    """The refusal of labels outside the PUBLIC ``classes`` (``outside``: their mask, :func:`outside_classes`), counted
    and placed, never shown: at a fit, whose classes are declared, never inferred; at a release's score
    (``scored``), whose classes are its own: a missing or misspelt label is no mistake of the model."""
    if scored:
        return InputError(f"y has {outside_labels(outside, labels, classes)} outside the model's classes {classes!r}: "
                          "score labels of its classes only")
    return InputError(f"{outside_head(outside, labels, classes)}. Labels are never inferred from the data (that would "
                      "leak it); pass the public pair, for example classes=(0, 1)")


def outside_head(outside: np.ndarray, labels: Any, classes: Sequence[Any], fixed: bool = False) -> str:
    """The one head of a fit's refusal of labels outside the PUBLIC ``classes`` (``outside``: their mask), at every
    entry (PrivateERM, the estimators, PrivateMulticlassERM, tune, the kernel learners), each adding its own fix:
    'y has k label(s) (:func:`outside_labels`) outside the declared classes (...)', or, ``fixed``, the classes
    (-1, 1) the kernel learners fix (they take no classes=)."""
    where = "the kernel learners' classes" if fixed else "the declared classes"
    tail = ", which they fix (they take no classes=)" if fixed else ""
    return f"y has {outside_labels(outside, labels, classes)} outside {where} {tuple(classes)!r}{tail}"


def class_labels(y: Any, n: int, classes: tuple) -> np.ndarray:
    """The ``n`` labels a release's score compares with its predictions: 1-D (a column vector flattened; another shape
    refused, naming it), each one of the model's public ``classes`` (else :func:`outside_refusal`), read by value
    (:func:`declared_labels`)."""
    labels = label_vector(y, n, classes)
    assert isinstance(labels, np.ndarray)
    outside = outside_classes(labels, classes)
    if outside is not None:
        raise outside_refusal(outside, labels, classes, scored=True)
    return labels


def outside_classes(labels: np.ndarray | SignBits, classes: Sequence[Any]) -> np.ndarray | None:
    """None when every one of the 1-D ``labels`` is one of the PUBLIC ``classes``; else the boolean mask of those
    that are not (for the refusal). Compared ``LABEL_CHUNK`` labels at a time, so that a check of every label costs
    a chunk's temporaries, not a boolean n-vector per class (:func:`check_labels`)."""
    for start in range(0, labels.shape[0], LABEL_CHUNK):
        if _inside(labels[start:start + LABEL_CHUNK], classes).all():
            continue
        return ~_inside(np.asarray(labels), classes)
    return None


def _inside(labels: np.ndarray, classes: Sequence[Any]) -> np.ndarray:
    """Whether each label is one of ``classes``."""
    inside = np.zeros(labels.shape, dtype=bool)
    for value in classes:
        inside |= _equal(labels, value)
    return inside


def _equal(labels: np.ndarray, value: Any) -> np.ndarray:
    """``labels == value`` as booleans of the labels' shape. A comparison numpy cannot make elementwise, as text with
    a number, is False for every label; a missing label of objects or of a pandas "string" column (pandas' NA, whose
    comparison has no truth value, so that numpy's raised a bare TypeError) is False, compared label by label."""
    try:
        equal = labels == value
    except TypeError:
        equal = np.fromiter((isinstance(same, (bool, np.bool_)) and bool(same)
                             for same in (label == value for label in labels.ravel())),
                            dtype=bool, count=labels.size).reshape(labels.shape)
    return np.broadcast_to(np.asarray(equal, dtype=bool), labels.shape)


def one_vs_rest_signs(y: Any, n: int, value: Any) -> SignBits:
    """The labels of a one-vs-rest problem, +1 where y is the PUBLIC class ``value``, else -1, one bit each
    (:class:`SignBits`), compared ``LABEL_CHUNK`` labels at a time: k classes' labels are k bits
    a row, where an int64 vector for each was 8 k bytes (a 1,000,000 x 10 memmap's fit of three classes grew by as
    much as the file)."""
    labels = label_vector(y, n)
    signs = SignBits.empty(n)
    for start in range(0, n, LABEL_CHUNK):
        part = labels[start:start + LABEL_CHUNK]
        signs.put(start, _equal(part, value))
    return signs


def check_flag(name: str, value: Any) -> bool:
    """A yes/no setting: True, False or a numpy bool (InputError for anything else)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InputError(f"{name} must be True or False, got {value!r}")


def check_threshold(name: str, threshold: Any) -> float:
    """A public decision threshold t in (0, 1) of a classifier: any real number there, numpy's scalars included
    (:func:`fraction`; bool, str and None are refused)."""
    return fraction(name, threshold)


def decision_cut(threshold: float, binary: bool) -> float:
    """log(t / (1 - t)) for a checked public decision threshold t (:func:`check_threshold`) of a binary classifier
    (0 at t = 0.5)."""
    if not binary and threshold != 0.5:
        private = setting("class_prior", repr("private"), "private")
        prior = setting("threshold", repr("prior"), "prior")
        raise InputError(f"a numeric {named('threshold')} applies to binary classification only; with more than "
                         "two public classes predict takes the largest one-vs-rest score, or with "
                         f"{private} and {prior} the largest score minus its class's cut")
    return math.log(threshold / (1 - threshold))


def check_choice(name: str, value: Any, choices: tuple) -> str:
    """One of the named ``choices`` (InputError naming them otherwise)."""
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name} must be one of {', '.join(map(repr, choices))}; got {_short(value)}")
    return value


Check = Callable[[str, Any], Any]
"""One parameter's check: ``check(name, value)`` returns the value checked, or raises InputError naming ``name``."""


def optional(check: Check) -> Check:
    """None (the parameter's documented default meaning), or a value ``check`` accepts."""
    return lambda name, value: None if value is None else check(name, value)


def or_literal(literal: str, check: Check) -> Check:
    """The keyword ``literal`` (for example "auto"), or a number ``check`` accepts (another str is refused
    naming both)."""
    def checked(name: str, value: Any) -> Any:
        if isinstance(value, str):
            if value == literal:
                return literal
            raise InputError(f"{name} must be {literal!r} or a number, got {value!r}")
        return check(name, value)
    return checked


def refuse_unknown_parameters(owner: str, given: Iterable[str], names: Sequence[str], note: str = "", *,
                              constructor: bool = False) -> None:
    """InputError naming the keywords of ``given`` that are none of ``owner``'s parameters ``names`` (a constructor's,
    as ``set_params`` takes them), and its parameters, then ``note``. The one refusal of an unknown parameter name at
    every learner's ``set_params`` (scikit-learn raised its bare ValueError, PrivateERM and the kernel learners an
    InputError in words of their own). ``constructor``: the keywords a constructor that takes ``**params`` (the kernel
    learners) was given, refused as an :class:`~dpcvx.exceptions.InputTypeError`, a TypeError as Python refuses an
    unexpected keyword of every other constructor (DPLogisticRegression(bogus=1), PrivateERM(bogus=1)), as
    scikit-learn's convention is; ``set_params``' refusal stays a ValueError, as scikit-learn's is."""
    unknown = sorted(set(given) - set(names))
    if unknown:
        error = InputTypeError if constructor else InputError
        raise error(f"{owner} has no parameter(s) {unknown}; its parameters are {list(names)}"
                    f"{' (' + note + ')' if note else ''}")


def check_parameters(owner: Any, constraints: Mapping[str, Check]) -> dict[str, Any]:
    """Every parameter of ``owner`` that ``constraints`` declares, checked by its check, in the table's order:
    {name: the checked value}. The one validation of a learner's settings at its public entry."""
    return {name: check(name, getattr(owner, name)) for name, check in constraints.items()}


def epsilon_value(name: str, value: Any) -> float:
    """:func:`check_epsilon` as a :data:`Check` (``check(name, value)``): a record's budget."""
    return check_epsilon(value, name)


def delta_value(name: str, value: Any) -> float:
    """:func:`check_delta` as a :data:`Check`: a record's delta, in [0, 1)."""
    return check_delta(value, name)


def instance_of(*kinds: type) -> Check:
    """A value of one of the types ``kinds`` (an :class:`~dpcvx.exceptions.InputTypeError` naming them otherwise): the
    check of a field that holds a record of the library's own (a calibration, a verifier's certificate)."""
    expected = " or ".join(kind.__name__ for kind in kinds)

    def checked(name: str, value: Any) -> Any:
        if not isinstance(value, kinds):
            raise InputTypeError(f"{name} must be a {expected}, got {_short(value)} ({a_value_of(value)})")
        return value
    return checked


def tuple_of(*kinds: type) -> Check:
    """A tuple whose every item is of one of the types ``kinds`` (:func:`instance_of` of each item), possibly empty."""
    item = instance_of(*kinds)

    def checked(name: str, value: Any) -> tuple:
        instance_of(tuple)(name, value)
        for index, entry in enumerate(value):
            item(f"{name}[{index}]", entry)
        return value
    return checked


def check_fields(value: Any, constraints: Mapping[str, Check]) -> None:
    """Each field of the public value ``value`` that ``constraints`` declares, by its check, named as
    ``Type.field``: the one check of a public frozen value type (a release's certificate), called by its
    ``__post_init__``, so that a value made by its constructor and one made by ``dataclasses.replace`` (which calls
    the constructor) are checked alike."""
    owner = type(value).__name__
    for name, check in constraints.items():
        check(f"{owner}.{name}", getattr(value, name))
