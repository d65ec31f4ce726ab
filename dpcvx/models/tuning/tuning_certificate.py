"""What :func:`dpcvx.tune` releases: the certificates of its procedures and the result.

Only the selected model, its parameters and public facts (the grid, the budget, the
procedure's public constants) are released; the selection itself sits under "privatised".
Facts measured on the private data are in ``TuningResult.diagnostics_`` (NOT PRIVATE).
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ...data.preprocessing import PublicSchema
from ...exceptions import InputError
from ...privacy.accountant import PrivacyCost
from ...privacy.float_guarantee import FloatGuarantee, named_guarantee
from ...privacy.privacy_curve import CandidateMark, mark_candidate
from ...release.model import Release, WholeCost
from ...release.serialization import model_to_dict
from ...release.tuning_record import TuningRecord
from ...validation import check_delta, check_epsilon, integer
from ..kernel_learner import Diagnostics
from .scores import MISTAKES_RECORD, describe

__all__ = ["TuningCertificate", "TuningResult", "public_params", "format_params", "Grid"]

PROCEDURE = ("Algorithm 4 (private parameter tuning) of Chaudhuri, Monteleoni and Sarwate, "
             "JMLR 12 (2011)")
NEIGHBOUR_RELATION = ("replace-one, n public: neighbouring data sets have the same public size n and "
                      "differ in one record (x_i, y_i)")
THEOREM = ("the privacy theorem for Algorithm 4 of Chaudhuri, Monteleoni and Sarwate, JMLR 12 (2011): "
           "disjoint parts (parallel composition) plus the exponential mechanism (McSherry and "
           "Talwar 2007) with score -z_i of sensitivity K, the score's (1 for a count of mistakes; "
           "docs/theory.md, section 24.4)")


def public_value(value: Any) -> Any:
    """A grid value as JSON: strings, booleans and None as they are, a number as the Python int or float the learners
    read it as (numpy's scalars, a long double and a Fraction too: a long double's ``item()`` stays one, which no JSON
    writer takes, and a Fraction was written as its repr beside the certificate's float), the rest by repr."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    return repr(value)


def public_params(params: Mapping[str, Any]) -> dict:
    return {name: public_value(value) for name, value in params.items()}


def format_params(params: Mapping[str, Any]) -> str:
    return ", ".join(f"{name}={value!r}" for name, value in public_params(params).items())


SELECTION_FLOAT = ("selection's floating point: exact (split: the exponential mechanism over integer mistake "
                   "counts, drawn exactly over the rationals; full-data: exact discrete Laplace counts and an "
                   "exact number of runs K)")


class Grid(WholeCost):
    """The grid a procedure tried, in order, and the floating-point guarantees (its certificates' shared part).

    Two guarantees hold, each for its own part: the selection's (``selection_float_guarantee``, exact:
    Algorithm 4's exponential mechanism over integer counts, :mod:`dpcvx.privacy.exponential`, and the
    full-data procedure's exact discrete Laplace counts and K, :mod:`dpcvx.privacy.stopping`) and the
    selected model's own (``release_float_guarantee``, named by its certificate).
    """

    candidates: tuple[dict, ...]
    release: Any
    conditional: bool  # a candidate rests on an opted-in estimate (each procedure's certificate holds it)

    selection_float_guarantee = FloatGuarantee.EXACT

    def mark_release(self) -> None:
        """Mark the selected release's certificate (``release``, when a dpcvx certificate) as one candidate's
        (:func:`~dpcvx.privacy.privacy_curve.mark_candidate`), at construction: every view of it, this certificate's
        ``to_dict`` (its ``"release"``, saved in the model file's tuning record) and str included, then states its
        curve as a share, which every reader that composes or charges a curve refuses."""
        if isinstance(self.release, CandidateMark):
            mark_candidate(self.release)

    @property
    def m(self) -> int:
        """Number of candidates."""
        return len(self.candidates)

    @property
    def release_float_guarantee(self) -> FloatGuarantee | None:
        """The selected model's floating-point guarantee (None: its certificate names none)."""
        return named_guarantee(self.release)

    def conditional_note(self) -> str:
        """The guarantee's condition when a candidate rests on an opted-in estimate (``conditional``): every run's
        guarantee enters the selection's proof, the unselected candidates' too."""
        return (" CONDITIONAL: a candidate's constant is estimated, not proved (allow_estimates=True); the selection's "
                "guarantee holds only if every candidate's estimate is at least the true value"
                if self.conditional else "")

    def conditional_record(self) -> dict:
        """``{"conditional": True}`` for :meth:`to_dict` when :meth:`conditional_note` is not empty, else nothing."""
        return {"conditional": True} if self.conditional else {}

    def float_record(self) -> dict:
        """Both guarantees by name, for :meth:`to_dict`."""
        named = self.release_float_guarantee
        return {"selection_float_guarantee": self.selection_float_guarantee.value,
                "release_float_guarantee": None if named is None else named.value}

    def float_lines(self) -> list[str]:
        """Both guarantees, for the certificate's str."""
        named = self.release_float_guarantee
        return [SELECTION_FLOAT, "selected model's " + (
            "floating point: not named by its certificate" if named is None else named.statement)]


@dataclass(frozen=True)
class TuningCertificate(Grid):
    """The record of one run of Algorithm 4: what was done and why it is (epsilon, delta)-DP.

    ``candidates`` is the grid in the order it was tried, ``selected_index``
    the position of the released candidate in it, ``release`` the selected
    model's own certificate (None if the learner gives none), ``fit_params``
    the keyword arguments every fit received besides epsilon and the random
    generator. The mistake counts are not part of it (see the module notes).
    ``selected_index`` is the exponential mechanism's (privatised) output: in
    :meth:`to_dict` it and the selected parameters sit under "privatised".

    Returned by :func:`dpcvx.tune`, not built by users; its fields are still checked at construction (an InputError
    naming the field): epsilon and delta as :func:`~dpcvx.validation.check_epsilon` and
    :func:`~dpcvx.validation.check_delta` check a budget, ``candidates`` a non-empty tuple of dicts,
    ``selected_index`` a position in it, ``part_size`` a positive integer and ``n`` an integer of at least the
    m + 1 parts' rows, ``fit_params`` and ``score`` dicts.
    """

    epsilon: float
    delta: float
    candidates: tuple[dict, ...]
    selected_index: int
    n: int
    part_size: int
    fit_params: dict
    release: Any = None
    score: dict = field(default_factory=lambda: dict(MISTAKES_RECORD))
    conditional: bool = False

    procedure = PROCEDURE
    neighbour_relation = NEIGHBOUR_RELATION
    theorem = THEOREM

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_delta(self.delta)
        self.mark_release()
        if not (isinstance(self.candidates, tuple) and self.candidates
                and all(isinstance(point, dict) for point in self.candidates)):
            raise InputError(f"candidates must be a non-empty tuple of dicts (the grid's points), got "
                             f"{self.candidates!r}")
        integer("selected_index", self.selected_index, minimum=0, maximum=self.m - 1)
        part_size = integer("part_size", self.part_size)
        integer("n", self.n, minimum=part_size * (self.m + 1))
        for name in ("fit_params", "score"):
            if not isinstance(getattr(self, name), dict):
                raise InputError(f"{name} must be a dict, got {type(getattr(self, name)).__name__}")

    @property
    def part_sizes(self) -> tuple[int, ...]:
        """Sizes of D_1..D_m (training) and D_{m+1} (held out for the selection)."""
        return (self.part_size,) * (self.m + 1)

    @property
    def unused_rows(self) -> int:
        """n mod (m + 1) rows left out so that the parts are equal; they are never read."""
        return self.n - self.part_size * (self.m + 1)

    @property
    def selected_params(self) -> dict:
        return dict(self.candidates[self.selected_index])

    @property
    def guarantee(self) -> str:
        return (
            f"({self.epsilon:g}, {self.delta:g})-differential privacy for all {self.n} rows: "
            f"the {self.m + 1} parts are disjoint and each is used by one step only. Parts "
            f"1..{self.m} each train one candidate with a learner that is "
            f"({self.epsilon:g}, {self.delta:g})-DP; part {self.m + 1} is used only by the exponential "
            "mechanism, which draws "
            f"candidate i with probability proportional to exp(-{self.epsilon:g} z_i / (2 x "
            f"{self.score['sensitivity']})), z_i = {describe(self.score)} on that part, so it is "
            f"{self.epsilon:g}-DP. A change of one record touches one part, so by parallel "
            f"composition the whole costs the maximum of the parts' costs, not their sum "
            f"(JMLR 2011, Algorithm 4). The {self.unused_rows} unused rows are never read."
            + self.conditional_note()
        )

    def to_dict(self) -> dict:
        release = self.release.to_dict() if hasattr(self.release, "to_dict") else None
        return {
            "procedure": self.procedure,
            "guarantee": self.guarantee,
            "neighbour_relation": self.neighbour_relation,
            "theorem": self.theorem,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "n": self.n,
            "m": self.m,
            "part_sizes": list(self.part_sizes),
            "unused_rows": self.unused_rows,
            "candidates": [public_params(point) for point in self.candidates],
            "fit_params": public_params(self.fit_params),
            "score": self.score,
            "privatised": {
                "selected_index": self.selected_index,
                "selected_params": public_params(self.selected_params),
            },
            # the selected model's own certificate (public constants given the selection)
            "release": release,
            **self.float_record(),
            **self.conditional_record(),
        }

    def __str__(self) -> str:
        lines = [
            f"dpcvx tuning: {self.procedure}",
            f"guarantee: {self.guarantee}",
            f"neighbouring data sets: {self.neighbour_relation}",
            f"n = {self.n}: m + 1 = {self.m + 1} parts of {self.part_size} rows "
            f"({self.unused_rows} unused)",
            "candidates: " + ", ".join("{" + format_params(point) + "}" for point in self.candidates),
            f"selected (privatised, by the exponential mechanism): candidate {self.selected_index + 1} "
            f"of {self.m}, " + format_params(self.selected_params),
        ]
        if self.fit_params:
            lines.append("fit arguments: " + format_params(self.fit_params))
        lines += self.float_lines()
        if self.release is not None:
            lines.append(f"selected model's release (trained on its part of {self.part_size} rows):")
            lines.append(str(self.release))
        return "\n".join(lines)


@runtime_checkable
class ProcedureCertificate(Protocol):
    """What every procedure's certificate offers (:class:`TuningCertificate`, the full-data
    :class:`~dpcvx.models.tuning.full_data.SelectionCertificate`)."""

    @property
    def epsilon(self) -> float: ...

    @property
    def delta(self) -> float: ...

    @property
    def cost(self) -> PrivacyCost: ...

    @property
    def selected_index(self) -> int: ...

    def to_dict(self) -> dict: ...


@dataclass(frozen=True)
class TuningResult:
    """What :func:`tune` releases: the selected model, its parameters and the certificate.

    ``diagnostics_`` is not part of the release: it holds what the selected
    learner measured on its private part (for example a kernel learner's
    solve report), for the data owner only; its repr starts with
    "NOT PRIVATE: do not publish". :meth:`to_dict`, :meth:`to_json`, repr and
    str never include it.

    Returned by :func:`dpcvx.tune`, not built by users; its fields are still checked at construction (an InputError
    naming the field): ``params`` a dict and ``certificate`` a procedure's certificate (with epsilon, delta and
    ``to_dict``), which repr and str read.
    """

    model: Any
    params: dict
    certificate: ProcedureCertificate
    diagnostics_: Diagnostics = field(default_factory=Diagnostics, repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        """A copy or a pickle holds the release and an empty ``diagnostics_``: the selection's own (the number of runs
        it drew, the other candidates' noisy scores) differ between neighbouring data sets and are for this process's
        data owner only (an attacker probe: -0.3889 against -0.4 in a deepcopy on neighbours), as a learner's copies
        hold no solver statistics (:func:`dpcvx.models.contract.without_diagnostics`)."""
        return {**self.__dict__, "diagnostics_": Diagnostics()}

    def __post_init__(self) -> None:
        """The selected release carries the tuning certificate and the total cost
        (:class:`~dpcvx.release.tuning_record.TuningRecord`), so ``dpcvx.save(result.model)`` writes them."""
        if not isinstance(self.params, dict):
            raise InputError(f"params must be a dict, got {type(self.params).__name__}")
        if not isinstance(self.certificate, ProcedureCertificate):
            raise InputError(f"certificate must be a tuning procedure's certificate (a TuningCertificate), got "
                             f"{type(self.certificate).__name__}")
        if self.release is not None:
            TuningRecord.of(self.certificate).attach(self.release)

    @property
    def _parts(self) -> tuple[PublicSchema | None, Any]:
        """(the public schema, the selected learner) of the model: a pipeline of a PublicSchema and a learner's
        (:mod:`dpcvx.models.tuning.pipeline`), else (None, the model)."""
        steps = getattr(self.model, "steps", None)
        if isinstance(steps, list) and len(steps) == 2 and isinstance(steps[0][1], PublicSchema):
            return steps[0][1], steps[1][1]
        return None, self.model

    @property
    def release(self) -> Release | None:
        """The selected model's release: the model itself, or a fitted dpcvx estimator's ``model_``."""
        selected = self._parts[1]
        if isinstance(selected, Release):
            return selected
        fitted = getattr(selected, "model_", None)
        return fitted if isinstance(fitted, Release) else None

    @property
    def epsilon(self) -> float:
        return self.certificate.epsilon

    def to_dict(self) -> dict:
        """The release, JSON-ready: the certificate, the selected model's own release (a dpcvx
        release in its file form, :func:`dpcvx.release.serialization.model_to_dict`, also when ``tune``
        ran a dpcvx estimator; another model through its ``to_dict``) and, under "privatised", the
        selected parameters."""
        release, (schema, selected) = self.release, self._parts
        # a selected estimator's column names and decision cut go with its release, as dpcvx.save writes them, and
        # a pipeline's public schema
        model = model_to_dict(release, schema, feature_names=getattr(selected, "feature_names_in_", None),
                              decision_cut=getattr(selected, "decision_cut_", None)) if release is not None else (
            selected.to_dict() if hasattr(selected, "to_dict") else None)
        return {"type": "TuningResult", "certificate": self.certificate.to_dict(),
                "model": model, "privatised": {"params": public_params(self.params)}}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def __str__(self) -> str:
        return f"{self.certificate}\nreleased model: {self.model!r}"

    def __repr__(self) -> str:
        return (f"TuningResult(params={{{format_params(self.params)}}}, epsilon={self.certificate.epsilon:g}, "
                f"delta={self.certificate.delta:g}, model={self.model!r})")

