"""One JSON field of a model file, checked: a number, an integer, a text, a flag, an exact-or-float constant.

Every refusal is an :class:`~dpcvx.exceptions.InputError` naming the field and, for a too long value, a
shortened text of it. A field is checked by its type before any use (hashed, compared, converted): Python
takes ``true`` for the integer 1 and ``6.0`` for 6, and a list or an object cannot be looked up in a table.
"""

from __future__ import annotations

import ast
import math
import numbers
import operator
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ...data.files import json_object
from ...exceptions import InputError
from ...privacy.neighbours import Neighbours
from ...validation import _short, scalar_label

_NUMBER_KEYS = {"exact", "float"}


def _label(value: Any) -> str | int | float | bool:
    """A class label as a JSON scalar (numpy scalars as the Python value they hold)."""
    plain = scalar_label(value)
    if plain is None:
        raise InputError(f"class label {value!r} cannot be saved: labels must be strings or numbers")
    return plain


_INT64 = np.iinfo(np.int64)


def _classes(what: str, classes: Any, *, least: int, most: int | None = None) -> tuple[str | int | float | bool, ...]:
    """A file's public class labels, as a fit could have held them: a list of ``least`` to ``most`` distinct labels
    of one JSON type, all strings, all flags, all integers within int64 or all finite floats (a release's
    ``classes_`` is one numpy array, which the writer lists; a mixed list, an integer numpy cannot hold or an infinity
    would predict other labels than the fit, or fail). The one check of every classifier file's ``classes``."""
    count = f"{least}" if most == least else f"{least} or more"
    if (not isinstance(classes, list) or len(classes) < least or (most is not None and len(classes) > most)
            or not all(isinstance(label, (str, int, float)) for label in classes)
            or len({type(label) for label in classes}) != 1):
        raise InputError(f"{what} must list {count} labels of one type (all strings, all numbers or all "
                         f"true/false), as the fitted classes_ were, got {_short(classes)}; the file has been edited")
    if isinstance(classes[0], int) and not isinstance(classes[0], bool) and not all(
            _INT64.min <= label <= _INT64.max for label in classes):
        raise InputError(f"{what} holds an integer outside int64, which no fitted classes_ holds; the file has been "
                         "edited")
    if isinstance(classes[0], float) and not all(math.isfinite(label) for label in classes):
        raise InputError(f"{what} must hold finite numbers, got {_short(classes)}; the file has been edited")
    if len(set(classes)) != len(classes):
        raise InputError(f"{what} must be {count} different labels, got {_short(classes)}")
    return tuple(classes)


def _number(what: str, value: Any, *, finite: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} must be a number, got {_short(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(f"{what} is too large for a floating-point number") from None
    if finite and not math.isfinite(number):
        raise InputError(f"{what} must be finite, got {value!r}")
    return number + 0.0  # -0.0 read as 0.0: no dpcvx number's meaning depends on the sign of a zero


def _integer(what: str, value: Any) -> int:
    """A JSON integer: never a flag (``true`` is 1 to Python) nor a number with a fraction part's notation (6.0)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{what} must be an integer, got {_short(value)}")
    return value


def _count(what: str, value: Any) -> int:
    """A count (n, d, a number of columns): a JSON integer >= 1, as every count a fit passes on is (a mean, a level
    and a noise scale divide by it)."""
    if _integer(what, value) < 1:
        raise InputError(f"{what} must be a positive integer, got {_short(value)}")
    return value


def _text(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {value!r}")
    return value


def _optional_text(what: str, value: Any) -> str | None:
    return None if value is None else _text(what, value)


def _flag(what: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{what} must be true or false, got {value!r}")
    return value


def _optional_flag(what: str, value: Any) -> bool | None:
    return None if value is None else _flag(what, value)


def _saved_number(what: str, value: Any) -> tuple[str | None, float]:
    """(exact text or None, float) of a saved {"exact", "float"} number, the text checked against the float
    (:func:`_exact_text`)."""
    number = json_object(what, value, _NUMBER_KEYS)
    exact = _optional_text(f"{what}.exact", number["exact"])
    if exact == "oo" and number["float"] is None:
        return exact, math.inf
    double = _number(f"{what}.float", number["float"])
    _exact_text(f"{what}.exact", exact, double)
    return exact, double


# the exact texts a verifier writes: sympy's text of a rational or of an irrational constant (sqrt(2)/4, log(2))
_EXACT_FUNCTIONS = {"sqrt": math.sqrt, "log": math.log, "exp": math.exp}
_EXACT_NAMES = {"pi": math.pi, "E": math.e}
_EXACT_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.Pow: math.pow}
_RATIONAL = re.compile(r"-?\d+(/\d+)?")
_EXACT_TOLERANCE = 1e-12  # the double beside an exact constant is it rounded outward by at most an ulp or two


def _exact_text(what: str, text: str | None, double: float) -> None:
    """Refuse a constant's exact text (beside its ``double``) unless it states that double: a rational
    ("-3", "1/4") or a verifier's irrational text (numbers, + - * / **, sqrt, log, exp, pi, E) whose value the
    double is, to rounding. The text is read as data (parsed, never evaluated as code); a forged or garbled
    text would be printed by the report and written back by ``save``."""
    if text is None:
        return
    try:
        value = float(Fraction(text)) if _RATIONAL.fullmatch(text) else _exact_value(ast.parse(text, mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, RecursionError):
        value = math.nan
    if not math.isclose(value, double, rel_tol=_EXACT_TOLERANCE, abs_tol=0.0):
        raise InputError(f"{what} is {_short(text)}, which does not state the constant {double!r} beside it; the "
                         "file has been edited")


def _exact_value(node: ast.expr) -> float:
    """The value of a parsed exact text, in doubles (ValueError for anything but its grammar)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):  # sympy writes true as True
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in _EXACT_NAMES:
        return _EXACT_NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _exact_value(node.operand)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _EXACT_OPERATORS:
        return _EXACT_OPERATORS[type(node.op)](_exact_value(node.left), _exact_value(node.right))
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _EXACT_FUNCTIONS
            and len(node.args) == 1 and not node.keywords):
        return _EXACT_FUNCTIONS[node.func.id](_exact_value(node.args[0]))
    raise ValueError("not an exact constant's text")


def _positive(what: str, value: Any) -> float:
    number = _number(what, value)
    if not number > 0:
        raise InputError(f"{what} must be positive, got {value!r}")
    return number


def _check_same(what: str, value: Any, recorded: Any) -> None:
    """Refuse ``value`` unless it is ``recorded``: equal, and a flag only where the record holds one."""
    if value != recorded or isinstance(value, bool) != isinstance(recorded, bool):
        raise InputError(f"{what} is {value!r} but the certificate records {recorded!r}; "
                         "the file has been edited")


def _stated_relation(what: str, text: Any, relation: Neighbours, statement: str) -> None:
    """Refuse a certificate's stated neighbour relation (``text``) unless it is ``statement``, the words the release
    states for ``relation``, the relation its recomputed calibration is for: the report, the accountant's reader and a
    file saved again trust these words, so they are compared whole, not by their first word. The one check of every
    kind's ``certificate.neighbours``."""
    words = _text(what, text)
    stated = Neighbours.of_statement(words, what)
    if stated is not relation:
        raise InputError(f"{what} states {stated} but the calibration is for {relation}; the file has been edited")
    if words != statement:
        raise InputError(f"{what} is {_short(words)} but dpcvx states {relation} as {statement!r}; the file has "
                         "been edited")
