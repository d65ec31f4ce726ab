"""The header every model record starts with: the format's name, its version and the kinds of record; and the
digest every model file ends with, of all the rest.

A file of another version is refused (docs/model-files.md states the compatibility policy).

From format version 10 a model file holds, under the top-level key :data:`DIGEST`, the SHA-256 digest of its own
canonical text (:func:`file_digest`): the writer (:func:`dpcvx.release.serialization.model_to_dict`) adds it, and the
loader (:func:`dpcvx.release.serialization.model_from_dict`) refuses a file whose content no longer has it, after every
check of a field. Most fields of a file have a second copy that the loader compares (the calibration recomputed from
its inputs, the schema against its record, ...), but some have none: the order of ``classes`` or of a multiclass
file's entries, a kernel release's centres, ``feature_names``, ``decision_cut``, a constant's exact text. The digest
is that second copy for every field at once. It detects an edit and corruption, not forgery: whoever edits a file
can compute the digest again (docs/model-files.md, what loading cannot check).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ...exceptions import InputError
from ...validation import _short

__all__ = ["MODEL_FORMAT", "MODEL_FORMAT_VERSION", "KINDS", "DIGEST", "file_digest", "json_digest", "check_digest"]

MODEL_FORMAT = "dpcvx-model"
MODEL_FORMAT_VERSION = 20
KINDS = ("linear", "kernel", "multiclass", "regression")
DIGEST = "sha256"  # the top-level key of a model file's digest of the rest of the file


def file_digest(data: dict[str, Any]) -> str:
    """The SHA-256 hex digest of a model file's canonical text, without its :data:`DIGEST` key: the writer's and the
    loader's one computation.

    The canonical text is the JSON of ``data`` with sorted keys, no spaces, ASCII escapes and no NaN or infinity.
    JSON writes every float with its shortest text that reads back exactly, so a file parsed and dumped again has the
    same canonical text: re-indenting a file or reordering its keys keeps its digest, and any change of a value (a
    number, a text, a list's order, a key added or removed) changes it. ASCII escapes make the text the same for
    every string Python holds, a lone surrogate included (which UTF-8 cannot encode). A value JSON cannot hold (NaN,
    an object) is refused with :class:`~dpcvx.exceptions.InputError`.
    """
    return json_digest({key: value for key, value in data.items() if key != DIGEST})


def json_digest(data: Any) -> str:
    """The SHA-256 hex digest of ``data``'s canonical JSON text (sorted keys, no spaces, ASCII escapes, no NaN or
    infinity): the one computation of every digest a model file holds, the whole file's (:func:`file_digest`) and
    the certificate's records of a saved feature map, schema and tuning record (:mod:`.row_map`)."""
    try:
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    except (TypeError, ValueError) as error:  # a NaN, or an object JSON cannot hold
        raise InputError(f"{error}; only finite numbers, strings, lists and objects are model data") from None
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def check_digest(data: dict[str, Any]) -> None:
    """Refuse a model record whose content is not the one its ``"sha256"`` digest was written of
    (:func:`dpcvx.release.records.header.file_digest`), or that holds none: it was changed after dpcvx wrote it. The
    digest binds every field, also those of which the file holds no second copy to compare (the order of ``classes``
    or of a multiclass file's entries, a kernel release's centres, ``feature_names``, ``decision_cut``, a constant's
    exact text). A file of format version 9 or older holds none: its upgrade step records the one of what it holds;
    an older file that holds one is checked as it is labelled, before its upgrade steps
    (:func:`~dpcvx.release.records.upgrade.upgraded`)."""
    recorded, computed = data.get(DIGEST), file_digest(data)
    if recorded != computed:
        found = f"{DIGEST} is missing" if DIGEST not in data else \
            f"{DIGEST} records {_short(recorded, 80)} but the file's content has {computed}"
        raise InputError(f"{found}: the file was changed after dpcvx wrote it. The digest detects edits and "
                         "corruption, not forgery (to show where a file came from, publish its checksum or a "
                         "signature: docs/model-files.md). Restore the file as dpcvx wrote it, or refit the model "
                         "and save it again")
