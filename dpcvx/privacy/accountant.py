"""A privacy budget for one dataset, with basic composition of (epsilon, delta) costs.

* Sequential composition (default): computations on the same data add up,
  (eps_1, delta_1) then (eps_2, delta_2) costs (eps_1 + eps_2, delta_1 + delta_2)
  (Dwork and Roth 2014, Theorem 3.16; it holds when each computation may
  depend on the earlier outputs).
* Parallel composition: computations on disjoint parts of the data cost the
  coordinate-wise maximum of their costs (McSherry 2009, Theorem 4). A change
  of one record touches one part only, so only one computation sees it.
  :func:`dpcvx.tune` charges Algorithm 4 of JMLR 2011 this way.

The accountant refuses a charge that would exceed its budget with
:class:`~dpcvx.exceptions.BudgetExceededError`, and records nothing. A learner
makes it work for its ``fit(..., accountant=)`` with one call, placed before
it draws any noise or solves anything::

    if accountant is not None:
        accountant.spend(epsilon, delta, description="MyLearner.fit (...)")

A refused charge raises, so no private computation runs. A charge is never
refunded, even if the computation then fails: part of it may have run.

Every charge is atomic: the check against the budget and the append to the
ledger happen under one lock, so learners fitting in several threads against
one accountant can never overspend it together; ``spent``, ``remaining`` and
``can_spend`` read the ledger under the same lock. The lock is not a dataclass
field (equality, ``repr`` and ``dataclasses.asdict`` ignore it) and a copy or
an unpickled accountant gets a fresh one.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ..exceptions import BudgetExceededError, InputError
from ..validation import check_delta, check_epsilon

__all__ = ["PrivacyAccountant", "PrivacyCost", "LedgerEntry", "check_cost"]

_SLACK = 1e-12  # relative slack so that, say, ten charges of 0.1 fit a budget of 1.0


class PrivacyCost(NamedTuple):
    """An (epsilon, delta) pair."""

    epsilon: float
    delta: float = 0.0


@dataclass(frozen=True)
class LedgerEntry:
    """One accepted charge: its cost, what it paid for, and how it was composed."""

    cost: PrivacyCost
    description: str
    composition: str


def check_cost(epsilon: float, delta: float = 0.0) -> PrivacyCost:
    """(epsilon, delta) as a PrivacyCost: dpcvx.validation's check_epsilon and check_delta."""
    return PrivacyCost(check_epsilon(epsilon), check_delta(delta))


@dataclass
class PrivacyAccountant:
    """Tracks and enforces a total (epsilon, delta) budget for one dataset.

    ``spend`` charges a computation on the whole dataset (sequential
    composition); ``spend_parallel`` charges computations on disjoint parts
    (parallel composition). ``spent`` is the sum of the accepted charges and
    ``remaining`` the budget minus ``spent``.
    """

    epsilon: float
    delta: float = 0.0
    ledger: list[LedgerEntry] = field(default_factory=list)

    def __post_init__(self):
        budget = check_cost(self.epsilon, self.delta)
        self.epsilon, self.delta = budget.epsilon, budget.delta
        # An own copy: two accountants (say, one from dataclasses.replace) never share a
        # ledger list, which their two locks could not protect.
        self.ledger = list(self.ledger)
        # Not a dataclass field: equality, repr, asdict and replace never see it.
        # Re-entrant: _charge holds it while calling can_spend, spent and remaining.
        self._lock = threading.RLock()

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_lock", None)  # a lock cannot be pickled or copied; each copy gets its own
        with self._lock:
            state["ledger"] = list(self.ledger)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.RLock()

    @property
    def spent(self) -> PrivacyCost:
        with self._lock:
            entries = list(self.ledger)
        return PrivacyCost(
            math.fsum(entry.cost.epsilon for entry in entries),
            math.fsum(entry.cost.delta for entry in entries),
        )

    @property
    def remaining(self) -> PrivacyCost:
        spent = self.spent
        return PrivacyCost(max(self.epsilon - spent.epsilon, 0.0), max(self.delta - spent.delta, 0.0))

    def can_spend(self, epsilon: float, delta: float = 0.0) -> bool:
        """Whether a charge of (epsilon, delta) would fit the remaining budget (now; see ``spend``)."""
        cost = check_cost(epsilon, delta)
        with self._lock:
            spent = self.spent
        return (spent.epsilon + cost.epsilon <= self.epsilon * (1 + _SLACK)
                and spent.delta + cost.delta <= self.delta * (1 + _SLACK))

    def spend(self, epsilon: float, delta: float = 0.0, description: str = "") -> PrivacyCost:
        """Charge a computation on the whole dataset (sequential composition)."""
        return self._charge(check_cost(epsilon, delta), description, "sequential")

    def spend_parallel(self, costs: Sequence[tuple[float, float]], description: str = "") -> PrivacyCost:
        """Charge computations on disjoint parts of the data: the maximum of each coordinate."""
        checked = [check_cost(*cost) for cost in costs]
        if not checked:
            raise InputError("spend_parallel needs at least one (epsilon, delta) pair")
        cost = PrivacyCost(max(c.epsilon for c in checked), max(c.delta for c in checked))
        return self._charge(cost, description, f"parallel over {len(checked)} disjoint parts")

    def _charge(self, cost: PrivacyCost, description: str, composition: str) -> PrivacyCost:
        # Check and append under one lock: two threads can never both pass the
        # check against the same ledger and then both append.
        with self._lock:
            if self.can_spend(*cost):
                self.ledger.append(LedgerEntry(cost, description, composition))
                return cost
            spent, remaining = self.spent, self.remaining
        raise BudgetExceededError(
            f"{description or 'this computation'} needs (epsilon={cost.epsilon:g}, "
            f"delta={cost.delta:g}) but only (epsilon={remaining.epsilon:g}, "
            f"delta={remaining.delta:g}) of the budget (epsilon={self.epsilon:g}, "
            f"delta={self.delta:g}) remains (spent: epsilon={spent.epsilon:g}, "
            f"delta={spent.delta:g}); nothing was computed. Use a smaller epsilon or a "
            "new dataset."
        )

    def __str__(self) -> str:
        with self._lock:
            entries = list(self.ledger)
            spent, remaining = self.spent, self.remaining
        lines = [
            f"privacy budget (epsilon={self.epsilon:g}, delta={self.delta:g}): "
            f"spent (epsilon={spent.epsilon:g}, delta={spent.delta:g}), "
            f"remaining (epsilon={remaining.epsilon:g}, delta={remaining.delta:g})"
        ]
        lines += [
            f"  epsilon={entry.cost.epsilon:g}, delta={entry.cost.delta:g} "
            f"({entry.composition}): {entry.description}"
            for entry in entries
        ]
        return "\n".join(lines)
