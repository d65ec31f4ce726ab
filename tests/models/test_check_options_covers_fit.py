"""Whatever a fit refuses of a learner's parameters alone, its data-free check refuses too, with the same error:
``check_options`` of PrivateERM and PrivateLinearRegression, ``check_params`` of the estimators. The command line
and :func:`dpcvx.as_opendp_measurement` call them before any data: a parameter they let through made a measurement
that failed only when called (``class_weight={1: -1.0}``, ``label_bound=nan``, ``failure_probability=0``), or
a refusal after the file was read. Each parameter is given a battery of odd values; a fit on rows holding a NaN
would refuse the rows instead, so a refusal there comes from the parameters (a refusal of the rows or of labels
outside the declared classes is the data's)."""

import inspect

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import DPCVXError

ODD = [float("nan"), -1.0, 0, "banana", object(), True, 1e300, (1, 2), {1: -1.0}, [0.5]]
X_NAN = np.array([[0.1, np.nan], [0.2, 0.1], [0.0, 0.3], [0.1, 0.1]])
SIGNS = np.array([-1, 1, -1, 1])
TARGETS = np.array([0.1, 0.2, 0.3, 0.4])

LEARNERS = [
    ("PrivateERM", dpcvx.PrivateERM, dict(data_norm=1.0), lambda e: e.check_options(1.0),
     lambda e: e.fit(X_NAN, SIGNS, 1.0)),
    ("PrivateERM regression", dpcvx.PrivateERM,
     dict(data_norm=1.0, task="regression", label_bound=1.0, loss="huber_regression"),
     lambda e: e.check_options(1.0), lambda e: e.fit(X_NAN, TARGETS, 1.0)),
    ("PrivateLinearRegression", dpcvx.PrivateLinearRegression, dict(data_norm=1.0, label_bound=1.0),
     lambda e: e.check_options(1.0, 1e-5), lambda e: e.fit(X_NAN, TARGETS, 1.0, 1e-5)),
    ("DPLogisticRegression", dpcvx.DPLogisticRegression, {}, lambda e: e.check_params(),
     lambda e: e.fit(X_NAN, (SIGNS > 0).astype(int))),
    ("DPHuberSVM", dpcvx.DPHuberSVM, {}, lambda e: e.check_params(), lambda e: e.fit(X_NAN, SIGNS)),
    ("DPLinearRegression", dpcvx.DPLinearRegression, dict(label_bound=1.0), lambda e: e.check_params(),
     lambda e: e.fit(X_NAN, TARGETS)),
    ("DPHuberRegressor", dpcvx.DPHuberRegressor, dict(label_bound=1.0), lambda e: e.check_params(),
     lambda e: e.fit(X_NAN, TARGETS)),
    ("TDDL", dpcvx.TDDL, dict(lam=0.1), lambda e: e.check_options(1.0),
     lambda e: e.fit(X_NAN, SIGNS, 1.0, Z=X_NAN[1:])),
    ("PINP", dpcvx.PINP, dict(lam=0.1, max_queries=3), lambda e: e.check_options(1.0),
     lambda e: e.fit(X_NAN, SIGNS, 1.0)),
    ("TDIL", dpcvx.TDIL, dict(lam=0.1, input_bound=1.0), lambda e: e.check_options(1.0),
     lambda e: e.fit(X_NAN, SIGNS, 1.0)),
]
UNCHECKED = {"verbose"}  # read by no refusal


def _outcome(call, *args):
    try:
        call(*args)
    except DPCVXError as error:
        return f"{type(error).__name__}: {error}"
    return "accepted"


@pytest.mark.parametrize("name, learner, base, check, fit", LEARNERS, ids=[case[0] for case in LEARNERS])
def test_a_fit_refuses_no_parameter_its_check_lets_through(name, learner, base, check, fit):
    gaps = []
    for parameter in inspect.signature(learner).parameters:
        if parameter in UNCHECKED | set(base):
            continue
        for value in ODD:
            try:
                made = learner(**{**base, parameter: value})
            except DPCVXError:
                continue  # refused at construction
            checked, fitted = _outcome(check, made), _outcome(fit, learner(**{**base, parameter: value}))
            if checked == "accepted" and not any(data in fitted for data in ("non-finite", "NaN", "y has")):
                gaps.append(f"{parameter}={value!r}: {fitted[:90]}")
    assert not gaps, "\n".join(gaps)
