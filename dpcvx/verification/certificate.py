"""The certificate: which privacy conditions hold, with what constants, proved how.

Conditions of Chaudhuri, Monteleoni and Sarwate, "Differentially Private
Empirical Risk Minimization", JMLR 12 (2011):

* Theorem 1 (output perturbation, Algorithm 1): N differentiable and
  m-strongly convex; l convex and differentiable with |l'| <= L.
* Theorem 2 (objective perturbation, Algorithm 2): N m-strongly convex and
  twice differentiable; l convex and twice differentiable with |l'| <= L and
  |l''| <= c. For a loss that is C^1 and only piecewise C^2 (the Huber hinge),
  Corollary 4 gives the guarantee in the weaker sense of Definition 3 (bounds
  on the probability of every set rather than on densities).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import sympy as sp

from ..exceptions import AssumptionError, InputError

__all__ = ["Condition", "Certificate", "MECHANISMS", "REQUIRED", "PROOF_METHODS", "ESTIMATE_METHODS"]

MECHANISMS = ("output", "objective")

PROOF_METHODS = ("symbolic", "validated", "dcp", "given")
ESTIMATE_METHODS = ("estimate", "numeric")  # "numeric": the name used by older certificates

CONDITIONAL_NOTE = (
    "CONDITIONAL guarantee: {names} {verb} estimated on a grid, not proved; the privacy "
    "guarantee holds only if the estimate is at least the true value (allow_estimates=True)"
)

REQUIRED: dict[str, tuple[str, ...]] = {
    "output": (
        "declaration", "domain", "convexity", "differentiability", "lipschitz",
        "regularizer_convexity", "strong_convexity", "regularizer_differentiability",
    ),
    "objective": (
        "declaration", "domain", "convexity", "differentiability", "twice_differentiability",
        "lipschitz", "curvature", "regularizer_convexity", "strong_convexity",
        "regularizer_twice_differentiability",
    ),
}

# Kifer, Smith and Thakurta (COLT 2012), Theorem 1: objective perturbation over a closed convex set C
# with a regularizer that is convex only. A certificate prepared for it (by
# dpcvx.verification.kst12.with_kst12) holds the KST12 conditions; the JMLR
# conditions on N's smoothness and strong convexity are then waived for objective
# perturbation: the added ridge Delta supplies the strong convexity.
NO_CONSTRAINTS = "none (all of R^d)"
KST12_CONDITIONS = ("constraint_set", "rank_one_hessian", "regularizer_prox")
KST12_WAIVED = ("strong_convexity", "regularizer_differentiability", "regularizer_twice_differentiability")
KST12_THEOREM = ("Theorem 1 (objective perturbation over a closed convex set with a convex regularizer), "
                 "Kifer, Smith and Thakurta, COLT 2012, re-derived for the stated neighbour relation "
                 "(docs/theory.md, section 14)")

THEOREMS = {
    "output": "Theorem 1 (output perturbation), Chaudhuri, Monteleoni, Sarwate, JMLR 12 (2011)",
    "objective": "Theorem 2 (objective perturbation), Chaudhuri, Monteleoni, Sarwate, JMLR 12 (2011)",
}

PIECEWISE_NOTE = (
    "l is C^1 but l'' jumps, so the Jacobian in the proof of Theorem 2 is undefined at "
    "the jumps; objective perturbation is epsilon-DP in the weaker sense of Definition 3 "
    "(Corollary 4 of JMLR 2011, stated there for the Huber hinge)"
)


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


@dataclass(frozen=True)
class Certificate:
    """The result of :func:`dpcvx.verify`: conditions, constants and verdicts.

    ``lipschitz`` (L), ``curvature`` (c) and ``strong_convexity`` (m) are exact
    sympy numbers when proved symbolically (``float()`` works on them), floats
    when bounded by interval arithmetic ("validated": a proved upper bound) or
    estimated ("estimate"), and None when not established.

    Estimated conditions are refused unless ``allow_estimates`` is True and
    ``strict`` is False; a certificate that accepts one is ``conditional``.
    """

    loss: str
    regularizer: str
    dim: int | None
    conditions: tuple[Condition, ...]
    strict: bool = False
    allow_estimates: bool = False

    # -- lookup ----------------------------------------------------------------

    def condition(self, name: str) -> Condition:
        for item in self.conditions:
            if item.name == name:
                return item
        known = ", ".join(item.name for item in self.conditions)
        raise KeyError(f"no condition {name!r}; the certificate has: {known}")

    def method(self, name: str) -> str:
        """How a condition was established: "symbolic", "validated", "dcp", "given", "estimate" or "none"."""
        return self.condition(_ALIASES.get(name, name)).method

    def _constant(self, name: str) -> Any:  # an exact sympy number, a float or None (see the class)
        return self.condition(name).value

    @property
    def lipschitz(self) -> Any:
        """L = sup |l'(z)|."""
        return self._constant("lipschitz")

    @property
    def curvature(self) -> Any:
        """c = sup |l''(z)|."""
        return self._constant("curvature")

    @property
    def strong_convexity(self) -> Any:
        """m, the strong convexity modulus of N."""
        return self._constant("strong_convexity")

    # -- verdicts --------------------------------------------------------------

    @property
    def kst12(self) -> bool:
        """Whether the certificate was prepared for KST12 (it holds the constraint_set condition)."""
        return any(item.name == "constraint_set" for item in self.conditions)

    def _required(self, mechanism: str) -> tuple[str, ...]:
        required = REQUIRED[_check_mechanism(mechanism)]
        if not self.kst12:
            return required
        if mechanism == "objective":
            return tuple(name for name in required if name not in KST12_WAIVED) + KST12_CONDITIONS
        return required + ("unconstrained",)

    def failures(self, mechanism: str) -> tuple[Condition, ...]:
        """The conditions that keep ``mechanism`` from being allowed."""
        required = self._required(mechanism)
        failing = []
        if "unconstrained" in required and self.condition("constraint_set").value != NO_CONSTRAINTS:
            failing.append(Condition(
                "unconstrained", "no constraint set (Theorem 1's sensitivity is proved for all of R^d here)",
                False, detail="a constraint set is declared",
                fix="use mechanism='objective' (KST12 covers constraint sets)"))
        for item in self.conditions:
            if item.name not in required:
                continue
            if item.passed is not True:
                failing.append(item)
            elif item.method in ESTIMATE_METHODS and not self._accepts_estimates:
                why = ("strict=True refuses estimates" if self.strict else
                       "estimates are refused unless allow_estimates=True")
                failing.append(replace(
                    item,
                    passed=False,
                    detail=f"{item.detail}; only estimated, not proved ({why})".lstrip("; "),
                    fix="write the loss with atoms the verifier translates (see docs/verifier.md) so "
                        "that it can be proved, or pass allow_estimates=True (and strict=False) to "
                        "accept a conditional guarantee",
                ))
        return tuple(failing)

    @property
    def _accepts_estimates(self) -> bool:
        return self.allow_estimates and not self.strict

    def estimated(self, mechanism: str | None = None) -> tuple[str, ...]:
        """Names of the passed conditions that rest on an estimate (for ``mechanism``, or any)."""
        required = self._required(mechanism) if mechanism is not None else None
        return tuple(item.name for item in self.conditions
                     if item.passed is True and item.method in ESTIMATE_METHODS
                     and (required is None or item.name in required))

    @property
    def conditional(self) -> bool:
        """True when an allowed mechanism rests on an estimated (unproved) condition."""
        return self._accepts_estimates and any(
            self.estimated(mechanism) and self.allows(mechanism) for mechanism in MECHANISMS)

    def _conditional_note(self, mechanism: str | None = None) -> str:
        names = self.estimated(mechanism)
        if not names or not self._accepts_estimates:
            return ""
        return CONDITIONAL_NOTE.format(names=", ".join(names), verb="is" if len(names) == 1 else "are")

    def allows(self, mechanism: str) -> bool:
        """Whether the theorem behind ``mechanism`` ("output" or "objective") applies."""
        return not self.failures(mechanism)

    def require(self, mechanism: str) -> None:
        """Raise :class:`AssumptionError` naming every failing condition."""
        failing = self.failures(mechanism)
        if failing:
            theorem = KST12_THEOREM if mechanism == "objective" and self.kst12 else THEOREMS[mechanism]
            lines = [f"{mechanism} perturbation is not allowed: {theorem} needs"]
            for item in failing:
                reason = item.detail or "not established"
                lines.append(f"  - {item.name} ({item.description}): {reason}")
                if item.fix:
                    lines.append(f"    fix: {item.fix}")
            raise AssumptionError("\n".join(lines), failing)

    def guarantee(self, mechanism: str) -> str:
        """The theorem and the privacy notion a release under ``mechanism`` relies on."""
        _check_mechanism(mechanism)
        if mechanism == "objective" and self.kst12:
            text = f"{KST12_THEOREM}: differential privacy for the declared set and regularizer"
        elif mechanism == "objective" and self.piecewise_twice_differentiable:
            text = f"{THEOREMS['objective']}, via Corollary 4: {PIECEWISE_NOTE}"
        else:
            text = f"{THEOREMS[mechanism]}: epsilon-differential privacy (Definition 2)"
        note = self._conditional_note(mechanism)
        return f"{text}. {note}" if note else text

    @property
    def piecewise_twice_differentiable(self) -> bool:
        item = self.condition("twice_differentiability")
        return bool(item.passed) and item.value == "piecewise C^2"

    # -- presentation -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (numbers as strings and floats)."""

        def encode(value: Any) -> Any:
            if isinstance(value, sp.Basic):
                if value.is_infinite:  # standard JSON has no Infinity
                    return {"exact": "oo", "float": None}
                return {"exact": str(value), "float": float(value)}
            return value

        data: dict[str, Any] = {
            "loss": self.loss,
            "regularizer": self.regularizer,
            "dim": self.dim,
            "strict": self.strict,
            "conditions": [
                {
                    "name": item.name,
                    "description": item.description,
                    "passed": item.passed,
                    "value": encode(item.value),
                    "method": item.method,
                    "detail": item.detail,
                    "fix": item.fix,
                }
                for item in self.conditions
            ],
            "allows": {mechanism: self.allows(mechanism) for mechanism in MECHANISMS},
        }
        if self.allow_estimates or self.conditional:  # only then: older readers know the other keys
            data["allow_estimates"] = self.allow_estimates
            data["conditional"] = self.conditional
            data["estimated"] = list(self.estimated()) if self._accepts_estimates else []
        return data

    def __str__(self) -> str:
        rows = [("condition", "value", "established", "status")]
        estimated = [item for item in self.conditions if item.passed is True and item.method in ESTIMATE_METHODS]
        for item in self.conditions:
            status = {True: "pass", False: "FAIL", None: "unknown"}[item.passed]
            if item in estimated:
                status = "pass (estimate)" if self._accepts_estimates else "REFUSED (estimate)"
            rows.append((item.name, item.value_text, item.method, status))
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = [f"dpcvx certificate for l(z) = {self.loss}, N(w) = {self.regularizer}"]
        if self.dim is not None:
            lines[0] += f" (N analysed at dimension {self.dim})"
        for index, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
            if index == 0:
                lines.append("  ".join("-" * width for width in widths))
        for mechanism in MECHANISMS:
            verdict = "allowed" if self.allows(mechanism) else "NOT allowed"
            lines.append(f"{mechanism} perturbation: {verdict}")
        for item in self.conditions:
            if item.passed is not True and item.fix:
                lines.append(f"  {item.name}: {item.detail}. Fix: {item.fix}")
        if estimated and not self._accepts_estimates:
            names = ", ".join(item.name for item in estimated)
            why = "strict=True refuses estimates" if self.strict else "pass allow_estimates=True to accept them"
            lines.append(f"  {names}: only estimated on a grid, not proved; {why} "
                         "(the guarantee is then conditional on the estimate)")
        if self.piecewise_twice_differentiable:
            lines.append(f"  note: {PIECEWISE_NOTE}")
        if self.conditional:
            lines.append(f"  {self._conditional_note()}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython
        printer.text(str(self))


_ALIASES = {"L": "lipschitz", "c": "curvature", "m": "strong_convexity"}


def _check_mechanism(mechanism: str) -> str:
    if mechanism not in REQUIRED:
        raise InputError(
            f"unknown mechanism {mechanism!r}; choose 'objective' (Algorithm 2) or "
            "'output' (Algorithm 1)"
        )
    return mechanism
