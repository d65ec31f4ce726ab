"""The NOT PRIVATE notes of a fit on its data (the :class:`~dpcvx.exceptions.ClippingWarning` counts of rows beyond
R, labels beyond B and sample weights outside [0, w_max]), shown only once every check of the call has passed.

A fit validates every input first and computes what it tells the data owner about the data after: the counts are
found while the rows, labels and weights are read (the same pass that checks them), so they are kept
(:func:`warn_clipped`) within :func:`checks_then_notes`, which a fit's checks run inside, and shown when the checks
complete. A call refused by a later check (a NaN or misshapen ``sample_weight``, a label outside the classes, delta
above 1/n, too few rows for a range search) shows none of them, as it spends nothing. Nothing here is released.
"""

from __future__ import annotations

import contextvars
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType

from ..exceptions import ClippingWarning, user_stacklevel, warn_released

__all__ = ["checks_then_notes", "notes_dropped", "row_clipping_note", "warn_clipped"]

_HELD: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("dpcvx_data_notes_held", default=None)


def row_clipping_note(clipped: int, n: int, norm_bound: float) -> str:
    """The ClippingWarning text for rows beyond the norm bound R, of every learner: the count (owner only) and the
    fix, columns scaled by public bounds."""
    return (f"{clipped} of {n} rows had norm above R = {norm_bound:g} and were scaled onto the bound (clip=True). "
            "NOT PRIVATE: this count is shown to you only and is not part of the release. To keep rows inside R, "
            "scale each column by bounds you know without looking at the data: dpcvx.PublicSchema with "
            "NumericColumn(name, low, high) and CategoricalColumn(name, categories) maps every row to norm <= 1; "
            "docs/getting-started.md ('Rows inside a public norm bound') explains why R must not be read off the data")


def warn_clipped(text: str) -> None:
    """Warn ``text`` (a NOT PRIVATE clipping count) as a ClippingWarning at the user's line; within
    :func:`checks_then_notes`, once its checks have passed."""
    held = _HELD.get()
    if held is None:
        warnings.warn(text, ClippingWarning, stacklevel=user_stacklevel())
    else:
        held.append(text)


def checks_then_notes(charged_after: _HeldNotes | None = None) -> _HeldNotes:
    """A ``with`` block that keeps the notes of :func:`warn_clipped` made within it, and shows them, each once and in
    order, when it completes; none when it raises (a refusal). A block within another hands its notes to the
    enclosing block when it completes: a composite fit (a private class count, column statistics, bounds), whose
    one block encloses its plan, its checks at other rates and its fit after the charge, which all read the same
    rows, shows each note once, under any warning filter ("always" included), and none when any of its checks
    refuses.

    ``charged_after``: the block of the checks a charge followed (a composite fit's plan, whose notes it showed before
    the charge); this block, the fit after the charge, shows only the notes that block did not, and under any filter
    (:func:`~dpcvx.exceptions.warn_released`: an "error" filter must not lose the paid-for release)."""
    return _HeldNotes(charged_after)


@contextmanager
def notes_dropped() -> Iterator[None]:
    """A block whose clipping notes are not about the user's rows (a fit on rows mapped by a released map, clipped by
    its public rule): they are dropped, shown by no enclosing block."""
    token = _HELD.set([])
    try:
        yield
    finally:
        _HELD.reset(token)


class _HeldNotes:
    """:func:`checks_then_notes`: a class, not a generator of contextlib, so that the warnings, shown from
    :meth:`__exit__`, point past dpcvx's frames only, at the user's line (:func:`~dpcvx.exceptions.user_stacklevel`)."""

    def __init__(self, charged_after: _HeldNotes | None = None) -> None:
        self._before = charged_after
        self._held: list[str] = []

    def __enter__(self) -> _HeldNotes:
        self._outer = _HELD.get()
        self._token = _HELD.set(self._held)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        _HELD.reset(self._token)
        if kind is None and self._outer is not None:
            self._outer.extend(self._held)
        elif kind is None and self._before is not None:
            for text in dict.fromkeys(self._held):
                if text not in self._before._held:
                    warn_released(text, ClippingWarning)
        elif kind is None:
            for text in dict.fromkeys(self._held):
                warnings.warn(text, ClippingWarning, stacklevel=user_stacklevel())
