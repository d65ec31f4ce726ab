"""Pictures of privacy against utility and of audits (optional: ``pip install "dpcvx[plot]"``).

* :func:`privacy_utility`: a score (test accuracy, say) against epsilon for
  one or more methods, with the non-private score as a reference line: the
  trade-off a private analysis chooses from. Works for a tuning run too: pass
  the score of the released model of each run against its epsilon.
* :func:`audit_bounds`: the empirical lower bound of epsilon found by
  :func:`dpcvx.audit` against the epsilon each release claims; a sound
  mechanism stays on or below the diagonal.

Each function draws into a matplotlib Axes (a new figure's when ``ax`` is
None) and returns it; save it with ``ax.figure.savefig(path)``. Scores must be
computed on data the analyst may look at (a public test set).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from .exceptions import InputError
from .validation import _short, finite, real_values

__all__ = ["privacy_utility", "audit_bounds"]


def _axes(ax: Any) -> Any:
    if ax is not None:
        if not hasattr(ax, "plot"):
            raise InputError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")
        return ax
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError('dpcvx.plots needs matplotlib: pip install "dpcvx[plot]"') from error
    return Figure(figsize=(6, 4)).add_subplot()


def _series(values: Any, length: int, what: str) -> np.ndarray:
    """``values`` as a (length, draws) array of finite scores (:func:`~dpcvx.validation.real_values`: text, None or
    ragged rows refused as every array of numbers is), or InputError naming ``what``."""
    array = real_values(what, values)
    if array.ndim == 1:
        array = array[:, None]
    if array.ndim != 2 or array.shape[0] != length or not np.all(np.isfinite(array)):
        raise InputError(f"{what} must hold {length} finite scores (one per epsilon, or one row of "
                         f"repeated draws per epsilon), got shape {np.shape(values)}")
    return array


def privacy_utility(epsilons: Sequence[float], scores: Mapping[str, Any], *,
                    baseline: float | None = None, ylabel: str = "test accuracy", ax: Any = None) -> Any:
    """Score against epsilon (log scale) for each method, mean with the range of repeated draws.

    ``scores`` maps a method name to one score per epsilon, or to an array of
    shape (len(epsilons), draws). ``baseline`` (the non-private score) is drawn
    as a dashed line.
    """
    try:
        eps: np.ndarray | None = real_values("epsilons", epsilons)
    except InputError:  # text, None, ragged rows: refused in the words of any other list that is not epsilons
        eps = None
    if eps is None or eps.ndim != 1 or eps.size == 0 or not np.all(np.isfinite(eps) & (eps > 0)):
        raise InputError(f"epsilons must be a non-empty list of positive numbers, got {_short(epsilons)}")
    if not isinstance(scores, Mapping) or not scores:
        raise InputError("scores must be a non-empty dict: method name -> scores per epsilon")
    tables = {name: _series(values, eps.size, f"scores[{name!r}]") for name, values in scores.items()}
    baseline = None if baseline is None else finite("baseline", baseline)  # every input checked before drawing
    order = np.argsort(eps)
    ax = _axes(ax)
    for name, values in tables.items():
        table = values[order]
        line, = ax.plot(eps[order], table.mean(axis=1), marker="o", label=str(name))
        if table.shape[1] > 1:
            ax.fill_between(eps[order], table.min(axis=1), table.max(axis=1), alpha=0.2,
                            color=line.get_color())
    if baseline is not None:
        ax.axhline(baseline, color="black", linestyle="--", linewidth=1, label="non-private")
    ax.set_xscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel(ylabel)
    ax.legend()
    return ax


def audit_bounds(reports: Sequence[Any], *, ax: Any = None) -> Any:
    """Each audit's epsilon lower bound against the epsilon its release claims, with the diagonal.

    ``reports`` are :class:`dpcvx.AuditReport` objects; a point above the
    diagonal is a violation found at the report's confidence.
    """
    if isinstance(reports, (str, bytes)) or not isinstance(reports, Iterable):
        raise InputError(f"audit_bounds takes a list of dpcvx.AuditReport objects, got {type(reports).__name__}")
    reports = list(reports)  # an iterator too (iter([]) was truthy, and its empty arrays raised numpy's ValueError)
    if not reports:
        raise InputError("audit_bounds needs at least one AuditReport")
    try:
        claimed = np.array([float(r.claimed_epsilon) for r in reports])
        found = np.array([float(r.epsilon_lower_bound) for r in reports])
    except AttributeError as error:
        raise InputError(f"audit_bounds takes dpcvx.AuditReport objects: {error}") from None
    ax = _axes(ax)
    top = float(max(claimed.max(), np.nanmax(found, initial=0.0))) * 1.1
    ax.plot([0, top], [0, top], color="black", linestyle="--", linewidth=1, label="lower bound = claim")
    violation = found > claimed
    ax.scatter(claimed[~violation], found[~violation], label="no violation found")
    if violation.any():
        ax.scatter(claimed[violation], found[violation], color="red", label="violation")
    ax.set_xlabel("claimed epsilon")
    ax.set_ylabel("empirical lower bound of epsilon")
    ax.legend()
    return ax
