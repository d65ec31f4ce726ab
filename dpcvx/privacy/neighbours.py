"""The neighbour relation a privacy guarantee is proved for, and the one proved conversion between relations.

Differential privacy bounds how much a release can change between *neighbouring*
data sets. dpcvx proves its guarantees for one of two relations:

* ``Neighbours.REPLACE_ONE`` ("replace-one"): the data sets have the same public
  size n and differ in one record, replaced by another (the papers' definition:
  JMLR 2011, Jain and Thakurta 2013). A release may use n.
* ``Neighbours.ADD_REMOVE`` ("add-remove"): one data set is the other with one
  record added or removed; the number of records is private, so a release must
  not use it (the relation of DP-SGD libraries).

A guarantee for one relation is not one for the other. The proved direction is
add/remove -> replace-one, by **group privacy**: replacing a record is removing
it and adding another, so neighbours under replace-one are two add/remove steps
apart, D ~ D u {x'} minus x ~ D'. Chaining the add/remove guarantee twice
(Dwork and Roth 2014, Theorem 2.2 for pure epsilon; its (epsilon, delta) form
below) gives, under replace-one:

* pure epsilon -> 2 epsilon;
* (epsilon, delta) -> (2 epsilon, (1 + e^epsilon) delta): for every event S,
  P[M(D) in S] <= e^eps P[M(D'') in S] + delta
  <= e^eps (e^eps P[M(D') in S] + delta) + delta;
* a Gaussian mechanism of noise multiplier z (sigma over the add/remove L2
  sensitivity Delta) -> z / 2: the replace-one sensitivity is at most 2 Delta by
  the triangle inequality through D'' (the same statement as rho-zCDP -> 4 rho,
  the group privacy of zCDP, k^2 rho for groups of k = 2 records, Bun and Steinke
  2016; a Gaussian of multiplier z is 1 / (2 z^2)-zCDP).

The reverse direction, replace-one -> add/remove, is never converted: a
replace-one release may use n (TDDL's and PINP's noise, the objective's 1/n
scaling, tuning's part sizes), and n itself differs between add/remove neighbours.
:meth:`Neighbours.converts_to` says which conversions exist;
:mod:`dpcvx.privacy.accountant` refuses every other mismatch.

The public spelling of a relation is its value ("replace-one", "add-remove"), as
the keyword ``neighbours=`` of every learner takes it and as model files record it.
"""

from __future__ import annotations

import enum
import math
from typing import Any

from ..exceptions import InputError
from ..rounding import round_up
from ..validation import check_choice

__all__ = ["Neighbours", "fit_relation", "group_epsilon_delta", "group_noise_multiplier", "GROUP_PRIVACY"]

GROUP_PRIVACY = ("group privacy (a replacement is one removal and one addition): an add-remove release is "
                 "(2 eps, (1 + e^eps) delta)-DP under replace-one, a Gaussian part of noise multiplier z has "
                 "multiplier z / 2 (rho-zCDP -> 4 rho, Bun and Steinke 2016)")


class Neighbours(enum.Enum):
    """The neighbour relation of a guarantee: REPLACE_ONE ("replace-one", n public) or ADD_REMOVE
    ("add-remove", n private); ``Neighbours.parse("add-remove")`` reads the public spelling (module docstring)."""

    REPLACE_ONE = "replace-one"
    ADD_REMOVE = "add-remove"

    @classmethod
    def parse(cls, value: Any, name: str = "neighbours") -> Neighbours:
        """A relation from its public spelling ("replace-one", "add-remove") or itself; InputError otherwise."""
        if isinstance(value, Neighbours):
            return value
        return cls(check_choice(name, value, tuple(relation.value for relation in cls)))

    @classmethod
    def _missing_(cls, value: Any) -> Neighbours:
        """``Neighbours(value)`` for a value that is no relation's spelling: :meth:`parse`'s InputError (a
        ValueError, as Enum's own refusal is), where the enum raised a bare ValueError."""
        return cls.parse(value)

    def statement(self, n: int) -> str:
        """The relation as a linear release's certificate states it (the public size n under add/remove)."""
        return REPLACE_ONE_STATEMENT if self.uses_n else ADD_REMOVE_STATEMENT.format(n=n)

    @classmethod
    def of_statement(cls, text: str, name: str = "neighbours") -> Neighbours:
        """The relation a certificate's stated relation names by its first word ("replace-one: ...",
        "replace-one, n public: ...", "add-remove: ...")."""
        head = text.split(":")[0].split(",")[0].strip()
        return cls.parse(head, name)

    @property
    def uses_n(self) -> bool:
        """Whether a release under this relation may use the number of records (it is public)."""
        return self is Neighbours.REPLACE_ONE

    def converts_to(self, target: Neighbours) -> bool:
        """Whether a guarantee for this relation gives one for ``target``: the same relation, or
        add-remove -> replace-one by group privacy. Replace-one -> add-remove never does."""
        return self is target or (self is Neighbours.ADD_REMOVE and target is Neighbours.REPLACE_ONE)

    def __str__(self) -> str:
        return self.value


def fit_relation(neighbours: Any, delta: float) -> Neighbours:
    """The relation a fit at ``delta`` is asked for (:meth:`Neighbours.parse`): add-remove is offered for
    delta > 0 only, as every pure-epsilon mechanism of dpcvx is derived for replace-one neighbours."""
    relation = Neighbours.parse(neighbours)
    if relation is Neighbours.ADD_REMOVE and delta == 0:
        raise InputError("neighbours='add-remove' is offered for delta > 0 (the Gaussian mechanisms); "
                         "the pure-epsilon mechanisms are derived for replace-one neighbours")
    return relation


def group_epsilon_delta(epsilon: float, delta: float, k: int = 2) -> tuple[float, float]:
    """An (epsilon, delta) guarantee for neighbours k steps apart: (k epsilon, min(1, delta sum_{i<k} e^(i epsilon))).

    Group privacy (Dwork and Roth 2014, Theorem 2.2 for pure epsilon; the module docstring's chain,
    applied k - 1 times, for delta). k = 2 is an add-remove guarantee under replace-one,
    (2 epsilon, (1 + e^epsilon) delta).

    A pure guarantee stays pure: (k epsilon, 0), with no exponential. For delta > 0 the sum is the
    geometric series e^((k - 1) epsilon) r, r = (1 - e^(-k epsilon)) / (1 - e^(-epsilon)) in [1, k], so the
    bound's logarithm, ln delta + (k - 1) epsilon + ln r, is formed first: it never overflows and costs the
    same for any k (an OpenDP privacy map is asked for distances in the thousands).

    A bound >= 1 is returned as delta = 1, not refused: delta = 1 holds for every mechanism (a true
    statement that guarantees nothing), so the bound stays a total function of k, as a privacy map must be
    (:mod:`dpcvx.opendp_bridge`: OpenDP's compositors compare it with their budget and refuse it there).
    A caller that must not accept it refuses delta >= 1 by name: the accountant's conversion with
    BudgetExceededError, :meth:`~dpcvx.privacy.privacy_curve.CurvePart.grouped` with InputError.
    Delta rounded up (the log-space formula's relative error is below 1e-12 while the bound is below 1),
    and k epsilon unless k is a power of two (then the product is exact).
    """
    group = k * epsilon if k & (k - 1) == 0 else round_up(k * epsilon)
    if delta == 0:
        return group, 0.0
    ratio = float(k) if epsilon == 0 else math.expm1(-k * epsilon) / math.expm1(-epsilon)
    log_bound = math.log(delta) + (k - 1) * epsilon + math.log(ratio)
    return group, 1.0 if log_bound >= 0 else min(round_up(math.exp(log_bound)), 1.0)


def group_noise_multiplier(noise_multiplier: float) -> float:
    """An add-remove Gaussian part's noise multiplier under replace-one: z / 2 (exact in binary floating point).

    The replace-one L2 sensitivity is at most twice the add-remove one; equivalently
    rho-zCDP becomes 4 rho (Bun and Steinke 2016, group privacy) with rho = 1 / (2 z^2).
    """
    return noise_multiplier / 2


REPLACE_ONE_STATEMENT = ("replace-one: neighbouring data sets differ in one record, replaced by another; "
                         "n is public")
ADD_REMOVE_STATEMENT = ("add-remove: neighbouring data sets differ by one record added or removed; the public "
                        "size n_public = {n} takes the place of n in the objective and the calibration, and the "
                        "number of records is not released")
