"""The shipped catalogue of proofs (``catalogue_proofs.json``): the catalogue's losses at their default
parameters and the kernel learners' own, proved afresh and written by :func:`write_catalogue`.

Run ``python -m dpcvx.verification.catalogue`` after a change to the provers;
``tests/verification/test_proof_cache.py`` proves every shipped entry again. While the file is written
(:func:`dpcvx.verification.proof_cache.recording`) nothing is served from the cache.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import losses
from ..version import __version__
from . import kernel_loss, loss_record, verifier
from .loss_declaration import declared_loss
from .proof_cache import SHIPPED, installed_version, recording, shipped_data

__all__ = ["catalogue_losses", "shipped_losses", "write_catalogue"]


def catalogue_losses() -> list[Any]:
    """The catalogue's losses at their default parameters (what the estimators and the CLI use)."""
    return list(dict.fromkeys(make() for make in losses.CATALOGUE.values()))


def shipped_losses() -> list[Any]:
    """Every loss the shipped catalogue holds a verified record of: the catalogue's, and the kernel learners'
    own that are not among them (the hinge)."""
    return [*catalogue_losses(), kernel_loss.hinge]


def write_catalogue(path: Path = SHIPPED) -> list[str]:
    """Prove every catalogue loss afresh (no cache read) and write the results to ``path``.

    Run ``python -m dpcvx.verification.catalogue`` after a change to the provers.
    """
    verifier.forget_losses()
    templates = []
    with recording() as collected:
        for loss in catalogue_losses():
            verifier.verify_loss(loss)
            key = loss_record.record_key(verifier._structural_key(declared_loss(loss)[1]))
            templates.append({"key": loss.spec, "record_key": key})  # found by its name (template_lookup)
        for spec in kernel_loss.KERNEL_CATALOGUE:  # the kernel learners' facts (and the hinge's proof)
            kernel_loss.resolve_loss(spec)
    verifier.forget_losses()
    recorded_entries, records = collected.get("entries", []), collected.get("losses", [])
    incomplete = [key for key, entry in recorded_entries + records if entry.limit is not None]
    if incomplete:
        raise RuntimeError(f"a catalogue proof was cut short by the time limit: {incomplete}")
    kernel = [{"key": key, "facts": facts.to_data()} for key, facts in dict(collected.get("kernel", [])).items()]
    if len(kernel) != len(kernel_loss.KERNEL_CATALOGUE):
        raise RuntimeError("a kernel learner's loss facts were not proved")
    entries: list[dict[str, Any]] = [{"key": key, "entry": entry.to_data()}
                                     for key, entry in dict(recorded_entries).items()]
    verified = [{"key": key, "record": record.to_data()} for key, record in dict(records).items()]

    def lines(items: list[dict[str, Any]]) -> str:
        return ",\n  ".join(json.dumps(item, sort_keys=True) for item in items)  # one entry a line

    versions = f'"dpcvx_version": {json.dumps(__version__)}, "cvxpy_version": {json.dumps(installed_version("cvxpy"))}'
    path.write_text(f'{{{versions},'
                    f'\n "entries": [\n  {lines(entries)}\n ],\n "losses": [\n  {lines(verified)}\n ],'
                    f'\n "kernel": [\n  {lines(kernel)}\n ],\n "templates": [\n  {lines(templates)}\n ]\n}}\n',
                    encoding="utf-8")
    shipped_data.cache_clear()
    return [entry["key"] for entry in entries] + [item["key"] for item in verified] + [item["key"] for item in kernel] \
        + [item["key"] for item in templates]


if __name__ == "__main__":  # the package's modules, not this __main__ copy, hold the recording state
    from dpcvx.verification import catalogue as _package_module

    for written in _package_module.write_catalogue():
        print(written[:120])
