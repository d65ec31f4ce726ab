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
    "TDDL": (lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
             lambda learner, acc: learner.fit(X, Y, 0.5, 1e-6, Z=X[:20], random_state=0, accountant=acc),
             (0.5, 1e-6)),
    "PINP": (lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, max_queries=5, loss="huber_hinge:h=0.5"),
             lambda learner, acc: learner.fit(X, Y, 0.5, random_state=0, accountant=acc), (0.5, 0.0)),
    "TDIL": (lambda: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0, loss="huber_hinge:h=0.5"),
             lambda learner, acc: learner.fit(X, Y, 0.5, random_state=0, accountant=acc), (0.5, 0.0)),
}


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_charges_the_accountant(name):
    build, fit, (epsilon, delta) = LEARNERS[name]
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0, delta=1e-5)
    fit(build(), accountant)
    assert accountant.spent == (pytest.approx(epsilon), pytest.approx(delta))
    assert len(accountant.ledger) == 1 and accountant.ledger[-1].description.startswith(name)


@pytest.mark.parametrize("name", LEARNERS)
def test_fit_refuses_before_any_work(name, monkeypatch):
    build, fit, _ = LEARNERS[name]
    accountant = dpcvx.PrivacyAccountant(epsilon=0.4, delta=1e-5)

    def no_work(*args, **kwargs):
        raise AssertionError("work started after a refusal")

    monkeypatch.setattr(dpcvx.privacy.noise, "sample_l2_laplace", no_work)
    monkeypatch.setattr("dpcvx.privacy.calibrate.sample_l2_laplace", no_work)
    monkeypatch.setattr("dpcvx.solvers.kernel.solve_kernel_erm", no_work)
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


# -- a refused call spends nothing: every input is checked before the accountant is charged ----

X_NAN = X.copy()
X_NAN[3, 1] = np.nan
Y01 = (Y + 1) / 2
KERNEL_BAD_INPUTS = {
    "TDDL": [
        ("NaN in X", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X_NAN, Y, 0.5, Z=X[:20], random_state=0, accountant=acc)),
        ("labels 0/1", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y01, 0.5, Z=X[:20], random_state=0, accountant=acc)),
        ("y too short", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y[:-1], 0.5, Z=X[:20], random_state=0, accountant=acc)),
        ("Z has 3 features", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, Z=np.zeros((5, 3)), random_state=0, accountant=acc)),
        ("NaN in Z", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, Z=X_NAN[:20], random_state=0, accountant=acc)),
        ("Z with phi(z) = 0", lambda: dpcvx.TDDL("linear", input_bound=1.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, Z=np.zeros((4, 2)), accountant=acc)),
        ("rbf without gamma", lambda: dpcvx.TDDL("rbf", lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, Z=X[:20], random_state=0, accountant=acc)),
        ("unknown loss", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1, loss="nope"),
         lambda learner, acc: learner.fit(X, Y, 0.5, Z=X[:20], accountant=acc)),
        ("bad random_state", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, Z=X[:20], random_state="x", accountant=acc)),
        ("epsilon = 0", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.0, Z=X[:20], random_state=0, accountant=acc)),
        ("delta = 1.5", lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, 1.5, Z=X[:20], random_state=0, accountant=acc)),
    ],
    "PINP": [
        ("NaN in X", lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, max_queries=5),
         lambda learner, acc: learner.fit(X_NAN, Y, 0.5, accountant=acc)),
        ("labels 0/1", lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, max_queries=5),
         lambda learner, acc: learner.fit(X, Y01, 0.5, accountant=acc)),
        ("X is 1-D", lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, max_queries=5),
         lambda learner, acc: learner.fit(X[:, 0], Y, 0.5, accountant=acc)),
        ("max_queries = 0", lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1, max_queries=0),
         lambda learner, acc: learner.fit(X, Y, 0.5, accountant=acc)),
        ("failure_probability = 2", lambda: dpcvx.PINP("rbf", gamma=2.0, lam=0.1,
                                                       max_queries=5, failure_probability=2.0),
         lambda learner, acc: learner.fit(X, Y, 0.5, accountant=acc)),
    ],
    "TDIL": [
        ("NaN in X", lambda: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0),
         lambda learner, acc: learner.fit(X_NAN, Y, 0.5, accountant=acc)),
        ("labels 0/1", lambda: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0),
         lambda learner, acc: learner.fit(X, Y01, 0.5, accountant=acc)),
        ("rounds = 1", lambda: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0, rounds=1),
         lambda learner, acc: learner.fit(X, Y, 0.5, accountant=acc)),
        ("laplacian kernel on a net", lambda: dpcvx.TDIL("laplacian", gamma=1.0, lam=0.1, input_bound=1.0),
         lambda learner, acc: learner.fit(X, Y, 0.5, accountant=acc)),
        ("net_spacing with the linear kernel",
         lambda: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0, net_spacing=0.1),
         lambda learner, acc: learner.fit(X, Y, 0.5, accountant=acc)),
    ],
}
BAD_INPUT_CASES = [(name, label, build, fit) for name, cases in KERNEL_BAD_INPUTS.items()
                   for label, build, fit in cases]


@pytest.mark.parametrize("name, label, build, fit", BAD_INPUT_CASES,
                         ids=[f"{name}: {label}" for name, label, _, _ in BAD_INPUT_CASES])
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")
def test_bad_input_is_refused_before_the_accountant_is_charged(name, label, build, fit, monkeypatch):
    def no_solve(*args, **kwargs):
        raise AssertionError("the private data were solved on before the inputs were checked")

    monkeypatch.setattr("dpcvx.solvers.kernel.solve_kernel_erm", no_solve)
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0, delta=1e-5)
    with pytest.raises(dpcvx.DPCVXError):
        fit(build(), accountant)
    assert accountant.ledger == [] and accountant.spent == (0.0, 0.0)
