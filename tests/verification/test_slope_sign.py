"""The verifier proves whether l' has one sign on R (condition ``slope_sign``, docs/theory.md section 12.3): symbolic
where sympy settles the extremes of l' (the ones L is taken from), else validated bounds (interval arithmetic), never
an estimate. Only a proof counts (Certificate.one_signed_slope): without one, or without the condition (a result or a
file from before it existed), the general profile is used, which is valid for every loss."""

from __future__ import annotations

from dataclasses import replace

import cvxpy as cp
import pytest
import sympy as sp

import dpcvx
from dpcvx import losses
from dpcvx.verification import validated
from dpcvx.verification.certificate import Certificate
from dpcvx.verification.symbolic import Failed, LossFacts


def _slope(certificate: Certificate):
    return certificate.condition("slope_sign")


@pytest.mark.parametrize("loss", [losses.logistic(), lambda z: cp.logistic(-z), lambda z: cp.logistic(-2 * z) / 2])
def test_the_logistic_loss_is_proved_non_increasing(loss):
    # a deadline far above the default 20 s: under a load of 12 on two cores sympy's proof of the scaled loss passed
    # the default and the bounds proved it instead ("validated"); what is tested is that sympy proves it
    certificate = dpcvx.verify(loss, time_limit=300)
    item = _slope(certificate)
    assert (item.passed, item.value, item.method) == (True, "l' <= 0", "symbolic")
    assert certificate.one_signed_slope
    assert "slope_sign" in str(certificate) and certificate.allows("objective", 1e-6)


def test_a_non_decreasing_loss_is_proved_one_signed_too():
    item = _slope(dpcvx.verify(lambda z: cp.logistic(z)))
    assert (item.passed, item.value, item.method) == (True, "l' >= 0", "symbolic")


@pytest.mark.parametrize("loss", [losses.huber_regression(), losses.squared_error(),
                                  lambda z: cp.logistic(z) + cp.logistic(-z), lambda z: cp.huber(z, 1) / 2])
def test_a_loss_whose_slope_changes_sign_is_not_one_signed(loss):
    certificate = dpcvx.verify(loss)
    item = _slope(certificate)
    assert (item.passed, item.value) == (False, "changes sign") and item.method == "symbolic"
    assert not certificate.one_signed_slope
    # no theorem needs it: the mechanisms are decided as before
    assert "general profile" in item.detail
    assert certificate.verdict("objective", 1e-6).status(item) == "not required"


def test_the_validated_route_proves_either_sign_or_a_change():
    z = sp.Symbol("z", real=True)
    falling, rising = validated._slope_sign(sp.log(1 + sp.exp(-z)), z, validated.BOX_BUDGET, None)
    assert falling.witness is None and falling.lower >= 0 and rising is None  # l' <= 0
    falling, rising = validated._slope_sign(sp.log(1 + sp.exp(z)), z, validated.BOX_BUDGET, None)
    assert falling.witness is not None and rising.witness is None and rising.lower >= 0  # l' >= 0
    falling, rising = validated._slope_sign(sp.sqrt(1 + z**2), z, validated.BOX_BUDGET, None)
    assert falling.witness is not None and rising.witness is not None  # l' takes both signs


def test_only_a_proof_counts():
    certificate = dpcvx.verify(losses.logistic())
    item = _slope(certificate)
    for method in ("estimate", "numeric", "none", "given", "dcp"):
        edited = replace(item, method=method)
        other = replace(certificate, conditions=tuple(edited if c is item else c for c in certificate.conditions))
        assert not other.one_signed_slope
    unproved = replace(certificate, conditions=tuple(replace(c, passed=None) if c is item else c
                                                     for c in certificate.conditions))
    assert not unproved.one_signed_slope


def test_a_result_from_before_the_fact_reads_as_not_proved():
    """A prover's result cached before ``slope`` existed has no such item: it reads as not settled (Failed), and a
    certificate without the condition (a model file written before it) reads as not one-signed."""
    facts = LossFacts.from_items((("sup1", sp.Integer(1)),), "not computed")
    assert isinstance(facts.slope, Failed)
    certificate = dpcvx.verify(losses.logistic())
    older = replace(certificate, conditions=tuple(c for c in certificate.conditions if c.name != "slope_sign"))
    assert not older.one_signed_slope


def test_a_regression_s_loss_of_the_residual_does_not_use_it():
    from dpcvx.verification.verifier import verify_problem

    problem = verify_problem(lambda z: cp.logistic(-z), dim=3).of_residuals()
    item = problem.certificate.condition("slope_sign")
    assert item.passed is None and not problem.certificate.one_signed_slope
    assert "margin losses only" in item.detail
