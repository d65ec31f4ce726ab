"""Property-based robustness of the public API: generated bad settings and arguments.

For every generated case: a DPCVXError, or a release with finite weights;
never another exception type; the inputs are unchanged; a refused call
spends nothing. Seeded (derandomize=True) and bounded.
"""

import math
import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dpcvx

RNG = np.random.default_rng(0)
X = RNG.normal(size=(60, 3))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
Y = np.where(X[:, 0] + 0.2 * RNG.normal(size=60) > 0, 1, -1)

WEIRD = st.one_of(
    st.none(), st.booleans(), st.text(max_size=5), st.integers(-10**30, 10**30),
    st.floats(allow_nan=True, allow_infinity=True), st.complex_numbers(max_magnitude=10),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just(np.array([1.0, 2.0])), st.just(np.float32(0.5)), st.just(np.int64(3)),
    st.sampled_from([1e-320, 5e-324, 1e300, -0.0, 1e-13, 1e-3]),
)

SETTINGS = ["lam", "data_norm", "tol", "max_iter", "classes", "solver", "cvxpy_solver", "cvxpy_options",
            "intercept_scaling", "fit_intercept", "clip", "strict", "loss", "regularizer"]
FIT_ARGUMENTS = ["epsilon", "mechanism", "split", "random_state", "warm_start", "accountant"]

LOSSES = st.sampled_from([None, "logistic", "huber:h=0.5", "hinge", "huber:h=-1", "huber:h=abc",
                          lambda z: cp.logistic(-z), lambda z: cp.pos(1 - z), lambda z: z,
                          lambda z: "not an expression", lambda z: cp.Variable(2), 3])
REGULARIZERS = st.sampled_from([None, lambda w: 0.5 * cp.sum_squares(w), lambda w: cp.norm1(w),
                                lambda w: -cp.sum_squares(w), lambda w: 1 / 0, "ridge", 2.0])


def _value(name, draw):
    if name == "loss":
        return draw(LOSSES)
    if name == "regularizer":
        return draw(REGULARIZERS)
    return draw(WEIRD)


@st.composite
def cases(draw):
    where = draw(st.sampled_from(["setting", "argument"]))
    name = draw(st.sampled_from(SETTINGS if where == "setting" else FIT_ARGUMENTS))
    return where, name, _value(name, draw)


@pytest.mark.slow
@settings(max_examples=400, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(cases())
def test_one_bad_parameter_gives_a_typed_error_or_a_finite_release(case):
    where, name, value = case
    settings_ = {"lam": 1e-2, "data_norm": 1.0}
    arguments = {"epsilon": 1.0, "random_state": 0}
    (settings_ if where == "setting" else arguments)[name] = value
    accountant = dpcvx.PrivacyAccountant(epsilon=100.0)
    if name != "accountant":
        arguments["accountant"] = accountant
    X_before, Y_before = X.copy(), Y.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.ClippingWarning)
        try:
            model = dpcvx.PrivateERM(**settings_).fit(X, Y, **arguments)
        except dpcvx.DPCVXError:
            assert accountant.spent.epsilon == 0, "a refused call spent budget"
        else:
            assert np.all(np.isfinite(model.coef_)) and math.isfinite(model.intercept_)
            assert np.isfinite(model.certificate.calibration.to_dict()["beta"])
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(Y, Y_before)


@pytest.mark.slow  # about 6 s: 150 examples
@settings(max_examples=150, derandomize=True, deadline=None)
@given(st.sampled_from(["dim", "strict", "loss", "regularizer"]), st.data())
def test_verify_never_raises_an_untyped_error(name, data):
    arguments = {"loss": lambda z: cp.logistic(-z), "dim": 3}
    arguments[name] = data.draw(LOSSES if name == "loss" else REGULARIZERS if name == "regularizer" else WEIRD)
    loss = arguments.pop("loss")
    try:
        certificate = dpcvx.verify(loss, **arguments)
    except dpcvx.DPCVXError:
        return
    assert isinstance(str(certificate), str)


@pytest.mark.parametrize("mechanism", ["objective", "output"])
@settings(max_examples=40, derandomize=True, deadline=None)
@given(epsilon=st.floats(1e-12, 1e300), lam=st.floats(1e-12, 1e12), R=st.floats(1e-12, 1e12))
def test_extreme_but_valid_numbers_give_a_finite_release_or_a_typed_error(mechanism, epsilon, lam, R):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.ClippingWarning)
        try:
            model = dpcvx.PrivateERM(lam=lam, data_norm=R).fit(X, Y, epsilon, mechanism, random_state=1)
        except dpcvx.DPCVXError:
            return
    assert np.all(np.isfinite(model.coef_))
