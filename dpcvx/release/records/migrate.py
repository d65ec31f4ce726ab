"""Older model files, read as what their library released: the one place a file is upgraded on loading.

Format version 3 kept its number while calibration records gained fields; version 4 files (written since) carry
every field, and only version 2 and 3 files are migrated (a version 4 file that lacks a field is refused as
edited). A record written by dpcvx at commit 94f329f (the first version 3 files;
``tests/release/fixtures/v3`` holds one of every kind) lacks:

* ``float_guarantee`` in a linear release's calibration (every ERM kind: pure and Gaussian, output and
  objective, KST12, regressions, each class of a multiclass release). That library rounded every released
  double to the ``release_grid`` the record states, so the step sets ``"mitigation-only"``: what it did;
* ``release_grids`` and ``float_guarantee`` in AdaSSP's calibration, and ``release_grid`` and
  ``float_guarantee`` in TDDL's: that library added the Gaussian or Laplace noise in raw doubles and rounded
  nothing, so the steps set no grid and ``"legacy-raw-double"``
  (:attr:`~dpcvx.privacy.float_guarantee.FloatGuarantee.LEGACY_RAW_DOUBLE`: no floating-point guarantee, not
  even the mitigation), never a guarantee the release did not have;
* ``float_guarantee`` in TDIL's: its rounds were today's default rounds (a double Laplace test), which name
  ``"mitigation-only"``.

A PINP record of that library is refused (:class:`~dpcvx.exceptions.FileError`): its answers used continuous
Laplace noise whose calibration this library no longer derives, so its numbers cannot be recomputed.

Each migrated calibration also gets ``"legacy"``: the text of its :class:`Migration`, the marker the loaded
certificate carries. The loader then checks the record as it checks a new one: :func:`recompute_as_written`
recomputes it from its public inputs with today's formulas and sets only the migrated fields to the values of
the step (they state what the old library did; no input determines them), so every other field is compared.
A record with some but not all of a migration's fields, or with a ``"legacy"`` text that is not the
migration's, is not migrated and is refused as an edited file. Nothing here changes the file on disk: a
migrated copy is read, and the loaded certificate's ``to_dict()`` is what was saved.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ...exceptions import FileError, InputError
from ...privacy import registry
from ...privacy.float_guarantee import FloatGuarantee
from .fields import _short
from .header import MIGRATED_VERSIONS

__all__ = ["Migration", "MIGRATIONS", "LEGACY_COMMIT", "migrate", "recompute_as_written", "legacy_lines"]

LEGACY_COMMIT = "94f329f"
_MITIGATION = FloatGuarantee.MITIGATION_ONLY.value
_RAW = FloatGuarantee.LEGACY_RAW_DOUBLE.value


@dataclass(frozen=True)
class Migration:
    """The fields a calibration record of one kind lacks in an older file, each with the value that states
    what the writing library did; ``applies`` tells the kind's records from the others."""

    record: str
    fields: dict[str, Any]
    why: str
    applies: Callable[[dict], bool]

    @property
    def note(self) -> str:
        """The legacy marker of a migrated record (its calibration's ``"legacy"``)."""
        values = ", ".join(f"{key} = {value!r}" for key, value in self.fields.items())
        return (f"legacy file ({self.record} record of dpcvx {LEGACY_COMMIT}, format_version 3): read with "
                f"{values}; {self.why}")


def _linear(record: dict) -> bool:
    """A linear release's calibration with a release grid (without one, no noisy double is released and
    today's record names no guarantee either)."""
    if "algorithm" in record or registry.sufficient_statistics(record) or record.get("release_grid") is None:
        return False
    try:
        registry.kind_of(record)
    except InputError:
        return False
    return True


MIGRATIONS = (
    Migration("linear release", {"float_guarantee": _MITIGATION},
              "that library rounded every released double to the recorded release_grid",
              _linear),
    Migration("AdaSSP", {"release_grids": None, "float_guarantee": _RAW},
              "that library added the Gaussian noise to the statistics in raw doubles and rounded nothing",
              registry.sufficient_statistics),
    Migration("TDDL", {"release_grid": None, "float_guarantee": _RAW},
              "that library added the noise to the predictions in raw doubles and rounded nothing",
              lambda record: record.get("algorithm") == "TDDL"),
    Migration("TDIL", {"float_guarantee": _MITIGATION},
              "that library ran today's default rounds: a double Laplace test, only its decisions released",
              lambda record: record.get("algorithm") == "TDIL"),
)
_BY_NOTE = {migration.note: migration for migration in MIGRATIONS}
# PINP's lattice fields: a record without them used continuous Laplace noise (refused, see the module notes)
_PINP_LATTICE_FIELDS = ("lattice", "lattice_sensitivity", "float_guarantee")


def _migrated(calibration: dict, facts: dict) -> dict:
    """``calibration`` with the fields of its kind's migration set, if it is an older record of that kind."""
    view = {**facts, **calibration}
    if "legacy" in calibration:  # a migrated record saved again: kept as it is, checked by recompute_as_written
        note = calibration["legacy"]
        migration = _BY_NOTE.get(note) if isinstance(note, str) else None
        if migration is None or not migration.applies(view):
            raise InputError(f"certificate.calibration.legacy is {_short(note)}, which no migration of this "
                             "library writes for this record; the file has been edited")
        return calibration
    for migration in MIGRATIONS:
        if migration.applies(view) and not any(key in calibration for key in migration.fields):
            return {**calibration, **migration.fields, "legacy": migration.note}
    return calibration


def _refuse_pinp(certificate: dict) -> None:
    calibration = certificate.get("calibration")
    if isinstance(calibration, dict) and not any(key in calibration for key in _PINP_LATTICE_FIELDS):
        raise FileError(
            f"this PINP release was written by dpcvx {LEGACY_COMMIT} or earlier (its calibration has no lattice): "
            "its answers used continuous Laplace noise in doubles, a calibration this dpcvx no longer derives, "
            "so the file's numbers cannot be recomputed and checked. Refit PINP with this version and release "
            f"the new transcript, or read the file with dpcvx at commit {LEGACY_COMMIT}")


def migrate(data: Any) -> Any:
    """A copy of a model file's data with each older calibration record upgraded (module notes); anything
    that is not shaped like a model record is returned unchanged for the readers to refuse."""
    if not isinstance(data, dict) or data.get("format_version") not in MIGRATED_VERSIONS:
        return data  # a current file is checked as written
    certificate = data.get("certificate")
    if not isinstance(certificate, dict) or not isinstance(certificate.get("calibration"), dict):
        return data
    facts = {"algorithm": certificate["algorithm"]} if data.get("kind") == "kernel" and isinstance(
        certificate.get("algorithm"), str) else {}
    if facts.get("algorithm") == "PINP":
        _refuse_pinp(certificate)
    calibration = _migrated(certificate["calibration"], facts)
    if calibration is certificate["calibration"]:
        return data
    upgraded = copy.deepcopy(data)
    upgraded["certificate"]["calibration"] = calibration
    return upgraded


def _facts_view(facts: registry.PublicFacts | None) -> dict:
    return {} if facts is None or facts.algorithm is None else {"algorithm": facts.algorithm}


def recompute_as_written(record: dict, facts: registry.PublicFacts | None = None) -> dict[str, Any]:
    """:func:`dpcvx.privacy.registry.recompute` of ``record``; for a migrated record, its migration's fields
    (and the marker) set as the migration states them, so that every other field is still compared."""
    recomputed = registry.recompute(record, facts)
    note = record.get("legacy")
    migration = _BY_NOTE.get(note) if isinstance(note, str) else None
    if migration is None or not migration.applies({**_facts_view(facts), **record}):
        return recomputed  # no marker (or one migrate() refused): compared as a new record
    return {**recomputed, **migration.fields, "legacy": migration.note}


def legacy_lines(calibration: Mapping[str, Any]) -> list[str]:
    """The printed certificate's line for a migrated record: its legacy marker (none for a new record)."""
    return [str(calibration["legacy"])] if "legacy" in calibration else []
