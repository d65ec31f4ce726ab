"""Every learner's fit(..., accountant=) charges its budget, and refuses before any work."""

import numpy as np
import pytest

import dpcvx


def data(n=120, d=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.7, 0.7, size=(n, d))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


X, Y = data()
LEARNERS = {
    "PrivateERM": (lambda: dpcvx.PrivateERM(data_norm=1.0),
                   lambda learner, acc: learner.fit(X, Y, 0.5, random_state=0, accountant=acc),
                   (0.5, 0.0)),
    "TDDL": (lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1, epsilon=0.5, delta=1e-6, random_state=0),
             lambda learner, acc: learner.fit(X, Y, X[:20], accountant=acc), (0.5, 1e-6)),
    "PINP": (lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, epsilon=0.5, max_queries=5,
                                loss="huber_hinge:h=0.5", random_state=0),
             lambda learner, acc: learner.fit(X, Y, accountant=acc), (0.5, 0.0)),
    "TDIL": (lambda: dpcvx.TDIL("linear", lam=0.1, epsilon=0.5, input_bound=1.0,
                                loss="huber_hinge:h=0.5", random_state=0),
             lambda learner, acc: learner.fit(X, Y, accountant=acc), (0.5, 0.0)),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_charges_the_accountant(name):
    build, fit, (epsilon, delta) = LEARNERS[name]
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0, delta=1e-5)
    fit(build(), accountant)
    assert accountant.spent == (pytest.approx(epsilon), pytest.approx(delta))
    assert accountant.ledger[-1].description.startswith(name)


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_refuses_before_any_work(name, monkeypatch):
    build, fit, _ = LEARNERS[name]
    accountant = dpcvx.PrivacyAccountant(epsilon=0.4, delta=1e-5)

    def no_work(*args, **kwargs):
        raise AssertionError("work started after a refusal")

    monkeypatch.setattr(dpcvx.noise, "sample_l2_laplace", no_work)
    monkeypatch.setattr("dpcvx.erm.sample_l2_laplace", no_work)
    monkeypatch.setattr("dpcvx.kernel_learner.KernelERM", no_work)
    with pytest.raises(dpcvx.BudgetExceededError):
        fit(build(), accountant)
    assert accountant.ledger == []


def test_scikit_learn_estimator_charges_the_accountant():
    pytest.importorskip("sklearn")
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    clf = dpcvx.DPLogisticRegression(epsilon=0.3, data_norm=1.0, classes=(-1, 1), random_state=0)
    clf.fit(X, Y, accountant=accountant)
    assert accountant.spent.epsilon == pytest.approx(0.3)
    with pytest.raises(dpcvx.BudgetExceededError):
        dpcvx.DPLogisticRegression(epsilon=0.8, data_norm=1.0, classes=(-1, 1)).fit(
            X, Y, accountant=accountant)
