"""The kernel learners' loss facts as data: found by the loss's CVXPY structure, so a fit needs no sympy.

:func:`dpcvx.verification.kernel_loss.resolve_loss` needs, besides the verified constants, three
facts that sympy proves in the verifier's worker (:func:`~dpcvx.verification.kernel_loss.kernel_facts`):
l(0) and inf_z l(z), which bound the minimiser's norm (and so the calibration:
:func:`dpcvx.privacy.kernel_calibrate.constraint_radius`), and the two-piece linear form of a
hinge-like loss (the dual solver's route). A new process paid for the worker (1.5 s) and for
sympy's import (0.23 s) to find them again. They are kept like the verified-loss records
(:mod:`dpcvx.verification.loss_record`), keyed by the structure of the CVXPY expression
(:func:`dpcvx.verification.verifier._structural_key`), and served, in order, from

1. the shipped catalogue (``catalogue_proofs.json``, section ``kernel``), written by
   :func:`dpcvx.verification.catalogue.write_catalogue` for the kernel learners' own losses
   (:data:`~dpcvx.verification.kernel_loss.KERNEL_CATALOGUE`); a test proves every entry again;
2. the on-disk cache (folder ``kernel``), under the proof cache's rules: an HMAC under this
   installation's key over the full key (the structural key and the proving code's fingerprint)
   and the data, so an edited, foreign or stale entry is refused before it is read.

A fact is a double written by ``repr`` (which round-trips every double), so a served fact is
bit for bit the one proved. Only finished proofs are kept.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from typing import Any

from . import proof_cache
from .proof_cache import Unencodable

__all__ = ["KernelFacts", "facts_key", "lookup", "keep", "FOLDER"]

FOLDER = "kernel"
SECTION = "kernel"  # of the shipped catalogue, and the kind its facts are collected under while it is written
_LOG = logging.getLogger("dpcvx.verify")


@dataclass(frozen=True)
class KernelFacts:
    """l(0), inf l (None: not established or -infinity) and the two-piece form (a1, c1, a2, c2) or None."""

    value_at_zero: float
    infimum: float | None
    pieces: tuple[float, float, float, float] | None

    def to_data(self) -> dict[str, Any]:
        return {"value_at_zero": repr(self.value_at_zero),
                "infimum": None if self.infimum is None else repr(self.infimum),
                "pieces": None if self.pieces is None else [repr(value) for value in self.pieces]}

    @classmethod
    def from_data(cls, data: Any) -> KernelFacts:
        """The facts from trusted data (the shipped file, or an entry whose HMAC was checked); Unencodable
        when malformed."""
        try:
            pieces = data["pieces"]
            facts = cls(_double(data["value_at_zero"]),
                        None if data["infimum"] is None else _double(data["infimum"]),
                        None if pieces is None else (_double(pieces[0]), _double(pieces[1]), _double(pieces[2]),
                                                     _double(pieces[3])))
        except (KeyError, IndexError, TypeError) as error:
            raise Unencodable(f"malformed kernel facts: {type(error).__name__}") from None
        if facts.pieces is not None and (len(pieces) != 4 or not facts.pieces[0] < facts.pieces[2]):
            raise Unencodable("malformed kernel facts: not a two-piece form")
        return facts


def _double(text: Any) -> float:
    """A finite double from its repr (Unencodable otherwise)."""
    if not isinstance(text, str):
        raise Unencodable("malformed kernel facts: a value is not a number's text")
    try:
        value = float(text)
    except ValueError:
        raise Unencodable("malformed kernel facts: a value is not a number's text") from None
    if not math.isfinite(value):
        raise Unencodable("malformed kernel facts: a value is not finite")
    return value


def facts_key(structural_key: tuple[Any, ...]) -> str:
    """The canonical text of the facts' key (Unencodable when a part of the structure has no JSON form)."""
    from .loss_record import record_key

    return json.dumps({"kernel_facts": record_key(structural_key)}, sort_keys=True, separators=(",", ":"))


def lookup(key: str) -> KernelFacts | None:
    """The facts for ``key`` from the shipped catalogue or the disk, else None."""
    for where, data in proof_cache.stored(key, section=SECTION, field="facts", folder=FOLDER):
        try:
            return KernelFacts.from_data(data)
        except Unencodable as error:
            _LOG.info("proof cache: %s kernel facts refused: %s", where, error)
    return None


def keep(key: str, facts: KernelFacts) -> None:
    """Store ``facts`` for ``key`` on disk (or collect them while the catalogue is written)."""
    collecting = proof_cache.recorded(SECTION)
    if collecting is not None:
        collecting.append((key, facts))
        return
    proof_cache.store_data(key, facts.to_data(), FOLDER)
