"""Property-based tests over random valid problems (hypothesis, derandomised).

* a release is finite and meets the residual guard;
* inputs are never modified in place;
* the certificate's L and c bound |l'| and |l''| sampled independently of the
  verifier (central differences of CVXPY's own evaluation of the loss).
"""

import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcvx
from dpcvx import losses


@st.composite
def problems(draw):
    n = draw(st.integers(5, 150))
    d = draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    R = draw(st.sampled_from([0.5, 1.0, 3.0]))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * draw(st.sampled_from([0.1, 1.0, 10.0]))  # some rows get clipped
    y = rng.choice([-1, 1], size=n)
    dtype = draw(st.sampled_from([np.float64, np.float32]))
    loss = draw(st.sampled_from([losses.logistic(), losses.huber_hinge(0.5), losses.huber_hinge(0.1)]))
    mechanism = draw(st.sampled_from(["objective", "output"]))
    return dict(
        X=X.astype(dtype), y=y, R=R, loss=loss,
        lam=draw(st.floats(1e-4, 1.0)),
        epsilon=draw(st.floats(0.01, 20.0)),
        mechanism=mechanism,
        # output perturbation takes no split: any split given is refused (the default None: none)
        split=draw(st.sampled_from(["paper", "max", None])) if mechanism == "objective" else None,
        intercept=draw(st.booleans()),
        seed=seed,
    )


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")  # any problem: some are constant
@settings(max_examples=60)
@given(problems())
def test_release_is_finite_exact_and_leaves_inputs_alone(problem):
    X, y = problem["X"], problem["y"]
    X_before, y_before = X.copy(), y.copy()
    erm = dpcvx.PrivateERM(loss=problem["loss"], lam=problem["lam"], data_norm=problem["R"],
                           fit_intercept=problem["intercept"])
    with warnings.catch_warnings():
        # random data put rows beyond R on purpose; the clipping warning is expected here
        warnings.simplefilter("ignore", dpcvx.ClippingWarning)
        try:
            model = erm.fit(X, y, epsilon=problem["epsilon"], mechanism=problem["mechanism"],
                            split=problem["split"], random_state=problem["seed"])
        except dpcvx.InputError as refused:  # a budget above 1e7 (m Lam tiny against c R^2): refused, public inputs
            assert "above 1e+07 iterations" in str(refused) and "Nothing was charged" in str(refused)
            return
    assert np.all(np.isfinite(model.coef_)) and np.isfinite(model.intercept_)
    assert erm.diagnostics_.converged  # ||grad F|| within half the public bound gamma
    assert np.all(np.isfinite(model.decision_function(X)))
    np.testing.assert_array_equal(X, X_before)
    np.testing.assert_array_equal(y, y_before)
    assert X.dtype == X_before.dtype


def margin_losses():
    scale = st.sampled_from([0.5, 1.0, 2.0, 3.0])
    slope = st.sampled_from([0.5, 1.0, 2.0, 4.0])
    shift = st.sampled_from([-1.0, 0.0, 0.5, 2.0])
    width = st.sampled_from([0.1, 0.25, 0.5, 1.0])
    return st.one_of(
        st.builds(lambda a, b, s: (lambda z: a * cp.logistic(s - b * z)), scale, slope, shift),
        st.builds(lambda a, h: (lambda z: a * cp.huber(cp.pos(1 + h - z), 2 * h) / (4 * h)), scale, width),
        st.builds(lambda a, k: (lambda z: a * (cp.norm(cp.hstack([k, z])) - k)), scale, width),
        st.builds(lambda a, M, s: (lambda z: a * cp.huber(z - s, M)), scale, width, shift),
    )


def sampled_derivatives(loss, points, step=1e-4):
    z = cp.Variable()
    expression = loss(z)

    def value(t):
        z.value = t
        return float(expression.value)

    first = [(value(t + step) - value(t - step)) / (2 * step) for t in points]
    second = [(value(t + step) - 2 * value(t) + value(t - step)) / step**2 for t in points]
    return np.abs(first), np.abs(second)


@pytest.mark.slow
@settings(max_examples=30)
@given(margin_losses(), st.lists(st.floats(-30, 30), min_size=5, max_size=20))
def test_certified_constants_bound_sampled_derivatives(loss, points):
    cert = dpcvx.verify(loss)
    assert cert.allows("output")
    first, second = sampled_derivatives(loss, np.array(points + [0.0, 1.0, -1.0]))
    assert first.max() <= float(cert.lipschitz) * (1 + 1e-6) + 1e-6
    assert second.max() <= float(cert.curvature) * (1 + 1e-3) + 1e-4  # finite-difference error
