"""The tuning a release came from: :func:`dpcvx.tune`'s certificate and the total privacy it spent.

A model selected by ``tune`` is one release of a procedure whose guarantee is the tuning certificate's, not the
selected candidate's alone: under the split procedure each candidate trains on its own part (parallel
composition) and the choice is the exponential mechanism; the full-data procedure composes K noisy runs. The
selected model's own certificate states the candidate's fit. ``tune`` therefore attaches a
:class:`TuningRecord` to the selected release (``release.tuning``): the tuning certificate's text and record,
and its (epsilon, delta), the total the procedure spent. :func:`dpcvx.save` writes it under the model file's
``tuning`` key (format version 5; docs/model-files.md), :func:`dpcvx.load` reads it back, so a saved tuned model
states what its selection cost. Every value is what ``TuningResult.to_dict()`` releases already: public inputs
and the privatised selection (declared in :mod:`dpcvx.release.records.privatised`).

The record is kept as written: dpcvx does not re-derive a tuning certificate from a file (the candidates'
releases are not in it). Loading checks its shape, that the totals are a valid budget and that they are the
record's own epsilon and delta, and that they cover the selected release's own epsilon.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..data.files import json_object
from ..exceptions import InputError
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import EPSILON_DELTA, CurvePart, PrivacyCurve

__all__ = ["TuningRecord"]

_KEYS = {"text", "certificate", "total_epsilon", "total_delta"}


@dataclass(frozen=True)
class TuningRecord:
    """The tuning certificate of a selected release: its text, its record, and the total (epsilon, delta)."""

    text: str
    certificate: dict
    total_epsilon: float
    total_delta: float

    @classmethod
    def of(cls, certificate: Any) -> TuningRecord:
        """The record of a tuning certificate
        (:class:`~dpcvx.models.tuning.tuning_certificate.ProcedureCertificate`)."""
        return cls(str(certificate), certificate.to_dict(), float(certificate.epsilon), float(certificate.delta))

    def __str__(self) -> str:
        return self.text

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The selection's guarantee as a curve: the one (total_epsilon, total_delta) point its theorem proves,
        replace-one (both procedures use the public n). The selected release's own curve is one candidate's
        fit only; an accountant and the report compose this one."""
        return PrivacyCurve((CurvePart(EPSILON_DELTA, f"dpcvx.tune's selection ({self.procedure})",
                                       epsilon=self.total_epsilon, delta=self.total_delta),), Neighbours.REPLACE_ONE)

    @property
    def procedure(self) -> str:
        """The procedure's name and theorem, as the record states it."""
        return str(self.certificate.get("procedure", "dpcvx.tune"))

    @property
    def candidates(self) -> list[dict]:
        """The public grid, in the order it was tried."""
        candidates = self.certificate.get("candidates")
        return [item for item in candidates if isinstance(item, dict)] if isinstance(candidates, list) else []

    @property
    def selected_params(self) -> dict:
        """The selected candidate's parameters: the privatised choice."""
        privatised = self.certificate.get("privatised")
        selected = privatised.get("selected_params") if isinstance(privatised, dict) else None
        return selected if isinstance(selected, dict) else {}

    @property
    def n(self) -> int | None:
        """The public number of rows the whole selection read."""
        n = self.certificate.get("n")
        return n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else None

    @property
    def runs(self) -> str:
        """How many fits the procedure made, as the record states it: one per candidate on disjoint parts (the
        split procedure), or a random number K of runs of which only the distribution is public (full-data)."""
        record = self.certificate
        if isinstance(record.get("part_sizes"), list):
            return (f"{len(self.candidates)} candidates, each trained once on its own disjoint part of "
                    f"{record['part_sizes'][0]} rows, and one more part held out to score them; the scores choose "
                    "one candidate by the exponential mechanism")
        if "mean_runs" in record:
            return (f"a random number K of runs, each a candidate drawn at random, fitted and scored with noise; "
                    f"K is drawn from the truncated negative binomial (eta = {record.get('eta')}, gamma = "
                    f"{record.get('gamma')}), E[K] = {record['mean_runs']:g}, and is not released: only its "
                    "distribution is public")
        return "as the tuning certificate below states"

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "certificate": self.certificate, "total_epsilon": self.total_epsilon,
                "total_delta": self.total_delta}

    @classmethod
    def from_dict(cls, data: Any, release_epsilon: float) -> TuningRecord:
        """Read a saved record (module docstring: checked, not re-derived); ``release_epsilon`` is the selected
        release's own epsilon, which the total must cover."""
        item = json_object("tuning", data, _KEYS)
        text, certificate = item["text"], item["certificate"]
        epsilon, delta = item["total_epsilon"], item["total_delta"]
        if not isinstance(text, str) or not text or not isinstance(certificate, dict):
            raise InputError("tuning.text must be the tuning certificate's text and tuning.certificate its record")
        for name, value in (("total_epsilon", epsilon), ("total_delta", delta)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InputError(f"tuning.{name} must be a finite number, got {value!r}")
        if not (epsilon > 0 and 0 <= delta < 1):
            raise InputError(f"tuning.total_epsilon must be > 0 and total_delta in [0, 1), got {epsilon!r}, {delta!r}")
        if certificate.get("epsilon") != epsilon or certificate.get("delta") != delta:
            raise InputError("tuning.total_epsilon and total_delta are not the tuning certificate's epsilon and "
                             "delta; the file has been edited")
        if epsilon < release_epsilon:
            raise InputError(f"tuning.total_epsilon = {epsilon!r} is below the selected release's own epsilon "
                             f"{release_epsilon!r}; the file has been edited")
        return cls(text, certificate, float(epsilon), float(delta))
