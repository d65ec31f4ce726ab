"""Newton without a proved budget is refused before the charge, in a plain fit and inside composite procedures alike
(docs/theory.md, section 7.1, "Not yet covered").

A loss whose curvature c is not proved has no :class:`~dpcvx.solvers.budget.DescentRate`: Newton then has no safeguard
and no proved iteration budget, and no method that needs no c is proved within ``MAX_PROVED_ITERATIONS``. Before this
rule tune and the one-vs-rest learner refused it before their charge, while a plain fit (PrivateERM, the scikit-learn
estimators) ran Newton unsafeguarded to ``DEFAULT_MAX_ITER`` steps after its charge, a failure there being an event no
theorem covers. The condition is made here from public constants: ``descent_rate`` returns None (as for a user's C^1
loss whose c the verifier did not prove).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.privacy.accountant import PrivacyAccountant
from dpcvx.solvers import choice

REFUSAL = "no proved method solves this problem"


@pytest.fixture(scope="module")
def data() -> tuple[np.ndarray, np.ndarray]:
    return synthetic_classification(n=200, d=4, random_state=0)


@pytest.fixture
def unproved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(choice, "descent_rate", lambda *args, **kwargs: None)


def _refused_with_nothing_charged(fit) -> str:
    accountant = PrivacyAccountant(epsilon=100.0)
    with pytest.raises(InputError, match=REFUSAL) as refusal:
        fit(accountant)
    assert accountant.spent.epsilon == 0.0 and not accountant.ledger
    return str(refusal.value)


def test_a_plain_fit_is_refused_before_the_charge(data, unproved):
    X, y = data
    message = _refused_with_nothing_charged(lambda accountant: dpcvx.PrivateERM(data_norm=1.0, lam=1e-2).fit(
        X, y, epsilon=1.0, accountant=accountant, random_state=0))
    assert "Nothing was charged" in message and "section 7.1" in message


def test_an_output_perturbation_estimator_is_refused_before_the_charge(data, unproved):
    X, y = data
    _refused_with_nothing_charged(lambda accountant: dpcvx.DPLogisticRegression(
        epsilon=1.0, mechanism="output", lam=1e-2, random_state=0).fit(X, (y > 0).astype(int), accountant=accountant))


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_tune_gives_the_same_refusal_as_the_plain_fit(data, unproved, procedure):
    X, y = data
    alone = _refused_with_nothing_charged(lambda accountant: dpcvx.PrivateERM(data_norm=1.0, lam=1e-2).fit(
        X, y, epsilon=1.0, accountant=accountant, random_state=0))
    tuned = _refused_with_nothing_charged(lambda accountant: dpcvx.tune(
        dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [1e-2, 1e-1]}, epsilon=1.0, accountant=accountant,
        procedure=procedure, random_state=0))
    assert tuned.endswith(f": {alone}") and tuned.startswith("dpcvx.tune")  # the same refusal, the procedure first


def test_the_one_vs_rest_learner_gives_the_same_refusal(data, unproved):
    X, y = data
    labels = np.where(y > 0, 2, 0)
    labels[::3] = 1
    _refused_with_nothing_charged(lambda accountant: dpcvx.PrivateMulticlassERM(
        dpcvx.PrivateERM(data_norm=1.0, lam=1e-2), classes=(0, 1, 2)).fit(
        X, labels, epsilon=1.0, accountant=accountant, random_state=0))


def test_the_refusal_names_the_missing_constant_and_the_fix():
    """The reason reads the certificate (public): the constant that is not proved, and a loss that has it."""
    def problem(lipschitz, curvature):
        certificate = SimpleNamespace(lipschitz=lipschitz, curvature=curvature, strong_convexity=1.0)
        return SimpleNamespace(certificate=certificate, lipschitz=lipschitz or math.inf,
                               curvature=curvature or math.inf)
    assert "curvature c (a bound on l'') is not proved" in choice._newton_unproved(problem(1.0, None))
    assert "Lipschitz constant L is not proved finite" in choice._newton_unproved(problem(None, None))
    assert "strong convexity m is not proved" in choice._newton_unproved(problem(1.0, 0.25))
    assert "'logistic'" in choice._newton_unproved(problem(1.0, None))


def test_a_user_solver_keeps_its_rule(data, unproved):
    """Not Newton: a user's solver is refused alone (since the seventy-first session: its failure after a charge was
    a release no theorem covers) and inside tune, as before, naming the user's solver, not Newton."""
    X, y = data
    erm = dpcvx.PrivateERM(data_norm=1.0, lam=1e-2, solver=lambda program, w: program.solve(solver="CLARABEL"))
    with pytest.raises(InputError, match="user's solver"):
        erm.check_fit_inputs(X, y, epsilon=1.0)
    with pytest.raises(InputError, match="user's solver"):
        dpcvx.tune(erm, X, y, {"lam": [1e-2]}, epsilon=1.0, random_state=0)
