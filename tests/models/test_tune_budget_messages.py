"""A refusal names the epsilon the user gave (audit, twenty-eighth session): full-data selection fits each run with
e_Q = epsilon / (2 + eta), and a candidate's refusal named e_Q as "epsilon" (``epsilon=1e-12`` was refused as
"epsilon=3.33333e-13 is outside the range [1e-12, 1e+06]"); and an objective's unreachable tol asked for a tol above
the largest it takes ("use tol >= 0.0097 (at most 0.001)")."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError, LossDeclarationError

X, Y = synthetic_classification(n=200, d=3, random_state=0)


def _refusal(**settings) -> str:
    accountant = dpcvx.PrivacyAccountant(epsilon=10)
    with pytest.raises(InputError) as caught:
        dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, Y, {"lam": [0.01, 0.1]}, accountant=accountant,
                   random_state=0, **settings)
    assert not accountant.ledger
    return str(caught.value)


def test_a_run_budget_below_the_range_names_the_users_epsilon_and_the_least_that_works() -> None:
    message = _refusal(epsilon=1e-12)
    assert "e_Q = epsilon / (2 + eta) = 3.33333e-13 (epsilon = 1e-12, eta = 1)" in message
    assert "use epsilon >= 3e-12" in message


def test_a_candidates_refusal_says_that_its_epsilon_is_the_run_budget() -> None:
    message = _refusal(epsilon=3e-12)
    assert "epsilon = 1e-12 is too small for tol" in message
    assert "each run fits with e_Q = epsilon / (2 + eta) = 1e-12, a share of epsilon = 3e-12" in message


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_an_unreachable_tol_asks_only_for_what_can_help(procedure: str) -> None:
    message = _refusal(epsilon=3e-12 if procedure == "full-data" else 1e-12, procedure=procedure)
    assert "no tol reaches it (tol is at most 0.001" in message and "use a larger epsilon" in message
    assert "use tol >=" not in message


def test_the_least_epsilon_suggested_gives_a_run_budget_in_range() -> None:
    """At eta = 3 the run budget of epsilon = 1e-12 x (2 + eta), rounded down to a double, is below 1e-12: the
    suggestion is the least double whose run budget is not, and tune takes it."""
    message = _refusal(epsilon=1e-12, eta=3)
    suggested = float(message.split("use epsilon >= ")[1].split(". ")[0])
    assert suggested > 5e-12
    refusal = _refusal(epsilon=suggested, eta=3)  # refused by the candidate's tol check, no longer by the range
    assert "below the least epsilon a fit takes" not in refusal


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_a_refused_label_names_the_caller_s_row_and_leaves_the_generator_where_it_was(procedure):
    """tune(procedure="split") drew its random parts from the caller's generator, then checked each candidate's
    labels on its part: a label outside the classes at row 75 was named "row 23", its place in a shuffled part, and
    the generator had advanced on a call that released nothing (the code said it was left where it was). A refusal
    of the checks restores it, and the checks on every row name the caller's row."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (80, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    y[75] = 5
    generator = np.random.default_rng(123)
    before = generator.bit_generator.state
    accountant = dpcvx.PrivacyAccountant(10.0)
    with pytest.raises(dpcvx.exceptions.InputError, match="the first at row 75 .* outside the"):
        dpcvx.tune(dpcvx.PrivateERM("logistic", lam=0.1, data_norm=1.0), X, y, {"lam": [0.01, 0.1]}, 1.0,
                   procedure=procedure, random_state=generator, accountant=accountant)
    assert generator.bit_generator.state == before and accountant.spent.epsilon == 0.0


def test_a_kernel_learner_s_labels_are_refused_with_advice_it_can_take():
    """tune(TDDL) on labels 0 and 1 said "pass the public pair, for example classes=(0, 1)", a parameter TDDL does not
    have (its classes are -1 and +1); its own fit says to map them. The refusal names the mapping, nothing charged."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (300, 2))
    y = (X[:, 0] > 0).astype(int)
    accountant = dpcvx.PrivacyAccountant(10.0)
    with pytest.raises(InputError, match=r"which they fix \(they take no classes=\): map the labels onto them, for "
                                         r"example 2 \* y - 1") as refused:
        dpcvx.tune(dpcvx.TDDL("rbf", gamma=4.0, lam=1e-2), X, y, {"lam": [1e-3, 1e-2]}, epsilon=1.0,
                   fit_params={"Z": X[:30]}, procedure="split", random_state=0, accountant=accountant)
    assert "classes=(0, 1)" not in str(refused.value) and accountant.spent.epsilon == 0.0


def test_a_fit_argument_tune_was_not_given_is_named_with_the_way_to_give_it():
    """tune(TDDL) without Z said "TDDL refuses the fit arguments: TDDL.check_fit_inputs() missing 1 required
    keyword-only argument: 'Z'", an internal method's text; it names Z and fit_params."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (300, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    with pytest.raises(InputError, match=r"TDDL's fit needs an argument tune was not given \(missing: 'Z'\): pass it "
                                         r"in fit_params") as refused:
        dpcvx.tune(dpcvx.TDDL("rbf", gamma=4.0, lam=1e-2), X, y, {"lam": [1e-3, 1e-2]}, epsilon=1.0,
                   procedure="split", random_state=0)
    assert "check_fit_inputs" not in str(refused.value)


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_a_loss_that_cannot_be_declared_keeps_its_class_and_reads_no_run_budget(procedure: str) -> None:
    """A loss whose callable fails names that failure as LossDeclarationError at every entry; under full-data
    selection a message that said "epsilon" (here the callable's own NameError) was raised again as a plain
    InputError with the run budget appended (a lead of the sixty-first session): its class was lost and the budget
    had nothing to do with it."""
    accountant = dpcvx.PrivacyAccountant(epsilon=10)
    with pytest.raises(LossDeclarationError) as caught:
        dpcvx.tune(dpcvx.DPERMClassifier(loss=lambda z: z * epsilon_scale, classes=(-1, 1)),  # noqa: F821
                   X, Y, {"lam": [0.01, 0.1]}, epsilon=1.0, procedure=procedure, accountant=accountant)
    assert "epsilon_scale" in str(caught.value) and "e_Q" not in str(caught.value)
    assert not accountant.ledger
