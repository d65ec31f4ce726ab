"""A linear fit verifies its problem exactly once (issue 17: verify once, use the result everywhere).

The verifier's entry points are wrapped with counters: ``verify_problem`` (where
:mod:`dpcvx.models.erm` and :mod:`dpcvx.verification.verifier` look it up) and the
``verify_loss_within`` (the loss verification within the problem's deadline) / ``verify_regularizer`` it calls.
"""

import collections

import cvxpy as cp
import numpy as np
import pytest

import dpcvx
from dpcvx.models import erm as erm_module
from dpcvx.verification import verifier

ENTRY_POINTS = ("verify_problem", "verify_loss_within", "verify_regularizer")


@pytest.fixture
def calls(monkeypatch):
    counts = collections.Counter()

    def counting(name, function):
        def wrapper(*args, **kwargs):
            counts[name] += 1
            return function(*args, **kwargs)
        return wrapper

    for name in ENTRY_POINTS:
        monkeypatch.setattr(verifier, name, counting(name, getattr(verifier, name)))
    monkeypatch.setattr(erm_module, "verify_problem", verifier.verify_problem)
    return counts


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=200) > 0, 1, -1)
    return X, y


def once_each(counts):
    return dict(counts) == dict.fromkeys(ENTRY_POINTS, 1)


@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("loss", [dpcvx.losses.logistic(), dpcvx.losses.huber_hinge(0.5)], ids=["logistic", "huber"])
def test_private_erm_fit_verifies_once(calls, data, mechanism, loss):
    X, y = data
    model = dpcvx.PrivateERM(loss=loss, data_norm=1.0).fit(X, y, 1.0, mechanism, random_state=0)
    assert model.certificate.mechanism == mechanism
    assert once_each(calls), dict(calls)


def test_fit_nonprivate_and_warm_started_fit_verify_once_each(calls, data):
    X, y = data
    erm = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=True)
    baseline = erm.fit_nonprivate(X, y)
    assert once_each(calls), dict(calls)
    calls.clear()
    erm.fit(X, y, 1.0, random_state=0, warm_start=baseline)
    assert once_each(calls), dict(calls)


@pytest.mark.parametrize("estimator", [dpcvx.DPLogisticRegression, dpcvx.DPHuberSVM,
                                       lambda **kw: dpcvx.DPLogisticRegression(delta=1e-6, **kw),
                                       lambda **kw: dpcvx.DPLogisticRegression(classes=(0, 1, 2), **kw)],
                         ids=["logistic", "huber-svm", "logistic-gaussian", "one-vs-rest"])
def test_estimator_fit_verifies_once(calls, data, estimator):
    """The entry checks leave the loss's verdict to the plan (models.erm.verdict_in_plan), whose one verification
    the fit uses; ``check_params`` (a caller before the data) makes the verdict itself."""
    X, y = data
    made = estimator(random_state=0)
    made.fit(X, (y > 0).astype(int) if len(made.classes) == 2 else np.digitize(X[:, 1], [-0.3, 0.3]))
    assert once_each(calls), dict(calls)


def test_a_refused_fit_verifies_once_and_releases_nothing(calls, data):
    X, y = data
    hinge = dpcvx.PrivateERM(loss=lambda z: cp.pos(1 - z), data_norm=1.0)  # not differentiable
    with pytest.raises(dpcvx.AssumptionError):
        hinge.fit(X, y, 1.0, random_state=0)
    assert once_each(calls), dict(calls)


def test_one_declaration_at_one_width_is_one_problem():
    """verify_problem keeps its problem by the verified loss and regularizer and the certificate's options: a second
    fit of the same declaration reads the same certificate (its verdicts and rounded constants computed once), and
    any option that enters the certificate gives another."""
    from dpcvx.verification.verifier import forget_losses, verify_problem

    loss = dpcvx.losses.logistic()
    first = verify_problem(loss, dim=5)
    assert verify_problem(dpcvx.losses.logistic(), dim=5) is first
    assert verify_problem(loss, verifier.default_regularizer, dim=5) is first  # the default N, named
    for other in (verify_problem(loss, dim=6), verify_problem(loss, dim=5, strict=True, allow_estimates=True),
                  verify_problem(loss, dim=5, allow_estimates=True),
                  verify_problem(dpcvx.losses.huber_hinge(0.5), dim=5)):
        assert other is not first and other.certificate != first.certificate
    assert verify_problem(loss, dim=6).certificate.dim == 6

    def ridge(w):
        return 2.0 * cp.sum_squares(w)

    declared = verify_problem(loss, ridge, dim=5)
    assert declared is not first and declared.strong_convexity == 4.0
    assert verify_problem(loss, ridge, dim=5) is declared  # the declared N is kept by its structure
    constrained = verify_problem(loss, dim=5, constraints=lambda w: [cp.norm(w, 2) <= 1])
    assert constrained.kst12 and verify_problem(loss, dim=5, constraints=lambda w: [cp.norm(w, 2) <= 1]) \
        is not constrained  # a constraint set is posed afresh (KST12), never kept
    forget_losses()
    again = verify_problem(loss, dim=5)
    assert again is not first and again.certificate == first.certificate


def test_a_certificate_decides_each_verdict_once():
    """Certificate.verdict keeps what decide returned for (mechanism, delta), by value and type: the same verdict
    object again, equal to a fresh decision, and another for another mechanism, delta or spelling; the guarantee a
    release states is kept alike."""
    from dpcvx.verification.verdict import Mechanism, decide

    certificate = dpcvx.verify(dpcvx.losses.huber_hinge(0.5), dim=4)
    for mechanism in ("objective", "output", Mechanism.OBJECTIVE):
        for delta in (0.0, 1e-6):
            verdict = certificate.verdict(mechanism, delta)
            assert certificate.verdict(mechanism, delta) is verdict
            assert verdict == decide(certificate.conditions, mechanism, delta=delta)
            assert type(verdict.mechanism) is type(mechanism) and verdict.delta == delta
    assert certificate.verdict("objective").theorem != certificate.verdict("objective", 1e-6).theorem
    assert certificate.verdict(Mechanism.OBJECTIVE) is not certificate.verdict("objective")
    guarantee = certificate.guarantee("objective")  # the release's statement, written once too
    assert certificate.guarantee("objective") is guarantee and guarantee.startswith(
        certificate.verdict("objective").theorem.citation)
    assert certificate.guarantee("objective", 1e-6) != guarantee
