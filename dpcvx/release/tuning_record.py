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
record's own epsilon and delta, that the budget each fit was given is the one the procedure's theorem gives for the
totals (full-data selection at delta = 0: ``run_epsilon`` is (total epsilon) / (2 + eta), rounded down to a double,
:func:`dpcvx.privacy.stopping.run_budget`; Algorithm 4: each candidate gets the whole budget on its part), and that
this budget covers the selected release's own epsilon and delta.

The record is bound to the release it belongs to (format version 9): the selected release's certificate records the
SHA-256 digest of the saved record (``certificate.tuning``, :func:`tuning_digest`; a multiclass file's in every
per-class entry's certificate), as it records its schema and feature map (:mod:`dpcvx.release.records.row_map`), so
that a file whose tuning record was removed (the loaded model would claim only the selected candidate's epsilon),
added or edited is refused. As for those, a file is not a signature: an edit that also rewrites the digest is not
detected, and a file of version 8 or older, whose upgrade step records the tuning record it holds, is not protected
against that edit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..data.files import json_object
from ..exceptions import InputError
from ..privacy.accountant import PrivacyCost
from ..privacy.composition import sequential_epsilon, split_remainder
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import CANDIDATE_KEY, EPSILON_DELTA, CurvePart, PrivacyCurve, mark_candidate
from ..privacy.stopping import run_budget
from .records.fields import _integer, _number
from .records.header import json_digest
from .records.row_map import check_digest_record

__all__ = ["TuningRecord", "TUNING_RECORD", "tuning_digest", "record_tuning", "set_aside_tuning_records",
           "set_aside_candidate_mark", "check_candidate_mark", "mark_candidate_records",
           "check_tuning_records", "nested_shares", "former_nested_split"]

_KEYS = {"text", "certificate", "total_epsilon", "total_delta"}
TUNING_RECORD = "tuning"  # the release certificate's record of the tuning record saved beside it (format version 9)


@dataclass(frozen=True)
class TuningRecord:
    """The tuning certificate of a selected release: its text, its record, and the total (epsilon, delta)."""

    text: str
    certificate: dict
    total_epsilon: float
    total_delta: float

    def attach(self, release: Any) -> None:
        """Make this record ``release``'s (the selected model's, by the tuning result and by a file's reader): its
        cost becomes the selection's total, and its certificate, one candidate's fit, is marked so that its curve
        says it is a share (:func:`~dpcvx.privacy.privacy_curve.mark_candidate`: a field of the certificate, which
        every copy of it keeps; the file's bytes are unchanged)."""
        release.tuning = self
        mark_candidate(release.certificate)

    @classmethod
    def of(cls, certificate: Any) -> TuningRecord:
        """The record of a tuning certificate
        (:class:`~dpcvx.models.tuning.tuning_certificate.ProcedureCertificate`)."""
        cost = certificate.cost
        return cls(str(certificate), certificate.to_dict(), float(cost.epsilon), float(cost.delta))

    def __str__(self) -> str:
        return self.text

    @property
    def cost(self) -> PrivacyCost:
        """What the selection cost in total, (``total_epsilon``, ``total_delta``): the release's cost."""
        return PrivacyCost(self.total_epsilon, self.total_delta)

    @property
    def privacy_curve(self) -> PrivacyCurve:
        """The selection's guarantee as a curve: the one (total_epsilon, total_delta) point its theorem proves,
        replace-one (both procedures use the public n). The selected release's own curve is one candidate's
        fit only; an accountant and the report compose this one."""
        return PrivacyCurve((CurvePart(EPSILON_DELTA, f"dpcvx.tune's selection ({self.procedure})",
                                       epsilon=self.total_epsilon, delta=self.total_delta),), Neighbours.REPLACE_ONE,
                            self.certificate.get("conditional") is True)

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
    def from_dict(cls, data: Any, release_epsilon: float, release_delta: float,
                  nested: tuple[float, float, float] | None = None) -> TuningRecord:
        """Read a saved record (module docstring: checked, not re-derived); ``release_epsilon`` and ``release_delta``
        are the selected release's own, which the budget each fit was given must cover. ``nested``: the selected
        release's (eps_c, eps_s, fit_c) when it drew column statistics and a class count inside their eps_fit
        (:func:`nested_shares`), whose file written before the sixty-fourth session may state 1 ulp more than the
        budget it was given (:func:`former_nested_split`): that form, and only it, is accepted too."""
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
        fit_epsilon, fit_delta, where = _fit_budget(certificate, float(epsilon), float(delta))
        if (fit_epsilon < release_epsilon and not former_nested_split(fit_epsilon, nested, release_epsilon)) \
                or fit_delta < release_delta:
            raise InputError(f"{where} = ({fit_epsilon!r}, {fit_delta!r}) are below the selected release's own epsilon "
                             f"and delta ({release_epsilon!r}, {release_delta!r}); the file has been edited")
        return cls(text, certificate, float(epsilon), float(delta))


def nested_shares(certificate: Any) -> tuple[float, float, float] | None:
    """(eps_c, eps_s, fit_c) of a release ``certificate`` that drew private column statistics (eps_s) and a private
    class count (eps_c) inside their eps_fit, then fitted at fit_c, in the order its total adds them
    (:meth:`~dpcvx.models.column_statistics.StandardisedPlan.shares`); None for any other release."""
    statistics = getattr(certificate, "column_statistics", None)
    weights = getattr(certificate, "weights", None)
    count = getattr(weights, "private_count", None)
    if not isinstance(statistics, dict) or not isinstance(count, dict) or statistics.get("label_epsilon"):
        return None
    eps_count, eps_statistics, fit = count.get("epsilon"), statistics.get("epsilon"), getattr(certificate, "epsilon",
                                                                                                   None)
    if not (isinstance(eps_count, float) and isinstance(eps_statistics, float) and isinstance(fit, float)):
        return None
    return eps_count, eps_statistics, fit


def former_nested_split(budget: float, nested: tuple[float, float, float] | None, stated: float) -> bool:
    """Whether a selected release stating ``stated`` above the ``budget`` its fit was given is a genuine file of a
    dpcvx before the sixty-fourth session: its shares ``nested`` = (eps_c, eps_s, fit_c) are the two-way splits of
    that budget, nested (the statistics' eps_fit = budget - eps_s, and fit_c = eps_fit - eps_c, each stepped down
    until its own pair fits: :func:`~dpcvx.privacy.composition.split_remainder`), and ``stated`` is their one sum in
    the release's order (:func:`~dpcvx.privacy.composition.sequential_epsilon`), exactly one ulp above the budget.
    That release added the nested shares in another order than the splits (epsilon 3 stated 3.0000000000000004), so
    that tune's own file was refused as edited; a fit now steps the statistics' eps_fit down until the nested sum
    fits (:func:`~dpcvx.models.column_statistics.counted_fit_share`). Any other excess is refused."""
    if nested is None or stated != math.nextafter(budget, math.inf):
        return False
    eps_count, eps_statistics, fit = nested
    return (sequential_epsilon(nested) == stated
            and fit == split_remainder(split_remainder(budget, eps_statistics), eps_count))


def _fit_budget(certificate: dict, epsilon: float, delta: float) -> tuple[float, float, str]:
    """(epsilon, delta) each candidate's fit was given, as the tuning ``certificate`` states them, checked against the
    totals (``epsilon``, ``delta``) with the procedure's own formula, and the fields' name. The full-data procedure
    (a record with ``run_epsilon``) gives each run (``run_epsilon``, ``run_delta``): at delta = 0 the largest double
    <= epsilon / (2 + eta) (:func:`~dpcvx.privacy.stopping.run_budget`, Theorem 2 of Papernot and Steinke), its
    noisy count the same epsilon; at delta > 0 a budget found by bisection on the Renyi curve (not re-derived here),
    below the total, with the total's delta. Algorithm 4 (the split procedure) gives each candidate the totals."""
    if "run_epsilon" not in certificate:
        return epsilon, delta, "tuning.total_epsilon and total_delta"
    run = _number("tuning.certificate.run_epsilon", certificate["run_epsilon"])
    run_delta = _number("tuning.certificate.run_delta", certificate.get("run_delta"))
    eta = _integer("tuning.certificate.eta", certificate.get("eta"))
    if eta < 1:
        raise InputError(f"tuning.certificate.eta must be a positive integer, got {eta!r}")
    if not 0 < run <= epsilon or run_delta != delta:
        raise InputError(f"tuning.certificate.run_epsilon and run_delta = ({run!r}, {run_delta!r}) are not a run's "
                         f"budget within the selection's total ({epsilon!r}, {delta!r}); the file has been edited")
    if delta == 0:
        expected = run_budget(epsilon, eta)
        if run != expected:
            raise InputError(f"tuning.certificate.run_epsilon = {run!r} is not the selection's total epsilon "
                             f"{epsilon!r} / (2 + eta) = {expected!r} at eta = {eta} (Papernot and Steinke, "
                             "Theorem 2: the total is (2 + eta) times each run's epsilon); the file has been edited")
        score = certificate.get("score_epsilon")
        if isinstance(score, bool) or score != run:
            raise InputError(f"tuning.certificate.score_epsilon = {score!r} is not run_epsilon = {run!r}, the budget "
                             "of each run's noisy count at delta = 0; the file has been edited")
    return run, run_delta, "tuning.certificate.run_epsilon and run_delta"


def tuning_digest(saved: Any) -> dict | None:
    """The release certificate's record of a saved tuning record (``saved``, what :meth:`TuningRecord.to_dict`
    writes, or None: the model was not selected by ``dpcvx.tune``): the SHA-256 digest of its canonical JSON text
    (:func:`dpcvx.release.records.header.json_digest`, as a schema's record), which covers the tuning certificate's text
    and record and the totals."""
    return {"sha256": json_digest(saved)} if isinstance(saved, dict) else None


def _certificates(data: dict) -> list[tuple[str, Any]]:
    """(name, certificate) of each release certificate of a model record: its own, or a multiclass file's per-class
    entries' (each entry is a release of the selection, and its certificate records the selection)."""
    if data.get("kind") != "multiclass":
        return [("certificate", data.get("certificate"))]
    entries = data.get("per_class")
    return [(f"per_class[{index}].certificate", entry.get("certificate")) for index, entry in enumerate(entries)
            if isinstance(entry, dict)] if isinstance(entries, list) else []


def record_tuning(data: dict) -> None:
    """Record in each release certificate of a model record (``data``, changed in place) that has none the digest of
    the record's ``tuning`` (nothing when it is null): the writer's binding, and the step from format version 8's
    record of what an older file holds."""
    made = tuning_digest(data.get("tuning"))
    for _, certificate in _certificates(data):
        if made is not None and isinstance(certificate, dict) and TUNING_RECORD not in certificate:
            certificate[TUNING_RECORD] = dict(made)


def _certificates_changed(data: dict, change: Callable[[Any], Any]) -> dict:
    """A copy of the model record ``data`` whose release certificates (:func:`_certificates`) are ``change``'s of
    them; ``data`` is not changed."""
    if data.get("kind") != "multiclass":
        return {**data, "certificate": change(data.get("certificate"))}
    entries = data.get("per_class")
    if not isinstance(entries, list):
        return data
    return {**data, "per_class": [{**entry, "certificate": change(entry.get("certificate"))}
                                  if isinstance(entry, dict) else entry for entry in entries]}


def set_aside_tuning_records(data: dict) -> tuple[dict, list[tuple[str, Any]]]:
    """(a copy of the model record ``data`` whose release certificates hold no tuning record, the records set aside
    with the name of each): the release's reader takes the certificate as the release wrote it, and
    :func:`check_tuning_records` compares the records with the file's ``tuning``. ``data`` is not changed."""
    records = [(f"{name}.{TUNING_RECORD}", certificate.get(TUNING_RECORD)) for name, certificate in _certificates(data)
               if isinstance(certificate, dict)]

    def without(item: Any) -> Any:
        return {key: value for key, value in item.items() if key != TUNING_RECORD} if isinstance(item, dict) else item

    return _certificates_changed(data, without), records


def set_aside_candidate_mark(data: dict) -> tuple[dict, list[tuple[str, bool]]]:
    """(a copy of the model record ``data`` whose release certificates' curves hold no ``"candidate_share"``, and
    for each certificate with a curve its name and whether its curve held ``"candidate_share": true``): the release's
    reader compares each curve with the one its calibration gives, and :func:`check_candidate_mark` compares the marks
    with the file's tuning record after :func:`check_tuning_records` (whose refusal of a removed or added record names
    it). ``data`` is not changed. The certificates are a file's own, or a multiclass file's per-class entries' (it
    records no curve of the whole release; each class's curve is one candidate's share of a selection too)."""
    marks: list[tuple[str, bool]] = []
    for name, certificate in _certificates(data):
        curve = certificate.get("privacy_curve") if isinstance(certificate, dict) else None
        if isinstance(curve, dict):
            if CANDIDATE_KEY in curve and curve[CANDIDATE_KEY] is not True:
                raise InputError(f"{name}.privacy_curve.{CANDIDATE_KEY} must be true (one candidate's share of a "
                                 f"release dpcvx.tune selected), got {curve[CANDIDATE_KEY]!r}; the file has been "
                                 "edited")
            marks.append((name, CANDIDATE_KEY in curve))

    def unmarked(item: Any) -> Any:
        curve = item.get("privacy_curve") if isinstance(item, dict) else None
        if not isinstance(curve, dict) or CANDIDATE_KEY not in curve:
            return item
        return {**item, "privacy_curve": {key: value for key, value in curve.items() if key != CANDIDATE_KEY}}

    return _certificates_changed(data, unmarked), marks


def _tuning_curves(saved: Any) -> list[tuple[str, dict]]:
    """(name, record) of each curve of one candidate a saved tuning record (``saved``, a file's ``tuning``) holds, as
    a version 20 writer marks them: its selected release's ``certificate.release.privacy_curve``, each class's
    ``certificate.release.per_class[i].privacy_curve`` of a one-vs-rest release, and each of a full-data selection's
    ``certificate.candidate_curves`` (at delta > 0)."""
    record = saved.get("certificate") if isinstance(saved, dict) else None
    if not isinstance(record, dict):
        return []
    release = record.get("release")
    release = release if isinstance(release, dict) else {}
    classes = release.get("per_class")
    classes = classes if isinstance(classes, list) else []
    claimed = record.get("candidate_curves")
    claimed = claimed if isinstance(claimed, list) else []
    named = [("tuning.certificate.release.privacy_curve", release.get("privacy_curve")),
             *((f"tuning.certificate.release.per_class[{index}].privacy_curve",
                item.get("privacy_curve") if isinstance(item, dict) else None) for index, item in enumerate(classes)),
             *((f"tuning.certificate.candidate_curves[{index}]", item) for index, item in enumerate(claimed))]
    return [(name, curve) for name, curve in named if isinstance(curve, dict)]


def check_candidate_mark(saved: Any, marks: list[tuple[str, bool]]) -> None:
    """Refuse a model file (format version 20) whose release certificates' curves are not marked as one candidate's
    share (``marks``, from :func:`set_aside_candidate_mark`) exactly when it holds a tuning record (``saved``, its
    ``tuning``), or whose tuning record holds a curve of one candidate without the mark (:func:`_tuning_curves`):
    the certificate of a release :func:`dpcvx.tune` selected (each class's, of a one-vs-rest release) records its
    curve as a share (:meth:`~dpcvx.privacy.privacy_curve.CandidateMark.marked`), so that a reader of the file's
    curve (``PrivacyCurve.from_dict``) cannot compose it as the release's; any other does not. The loaded
    certificate is marked again by :meth:`TuningRecord.attach` (its classes' with it)."""
    for name, marked in marks:
        if marked is (saved is not None):
            continue
        if marked:
            raise InputError(f"{name}.privacy_curve records {CANDIDATE_KEY}, which a model file records only in the "
                             "certificate of a release dpcvx.tune selected (with its tuning record); the file has "
                             "been edited")
        raise InputError(f"{name}.privacy_curve does not record {CANDIDATE_KEY}: true, but the file holds a tuning "
                         "record: the certificate of a release dpcvx.tune selected states its curve as one "
                         "candidate's share of the selection; the file has been edited")
    for name, curve in _tuning_curves(saved):
        if curve.get(CANDIDATE_KEY) is not True:
            raise InputError(f"{name} does not record {CANDIDATE_KEY}: true: a tuning record states each curve of "
                             "one candidate as its share of the selection; the file has been edited")


def mark_candidate_records(data: dict) -> None:
    """The step from format version 19 (``data``, a model record, changed in place): the curves of a tuned file that
    are one candidate's share of the selection record ``"candidate_share": true``, as a version 20 writer records
    them: its release certificates' curves (its own, or each class's of a multiclass file, which records none of the
    whole release) and its tuning record's (:func:`_tuning_curves`). The tuning record changed, so each release
    certificate's record of it (:func:`record_tuning`) is made again, where it was the record of the file's one (an
    edited record stays as it was, and is refused). A version 19 certificate curve that holds the mark was not
    written by dpcvx, and is refused."""
    saved = data.get("tuning")
    if not isinstance(saved, dict):
        return
    former = tuning_digest(saved)
    for name, certificate in _certificates(data):
        curve = certificate.get("privacy_curve") if isinstance(certificate, dict) else None
        if isinstance(curve, dict):
            if CANDIDATE_KEY in curve:
                raise InputError(f"{name}.privacy_curve holds {CANDIDATE_KEY} in a file of format version 19, which "
                                 "no version 19 dpcvx wrote (format version 20 added it); the file has been edited")
            curve[CANDIDATE_KEY] = True
    for _, curve in _tuning_curves(saved):
        curve[CANDIDATE_KEY] = True
    made = tuning_digest(saved)
    for _, holder in _certificates(data):
        if isinstance(holder, dict) and holder.get(TUNING_RECORD) == former:
            holder[TUNING_RECORD] = made


def check_tuning_records(saved: Any, records: list[tuple[str, Any]]) -> None:
    """Refuse a file's tuning record (``saved``, its ``tuning``, read by :meth:`TuningRecord.from_dict`) that is not
    the one each release certificate records (``records``, from :func:`set_aside_tuning_records`): a tuning record
    where the certificate records none, none where it records one (the loaded model would claim only the selected
    candidate's cost), or another record. A file is not a signature: an edit that also rewrites the digest is not
    detected."""
    for what, record in records:
        check_digest_record(saved, record, what, tuning_digest(saved), (
            f"tuning holds a tuning record, but {what} is missing (the certificate of a model dpcvx.tune selected "
            "records the selection it came from); the file has been edited",
            f"tuning is null, but {what} records the dpcvx.tune selection the model came from, whose total epsilon "
            "and delta are its guarantee; the file has been edited",
            f"tuning is not the tuning record {what} records (its SHA-256 digest differs: the totals, the tuning "
            "certificate's text or record); the file has been edited"))
