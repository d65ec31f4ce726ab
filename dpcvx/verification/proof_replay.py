"""The provers' results through the proof cache: :func:`run` stands in for
:func:`dpcvx.verification.deadline.run` for the two provers,
:func:`~dpcvx.verification.symbolic.loss_facts` and
:func:`~dpcvx.verification.validated.validated_facts`.

A call is answered from the shipped catalogue, then from the on-disk cache
(:mod:`dpcvx.verification.proof_cache`: where entries live and how they are checked), and
only then by the worker, whose result is stored. An :class:`Entry` is one prover result in
its text form (:mod:`dpcvx.verification.proof_codec`). This module imports no sympy itself:
the provers and the codec are imported when a prover result is looked up or stored.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .proof_cache import Unencodable, canonical, load_data, recorded, shipped_data, store_data

if TYPE_CHECKING:  # pragma: no cover - the worker module is imported when a proof is run
    from .deadline import DeadlineResult

__all__ = ["run", "provers", "proof_key", "Entry"]

_LOG = logging.getLogger("dpcvx.verify")


@functools.lru_cache(maxsize=1)
def provers() -> dict[str, tuple[Callable[..., Any], int]]:
    """Prover name -> (function, number of leading arguments that determine its result).

    The arguments after those are time budgets, which change only how soon a result is cut
    short. Built on first use: the provers import sympy, which a cache hit never needs.
    """
    from .symbolic import loss_facts
    from .validated import validated_facts

    return {"symbolic.loss_facts": (loss_facts, 3), "validated.validated_facts": (validated_facts, 4)}


def _name(function: Callable[..., Any]) -> str | None:
    return next((name for name, (known, _) in provers().items() if known is function), None)


@dataclass(frozen=True)
class Entry:
    """One prover result: its items, how the call ended, and the time limit it is valid up to.

    ``limit`` is None for a complete result (valid at every time limit), else the limit
    (seconds) that cut it short: it serves only calls with a limit no larger.
    """

    items: tuple[Any, ...]
    finished: bool
    timed_out: bool
    error: str
    limit: float | None

    @classmethod
    def of(cls, result: DeadlineResult, seconds: float | None) -> Entry | None:
        """The entry to keep for a worker result, or None (a failed worker, or one that had not started when the
        time ran out, is never kept)."""
        if result.unstarted or not (result.finished or result.timed_out):
            return None
        from .validated import TIME_LIMIT_REASON

        partial = result.timed_out or any(TIME_LIMIT_REASON in repr(item) for item in result.items)
        if partial and seconds is None:
            return None
        return cls(tuple(result.items), result.finished, result.timed_out, result.error,
                   float(seconds) if partial and seconds is not None else None)

    def serves(self, seconds: float | None) -> bool:
        return self.limit is None or (seconds is not None and seconds <= self.limit)

    def replay(self, on_item: Callable[[Any], None] | None) -> DeadlineResult:
        from .deadline import DeadlineResult

        for item in self.items:
            if on_item is not None:
                on_item(item)
        return DeadlineResult(items=list(self.items), finished=self.finished, error=self.error,
                              timed_out=self.timed_out)

    def to_data(self) -> dict[str, Any]:
        """JSON data; Unencodable unless it decodes back to the same items."""
        from .proof_codec import decode, encode, same

        data = {"items": encode(self.items), "finished": self.finished, "timed_out": self.timed_out,
                "error": self.error, "limit": encode(self.limit)}
        if not same(decode(data["items"]), self.items):
            raise Unencodable("the items do not survive their text form")
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Entry:
        """The entry from trusted data (the shipped file, or an entry whose HMAC was checked)."""
        from .proof_codec import decode

        items = decode(data["items"])
        limit = decode(data["limit"])
        if not isinstance(items, tuple) or not isinstance(data["finished"], bool) or \
                not isinstance(data["timed_out"], bool) or not isinstance(data["error"], str) or \
                not (limit is None or isinstance(limit, float)):
            raise Unencodable("malformed entry")
        return cls(items, data["finished"], data["timed_out"], data["error"], limit)


def proof_key(name: str, args: tuple[Any, ...]) -> str:
    """The canonical text of a prover call: its name and the exact (srepr) form of the arguments that matter."""
    from .proof_codec import encode

    return canonical({"prover": name, "args": encode(args[:provers()[name][1]])})


def _shipped(key: str) -> Entry | None:
    """The shipped catalogue's prover entry for ``key`` (decoded on first use), or None."""
    raw = {entry["key"]: entry["entry"] for entry in shipped_data().get("entries", ())}.get(key)
    return None if raw is None else Entry.from_data(raw)


def load(key: str) -> Entry | None:
    """The on-disk prover entry for ``key``, or None: absent, off, refused (see :func:`load_data`) or malformed."""
    data = load_data(key)
    if data is None:
        return None
    try:
        return Entry.from_data(data)
    except (Unencodable, KeyError, TypeError) as error:
        _LOG.debug("proof cache: entry refused: %s", error)
        return None


def store(key: str, entry: Entry) -> None:
    """Write the prover ``entry`` for ``key``; skipped when it has no exact text form (see :func:`store_data`)."""
    try:
        data = entry.to_data()
    except Unencodable as error:
        _LOG.debug("proof cache: result not stored: %s", error)
        return
    store_data(key, data)


def run(function: Callable[..., Any], args: tuple[Any, ...] = (), *, seconds: float | None,
        on_item: Callable[[Any], None] | None = None, count_startup: bool = False,
        spare: bool = False) -> DeadlineResult:
    """:func:`dpcvx.verification.deadline.run`, answered from the shipped catalogue or the disk cache if it is there
    (then no worker is started, not even the ``spare``)."""
    from . import deadline

    name = _name(function)
    try:
        key = None if name is None else proof_key(name, args)
    except Unencodable:
        key = None
    if key is None:
        return deadline.run(function, args, seconds=seconds, on_item=on_item, count_startup=count_startup,
                            spare=spare)
    collecting = recorded("entries")  # while the catalogue is written, nothing is served
    if collecting is None:
        for lookup in (_shipped, load):
            entry = lookup(key)
            if entry is not None and entry.serves(seconds):
                return entry.replay(on_item)
    result = deadline.run(function, args, seconds=seconds, on_item=on_item, count_startup=count_startup,
                          spare=spare)
    fresh = Entry.of(result, seconds)
    if fresh is not None:
        if collecting is not None:
            collecting.append((key, fresh))
        else:
            store(key, fresh)
    return result
