"""Saved models: a release (:class:`~dpcvx.release.model.PrivateModel` or
:class:`~dpcvx.release.kernel_model.PrivateKernelModel`) as a JSON file, and back.

Both kinds share one format (``"format": "dpcvx-model"``, ``"format_version": 3``)
with a ``"kind"`` field: ``"linear"`` (described below) or ``"kernel"`` (the
predictor's kernel and public centres, the privatised coefficients and the
:class:`~dpcvx.release.kernel_model.KernelReleaseCertificate`; see
:func:`dpcvx.release.kernel_model.release_to_dict`). Loading a kernel file
re-derives every public constant (R_phi from the kernel, C, s, gamma) and the
calibration from the stored public inputs and refuses a mismatch.
Version 2 files (linear, no ``kind``) still load.

:func:`save` writes the privatised weights, the public preprocessing (an
optional :class:`~dpcvx.data.preprocessing.PublicSchema` and the per-record
:class:`~dpcvx.data.rows.RowMap`: norm bound, intercept feature, feature map), the
release certificate (conditions, constants, neighbour relation, mechanism,
epsilon, calibration) and the library and format versions. The file carries
only what the privacy proof covers: public inputs, quantities computed from
them, and the output of the mechanism, which is the one part that depends on
the private data and sits under the ``"privatised"`` key, so a diff of two
releases tells it from everything else. No solver statistic (iterations,
time, status, residual) is written: those are measured on the private data
and no proof covers them. :func:`load` restores a model whose predictions
are identical bit for bit (JSON writes every float with the shortest text
that reads back exactly).

A model file is not trusted. Loading executes nothing (the file is parsed by
``json`` through :func:`dpcvx.data.files.read_json`, which refuses NaN, infinities,
repeated keys, huge integers and deep nesting), checks every field's type and
range (unknown, missing or duplicated keys are refused), recomputes the
calibration from the stated epsilon, n, lambda, R and constants with the
library's own formulas (:func:`dpcvx.privacy.registry.recompute`) and refuses a file
whose recorded calibration disagrees, naming the field. Every refusal is a
:class:`~dpcvx.exceptions.FileError` (an
:class:`~dpcvx.exceptions.InputError`). A feature map is rebuilt through a
registry keyed by the ``"type"`` name in the file, never by importing a path
the file names. The loaded certificate is data: :meth:`to_dict` returns
exactly what was saved; it is what the writing library certified, checked
for consistency, not a new proof.

Files are written by :func:`dpcvx.data.files.atomic_write`: the old file stays
intact unless the new one is complete.

Linear file format (``"format": "dpcvx-model"``, ``"format_version": 3``)::

    {
      "format": "dpcvx-model",
      "format_version": 3,
      "kind": "linear",
      "library_version": "0.1.0",
      "mechanism": "objective",               # or "output"
      "epsilon": 0.1,
      "delta": 0.0,
      "classes": [-1, 1],                     # public (negative, positive) labels
      "privatised": {                         # the mechanism's output: the only private-data part
        "coef": [0.12, ...],                  # weights on the mapped features
        "intercept": 0.0
      },
      "preprocessing": {
        "schema": null,                       # or a PublicSchema.to_dict() object
        "row_map": {"norm_bound": 1.0, "fit_intercept": false,
                    "intercept_scaling": 1.0, "feature_map": null}
      },
      "certificate": { ... }                  # ReleaseCertificate.to_dict()
    }

A version 2 file is the same without ``"kind"``. Version 1 files (which held a ``certificate.solve`` section of solver
statistics) are refused with an explanation: refit and save again.

An unbounded constant (one the mechanism did not need) is written as
``{"exact": "oo", "float": null}``; the file is standard JSON (no ``Infinity``
or ``NaN``).
"""

from __future__ import annotations

import copy
import importlib
import json
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..data.files import MAX_JSON_DEPTH, atomic_write, json_depth, json_object, read_json
from ..data.preprocessing import PublicSchema
from ..data.rows import RowMap
from ..exceptions import FileError, InputError
from ..privacy import registry
from ..privacy.composition import one_vs_rest_budget
from ..privacy.neighbours import Neighbours
from ..privacy.privacy_curve import check_recorded_curve, curve_of_calibration
from ..verification.certificate import MECHANISMS, Certificate, Condition
from ..verification.verdict import SECTION as VERDICT_SECTION
from ..version import __version__
from .kernel_model import PrivateKernelModel, release_from_dict, release_to_dict
from .model import LinearModel, PrivateModel, Release, ReleaseCertificate
from .multiclass_model import MulticlassCertificate, PrivateMulticlassModel
from .regression_model import PrivateRegressionModel, SufficientStatisticsCertificate

__all__ = ["save", "load", "model_to_dict", "model_from_dict", "register_feature_map", "SavedReleaseCertificate",
           "MODEL_FORMAT", "MODEL_FORMAT_VERSION"]

MODEL_FORMAT = "dpcvx-model"
MODEL_FORMAT_VERSION = 3
READABLE_VERSIONS = (2, 3)  # version 2: linear releases written before the kernel kind existed
KINDS = ("linear", "kernel", "multiclass", "regression")
_ADASSP_KEYS = {"format", "format_version", "kind", "library_version", "epsilon", "delta", "classes", "privatised",
                "preprocessing", "certificate", "mechanism"}
# the certificates' keys are their dataclasses' fields (plus the privacy curve each writes)
_ADASSP_CERTIFICATE_FIELDS = {item.name for item in fields(SufficientStatisticsCertificate)}
_ADASSP_CERTIFICATE_KEYS = _ADASSP_CERTIFICATE_FIELDS | {"privacy_curve"}
_MULTICLASS_KEYS = {"format", "format_version", "kind", "library_version", "epsilon", "delta", "classes",
                    "composition", "schema", "per_class"}

_MODEL_KEYS = {"format", "format_version", "library_version", "mechanism", "epsilon", "delta",
               "classes", "privatised", "preprocessing", "certificate"}
PRIVATISED_KEYS = {"coef", "intercept"}
_PREPROCESSING_KEYS = {"schema", "row_map"}
_ROW_MAP_KEYS = {"norm_bound", "fit_intercept", "intercept_scaling", "feature_map"}
# written only when they apply: label_bound (regressions), lam_rule (lam="auto"), post_processing;
# privacy_curve (files written before curves lack it)
_OPTIONAL_CERTIFICATE_KEYS = {"privacy_curve", "label_bound", "post_processing", "lam_rule"}
_CERTIFICATE_KEYS = {item.name for item in fields(ReleaseCertificate)} - _OPTIONAL_CERTIFICATE_KEYS
_VERIFICATION_KEYS = {"loss", "regularizer", "dim", "strict", "conditions", "allows"}
_CONDITION_KEYS = {"name", "description", "passed", "value", "method", "detail", "fix"}
_NUMBER_KEYS = {"exact", "float"}
_RATIONAL = re.compile(r"-?\d+(/\d+)?")
_COUNTS = ("n", "d")  # constants that are counts, printed as integers

# Feature maps restorable from a file: type name -> function(data) -> feature map.
_FEATURE_MAPS: dict[str, Callable[[dict], Any]] = {}
# Maps that ship with dpcvx, imported from this fixed module only when a file names them.
_BUILTIN_FEATURE_MAPS = {"RandomFourierFeatures": "dpcvx.data.kernels"}


def register_feature_map(type_name: str, from_dict: Callable[[dict], Any]) -> None:
    """Make a feature map type restorable: ``from_dict(data)`` rebuilds it from its ``to_dict()``.

    ``type_name`` is the ``"type"`` entry of the map's ``to_dict()`` (or its
    class name). dpcvx's own maps (:class:`dpcvx.data.kernels.RandomFourierFeatures`)
    need no registration.
    """
    if not isinstance(type_name, str) or not type_name:
        raise InputError(f"type_name must be a non-empty string, got {type_name!r}")
    if not callable(from_dict):
        raise InputError(f"from_dict must be callable, got {from_dict!r}")
    _FEATURE_MAPS[type_name] = from_dict


def _feature_map_loader(type_name: str) -> Callable[[dict], Any]:
    if type_name in _FEATURE_MAPS:
        return _FEATURE_MAPS[type_name]
    if type_name in _BUILTIN_FEATURE_MAPS:
        module_name = _BUILTIN_FEATURE_MAPS[type_name]
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise InputError(f"feature map type {type_name!r} needs {module_name}, which this "
                             f"dpcvx installation lacks; upgrade dpcvx") from None
        return getattr(module, type_name).from_dict
    known = sorted(set(_FEATURE_MAPS) | set(_BUILTIN_FEATURE_MAPS))
    raise InputError(
        f"unknown feature map type {type_name!r}; known types: {known}. Register your own map "
        "with dpcvx.release.serialization.register_feature_map(type_name, from_dict)"
    )


@dataclass(frozen=True)
class SavedReleaseCertificate(ReleaseCertificate):
    """A :class:`~dpcvx.release.model.ReleaseCertificate` read from a saved model: data, not a proof.

    Exact constants are kept as their text (``"1/4"``), others as floats;
    no sympy object is re-created from the file. ``str()`` prints the same
    report as the original; :meth:`to_dict` returns exactly what was saved.
    """

    saved: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        saved = copy.deepcopy(self.saved)
        return {**saved, "post_processing": list(self.post_processing)} if self.post_processing else saved


# --- writing -----------------------------------------------------------------------------


def _label(value: Any) -> str | int | float | bool:
    """A class label as a JSON scalar (numpy scalars as the Python value they hold)."""
    plain = value.item() if isinstance(value, np.generic) else value
    if not isinstance(plain, (str, int, float, bool)):
        raise InputError(f"class label {value!r} cannot be saved: labels must be strings or numbers")
    return plain


def _row_map_to_dict(rows: RowMap) -> dict:
    feature_map = None
    if rows.feature_map is not None:
        if not hasattr(rows.feature_map, "to_dict"):
            raise InputError(f"the feature map {rows.feature_map!r} has no to_dict(); it cannot be saved")
        feature_map = dict(rows.feature_map.to_dict())
        type_name = feature_map.setdefault("type", type(rows.feature_map).__name__)
        _feature_map_loader(type_name)  # refuse to write a file that could not be loaded
    return {
        "norm_bound": rows.norm_bound,
        "fit_intercept": rows.fit_intercept,
        "intercept_scaling": rows.intercept_scaling,
        "feature_map": feature_map,
    }


def _check_schema_fits(schema: PublicSchema | None, rows: RowMap, n_weights: int) -> None:
    """A schema's features are the model's inputs: without a feature map, one weight each."""
    if schema is not None and rows.feature_map is None and schema.dimension != n_weights:
        raise InputError(f"the schema encodes {schema.dimension} features but the model has "
                         f"{n_weights} weights; pass the schema whose rows the model was fitted on")


def model_to_dict(model: Release, schema: PublicSchema | None = None) -> dict:
    """The JSON-ready form of a release (see the module docstring): written by its kind's writer."""
    kind = next((_BY_CLASS[cls] for cls in type(model).__mro__ if cls in _BY_CLASS), None)
    if kind is None:
        name = "a non-private LinearModel (fit_nonprivate)" if isinstance(model, LinearModel) \
            else type(model).__name__
        raise InputError(f"only private releases can be saved, got {name}; fit with "
                         "PrivateERM.fit (or save estimator.model_ of a fitted dpcvx estimator)")
    return kind.write(model, schema)


def _kernel_to_dict(model: PrivateKernelModel, schema: PublicSchema | None) -> dict:
    if schema is not None:
        raise InputError("a kernel release takes no schema: its inputs are the raw feature rows")
    return release_to_dict(model, {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "kind": "kernel"})


def _linear_to_dict(model: PrivateModel, schema: PublicSchema | None) -> dict:
    if schema is not None and not isinstance(schema, PublicSchema):
        raise InputError(f"schema must be a PublicSchema or None, got {type(schema).__name__}")
    _check_schema_fits(schema, model.rows, model.coef_.shape[0])
    certificate = model.certificate.to_dict()
    unknown = sorted(set(certificate) - _CERTIFICATE_KEYS - _OPTIONAL_CERTIFICATE_KEYS)
    if unknown:  # e.g. solver statistics: not covered by the proof, never written
        raise InputError(f"the certificate holds fields {unknown} that a model file does not carry "
                         "(only what the privacy proof covers is saved)")
    return {
        "format": MODEL_FORMAT,
        "format_version": MODEL_FORMAT_VERSION,
        "kind": "linear",
        "library_version": __version__,
        "mechanism": certificate["mechanism"],
        "epsilon": certificate["epsilon"],
        "delta": certificate["delta"],
        "classes": [_label(value) for value in model.classes_.tolist()],
        "privatised": {"coef": model.coef_.tolist(), "intercept": model.intercept_},
        "preprocessing": {
            "schema": None if schema is None else schema.to_dict(),
            "row_map": _row_map_to_dict(model.rows),
        },
        "certificate": certificate,
    }


def _regression_to_dict(model: PrivateRegressionModel, schema: PublicSchema | None) -> dict:
    """A regression release: the linear layout with kind "regression", no classes, and the label bound."""
    if isinstance(model.certificate, ReleaseCertificate):
        data = _linear_to_dict(PrivateModel(model.coef_, model.intercept_, (-1, 1), model.rows, model.certificate),
                               schema)
    else:  # AdaSSP
        if schema is not None and not isinstance(schema, PublicSchema):
            raise InputError(f"schema must be a PublicSchema or None, got {type(schema).__name__}")
        certificate = model.certificate.to_dict()
        data = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "library_version": __version__,
                "mechanism": certificate["mechanism"], "epsilon": certificate["epsilon"],
                "delta": certificate["delta"], "privatised": {"coef": model.coef_.tolist(),
                                                              "intercept": model.intercept_},
                "preprocessing": {"schema": None if schema is None else schema.to_dict(),
                                  "row_map": _row_map_to_dict(model.rows)},
                "certificate": certificate}
    return {**data, "kind": "regression", "classes": None}


def _adassp_from_dict(data: dict) -> PrivateRegressionModel:
    """An AdaSSP release: the calibration is recomputed from the stated public bounds and compared."""
    item = json_object("the model file", data, _ADASSP_KEYS)
    saved = json_object("certificate", item["certificate"], _ADASSP_CERTIFICATE_KEYS)
    recorded = saved["calibration"]
    if not isinstance(recorded, dict):
        raise InputError("certificate.calibration must be an object")
    facts = registry.PublicFacts(epsilon=saved["epsilon"], delta=saved["delta"],
                                 data_norm=saved["effective_norm_bound"], label_bound=saved["label_bound"])
    try:
        recomputed = registry.recompute(recorded, facts)
    except InputError as error:
        raise InputError(f"certificate.calibration cannot be recomputed: {error}") from None
    if recomputed != recorded:
        raise InputError("certificate.calibration is not what the stated epsilon, delta and bounds give; the file "
                         "has been edited")
    rows = _row_map(item["preprocessing"]["row_map"] if isinstance(item["preprocessing"], dict) else None)
    _check_same("the effective norm bound of preprocessing.row_map", rows.effective_norm_bound,
                saved["effective_norm_bound"])
    for key in ("epsilon", "delta", "mechanism", "library_version"):
        _check_same(key, item[key], saved[key])
    privatised = json_object("privatised", item["privatised"], PRIVATISED_KEYS)
    coef = np.array([_number(f"privatised.coef[{i}]", v) for i, v in enumerate(privatised["coef"])])
    if coef.size + rows.fit_intercept != recorded["dim"]:
        raise InputError("privatised.coef does not have the calibrated number of weights; the file has been edited")
    certificate = SufficientStatisticsCertificate(**{key: saved[key] for key in _ADASSP_CERTIFICATE_FIELDS})
    check_recorded_curve(saved["privacy_curve"], certificate.privacy_curve)
    model = PrivateRegressionModel(coef, _number("privatised.intercept", privatised["intercept"]), rows, certificate)
    schema = item["preprocessing"].get("schema")
    model.schema = None if schema is None else PublicSchema.from_dict(schema)
    return model


def _multiclass_to_dict(model: PrivateMulticlassModel, schema: PublicSchema | None) -> dict:
    """A multiclass release: its k one-vs-rest linear releases, each a complete linear model entry."""
    if schema is not None and not isinstance(schema, PublicSchema):
        raise InputError(f"schema must be a PublicSchema or None, got {type(schema).__name__}")
    certificate = model.certificate
    per_class = [model_to_dict(PrivateModel(model.coef_[i], float(model.intercept_[i]), (-1, 1), model.rows,
                                            class_certificate))
                 for i, class_certificate in enumerate(certificate.per_class)]
    return {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "kind": "multiclass",
            "library_version": __version__, "epsilon": certificate.epsilon, "delta": certificate.delta,
            "classes": [_label(value) for value in model.classes_.tolist()],
            "composition": certificate.composition, "schema": None if schema is None else schema.to_dict(),
            "per_class": per_class}


def _multiclass_from_dict(data: dict) -> PrivateMulticlassModel:
    """Read a multiclass release: every class's linear release is re-checked, then the budget split."""
    item = json_object("the model file", data, _MULTICLASS_KEYS)
    epsilon, delta = _positive("epsilon", item["epsilon"]), _number("delta", item["delta"])
    classes = item["classes"]
    if (not isinstance(classes, list) or len(classes) < 3 or len(set(map(repr, classes))) != len(classes)
            or not all(isinstance(c, (str, int, float, bool)) for c in classes)):
        raise InputError(f"classes of a multiclass model must be three or more different labels, got {classes!r}")
    entries = item["per_class"]
    if not isinstance(entries, list) or len(entries) != len(classes):
        raise InputError(f"per_class must hold one linear release per class ({len(classes)})")
    models = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("kind") != "linear":
            raise InputError(f"per_class[{index}] must be a linear release")
        one = model_from_dict(entry)
        assert isinstance(one, PrivateModel)
        if one.classes_.tolist() != [-1, 1]:
            raise InputError(f"per_class[{index}] must have the one-vs-rest classes [-1, 1]")
        models.append(one)
    mechanism = models[0].certificate.mechanism
    guarantee = models[0].certificate.calibration.get("float_guarantee")
    eps_c, delta_c, composition = one_vs_rest_budget(len(classes), epsilon, delta, mechanism,
                                                     models[0].certificate.calibration.get("sampler") == "exact")
    for index, one in enumerate(models):
        if (one.certificate.epsilon, one.certificate.delta) != (eps_c, delta_c) or \
                one.certificate.mechanism != mechanism or one.rows != models[0].rows or \
                one.certificate.calibration.get("float_guarantee") != guarantee:
            raise InputError(f"per_class[{index}] does not match the budget split of ({epsilon!r}, {delta!r}) "
                             f"over {len(classes)} classes ({eps_c!r}, {delta_c!r}, {mechanism}, floating point "
                             f"{guarantee}); the file "
                             "has been edited")
    _check_same("composition", item["composition"], composition)
    _check_same("library_version", item["library_version"], models[0].certificate.library_version)
    certificate = MulticlassCertificate(epsilon=epsilon, delta=delta, classes=tuple(classes),
                                        composition=composition, class_epsilon=eps_c, class_delta=delta_c,
                                        per_class=tuple(one.certificate for one in models))
    model = PrivateMulticlassModel(np.vstack([one.coef_ for one in models]),
                                   np.array([one.intercept_ for one in models]), tuple(classes), models[0].rows,
                                   certificate)
    model.schema = None if item["schema"] is None else PublicSchema.from_dict(item["schema"])
    return model


def save(model: Release, path: str | Path, *, schema: PublicSchema | None = None) -> Path:
    """Write a release (linear or kernel) to ``path`` as JSON; return the path.

    ``schema`` is the public encoder from table records to the model's input
    rows, if one was used (the command line always saves one). A model read
    by :func:`load` keeps its schema, so it can be saved again unchanged.
    """
    if schema is None:
        schema = getattr(model, "schema", None)
    data = model_to_dict(model, schema)

    def write(handle: IO[str]) -> None:
        try:
            json.dump(data, handle, indent=2, allow_nan=False)
        except (TypeError, ValueError) as error:  # a NaN, or an object JSON cannot hold
            raise InputError(f"the model cannot be saved: {error}; only finite numbers, strings and "
                             f"lists can be written (the previous file, if any, is unchanged)") from None
        handle.write("\n")

    return atomic_write(path, write, what="model")


# --- reading -----------------------------------------------------------------------------


def _number(what: str, value: Any, *, finite: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(f"{what} must be a number, got {_short(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise InputError(f"{what} is too large for a floating-point number") from None
    if finite and not math.isfinite(number):
        raise InputError(f"{what} must be finite, got {value!r}")
    return number


def _short(value: Any, limit: int = 60) -> str:
    """repr(value), cut to ``limit`` characters for a message."""
    if isinstance(value, int) and abs(value) >= 10**limit:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _text(what: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be a string, got {value!r}")
    return value


def _optional_text(what: str, value: Any) -> str | None:
    return None if value is None else _text(what, value)


def _flag(what: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{what} must be true or false, got {value!r}")
    return value


def _optional_flag(what: str, value: Any) -> bool | None:
    return None if value is None else _flag(what, value)


def _saved_number(what: str, value: Any) -> tuple[str | None, float]:
    """(exact text or None, float) of a saved {"exact", "float"} number."""
    number = json_object(what, value, _NUMBER_KEYS)
    exact = _optional_text(f"{what}.exact", number["exact"])
    if exact == "oo" and number["float"] is None:
        return exact, math.inf
    return exact, _number(f"{what}.float", number["float"])


def _constant(key: str, value: Any) -> str | float | int:
    """A release constant as the certificate printed it: exact text, else the number."""
    exact, approximate = _saved_number(f"certificate.constants.{key}", value)
    if exact is not None:
        return exact
    if key in _COUNTS and approximate.is_integer():
        return int(approximate)
    return approximate


def _condition_value(what: str, value: Any) -> str | float | None:
    """A condition's value as Condition.value_text shows it (exact text, with ~float if irrational)."""
    if value is None or isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return _number(what, value, finite=False)
    exact, approximate = _saved_number(what, value)
    if exact is None:
        return approximate
    if exact == "oo":
        return "unbounded"
    if _RATIONAL.fullmatch(exact):
        return exact
    return f"{exact} (~{approximate:.6g})"


def _condition(index: int, data: Any) -> Condition:
    what = f"certificate condition {index}"
    item = json_object(what, data, _CONDITION_KEYS)
    return Condition(
        name=_text(f"{what}.name", item["name"]),
        description=_text(f"{what}.description", item["description"]),
        passed=_optional_flag(f"{what}.passed", item["passed"]),
        value=_condition_value(f"{what}.value", item["value"]),
        method=_text(f"{what}.method", item["method"]),
        detail=_text(f"{what}.detail", item["detail"]),
        fix=_text(f"{what}.fix", item["fix"]),
    )


def _verification(data: Any) -> Certificate:
    item = json_object("certificate.verification", data, _VERIFICATION_KEYS)
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
    )
    names = [c.name for c in certificate.conditions]
    if len(set(names)) != len(names):
        raise InputError("certificate.verification.conditions name a condition twice")
    recomputed = {mechanism: certificate.allows(mechanism) for mechanism in MECHANISMS}
    if item["allows"] != recomputed:
        raise InputError(f"certificate.verification.allows says {item['allows']!r} but its "
                         f"conditions give {recomputed!r}; the file has been edited, or an older dpcvx wrote it "
                         "under a verdict since withdrawn (a piecewise C^2 loss with a constraint set or an L1/group "
                         f"term: {VERDICT_SECTION}); refit with a C^2 loss")
    return certificate


def _same_number(recorded: Any, recomputed: Any) -> bool:
    if isinstance(recorded, bool) or isinstance(recomputed, bool):
        return recorded is recomputed
    if isinstance(recorded, numbers.Real) and isinstance(recomputed, numbers.Real):
        return float(recorded) == float(recomputed)
    return recorded == recomputed


def _calibration(item: dict, mechanism: str, epsilon: float, constants: dict,
                 effective_norm_bound: float, delta: float) -> dict:
    """The recorded calibration, checked field by field against the library's own recomputation."""
    calibration = item["calibration"]
    if not isinstance(calibration, dict):
        raise InputError(f"certificate.calibration must be an object, got {type(calibration).__name__}")
    for key, value in calibration.items():
        if not (value is None or isinstance(value, (str, int, float)) and not isinstance(value, bool)):
            raise InputError(f"certificate.calibration.{key} must be a number or a string, got {value!r}")
    if calibration.get("mechanism") != mechanism:
        raise InputError(f"certificate.calibration.mechanism is {calibration.get('mechanism')!r}, not "
                         f"{mechanism!r}; the file has been edited")
    try:
        inputs = registry.recorded_inputs(calibration)
    except InputError as error:
        raise InputError(f"certificate.calibration cannot be recomputed: {error}") from None
    approximate = registry.approximate(calibration)
    for key in inputs:
        if key not in calibration and key != "tol":
            raise InputError(f"certificate.calibration.{key} is missing: the calibration cannot be "
                             "recomputed, so the file cannot be trusted")
    if not approximate and delta != 0.0:
        raise InputError(f"certificate.delta must be 0 for the pure-epsilon mechanisms, got {delta!r}; the file "
                         "has been edited")
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
        if not _same_number(calibration[key], value):
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
    try:
        recomputed = registry.recompute(calibration)
    except InputError as error:
        raise InputError(f"certificate.calibration cannot be recomputed: {error}") from None
    for key in [*recomputed, *(key for key in calibration if key not in recomputed)]:
        if key not in recomputed:
            raise InputError(f"certificate.calibration.{key} is not part of a dpcvx calibration; the "
                             "file has been edited")
        if key not in calibration:
            raise InputError(f"certificate.calibration.{key} is missing (recomputed "
                             f"{recomputed[key]!r}); the file is incomplete")
        if not _same_number(calibration[key], recomputed[key]):
            used = ", ".join(k for k in inputs if k in calibration)
            raise InputError(f"certificate.calibration.{key}: recorded {calibration[key]!r}, recomputed "
                             f"{recomputed[key]!r} from {used}; the file has been edited")
    return dict(calibration)


def _constants(data: Any) -> tuple[dict, dict]:
    """(constants as the certificate prints them, their float values) from certificate.constants."""
    if not isinstance(data, dict):
        raise InputError(f"certificate.constants must be an object, got {type(data).__name__}")
    printed, values = {}, {}
    for key, value in data.items():
        printed[key] = _constant(key, value)
        values[key] = _saved_number(f"certificate.constants.{key}", value)[1]
    n = values.get("n")
    if n is not None and not (n >= 1 and float(n).is_integer()):
        raise InputError(f"certificate.constants.n must be a positive integer, got {n!r}")
    if "n" in values:
        values["n"] = int(values["n"])
    for key in ("lam", "L", "m", "R"):
        if key in values and not (values[key] > 0 and math.isfinite(values[key])):
            raise InputError(f"certificate.constants.{key} must be finite and positive, got {values[key]!r}")
    if "c" in values and not values["c"] >= 0:
        raise InputError(f"certificate.constants.c must be non-negative, got {values['c']!r}")
    return printed, values


def _positive(what: str, value: Any) -> float:
    number = _number(what, value)
    if not number > 0:
        raise InputError(f"{what} must be positive, got {value!r}")
    return number


def _release_certificate(data: Any) -> SavedReleaseCertificate:
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
    epsilon = _positive("certificate.epsilon", item["epsilon"])
    delta = _number("certificate.delta", item["delta"])
    if not 0.0 <= delta < 1.0:
        raise InputError(f"certificate.delta must lie in [0, 1), got {item['delta']!r}; the file has been edited")
    verification = _verification(item["verification"])
    if not verification.allows(mechanism, delta):
        raise InputError(f"the saved certificate does not allow {mechanism} perturbation, so the "
                         "file cannot hold a dpcvx release; it has been edited")
    printed, values = _constants(item["constants"])
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
    calibration = _calibration(item, mechanism, epsilon, values, effective, delta)
    check_recorded_curve(recorded_curve, curve_of_calibration(calibration, epsilon, delta))
    neighbours = _text("certificate.neighbours", item["neighbours"])
    if not neighbours.strip():
        raise InputError("certificate.neighbours must name the neighbour relation of the guarantee")
    relation = Neighbours.parse(calibration.get("neighbours", Neighbours.REPLACE_ONE.value),
                                "certificate.calibration.neighbours")
    stated = Neighbours.of_statement(neighbours, "certificate.neighbours")
    if stated is not relation:
        raise InputError(f"certificate.neighbours states {stated} but the calibration is for {relation}; the file "
                         "has been edited")
    return SavedReleaseCertificate(
        mechanism=mechanism,
        guarantee=_text("certificate.guarantee", item["guarantee"]),
        epsilon=epsilon,
        delta=delta,
        calibration=calibration,
        verification=verification,
        data_norm=_positive("certificate.data_norm", item["data_norm"]),
        effective_norm_bound=effective,
        fit_intercept=_flag("certificate.fit_intercept", item["fit_intercept"]),
        intercept_scaling=_positive("certificate.intercept_scaling", item["intercept_scaling"]),
        clipping=_text("certificate.clipping", item["clipping"]),
        neighbours=neighbours,
        library_version=_text("certificate.library_version", item["library_version"]),
        constants=printed,
        saved=copy.deepcopy(data),
        label_bound=None if data.get("label_bound") is None else _positive("certificate.label_bound",
                                                                            data["label_bound"]),
        lam_rule=_lam_rule(data.get("lam_rule"), values.get("lam")),
        post_processing=_post_processing(data.get("post_processing", [])),
    )


def _lam_rule(data: Any, lam: float | None) -> dict | None:
    """The recorded ``lam="auto"`` choice: its rule, W, bound terms and a lam equal to the certificate's."""
    if data is None:
        return None
    item = json_object("certificate.lam_rule", data, {"rule", "lam", "comparator_norm", "noise", "bias"})
    _text("certificate.lam_rule.rule", item["rule"])
    for key in ("comparator_norm", "noise", "bias"):
        _number(f"certificate.lam_rule.{key}", item[key])
    if lam is None or _number("certificate.lam_rule.lam", item["lam"]) != lam:
        raise InputError(f"certificate.lam_rule.lam is {item['lam']!r} but the certificate states lam = {lam!r}; "
                         "the file has been edited")
    return dict(item)


def _post_processing(steps: Any) -> tuple[str, ...]:
    """The public rules applied to the released weights (dpcvx.release.sparsify), as saved."""
    if not isinstance(steps, list):
        raise InputError("certificate.post_processing must be a list of texts")
    return tuple(_text("certificate.post_processing", step) for step in steps)


def _row_map(data: Any) -> RowMap:
    item = json_object("preprocessing.row_map", data, _ROW_MAP_KEYS)
    feature_map = item["feature_map"]
    if feature_map is not None:
        if not isinstance(feature_map, dict):
            raise InputError("preprocessing.row_map.feature_map must be an object or null")
        type_name = _text("preprocessing.row_map.feature_map.type", feature_map.get("type"))
        feature_map = _feature_map_loader(type_name)(copy.deepcopy(feature_map))
    rows = RowMap(
        norm_bound=_number("preprocessing.row_map.norm_bound", item["norm_bound"]),
        feature_map=feature_map,
        fit_intercept=_flag("preprocessing.row_map.fit_intercept", item["fit_intercept"]),
        intercept_scaling=_number("preprocessing.row_map.intercept_scaling", item["intercept_scaling"]),
    )
    if not (rows.norm_bound > 0 and rows.intercept_scaling > 0):
        raise InputError("preprocessing.row_map needs a positive norm_bound and intercept_scaling")
    return rows


def _check_same(what: str, value: Any, recorded: Any) -> None:
    if value != recorded:
        raise InputError(f"{what} is {value!r} but the certificate records {recorded!r}; "
                         "the file has been edited")


def model_from_dict(data: Any) -> Release:
    """Rebuild a release from :func:`model_to_dict` output (validated; runs no code).

    A linear model has a ``schema`` attribute: the saved
    :class:`~dpcvx.data.preprocessing.PublicSchema`, or None. A kernel release
    (``"kind": "kernel"``) is checked by :func:`dpcvx.release.kernel_model.release_from_dict`.
    """
    if json_depth(data) > MAX_JSON_DEPTH:  # load() has checked this already; direct callers have not
        raise InputError(f"the model data nest more than {MAX_JSON_DEPTH} levels deep; it is not a dpcvx model")
    if isinstance(data, dict) and data.get("format") == MODEL_FORMAT and data.get("format_version") == 1:
        raise InputError("format_version 1 is no longer read: such files record solver statistics "
                         "(certificate.solve) measured on the private data, which no privacy proof "
                         "covers, and keep the weights outside a \"privatised\" section. Refit the model "
                         f"and save it with this version of dpcvx (format_version {MODEL_FORMAT_VERSION})")
    if isinstance(data, dict) and "solve" in data:
        raise InputError("solve holds solver statistics measured on the private data; no privacy proof "
                         "covers them, so a dpcvx model file never carries them. Refit and save with this "
                         "version of dpcvx")
    if not isinstance(data, dict):
        json_object("the model file", data, _MODEL_KEYS)  # refuses: not a JSON object
    if data.get("format") != MODEL_FORMAT or data.get("format_version") not in READABLE_VERSIONS:
        got = (data.get("format"), data.get("format_version"))
        raise InputError(
            f'not a dpcvx model file: need "format": "{MODEL_FORMAT}" and "format_version" in '
            f"{list(READABLE_VERSIONS)}, got {_short(got)}"
        )
    if data["format_version"] == 2:
        if "kind" in data:
            raise InputError('a format_version 2 file has no "kind" (it is always linear); the file has '
                             "been edited")
        return _linear_from_dict(data)
    kind = data.get("kind")
    if kind not in _BY_NAME:
        raise InputError(f'"kind" must be one of {list(KINDS)}, got {_short(kind)}')
    return _BY_NAME[kind].read(data)


def _regression_from_dict(data: dict) -> PrivateRegressionModel:
    """A regression release: AdaSSP's sufficient statistics, or the linear layout of a regression ERM."""
    if isinstance(data.get("certificate"), dict) and registry.sufficient_statistics(data["certificate"]):
        return _adassp_from_dict(data)
    model = _linear_from_dict(data)
    assert isinstance(model, PrivateRegressionModel)
    return model


def _linear_from_dict(data: dict) -> PrivateModel | PrivateRegressionModel:
    """A linear release (format_version 2, or kind "linear" or an ERM "regression"), every field checked."""
    item = json_object("the model file", {key: value for key, value in data.items() if key != "kind"}, _MODEL_KEYS)
    certificate = _release_certificate(item["certificate"])
    _text("library_version", item["library_version"])
    _check_same("library_version", item["library_version"], certificate.library_version)
    _check_same("mechanism", item["mechanism"], certificate.mechanism)
    _check_same("epsilon", _number("epsilon", item["epsilon"]), certificate.epsilon)
    _check_same("delta", _number("delta", item["delta"]), certificate.delta)

    classes = item["classes"]
    regression = data.get("kind") == "regression"
    if regression != (certificate.label_bound is not None) or (regression and classes is not None):
        raise InputError("a regression file has kind \"regression\", classes null and a certificate.label_bound; "
                         "this one mixes a classifier's and a regression's fields")
    if regression:
        classes = [-1, 1]
    if (not isinstance(classes, list) or len(classes) != 2 or classes[0] == classes[1]
            or not all(isinstance(c, (str, int, float, bool)) for c in classes)):
        raise InputError(f"classes must be a pair of two different strings or numbers, got {classes!r}")
    privatised = json_object("privatised", item["privatised"], PRIVATISED_KEYS)
    coef = privatised["coef"]
    if not isinstance(coef, list) or not coef:
        raise InputError("privatised.coef must be a non-empty list of numbers")
    weights = np.array([_number(f"privatised.coef[{i}]", value) for i, value in enumerate(coef)])
    intercept = _number("privatised.intercept", privatised["intercept"])

    preprocessing = json_object("preprocessing", item["preprocessing"], _PREPROCESSING_KEYS)
    try:
        schema = None if preprocessing["schema"] is None else PublicSchema.from_dict(preprocessing["schema"])
    except InputError as error:
        raise InputError(f"preprocessing.schema: {error}") from None
    rows = _row_map(preprocessing["row_map"])
    _check_same("preprocessing.row_map.norm_bound", rows.norm_bound, certificate.data_norm)
    _check_same("preprocessing.row_map.fit_intercept", rows.fit_intercept, certificate.fit_intercept)
    _check_same("preprocessing.row_map.intercept_scaling", rows.intercept_scaling,
                certificate.intercept_scaling)
    _check_same("the effective norm bound of preprocessing.row_map", rows.effective_norm_bound,
                certificate.effective_norm_bound)
    saved_d = item["certificate"]["constants"].get("d")
    dimension = None if saved_d is None else _saved_number("certificate.constants.d", saved_d)[1]
    if dimension is not None and dimension != weights.size + rows.fit_intercept:
        raise InputError(f"privatised.coef has {weights.size} weights{' and an intercept' * rows.fit_intercept} "
                         f"but the certificate states d = {dimension:g}; the file has been edited")
    if not rows.fit_intercept and intercept != 0.0:
        raise InputError("privatised.intercept is non-zero but the model has no intercept feature; the "
                         "file has been edited")
    _check_schema_fits(schema, rows, weights.size)

    model: PrivateModel | PrivateRegressionModel
    if regression:
        model = PrivateRegressionModel(weights, intercept, rows, certificate)
    else:
        model = PrivateModel(weights, intercept, tuple(classes), rows, certificate)
    model.schema = schema
    return model


@dataclass(frozen=True)
class ReleaseKind:
    """One kind of model file: the release class it holds, its writer and its reader."""

    name: str
    release: type
    write: Callable[[Any, PublicSchema | None], dict]
    read: Callable[[dict], Release]


RELEASE_KINDS = (
    ReleaseKind("linear", PrivateModel, _linear_to_dict, _linear_from_dict),
    ReleaseKind("kernel", PrivateKernelModel, _kernel_to_dict, release_from_dict),
    ReleaseKind("multiclass", PrivateMulticlassModel, _multiclass_to_dict, _multiclass_from_dict),
    ReleaseKind("regression", PrivateRegressionModel, _regression_to_dict, _regression_from_dict),
)
_BY_NAME = {kind.name: kind for kind in RELEASE_KINDS}
_BY_CLASS = {kind.release: kind for kind in RELEASE_KINDS}
assert tuple(_BY_NAME) == KINDS


def load(path: str | Path) -> Release:
    """Read a release written by :func:`save`; predictions are identical to the saved model's.

    Nothing in the file is executed: it is parsed as JSON and validated. The
    returned model has a ``schema`` attribute (the saved public encoder, or None).
    """
    path = Path(path)
    data = read_json(path, "model file")
    try:
        return model_from_dict(data)
    except FileError:
        raise
    except InputError as error:
        raise FileError(f"model file {path}: {error}") from None
