"""The record of a multiclass release (kind ``"multiclass"``): its k one-vs-rest linear records, each a
complete linear model entry, re-checked on reading, then the budget split compared. The schema is saved once, at the
top level (each entry's ``preprocessing.schema`` is null), and recorded in every entry's certificate, which is checked
against it. Private column statistics drawn once before the k fits are recorded once, at the top level
(``column_statistics``, with the fits' total ``fit_epsilon``; both null when none were drawn): the entries' shared
map must be the one they give, and the total their eps_s and the fits' eps_fit composed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...data.files import json_object
from ...data.preprocessing import PublicSchema
from ...data.standardiser import is_statistics_map
from ...exceptions import InputError
from ...privacy.composition import FIT_BUDGET, WHOLE_BUDGET, one_vs_rest_budget
from ...version import __version__
from ..model import PrivateModel, Release, composed_epsilon
from ..multiclass_model import MulticlassCertificate, PrivateMulticlassModel
from ..usefulness import one_class_findings
from .calibration_record import same_number
from .fields import _check_same, _classes, _label, _number, _positive
from .header import MODEL_FORMAT, MODEL_FORMAT_VERSION
from .linear_release import linear_to_dict, statistics_map
from .release_certificate import column_statistics_record
from .row_map import SCHEMA_RECORD, _check_schema_fits, check_schema_record, read_schema

#: the last format version whose one-vs-rest split after column statistics was worded as the total's ("epsilon / k"
#: where it is eps_fit / k: f30c232e named eps_fit at version 18)
_TOTAL_SPLIT_WORDING_LAST = 18

_MULTICLASS_KEYS = {"format", "format_version", "kind", "library_version", "epsilon", "delta", "classes",
                    "composition", "schema", "per_class", "column_statistics", "fit_epsilon"}


def multiclass_to_dict(model: PrivateMulticlassModel, schema: PublicSchema | None) -> dict:
    """A multiclass release: its k one-vs-rest linear releases, each a complete linear model entry."""
    if schema is not None and not isinstance(schema, PublicSchema):
        raise InputError(f"schema must be a PublicSchema or None, got {type(schema).__name__}")
    certificate = model.certificate
    per_class = [linear_to_dict(PrivateModel(model.coef_[i], float(model.intercept_[i]), (-1, 1), model.rows,
                                            class_certificate), schema)
                 for i, class_certificate in enumerate(certificate.per_class)]
    for entry in per_class:  # recorded in its certificate, saved once at the top level
        entry["preprocessing"]["schema"] = None
    return {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "kind": "multiclass",
            "library_version": __version__, "epsilon": certificate.epsilon, "delta": certificate.delta,
            "classes": [_label(value) for value in model.classes_.tolist()],
            "composition": certificate.composition, "schema": None if schema is None else schema.to_dict(),
            "per_class": per_class, "column_statistics": certificate.column_statistics,
            "fit_epsilon": certificate.fit_epsilon}


def _class_entry(entry: dict, schema: Any) -> dict:
    """A per-class entry as the linear reader takes it: its certificate's record of the file's ``schema`` (saved
    once, at the top level; the entry's own ``preprocessing.schema`` is null) checked and set aside."""
    certificate, preprocessing = entry.get("certificate"), entry.get("preprocessing")
    if isinstance(preprocessing, dict) and preprocessing.get("schema") is not None:
        raise InputError("preprocessing.schema must be null: a multiclass file saves its schema once, at the top "
                         "level (its \"schema\"); the file has been edited")
    if not isinstance(certificate, dict):
        return entry  # refused by the linear reader, naming the field
    check_schema_record(schema, certificate.get(SCHEMA_RECORD), where="schema")
    return {**entry, "certificate": {key: value for key, value in certificate.items() if key != SCHEMA_RECORD}}


def multiclass_from_dict(data: dict, read_entry: Callable[..., Release],
                         written: int = MODEL_FORMAT_VERSION) -> PrivateMulticlassModel:
    """Read a multiclass release: every class's linear release is re-checked (by ``read_entry``, the
    model file reader, told the class it fits against the rest, which a private count's guarantee names, and the
    file's format version as written, ``written``, which decides the former texts it may hold),
    then the budget split: each class's total (a private class count's epsilon and its fit's)
    is the split's share."""
    item = json_object("the model file", data, _MULTICLASS_KEYS)
    epsilon, delta = _positive("epsilon", item["epsilon"]), _number("delta", item["delta"])
    classes = _classes("classes", item["classes"], least=3)
    schema = read_schema("schema", item["schema"])
    entries = item["per_class"]
    if not isinstance(entries, list) or len(entries) != len(classes):
        raise InputError(f"per_class must hold one linear release per class ({len(classes)})")
    models = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("kind") != "linear":
            raise InputError(f"per_class[{index}] must be a linear release")
        try:
            one = read_entry(_class_entry(entry, item["schema"]), against_rest=classes[index], written=written)
        except InputError as error:  # named by its entry: per_class[i].format_version, not the file's
            raise InputError(f"per_class[{index}]: {error}") from None
        assert isinstance(one, PrivateModel)
        if not (isinstance(entry["classes"], list) and len(entry["classes"]) == 2
                and all(map(same_number, entry["classes"], (-1, 1)))):
            raise InputError(f"per_class[{index}] must have the one-vs-rest classes [-1, 1]")
        models.append(one)
    mechanism = models[0].certificate.mechanism
    guarantee = models[0].certificate.calibration.float_guarantee
    statistics, fit_epsilon = _statistics(item, epsilon, models[0], written)
    split = (len(classes), epsilon if fit_epsilon is None else fit_epsilon, delta, mechanism,
             models[0].certificate.calibration.exact_sampler)
    eps_c, delta_c, composition = one_vs_rest_budget(*split, WHOLE_BUDGET if fit_epsilon is None else FIT_BUDGET)
    if delta != 0 and models[0].certificate.delta == 0:  # delta / k may round to 0: the entries cannot tell
        raise InputError(f"delta is {delta!r} but the per-class releases are pure epsilon-DP (delta 0); the file has "
                         "been edited")
    # the file's epsilon and delta are the writer's numbers, split by its public rule: basic composition divides and
    # rounds down (exact arithmetic, compared exactly, as a binary file's copies are); the Gaussian composition's
    # share is computed through the analytic Gaussian, compared within RECORD_TOLERANCE as every Gaussian number is
    gaussian = composition.startswith("Gaussian composition")
    for index, one in enumerate(models):  # a class's share is what its release cost: a private count's eps_c' and
        # its fit's (ReleaseCertificate.total_epsilon), as the fit split it
        share = one.certificate.total_epsilon
        if not (same_number(share, eps_c) if gaussian else share == eps_c) or one.certificate.delta != delta_c or \
                one.certificate.mechanism != mechanism or one.rows != models[0].rows or \
                one.certificate.calibration.float_guarantee is not guarantee:
            raise InputError(f"per_class[{index}] does not match the budget split of ({epsilon!r}, {delta!r}) "
                             f"over {len(classes)} classes ({eps_c!r}, {delta_c!r}, {mechanism}, floating point "
                             f"{guarantee}); the file "
                             "has been edited")
        if one.certificate.noise_source is not models[0].certificate.noise_source:  # one random_state drew them all
            raise InputError(f"per_class[{index}].certificate.noise_source is {one.certificate.noise_source.value!r} "
                             f"but per_class[0]'s is {models[0].certificate.noise_source.value!r}: the classes of one "
                             "fit draw from one random_state; the file has been edited")
    # a file written before the text named eps_fit (format version _TOTAL_SPLIT_WORDING_LAST or older), the budget
    # split after column statistics, called it epsilon (the same split, worded as the total's): read as the corrected
    # statement
    if fit_epsilon is None or written > _TOTAL_SPLIT_WORDING_LAST or item["composition"] != one_vs_rest_budget(
            *split)[2]:
        _check_same("composition", item["composition"], composition)
    _check_same("library_version", item["library_version"], models[0].certificate.library_version)
    _check_schema_fits(schema, models[0].rows, models[0].coef_.size)
    coef, intercept = np.vstack([one.coef_ for one in models]), np.array([one.intercept_ for one in models])
    certificate = MulticlassCertificate(epsilon=epsilon, delta=delta, classes=tuple(classes),
                                        composition=composition, class_epsilon=eps_c, class_delta=delta_c,
                                        per_class=tuple(one.certificate for one in models),
                                        findings=one_class_findings(coef, intercept, classes,
                                                                    models[0].rows.norm_bound),
                                        column_statistics=statistics, fit_epsilon=fit_epsilon)
    model = PrivateMulticlassModel(coef, intercept, tuple(classes), models[0].rows, certificate)
    model.schema = schema
    return model


def _statistics(item: dict, epsilon: float, first: PrivateModel,
                written: int) -> tuple[dict | None, float | None]:
    """(the record of column statistics drawn once before the k fits, the fits' eps_fit), both None when the file
    records none: the record type-checked, its n the fits' n, the entries' shared map the one it gives (recomputed
    from its public values with the public R), and ``epsilon`` and the record's ``total_epsilon`` eps_s and eps_fit
    composed."""
    statistics = column_statistics_record(item["column_statistics"], "column_statistics", written)
    if statistics is None:
        if item["fit_epsilon"] is not None:
            raise InputError("fit_epsilon is recorded but column_statistics is null: a multiclass file records the "
                             "fits' epsilon only beside a draw of column statistics; the file has been edited")
        return None, None
    if "label_cells" in statistics:
        raise InputError("column_statistics records a label's range, which a classifier's one-vs-rest fits never "
                         "draw; the file has been edited")
    fit_epsilon = _positive("fit_epsilon", item["fit_epsilon"])
    total = composed_epsilon((statistics,), fit_epsilon)
    if not (epsilon == total and statistics["total_epsilon"] == total):  # one sum, in one order: exact
        raise InputError(f"epsilon and column_statistics.total_epsilon must be eps_s + fit_epsilon = {total!r}, the "
                         "draw and the fits composed; the file has been edited")
    if statistics["n"] != first.certificate.constants.n:
        raise InputError(f"column_statistics.n is {statistics['n']!r} but the fits state n = "
                         f"{first.certificate.constants.n:g}; the file has been edited")
    if not is_statistics_map(first.rows.feature_map, statistics_map(statistics, first.rows.norm_bound)):
        raise InputError("the per-class entries' preprocessing.row_map.feature_map is not the map column_statistics "
                         "gives; the file has been edited")
    return statistics, fit_epsilon
