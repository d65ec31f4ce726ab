"""Group privacy at every distance: (k eps, 0) for a pure guarantee with no exponential, and for delta > 0
the bound min(1, delta sum_{i<k} e^(i eps)) in log space, never overflowing, delta = 1 where it is vacuous.

On the code before: the sum was formed term by term for a pure guarantee too, so that eps = 1 at k = 800
(or any (k - 1) eps > 709) raised OverflowError; for delta > 0 a 'delta' far above 1 was returned (3e15 at
eps = 1, delta = 1e-6, k = 50), and every caller (the OpenDP map, a curve's conversion, the accountant's
conversion of an add-remove charge at eps > 709) raised OverflowError or carried it.
"""

from __future__ import annotations

import math
import time

import pytest

from dpcvx.exceptions import BudgetExceededError, InputError
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.neighbours import Neighbours, group_epsilon_delta
from dpcvx.privacy.privacy_curve import CurvePart, PrivacyCurve
from dpcvx.rounding import ROUNDING


@pytest.mark.parametrize(("epsilon", "k"), [(1.0, 800), (10.0, 72), (1e6, 2), (0.3, 10**9)])
def test_a_pure_guarantee_is_k_epsilon_at_any_distance(epsilon, k):
    group, delta = group_epsilon_delta(epsilon, 0.0, k)
    assert delta == 0.0
    assert k * epsilon <= group <= k * epsilon * (1 + 2 * ROUNDING)


@pytest.mark.parametrize(("epsilon", "delta", "k"), [(0.5, 1e-6, 2), (1.0, 1e-6, 3), (1.0, 1e-6, 14),
                                                     (1e-3, 1e-9, 1000), (30.0, 1e-300, 20), (1e-12, 1e-8, 7)])
def test_below_one_the_bound_is_the_series_rounded_up(epsilon, delta, k):
    exact = math.fsum(math.exp(i * epsilon) for i in range(k)) * delta
    group, bound = group_epsilon_delta(epsilon, delta, k)
    assert exact < 1
    assert exact <= bound <= exact * (1 + 2 * ROUNDING)  # never below the bound, within the rounding margin
    assert k * epsilon <= group <= k * epsilon * (1 + 2 * ROUNDING)


@pytest.mark.parametrize(("epsilon", "delta", "k"), [(1.0, 1e-6, 15), (1.0, 1e-6, 50), (1.0, 1e-6, 800),
                                                     (800.0, 1e-6, 2), (1e6, 1e-12, 2), (1e-3, 1e-6, 10**12)])
def test_at_or_above_one_the_bound_is_delta_one(epsilon, delta, k):
    group, bound = group_epsilon_delta(epsilon, delta, k)
    assert bound == 1.0  # true of every mechanism, and no guarantee
    assert math.isfinite(group)


@pytest.mark.slow  # bounds wall time (0.05 s): with the timing tests, alone
@pytest.mark.timing
def test_a_huge_distance_costs_no_more_time_than_a_small_one():
    start = time.perf_counter()
    assert group_epsilon_delta(1e-9, 1e-12, 10**9)[1] == pytest.approx(1e-12 * math.expm1(1.0) / 1e-9)
    assert time.perf_counter() - start < 0.05


def test_a_curve_whose_conversion_has_no_guarantee_is_refused_by_name():
    for epsilon in (20.0, 800.0):  # (1 + e^eps) 1e-6 > 1; e^800 used to overflow
        curve = PrivacyCurve((CurvePart("epsilon-delta", "share", epsilon=epsilon, delta=1e-6),), "add-remove")
        with pytest.raises(InputError, match="'share'.*under replace-one by group privacy: delta >= 1 is no "
                                             "guarantee"):
            curve.under(Neighbours.REPLACE_ONE)


def test_under_takes_the_public_spelling_of_the_relation():
    curve = PrivacyCurve((CurvePart("epsilon-delta", "share", epsilon=0.5, delta=1e-6),), "add-remove")
    assert curve.under("replace-one") == curve.under(Neighbours.REPLACE_ONE)  # as docs/accounting.md writes it
    assert curve.under("replace-one").parts[0].delta == group_epsilon_delta(0.5, 1e-6)[1]
    with pytest.raises(InputError, match="target must be one of"):
        curve.under("replace-two")


def test_the_accountant_refuses_an_add_remove_charge_with_no_replace_one_guarantee():
    accountant = PrivacyAccountant(1e4, 0.5)
    with pytest.raises(BudgetExceededError, match="delta >= 1 is no guarantee"):
        accountant.spend(800.0, 1e-6, "huge", neighbours="add-remove")  # e^800 used to overflow
    assert accountant.ledger == []
