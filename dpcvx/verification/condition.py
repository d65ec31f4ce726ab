"""One condition of a privacy theorem, and how it was settled (proof, public input or estimate)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..exceptions import InputError
from ..validation import check_choice, check_flag, optional
from .exact import Irrational, exact_text, is_sympy, magnitude_text, plain

__all__ = ["Condition", "PROOF_METHODS", "ESTIMATE_METHODS", "ESTIMATE_OPT_IN", "METHODS", "number_text"]

PROOF_METHODS = ("symbolic", "validated", "dcp", "given")
_SHORT = 10**9  # a Fraction with a larger denominator prints as the double it is
ESTIMATE_METHODS = ("estimate", "numeric")  # "numeric": the name used by older certificates
METHODS = (*PROOF_METHODS, *ESTIMATE_METHODS, "none")  # every Condition.method (the class docstring)
#: How an estimated condition's detail ends: the opt-in of the learners that take estimates (PrivateERM's).
ESTIMATE_OPT_IN = "; accepted only with allow_estimates=True"


def number_text(value: Any) -> str:
    """A number in a condition's detail: a rational with a short denominator exactly ("1/10", "-2"), one with a
    long one (a user's double taken exactly: 0.1 is 3602879701896397/36028797018963968) as that double to 17
    digits, anything else (an irrational sympy number, a float) as it prints."""
    value = plain(value)
    if isinstance(value, Fraction) and value.denominator > _SHORT:
        approx = float(value)
        # below the normal doubles (-2e-324 * 0.2 printed as "-0"): its exact magnitude to three digits
        return f"{approx:.17g}" if abs(approx) >= sys.float_info.min else magnitude_text(value)
    return str(value)


@dataclass(frozen=True)
class Condition:
    """One condition of a privacy theorem and how it was settled.

    ``passed`` is True, False, or None (could not be established).
    ``method`` is "symbolic" (sympy proof or exact calculus), "validated"
    (a bound proved by interval arithmetic, an upper bound by construction),
    "dcp" (CVXPY's DCP rules), "given" (a public input), "estimate" (a grid
    estimate, not a proof: refused unless the certificate allows estimates),
    or "none". "numeric", the name of estimates in older certificates, is
    treated as "estimate".

    Built by the verifier and the model-file reader; a user may build one (a public input's condition). Checked at
    construction (an InputError naming the field): ``name``, ``description``, ``detail`` and ``fix`` str,
    ``passed`` True, False or None (a numpy bool is taken as the bool it holds), ``method`` one of the above.
    """

    name: str
    description: str
    passed: bool | None
    value: Any = None
    method: str = "none"
    detail: str = ""
    fix: str = ""

    def __post_init__(self) -> None:
        for field in ("name", "description", "detail", "fix"):
            if not isinstance(getattr(self, field), str):
                raise InputError(f"Condition.{field} must be a str, got {type(getattr(self, field)).__name__}")
        object.__setattr__(self, "passed", optional(check_flag)("Condition.passed", self.passed))
        check_choice("Condition.method", self.method, METHODS)

    @property
    def value_text(self) -> str:
        if self.value is None:
            return "-"
        exact = exact_text(self.value)
        if exact == "oo":
            return "unbounded"
        if isinstance(self.value, Fraction) and self.value.denominator > _SHORT:
            return number_text(self.value)  # a double taken exactly (a bound rounded down)
        if is_sympy(self.value) or isinstance(self.value, Irrational):  # irrational (fitted, or as loaded)
            return f"{exact} (~{float(self.value):.6g})"
        if exact is not None:
            return exact
        if isinstance(self.value, float):
            return f"{self.value:.6g}"
        return str(self.value)
