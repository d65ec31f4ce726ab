"""A log_sum_exp of K entries translates to an expression of about K^1.6 operations, the value of log sum_k e^(x_k):
folded from the left it wrote each partial sum twice and grew as 4^K operations, so dpcvx.verify ran far past its
time limit (10 entries: 43 s at time_limit=10; 40 entries never ended), in the translation no deadline stops."""

from __future__ import annotations

import time

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp

import dpcvx
from dpcvx.verification import translate
from dpcvx.verification.verifier import SYMBOL


def _lse(K):
    shifts, scales = np.linspace(-3, 3, K), np.linspace(0.2, 2, K)
    return lambda z: cp.log_sum_exp(cp.hstack([-scales[k] * z + shifts[k] for k in range(K)] + [0]))


@pytest.mark.parametrize("K", [2, 5, 10, 16, 40])
def test_the_translation_grows_polynomially_and_keeps_the_value(K):
    variable = cp.Variable(name="z")
    expression = translate.to_sympy(_lse(K)(variable), variable, SYMBOL)
    assert sp.count_ops(expression) <= 12 * (K + 1) ** 1.6
    shifts, scales = np.linspace(-3, 3, K), np.linspace(0.2, 2, K)
    for z in (-2.5, 0.0, 0.7, 3.0):
        exact = np.logaddexp.reduce(np.append(-scales * z + shifts, 0.0))
        value = float(expression.rewrite(sp.exp).subs(SYMBOL, z).evalf(30))
        assert value == pytest.approx(exact, rel=1e-12)


@pytest.mark.slow  # about 8 s: the time limit, then the estimates
def test_verify_of_a_long_log_sum_exp_ends_near_its_time_limit(monkeypatch):
    monkeypatch.setenv("DPCVX_CACHE_DIR", "off")
    start = time.monotonic()
    certificate = dpcvx.verify(_lse(40), time_limit=2)
    assert time.monotonic() - start < 30  # it never ended before
    assert certificate.lipschitz >= 2.0  # the largest slope, with the 0 entry: max_k scales_k = 2
