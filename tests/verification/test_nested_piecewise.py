"""The maximum of two Huber losses that touch at 0 (max(huber(z, 1), 2 huber(z, 1/2)) = 2 huber(z, 1/2)) was
refused by default: numpy's select, in the code lambdify prints of its nested Piecewise, refused a literal True
condition ("invalid entry 0 in condlist"), the symbolic route failed and L and c became estimates. It is proved as
2 huber(z, 1/2) is: L = 2, c = 4, symbolically."""

import cvxpy as cp
import pytest

import dpcvx
from dpcvx.verification import deadline


@pytest.mark.slow  # about 16 s of sympy
@pytest.mark.timing  # proves within a time limit: in the default run on two workers sympy ran out of time once
def test_a_nested_piecewise_loss_is_proved_symbolically(monkeypatch):
    monkeypatch.setenv("DPCVX_CACHE_DIR", "off")
    assert deadline.run(divmod, (7, 2), seconds=60).finished  # a worker's start-up, outside the limit
    certificate = dpcvx.verify(lambda z: cp.maximum(cp.huber(z, 1), 2 * cp.huber(z, 0.5)), time_limit=60)
    assert certificate.lipschitz == pytest.approx(2) and certificate.method("lipschitz") == "symbolic"
    assert certificate.curvature == pytest.approx(4) and certificate.method("curvature") == "symbolic"
    assert certificate.allows("objective") and certificate.allows("output")
