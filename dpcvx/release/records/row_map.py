"""The public per-record map of a model file (norm bound, intercept feature, feature map), and the
registry of feature maps a file may name (a map is rebuilt by its registered type name, never by a path the
file names)."""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Callable
from typing import Any

from ...data.files import json_object
from ...data.preprocessing import UNIT_VERSION, PublicSchema, saved_schema
from ...data.rows import RowMap
from ...data.standardiser import ColumnStandardiser
from ...exceptions import InputError
from ...validation import check_bound, positive
from .fields import _flag, _integer, _text
from .header import json_digest

_ROW_MAP_KEYS = {"norm_bound", "fit_intercept", "intercept_scaling", "feature_map"}
# Feature maps restorable from a file: type name -> function(data) -> feature map.
_FEATURE_MAPS: dict[str, Callable[[dict], Any]] = {}
# Maps that ship with dpcvx, imported from this fixed module only when a file names them.
_BUILTIN_FEATURE_MAPS = {"RandomFourierFeatures": "dpcvx.data.kernels", "ColumnStandardiser": "dpcvx.data.standardiser"}


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


# the keys PublicSchema.to_dict writes (a version-1 schema, encoding "unit", without "encoding") and each column's
# "source": a hand-written schema file may leave them to their defaults, the schema a model file embeds may not
_SCHEMA_KEYS = {"format", "version", "norm", "strict", "constant_feature", "columns"}


def read_schema(what: str, data: Any) -> PublicSchema | None:
    """The schema a model file embeds at ``what`` (null: none), as :meth:`PublicSchema.to_dict` wrote it: every key it
    writes present (the reader gives none a default), then read by :meth:`PublicSchema.from_dict`."""
    if data is None:
        return None
    try:
        if isinstance(data, dict) and "version" in data:  # else not a schema: from_dict says so
            required = _SCHEMA_KEYS | ({"encoding"} if data.get("version") != UNIT_VERSION else set())
            missing = sorted(required - set(data))
            columns = data.get("columns")
            if isinstance(columns, list):
                missing += [f"columns[{index}].source" for index, column in enumerate(columns)
                            if isinstance(column, dict) and "source" not in column]
            if missing:
                raise InputError(f"lacks keys {missing}, which a saved schema always holds; the file has been edited")
            _integer("version", data["version"])  # 2.0 is not the version 2 to_dict writes
        with saved_schema():  # categories fitted before two that share a reading key were refused still load
            return PublicSchema.from_dict(data)
    except InputError as error:
        raise InputError(f"{what}: {error}") from None


def _check_schema_fits(schema: PublicSchema | None, rows: RowMap, n_weights: int) -> None:
    """A schema's features are the model's inputs: without a feature map, one weight each."""
    if schema is not None and rows.feature_map is None and schema.dimension != n_weights:
        raise InputError(f"the schema encodes {schema.dimension} features but the model has "
                         f"{n_weights} weights; pass the schema whose rows the model was fitted on")


def _check_written_back(saved: dict, feature_map: Any, type_name: str) -> None:
    """A saved map is exactly what its rebuilt map writes (:func:`_row_map_to_dict`'s record of it): a key the
    map's reader ignores (an extra key, a stated bound other than the map's, a number written as another type)
    would be kept in the file and shown, yet say nothing about the map that predicts."""
    written = dict(feature_map.to_dict())
    written.setdefault("type", type_name)
    if json.dumps(written, sort_keys=True, default=repr) != json.dumps(saved, sort_keys=True, default=repr):
        unexpected = sorted(set(saved) - set(written))
        named = f"holds keys {unexpected} a {type_name} does not write" if unexpected else \
            f"differs from what the {type_name} it rebuilds writes (a field of another type or value)"
        raise InputError(f"preprocessing.row_map.feature_map {named}; the file has been edited")


MAP_RECORD = "feature_map"  # the certificate's record of the map a linear-layout release was fitted with
_MAP_RECORD_KEYS = {"type", "sha256"}


def map_record(saved: dict) -> dict:
    """The certificate's record of a saved feature map (``saved``, what :func:`_row_map_to_dict` writes of it): its
    type and the SHA-256 digest of its canonical JSON text (:func:`~.header.json_digest`), which covers every parameter
    (an RFF map's kernel, gamma, frequencies and phases). Written beside the map by the file's writer, so that the
    loader refuses a file whose map was removed, added or changed; a file is not a signature: an edit that also
    rewrites the digest is not detected (docs/model-files.md)."""
    return {"type": saved.get("type"), "sha256": json_digest(saved)}


def own_map_record(saved: Any, column_statistics: Any) -> dict | None:
    """The certificate's record of a saved map (``saved``, a file's ``preprocessing.row_map.feature_map``) when the
    release was fitted with a map of its own: a map, and no ``column_statistics`` (whose map those statistics give
    and pin); else None. The writer records it, and the step from format version 6 records it for an older file."""
    return map_record(saved) if isinstance(saved, dict) and column_statistics is None else None


def check_map_record(saved: Any, record: Any, *, from_statistics: bool) -> None:
    """Refuse a saved map (``saved``, the file's ``preprocessing.row_map.feature_map``, read by :func:`_row_map`)
    that is not the one the certificate records (``record``, its ``feature_map``, or None): a map where none was
    fitted, none where one was, or another map. ``from_statistics``: the map is the one certificate.column_statistics
    gives (checked against them), which takes no record."""
    what = f"certificate.{MAP_RECORD}"
    if from_statistics or record is None:
        if record is not None:
            raise InputError(f"{what} is recorded, but the release's map is the one certificate.column_statistics "
                             "gives; the file has been edited")
        if saved is not None and not from_statistics:
            raise InputError("preprocessing.row_map.feature_map holds a map, but the certificate records none (its "
                             f"{MAP_RECORD}): the model was fitted without one; the file has been edited")
        return
    item = json_object(what, record, _MAP_RECORD_KEYS)
    _text(f"{what}.type", item["type"])
    _text(f"{what}.sha256", item["sha256"])
    if saved is None:
        raise InputError(f"preprocessing.row_map.feature_map is null, but the model was fitted with the {item['type']} "
                         f"map {what} records; the file has been edited")
    if item != map_record(saved):
        raise InputError(f"preprocessing.row_map.feature_map is not the {item['type']} map {what} records (its type "
                         "or SHA-256 digest differs: a parameter such as gamma, a frequency or a phase was changed); "
                         "the file has been edited")


SCHEMA_RECORD = "schema"  # the certificate's record of the schema that encodes a table into the release's rows
_DIGEST_KEYS = {"sha256"}  # a digest record: {"sha256": the hex digest of the saved object}


def schema_record(saved: Any) -> dict | None:
    """The certificate's record of a saved schema (``saved``, what :meth:`PublicSchema.to_dict` writes of it, or
    None: no schema): the SHA-256 digest of its canonical JSON text (:func:`~.header.json_digest`, as a feature map's
    :func:`map_record`), which covers every field that decides how a table is encoded (the norm, each column's
    name, order, bounds, scale, categories and missing-value rule, the encoding, strictness and constant feature).
    The writer records it beside the schema, and the step from format version 8 records it for an older file."""
    return {"sha256": json_digest(saved)} if isinstance(saved, dict) else None


def check_digest_record(saved: Any, record: Any, what: str, expected: dict | None,
                        refusals: tuple[str, str, str]) -> None:
    """Refuse a saved public object (``saved``, None where the file holds none) that is not the one a certificate's
    digest record names (``record`` at ``what``: {"sha256": ...}, or None; ``expected``, the record of ``saved``
    made by :func:`~.header.json_digest`). ``refusals`` are the three messages: a record missing beside a saved
    object, an object missing beside its record, another object. The one check of every digest record (a schema, a
    tuning selection). A file is not a signature: an edit that also rewrites the digest is not detected."""
    missing, absent, differs = refusals
    if record is None:
        if saved is not None:
            raise InputError(missing)
        return
    item = json_object(what, record, _DIGEST_KEYS)
    _text(f"{what}.sha256", item["sha256"])
    if saved is None:
        raise InputError(absent)
    if item != expected:
        raise InputError(differs)


def check_schema_record(saved: Any, record: Any, where: str = "preprocessing.schema") -> None:
    """Refuse a saved schema (``saved``, the file's schema at ``where``, read by :func:`read_schema`) that is not the
    one the certificate records (``record``, its ``schema``, or None): a schema where none was saved, none where
    one was, or another schema (:func:`check_digest_record`)."""
    what = f"certificate.{SCHEMA_RECORD}"
    check_digest_record(saved, record, what, schema_record(saved), (
        f"{where} holds a schema, but {what} is missing (the certificate records the schema that encodes a table into "
        "the model's rows); the file has been edited",
        f"{where} is null, but {what} records the schema the model's rows were encoded with; the file has been edited",
        f"{where} is not the schema {what} records (its SHA-256 digest differs: the norm, a column's name, order, "
        "bounds or categories, or a column added or dropped); the file has been edited"))


def _row_map(data: Any) -> RowMap:
    item = json_object("preprocessing.row_map", data, _ROW_MAP_KEYS)
    feature_map = item["feature_map"]
    if feature_map is not None:
        if not isinstance(feature_map, dict):
            raise InputError("preprocessing.row_map.feature_map must be an object or null")
        type_name = _text("preprocessing.row_map.feature_map.type", feature_map.get("type"))
        saved = feature_map
        try:  # a map's own reader may take a field of the wrong type for a Python error
            feature_map = _feature_map_loader(type_name)(copy.deepcopy(saved))
        except (TypeError, ValueError, KeyError) as error:
            raise InputError(f"preprocessing.row_map.feature_map is not a saved {type_name}: {error}") from None
        _check_written_back(saved, feature_map, type_name)
    # R as the fit checked it before use: the public data_norm (a bound, validation.check_bound; the map of column
    # statistics is scaled to it) unless a feature map of the release's own gives it (a positive number)
    own_map = feature_map is not None and not isinstance(feature_map, ColumnStandardiser)
    return RowMap(
        norm_bound=(positive if own_map else check_bound)("preprocessing.row_map.norm_bound", item["norm_bound"]),
        feature_map=feature_map,
        fit_intercept=_flag("preprocessing.row_map.fit_intercept", item["fit_intercept"]),
        intercept_scaling=positive("preprocessing.row_map.intercept_scaling", item["intercept_scaling"]),
    )
