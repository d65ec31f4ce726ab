"""One condition of a privacy theorem, and how it was settled (proof, public input or estimate)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

__all__ = ["Condition", "PROOF_METHODS", "ESTIMATE_METHODS"]

PROOF_METHODS = ("symbolic", "validated", "dcp", "given")
ESTIMATE_METHODS = ("estimate", "numeric")  # "numeric": the name used by older certificates


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
    """

    name: str
    description: str
    passed: bool | None
    value: Any = None
    method: str = "none"
    detail: str = ""
    fix: str = ""

    @property
    def value_text(self) -> str:
        if self.value is None:
            return "-"
        if isinstance(self.value, sp.Basic):
            if self.value.is_infinite:
                return "unbounded"
            text = str(self.value)
            if not self.value.is_Rational:
                text += f" (~{float(self.value):.6g})"
            return text
        if isinstance(self.value, float):
            return f"{self.value:.6g}"
        return str(self.value)
