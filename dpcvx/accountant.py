"""A privacy budget for one dataset, with basic composition.

* Sequential composition (default): computations on the same data add up,
  (eps_1, delta_1) then (eps_2, delta_2) costs (eps_1 + eps_2, delta_1 + delta_2)
  (Dwork and Roth 2014, Theorem 3.16).
* Parallel composition: computations on disjoint parts of the data cost the
  maximum of their budgets (McSherry 2009, Theorem 4), used by
  :func:`dpcvx.tune` for Algorithm 4 of JMLR 2011.

The accountant refuses a charge that would exceed its budget before any work
is done, with :class:`~dpcvx.exceptions.BudgetExceededError`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Sequence

from .exceptions import BudgetExceededError, InputError
from .validation import positive

__all__ = ["PrivacyAccountant", "PrivacyCost", "LedgerEntry"]

_SLACK = 1e-12  # relative slack so that, say, ten charges of 0.1 fit a budget of 1.0


class PrivacyCost(NamedTuple):
    """An (epsilon, delta) pair."""

    epsilon: float
    delta: float = 0.0


@dataclass(frozen=True)
class LedgerEntry:
    cost: PrivacyCost
    description: str
    composition: str


def _check_cost(epsilon: float, delta: float) -> PrivacyCost:
    epsilon, delta = positive("epsilon", epsilon), float(delta)
    if not (0 <= delta < 1):
        raise InputError(f"delta must be in [0, 1), got {delta}")
    return PrivacyCost(epsilon, delta)


@dataclass
class PrivacyAccountant:
    """Tracks and enforces a total (epsilon, delta) budget for one dataset."""

    epsilon: float
    delta: float = 0.0
    ledger: list[LedgerEntry] = field(default_factory=list)

    def __post_init__(self):
        budget = _check_cost(self.epsilon, self.delta)
        self.epsilon, self.delta = budget.epsilon, budget.delta

    @property
    def spent(self) -> PrivacyCost:
        return PrivacyCost(
            sum(entry.cost.epsilon for entry in self.ledger),
            sum(entry.cost.delta for entry in self.ledger),
        )

    @property
    def remaining(self) -> PrivacyCost:
        spent = self.spent
        return PrivacyCost(max(self.epsilon - spent.epsilon, 0.0), max(self.delta - spent.delta, 0.0))

    def can_spend(self, epsilon: float, delta: float = 0.0) -> bool:
        cost, spent = _check_cost(epsilon, delta), self.spent
        return (spent.epsilon + cost.epsilon <= self.epsilon * (1 + _SLACK)
                and spent.delta + cost.delta <= self.delta * (1 + _SLACK))

    def spend(self, epsilon: float, delta: float = 0.0, description: str = "") -> PrivacyCost:
        """Charge a computation on the whole dataset (sequential composition)."""
        return self._charge(_check_cost(epsilon, delta), description, "sequential")

    def spend_parallel(self, costs: Sequence[tuple[float, float]], description: str = "") -> PrivacyCost:
        """Charge computations on disjoint parts of the data: the maximum of each coordinate."""
        checked = [_check_cost(*cost) for cost in costs]
        if not checked:
            raise InputError("spend_parallel needs at least one (epsilon, delta) pair")
        cost = PrivacyCost(max(c.epsilon for c in checked), max(c.delta for c in checked))
        return self._charge(cost, description, f"parallel over {len(checked)} disjoint parts")

    def _charge(self, cost: PrivacyCost, description: str, composition: str) -> PrivacyCost:
        if not self.can_spend(*cost):
            spent, remaining = self.spent, self.remaining
            raise BudgetExceededError(
                f"{description or 'this computation'} needs (epsilon={cost.epsilon:g}, "
                f"delta={cost.delta:g}) but only (epsilon={remaining.epsilon:g}, "
                f"delta={remaining.delta:g}) of the budget (epsilon={self.epsilon:g}, "
                f"delta={self.delta:g}) remains (spent: epsilon={spent.epsilon:g}, "
                f"delta={spent.delta:g}); nothing was computed. Use a smaller epsilon or a "
                "new dataset."
            )
        self.ledger.append(LedgerEntry(cost, description, composition))
        return cost
