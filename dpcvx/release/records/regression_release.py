"""The record of a regression release (kind ``"regression"``): AdaSSP's sufficient-statistics release or noisy
gradient descent's on privately mapped rows (mechanism ``gradient-ranged``), its calibration recomputed from the
stated public bounds, or a regression ERM in the linear layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...data.files import json_object
from ...data.preprocessing import PublicSchema
from ...data.rows import RowMap
from ...data.standardiser import adassp_map, is_statistics_map, label_range, range_map
from ...exceptions import InputError
from ...privacy.adassp import (
    ADASSP,
    ADASSP_RANGED,
    ADASSP_STANDARDISED,
    COLUMN_SPREAD,
    AdaSSPCalibration,
    range_search_level,
)
from ...privacy.calibration import PublicFacts
from ...privacy.gradient_descent import (
    GRADIENT_RANGED,
    LONG_STEPS,
    LONG_STEPS_AT,
    MOMENTUM,
    MOMENTUM_AT,
    MOMENTUM_FROM,
    STEPS,
    GradientCalibration,
    descent_momentum,
    descent_steps,
)
from ...privacy.privacy_curve import check_recorded_curve
from ...privacy.rng import NoiseSource
from ...validation import _short, check_delta, check_epsilon, number_text
from ...version import __version__
from ..draw_texts import BOUNDS_CLIPPED
from ..model import PrivateModel, ReleaseCertificate
from ..regression_model import (
    ADASSP_STATEMENTS,
    PrivateRegressionModel,
    SufficientStatisticsCertificate,
    sufficient_statistics_statement,
)
from .calibration_record import rebuild
from .fields import _check_same, _count, _flag, _integer, _number, _positive, _stated_relation, _text
from .header import MODEL_FORMAT, MODEL_FORMAT_VERSION
from .linear_release import (
    _PREPROCESSING_KEYS,
    PRIVATISED_KEYS,
    _weights,
    check_intercept,
    check_stated_rows,
    linear_from_dict,
    linear_to_dict,
)
from .release_certificate import read_label_shift, recorded_clipping
from .row_map import (
    SCHEMA_RECORD,
    _check_schema_fits,
    _row_map,
    _row_map_to_dict,
    check_map_record,
    check_schema_record,
    read_schema,
    schema_record,
)

_ADASSP_KEYS = {"format", "format_version", "kind", "library_version", "epsilon", "delta", "classes", "privatised",
                "preprocessing", "certificate", "mechanism"}
# the certificates' keys are their dataclasses' fields (plus the privacy curve each writes)
_ADASSP_CERTIFICATE_FIELDS = SufficientStatisticsCertificate.recorded_fields() - {"column_statistics", "label_shift"}
_ADASSP_CERTIFICATE_KEYS = _ADASSP_CERTIFICATE_FIELDS | {"privacy_curve"}
# the certificate's public fields, each read by its type (the calibration and column statistics are read apart); the
# budget as the fit checked it (check_epsilon, check_delta); data_norm is the row map's, checked as the fit checked it
# and compared (check_stated_rows); label_bound is positive only: a declared range (lo, hi) gives its half-width
_ADASSP_FIELD_TYPES: dict[str, Callable[[str, Any], Any]] = {
    "mechanism": _text, "guarantee": _text, "epsilon": lambda what, value: check_epsilon(value, what),
    "delta": lambda what, value: check_delta(value, what), "data_norm": _positive,
    "effective_norm_bound": _positive, "label_bound": _positive, "fit_intercept": _flag,
    "intercept_scaling": _positive, "clipping": lambda what, value: recorded_clipping(what, value, BOUNDS_CLIPPED),
    "neighbours": _text, "library_version": _text,
    "noise_source": lambda what, value: NoiseSource.parse(value, what)}
assert set(_ADASSP_FIELD_TYPES) == _ADASSP_CERTIFICATE_FIELDS - {"calibration"}
_STATISTICS_KEYS = {"n", "spread", "sums"}  # ADASSP_STANDARDISED's certificate.column_statistics
_RANGES_KEYS = {"n", "level", "label_bound", "ranges"}  # ADASSP_RANGED's certificate.column_statistics


def regression_to_dict(model: PrivateRegressionModel, schema: PublicSchema | None) -> dict:
    """A regression release: the linear layout with kind "regression", no classes, and the label bound."""
    if isinstance(model.certificate, ReleaseCertificate):
        data = linear_to_dict(PrivateModel(model.coef_, model.intercept_, (-1, 1), model.rows, model.certificate),
                               schema)
    else:  # AdaSSP
        if schema is not None and not isinstance(schema, PublicSchema):
            raise InputError(f"schema must be a PublicSchema or None, got {type(schema).__name__}")
        _check_schema_fits(schema, model.rows, model.coef_.shape[0])
        saved_schema = None if schema is None else schema.to_dict()
        record = schema_record(saved_schema)
        certificate = {**model.certificate.to_dict(), **({} if record is None else {SCHEMA_RECORD: record})}
        data = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "library_version": __version__,
                "mechanism": certificate["mechanism"], "epsilon": certificate["epsilon"],
                "delta": certificate["delta"], "privatised": {"coef": model.coef_.tolist(),
                                                              "intercept": model.intercept_},
                "preprocessing": {"schema": saved_schema, "row_map": _row_map_to_dict(model.rows)},
                "certificate": certificate}
    return {**data, "kind": "regression", "classes": None}


def _adassp_from_dict(data: dict) -> PrivateRegressionModel:
    """An AdaSSP (or gradient-ranged) release: the calibration is recomputed from the stated public bounds and
    compared."""
    item = json_object("the model file", data, _ADASSP_KEYS)
    if item["classes"] is not None:
        raise InputError(f"classes of a regression file must be null, got {_short(item['classes'])}; the file has "
                         "been edited")
    mechanism = item["certificate"].get("mechanism") if isinstance(item["certificate"], dict) else None
    standardised, gradient = mechanism == ADASSP_STANDARDISED, mechanism == GRADIENT_RANGED
    ranged = gradient or mechanism == ADASSP_RANGED
    kind: type[AdaSSPCalibration | GradientCalibration] = GradientCalibration if gradient else AdaSSPCalibration
    saved = json_object("certificate", item["certificate"],
                        _ADASSP_CERTIFICATE_KEYS | ({"column_statistics"} if standardised or ranged else set())
                        | {key for key in ("label_shift", SCHEMA_RECORD) if key in item["certificate"]})
    recorded = _recorded_inputs(saved["calibration"], gradient, ranged)
    stated = {key: read(f"certificate.{key}", saved[key]) for key, read in _ADASSP_FIELD_TYPES.items()}
    # the private label range's (c, B') where one was searched, else the public B at c = 0
    centre, label_bound = _ranged_label_range(saved, recorded, kind) if ranged else (0.0, stated["label_bound"])
    facts = PublicFacts(epsilon=stated["epsilon"], delta=stated["delta"],
                        data_norm=stated["effective_norm_bound"], label_bound=label_bound)
    calibration = rebuild(kind, recorded, facts, "the stated epsilon, delta and bounds")
    _stated_relation("certificate.neighbours", stated["neighbours"], calibration.relation,
                     ADASSP_STATEMENTS[calibration.relation])
    preprocessing = json_object("preprocessing", item["preprocessing"], _PREPROCESSING_KEYS)
    rows = _row_map(preprocessing["row_map"])
    # AdaSSP's only map is its column statistics' (checked against them below): plain AdaSSP's rows take none
    check_map_record(preprocessing["row_map"]["feature_map"], None, from_statistics=standardised or ranged)
    for key in ("epsilon", "delta", "mechanism", "library_version"):
        _check_same(key, item[key], saved[key])
    privatised = json_object("privatised", item["privatised"], PRIVATISED_KEYS)
    coef = _weights(privatised["coef"])
    if coef.size + rows.fit_intercept != calibration.dim:
        raise InputError("privatised.coef does not have the calibrated number of weights; the file has been edited")
    # gradient-ranged searches every column's range or the label's alone (range_columns >= 1 by its calibration; the
    # record's ranges must list as many: _column_ranges)
    if isinstance(calibration, AdaSSPCalibration) and (
            calibration.column_statistics is not standardised or bool(calibration.range_columns) is not ranged):
        raise InputError("certificate.mechanism and certificate.calibration disagree on the column statistics; the "
                         "file has been edited")
    if (stated["mechanism"], stated["guarantee"]) != sufficient_statistics_statement(calibration):
        raise InputError("certificate.mechanism or certificate.guarantee is not what dpcvx states for this "
                         "calibration; the file has been edited")
    recorded_statistics = saved.get("column_statistics")
    statistics = (_column_statistics(recorded_statistics, calibration, rows, coef.size)
                  if isinstance(calibration, AdaSSPCalibration) and standardised else
                  _column_ranges(recorded_statistics, calibration, rows, coef.size, saved["label_bound"]) if ranged
                  else None)
    if isinstance(calibration, GradientCalibration):
        assert statistics is not None
        _check_descent(calibration, statistics["n"], coef.size, rows.fit_intercept)
    certificate = SufficientStatisticsCertificate(**stated, calibration=calibration, column_statistics=statistics,
                                                  label_shift=read_label_shift(saved))
    check_stated_rows(rows, certificate)
    check_recorded_curve(saved["privacy_curve"], certificate.privacy_curve)
    intercept = _number("privatised.intercept", privatised["intercept"])
    check_intercept(intercept, rows, centre, certificate.label_shift)
    model = PrivateRegressionModel(coef, intercept, rows, certificate)
    model.schema = read_schema("preprocessing.schema", preprocessing["schema"])
    check_schema_record(preprocessing["schema"], saved.get(SCHEMA_RECORD))
    _check_schema_fits(model.schema, rows, coef.size)
    return model


def _recorded_inputs(recorded: Any, gradient: bool, ranged: bool) -> dict:
    """certificate.calibration of an AdaSSP (or, ``gradient``, a noisy gradient descent) file, its integer inputs
    checked before they reach the calibration as a fit's are: d and the searched columns (``ranged``) positive
    integers, and T one of dpcvx's public numbers of steps (``STEPS`` or ``LONG_STEPS``: no fit sets another)."""
    if not isinstance(recorded, dict):
        raise InputError("certificate.calibration must be an object")
    for key in ("dim", "range_columns") if ranged else ("dim",):
        _count(f"certificate.calibration.{key}", recorded.get(key))
    if gradient and _integer("certificate.calibration.steps", recorded.get("steps")) not in (STEPS, LONG_STEPS):
        raise InputError(f"certificate.calibration.steps must be dpcvx's public number of gradient steps T ({STEPS}, "
                         f"or {LONG_STEPS} at n epsilon / d >= {LONG_STEPS_AT:g}), got "
                         f"{_short(recorded.get('steps'))}; the file has been edited")
    return recorded


def _check_descent(calibration: GradientCalibration, n: int, d: int, fit_intercept: bool) -> None:
    """A gradient-ranged calibration's T, level and momentum where the fit's public rules forbid them in a file of any
    version: T = ``LONG_STEPS`` where ``descent_steps`` of n, epsilon and d gives ``STEPS``, a level without an
    intercept, and a momentum other than the one ``descent_momentum`` gives. (A whole calibration made again and
    signed again was read as a mechanism that was not run.) The other way round is what older files hold (T = 20 and
    no level in format version 11, no momentum before the fifty-second session, whatever n and the intercept), so it
    is not refused."""
    if calibration.steps == LONG_STEPS and descent_steps(n, calibration.epsilon, d) != LONG_STEPS:
        raise InputError(f"certificate.calibration.steps is {LONG_STEPS}, but the fit takes T = {STEPS} at n = {n}, "
                         f"epsilon = {number_text(calibration.epsilon)} and d = {d} (n epsilon / d < "
                         f"{LONG_STEPS_AT:g}); the file has been edited")
    if calibration.momentum and calibration.momentum != descent_momentum(n, calibration.epsilon, d):
        raise InputError(f"certificate.calibration.momentum is {number_text(calibration.momentum)}, but the fit takes "
                         f"{number_text(descent_momentum(n, calibration.epsilon, d))} at n = {n}, epsilon = "
                         f"{number_text(calibration.epsilon)} and d = {d} ({MOMENTUM:g} where n epsilon / d >= "
                         f"{MOMENTUM_AT:g}, none at or below {MOMENTUM_FROM:g}, linear between); the file has been "
                         "edited")
    if calibration.level and not fit_intercept:
        raise InputError("certificate.calibration records the label's level, which a fit releases only with an "
                         "intercept (preprocessing.row_map.fit_intercept is false); the file has been edited")


def _column_statistics(data: object, calibration: AdaSSPCalibration, rows: RowMap, d: int) -> dict:
    """ADASSP_STANDARDISED's record: n >= 1, the spread, 2 d released sums; the saved map must be the one they
    give (recomputed, exactly)."""
    record = json_object("certificate.column_statistics", data, _STATISTICS_KEYS)
    n, sums = _count("certificate.column_statistics.n", record["n"]), record["sums"]
    _check_same("certificate.column_statistics.spread", record["spread"], COLUMN_SPREAD)
    if not isinstance(sums, list) or len(sums) != 2 * d:
        raise InputError(f"certificate.column_statistics.sums must list {2 * d} numbers")
    released = np.array([_number(f"certificate.column_statistics.sums[{i}]", v) for i, v in enumerate(sums)])
    expected = adassp_map(released, calibration, rows.norm_bound, n)
    if not is_statistics_map(rows.feature_map, expected):
        raise InputError("preprocessing.row_map.feature_map is not the map certificate.column_statistics gives; the "
                         "file has been edited")
    return record


def _no_range_search(calibration: AdaSSPCalibration | GradientCalibration, n: int) -> InputError:
    """The refusal of a ranged file at whose public inputs the fit searches no range (its level is None): the
    level reads epsilon, delta, the searched columns and n, any of which may be the edited field, so all are named."""
    return InputError(f"a range search is not taken at certificate.epsilon {number_text(calibration.epsilon)}, "
                      f"certificate.delta {calibration.delta!r}, certificate.calibration.range_columns "
                      f"{calibration.range_columns} and certificate.column_statistics.n {n} (the public rule gives no "
                      "level there), yet the file records one: one of these fields has been edited")


def _ranged_label_range(saved: dict, recorded: dict,
                        kind: type[AdaSSPCalibration | GradientCalibration]) -> tuple[float, float]:
    """(c, B') of an ADASSP_RANGED (or GRADIENT_RANGED: ``kind`` the calibration's class) file: what its recorded
    label range gives at the level its n gives (the level reads epsilon, delta and the number of columns only, not the
    label bound), as the fit derived them: it saw y - c clipped onto B' and added c to the intercept."""
    record = json_object("certificate.column_statistics", saved["column_statistics"], _RANGES_KEYS)
    ranges, n = record["ranges"], _count("certificate.column_statistics.n", record["n"])
    if not isinstance(ranges, list) or len(ranges) != 2 or not all(isinstance(side, list) and side for side in ranges):
        raise InputError("certificate.column_statistics.ranges must be two lists of numbers")
    facts = PublicFacts(epsilon=saved["epsilon"], delta=saved["delta"], data_norm=saved["effective_norm_bound"],
                        label_bound=saved["label_bound"])
    calibration = rebuild(kind, recorded, facts, None, (TypeError,))
    level = calibration.range_level(n)
    if level is None:
        raise _no_range_search(calibration, n)
    label = [_number(f"certificate.column_statistics.ranges[{i}][-1]", side[-1]) for i, side in enumerate(ranges)]
    return label_range(np.array(label)[:, None], level, _number("certificate.label_bound", saved["label_bound"]))


def _column_ranges(data: object, calibration: AdaSSPCalibration | GradientCalibration, rows: RowMap, d: int,
                   public_bound: float) -> dict:
    """ADASSP_RANGED's (and GRADIENT_RANGED's) record: n >= 1, the level the calibration gives at n, the public label
    bound, the 2 x (d + 1) released ranges (2 x 1 when the label's range alone was searched: then the rows keep the
    public map); the saved map must be the one they give (recomputed; the calibration's B' was recomputed from them
    before)."""
    record = json_object("certificate.column_statistics", data, _RANGES_KEYS)
    n, ranges = _count("certificate.column_statistics.n", record["n"]), record["ranges"]
    level = calibration.range_level(n)
    if level is None:
        raise _no_range_search(calibration, n)
    _check_same("certificate.column_statistics.level", record["level"], level)
    columns = calibration.range_columns
    # the label's range alone is searched only where every column's is not (column_statistics="auto", the public rule
    # of epsilon, delta, d and n): an n at which every column's would have been searched is not the fit's
    if columns == 1 and range_search_level(calibration.epsilon, calibration.delta, columns=d + 1, n=n) is not None:
        raise InputError(f"certificate.column_statistics.n is {n}, at which the fit would have searched every "
                         f"column's range, not the label's alone (calibration.range_columns 1); the file has been "
                         "edited")
    if columns not in (1, d + 1) or not isinstance(ranges, list) or len(ranges) != 2 or any(
            not isinstance(side, list) or len(side) != columns for side in ranges):
        raise InputError(f"certificate.column_statistics.ranges must be two lists of {d + 1} numbers (or 1, the "
                         "label's alone), as many as the calibration's range_columns")
    released = np.array([[_number(f"certificate.column_statistics.ranges[{i}][{j}]", v) for j, v in enumerate(side)]
                         for i, side in enumerate(ranges)])
    _check_same("certificate.column_statistics.label_bound", record["label_bound"], public_bound)
    expected = None if columns == 1 else range_map(released[:, :-1], level, rows.norm_bound)
    if (rows.feature_map is not None or expected is not None) and not is_statistics_map(rows.feature_map, expected):
        raise InputError("preprocessing.row_map.feature_map is not the map certificate.column_statistics gives; the "
                         "file has been edited")
    return record


def regression_from_dict(data: dict, written: int = MODEL_FORMAT_VERSION) -> PrivateRegressionModel:
    """A regression release: AdaSSP's sufficient statistics (or noisy gradient descent's), or the linear layout of a
    regression ERM (its certificate's former texts read as a file of format version ``written`` may hold them)."""
    if isinstance(data.get("certificate"), dict) and data["certificate"].get("mechanism") in (
            ADASSP, ADASSP_STANDARDISED, ADASSP_RANGED, GRADIENT_RANGED):
        return _adassp_from_dict(data)
    model = linear_from_dict(data, written=written)
    assert isinstance(model, PrivateRegressionModel)
    return model
