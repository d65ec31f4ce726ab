"""A C^1, only piecewise C^2 loss (the Huber hinge) is covered only where a theorem covers it.

JMLR 2011's Corollary 4 covers pure-epsilon objective perturbation without a constraint set or a
non-smooth regularizer (Definition 3). KST12's Theorem 1 (a constraint set, an L1, elastic-net or
group term) and the Gaussian objective perturbation are proved for a loss with a continuous
Hessian: the one verdict (dpcvx.verification.verdict) refuses the Huber hinge there, before the
accountant is charged, naming the condition and a fix.
"""

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.exceptions import AssumptionError, FileError

HUBER = losses.huber_hinge(0.5)


def BALL(w):
    return [cp.norm(w, 2) <= 0.8]


def L1(w):
    return cp.norm1(w)


def ELASTIC_NET(w):
    return 0.5 * cp.norm1(w) + 0.5 * cp.sum_squares(w)


def GROUP_LASSO(w):
    return cp.norm(w[0:2], 2) + cp.norm(w[2:4], 2) + 0.5 * cp.sum_squares(w)


KST12_PROBLEMS = [pytest.param(None, BALL, id="ball"), pytest.param(L1, None, id="l1"),
                  pytest.param(ELASTIC_NET, None, id="elastic-net"), pytest.param(GROUP_LASSO, None, id="group-lasso")]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] + 0.2 * rng.normal(size=300) > 0, 1, -1)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("regularizer, constraints", KST12_PROBLEMS)
def test_huber_hinge_under_kst12_is_refused_before_charging(data, regularizer, constraints, delta):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    learner = dpcvx.PrivateERM(loss=HUBER, regularizer=regularizer, constraints=constraints, lam=0.1, data_norm=1.0)
    with pytest.raises(AssumptionError) as raised:
        learner.fit(X, y, 1.0, delta=delta, accountant=accountant, random_state=0)
    message = str(raised.value)
    assert "Kifer, Smith and Thakurta" in message and "twice_differentiability" in message
    assert "piecewise C^2" in message and "losses.logistic()" in message and "drop the constraint set" in message
    assert [item.name for item in raised.value.failures] == ["twice_differentiability"]
    assert accountant.spent == (0.0, 0.0)
    assert not learner.verify(X.shape[1]).allows("objective", delta)


@pytest.mark.parametrize("regularizer, constraints", KST12_PROBLEMS)
def test_the_same_problem_with_a_c2_loss_is_allowed_by_kst12(data, regularizer, constraints):
    X, y = data
    model = dpcvx.PrivateERM(loss=losses.logistic(), regularizer=regularizer, constraints=constraints, lam=0.1,
                             data_norm=1.0).fit(X, y, 1.0, random_state=0)
    assert "Kifer, Smith and Thakurta" in model.certificate.guarantee
    verdict = model.certificate.verification.verdict("objective")
    assert verdict.allowed and verdict.theorem.key == "kst12"


def test_huber_hinge_unconstrained_keeps_corollary_4_at_pure_epsilon_only(data):
    X, y = data
    learner = dpcvx.PrivateERM(loss=HUBER, lam=0.1, data_norm=1.0)
    model = learner.fit(X, y, 1.0, random_state=0)
    assert "Corollary 4" in model.certificate.guarantee and "Definition 3" in model.certificate.guarantee
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3)
    with pytest.raises(AssumptionError, match="twice_differentiability"):
        learner.fit(X, y, 1.0, delta=1e-6, accountant=accountant, random_state=0)
    assert accountant.spent == (0.0, 0.0)
    gaussian_output = learner.fit(X, y, 1.0, "output", delta=1e-6, random_state=0)  # C^1 suffices
    assert "Gaussian" in gaussian_output.certificate.guarantee


def test_the_verifier_gives_the_same_refusal_without_data():
    certificate = dpcvx.verify(HUBER, L1)
    assert not certificate.allows("objective") and not certificate.allows("objective", 1e-6)
    assert certificate.verdict("objective").theorem.key == "kst12"
    assert dpcvx.verify(HUBER, constraints=BALL).failures("objective")[0].name == "twice_differentiability"
    smooth = dpcvx.verify(HUBER)
    assert smooth.allows("objective") and smooth.verdict("objective").theorem.key == "jmlr-corollary-4"


def test_huber_regression_on_a_ball_is_refused_before_charging(data):
    """The residual form has the same class: KST12 with a loss whose l'' jumps (at |r| = m)."""
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    learner = dpcvx.PrivateERM(loss=losses.huber_regression(1.0), task="regression", label_bound=1.0, lam=0.1,
                               data_norm=1.0, constraints=BALL)
    with pytest.raises(AssumptionError, match="twice_differentiability"):
        learner.fit(X, y.astype(float), 1.0, accountant=accountant, random_state=0)
    assert accountant.spent == (0.0, 0.0)


def test_a_saved_kst12_release_of_a_piecewise_c2_loss_does_not_load(data, tmp_path):
    """A file certified under the withdrawn verdict (Huber + L1 'allowed') is refused when read."""
    import json

    X, y = data
    model = dpcvx.PrivateERM(regularizer=ELASTIC_NET, lam=0.1, data_norm=1.0).fit(X, y, 1.0, random_state=0)
    dpcvx.save(model, tmp_path / "l1.json")
    saved = json.loads((tmp_path / "l1.json").read_text())
    for condition in saved["certificate"]["verification"]["conditions"]:
        if condition["name"] == "twice_differentiability":
            condition["value"] = "piecewise C^2"  # what a Huber hinge's certificate holds
    (tmp_path / "huber_l1.json").write_text(json.dumps(saved))
    assert dpcvx.load(tmp_path / "l1.json").coef_.shape == (X.shape[1],)
    with pytest.raises(FileError, match="verdict since withdrawn"):
        dpcvx.load(tmp_path / "huber_l1.json")
