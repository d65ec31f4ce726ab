"""A linear release's certificate as saved: every field checked, the constants against the verified
conditions, and the calibration recomputed with the library's own formulas
(:func:`.calibration.read_linear`) and compared field by field."""

from __future__ import annotations

import copy
import functools
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ...data.files import json_object
from ...data.standardiser import histogram_label_range
from ...exceptions import FileError, InputError
from ...losses import LOGISTIC_TEXT, has_probabilities
from ...privacy.calibrate import ObjectivePerturbation
from ...privacy.calibrate_gaussian import LOSS_SLOPE, ONE_SIGNED, GaussianObjectivePerturbation
from ...privacy.calibration import LinearCalibration
from ...privacy.column_histogram import (
    HISTOGRAM_DEPTH,
    HISTOGRAM_LEVEL,
    histogram_depth,
    histogram_level,
    histogram_sensitivity,
    label_depth,
)
from ...privacy.column_sums import sums_sensitivity
from ...privacy.composition import sequential_epsilon
from ...privacy.float_safe import continuous_calibration, float_safe_guarantee
from ...privacy.lam_rule import LamChoice, excess_risk_bound, recorded_comparator
from ...privacy.linear_calibration import public_weight_scale, pure_choice_holds
from ...privacy.neighbours import Neighbours
from ...privacy.privacy_curve import check_recorded_curve
from ...privacy.quantile import COMPOSITION as QUANTILE_COMPOSITION
from ...privacy.quantile import PRIVATE_BOUND_KEYS, power_of_two_grid
from ...privacy.quantile import THEOREM as QUANTILE_THEOREM
from ...privacy.rng import NoiseSource
from ...validation import LAM_MAX, LAM_MIN, _short, check_epsilon, number_text, positive
from ...verification.certificate import MECHANISMS, Certificate, Condition
from ...verification.condition import METHODS
from ...verification.constraints import ConstraintSet
from ...verification.exact import exact_of_saved, float_up
from ...verification.problem import WEIGHTED_TAIL, weight_note
from ...verification.prox_form import NonsmoothForm
from ...verification.verdict import SECTION as VERDICT_SECTION
from ...verification.verdict import Mechanism, release_guarantee
from ..constants import Constants
from ..draw_texts import (
    COUNT_COMPOSITION,
    COUNT_THEOREM,
    FORMER_BOUND_LAST,
    FORMER_BOUND_NUMBERS_LAST,
    FORMER_CLASS_LAST,
    FORMER_NUMBERS_LAST,
    FORMER_QUANTILE_COMPOSITIONS,
    FORMER_QUANTILE_LAST,
    FORMER_RANGES_LAST,
    FORMER_RANGES_THEOREMS,
    LABEL_BOUND_THEOREM,
    LABEL_THEOREM,
    NOT_CLIPPED,
    OFFSET_COMPOSITION,
    OFFSET_THEOREM,
    RANGES_THEOREM,
    ROWS_CLIPPED,
    STATISTICS_COMPOSITION,
    STATISTICS_THEOREM,
    WEIGHTS_THEOREM,
    Number,
    bounds_guarantee,
    count_guarantee,
    former_bound_guarantee,
    former_number,
    statistics_guarantee,
    written_until,
)
from ..model import (
    OFFSET_SOURCE,
    CertifiedWeights,
    ReleaseCertificate,
    composed_epsilon,
    drawn_parts,
    drawn_records,
    release_curve,
)
from ..weight_rules import (
    MIN_CLASS_RATE,
    CentredRidge,
    balanced_weights,
    count_floor,
    count_rates,
    log_odds,
    mean_record_weight,
    prior_rates,
    weight_bound,
)
from .calibration_record import linear_class, read_linear, same_number
from .fields import (
    _INT64,
    _count,
    _flag,
    _number,
    _optional_flag,
    _positive,
    _saved_number,
    _stated_relation,
    _text,
)
from .header import MODEL_FORMAT_VERSION

# written only when they apply: label_bound (regressions), lam_rule (lam="auto"), post_processing, findings,
# private_bound and private_label_bound (data_norm / label_bound = "private"); column_statistics;
# privacy_curve (always written from format version 4 on: set aside here, and refused where missing by
# check_recorded_curve); feature_map, the file's record of a feature map the release was
# fitted with (records.row_map.map_record, checked by the release's reader against the map saved beside it);
# label_shift, a regression's public label shift (not 0); schema, the file's record of the schema that encodes a table
# into the release's rows (records.row_map.schema_record, checked by the release's reader against the schema saved);
# probabilities, the file's record of the loss a classifier's probabilities come from (probability_record)
_OPTIONAL_CERTIFICATE_KEYS = {"privacy_curve", "label_bound", "post_processing", "findings", "lam_rule",
                              "private_bound", "private_label_bound", "weights", "column_statistics", "feature_map",
                              "label_shift", "schema", "probabilities"}
# the relation is stated in words ("neighbours"); the certificate derives the words from its typed relation
_CERTIFICATE_KEYS = ReleaseCertificate.recorded_fields() - _OPTIONAL_CERTIFICATE_KEYS | {"neighbours"}
_VERIFICATION_KEYS = {"loss", "regularizer", "dim", "strict", "conditions", "allows"}
# written together, only by a fit with allow_estimates=True (Certificate.to_dict): the opt-in and what it gave
_ESTIMATE_KEYS = {"allow_estimates", "conditional", "estimated"}
_CONDITION_KEYS = {"name", "description", "passed", "value", "method", "detail", "fix"}
_RATIONAL = re.compile(r"-?\d+(/\d+)?")
_DOUBLE_BITS = 1074  # 2^-1074, the smallest positive double
_RULE_TOLERANCE = 1e-9  # the lam rule's terms recomputed at lam / s_bar, which may differ from its grid Lam by an ulp


@dataclass(frozen=True)
class SavedReleaseCertificate(ReleaseCertificate):
    """A :class:`~dpcvx.release.model.ReleaseCertificate` read from a saved model: data, not a proof.

    The constants have the types a fitted release's have (:mod:`dpcvx.release.constants`); no sympy
    object is re-created from the file. ``str()`` prints the same
    report as the original; :meth:`to_dict` returns exactly what was saved, its curve marked as one candidate's share
    when the file's tuning record says so (:meth:`~dpcvx.privacy.privacy_curve.CandidateMark.marked_record`; the
    reader sets the file's mark aside and :meth:`~dpcvx.release.tuning_record.TuningRecord.attach` marks the
    certificate again).
    """

    saved: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        saved = {key: value for key, value in copy.deepcopy(self.saved).items()
                 if key not in ("post_processing", "findings")}
        if isinstance(saved.get("privacy_curve"), dict):
            saved["privacy_curve"] = self.marked_record(saved["privacy_curve"])
        return {**saved, **({"post_processing": list(self.post_processing)} if self.post_processing else {}),
                **({"findings": list(self.findings)} if self.findings else {})}



PROBABILITY_RECORD = "probabilities"  # the certificate's record of the loss whose link gives the release probabilities
_PROBABILITY_RECORD_KEYS = {"loss", "link"}


def probability_record(loss: str) -> dict | None:
    """The certificate's record of where a release's probabilities come from, for a release of the loss ``loss`` (its
    ``verification.loss``): the logistic loss and its link, sigmoid(w^T x + b), or None for a loss without a
    probability model (:func:`dpcvx.losses.has_probabilities`, the rule ``predict_proba`` and ``dpcvx predict``
    follow). Written beside the loss by the writer (format version 9), and by the step from version 8 for an older
    file, so that the loss text, which the loader prints and does not recompute, decides nothing unchecked."""
    return {"loss": LOGISTIC_TEXT, "link": "sigmoid"} if has_probabilities(loss) else None


def check_probability_record(loss: str, record: Any) -> None:
    """Refuse a certificate whose ``verification.loss`` (``loss``) and record of probabilities (``record``, its
    ``probabilities``, or None) disagree: a loss text edited into the logistic loss's (the loaded model would offer
    probabilities no fitted loss supports) or out of it, or an edited record. A file is not a signature: an edit of
    both is not detected (docs/model-files.md)."""
    what = f"certificate.{PROBABILITY_RECORD}"
    made = probability_record(loss)
    if record is not None:
        item = json_object(what, record, _PROBABILITY_RECORD_KEYS)
        _text(f"{what}.loss", item["loss"])
        _text(f"{what}.link", item["link"])
    if record is None and made is not None:
        raise InputError(f"certificate.verification.loss is the logistic loss {loss}, but {what} is missing (the "
                         "certificate records the loss a classifier's probabilities come from); the file has been "
                         "edited")
    if record is not None and record != made:
        raise InputError(f"{what} records probabilities of the {record['loss']} loss by its {record['link']} link, "
                         f"but certificate.verification.loss is {_short(loss)}, a loss "
                         + ("with another record" if made is not None else "without a probability model")
                         + "; the file has been edited")


def _condition_value(what: str, value: Any, name: Any) -> Any:
    """A condition's value as the verifier held it: text as it is (the ``regularizer_prox`` condition's
    :class:`~dpcvx.verification.prox_form.NonsmoothForm` read back from its text), an exact number as a fitted
    release holds it (:func:`~dpcvx.verification.exact.exact_value`: a Fraction, an
    :class:`~dpcvx.verification.exact.Irrational`, ``inf``), a double as a float."""
    if isinstance(value, str) and name == "regularizer_prox":
        return NonsmoothForm.parse(value) or value
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return _number(what, value, finite=False)
    exact, approximate = _saved_number(what, value)
    return exact_of_saved(exact, approximate)


def _condition(index: int, data: Any) -> Condition:
    what = f"certificate condition {index}"
    item = json_object(what, data, _CONDITION_KEYS)
    if item["method"] not in METHODS:
        raise InputError(f"{what}.method is {_short(item['method'])}, not one of the verifier's {list(METHODS)}: how "
                         "a condition was established decides whether it is a proof or an estimate; the file has been "
                         "edited")
    return Condition(
        name=_text(f"{what}.name", item["name"]),
        description=_text(f"{what}.description", item["description"]),
        passed=_optional_flag(f"{what}.passed", item["passed"]),
        value=_condition_value(f"{what}.value", item["value"], item["name"]),
        method=_text(f"{what}.method", item["method"]),
        detail=_text(f"{what}.detail", item["detail"]),
        fix=_text(f"{what}.fix", item["fix"]),
    )


def _verification(data: Any) -> Certificate:
    estimates = isinstance(data, dict) and bool(_ESTIMATE_KEYS & set(data))
    item = json_object("certificate.verification", data, _VERIFICATION_KEYS | (_ESTIMATE_KEYS if estimates else set()))
    dim = item["dim"]
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or dim < 1):
        raise InputError(f"certificate.verification.dim must be a positive integer, got {dim!r}")
    if not isinstance(item["conditions"], list):
        raise InputError("certificate.verification.conditions must be a list")
    certificate = Certificate(
        loss=_text("certificate.verification.loss", item["loss"]),
        regularizer=_text("certificate.verification.regularizer", item["regularizer"]),
        dim=dim,
        conditions=tuple(_condition(i, c) for i, c in enumerate(item["conditions"])),
        strict=_flag("certificate.verification.strict", item["strict"]),
        allow_estimates=estimates and _flag("certificate.verification.allow_estimates", item["allow_estimates"]),
    )
    if estimates:  # what Certificate.to_dict writes for these conditions under the opt-in, and nothing else
        written = certificate.to_dict()  # the one rule of what these keys hold
        stated = {key: written.get(key) for key in ("conditional", "estimated")}
        if item["conditional"] is not stated["conditional"] or item["estimated"] != stated["estimated"]:
            raise InputError(f"certificate.verification states conditional {item['conditional']!r} and estimated "
                             f"{item['estimated']!r}, but its conditions under allow_estimates give {stated}; the file "
                             "has been edited")
    names = [c.name for c in certificate.conditions]
    if len(set(names)) != len(names):
        raise InputError("certificate.verification.conditions name a condition twice")
    recomputed = {mechanism: certificate.allows(mechanism) for mechanism in MECHANISMS}
    if not (isinstance(item["allows"], dict) and all(isinstance(flag, bool) for flag in item["allows"].values())
            and item["allows"] == recomputed):
        raise InputError(f"certificate.verification.allows says {item['allows']!r} but its "
                         f"conditions give {recomputed!r}; the file has been edited, or an older dpcvx wrote it "
                         "under a verdict since withdrawn (a piecewise C^2 loss with a constraint set or an L1/group "
                         f"term: {VERDICT_SECTION}); refit with a C^2 loss")
    return certificate


def _recomputable(step: Callable[[dict], Any], calibration: dict) -> Any:
    """``step(calibration)`` (reading a recorded calibration), its refusal naming the field."""
    try:
        return step(calibration)
    except InputError as error:
        raise InputError(f"certificate.calibration cannot be recomputed: {error}") from None


def _calibration(item: dict, mechanism: str, epsilon: float, constants: dict,
                 effective_norm_bound: float, delta: float, verification: Certificate) -> LinearCalibration:
    """The recorded calibration, checked field by field against the library's own recomputation; a Gaussian
    objective perturbation's profile against the verified conditions (:func:`_check_slope`)."""
    calibration = item["calibration"]
    if not isinstance(calibration, dict):
        raise InputError(f"certificate.calibration must be an object, got {type(calibration).__name__}")
    for key, value in calibration.items():
        if not (value is None or isinstance(value, (str, int, float)) and not isinstance(value, bool)):
            raise InputError(f"certificate.calibration.{key} must be a number or a string, got {value!r}")
    if calibration.get("mechanism") != mechanism:
        raise InputError(f"certificate.calibration.mechanism is {calibration.get('mechanism')!r}, not "
                         f"{mechanism!r}; the file has been edited")
    kind = _recomputable(linear_class, calibration)
    inputs, approximate = kind.inputs, kind.approximate
    for key in inputs:
        if key not in calibration and key != "tol":
            raise InputError(f"certificate.calibration.{key} is missing: the calibration cannot be "
                             "recomputed, so the file cannot be trusted")
    for key in ("n", "dim"):  # counts, as a fit passes them to the calibration: JSON integers (400.0 is not 400)
        if key in calibration:
            _count(f"certificate.calibration.{key}", calibration[key])
    if not approximate and delta != 0.0 and Mechanism.of(mechanism) is not Mechanism.OBJECTIVE:
        # a pure objective perturbation may state delta > 0: it competes there (linear_calibration.pure_competitor),
        # and its statement names the pure theorem and why it holds (checked below, Certificate.release_theorem)
        raise InputError(f"certificate.delta must be 0 for the pure-epsilon output perturbation, got {delta!r}; the "
                         "file has been edited")
    # the calibration's inputs are the certificate's stated facts
    stated = {"epsilon": epsilon, "R": effective_norm_bound, "n": constants.get("n"),
              "lam": constants.get("lam")}
    if approximate:
        stated["delta"] = delta
    if approximate or "dim" in calibration:
        stated["dim"] = constants.get("d")
    for key, value in stated.items():
        if value is None:
            raise InputError(f"certificate.constants.{key} is missing")
        if not same_number(calibration[key], value):
            raise InputError(f"certificate.calibration.{key} is {calibration[key]!r} but the certificate "
                             f"states {value!r}; the file has been edited")
    for key in ("L", "c", "m"):
        if key not in inputs:
            continue
        if key not in constants:
            raise InputError(f"certificate.constants.{key} is missing")
        certified = constants[key]
        used = calibration[key]
        if isinstance(used, bool) or not isinstance(used, numbers.Real) or not math.isfinite(used):
            raise InputError(f"certificate.calibration.{key} must be a finite number, got {used!r}")
        # the calibration may round a certified constant outward by at most a few ulps, never inward
        safe = used >= certified if key != "m" else used <= certified
        if not (safe and math.isclose(used, certified, rel_tol=1e-12, abs_tol=0.0)):
            raise InputError(f"certificate.calibration.{key} is {used!r} but the certified constant "
                             f"{key} is {certified!r}; the file has been edited")
    if kind is GaussianObjectivePerturbation:
        _check_slope(calibration, verification)
    return read_linear(calibration)


def _check_pure_at_delta(calibration: LinearCalibration, mechanism: str, delta: float, verification: Certificate,
                         d: int) -> None:
    """Refuse a pure-epsilon objective record stating delta > 0 that no fit produces (a FileError naming
    certificate.delta). A fit states delta > 0 with a pure calibration only where the choice of
    :func:`~dpcvx.privacy.linear_calibration.calibrate_linear` made it: replace-one, not float-safe (a float-safe
    objective perturbation at delta > 0 is refused before any charge: ``check_float_safe_form``), and the pure
    calibration ranking better than the Gaussian one at the same public values. That choice is re-run here on the
    file's public values (:func:`~dpcvx.privacy.linear_calibration.pure_choice_holds`, W from the certificate's
    conditions: :func:`_public_weight_scale`): the statement's text alone (Certificate.release_theorem) let a file
    whose delta was edited, with its curve and digest, still say the pure calibration was chosen by its bound where
    a fit at that delta releases the Gaussian one (an attacker probe, session 63)."""
    if calibration.approximate or delta == 0.0 or Mechanism.of(mechanism) is not Mechanism.OBJECTIVE:
        return
    stated = f"certificate.delta is {delta!r}"
    if type(calibration) is not ObjectivePerturbation:  # the lattice (float_safe) form, or another pure kind
        raise FileError(f"{stated}, but a fit states delta > 0 with a pure objective perturbation only by the "
                        f"continuous calibration, not the {type(calibration).__name__} this file records (float_safe "
                        "objective perturbation at delta > 0 is refused); the file has been edited")
    if calibration.relation is not Neighbours.REPLACE_ONE:
        raise FileError(f"{stated}, but under {calibration.relation} a fit at delta > 0 calibrates the Gaussian "
                        "objective perturbation alone (the pure calibrations are derived for replace-one); the file "
                        "has been edited")
    known, weight_norm = _public_weight_scale(verification, calibration)
    if known and not pure_choice_holds(verification, calibration, delta=delta, dim=d, weight_norm=weight_norm):
        raise FileError(f"{stated}, but at that delta a fit of this problem releases the Gaussian objective "
                        "perturbation, whose public excess-risk bound is the smaller (docs/theory.md, section 12.5), "
                        "not the pure calibration this file records; the file has been edited")


def _public_weight_scale(verification: Certificate, pure: ObjectivePerturbation) -> tuple[bool, float | None]:
    """(whether it is known, W): the public scale of ||w*|| the fit's choice read
    (:func:`~dpcvx.privacy.linear_calibration.public_weight_scale`), from the certificate's conditions: the ball's
    radius stated by ``constraint_set``, KST12's posing, m, and the L1 weight stated by ``regularizer_prox``. Not
    known only for a KST12 problem with m = 0, no ball and group norms, whose weights b_g no condition states."""
    constraint = verification.by_name.get("constraint_set")
    radius = None if constraint is None else ConstraintSet.described_radius(constraint.value)
    prox = verification.by_name.get("regularizer_prox")
    form = prox.value if prox is not None and isinstance(prox.value, NonsmoothForm) else None
    if radius is None and verification.kst12 and pure.m <= 0 and form is not None and form.groups:
        return False, None
    return True, public_weight_scale(radius, verification.kst12, pure.m,
                                     0.0 if form is None else form.l1_weight, pure.L, pure.R, pure.lam)


def _check_slope(calibration: dict, verification: Certificate) -> None:
    """Refuse a Gaussian objective perturbation whose record states the one-sign profile (``loss_slope``) when its
    verified conditions do not prove l' of one sign, or the general profile when they do: a fit uses the one-sign
    profile exactly when its certificate proves it (:attr:`~dpcvx.verification.certificate.Certificate.
    one_signed_slope`). A file written before the fact existed holds neither, and reads as the general profile. The
    record's sigma is then recomputed with the profile it states (:func:`.calibration_record.read_linear`)."""
    stated = LOSS_SLOPE in calibration
    if stated != verification.one_signed_slope:
        raise InputError(f"certificate.calibration {'states' if stated else 'does not state'} {LOSS_SLOPE} "
                         f"{ONE_SIGNED!r} (the one-sign profile of docs/theory.md, section 12.3), but the verified "
                         f"condition slope_sign {'does not prove' if stated else 'proves'} that l' has one sign; "
                         "the file has been edited")


def _constants(data: Any) -> tuple[Constants, dict]:
    """(the typed constants, their float values) from certificate.constants."""
    if not isinstance(data, dict):
        raise InputError(f"certificate.constants must be an object, got {type(data).__name__}")
    saved = {key: _saved_number(f"certificate.constants.{key}", value) for key, value in data.items()}
    values = {key: number for key, (_, number) in saved.items()}
    for key in ("L", "m", "R", "lam", "n", "d"):
        if key not in saved:
            raise InputError(f"certificate.constants.{key} is missing")
    for key in saved.keys() - {"L", "c", "m", "R", "lam", "n", "d"}:
        raise InputError(f"certificate.constants.{key} is not a constant of a linear release; the file has been "
                         "edited")
    n = values.get("n")
    if n is not None and not (n >= 1 and float(n).is_integer()):
        raise InputError(f"certificate.constants.n must be a positive integer, got {n!r}")
    if "n" in values:
        values["n"] = int(values["n"])
    for key in ("lam", "L", "R"):
        if key in values and not (values[key] > 0 and math.isfinite(values[key])):
            raise InputError(f"certificate.constants.{key} must be finite and positive, got {values[key]!r}")
    # m = 0 is a certified constant of a regularizer that is not strongly convex (an L1 term alone, or a
    # constraint set): KST12 then adds the ridge Delta, which the recomputed calibration checks
    if "m" in values and not (values["m"] >= 0 and math.isfinite(values["m"])):
        raise InputError(f"certificate.constants.m must be finite and non-negative, got {values['m']!r}")
    if "c" in values and not values["c"] >= 0:
        raise InputError(f"certificate.constants.c must be non-negative, got {values['c']!r}")
    if not float(values["d"]).is_integer() or values["d"] < 1:
        raise InputError(f"certificate.constants.d must be a positive integer, got {values['d']!r}")
    return Constants.from_saved(saved), values


def _release_certificate(data: Any, counted: tuple[str, ...] = (), former: tuple[str, ...] = (),
                         written: int = MODEL_FORMAT_VERSION) -> SavedReleaseCertificate:
    """The certificate of a linear release as saved, every field checked. ``counted``: how a private class count's
    guarantee names the class it counts (:func:`~dpcvx.release.draw_texts.class_texts`: the file's positive class, or
    one-vs-rest's class against the rest; this version's text first), ``former`` how a writer of format version
    :data:`~dpcvx.release.draw_texts.FORMER_CLASS_LAST` or older also named it (:func:`_check_drawn_guarantee`).
    ``written``: the file's format version as written, before its upgrade steps; a former text (the guarantee's, a
    draw's theorem or composition) is accepted only in a file of a version whose writers wrote it, and the loaded
    certificate holds, and saves again, this version's text of the same records (a file of any version held any
    former text: an attacker probe, session 69, P9 F3)."""
    if isinstance(data, dict) and "solve" in data:
        raise InputError("certificate.solve holds solver statistics (iterations, time, status, residual) "
                         "measured on the private data; no privacy proof covers them, so dpcvx no longer "
                         "reads or writes them. Remove the section only if you know the file is otherwise "
                         "unchanged; better, refit and save with this version of dpcvx")
    recorded_curve = data.get("privacy_curve") if isinstance(data, dict) else None
    item = json_object("certificate", {key: value for key, value in data.items()
                                       if key not in _OPTIONAL_CERTIFICATE_KEYS}
                       if isinstance(data, dict) else data, _CERTIFICATE_KEYS)
    mechanism = item["mechanism"]
    if mechanism not in MECHANISMS:
        raise InputError(f"certificate.mechanism must be one of {MECHANISMS}, got {mechanism!r}")
    # the fit's budget as its calibration checked it (check_epsilon), named here before anything is derived from it
    epsilon = check_epsilon(item["epsilon"], "certificate.epsilon")
    delta = _number("certificate.delta", item["delta"])
    if not 0.0 <= delta < 1.0:
        raise InputError(f"certificate.delta must lie in [0, 1), got {item['delta']!r}; the file has been edited")
    verification = _verification(item["verification"])
    check_probability_record(verification.loss, data.get(PROBABILITY_RECORD))
    if not verification.allows(mechanism, delta):
        raise InputError(f"the saved certificate does not allow {mechanism} perturbation, so the "
                         "file cannot hold a dpcvx release; it has been edited")
    constants, values = _constants(item["constants"])
    weights = _weights(data.get("weights"))
    _check_weights_agree(weights, values["n"], verification)
    mean_weight = 1.0 if weights is None or weights.mean_weight is None else weights.mean_weight
    _check_lam(values["lam"], mean_weight)
    if verification.dim is not None and verification.dim != values["d"]:
        raise InputError(f"certificate.verification.dim is {verification.dim} but the certificate states d = "
                         f"{values['d']:g}; the file has been edited")
    for key, name in (("L", "lipschitz"), ("c", "curvature"), ("m", "strong_convexity")):
        condition = next((c for c in item["verification"]["conditions"] if c.get("name") == name), None)
        if key in values and condition is not None and isinstance(condition.get("value"), dict):
            _, certified = _saved_number(f"certificate condition {name}.value", condition["value"])
            if certified != values[key]:
                raise InputError(f"certificate.constants.{key} is {values[key]!r} but the verified "
                                 f"condition {name} gives {certified!r}; the file has been edited")
    effective = _positive("certificate.effective_norm_bound", item["effective_norm_bound"])
    if "R" in values and values["R"] != effective:
        raise InputError(f"certificate.constants.R is {values['R']!r} but the effective norm bound is "
                         f"{effective!r}; the file has been edited")
    calibration = _calibration(item, mechanism, epsilon, values, effective, delta, verification)
    records = {key: _private_bound(key, data.get(key), data.get(stated), written) for key, stated in
               (("private_bound", "data_norm"), ("private_label_bound", "label_bound"))}
    statistics = column_statistics_record(data.get("column_statistics"), written=written)
    if statistics is not None and "n" in values and not same_number(statistics["n"], values["n"]):
        # the statistics were drawn from the fit's own rows (replace-one: n public)
        raise InputError(f"certificate.column_statistics.n is {statistics['n']!r} but the certificate states n = "
                         f"{values['n']:g}; the file has been edited")
    drawn = drawn_records(records["private_bound"], records["private_label_bound"],
                          None if weights is None else weights.private_count, statistics)
    total = composed_epsilon(drawn, epsilon)
    if any(record["total_epsilon"] != total for record in drawn):
        raise InputError(f"certificate.private_bound states a total epsilon other than eps_q + the fit's epsilon "
                         f"= {total!r}; the file has been edited")
    conditional = bool(getattr(verification, "conditional", False))
    check_recorded_curve(recorded_curve, release_curve(calibration, epsilon, delta, drawn_parts(drawn), conditional))
    _check_pure_at_delta(calibration, mechanism, delta, verification, int(values["d"]))
    if statistics is not None and "label_cells" in statistics and data.get("label_bound") != \
            label_range(statistics)[1]:
        raise InputError("certificate.label_bound is not the bound B' that certificate.column_statistics.label_cells "
                         "give; the file has been edited")
    # the fit's guarantee is the verdict's theorem for this mechanism at delta (with the float-safe mechanism named);
    # a release drawn after private values states their composition first, then it
    theorem = verification.release_theorem(mechanism, delta, calibration.approximate)
    add_remove = calibration.relation is Neighbours.ADD_REMOVE
    fitted = float_safe_guarantee(calibration, release_guarantee(theorem, mechanism, add_remove))
    guarantee = _text("certificate.guarantee", item["guarantee"])
    # an add-remove output release written before its statement named the add-remove sensitivity (format version
    # _REPLACE_ONE_STATEMENT_LAST or older) stated the replace-one bound (its calibration, checked above, was right):
    # read as the corrected statement
    legacy = float_safe_guarantee(calibration, release_guarantee(theorem, mechanism)) \
        if add_remove and written <= _REPLACE_ONE_STATEMENT_LAST else None
    if legacy is not None and (guarantee.endswith(": " + legacy) if drawn else guarantee == legacy):
        guarantee = guarantee[:len(guarantee) - len(legacy)] + fitted
    if not (guarantee.endswith(": " + fitted) if drawn else guarantee == fitted):
        after = ", after the composition of its private draws" if drawn else ""
        raise InputError(f"certificate.guarantee is not what dpcvx states for this release ({_short(fitted)}{after}); "
                         "the file has been edited")
    if drawn:  # the whole text the writers make of the records (release.draw_texts), and no other
        guarantee = _check_drawn_guarantee(guarantee, fitted, epsilon, delta, total, records, statistics, weights,
                                           counted, former, written)
    data_norm = _positive("certificate.data_norm", item["data_norm"])
    fit_intercept = _flag("certificate.fit_intercept", item["fit_intercept"])
    intercept_scaling = _positive("certificate.intercept_scaling", item["intercept_scaling"])
    _check_built_in_texts(verification, values, weights, intercept_scaling)
    label_bound = None if data.get("label_bound") is None else _positive("certificate.label_bound", data["label_bound"])
    certificate = SavedReleaseCertificate(
        mechanism=Mechanism.of(mechanism),
        guarantee=guarantee,
        epsilon=epsilon,
        delta=delta,
        calibration=calibration,
        verification=verification,
        data_norm=data_norm,
        effective_norm_bound=effective,
        fit_intercept=fit_intercept,
        intercept_scaling=intercept_scaling,
        clipping=recorded_clipping("certificate.clipping", item["clipping"], ROWS_CLIPPED),
        library_version=_text("certificate.library_version", item["library_version"]),
        constants=constants,
        # the record of the loss's probabilities is the file's, checked above and written again from the loss by
        # the writer: the loaded certificate is the one the fit made
        saved=_saved(data, guarantee, records, statistics),
        label_bound=label_bound,
        lam_rule=_lam_rule(data.get("lam_rule"), values, calibration, effective, mean_weight,
                           # the verified c, as the fit read it; a file without the condition has none (and then no
                           # rule bound a genuine release recorded matches)
                           None if "curvature" not in verification.by_name else verification.curvature,
                           (data_norm, intercept_scaling if fit_intercept else None, label_bound)),
        post_processing=_texts("post_processing", data.get("post_processing", [])),
        findings=_texts("findings", data.get("findings", [])),
        weights=weights,
        column_statistics=statistics,
        label_shift=read_label_shift(data),
        noise_source=NoiseSource.parse(item["noise_source"], "certificate.noise_source"),
        private_bound=records["private_bound"],
        private_label_bound=records["private_label_bound"],
    )
    _stated_relation("certificate.neighbours", item["neighbours"], certificate.relation, certificate.neighbours)
    return certificate


#: the last format version whose add-remove output release stated the replace-one bound (93bd5391 named the add-remove
#: sensitivity at version 11)
_REPLACE_ONE_STATEMENT_LAST = 11


def _saved(data: dict, guarantee: str, records: dict[str, dict | None], statistics: dict | None) -> dict:
    """The certificate as a loaded release saves it again: the file's, with this version's texts where the file
    holds a former one (the guarantee, a draw's theorem and composition: the checked records), so that a release
    loaded from an older file is saved as the current version with the texts that version's reader accepts; without
    the record of the loss's probabilities (written again from the loss by the writer)."""
    saved = {key: value for key, value in copy.deepcopy(data).items() if key != PROBABILITY_RECORD}
    saved["guarantee"] = guarantee
    for key, record in (*records.items(), ("column_statistics", statistics)):
        if record is not None:
            saved[key] = copy.deepcopy(record)
    return saved


# The built-in forms' texts, each with the group its parameter is read from: huber_regression(m)'s "huber(z, m) / 2.0",
# huber_hinge(h)'s "huber(maximum(1 + h + -z, 0.0), 2 h) / 4 h", a ridge's "a * sum_squares(w)"
_HUBER_RESIDUAL = re.compile(r"huber\(z, ([^,()]+)\) / 2\.0")
_HUBER_HINGE = re.compile(r"huber\(maximum\([^,()]+ \+ -z, 0\.0\), ([^,()]+)\) / [^,()]+")
_RIDGE = re.compile(r"(?:([^ ]+) \* )?sum_squares\(w\)")
_CENTRED_RIDGE = re.compile(r"0\.5 \* sum_squares\(w \+ \(.*\)\)")  # release.weight_rules.CentredRidge


def _check_built_in_texts(verification: Certificate, values: dict, weights: CertifiedWeights | None,
                          intercept_scaling: float) -> None:
    """Refuse a loss or regularizer text of a built-in form that the recorded constants do not give. Each form is a
    text the verifier writes (:func:`~dpcvx.verification.verifier.loss_text`,
    :func:`~dpcvx.verification.verifier.regularizer_text`) of an expression made from public values the
    certificate records; where the file's text has that form, the values are taken from the records, the text is
    rebuilt by the same functions and must be the file's, and the constants must be the form's:

    - the logistic loss: L = 1, c = 1/4; huber_regression(m): m = L, c = 1; huber_hinge(h): h = 1 / (2 c), L = 1
      (:mod:`dpcvx.losses`; a user's expression of the same text is the same loss, with the same constants; L and c
      of a weighted fit divided by its w_max first);
    - the ridge a ||w||^2: a = m / 2 (the default 0.5 ||w||^2 at m = 1);
    - the ridge centred at the intercept offset of a private class count, b0 = log(count / (n - count)) divided by
      the intercept scaling (models.class_count): m = 1 and that centre. The centre of a public class prior's offset
      is not recorded apart, so only m = 1 is compared there.

    An edit with the digest recomputed ("0.25 * sum_squares(w)" next to m = 1, "huber(z, 0.01) / 2.0" next to a
    Huber hinge's c) loaded and the report showed it (an attacker probe, session 69, F4). A text of any other form (a
    user's own CVXPY expression) cannot be re-derived from the file and is not compared (docs/model-files.md)."""
    from ...losses import huber_hinge, huber_regression
    from ...verification.verifier import loss_text, regularizer_text

    def exact(name: str) -> Any:
        return verification.by_name[name].value if name in verification.by_name else None

    L, c, m, d = exact("lipschitz"), exact("curvature"), exact("strong_convexity"), int(values["d"])
    if weights is not None and weights.source != OFFSET_SOURCE and isinstance(L, Fraction) and isinstance(c, Fraction):
        # record weights multiply the loss's L and c by w_max (checked against the conditions: _check_weights_agree)
        L, c = L / Fraction(weights.bound), c / Fraction(weights.bound)
    loss, regularizer = verification.loss, verification.regularizer
    made: str | None = loss
    if loss == LOGISTIC_TEXT:
        made = loss if (L, c) == (1, Fraction(1, 4)) else None
    elif _form_text(_HUBER_RESIDUAL, loss, lambda m: loss_text(huber_regression(m))):
        made = loss_text(huber_regression(float(L))) if c == 1 and isinstance(L, Fraction) and L > 0 else None
    elif _form_text(_HUBER_HINGE, loss, lambda width: loss_text(huber_hinge(width / 2))):
        made = loss_text(huber_hinge(float(1 / (2 * c)))) if L == 1 and isinstance(c, Fraction) and c > 0 else None
    if made != loss:
        raise InputError(f"certificate.verification.loss is {_short(loss)}, a built-in loss's text, but the "
                         f"recorded constants L = {values.get('L')!r}, c = {values.get('c')!r} give "
                         f"{_short(made) if made else 'no such loss'}; the file has been edited")
    made = regularizer
    count = None if weights is None else weights.private_count
    if regularizer == "sum_squares(w)":  # ||w||^2 itself: m = 2
        made = regularizer if m == 2 else None
    elif _form_text(_RIDGE, regularizer, lambda a: regularizer_text(functools.partial(_scaled_ridge, a=a), d)):
        made = regularizer_text(functools.partial(_scaled_ridge, a=float(m / 2)), d) \
            if isinstance(m, Fraction) and m > 0 else None
    elif _CENTRED_RIDGE.fullmatch(regularizer) and count is not None and weights is not None \
            and weights.source == OFFSET_SOURCE:
        centre = log_odds(count_rates(count["count"], count["n"])) / intercept_scaling
        made = regularizer_text(CentredRidge(centre), d) if m == 1 else None
    elif _CENTRED_RIDGE.fullmatch(regularizer) and m != 1:
        made = None
    if made != regularizer:
        raise InputError(f"certificate.verification.regularizer is {_short(regularizer)}, a built-in ridge's text, "
                         f"but the recorded records give {_short(made) if made else 'another'} (m = "
                         f"{values.get('m')!r}); the file has been edited")


def _form_text(form: re.Pattern[str], text: str, written: Callable[[float], str]) -> bool:
    """Whether ``text`` is the text the built-in form writes at the parameter its group reads (``written``): a user's
    own expression of the same shape but other numbers (``cp.huber(cp.maximum(1 + -z, 0.0), 1.0) / 4.0``, a ridge
    scaled by a named constant ``a * sum_squares(w)``) is no built-in form, its constants not the form's, and is not
    compared (an attacker probe, session 69, P9 F1 and F2: such files were refused as edited)."""
    match = form.fullmatch(text)
    if match is None or match.group(1) is None:
        return False
    try:
        parameter = float(match.group(1))
    except ValueError:  # a named constant
        return False
    return math.isfinite(parameter) and parameter > 0 and written(parameter) == text


def _scaled_ridge(w: Any, a: float) -> Any:
    """a ||w||^2 as a CVXPY expression (the ridge form of :func:`_check_built_in_texts`)."""
    import cvxpy as cp

    return a * cp.sum_squares(w)


def _check_lam(lam: float, mean_weight: float) -> None:
    """Refuse a certificate's Lam that no fit gives: the user's numeric Lam in [LAM_MIN, LAM_MAX] (check_lam, every
    entry's check; a multiclass entry's and a tuned candidate's too, each its learner's own), or ``lam="auto"``'s value
    on its grid (within those limits) times the public mean record weight s_bar in (0, 1] (a weighted fit's rule
    chooses lam / s_bar). So lam lies in [LAM_MIN s_bar, LAM_MAX], below LAM_MIN by s_bar at most, which is allowed
    for every release: the record does not say which rule gave lam. Checked before the calibration is recomputed from
    it. R is the row map's norm bound (checked as the fit checked it, and compared: check_stated_rows) with the
    intercept column; intercept_scaling and label_bound are checked positive and finite only, since a fit may derive
    them ("auto" scaling, a private range's bound B' from the released cells) rather than take a user's bound."""
    positive("certificate.constants.lam", lam, minimum=LAM_MIN * mean_weight, maximum=LAM_MAX)


def read_label_shift(certificate: dict) -> float:
    """A regression certificate's public label shift s (``label_shift``: the centre (lo + hi) / 2 of a declared
    label_bound=(lo, hi), written only when not 0; 0 without the key): a finite number, on a certificate with a
    ``label_bound``."""
    if "label_shift" not in certificate:
        return 0.0
    if certificate.get("label_bound") is None:
        raise InputError("certificate.label_shift is the public centre of a regression's label range; this "
                         "certificate has no label_bound; the file has been edited")
    return _number("certificate.label_shift", certificate["label_shift"])


def label_range(statistics: dict) -> tuple[float, float]:
    """(the centre c, the half-width B') of the label's range that a checked ``certificate.column_statistics``
    record with a label gives, as the fit derived them (:func:`~dpcvx.data.standardiser.histogram_label_range` of
    the released cells; with no cells, too few rows for a level, the public B at c = 0): the fit saw y - c, clipped
    onto B', and added c to the intercept."""
    if statistics["label_cells"] is None:
        return 0.0, statistics["label_bound"]
    return histogram_label_range(np.array(statistics["label_cells"]), statistics["label_bound"],
                                 statistics["label_level"], statistics["label_depth"])


def _private_bound(key: str, data: Any, stated: Any, written: int) -> dict | None:
    """A recorded privately drawn bound (``key``): on its public grid of consecutive powers of two, equal to
    the certificate's ``stated`` bound (data_norm or label_bound), q in (0, 1), eps_q > 0."""
    if data is None:
        return None
    what = f"certificate.{key}"
    item = json_object(what, data, set(PRIVATE_BOUND_KEYS))
    grid = item["grid"]
    if not isinstance(grid, list) or not grid:
        raise InputError(f"{what}.grid must be a non-empty list of powers of two")
    values = [_positive(f"{what}.grid[{i}]", value) for i, value in enumerate(grid)]
    if values != list(power_of_two_grid(values[0], values[-1])):
        raise InputError(f"{what}.grid must be the consecutive powers of two of a public range; the file has been "
                         "edited")
    bound = _positive(f"{what}.bound", item["bound"])
    if bound not in values or bound != stated:
        raise InputError(f"{what}.bound is {bound!r}: it must lie on the grid and be the certificate's bound "
                         f"{stated!r}; the file has been edited")
    _positive(f"{what}.epsilon", item["epsilon"])
    _number(f"{what}.total_epsilon", item["total_epsilon"])
    if not 0 < _number(f"{what}.quantile", item["quantile"]) < 1:
        raise InputError(f"{what}.quantile must lie in (0, 1)")
    return _replace_one_texts(what, item, "the quantile's proof",
                              (LABEL_BOUND_THEOREM if key == "private_label_bound" else QUANTILE_THEOREM,),
                              (QUANTILE_COMPOSITION, *written_until(FORMER_QUANTILE_LAST, written,
                                                                    FORMER_QUANTILE_COMPOSITIONS)))


_STATISTICS_KEYS = {"epsilon", "n", "lattice_bits", "sensitivity", "sums", "theorem", "neighbours", "composition",
                    "total_epsilon"}
_RANGES_KEYS = {"epsilon", "n", "depth", "level", "sensitivity", "cells", "theorem", "neighbours", "composition",
                "total_epsilon"}
# DPHuberRegressor's label range (column_statistics "auto" or "ranges" with a label)
_LABEL_KEYS = {"label_epsilon", "label_bound", "label_depth", "label_level", "label_cells", "label_theorem"}


def column_statistics_record(data: Any, what: str = "certificate.column_statistics",
                             written: int = MODEL_FORMAT_VERSION) -> dict | None:
    """A recorded release of private column statistics (models.column_statistics) in the field ``what`` of a file of
    format version ``written``: eps_s > 0, n >= 1, the released integer sums (2 d of them), and the L1 sensitivity
    that d and the lattice give; or the released ranges of ``column_statistics="ranges"`` (:func:`_column_ranges`).
    The record returned holds this version's texts (:func:`_replace_one_texts`)."""
    if data is None:
        return None
    if isinstance(data, dict) and "cells" in data:
        return _column_ranges(data, what, written)
    item = json_object(what, data, _STATISTICS_KEYS)
    _positive(f"{what}.epsilon", item["epsilon"])
    _number(f"{what}.total_epsilon", item["total_epsilon"])
    sums, n, bits = item["sums"], item["n"], item["lattice_bits"]
    if not isinstance(sums, list) or not sums or len(sums) % 2 or not all(
            isinstance(value, int) and not isinstance(value, bool) for value in sums):
        raise InputError(f"{what}.sums must be a non-empty list of an even number of integers")
    if not all(_INT64.min <= value <= _INT64.max for value in sums):  # the fit sums in int64 (models.column_statistics)
        raise InputError(f"{what}.sums holds an integer outside int64, which no released sum holds; the file has "
                         "been edited")
    # the lattice 2^-bits of the unit rows is a double (bits <= 1074): its caps, isqrt(4^bits d), stay computable
    if not all(isinstance(value, int) and not isinstance(value, bool) and value >= 1 for value in (n, bits)) \
            or bits > _DOUBLE_BITS:
        raise InputError(f"{what}.n and .lattice_bits must be positive integers, lattice_bits at most {_DOUBLE_BITS}")
    d = len(sums) // 2
    if not _same_integer(item["sensitivity"], sums_sensitivity(d, bits)):
        raise InputError(f"{what}.sensitivity is not the L1 sensitivity of {d} columns on the lattice 2^-{bits}; "
                         "the file has been edited")
    return _replace_one_texts(what, item, "the statistics' proof", (STATISTICS_THEOREM,), (STATISTICS_COMPOSITION,))


def _column_ranges(data: dict, what: str, written: int) -> dict:
    """A recorded release of ``column_statistics="ranges"`` (privacy.column_histogram) in the field ``what``: eps_s
    > 0, n >= 1, the public depth and level, 2 x d grid indices with low <= high within [0, 2^D], and the L1
    sensitivity 2 d."""
    item = json_object(what, data, _RANGES_KEYS | (_LABEL_KEYS if "label_cells" in data else set()))
    _positive(f"{what}.epsilon", item["epsilon"])
    _number(f"{what}.total_epsilon", item["total_epsilon"])
    n, cells = item["n"], item["cells"]
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError(f"{what}.n must be a positive integer")
    if not same_number(item["level"], HISTOGRAM_LEVEL):
        raise InputError(f"{what}.level must be dpcvx's public {HISTOGRAM_LEVEL}; the file has been edited")
    if not _grid_indices(cells, 1 << HISTOGRAM_DEPTH):
        raise InputError(f"{what}.cells must be two equal lists of grid indices in [0, {1 << HISTOGRAM_DEPTH}], "
                         "low <= high")
    if not _same_integer(item["sensitivity"], histogram_sensitivity(len(cells[0]))):
        raise InputError(f"{what}.sensitivity is not the L1 sensitivity of {len(cells[0])} columns' histograms; the "
                         "file has been edited")
    # the features' grid: 2^8 cells for the classifiers; with a label the public rule of n, d and eps_s
    depth = HISTOGRAM_DEPTH if "label_cells" not in item else histogram_depth(n, len(cells[0]), item["epsilon"])
    if not _same_integer(item["depth"], depth) or not _grid_indices(cells, 1 << depth):
        raise InputError(f"{what}.depth must be the public depth {depth} of the features' grid and the cells within "
                         f"[0, {1 << depth}]; the file has been edited")
    if "label_cells" in item:
        _positive(f"{what}.label_epsilon", item["label_epsilon"])
        _positive(f"{what}.label_bound", item["label_bound"])
        _same_text(f"{what}.label_theorem", item["label_theorem"], (LABEL_THEOREM,))
        # the label's grid: the public rule of n and eps_l (None: too few rows for a level at any depth)
        label_grid = label_depth(n, item["label_epsilon"])
        if not (item["label_depth"] is None if label_grid is None else _same_integer(item["label_depth"], label_grid)):
            raise InputError(f"{what}.label_depth must be the public depth {label_grid} of the label's grid at n = {n} "
                             "rows and eps_l; the file has been edited")
        level = None if label_grid is None else histogram_level(n, 1, item["label_epsilon"], label_grid)
        if not (item["label_level"] is None if level is None else same_number(item["label_level"], level)):
            raise InputError(f"{what}.label_level is not the public level of n = {n} rows at eps_l; the file has "
                             "been edited")
        label_cells, top = item["label_cells"], 1 << (HISTOGRAM_DEPTH if label_grid is None else label_grid)
        if not (label_cells is None if item["label_level"] is None else _grid_indices(label_cells, top, 1)):
            raise InputError(f"{what}.label_cells must be two lists of one grid index in [0, {top}], low <= high (null "
                             "with a null label_level)")
    return _replace_one_texts(what, item, "the ranges' proof",
                              (RANGES_THEOREM, *written_until(FORMER_RANGES_LAST, written, FORMER_RANGES_THEOREMS)),
                              (STATISTICS_COMPOSITION,))


def _same_integer(recorded: Any, recomputed: int) -> bool:
    """Whether a recorded integer (a JSON integer, not a flag) is the recomputed one."""
    return isinstance(recorded, int) and not isinstance(recorded, bool) and recorded == recomputed


def _grid_indices(cells: Any, top: int, columns: int | None = None) -> bool:
    """Whether ``cells`` are two equal lists (of ``columns`` entries when given, else at least one) of integer grid
    indices in [0, top], low <= high."""
    return (isinstance(cells, list) and len(cells) == 2 and all(isinstance(side, list) for side in cells)
            and len(cells[0]) == len(cells[1]) >= 1 and (columns is None or len(cells[0]) == columns)
            and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= top for side in cells for v in side)
            and all(low <= high for low, high in zip(*cells, strict=True)))


#: how far above the count's and the fit's sum (in ulps) the eps_fit of column statistics drawn before a class count
#: may lie: the statistics' share, which the count splits again (models.column_statistics.counted_fit_share; the
#: count's split fl(eps_c + fit_c) <= eps_fit, within an ulp or two), is not recorded apart
_OUTER_FIT_ULPS = 4


def _check_drawn_guarantee(guarantee: str, fitted: str, epsilon: float, delta: float, total: float,
                           bounds: dict[str, dict | None], statistics: dict | None, weights: CertifiedWeights | None,
                           counted: tuple[str, ...], former: tuple[str, ...] = (),
                           written: int = MODEL_FORMAT_VERSION) -> str:
    """Refuse the guarantee of a release with private draws before its fit unless it is, whole, the text the writers
    make of the file's records (:mod:`dpcvx.release.draw_texts`, the writers' own functions): the opening with the
    recorded total and delta, each drawn bound, the class count (of the class named as one of ``counted``: the
    file's positive class, :func:`~dpcvx.release.draw_texts.class_texts`, or one-vs-rest's class against the rest)
    with its released value and eps_c, the column statistics' eps_s and a label range's eps_l, each eps_fit, then the
    fit's own guarantee ``fitted``. A reader that only picked those numbers out of the text loaded free words, an
    extra earlier "(eps_fit = 0.001)" and a renamed class, and a report printed them (an attacker probe, session
    69). The one value not recorded apart, the eps_fit of column statistics drawn before a class count (the count's
    and the fit's together), is taken within :data:`_OUTER_FIT_ULPS` ulps above their sum. A file written before the
    sixty-eighth session (format version ``written`` at most :data:`~dpcvx.release.draw_texts.FORMER_NUMBERS_LAST`,
    a drawn bound's at most :data:`~dpcvx.release.draw_texts.FORMER_BOUND_NUMBERS_LAST`) wrote every number with
    ``:g`` (:func:`~dpcvx.release.draw_texts.former_number`), and a one-vs-rest entry before the sixty-seventh
    (version :data:`~dpcvx.release.draw_texts.FORMER_CLASS_LAST` at most) named its own positive class (``former``,
    with ``:g`` numbers only): accepted as exact matches of those texts, in a file of such a version only (in any
    file, a re-digested version 19 entry named another class of the model: an attacker probe, session 69, P9 F3).
    Returns the text to hold: the file's, or for a former text this version's text of the same records."""
    current = _drawn_texts(number_text, counted[:1], fitted, epsilon, delta, total, bounds, statistics, weights)
    if guarantee in current:
        return guarantee
    numbers = FORMER_BOUND_NUMBERS_LAST if any(bounds.values()) else FORMER_NUMBERS_LAST
    made = _drawn_texts(number_text, counted[1:], fitted, epsilon, delta, total, bounds, statistics, weights)
    if written <= numbers:
        made += _drawn_texts(former_number, (*counted, *written_until(FORMER_CLASS_LAST, written, former)), fitted,
                             epsilon, delta, total, bounds, statistics, weights)
    if written <= FORMER_BOUND_LAST:
        made += _former_bound_texts(fitted, epsilon, delta, total, bounds, statistics, weights)
    if guarantee not in made or not current:
        shown = f" ({_short(current[0])})" if current else ""
        raise InputError(f"certificate.guarantee is not the text dpcvx writes for this release's recorded private "
                         f"draws and fit{shown}; the file has been edited")
    return current[0]


def _drawn_texts(number: Number, labels: tuple[str, ...], fitted: str, epsilon: float, delta: float, total: float,
                 bounds: dict[str, dict | None], statistics: dict | None,
                 weights: CertifiedWeights | None) -> list[str]:
    """The guarantees the writers make of the records, their numbers written by ``number``, the counted class named
    as one of ``labels`` (:func:`_check_drawn_guarantee`)."""
    drawn = [(name, record["bound"], record["epsilon"]) for name, record in
             (("R", bounds.get("private_bound")), ("B", bounds.get("private_label_bound"))) if record is not None]
    count = None if weights is None else weights.private_count
    if drawn:  # a private bound's fit draws neither a count nor statistics (refused at the fit)
        return [bounds_guarantee(total, delta, drawn, epsilon, fitted, number)] \
            if count is None and statistics is None else []
    inner = [fitted]
    if count is not None:
        assert weights is not None
        use = "intercept offset" if weights.source == OFFSET_SOURCE else "balanced class weights"
        inner = [count_guarantee(sequential_epsilon([count["epsilon"], epsilon]), delta, label, count["count"],
                                 count["epsilon"], use, epsilon, fitted, number) for label in labels]
    if statistics is None:
        return inner
    outer = [epsilon]
    if count is not None:
        outer = [sequential_epsilon([count["epsilon"], epsilon])]
        for _ in range(_OUTER_FIT_ULPS):
            outer.append(math.nextafter(outer[-1], math.inf))
    return [statistics_guarantee(total, delta, statistics["epsilon"], statistics.get("label_epsilon"), eps_fit,
                                 text, number) for eps_fit in outer for text in inner]


def _former_bound_texts(fitted: str, epsilon: float, delta: float, total: float, bounds: dict[str, dict | None],
                        statistics: dict | None, weights: CertifiedWeights | None) -> list[str]:
    """A row-norm bound's guarantee as the first writer of ``data_norm="private"`` made it (one bound, every number
    ``:g``), before the label's bound was offered (:func:`~dpcvx.release.draw_texts.former_bound_guarantee`)."""
    record = bounds.get("private_bound")
    if record is None or bounds.get("private_label_bound") is not None or statistics is not None or (
            weights is not None and weights.private_count is not None):
        return []
    return [former_bound_guarantee(total, delta, record["bound"], record["epsilon"], epsilon, fitted)]


def _replace_one_texts(what: str, item: dict, proof: str, theorem: tuple[str, ...],
                       composition: tuple[str, ...]) -> dict:
    """A recorded private draw states replace-one neighbours (``proof``'s relation), and a ``theorem`` and a
    ``composition`` its writer records (:mod:`dpcvx.release.draw_texts`, the quantile's in
    :mod:`dpcvx.privacy.quantile`; the first of each is this version's, the others those former versions' writers
    wrote, which the caller passes for a file of such a version only): a report shows them beside the recorded
    constants. Returns the record with this version's texts (a former text read as the current one)."""
    if Neighbours.of_statement(_text(f"{what}.neighbours", item["neighbours"]),
                               f"{what}.neighbours") is not Neighbours.REPLACE_ONE:
        raise InputError(f"{what}.neighbours must be replace-one ({proof})")
    _same_text(f"{what}.theorem", item["theorem"], theorem)
    _same_text(f"{what}.composition", item["composition"], composition)
    return {**item, "theorem": theorem[0], "composition": composition[0]}


def _same_text(what: str, value: Any, written: tuple[str, ...]) -> None:
    """Refuse a recorded text other than one its writer records (``written``: this version's first)."""
    if _text(what, value) not in written:
        raise InputError(f"{what} is not the text dpcvx records there ({_short(written[0])}); the file has been "
                         "edited")


def recorded_clipping(what: str, value: Any, clipped: str) -> str:
    """A recorded ``clipping``: the writer's ``clipped`` text (its rows clipped onto their bound) or
    :data:`~dpcvx.release.draw_texts.NOT_CLIPPED` (refused), which the report prints beside the constants; any other
    text is refused (an edited one loaded)."""
    _same_text(what, value, (clipped, NOT_CLIPPED))
    return str(value)


_WEIGHT_KEYS = {"source", "bound", "sample_weight_bound", "class_weights", "mean_weight", "theorem", "private_count"}
_COUNT_KEYS = {"epsilon", "count", "n", "floor", "theorem", "neighbours", "composition", "total_epsilon"}


def _weights(data: Any) -> CertifiedWeights | None:
    """The recorded record weights (models.record_weights): w_max > 0, the class weights in [0, w_max], a source
    named, and a private count's record (eps_c > 0, the count within [floor, n - floor])."""
    if data is None:
        return None
    item = json_object("certificate.weights", {key: value for key, value in data.items() if key != "private_count"}
                       if isinstance(data, dict) else data, _WEIGHT_KEYS - {"private_count"})
    drawn_sources = ("private count", OFFSET_SOURCE)
    if item["source"] not in ("sample_weight", "dict", "prior", *drawn_sources):
        raise InputError(f"certificate.weights.source {item['source']!r} is not a dpcvx source of weights")
    bound = _positive("certificate.weights.bound", item["bound"])
    if item["sample_weight_bound"] is not None:
        _positive("certificate.weights.sample_weight_bound", item["sample_weight_bound"])
    pairs = item["class_weights"]
    if pairs is not None and (not isinstance(pairs, list) or len(pairs) != 2 or any(
            not isinstance(pair, list) or len(pair) != 2 or not 0 <= _number("certificate.weights.class_weights",
                                                                             pair[1]) <= bound for pair in pairs)):
        raise InputError("certificate.weights.class_weights must be two [class, weight] pairs with weights in "
                         "[0, bound]; the file has been edited")
    # the writer's one text for its source (release.draw_texts): an edited theorem loaded and the report showed it
    _same_text("certificate.weights.theorem", item["theorem"],
               (OFFSET_THEOREM if item["source"] == OFFSET_SOURCE else WEIGHTS_THEOREM,))
    if item["mean_weight"] is not None and not 0 < _number("certificate.weights.mean_weight", item["mean_weight"]) <= 1:
        raise InputError("certificate.weights.mean_weight must lie in (0, 1]; the file has been edited")
    count = data.get("private_count")
    if (count is None) != (item["source"] not in drawn_sources):
        raise InputError(f"certificate.weights: a private count is recorded exactly when the source is one of "
                         f"{drawn_sources}; the file has been edited")
    if item["source"] == OFFSET_SOURCE and (pairs is not None or bound != 1.0 or item["mean_weight"] is not None):
        raise InputError("certificate.weights: a private count that sets the intercept offset comes with unit "
                         "weights (no class weights, bound 1); the file has been edited")
    if count is not None:
        record = json_object("certificate.weights.private_count", count, _COUNT_KEYS)
        _positive("certificate.weights.private_count.epsilon", record["epsilon"])
        n, floor, drawn = (record[key] for key in ("n", "floor", "count"))
        if not all(isinstance(value, int) and not isinstance(value, bool) for value in (n, floor, drawn)) \
                or not 0 < floor <= drawn <= n - floor:
            raise InputError("certificate.weights.private_count: the count must lie in [floor, n - floor]; the file "
                             "has been edited")
        if floor != count_floor(n):
            raise InputError(f"certificate.weights.private_count.floor is {floor} but the public rule gives "
                             f"{count_floor(n)} at n = {n} (ceil({MIN_CLASS_RATE:g} n)); the file has been edited")
        _replace_one_texts("certificate.weights.private_count", record, "the count's proof", (COUNT_THEOREM,),
                           (OFFSET_COMPOSITION if item["source"] == OFFSET_SOURCE else COUNT_COMPOSITION,))
        _number("certificate.weights.private_count.total_epsilon", record["total_epsilon"])
    return CertifiedWeights(
        source=item["source"], bound=bound, sample_weight_bound=item["sample_weight_bound"],
        class_weights=None if pairs is None else tuple((label, weight) for label, weight in pairs),
        mean_weight=item["mean_weight"], theorem=item["theorem"], private_count=None if count is None else dict(count))


def _check_weights_agree(weights: CertifiedWeights | None, n: float, verification: Certificate) -> None:
    """Refuse a weights record that disagrees with the copies of its facts the file holds: w_max, the class weights
    and s_bar as the public rules make them from the recorded source, class weights, ``sample_weight_bound`` and
    count (:mod:`dpcvx.release.weight_rules`, the fit's own rules: balanced weights of a prior or of the count's rates
    ``count / n`` at the certificate's n); and the record's presence and w_max against the verified conditions L and
    c, which a weighted fit multiplied by w_max and noted so in their detail
    (:func:`~dpcvx.verification.problem.weight_note`; a private count that sets the intercept offset weighs every
    record 1 and notes nothing). The unweighted constants are not in the file: which class a dict's weights name and
    the dict's smaller weight have no other copy (docs/model-files.md)."""
    what = "certificate.weights"
    count = None if weights is None else weights.private_count
    if count is not None and not same_number(count["n"], n):
        raise InputError(f"{what}.private_count.n is {count['n']!r} but the certificate states n = {n:g}; the file "
                         "has been edited")
    if weights is not None and weights.source != OFFSET_SOURCE:  # (the offset's unit weights: checked by _weights)
        pairs = None if weights.class_weights is None else tuple(weight for _, weight in weights.class_weights)
        sample_bound, source = weights.sample_weight_bound, weights.source
        if (source == "sample_weight") != (pairs is None) or (source == "sample_weight" and sample_bound is None):
            raise InputError(f"{what}: sample_weight alone (source 'sample_weight') records a sample_weight_bound and "
                             "no class weights, and class weights record their source; the file has been edited")
        rates = None
        if source in ("prior", "private count"):
            assert pairs is not None
            rates = prior_rates(pairs) if count is None else count_rates(count["count"], count["n"])
            if not all(map(same_number, pairs, balanced_weights(rates))):
                given = "the count's rates count / n" if count is not None else "a prior (one weight 1)"
                raise InputError(f"{what}.class_weights are not the balanced weights of {given}; the file has been "
                                 "edited")
        if not same_number(weights.bound, weight_bound(pairs, sample_bound)):
            raise InputError(f"{what}.bound is {weights.bound!r} but sample_weight_bound times the largest class "
                             f"weight is {weight_bound(pairs, sample_bound)!r}; the file has been edited")
        mean = mean_record_weight(rates, pairs, sample_bound)
        if (weights.mean_weight is None) != (mean is None) or not same_number(weights.mean_weight, mean):
            raise InputError(f"{what}.mean_weight is {weights.mean_weight!r} but the recorded weights give s_bar = "
                             f"{mean!r}; the file has been edited")
    bound = None if weights is None or weights.source == OFFSET_SOURCE else weights.bound  # w_max of L and c
    for condition in verification.conditions:
        if condition.name not in ("lipschitz", "curvature") or condition.value is None:
            continue
        if bound is not None and not condition.detail.endswith(weight_note(bound)):
            raise InputError(f"{what}.bound is {bound!r} but the verified condition {condition.name} is not "
                             "multiplied by that w_max; the file has been edited")
        if bound is None and condition.detail.endswith(WEIGHTED_TAIL):
            raise InputError(f"the verified condition {condition.name} is multiplied by a weight bound w_max but "
                             f"{what} records no record weights; the file has been edited")


def _lam_rule(data: Any, values: dict, calibration: LinearCalibration, R: float,
              mean_weight: float, curvature: Any, bounds: tuple[float, float | None, float | None]) -> LamChoice | None:
    """The recorded ``lam="auto"`` choice: its rule, a positive finite W that is the one the rule's name derives
    from the public ``bounds`` (the features' R, the intercept column s or None, a regression's label bound B or
    None: :func:`~dpcvx.privacy.lam_rule.recorded_comparator`, as the fit derived it) unless the fit was given W,
    a lam equal to the certificate's, and the bound's noise and bias terms recomputed at that lam and W from the
    public constants, the calibration and the mean record weight s_bar
    (:func:`~dpcvx.privacy.lam_rule.excess_risk_bound`, as the rule computed them: the rule's Lam is the
    certificate's lam / s_bar, its n round(n s_bar); at the continuous calibration a float-safe release puts on its
    lattice, and with the verified curvature c, which the rule reads for every mechanism while the constants record
    it only where the calibration does)."""
    if data is None:
        return None
    item = json_object("certificate.lam_rule", data, {"rule", "lam", "comparator_norm", "noise", "bias"})
    derived = recorded_comparator(_text("certificate.lam_rule.rule", item["rule"]), *bounds)
    for key in ("noise", "bias"):
        _number(f"certificate.lam_rule.{key}", item[key])
    lam = values.get("lam")
    if lam is None or _number("certificate.lam_rule.lam", item["lam"]) != lam:
        raise InputError(f"certificate.lam_rule.lam is {item['lam']!r} but the certificate states lam = {lam!r}; "
                         "the file has been edited")
    comparator = _positive("certificate.lam_rule.comparator_norm", item["comparator_norm"])
    if derived is not None and comparator != derived:
        raise InputError(f"certificate.lam_rule.comparator_norm is {comparator!r} but the rule {item['rule']!r} "
                         f"derives W = {derived!r} from the certificate's public bounds (data_norm, intercept_scaling"
                         f"{', label_bound' if bounds[2] is not None else ''}); the file has been edited")
    c = None if curvature is None else float_up(curvature)  # the fit's problem.curvature
    terms = excess_risk_bound(continuous_calibration(calibration), n=max(1, round(values["n"] * mean_weight)),
                              d=int(values["d"]), lam=lam / mean_weight, L=values["L"], R=R, m=values["m"],
                              c=None if c is None or not math.isfinite(c) else c, comparator_norm=comparator,
                              mean_weight=mean_weight)
    for key, term in zip(("noise", "bias"), terms, strict=True):
        if not math.isclose(item[key], term, rel_tol=_RULE_TOLERANCE):
            raise InputError(f"certificate.lam_rule.{key} is {item[key]!r} but the rule's bound at lam and W from "
                             f"the certificate's constants gives {term!r}; the file has been edited")
    return LamChoice(lam=item["lam"], comparator_norm=item["comparator_norm"], noise=item["noise"], bias=item["bias"],
                     rule=item["rule"])


def _texts(key: str, steps: Any) -> tuple[str, ...]:
    """A list of texts as saved: the public rules applied to the released weights (post_processing,
    dpcvx.release.sparsify) or the public checks of them (findings, dpcvx.release.usefulness)."""
    if not isinstance(steps, list):
        raise InputError(f"certificate.{key} must be a list of texts")
    return tuple(_text(f"certificate.{key}", step) for step in steps)
