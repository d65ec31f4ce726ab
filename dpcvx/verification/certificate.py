"""The certificate: which privacy conditions hold, with what constants, proved how.

Which theorem grants a mechanism, and which conditions it needs, is decided in
one place, :func:`dpcvx.verification.verdict.decide`; this class holds the
conditions and asks it. Conditions of Chaudhuri, Monteleoni and Sarwate,
"Differentially Private Empirical Risk Minimization", JMLR 12 (2011):

* Theorem 1 (output perturbation, Algorithm 1): N differentiable and
  m-strongly convex; l convex and differentiable with |l'| <= L.
* Theorem 2 (objective perturbation, Algorithm 2): N m-strongly convex and
  twice differentiable; l convex and twice differentiable with |l'| <= L and
  |l''| <= c. For a loss that is C^1 and only piecewise C^2 (the Huber hinge),
  Corollary 4 gives the guarantee in the weaker sense of Definition 3 (bounds
  on the probability of every set rather than on densities).

Kifer, Smith and Thakurta (COLT 2012), Theorem 1, for a constraint set or a
convex non-smooth N: the conditions added by :func:`dpcvx.verification.kst12.with_kst12`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ..advice import for_reader, setting
from ..exceptions import AssumptionError, InputError, LossDeclarationError
from ..validation import check_flag, fraction, integer
from .condition import ESTIMATE_METHODS, PROOF_METHODS, Condition
from .exact import exact_text
from .prox_form import NonsmoothForm
from .verdict import (
    MECHANISMS,
    NO_CONSTRAINTS,
    PIECEWISE,
    PIECEWISE_NOTE,
    Mechanism,
    Verdict,
    decide,
    failure_lines,
    pure_at_delta,
)

__all__ = ["Condition", "Certificate", "MECHANISMS", "PROOF_METHODS", "ESTIMATE_METHODS",
           "NO_CONSTRAINTS", "PIECEWISE_NOTE"]

CONDITIONAL_NOTE = (
    "CONDITIONAL guarantee: {names} {verb} estimated on a grid, not proved; the privacy "
    "guarantee holds only if the estimate is at least the true value (allow_estimates=True)"
)




def declaration_error(condition: Condition | None) -> LossDeclarationError | None:
    """The error of a loss whose ``declaration`` condition failed, leading with its cause and fix (a fit, the
    kernel learners and ``Certificate.require`` raise it before anything is charged); None when it passed or is
    absent. The certificate keeps the condition as its failed row."""
    if condition is None or condition.passed is not False:
        return None
    return LossDeclarationError(for_reader(
        f"the loss could not be declared: {condition.detail}" + (f"; fix: {condition.fix}" if condition.fix else "")
        + ". Nothing was charged"))


@dataclass(frozen=True)
class Certificate:
    """The result of :func:`dpcvx.verify`: conditions, constants and verdicts.

    ``lipschitz`` (L), ``curvature`` (c) and ``strong_convexity`` (m) are exact
    numbers when proved symbolically (a :class:`fractions.Fraction`, or for an
    irrational constant a sympy number; ``float()`` works on both; an unbounded
    constant is ``math.inf``), floats
    when bounded by interval arithmetic ("validated": a proved upper bound) or
    estimated ("estimate"), and None when not established.

    Estimated conditions are refused unless ``allow_estimates`` is True and
    ``strict`` is False; a certificate that accepts one is ``conditional``.

    Returned by :func:`dpcvx.verify` and read from model files, not built by users; its fields are still checked at
    construction (an InputError naming the field): ``loss`` and ``regularizer`` str, ``dim`` None or a positive
    integer, ``conditions`` a tuple of :class:`Condition`, ``strict`` and ``allow_estimates`` flags.
    """

    loss: str
    regularizer: str
    dim: int | None
    conditions: tuple[Condition, ...]
    strict: bool = False
    allow_estimates: bool = False

    def __post_init__(self) -> None:
        for name in ("loss", "regularizer"):
            if not isinstance(getattr(self, name), str):
                raise InputError(f"Certificate.{name} must be a str (its text), got "
                                 f"{type(getattr(self, name)).__name__}")
        if self.dim is not None:
            integer("Certificate.dim", self.dim)
        if not (isinstance(self.conditions, tuple) and all(isinstance(item, Condition) for item in self.conditions)):
            raise InputError(f"Certificate.conditions must be a tuple of Condition, got "
                             f"{type(self.conditions).__name__}")
        check_flag("Certificate.strict", self.strict)
        check_flag("Certificate.allow_estimates", self.allow_estimates)

    def __getstate__(self) -> dict[str, Any]:
        """The fields alone: the memos (each ``cached_property``, :attr:`_answers` among them) are left out of a
        pickle or copy and rebuilt on demand. A certificate is shared by every fit of one loss in a process (the
        verifier's cache), so its memo of verdicts held what later fits asked (mechanism and delta), and two seeded
        fits on the same rows pickled differently (an attacker probe, sixtieth session)."""
        memos = {name for name, value in vars(type(self)).items() if isinstance(value, cached_property)}
        return {name: value for name, value in vars(self).items() if name not in memos}

    # -- lookup ----------------------------------------------------------------

    @cached_property
    def by_name(self) -> Mapping[str, Condition]:
        """The conditions indexed by name (built once; the first of a name, as the file reader refuses two)."""
        return {item.name: item for item in reversed(self.conditions)}

    def condition(self, name: str) -> Condition:
        try:
            return self.by_name[name]
        except (KeyError, TypeError):  # another name, or no name at all (a list, None)
            known = ", ".join(item.name for item in self.conditions)
            raise KeyError(f"no condition {name!r}; the certificate has: {known}") from None

    def method(self, name: str) -> str:
        """How a condition was established: "symbolic", "validated", "dcp", "given", "estimate" or "none"."""
        return self.condition(_ALIASES.get(name, name) if isinstance(name, str) else name).method

    def proof_of(self, constant: str) -> Condition | None:
        """The condition that established a release's constant ("L", "c" or "m"), None for any other name or when
        the certificate holds no such condition."""
        return self.by_name.get(_ALIASES[constant]) if isinstance(constant, str) and constant in _ALIASES else None

    def _constant(self, name: str) -> Any:  # an exact number, a float or None (see the class)
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

    @cached_property
    def kst12(self) -> bool:
        """Whether the certificate was prepared for KST12 (it holds the constraint_set condition; found once)."""
        return any(item.name == "constraint_set" for item in self.conditions)

    @cached_property
    def _answers(self) -> dict[tuple[Any, ...], Any]:
        """The verdicts (:meth:`verdict`) and guarantees (:meth:`guarantee`) asked of this certificate so far, by
        (mechanism, delta) and their types."""
        return {}

    def verdict(self, mechanism: str, delta: float = 0.0) -> Verdict:
        """The one verdict for ``mechanism`` at ``delta`` (:func:`dpcvx.verification.verdict.decide`), decided
        once per certificate: a pure function of its fields, which are frozen (a fit asks it three times, and a
        fit served by :func:`~dpcvx.verification.verifier.verify_problem`'s cache asks the same certificate)."""
        _check_question(mechanism, delta)
        key = ("verdict", mechanism, type(mechanism), delta, type(delta))
        verdict: Verdict | None = self._answers.get(key)
        if verdict is None:
            verdict = self._answers[key] = decide(self.conditions, mechanism, delta=delta,
                                                   allow_estimates=self.allow_estimates, strict=self.strict)
        return verdict

    def failures(self, mechanism: str, delta: float = 0.0) -> tuple[Condition, ...]:
        """The conditions that keep ``mechanism`` (at ``delta``) from being allowed."""
        return self.verdict(mechanism, delta).failures

    @property
    def _accepts_estimates(self) -> bool:
        return self.allow_estimates and not self.strict

    def estimated(self, mechanism: str | None = None) -> tuple[str, ...]:
        """Names of the passed conditions that rest on an estimate (for ``mechanism``, or any)."""
        required = self.verdict(mechanism).theorem.requires if mechanism is not None else None
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

    def allows(self, mechanism: str, delta: float = 0.0) -> bool:
        """Whether the theorem behind ``mechanism`` ("output" or "objective") at ``delta`` applies."""
        return self.verdict(mechanism, delta).allowed

    def require(self, mechanism: str, delta: float = 0.0) -> None:
        """Raise :class:`AssumptionError` naming the theorem and every failing condition, with its fix; a loss
        whose declaration failed (not a condition of a theorem: the loss was not given in the form dpcvx reads),
        :class:`~dpcvx.exceptions.LossDeclarationError` with the cause and its fix (:func:`declaration_error`)."""
        refused = declaration_error(self.by_name.get("declaration"))
        if refused is not None:
            raise refused
        verdict = self.verdict(mechanism, delta)
        if not verdict.allowed:
            raise AssumptionError(for_reader(verdict.refusal()), verdict.failures)

    def require_convex(self, what: str) -> None:
        """Raise :class:`AssumptionError` naming each of the loss's and the regularizer's convexity conditions that
        is not established (``convexity``, ``regularizer_convexity``), with its fix: ``what`` (a non-private
        baseline's minimiser, say) is defined by a convex J only, where a stationary point is the minimiser."""
        failures = tuple(item for item in self.conditions
                         if item.name in ("convexity", "regularizer_convexity") and item.passed is not True)
        if failures:
            raise AssumptionError(for_reader("\n".join([f"{what} needs J convex, and the verifier did not establish "
                                                        "it:", *failure_lines(failures)])), failures)

    def guarantee(self, mechanism: str, delta: float = 0.0) -> str:
        """The theorem and the privacy notion a release under ``mechanism`` at ``delta`` relies on (written once
        per certificate, as :meth:`verdict` decides once: a release states it at every fit)."""
        _check_question(mechanism, delta)
        key = ("guarantee", mechanism, type(mechanism), delta, type(delta))
        text = self._answers.get(key)
        if text is None:
            theorem = self.verdict(mechanism, delta).theorem
            note = self._conditional_note(mechanism)
            text = self._answers[key] = f"{theorem.citation}: {theorem.grants}" + (f". {note}" if note else "")
        return text

    def release_theorem(self, mechanism: str, delta: float, approximate: bool) -> str:
        """The theorem a release of ``mechanism`` stated at ``delta`` relies on, by its calibration's kind
        (``approximate``: a Gaussian one): :meth:`guarantee` at ``delta``, or, for a pure-epsilon calibration under a
        stated delta > 0 (the pure objective perturbation chosen by its public bound,
        :func:`~dpcvx.privacy.linear_calibration.pure_competitor`), the pure theorem at delta = 0 with why it holds
        and was chosen (:func:`~dpcvx.verification.verdict.pure_at_delta`). The one rule of a fit's statement and of
        a model file's reader."""
        if approximate or delta == 0:
            return self.guarantee(mechanism, delta)
        return pure_at_delta(self.guarantee(mechanism, 0.0))

    @cached_property
    def one_signed_slope(self) -> bool:
        """Whether l' is PROVED to have one sign on all of R (the ``slope_sign`` condition passed, symbolic or
        validated; never an estimate): the Gaussian objective perturbation is then calibrated by the one-sign profile
        of docs/theory.md, section 12.3. False without the condition (a certificate, or a model file, from before it
        existed) or when it is not proved: the general profile, valid for every loss. The one rule the fit's
        calibration and a model file's reader both apply."""
        item = self.by_name.get("slope_sign")
        return item is not None and item.passed is True and item.method in ("symbolic", "validated")

    @property
    def piecewise_twice_differentiable(self) -> bool:
        item = self.condition("twice_differentiability")
        return bool(item.passed) and item.value == PIECEWISE

    # -- presentation -------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (numbers as strings and floats)."""

        def encode(value: Any) -> Any:
            exact = exact_text(value)
            if exact == "oo":  # standard JSON has no Infinity
                return {"exact": "oo", "float": None}
            if isinstance(value, NonsmoothForm):
                return str(value)
            return value if exact is None else {"exact": exact, "float": float(value)}

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
        return self.report()

    def statuses(self, delta: float = 0.0) -> list[tuple[Condition, str]]:
        """Each condition with its status at ``delta``, the verdicts' (:meth:`Verdict.status`): one word where both
        mechanisms agree ("pass", "FAIL", "unknown", "not required", ...), else each mechanism's, named."""
        verdicts = [self.verdict(mechanism, delta) for mechanism in MECHANISMS]
        rows = []
        for item in self.conditions:
            statuses = [verdict.status(item) for verdict in verdicts]
            rows.append((item, statuses[0] if len(set(statuses)) == 1 else ", ".join(
                f"{verdict.mechanism}: {text}" for verdict, text in zip(verdicts, statuses, strict=True))))
        return rows

    def report(self, delta: float = 0.0) -> str:
        """The table of conditions and the verdicts at ``delta`` (a release prints its own delta).

        A row's status is the one verdict's (:meth:`verdict`): a condition the
        granting theorem of a mechanism does not need is "not required" for it,
        never FAIL; when the two mechanisms differ, the row names each.
        """
        verdicts = [self.verdict(mechanism, delta) for mechanism in MECHANISMS]
        rows = [("condition", "value", "established", "status")]
        rows += [(item.name, item.value_text, item.method, status) for item, status in self.statuses(delta)]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]
        lines = [f"dpcvx certificate for l(z) = {self.loss}, N(w) = {self.regularizer}"]
        if self.dim is not None:
            lines[0] += f" (N analysed at dimension {self.dim})"
        for index, row in enumerate(rows):
            lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
            if index == 0:
                lines.append("  ".join("-" * width for width in widths))
        lines += [verdict.line() for verdict in verdicts]
        if delta == 0:  # the Gaussian (delta > 0) forms, where their verdict differs
            lines += [other.line() for verdict in verdicts
                      if (other := self.verdict(verdict.mechanism, 1.0)).allowed != verdict.allowed
                      or other.failures != verdict.failures]
        fixes: dict[str, str] = {}
        for verdict in verdicts:
            for item in verdict.failures:
                if item.fix and item.method not in ESTIMATE_METHODS:
                    fixes.setdefault(item.name, f"  {item.name}: {item.detail}. Fix: {item.fix}")
        lines += fixes.values()
        estimated = [item for item in self.conditions if item.passed is True and item.method in ESTIMATE_METHODS]
        if estimated and not self._accepts_estimates:
            names = ", ".join(item.name for item in estimated)
            why = (f"{setting('strict', 'True')} refuses estimates" if self.strict else
                   f"pass {setting('allow_estimates', 'True')} to accept them")
            lines.append(f"  {names}: only estimated on a grid, not proved; {why} "
                         "(the guarantee is then conditional on the estimate)")
        if any(verdict.allowed and verdict.theorem.key == "jmlr-corollary-4" for verdict in verdicts):
            lines.append(f"  note: {PIECEWISE_NOTE}")
        if self.conditional:
            lines.append(f"  {self._conditional_note()}")
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # IPython
        printer.text(str(self))


_ALIASES = {"L": "lipschitz", "c": "curvature", "m": "strong_convexity"}


def _check_question(mechanism: Any, delta: Any) -> None:
    """A verdict's question checked before it keys a certificate's answers: a mechanism's name (InputError naming the
    two for another word, None or a list, which could not key them) and a delta in [0, 1] (the report asks at 1 for
    every delta > 0)."""
    Mechanism.of(mechanism)
    fraction("delta", delta, allow_zero=True, allow_one=True)
