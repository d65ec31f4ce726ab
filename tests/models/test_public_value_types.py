"""The public value types refuse fields their own methods cannot use, with an InputError naming the field."""

import math
import re

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

NAN = float("nan")


@pytest.mark.parametrize("build, field", [
    (lambda: dpcvx.TuningCertificate(-1.0, 2.0, (), 5, -3, 0, {}), "epsilon"),
    (lambda: dpcvx.TuningCertificate(1.0, 2.0, ({},), 0, 2, 1, {}), "delta"),
    (lambda: dpcvx.TuningCertificate(1.0, 0.0, (), 0, 2, 1, {}), "candidates"),
    (lambda: dpcvx.TuningCertificate(1.0, 0.0, ({},), 5, 2, 1, {}), "selected_index"),
    (lambda: dpcvx.TuningCertificate(1.0, 0.0, ({},), 0, 1, 1, {}), "n"),
    (lambda: dpcvx.TuningCertificate(1.0, 0.0, ({},), 0, 2, 1, None), "fit_params"),
    (lambda: dpcvx.TuningResult(None, None, None), "params"),
    (lambda: dpcvx.TuningResult(None, {}, None), "certificate"),
    (lambda: dpcvx.AuditReport(-1.0, 0.0, 0.9, 0.0, (0.0, 1.0), "D", 0, 0, 5, 5, None, None), "claimed_epsilon"),
    (lambda: dpcvx.AuditReport(1.0, 5.0, 0.9, 0.0, (0.0, 1.0), "D", 0, 0, 5, 5, None, None), "claimed_delta"),
    (lambda: dpcvx.AuditReport(1.0, 0.0, 2.0, 0.0, (0.0, 1.0), "D", 0, 0, 5, 5, None, None), "confidence"),
    (lambda: dpcvx.AuditReport(1.0, 0.0, 0.9, NAN, (0.0, 1.0), "D", 0, 0, 5, 5, None, None), "epsilon_lower_bound"),
    (lambda: dpcvx.AuditReport(1.0, 0.0, 0.9, 0.0, (0, 0), "D", 0, 0, 5, 5, None, None), "threshold"),
    (lambda: dpcvx.AuditReport(1.0, 0.0, 0.9, 0.0, (0.0, 1.0), "x", 0, 0, 5, 5, None, None), "region_indicates"),
    (lambda: dpcvx.AuditReport(1.0, 0.0, 0.9, 0.0, (0.0, 1.0), "D", -1, 0, 5, 5, None, None), "false_positives"),
    (lambda: dpcvx.AuditReport(1.0, 0.0, 0.9, 0.0, (0.0, 1.0), "D", 0, 6, 5, 5, None, None), "false_negatives"),
    (lambda: dpcvx.Dataset(None, None, None, None, "x", None, None), "X"),
    (lambda: dpcvx.Dataset(np.zeros((2, 1)), np.zeros(3), ("a",), None, "private", np.zeros(2), ""), "y"),
    (lambda: dpcvx.Condition("x", "d", passed="yes"), "passed"),
    (lambda: dpcvx.Condition("x", "d", True, method="guess"), "method"),
    (lambda: dpcvx.Condition(3, "d", True), "name"),
    (lambda: dpcvx.Certificate("l", "r", 3, None), "conditions"),
    (lambda: dpcvx.Certificate("l", "r", 0, ()), "dim"),
    (lambda: dpcvx.Certificate(1, "r", 3, ()), "loss"),
    (lambda: dpcvx.Certificate("l", "r", 3, (), strict="yes"), "strict"),
])
def test_returned_types_refuse_fields_their_methods_cannot_use(build, field):
    with pytest.raises(InputError, match=field):
        build()


def test_checked_types_keep_what_dpcvx_builds():
    """A numpy bool is the bool it holds; an audit's infinite threshold end and a certificate without dim pass."""
    assert dpcvx.Condition("x", "d", np.bool_(True)).passed is True
    report = dpcvx.AuditReport(1.0, 0.0, 0.9, 0.0, (-math.inf, 1.0), "D'", 0, 5, 5, 5, None, None)
    assert report.passed and "[-inf, 1)" in str(report)
    assert dpcvx.Certificate("l", "r", None, ()).dim is None


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3)) / 3
    y = np.where(X[:, 0] > 0, 1, -1)
    import cvxpy as cp
    return dpcvx.PrivateERM(loss=lambda z: cp.logistic(-z), data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)


@pytest.mark.parametrize("coef, field", [("abc", "coef"), (np.full(3, NAN), "coef"), (np.zeros((3, 1)), "coef"),
                                         (np.zeros(7), "d = 3")])
def test_models_refuse_weights_they_cannot_predict_with(fitted, coef, field):
    with pytest.raises(InputError, match=field):
        dpcvx.PrivateModel(coef, 0.0, (-1, 1), fitted.rows, fitted.certificate)
    if field == "coef":
        with pytest.raises(InputError, match="coef"):
            dpcvx.LinearModel(coef, 0.0, (0, 1), fitted.rows)


def test_models_refuse_other_parts(fitted):
    with pytest.raises(InputError, match="rows"):
        dpcvx.LinearModel(np.zeros(3), 0.0, (0, 1), None)
    with pytest.raises(InputError, match="classes"):
        dpcvx.LinearModel(np.zeros(3), 0.0, (0, 0), fitted.rows)
    with pytest.raises(InputError, match="certificate"):
        dpcvx.PrivateModel(np.zeros(3), 0.0, (-1, 1), fitted.rows, None)


def test_fit_plan_refuses_fields_it_cannot_fit_with():
    with pytest.raises(InputError, match="FitPlan.owner"):
        dpcvx.FitPlan(*[None] * 23)


@pytest.fixture(scope="module")
def certificates():
    """The certificate of each kind of release, and a verified problem: what a user holds and may ``replace``."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    return _certificates(X, y)


def _certificates(X, y):
    classes = np.digitize(X[:, 0], [-0.1, 0.1])
    binary = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, random_state=0).fit(X, y).certificate_
    weighted = dpcvx.DPLogisticRegression(epsilon=1.0, data_norm=1.0, class_weight={0: 1.0, 1: 2.0},
                                          random_state=0).fit(X, y).certificate_
    regression = dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=1.0).fit(
        X, X[:, 0], epsilon=1.0, delta=1e-5, random_state=0).certificate
    multiclass = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0), classes=(0, 1, 2)).fit(
        X, classes, epsilon=1.0, random_state=0).certificate
    kernel = dpcvx.TDDL(gamma=1.0, lam=0.1).fit(X, 2 * y - 1, epsilon=1.0, Z=X[:5], random_state=0).certificate
    from dpcvx import losses
    from dpcvx.verification.verifier import verify_problem

    problem = verify_problem(losses.logistic(), dim=3)
    return {"binary": binary, "weights": weighted.weights, "regression": regression, "multiclass": multiclass,
            "kernel": kernel, "problem": problem}


@pytest.mark.parametrize("kind, changes, field", [
    ("binary", {"epsilon": -1}, "ReleaseCertificate.epsilon"),
    ("binary", {"epsilon": 2.0}, "ReleaseCertificate.epsilon = 2.0 is not the epsilon its calibration"),
    ("binary", {"delta": 1.5}, "ReleaseCertificate.delta"),
    ("binary", {"data_norm": 0.0}, "ReleaseCertificate.data_norm"),
    ("binary", {"fit_intercept": "yes"}, "ReleaseCertificate.fit_intercept"),
    ("binary", {"findings": ["not a tuple"]}, "ReleaseCertificate.findings"),
    ("binary", {"calibration": None}, "ReleaseCertificate.calibration"),
    ("binary", {"label_shift": float("nan")}, "ReleaseCertificate.label_shift"),
    ("weights", {"bound": -2.0}, "CertifiedWeights.bound"),
    ("regression", {"epsilon": -1}, "SufficientStatisticsCertificate.epsilon"),
    ("regression", {"delta": 2.0}, "SufficientStatisticsCertificate.delta"),
    ("regression", {"label_bound": 0}, "SufficientStatisticsCertificate.label_bound"),
    ("multiclass", {"epsilon": -1}, "MulticlassCertificate.epsilon"),
    ("multiclass", {"per_class": ()}, "MulticlassCertificate holds 0 per-class"),
    ("kernel", {"epsilon": -1}, "KernelReleaseCertificate.epsilon"),
    ("kernel", {"delta": 1.0}, "KernelReleaseCertificate.delta"),
    ("problem", {"certificate": None}, "VerifiedProblem.certificate"),
])
def test_every_public_value_type_checks_its_fields_at_replace(certificates, kind, changes, field):
    """dataclasses.replace(cert, epsilon=-1) on a release's certificate was accepted with no check, where the other
    public value types (TuningCertificate, Certificate, ...) check their fields at construction: each now checks in
    its __post_init__, which replace calls, and a certificate's budget is the one its calibration was made for."""
    import dataclasses

    with pytest.raises(InputError, match=re.escape(field)):
        dataclasses.replace(certificates[kind], **changes)
    assert dataclasses.replace(certificates[kind]) == certificates[kind]  # an unchanged copy passes
