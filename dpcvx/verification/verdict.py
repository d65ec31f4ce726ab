"""One verdict per mechanism: the theorem that grants a release, and the hypotheses it needs.

:func:`decide` is the only place that says whether a mechanism is allowed.
``dpcvx.verify``, ``PrivateERM.verify``/``fit``, the CLI, the printed
certificate and a loaded release file all ask it (through
:class:`~dpcvx.verification.certificate.Certificate`), so they cannot disagree.

The theorem follows from the mechanism, from delta (0: pure epsilon; > 0:
Gaussian noise) and from the problem's class (a certificate that holds the
``constraint_set`` condition was posed for KST12 by
:func:`dpcvx.verification.kst12.with_kst12`: a constraint set, an L1 or a group
term). Each theorem lists the certificate's conditions it needs; the others are
"not required" for it.

The loss's smoothness, per theorem:

* Theorem 1 of JMLR 2011 (output perturbation) and its analytic Gaussian form
  need l C^1 only.
* Theorem 2 of JMLR 2011 (objective perturbation, pure epsilon, no set, N
  smooth) needs l C^2; for a C^1 loss that is only piecewise C^2 (the Huber
  hinge) Corollary 4 gives the weaker Definition 3 (probabilities of sets).
* KST12's Theorem 1 (a constraint set or a non-smooth N, pure epsilon or
  Gaussian) and the Gaussian objective perturbation (the RKW profile, section
  12.3 of docs/theory.md) are proved for a loss whose Hessian is continuous.
  No proved statement covers a piecewise C^2 loss there (docs/theory.md,
  "Piecewise C^2 losses and the one verdict"): such a loss is refused, before
  anything is charged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from ..validation import check_choice
from .condition import ESTIMATE_METHODS, Condition

__all__ = ["Mechanism", "Theorem", "Verdict", "THEOREMS", "MECHANISMS", "NO_CONSTRAINTS", "decide",
           "theorem_for", "pure_at_delta"]



class Mechanism(str, Enum):
    """The two perturbations of JMLR 2011: the typed choice every layer compares (never its name).

    A ``str`` enum: ``Mechanism.OUTPUT == "output"``, so the user's string and the file's field
    are the same value, and ``Mechanism.of(name)`` is the one place a name is recognised.
    """

    OUTPUT = "output"  # Algorithm 1: noise added to the minimiser
    OBJECTIVE = "objective"  # Algorithm 2: noise added to the objective

    def __str__(self) -> str:
        return self.value  # printed as its name, as the file writes it

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @classmethod
    def of(cls, mechanism: str, also: tuple[str, ...] = ()) -> Mechanism:
        """The mechanism a name states; otherwise InputError naming every choice the caller takes, its own options
        ``also`` (DPHuberRegressor's 'auto') first, in the one wording of a refused choice
        (:func:`~dpcvx.validation.check_choice`).

        A :class:`Mechanism` is returned as it is, unchecked: it was parsed once, at the public entry that took the
        name, and the layers below pass the typed value on (issue 41, "validate once": re-checking it here had made
        one fit parse its mechanism 12 times)."""
        if isinstance(mechanism, Mechanism):
            return mechanism
        return cls(check_choice("mechanism", mechanism, (*also, *(member.value for member in cls))))


MECHANISMS = tuple(mechanism.value for mechanism in Mechanism)
NO_CONSTRAINTS = "none (all of R^d)"  # the constraint_set value of a KST12 problem without a set
PIECEWISE = "piecewise C^2"  # the twice_differentiability value of a C^1, piecewise C^2 loss
SECTION = 'docs/theory.md, "Piecewise C^2 losses and the one verdict"'

_LOSS_C1 = ("declaration", "domain", "convexity", "differentiability", "lipschitz")
_LOSS_C2 = (*_LOSS_C1, "twice_differentiability", "curvature")
_OUTPUT = (*_LOSS_C1, "regularizer_convexity", "strong_convexity", "regularizer_differentiability")
_OBJECTIVE = (*_LOSS_C2, "regularizer_convexity", "strong_convexity", "regularizer_twice_differentiability")
_KST12 = (*_LOSS_C2, "regularizer_convexity", "constraint_set", "rank_one_hessian", "regularizer_prox")

_JMLR = "Chaudhuri, Monteleoni, Sarwate, JMLR 12 (2011)"
_KST12_NAME = "Theorem 1 of Kifer, Smith and Thakurta, COLT 2012"
PIECEWISE_NOTE = (
    "l is C^1 but l'' jumps, so the Jacobian in the proof of Theorem 2 is undefined at "
    "the jumps; objective perturbation is epsilon-DP in the weaker sense of Definition 3 "
    "(Corollary 4 of JMLR 2011, stated there for the Huber hinge)"
)


@dataclass(frozen=True)
class Theorem:
    """A privacy theorem dpcvx applies: its citation, the conditions it needs, what it grants.

    ``c2_loss``: the loss must be C^2 everywhere (a piecewise C^2 loss fails
    ``twice_differentiability``). ``unconstrained``: proved for all of R^d only.
    """

    key: str
    name: str
    citation: str
    requires: tuple[str, ...]
    grants: str
    c2_loss: bool = True
    unconstrained: bool = False


THEOREMS: dict[str, Theorem] = {theorem.key: theorem for theorem in (
    Theorem("jmlr-output", "Theorem 1 of JMLR 2011", f"Theorem 1 (output perturbation), {_JMLR}", _OUTPUT,
            "epsilon-differential privacy (Definition 2)", c2_loss=False, unconstrained=True),
    Theorem("gaussian-output", "Theorem 1 of JMLR 2011 with the analytic Gaussian mechanism",
            "output perturbation with the analytic Gaussian mechanism (Balle and Wang 2018) at the sensitivity "
            f"of Theorem 1, {_JMLR}", _OUTPUT, "(epsilon, delta)-differential privacy",
            c2_loss=False, unconstrained=True),
    Theorem("jmlr-objective", "Theorem 2 of JMLR 2011", f"Theorem 2 (objective perturbation), {_JMLR}",
            _OBJECTIVE, "epsilon-differential privacy (Definition 2)"),
    Theorem("jmlr-corollary-4", "Theorem 2 of JMLR 2011 via Corollary 4",
            f"Theorem 2 (objective perturbation), {_JMLR}, via Corollary 4", _OBJECTIVE, PIECEWISE_NOTE,
            c2_loss=False),
    Theorem("gaussian-objective", "the Gaussian objective perturbation (docs/theory.md, section 12)",
            "Gaussian objective perturbation, calibrated by the privacy profile re-derived from Redberg, Koskela "
            "and Wang (2023) or by Kifer, Smith and Thakurta (2012), whichever needs less noise (docs/theory.md, "
            "section 12), under the conditions of Theorem 2 of JMLR 2011 with a C^2 loss", _OBJECTIVE,
            "(epsilon, delta)-differential privacy"),
    Theorem("kst12", _KST12_NAME,
            "Theorem 1 (objective perturbation over a closed convex set with a convex regularizer), Kifer, Smith "
            "and Thakurta, COLT 2012, re-derived for the stated neighbour relation (docs/theory.md, section 14)",
            _KST12, "differential privacy for the declared set and regularizer"),
    Theorem("kst12-gaussian", f"{_KST12_NAME} (Gaussian noise)",
            "Gaussian objective perturbation with the Gaussian constants of Kifer, Smith and Thakurta (COLT 2012, "
            "Theorem 1), re-derived for the stated neighbour relation (docs/theory.md, section 14), under its "
            "verified conditions: a public closed convex set, a convex regularizer, a C^2 loss with rank-one "
            "Hessians", _KST12, "(epsilon, delta)-differential privacy"),
)}


def theorem_for(mechanism: str, *, delta: float, kst12: bool, piecewise: bool) -> Theorem:
    """The theorem a release under ``mechanism`` relies on, for this delta and problem class."""
    gaussian = delta > 0
    if Mechanism.of(mechanism) is Mechanism.OUTPUT:
        return THEOREMS["gaussian-output" if gaussian else "jmlr-output"]
    if kst12:
        return THEOREMS["kst12-gaussian" if gaussian else "kst12"]
    if gaussian:
        return THEOREMS["gaussian-objective"]
    return THEOREMS["jmlr-corollary-4" if piecewise else "jmlr-objective"]


@dataclass(frozen=True)
class Verdict:
    """Whether ``mechanism`` is allowed at ``delta`` (0 or > 0), by which theorem, and what fails."""

    mechanism: str
    delta: float
    theorem: Theorem
    failures: tuple[Condition, ...]

    @property
    def allowed(self) -> bool:
        return not self.failures

    def status(self, item: Condition) -> str:
        """A certificate row's status for this verdict: pass, FAIL, unknown or not required."""
        failed = next((failing for failing in self.failures if failing.name == item.name), None)
        if failed is not None:
            if item.passed is True and item.method in ESTIMATE_METHODS:
                return "REFUSED (estimate)"
            return "unknown" if failed.passed is None else "FAIL"
        if item.name not in self.theorem.requires:
            return "pass" if item.passed is True else "not required"
        return "pass (estimate)" if item.method in ESTIMATE_METHODS else "pass"

    def line(self) -> str:
        """The verdict as the certificate prints it, naming the theorem."""
        what = f"{self.mechanism} perturbation" + (" with delta > 0" if self.delta > 0 else "")
        if self.allowed:
            return f"{what}: allowed by {self.theorem.name}"
        names = ", ".join(item.name for item in self.failures)
        return f"{what}: NOT allowed ({self.theorem.name} needs {names})"

    def refusal(self) -> str:
        """The AssumptionError text: the theorem, each failing condition, its fix."""
        return "\n".join([f"{self.mechanism} perturbation is not allowed: {self.theorem.citation} needs",
                          *failure_lines(self.failures)])


def failure_lines(failures: tuple[Condition, ...]) -> list[str]:
    """A refusal's lines of its failing conditions: each one's name, what it states and why it fails, then its fix."""
    lines = []
    for item in failures:
        lines.append(f"  - {item.name} ({item.description}): {item.detail or 'not established'}")
        if item.fix:
            lines.append(f"    fix: {item.fix}")
    return lines


def _unconstrained() -> Condition:
    return Condition("unconstrained", "no constraint set (Theorem 1's sensitivity is proved for all of R^d here)",
                     False, detail="a constraint set is declared",
                     fix="use mechanism='objective' (KST12 covers constraint sets)")


def _not_c2(item: Condition, theorem: Theorem, kst12: bool) -> Condition:
    """A piecewise C^2 loss under a theorem whose proof needs l'' continuous: refused, with the fixes."""
    other = ("drop the constraint set and the L1/group terms (JMLR 2011's Corollary 4 then covers it at delta = 0, "
             "in the sense of Definition 3; output perturbation needs only C^1)" if kst12 else
             "use delta = 0 (Corollary 4 of JMLR 2011, Definition 3) or mechanism='output' (C^1 suffices)")
    return replace(
        item, passed=False,
        detail=f"l is only piecewise C^2 (l'' jumps); {theorem.name} is proved for a loss with a continuous "
               f"Hessian, and no proved statement covers a piecewise C^2 loss here ({SECTION})",
        fix=f"use a C^2 loss such as dpcvx.losses.logistic(), or {other}")


def _missing(name: str) -> Condition:
    """A condition the theorem needs that the certificate does not hold (the verifier states every one it checks, so
    only an edited file lacks one): not established, so it fails."""
    return Condition(name, f"the theorem's condition {name!r}", False,
                     detail="the certificate holds no such condition, so nothing established it",
                     fix="verify the problem again (the verifier states every condition a theorem needs)")


def _estimate_refused(item: Condition, strict: bool) -> Condition:
    why = "strict=True refuses estimates" if strict else "estimates are refused unless allow_estimates=True"
    return replace(
        item, passed=False, detail=f"{item.detail}; only estimated, not proved ({why})".lstrip("; "),
        fix="write the loss with atoms the verifier translates (see docs/verifier.md) so that it can be proved, "
            "or pass allow_estimates=True (and strict=False) to accept a conditional guarantee")


def decide(conditions: tuple[Condition, ...], mechanism: str, *, delta: float = 0.0,
           allow_estimates: bool = False, strict: bool = False) -> Verdict:
    """The one verdict: the granting theorem for ``mechanism`` at ``delta``, and the conditions that fail it."""
    by_name = {item.name: item for item in conditions}
    kst12 = "constraint_set" in by_name
    second = by_name.get("twice_differentiability")
    piecewise = second is not None and second.passed is True and second.value == PIECEWISE
    theorem = theorem_for(mechanism, delta=delta, kst12=kst12, piecewise=piecewise)
    failing = []
    if theorem.unconstrained and kst12 and by_name["constraint_set"].value != NO_CONSTRAINTS:
        failing.append(_unconstrained())
    failing.extend(_missing(name) for name in theorem.requires if name not in by_name)
    for item in conditions:
        if item.name not in theorem.requires:
            continue
        if item.passed is not True:
            failing.append(item)
        elif item.method in ESTIMATE_METHODS and not (allow_estimates and not strict):
            failing.append(_estimate_refused(item, strict))
        elif item is second and piecewise and theorem.c2_loss:
            failing.append(_not_c2(item, theorem, kst12))
    return Verdict(mechanism, delta, theorem, tuple(failing))


def pure_at_delta(pure_guarantee: str) -> str:
    """The statement of a release that states delta > 0 and was calibrated by the pure-epsilon objective
    perturbation (``pure_guarantee``: the certificate's statement at delta = 0, KST12 Theorem 1 with a constraint set
    or a non-smooth regularizer, JMLR 2011 Theorem 2 without): an epsilon-DP mechanism is (epsilon, delta)-DP for
    every delta, and it was chosen over the Gaussian calibrations by the public excess-risk bound
    (:func:`~dpcvx.privacy.linear_calibration.pure_competitor`; docs/theory.md, section 12.5)."""
    return (f"{pure_guarantee}; pure epsilon-DP, which implies the stated (epsilon, delta) for every delta: chosen "
            "over the Gaussian calibrations at delta > 0 because its excess-risk bound, a function of public inputs "
            "only, is the smaller (docs/theory.md, section 12.5)")


def release_guarantee(certificate_guarantee: str, mechanism: str, add_remove: bool = False) -> str:
    """The theorem a linear release relies on (``certificate_guarantee``: the certificate's statement of it),
    with the approximate-minimiser cover: approximate minima perturbation (Iyengar et al. 2019) for objective
    perturbation, the widened sensitivity 2 L R / (n m Lam) + 2 gamma / (n m Lam) for output perturbation
    (``add_remove``: L R / (n m Lam) + 2 gamma / (n m Lam), one record's gradient moving the sum by L R, as the
    calibration computes it; the text stated the replace-one bound, twice the sensitivity used)."""
    exact = "L R / (n m Lam)" if add_remove else "2 L R / (n m Lam)"
    cover = ("; the released point is an approximate minimiser (||grad F|| <= gamma), covered "
             + ("by approximate minima perturbation (Iyengar et al. 2019) with its budget share"
                if Mechanism.of(mechanism) is Mechanism.OBJECTIVE else
                f"by the sensitivity bound {exact} + 2 gamma / (n m Lam)"))
    return certificate_guarantee + cover
