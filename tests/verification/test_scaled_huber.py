"""The Huber loss of the residual at threshold m: the shipped m = 1 proof scaled, exactly as a fresh proof finds it.

l_m(r) = m^2 l_1(r / m) (dpcvx.verification.scaled_huber): L = m L_1, c = c_1, the jumps of l'' at m times
those of l_1. The slow test proves huber(z, m) / 2 afresh at several m and compares every condition, the text
and the derivatives; the fast ones check that the scaled loss proves nothing and states L = m exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from test_proof_cache import require_shipped_catalogue  # this folder is on sys.path

from dpcvx import losses
from dpcvx.verification import verifier
from dpcvx.verification.exact import exact_constant

pytestmark = pytest.mark.usefixtures("uncached_verifier")  # no disk or memory cache: tests/verification/conftest.py

GRID = np.linspace(-3.0, 3.0, 1201)


def _fresh(m: float):
    """huber(z, m) / 2 proved from its expression (not a MarginLoss: nothing served by name or scaled)."""
    loss = losses.huber_regression(m)
    return verifier.verify_loss(lambda z: loss(z))


def test_a_new_threshold_is_served_without_a_proof(monkeypatch):
    require_shipped_catalogue()

    def refuse(*args, **kwargs):
        raise AssertionError("the Huber loss was proved afresh")

    monkeypatch.setattr(verifier, "_analysed", refuse)
    for m in (0.25, 62.5, 1 / 3):
        served = verifier.verify_loss(losses.huber_regression(m))
        facts = {condition.name: condition for condition in served.conditions}
        assert facts["lipschitz"].value == exact_constant(m) and facts["curvature"].value == Fraction(1)
        # every condition holds but slope_sign: l' of the Huber loss of the residual takes both signs
        assert all(condition.passed for condition in served.conditions if condition.name != "slope_sign")
        assert facts["slope_sign"].passed is False and facts["slope_sign"].value == "changes sign"
        assert served.built is None  # no CVXPY expression until one is needed


@pytest.mark.slow
@pytest.mark.parametrize("m", [0.25, 2.5, 62.5, 1 / 3, 1e-3, 1234.5])
def test_the_scaled_proof_is_the_fresh_proof(m):
    require_shipped_catalogue()
    scaled = verifier.verify_loss(losses.huber_regression(m))
    fresh = _fresh(m)
    assert (scaled.text, scaled.conditions, scaled.dcp_convex) == (fresh.text, fresh.conditions, fresh.dcp_convex)
    grid = GRID * m
    for name in ("value", "first", "second"):
        np.testing.assert_allclose(getattr(scaled.derivatives, name)(grid), getattr(fresh.derivatives, name)(grid),
                                   rtol=1e-12, atol=1e-12 * max(m, 1.0) ** 2)
    assert verifier._structural_key(scaled.expression) == verifier._structural_key(fresh.expression)
