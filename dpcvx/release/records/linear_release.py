"""The record of a linear release (kind ``"linear"``, and the version 2 files that have no kind): the
privatised weights, the public preprocessing and the release certificate, every field checked on reading.
A regression ERM's record is the same layout (see :mod:`.regression_release`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from ...data.files import json_object
from ...data.preprocessing import PublicSchema
from ...data.rows import RowMap
from ...data.standardiser import (
    REGRESSION_FLOOR_CELLS,
    ColumnStandardiser,
    fill_map,
    is_statistics_map,
    ranges_map,
    sums_map,
)
from ...exceptions import InputError
from ...validation import _short
from ...version import __version__
from ..draw_texts import class_text, class_texts
from ..model import PrivateModel
from ..regression_model import PrivateRegressionModel
from ..usefulness import one_class_findings
from .calibration_record import same_number
from .fields import _check_same, _classes, _label, _number, _saved_number, _text
from .header import MODEL_FORMAT, MODEL_FORMAT_VERSION
from .release_certificate import (
    _CERTIFICATE_KEYS,
    _OPTIONAL_CERTIFICATE_KEYS,
    PROBABILITY_RECORD,
    _release_certificate,
    label_range,
    probability_record,
)
from .row_map import (
    MAP_RECORD,
    SCHEMA_RECORD,
    _check_schema_fits,
    _row_map,
    _row_map_to_dict,
    check_map_record,
    check_schema_record,
    own_map_record,
    read_schema,
    schema_record,
)

_MODEL_KEYS = {"format", "format_version", "library_version", "mechanism", "epsilon", "delta",
               "classes", "privatised", "preprocessing", "certificate"}
PRIVATISED_KEYS = {"coef", "intercept"}
_PREPROCESSING_KEYS = {"schema", "row_map"}


def linear_to_dict(model: PrivateModel, schema: PublicSchema | None) -> dict:
    if schema is not None and not isinstance(schema, PublicSchema):
        raise InputError(f"schema must be a PublicSchema or None, got {type(schema).__name__}")
    _check_schema_fits(schema, model.rows, model.coef_.shape[0])
    certificate = model.certificate.to_dict()
    unknown = sorted(set(certificate) - _CERTIFICATE_KEYS - _OPTIONAL_CERTIFICATE_KEYS)
    if unknown:  # e.g. solver statistics: not covered by the proof, never written
        raise InputError(f"the certificate holds fields {unknown} that a model file does not carry "
                         "(only what the privacy proof covers is saved)")
    row_map = _row_map_to_dict(model.rows)
    saved_schema = None if schema is None else schema.to_dict()
    # a loaded certificate's records: written again from the map and the schema saved beside them (and from the loss:
    # the loaded certificate holds no record of its probabilities)
    certificate.pop(MAP_RECORD, None)
    certificate.pop(SCHEMA_RECORD, None)
    for key, record in ((MAP_RECORD, own_map_record(row_map["feature_map"], model.certificate.column_statistics)),
                        (SCHEMA_RECORD, schema_record(saved_schema)),
                        (PROBABILITY_RECORD, probability_record(model.certificate.verification.loss))):
        if record is not None:
            certificate[key] = record
    return {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "kind": "linear",
        "library_version": __version__,
        "mechanism": certificate["mechanism"],
        "epsilon": model.certificate.total_epsilon,  # what the release cost (with a private bound, eps_q + eps_fit)
        "delta": certificate["delta"],
        "classes": [_label(value) for value in model.classes_.tolist()],
        "privatised": {"coef": model.coef_.tolist(), "intercept": model.intercept_},
        "preprocessing": {
            "schema": saved_schema,
            "row_map": row_map,
        },
        "certificate": certificate,
    }


def check_stated_rows(rows: RowMap, certificate: Any) -> None:
    """The saved row map is the one the certificate states: its norm bound, intercept column and scaling, and the
    effective bound they give (the calibration's R), for every release in the linear layout and AdaSSP's."""
    _check_same("preprocessing.row_map.norm_bound", rows.norm_bound, certificate.data_norm)
    _check_same("preprocessing.row_map.fit_intercept", rows.fit_intercept, certificate.fit_intercept)
    _check_same("preprocessing.row_map.intercept_scaling", rows.intercept_scaling, certificate.intercept_scaling)
    _check_same("the effective norm bound of preprocessing.row_map", rows.effective_norm_bound,
                certificate.effective_norm_bound)


def check_intercept(intercept: float, rows: RowMap, centre: float, shift: float) -> None:
    """Without an intercept feature a regression's intercept is what its fit added back (a classifier's is 0): the
    labels' private centre ``centre`` the recorded statistics give (0 without one), then the public label shift
    ``shift`` (``certificate.label_shift``, 0 where none is recorded), each by one addition, as the fit added them.
    A file of the linear layout and an AdaSSP file are checked by this one rule, whatever their format version: a
    file written before format 7 recorded no shift, so one fitted on an uneven public range without an intercept
    feature cannot be checked, and is refused (records.upgrade)."""
    if rows.fit_intercept:
        return
    expected = centre + shift
    if intercept != expected:
        raise InputError(f"privatised.intercept is {intercept!r} but the model has no intercept feature, so it must be "
                         f"the centre {expected!r} the fit added back: the private label range's centre {centre!r} (0 "
                         f"without one) plus the public certificate.label_shift {shift!r}; the file has been edited "
                         "(or was written before format version 7 by a fit on label_bound=(lo, hi), which recorded "
                         "no shift: refit and save again)")


def _weights(coef: Any) -> np.ndarray:
    """privatised.coef: a non-empty list of numbers (a linear or an AdaSSP release's weights)."""
    if not isinstance(coef, list) or not coef:
        raise InputError("privatised.coef must be a non-empty list of numbers")
    return np.array([_number(f"privatised.coef[{i}]", value) for i, value in enumerate(coef)])


def statistics_map(record: dict, norm: float) -> ColumnStandardiser:
    """The map a recorded release of private column statistics gives (its type-checked record,
    :func:`~dpcvx.release.records.release_certificate.column_statistics_record`), recomputed as the fit computed it, by
    post-processing of its public values with the public R: the classifiers' map of the ranges (:func:`fill_map`), a
    regression's with its label's range (:func:`ranges_map` at the recorded public depth), or the sums' map
    (:func:`sums_map`, the discrete Laplace scale sensitivity / eps_s exact). A saved feature map must be this one,
    as an AdaSSP file's must be the map of its sums."""
    if "cells" in record:
        cells = np.array(record["cells"])
        if "label_cells" in record:
            return ranges_map(cells, norm, REGRESSION_FLOOR_CELLS, record["depth"])
        return fill_map(cells, norm)
    scale = Fraction(record["sensitivity"]) / Fraction(record["epsilon"])
    return sums_map(np.array(record["sums"], dtype=np.int64), record["n"], norm, scale, record["lattice_bits"])


def linear_from_dict(data: dict, against_rest: Any = None,
                     written: int = MODEL_FORMAT_VERSION) -> PrivateModel | PrivateRegressionModel:
    """A linear release (format_version 2, or kind "linear" or an ERM "regression"), every field checked.
    ``against_rest``: the class a one-vs-rest entry fits against the rest (given by the multiclass reader), which its
    private class count's guarantee names; a binary file's count names its positive class. ``written``: the file's
    format version as written, before its upgrade steps, which decides the former texts its certificate may hold."""
    item = json_object("the model file", {key: value for key, value in data.items() if key != "kind"}, _MODEL_KEYS)
    pair = item["classes"]  # checked below; a guarantee that names another class is refused by the certificate's check
    own = class_texts(pair[1], written) if isinstance(pair, list) and len(pair) == 2 else ()
    counted, former = (own, ()) if against_rest is None else ((class_text(against_rest, against_rest=True),), own)
    certificate = _release_certificate(item["certificate"], counted, former, written)
    _text("library_version", item["library_version"])
    _check_same("library_version", item["library_version"], certificate.library_version)
    _check_same("mechanism", item["mechanism"], certificate.mechanism)
    _check_same("epsilon", _number("epsilon", item["epsilon"]), certificate.total_epsilon)
    _check_same("delta", _number("delta", item["delta"]), certificate.delta)

    classes = item["classes"]
    regression = data.get("kind") == "regression"
    if regression != (certificate.label_bound is not None) or (regression and classes is not None):
        raise InputError("a regression file has kind \"regression\", classes null and a certificate.label_bound; "
                         "this one mixes a classifier's and a regression's fields")
    classes = (-1, 1) if regression else _classes("classes", classes, least=2, most=2)
    named = None if certificate.weights is None or certificate.weights.class_weights is None else \
        [label for label, _ in certificate.weights.class_weights]
    if named is not None and not (len(named) == len(classes) and all(map(same_number, named, classes))):
        raise InputError(f"certificate.weights.class_weights name the classes {_short(named)}, not the file's classes "
                         f"{_short(list(classes))} in their order; the file has been edited")
    privatised = json_object("privatised", item["privatised"], PRIVATISED_KEYS)
    weights = _weights(privatised["coef"])
    intercept = _number("privatised.intercept", privatised["intercept"])

    preprocessing = json_object("preprocessing", item["preprocessing"], _PREPROCESSING_KEYS)
    schema = read_schema("preprocessing.schema", preprocessing["schema"])
    check_schema_record(preprocessing["schema"], item["certificate"].get(SCHEMA_RECORD))
    rows = _row_map(preprocessing["row_map"])
    check_stated_rows(rows, certificate)
    saved_d = item["certificate"]["constants"].get("d")
    dimension = None if saved_d is None else _saved_number("certificate.constants.d", saved_d)[1]
    if dimension is not None and dimension != weights.size + rows.fit_intercept:
        raise InputError(f"privatised.coef has {weights.size} weights{' and an intercept' * rows.fit_intercept} "
                         f"but the certificate states d = {dimension:g}; the file has been edited")
    statistics = certificate.column_statistics
    # the private label range's centre the fit added back, else 0
    centre = label_range(statistics)[0] if statistics is not None and "label_cells" in statistics else 0.0
    check_intercept(intercept, rows, centre, certificate.label_shift)
    _check_schema_fits(schema, rows, weights.size)
    if statistics is not None and not is_statistics_map(rows.feature_map, statistics_map(statistics, rows.norm_bound)):
        raise InputError("preprocessing.row_map.feature_map is not the map certificate.column_statistics gives; the "
                         "file has been edited")
    check_map_record(preprocessing["row_map"]["feature_map"], item["certificate"].get(MAP_RECORD),
                     from_statistics=statistics is not None)
    if certificate.findings != (() if regression else one_class_findings(weights, intercept, classes,
                                                                          rows.norm_bound)):
        raise InputError("certificate.findings must state exactly the public checks of the released weights "
                         "(dpcvx.release.usefulness); the file has been edited")

    model: PrivateModel | PrivateRegressionModel
    if regression:
        model = PrivateRegressionModel(weights, intercept, rows, certificate)
    else:
        model = PrivateModel(weights, intercept, tuple(classes), rows, certificate)
    model.schema = schema
    return model
