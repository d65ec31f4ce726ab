"""A certificate's text as a dpcvx before format version 19 wrote it: without the line stating that the file records
no noise source (:class:`dpcvx.privacy.rng.NoiseSource`), which a release loaded from such a file states. The tests of
older fixture files compare a loaded certificate's text with the one its writer computed."""

from __future__ import annotations

import json
from typing import Any

from dpcvx.privacy.rng import NoiseSource
from dpcvx.release.records.header import file_digest


def former_text(certificate: Any) -> str:
    """``str(certificate)`` without its one line "noise source: not recorded ...", which must be there, and an
    add/remove release's line "domain: ...", which this version adds."""
    lines = str(certificate).splitlines()
    assert lines.count(NoiseSource.NOT_RECORDED.statement) == 1, "the loaded certificate states no 'not recorded'"
    # an add/remove release's public domain (ReleaseCertificate.domain), a line derived from its recorded tol and
    # n_public since the seventieth session, which the writers of the fixtures did not print
    domain = getattr(certificate, "domain", None)
    return "\n".join(line for line in lines if line not in (NoiseSource.NOT_RECORDED.statement, f"domain: {domain}"))


def certificates(data: dict) -> list[dict]:
    """A model file's release certificates: its own, or a multiclass file's per-class entries'."""
    return [entry["certificate"] for entry in data["per_class"]] if "per_class" in data else [data["certificate"]]


def without_noise_source(data: dict) -> dict:
    """``data`` (a current file's JSON, changed in place) without its certificates' ``noise_source``, as a dpcvx
    before format version 19 wrote it: the step from version 18 refuses a file that holds it."""
    for certificate in certificates(data):
        del certificate["noise_source"]
    return data


def without_candidate_marks(data: dict) -> dict:
    """``data`` (a current file's JSON, changed in place) without ``"candidate_share"`` in its curves, as a dpcvx
    before format version 20 wrote it: its certificates' (a multiclass file's per-class entries') and its tuning
    record's; the step from version 19 refuses a file whose certificate's curve holds it."""
    record = (data.get("tuning") or {}).get("certificate", {})
    release = record.get("release", {})
    curves = [certificate["privacy_curve"] for certificate in certificates(data)]
    curves += [release["privacy_curve"], *(item["privacy_curve"] for item in release.get("per_class", []))]
    for curve in curves + record.get("candidate_curves", []):
        curve.pop("candidate_share", None)
    return data


def not_recorded(data: dict) -> dict:
    """A copy of ``data`` whose certificates record "not-recorded", what a file without the record loads as (its
    digest, when it holds one, made again)."""
    copied = json.loads(json.dumps(data))
    for certificate in certificates(copied):
        certificate["noise_source"] = NoiseSource.NOT_RECORDED.value
    if "sha256" in copied:
        copied["sha256"] = file_digest(copied)
    return copied


def as_version(data: dict, version: int) -> dict:
    """A copy of ``data`` (a current file's JSON) labelled as format ``version`` (17 or 18 here, or the current 19),
    as a dpcvx of that version wrote it where nothing else differs: without ``noise_source`` before version 19, its
    digest made again. The tests of the former texts a reader accepts only in files of the versions that wrote them."""
    copied = json.loads(json.dumps(data))
    if version < 19:
        without_noise_source(copied)
    copied["format_version"] = version
    for entry in copied.get("per_class", []):
        entry["format_version"] = version
    copied["sha256"] = file_digest({key: value for key, value in copied.items() if key != "sha256"})
    return copied
