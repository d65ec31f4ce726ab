"""The verified loss as data: what a verification established, kept so that a cached fit needs no sympy.

:mod:`dpcvx.verification.proof_cache` keeps the provers' results, but the verifier still
translated the loss to sympy to find them (the key is the exact sympy form), and compiled the
solver's derivatives with ``sympy.lambdify``: a first fit imported sympy (~0.2-0.5 s) even when
nothing was proved. A :class:`LossRecord` is the verifier's whole result for one loss: its text,
its conditions (every constant an exact :class:`~fractions.Fraction`, a double, or ``inf``), CVXPY's
DCP verdict, and the numpy code of l, l', l'' that sympy's printer wrote when it was proved
(:mod:`dpcvx.verification.numpy_code`). It is keyed by the structure of the CVXPY expression
(:func:`dpcvx.verification.verifier._structural_key`: atoms, shapes, exact constant bytes), so a
lookup needs CVXPY and numpy only.

Records are served, in order, from

1. the shipped catalogue (``catalogue_proofs.json``, section ``losses``), written with the prover
   entries by :func:`dpcvx.verification.catalogue.write_catalogue`, used only by the dpcvx and
   CVXPY versions that wrote it; a test verifies every catalogue loss afresh and compares, code
   included. A catalogue loss (:class:`dpcvx.losses.MarginLoss`) is also found by its name (section
   ``templates``, :func:`template_lookup`), without building its expression: a fit of a catalogue loss
   then imports no CVXPY;
2. the on-disk cache (folder ``losses`` beside ``proofs``), under the same rules as the prover
   entries: an HMAC under this installation's key over the full key (the structural key and the
   code's fingerprint, which names the dpcvx, CVXPY, sympy, mpmath and Python versions and hashes
   the verification sources) and the record. An edited, foreign or stale record is refused before
   anything in it is decoded, and its derivative code is never compiled.

A verification the time limit cut short is kept with that limit and serves only verifications whose
limit is no larger (the prover entries' rule: replaying "sympy did not finish" certifies nothing, and a
validated bound cut short is still an upper bound). A verification whose worker call failed (the worker
died or raised) is not kept at all (:data:`dpcvx.verification.verifier.FAILED`). A record is written only
when every value has an exact text form (an irrational sympy constant has none: that loss keeps the prover
cache only). The derivative code is compiled only after a syntax check
(:func:`~dpcvx.verification.numpy_code.compile_code`); a record whose code fails it is refused.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import proof_cache
from .certificate import Condition
from .numpy_code import UnsafeCode, compile_code
from .problem import LossDerivatives
from .proof_cache import Unencodable

__all__ = ["LossRecord", "record_key", "lookup", "template_lookup", "keep", "derivatives_of", "FOLDER"]

FOLDER = "losses"
SECTION = "losses"  # of the shipped catalogue, and the kind its records are collected under while it is written
TEMPLATES = "templates"  # of the shipped catalogue: each catalogue loss's spec and the key of its record
_LOG = logging.getLogger("dpcvx.verify")
_FIELDS = ("name", "description", "passed", "value", "method", "detail", "fix")


def _plain_key(part: Any) -> Any:
    if isinstance(part, tuple):
        return [_plain_key(item) for item in part]
    if isinstance(part, bytes):
        return {"bytes": part.hex()}
    if part is None or isinstance(part, (str, bool, int)):
        return part
    raise Unencodable(f"a {type(part).__name__} in a structural key")


def record_key(structural_key: tuple[Any, ...]) -> str:
    """The canonical text of a loss's structural key (Unencodable when a part has no JSON form)."""
    return json.dumps({"verified_loss": _plain_key(structural_key)}, sort_keys=True, separators=(",", ":"))


def _encode_value(value: Any) -> Any:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, Fraction):
        return {"fraction": [value.numerator, value.denominator]}
    if isinstance(value, float):
        return {"float": repr(value)}
    raise Unencodable(f"no exact text form for a condition value of type {type(value).__name__}")


def _decode_value(data: Any) -> Any:
    if data is None or isinstance(data, (bool, str)):
        return data
    if isinstance(data, dict) and list(data) == ["fraction"]:
        numerator, denominator = data["fraction"]
        if type(numerator) is int and type(denominator) is int and denominator > 0:
            return Fraction(numerator, denominator)
    if isinstance(data, dict) and list(data) == ["float"] and isinstance(data["float"], str):
        return float(data["float"])
    raise Unencodable(f"not an encoded condition value: {str(data)[:60]!r}")


@dataclass(frozen=True)
class LossRecord:
    """What the verifier established for one loss (see the module docstring)."""

    text: str
    conditions: tuple[Condition, ...]
    dcp_convex: bool
    derivative_code: tuple[str, str, str] | None
    limit: float | None = None  # None: complete; else the time limit (s) that cut a proof short

    def serves(self, seconds: float) -> bool:
        """Whether this record answers a verification with time limit ``seconds`` (the prover cache's rule)."""
        return self.limit is None or seconds <= self.limit

    def to_data(self) -> dict[str, Any]:
        """JSON data; Unencodable unless it decodes back to the same record."""
        data = {
            "text": self.text,
            "dcp_convex": self.dcp_convex,
            "conditions": [{field: _encode_value(getattr(item, field)) if field == "value" else getattr(item, field)
                            for field in _FIELDS} for item in self.conditions],
            "derivatives": None if self.derivative_code is None else list(self.derivative_code),
            "limit": None if self.limit is None else _encode_value(float(self.limit)),
        }
        if LossRecord.from_data(data) != self:
            raise Unencodable("the record does not survive its text form")
        return data

    @classmethod
    def from_data(cls, data: Any) -> LossRecord:
        """The record from trusted data (the shipped file, or a record whose HMAC was checked); Unencodable if
        malformed. The derivative code is not compiled here."""
        try:
            conditions = tuple(Condition(**{field: _decode_value(item[field]) if field == "value" else item[field]
                                            for field in _FIELDS}) for item in data["conditions"])
            code = data["derivatives"]
            limit = None if data["limit"] is None else _decode_value(data["limit"])
            record = cls(data["text"], conditions, data["dcp_convex"], None if code is None else tuple(code), limit)
        except (KeyError, TypeError, ValueError) as error:
            raise Unencodable(f"malformed record: {error}") from None
        texts = [record.text] + [getattr(item, field) for item in conditions
                                 for field in ("name", "description", "method", "detail", "fix")]
        if not all(isinstance(text, str) for text in texts) or not isinstance(record.dcp_convex, bool) or \
                not all(item.passed in (True, False, None) for item in conditions) or \
                not (code is None or (len(code) == 3 and all(isinstance(text, str) for text in code))) or \
                not (record.limit is None or isinstance(record.limit, float)):
            raise Unencodable("malformed record")
        return record


def derivatives_of(code: tuple[str, str, str] | None) -> LossDerivatives | None:
    """The solver's l, l', l'' compiled from their numpy code (UnsafeCode if the code fails the check)."""
    if code is None:
        return None
    value, first, second = (compile_code(text) for text in code)
    return LossDerivatives(value, first, second)


def lookup(key: str, seconds: float) -> tuple[LossRecord, LossDerivatives | None] | None:
    """The record for ``key`` that serves time limit ``seconds``, and its compiled derivatives, from the shipped
    catalogue or the disk; else None."""
    for where, data in proof_cache.stored(key, section=SECTION, field="record", folder=FOLDER):
        try:
            record = LossRecord.from_data(data)
            if record.serves(seconds):
                return record, derivatives_of(record.derivative_code)
        except (Unencodable, UnsafeCode) as error:
            _LOG.info("proof cache: %s record refused: %s", where, error)
    return None


def template_lookup(spec: str, seconds: float) -> tuple[LossRecord, LossDerivatives | None] | None:
    """The shipped record of the catalogue loss named ``spec`` (:attr:`dpcvx.losses.MarginLoss.spec`), found by its
    name, with its compiled derivatives; else None (not shipped, or the shipped file belongs to another dpcvx or
    CVXPY version). The catalogue's section ``templates`` names, for each catalogue loss, the key of the record
    the verifier wrote for exactly that loss's expression when the file was written
    (:func:`dpcvx.verification.catalogue.write_catalogue`), so the record is found without building the
    expression (no CVXPY import)."""
    if proof_cache.recorded(SECTION) is not None:  # the catalogue is being written: everything is proved afresh
        return None
    keys = {item["key"]: item["record_key"] for item in proof_cache.shipped_data().get(TEMPLATES, ())}
    key = keys.get(spec)
    return lookup(key, seconds) if isinstance(key, str) else None


def keep(key: str, record: LossRecord) -> None:
    """Store ``record`` for ``key`` on disk (or collect it while the catalogue is written); skipped when it has
    no exact text form."""
    collecting = proof_cache.recorded(SECTION)
    if collecting is not None:
        collecting.append((key, record))
        return
    try:
        data = record.to_data()
    except Unencodable as error:
        _LOG.debug("proof cache: record not stored: %s", error)
        return
    proof_cache.store_data(key, data, FOLDER)
