"""A refusal of a budget above a mechanism's range, said on the epsilon the user set.

A check such as objective perturbation's epsilon <= 700 (:func:`dpcvx.privacy.objective_gaussian.
check_gaussian_objective_epsilon`) runs on the epsilon the fit's weights are calibrated to, which a composite may
have made a part of the user's: one class's of one-vs-rest (about epsilon / k), what private column statistics, a
class count or a private bound leave. Quoting that part as ``epsilon=...`` and advising a limit on it told a user
who passed epsilon=3000 to four classes "epsilon=749.99999999925 is above 700 ... choose epsilon <= 700", while
epsilon=2800 is accepted (analyst probe P7, session 68, finding 3).

So the check raises :class:`~dpcvx.exceptions.BudgetLimitError` (:func:`above_limit`), and each composite that
passes a part of its epsilon on runs its checks inside :func:`budget_part`, with the public map from its epsilon to
the part. The refusal leaving it quotes the part as epsilon' with the one phrase for a part
(:func:`dpcvx.advice.epsilon_share`) and advises the limit on the composite's own epsilon: the largest whose part is
within the bound (found on the map itself, so the limit advised is accepted), written with six significant digits,
rounded down. Composites nest (column statistics drawn once before one-vs-rest's k fits, each drawing a class
count): the outermost restates last, on the epsilon the user set. Public arithmetic only: the maps are the splits
the plans make from the public settings, before any data is read, and a refusal spends nothing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from ..advice import epsilon_share, setting
from ..exceptions import BudgetLimitError, DPCVXError
from ..validation import number_text

__all__ = ["above_limit", "budget_part", "restated", "largest_total", "limit_text"]

_STEPS = 2200  # bisection steps over the doubles of [low, high]: each halves the count of doubles left (< 2^64)


def above_limit(name: str, value: float, limit: float, reason: str, alternatives: str) -> BudgetLimitError:
    """The refusal of ``value`` of the budget ``name`` above ``limit``: ``reason`` says why that is the bound,
    ``alternatives`` (after "or") what takes more. Said on ``value`` itself until a :func:`budget_part` restates
    it on the epsilon the user set."""
    return _error(name, value, limit, reason, alternatives, ((value, limit),), None)


@contextmanager
def budget_part(total: float, part: Callable[[float], float], classes: int | None = None) -> Iterator[None]:
    """Run a composite's checks of a part of ``total`` (its epsilon as given to it): a
    :class:`~dpcvx.exceptions.BudgetLimitError` raised inside is restated on ``total`` (:func:`restated`).
    ``part`` maps an epsilon of the composite to the part its checks see, by the plans' own split (public);
    ``classes``: one-vs-rest's k when the part is one class's."""
    try:
        yield
    except BudgetLimitError as error:
        raise restated(error, total, part, classes) from None


def restated(error: BudgetLimitError, total: float, part: Callable[[float], float],
             classes: int | None = None) -> BudgetLimitError:
    """``error`` said on ``total``, the epsilon of which ``part(total)`` is the value it was last said on (or the
    value checked, when an inner composite said it on another part): its quoted value stays the part checked, as
    epsilon' with the phrase for its part of ``total``, and its advice is the limit on ``total``
    (:func:`largest_total`). ``error`` unchanged where the map does not reach a value it was said on, or where
    the part is ``total`` itself."""
    try:
        landed = part(total)
    except DPCVXError:
        return error
    matched = [index for index, (given, _) in enumerate(error.stated) if given == landed]
    if not matched or landed == total:
        return error
    index = matched[-1]
    limit = largest_total(part, total, error.stated[index][1])
    if limit is None:
        return error
    stated = (*error.stated[:index + 1], (total, limit))
    return _error(error.name, error.value, error.limit, error.reason, error.alternatives, stated,
                  error.classes if classes is None else classes)


def largest_total(part: Callable[[float], float], total: float, bound: float) -> float | None:
    """The largest double t <= ``total`` with part(t) <= ``bound``, by bisection on ``part`` itself (non-decreasing,
    part(t) <= t, part(total) > bound); None where the map refuses or does not behave so."""
    def within(t: float) -> bool:
        return part(t) <= bound

    try:
        low, high = min(bound, total), total
        if not within(low) or within(high):
            return None
        for _ in range(_STEPS):
            if math.nextafter(low, math.inf) >= high:
                return low
            middle = low + (high - low) / 2
            if middle <= low or middle >= high:
                middle = math.nextafter(low, math.inf)
            low, high = (middle, high) if within(middle) else (low, middle)
    except DPCVXError:
        return None
    return None


def limit_text(limit: float) -> str:
    """``limit`` for advice "choose epsilon <= ...": six significant digits, rounded down, so that the number
    written is within the limit (2800 for 2800.0000000028; 777.777 for 777.7777...)."""
    if not (math.isfinite(limit) and limit > 0):
        return number_text(limit)
    unit = 10.0 ** (math.floor(math.log10(limit)) - 5)
    shown = math.floor(limit / unit) * unit
    while float(f"{shown:.6g}") > limit:
        shown -= unit
    return f"{shown:.6g}"


def _error(name: str, value: float, limit: float, reason: str, alternatives: str,
           stated: tuple[tuple[float, float], ...], classes: int | None) -> BudgetLimitError:
    """The refusal of the part ``value`` above ``limit``, said on the last of ``stated``."""
    total, total_limit = stated[-1]
    phrase = None if len(stated) == 1 else epsilon_share(value, total, classes)
    if phrase is None:
        quoted, advice = setting(name, number_text(value)), f"choose {setting(name)} <= {limit:g}"
    else:
        quoted = f"{name}' = {number_text(value)} ({phrase})"
        advice = f"choose {setting(name)} <= {limit_text(total_limit)} (so that {name}' <= {limit:g})"
    message = f"{quoted} is above {limit:g}, {reason}: {advice}, or {alternatives}. Nothing was charged"
    return BudgetLimitError(message, name=name, value=value, limit=limit, reason=reason, alternatives=alternatives,
                            stated=stated, classes=classes)
