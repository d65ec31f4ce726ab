"""The accountant's composition is exact and incremental (issue 43): Gaussian parts merge in closed form,
the ledger's composition is kept and grows by each charge, and ledger lines say what paid."""

import math
import threading
import time

import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from dpcvx.exceptions import InputError
from dpcvx.privacy import privacy_curve
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.privacy.privacy_curve import Composition, CurvePart, PrivacyCurve, compose_epsilon


def gaussian(z: float) -> PrivacyCurve:
    return PrivacyCurve((CurvePart("gaussian", "test", noise_multiplier=z),))


def mu_gdp_epsilon(multipliers: list[float], delta: float) -> float:
    """The exact epsilon of Gaussians composed as mu-GDP, mu = sqrt(sum z_i^-2), by root finding on
    delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Dong, Roth and Su 2022)."""
    mu = math.sqrt(sum(z**-2 for z in multipliers))
    return brentq(lambda e: norm.cdf(-e / mu + mu / 2) - math.exp(e) * norm.cdf(-e / mu - mu / 2) - delta,
                  0.0, 200.0, xtol=1e-14, rtol=1e-15)


def test_spent_after_100_gaussian_charges_is_the_closed_form():
    multipliers = [4.0 + 0.1 * i for i in range(100)]
    accountant = PrivacyAccountant(epsilon=1e6, delta=0.5)
    for z in multipliers:
        accountant.spend(1.0, 1e-7, description="release", curve=gaussian(z))
    exact = mu_gdp_epsilon(multipliers, 1e-5)
    spent = accountant.spent
    assert spent.delta == pytest.approx(1e-5, rel=1e-12)
    assert exact <= spent.epsilon <= exact * (1 + 1e-9)
    fresh = PrivacyAccountant(epsilon=1e6, delta=0.5, ledger=list(accountant.ledger))
    assert fresh.spent == spent == fresh.spent  # composed from nothing, then read again


@pytest.mark.slow  # bounds wall time: with the timing tests, alone
@pytest.mark.timing
def test_spent_after_100_gaussian_charges_is_fast_and_cached():
    """A fresh accountant on the same ledger composes it from nothing within 1 s; a second read is cached."""
    multipliers = [4.0 + 0.1 * i for i in range(100)]
    accountant = PrivacyAccountant(epsilon=1e6, delta=0.5)
    for z in multipliers:
        accountant.spend(1.0, 1e-7, description="release", curve=gaussian(z))
    spent = accountant.spent
    fresh = PrivacyAccountant(epsilon=1e6, delta=0.5, ledger=list(accountant.ledger))
    start = time.perf_counter()
    assert fresh.spent == spent
    cold = time.perf_counter() - start
    start = time.perf_counter()
    assert fresh.spent == spent
    warm = time.perf_counter() - start
    assert warm < 0.05 and cold < 1.0, (cold, warm)  # the benchmark records the times (benchmarks/accounting_cli)


def test_a_charge_with_a_large_delta_can_lower_spent_epsilon_as_the_docstring_says():
    """The module docstring's example, computed: four Gaussian releases at (0.5, 1e-6), then a fifth at (0.1, 1e-2),
    read at the summed delta (it claimed a fifth (3, 1e-3)-DP charge left epsilon 0.589, which no composition
    holding a (3, 1e-3)-DP mechanism can be)."""
    from dpcvx.privacy import accountant as module
    from dpcvx.privacy.gaussian import analytic_gaussian_multiplier

    accountant = PrivacyAccountant(epsilon=10.0, delta=0.5)
    four = [analytic_gaussian_multiplier(0.5, 1e-6)] * 4
    for z in four:
        accountant.spend(0.5, 1e-6, curve=gaussian(z))
    before = accountant.spent
    fifth = analytic_gaussian_multiplier(0.1, 1e-2)
    accountant.spend(0.1, 1e-2, curve=gaussian(fifth))
    after = accountant.spent
    assert after.delta == pytest.approx(1e-2 + 4e-6, rel=1e-12)
    exact = mu_gdp_epsilon([*four, fifth], after.delta)
    assert exact <= after.epsilon <= exact * (1 + 1e-9)
    assert after.epsilon < before.epsilon
    text = " ".join(module.__doc__.split())
    assert before.delta == pytest.approx(4e-6, rel=1e-12)
    assert f"spent ({before.epsilon:.3f}, 4e-6)" in text and f"left ({after.epsilon:.3f}, {after.delta:.6f})" in text


def test_each_charge_composes_only_its_own_parts(monkeypatch):
    grown = []
    original = Composition.plus

    def counting(self, parts):
        parts = list(parts)
        grown.append(len(parts))
        return original(self, parts)

    monkeypatch.setattr(Composition, "plus", counting)
    accountant = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    for _ in range(20):
        accountant.spend(1.0, 1e-6, curve=gaussian(5.0))
        assert accountant.spent.delta > 0
    assert grown == [1] * 20            # one part per charge, never the ledger again
    assert accountant.can_spend(1.0, 1e-6, gaussian(5.0))
    assert accountant.spent.delta > 0
    assert grown == [1] * 21            # the check of a charge grows a copy; spent reuses the ledger's


def test_a_ledger_edited_by_hand_is_composed_again():
    accountant = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    for z in (3.0, 4.0, 5.0):
        accountant.spend(1.0, 1e-6, curve=gaussian(z))
    three = accountant.spent
    del accountant.ledger[0]
    assert accountant.spent.epsilon < three.epsilon
    assert accountant.spent.epsilon == pytest.approx(compose_epsilon([gaussian(4.0), gaussian(5.0)], 2e-6))


@pytest.mark.slow
def test_mixed_ledgers_compose_incrementally_as_from_scratch():
    pytest.importorskip("dp_accounting")
    objective = PrivacyCurve((CurvePart("epsilon-delta", "objective share", epsilon=0.3, delta=1e-7),
                              CurvePart("gaussian", "cover", noise_multiplier=6.0)))
    curves = [objective, gaussian(3.0), objective, gaussian(4.0)]
    accountant = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    for curve in curves:
        accountant.spend(10.0, 1e-6, curve=curve)
        assert accountant.spent.delta > 0  # the privacy loss distribution of the other parts is kept and grown
    assert accountant.spent.epsilon == pytest.approx(compose_epsilon(curves, 4e-6), rel=1e-9)
    # the merged Gaussian with the other parts through privacy loss distributions: between the exact
    # epsilon of the Gaussian parts alone and basic composition
    assert compose_epsilon(curves[1::2] + [gaussian(6.0)] * 2, 4e-6) < accountant.spent.epsilon < 2 * 10.0


def test_without_dp_accounting_the_gaussian_ledger_keeps_its_closed_form(monkeypatch):
    monkeypatch.setattr(privacy_curve, "have_dp_accounting", lambda: False)
    accountant = PrivacyAccountant(epsilon=100.0, delta=1e-3)
    for z in (3.0, 4.0):
        accountant.spend(1.0, 1e-6, curve=gaussian(z))
    exact = mu_gdp_epsilon([3.0, 4.0], 2e-6)
    assert exact <= accountant.spent.epsilon <= exact * (1 + 1e-9)


def test_described_blocks_lead_the_ledger_line_in_their_thread_only():
    accountant = PrivacyAccountant(epsilon=10.0)
    seen = []

    def other_thread():
        accountant.spend(0.1, description="PrivateERM.fit (loss logistic)")
        seen.append(accountant.ledger[-1].description)

    with accountant.described("model A"), accountant.described("fold 3"):
        accountant.spend(0.1, description="PrivateERM.fit (loss logistic)")
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    accountant.spend(0.1, description="after")
    lines = [entry.description for entry in accountant.ledger]
    assert lines == ["model A: fold 3: PrivateERM.fit (loss logistic)", "PrivateERM.fit (loss logistic)", "after"]
    assert seen == ["PrivateERM.fit (loss logistic)"]
    assert "model A: fold 3: PrivateERM.fit (loss logistic)" in str(accountant)
    with pytest.raises(InputError, match="non-empty description"), accountant.described(""):
        pass


@pytest.mark.parametrize("curves, got", [
    ([1, 2], "an iterable holding int"),  # Python's AttributeError ('int' object has no attribute 'neighbours')
    ("ab", "got str"),  # read as an iterable of letters, the same AttributeError
])
def test_compose_epsilon_refuses_what_is_no_list_of_curves(curves, got):
    with pytest.raises(InputError, match=rf"curves must be an iterable of PrivacyCurve.*{got}"):
        compose_epsilon(curves, 1e-6)


def test_one_curve_is_refused_with_the_list_it_belongs_in_and_taken_in_it():
    curve = PrivacyCurve.gaussian(2.0, 1.0, "a Gaussian")
    with pytest.raises(InputError, match=r"one curve as \[curve\]\), got PrivacyCurve"):  # a bare TypeError before
        compose_epsilon(curve, 1e-6)
    assert compose_epsilon([curve], 1e-6) == curve.epsilon(1e-6)


def test_the_accounting_method_is_a_named_choice_even_of_an_empty_composition():
    for curves in ([], [PrivacyCurve.gaussian(2.0, 1.0, "a Gaussian")]):  # an empty one took any method
        with pytest.raises(InputError, match="method must be one of 'auto', 'pld', 'rdp', 'basic'; got 'x'"):
            compose_epsilon(curves, 1e-6, method="x")


def test_a_profile_of_text_is_refused_by_name():
    # numpy's bare ValueError before
    with pytest.raises(InputError, match=r"epsilons\[0\] must be a non-negative number"):
        PrivacyCurve.gaussian(2.0, 1.0, "a Gaussian").profile(["x"])
