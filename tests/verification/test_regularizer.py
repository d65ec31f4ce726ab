"""The regularizer calculus: m is a proved lower bound of lambda_min of N's Hessian.

The true Hessians are built here independently of dpcvx: by construction in
exact rational arithmetic (sympy), and cross-checked against second
differences of the CVXPY expression itself. Soundness is checked exactly
(H - m I is positive semidefinite in rational arithmetic), tightness against
the exact or double-precision smallest eigenvalue.
"""

import time
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp

import dpcvx
from dpcvx import losses
from dpcvx.verification.regularizer import Quadratic, analyse_regularizer


def _negate(expression):
    return -expression


def analyse(regularizer, d):
    w = cp.Variable(d)
    return analyse_regularizer(regularizer(w), w)


def expression_hessian(regularizer, d):
    """Hessian of a quadratic N by second differences of the CVXPY expression (exact for quadratics
    up to rounding): H_ij = N(e_i + e_j) - N(e_i) - N(e_j) + N(0)."""
    w = cp.Variable(d)
    expression = regularizer(w)

    def value(x):
        w.value = x
        return float(expression.value)

    eye = np.eye(d)
    base = value(np.zeros(d))
    single = [value(eye[i]) for i in range(d)]
    H = np.empty((d, d))
    for i in range(d):
        for j in range(d):
            H[i, j] = value(eye[i] + eye[j]) - single[i] - single[j] + base
    return H


def rational(array):
    return sp.Matrix(np.asarray(array).shape[0], np.asarray(array).shape[1],
                     [sp.Rational(float(x)) for x in np.asarray(array).ravel()])


def assert_sound(m, H_exact):
    """H - m I is PSD in exact arithmetic: m <= lambda_min(H)."""
    m = sp.Rational(m.numerator, m.denominator) if isinstance(m, Fraction) else sp.Rational(float(m))
    shifted = H_exact - m * sp.eye(H_exact.shape[0])
    assert all(isinstance(x, sp.Rational) for x in shifted), "exact arithmetic only"
    assert shifted.is_positive_semidefinite, (m, H_exact)


def true_lambda_min(H_exact) -> float:
    return float(np.linalg.eigvalsh(np.array(H_exact.evalf(30), dtype=float)).min())


# -- the reported defect: an all-equal matrix is not a multiple of the identity ----------------


@pytest.mark.parametrize("d", [1, 2, 3, 7, 20])
@pytest.mark.parametrize("ridge", [0.0, 0.01])
@pytest.mark.parametrize("form", ["quad_form", "sum_squares_matmul", "tall_matmul"])
def test_all_equal_matrices_are_rank_one(d, ridge, form):
    c = 5.0
    if form == "quad_form":
        def regularizer(w):
            return cp.quad_form(w, c * np.ones((d, d))) + ridge * cp.sum_squares(w)
        ones_part = 2 * c * d          # Hessian 2c 11^T: eigenvalues 2cd (once) and 0
    elif form == "sum_squares_matmul":
        def regularizer(w):
            return cp.sum_squares(c * np.ones((d, d)) @ w) + ridge * cp.sum_squares(w)
        ones_part = 2 * c * c * d * d  # 2 (c 11^T)^T (c 11^T) = 2 c^2 d 11^T
    else:
        def regularizer(w):
            return cp.sum_squares(np.full((d + 3, d), c) @ w) + ridge * cp.sum_squares(w)
        ones_part = 2 * c * c * (d + 3) * d
    truth = 2 * ridge + (ones_part if d == 1 else 0.0)
    analysis = analyse(regularizer, d)
    m = float(analysis.strong_convexity)
    assert m <= truth
    assert m >= truth - 1e-9 * max(1.0, truth)      # and tight
    np.testing.assert_allclose(analysis.quadratic.hessian(d), expression_hessian(regularizer, d),
                               rtol=1e-12, atol=1e-9 * ones_part)


def test_the_reported_overstatement_is_gone():
    """Before the fix: c * ones(d, d) @ w was read as c * w, so m was 2 c^2 + 2 * 0.01 = 50.02."""
    d = 4
    cert = dpcvx.verify(losses.logistic(),
                        lambda w: cp.sum_squares(5 * np.ones((d, d)) @ w) + 0.01 * cp.sum_squares(w),
                        dim=d)
    assert 0.02 * (1 - 1e-12) <= float(cert.strong_convexity) <= 0.02


def test_a_one_entry_constant_is_still_an_exact_scalar():
    for regularizer, m in [
        (lambda w: cp.sum_squares(np.array([[3.0]]) @ w), 18),      # d = 1: a 1 x 1 matrix is a scalar
        (lambda w: 3 * cp.sum_squares(2 * w), 24),
        (lambda w: cp.sum_squares(w / 4), sp.Rational(1, 8)),
        (lambda w: cp.sum_squares(w) / 8, sp.Rational(1, 4)),
        (lambda w: _negate(_negate(cp.sum_squares(w))), 2),  # two NegExpressions
        (lambda w: 0.5 * cp.sum_squares(-w + 3) - cp.sum(w), 1),
        (lambda w: cp.sum_squares(cp.multiply(np.full(1, 3.0), w)), 18),
    ]:
        analysis = analyse(regularizer, 1)
        assert analysis.strong_convexity == m and analysis.strong_convexity_exact


# -- diagonal weights -----------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 4, 50])
def test_weighted_sum_of_squares_is_accepted_with_twice_the_smallest_weight(d):
    a = np.random.default_rng(d).uniform(0.1, 3.0, d)
    forms = {
        "sum-multiply": lambda w: cp.sum(cp.multiply(a, cp.square(w))),
        "multiply-first": lambda w: cp.sum(cp.multiply(cp.square(w), a)),
        "matmul": lambda w: a @ cp.square(w),
        "half": lambda w: 0.5 * cp.sum(cp.multiply(a, cp.square(w))),
        "sum_squares-sqrt": lambda w: cp.sum_squares(cp.multiply(np.sqrt(a), w)),
        "quad_form-diag": lambda w: cp.quad_form(w, np.diag(a)),
    }
    for name, regularizer in forms.items():
        analysis = analyse(regularizer, d)
        scale = 0.5 if name == "half" else 1.0
        expected = 2 * scale * a.min()
        m = float(analysis.strong_convexity)
        if name == "sum_squares-sqrt":         # sqrt(a) is rounded: sound, rounded down
            assert expected * (1 - 1e-14) <= m <= expected * (1 + 1e-15), name
        else:
            assert analysis.strong_convexity_exact, name
            assert m == pytest.approx(expected, rel=1e-15), name
        H = expression_hessian(regularizer, d) if d <= 4 else np.diag(2 * scale * a)
        q = analysis.quadratic
        np.testing.assert_allclose(q.hessian(d), H, rtol=1e-12, atol=1e-12)
        x = np.random.default_rng(0).normal(size=d)
        np.testing.assert_allclose(q.gradient(x), q.hessian(d) @ x, rtol=1e-12)
        matrix = np.zeros((d, d)) if q.matrix is None else q.matrix   # old attribute, still there
        np.testing.assert_allclose(q.hessian_vector(x), matrix @ x + float(q.alpha) * x, rtol=1e-12)
        assert q.value(x) == pytest.approx(0.5 * x @ H @ x, rel=1e-12)


def test_weighted_regularizer_through_verify_and_both_solvers():
    d = 4
    a = np.array([0.5, 1.0, 2.0, 4.0])
    regularizer = lambda w: cp.sum(cp.multiply(a, cp.square(w)))  # noqa: E731
    cert = dpcvx.verify(losses.logistic(), regularizer, dim=d)
    assert cert.allows("objective") and cert.allows("output")
    assert cert.strong_convexity == 1 and isinstance(cert.strong_convexity, Fraction)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=400) > 0, 1, -1)
    fits = {}
    for solver in ("fast", "cvxpy"):
        erm = dpcvx.PrivateERM(regularizer=regularizer, lam=0.05, data_norm=1.0,
                               fit_intercept=False, solver=solver)
        fits[solver] = erm.fit(X, y, epsilon=1.0, random_state=11)
        assert fits[solver].certificate.strong_convexity == 1       # 2 * min(a), exact
    np.testing.assert_allclose(fits["fast"].coef_, fits["cvxpy"].coef_, rtol=0, atol=1e-4)


def test_negative_weights_are_refused_as_non_convex():
    a = np.array([1.0, -0.5, 2.0])
    regularizer = lambda w: cp.sum(cp.multiply(a, cp.square(w)))  # noqa: E731
    analysis = analyse(regularizer, 3)
    assert not analysis.convex
    assert analysis.strong_convexity == 0                         # never a positive claim
    cert = dpcvx.verify(losses.logistic(), regularizer, dim=3)
    assert not cert.allows("objective") and not cert.allows("output")
    names = {item.name for item in cert.failures("output")}
    assert "regularizer_convexity" in names and "strong_convexity" in names
    with pytest.raises(dpcvx.AssumptionError):
        dpcvx.PrivateERM(regularizer=regularizer, data_norm=1.0, fit_intercept=False).fit(
            np.eye(3) * 0.5, np.array([1, -1, 1]), epsilon=1.0, random_state=0)


# -- dense terms ------------------------------------------------------------------------------


@pytest.mark.parametrize("k, d", [(6, 3), (3, 3), (2, 5), (1, 4)])
def test_sum_squares_of_a_user_matrix(k, d):
    A = np.random.default_rng(k * 10 + d).normal(size=(k, d))
    analysis = analyse(lambda w: cp.sum_squares(A @ w), d)
    truth = 2 * np.linalg.svd(A, compute_uv=False)[-1] ** 2 if k >= d else 0.0
    m = float(analysis.strong_convexity)
    assert not analysis.strong_convexity_exact
    if k < d:
        assert m == 0.0                                  # wide: singular Gram matrix, exactly 0
    else:
        assert truth * (1 - 1e-10) - 1e-12 <= m <= truth
    ridge = analyse(lambda w: cp.sum_squares(A @ w) + 0.5 * cp.sum_squares(w), d)
    assert float(ridge.strong_convexity) <= truth + 1.0
    assert float(ridge.strong_convexity) >= truth + 1.0 - 1e-9


def test_rank_deficient_quad_form():
    B = np.random.default_rng(5).normal(size=(2, 5))
    P = B.T @ B                                          # rank 2 in R^5
    alone = analyse(lambda w: cp.quad_form(w, P, assume_PSD=True), 5)
    assert 0.0 <= float(alone.strong_convexity) <= 1e-12
    ridge = analyse(lambda w: cp.quad_form(w, P, assume_PSD=True) + 0.05 * cp.sum_squares(w), 5)
    assert 0.1 * (1 - 1e-9) <= float(ridge.strong_convexity) <= 0.1


def test_quad_form_of_an_affine_map_and_a_shift():
    rng = np.random.default_rng(8)
    B = rng.normal(size=(5, 5))
    P = B @ B.T + np.eye(5)
    A = rng.normal(size=(5, 3))

    def regularizer(w):
        return cp.quad_form(A @ w + 1.0, P) + cp.sum_squares(w[1:] - 2.0)

    analysis = analyse(regularizer, 3)
    H = 2 * A.T @ P @ A + np.diag([0.0, 2.0, 2.0])
    truth = np.linalg.eigvalsh(H).min()
    assert truth * (1 - 1e-9) <= float(analysis.strong_convexity) <= truth
    q = analysis.quadratic
    np.testing.assert_allclose(q.hessian(3), expression_hessian(regularizer, 3), rtol=1e-9, atol=1e-9)
    w = cp.Variable(3)
    expression = regularizer(w)
    x = rng.normal(size=3)
    w.value = x
    at_x = float(expression.value)
    w.value = np.zeros(3)
    at_zero = float(expression.value)
    assert q.value(x) == pytest.approx(at_x - at_zero, rel=1e-10)


def test_several_wide_terms_together_are_bounded_as_a_whole():
    """Each wide term alone has lambda_min 0; their sum is positive definite (whole-Hessian bound)."""
    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    analysis = analyse(lambda w: cp.sum_squares(A @ w) + cp.sum_squares(B @ w), 4)
    truth = 2 * np.linalg.svd(np.vstack([A, B]), compute_uv=False)[-1] ** 2
    assert truth * (1 - 1e-9) <= float(analysis.strong_convexity) <= truth


# -- the property: never above the true lambda_min, exact where the calculus is exact -----------


def _random_regularizer(rng, d):
    """A random sum of PSD terms with dyadic rational data, and its exact Hessian."""
    terms, H = [], sp.zeros(d, d)
    for _ in range(rng.integers(1, 4)):
        kind = rng.choice(["ridge", "weights", "matmul", "quad_form", "tail", "scaled", "ones"])
        if kind == "ridge":
            r = rng.integers(1, 9) / 8
            terms.append(lambda w, r=r: r * cp.sum_squares(w))
            H += 2 * sp.Rational(r) * sp.eye(d)
        elif kind == "weights":
            a = rng.integers(1, 17, d) / 4
            terms.append(lambda w, a=a: cp.sum(cp.multiply(a, cp.square(w))))
            H += 2 * sp.diag(*[sp.Rational(x) for x in a])
        elif kind == "matmul":
            A = rng.integers(-3, 4, (rng.integers(1, d + 3), d)).astype(float)
            terms.append(lambda w, A=A: cp.sum_squares(A @ w - 1.0))
            H += 2 * rational(A).T * rational(A)
        elif kind == "quad_form":
            B = rng.integers(-2, 3, (rng.integers(1, d + 2), d)).astype(float)
            P = B.T @ B
            terms.append(lambda w, P=P: 0.5 * cp.quad_form(w, P, assume_PSD=True))
            H += rational(P)
        elif kind == "tail" and d > 1:
            start = int(rng.integers(1, d))
            terms.append(lambda w, s=start: cp.sum_squares(3 * w[s:]))
            H += sp.diag(*([0] * start + [18] * (d - start)))
        elif kind == "scaled":
            v = rng.integers(1, 5, d).astype(float)
            terms.append(lambda w, v=v: cp.sum_squares(cp.multiply(v, w) / 2))
            H += sp.diag(*[sp.Rational(int(x) ** 2, 2) for x in v])
        else:
            c = float(rng.integers(1, 4))
            terms.append(lambda w, c=c: cp.quad_form(w, c * np.ones((d, d)), assume_PSD=True))
            H += 2 * sp.Integer(int(c)) * sp.ones(d, d)
    return (lambda w: sum(term(w) for term in terms)), H


@pytest.mark.slow
def test_certified_m_never_exceeds_the_true_smallest_eigenvalue():
    rng = np.random.default_rng(20261123)
    exact_cases = 0
    for trial in range(60):
        d = int(rng.integers(1, 6))
        regularizer, H = _random_regularizer(rng, d)
        np.testing.assert_allclose(expression_hessian(regularizer, d),
                                   np.array(H, dtype=float), rtol=1e-9, atol=1e-9)
        analysis = analyse(regularizer, d)
        m = analysis.strong_convexity
        assert_sound(m, H)                                       # exact: H - m I is PSD
        truth = true_lambda_min(H)
        assert analysis.quadratic is not None                   # every term recognised
        if analysis.strong_convexity_exact:
            exact_cases += 1
            assert isinstance(m, Fraction)
            assert (H - sp.Rational(m.numerator, m.denominator) * sp.eye(d)).det() == 0  # m IS lambda_min
        else:
            scale = max(1.0, float(max(abs(x) for x in H)))
            assert float(m) >= truth - 1e-9 * scale * d, (trial, float(m), truth)
        if analysis.quadratic is not None:
            np.testing.assert_allclose(analysis.quadratic.hessian(d), np.array(H, dtype=float),
                                       rtol=1e-12, atol=1e-12)
    assert exact_cases >= 10


# -- large d ----------------------------------------------------------------------------------


def test_analysis_is_cheap_at_d_100000():
    d = 100_000
    a = np.random.default_rng(0).uniform(0.5, 2.0, d)
    regularizer = lambda w: (0.5 * cp.sum_squares(w[:-1])          # noqa: E731
                             + cp.sum(cp.multiply(a, cp.square(w))) + 0.01 * cp.sum_squares(w))
    start = time.perf_counter()
    analysis = analyse(regularizer, d)
    elapsed = time.perf_counter() - start
    assert elapsed < 5.0, elapsed                    # measured: well under a second
    assert analysis.strong_convexity_exact
    last = 2 * a[-1] + 0.02                          # the intercept coordinate misses the first term
    expected = min(last, float(np.min(2 * a[:-1] + 1.02)))
    assert float(analysis.strong_convexity) == pytest.approx(expected, rel=1e-14)
    q = analysis.quadratic
    assert q.dense is None and q.diagonal.shape == (d,)
    x = np.ones(d)
    assert np.allclose(q.hessian_vector(x), q.hessian_diagonal(d) * x)
    start = time.perf_counter()
    ridge = analyse(lambda w: 0.5 * cp.sum_squares(w), d)
    assert time.perf_counter() - start < 5.0
    assert ridge.strong_convexity == 1 and ridge.quadratic.diagonal is None
    import scipy.sparse as sparse

    start = time.perf_counter()
    diagonal = analyse(lambda w: cp.quad_form(w, sparse.diags(a)), d)   # never densified
    assert time.perf_counter() - start < 5.0
    assert diagonal.strong_convexity_exact
    assert float(diagonal.strong_convexity) == pytest.approx(2 * a.min(), rel=1e-15)


def test_sparse_quad_form_matrices():
    import scipy.sparse as sparse

    P = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    analysis = analyse(lambda w: cp.quad_form(w, sparse.csr_matrix(P)), 3)
    truth = 2 * np.linalg.eigvalsh(P).min()                 # 2
    assert truth * (1 - 1e-12) <= float(analysis.strong_convexity) <= truth
    np.testing.assert_allclose(analysis.quadratic.hessian(3), 2 * P, rtol=1e-15)


# -- the Quadratic interface the Newton solver uses ----------------------------------------------


def test_quadratic_keeps_the_old_interface():
    M = np.array([[2.0, 1.0], [1.0, 3.0]])
    g = np.array([0.5, -1.0])
    old = Quadratic(sp.Rational(1, 2), M, g)         # positional (alpha, matrix, linear)
    assert old.matrix is old.dense and old.linear is g
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(old.gradient(x), 0.5 * x + M @ x + g)
    assert old.value(x) == pytest.approx(0.25 * x @ x + 0.5 * x @ M @ x + g @ x)
    with_diag = Quadratic(sp.Integer(1), M, None, np.array([4.0, 5.0]))
    np.testing.assert_array_equal(with_diag.matrix, M + np.diag([4.0, 5.0]))
    np.testing.assert_allclose(with_diag.hessian(2), np.eye(2) + with_diag.matrix)
    total = old + with_diag.scaled(sp.Integer(2))
    np.testing.assert_allclose(total.hessian(2), old.hessian(2) + 2 * with_diag.hessian(2))
    m, exact = Quadratic(sp.Integer(0), None, None, np.array([3.0, 2.0])).smallest_eigenvalue()
    assert not exact and 2 * (1 - 1e-14) <= float(m) <= 2.0


@pytest.mark.parametrize("regularizer", [
    lambda w: cp.sum_squares(w[::-1]),
    lambda w: cp.sum_squares(w[4::-2]) + cp.sum_squares(3 * w[5:0:-2]),
    lambda w: cp.sum_squares(np.diag(np.arange(1.0, 7.0)) @ w[::-1]) + cp.square(w[0]),
    lambda w: 0.5 * cp.sum_squares(w[1:]) + cp.square(w[0] - 2) / 4,
    lambda w: cp.sum_squares(w[-2:]) + 0.1 * cp.sum_squares(w[:-2]),
    lambda w: cp.sum_squares(w[[0, 2, 4]]) + cp.sum_squares(w[[1, 3, 5, 5]]),
    lambda w: cp.sum_squares(cp.hstack([w[0], 2 * w[1:]])),
    lambda w: cp.sum_squares(w @ np.ones((6, 2))) + cp.sum_squares(w / np.arange(1.0, 7.0)),
], ids=["reversed", "strided-reversed", "diag-matrix", "tail", "negative-start", "fancy",
        "hstack", "row-vector-and-division"])
def test_indexing_and_other_affine_maps_give_the_true_hessian(regularizer):
    """The Quadratic is the expression's own Hessian (for the Newton solver), and m <= lambda_min."""
    d = 6
    analysis = analyse(regularizer, d)
    H = expression_hessian(regularizer, d)
    np.testing.assert_allclose(analysis.quadratic.hessian(d), H, rtol=1e-9, atol=1e-9)
    truth = np.linalg.eigvalsh(H).min()
    assert float(analysis.strong_convexity) <= max(truth, 0.0) + 1e-12 * np.abs(H).max()
    assert float(analysis.strong_convexity) >= truth - 1e-9 * np.abs(H).max()


@pytest.mark.slow
def test_negative_quadratic_terms_are_bounded_from_above_not_ignored():
    """Subtracted quadratic terms (not DCP-convex, so refused anyway) still never raise m: the
    calculus bounds a negative term by its largest eigenvalue, and m is 0 when N is not convex."""
    rng = np.random.default_rng(11)
    for _ in range(30):
        d = int(rng.integers(1, 5))
        A = rng.integers(-3, 4, (d + 1, d)).astype(float)
        B = rng.integers(-2, 3, (int(rng.integers(1, d + 2)), d)).astype(float)
        a = rng.integers(1, 9, d) / 4
        c = rng.integers(1, 5) / 8
        forms = [
            (lambda w, A=A, B=B, c=c: cp.sum_squares(A @ w) - c * cp.sum_squares(B @ w),
             2 * rational(A).T * rational(A) - 2 * sp.Rational(c) * rational(B).T * rational(B)),
            (lambda w, a=a, c=c, d=d: cp.sum(cp.multiply(a, cp.square(w))) - c * cp.sum_squares(w[: d // 2 + 1]),
             2 * sp.diag(*[sp.Rational(x) for x in a])
             - 2 * sp.Rational(c) * sp.diag(*([1] * (d // 2 + 1) + [0] * (d - d // 2 - 1)))),
            (lambda w, B=B, c=c: 2 * cp.sum_squares(w) - c * cp.quad_form(w, B.T @ B, assume_PSD=True),
             4 * sp.eye(d) - 2 * sp.Rational(c) * rational(B.T @ B)),
        ]
        for regularizer, H in forms:
            analysis = analyse(regularizer, d)
            assert not analysis.convex
            np.testing.assert_allclose(expression_hessian(regularizer, d), np.array(H, dtype=float),
                                       rtol=1e-9, atol=1e-9)
            if true_lambda_min(H) > 0:
                assert_sound(analysis.strong_convexity, H)
            else:
                assert analysis.strong_convexity == 0


@pytest.mark.parametrize("regularizer, kept", [
    # not convex by DCP: each takes curvature off the ridge (-0.1 huber: 0.2 where |w_j| < 1), or may
    (lambda w: 0.5 * cp.sum_squares(w) - 0.1 * cp.sum(cp.huber(w, 1)), False),
    (lambda w: 0.5 * cp.sum_squares(w) - 0.1 * cp.norm1(w), False),
    (lambda w: 0.5 * cp.sum_squares(w) + 0.1 * cp.sum(cp.logistic(-w)) - 0.3 * cp.sum(cp.exp(w)), False),
    # convex terms (a concave one subtracted included): they add >= 0 to m, which stays the ridge's 1
    (lambda w: 0.5 * cp.sum_squares(w) + 0.1 * cp.sum(cp.huber(w, 1)), True),
    (lambda w: 0.5 * cp.sum_squares(w) - 0.1 * cp.sum(cp.log(1 + w)), True),
    (lambda w: 0.5 * cp.sum_squares(w) + 0.1 * cp.norm1(w), True),
])
def test_a_term_not_proved_convex_does_not_count_as_adding_nothing_to_m(regularizer, kept):
    """m of the quadratic terms bounds N's only when every other term is convex (its Hessian PSD). An
    unrecognised term counted as adding 0 whatever its sign: 0.5 ||w||^2 - 0.1 sum huber(w, 1) was certified
    m = 1 "symbolic" "pass", its true m 0.8 (probe A F1). Such a term leaves m not established, naming it."""
    analysis = analyse(regularizer, 2)
    assert analysis.strong_convexity == (1 if kept else 0)
    assert bool(analysis.nonconvex_terms) is not kept
    condition = dpcvx.verify("logistic", regularizer=regularizer, dim=2).condition("strong_convexity")
    from dpcvx.verification.verifier import verify_problem

    assert verify_problem("logistic", regularizer, dim=2).strong_convexity == (1.0 if kept else 0.0)
    if kept:
        assert (condition.passed, condition.value) == (True, 1)
    else:
        assert condition.passed is None and condition.value is None and condition.method == "none"
        assert condition.detail.startswith("m is not established: the term -") and condition.fix


def test_the_certified_m_of_ridge_minus_huber_is_not_above_the_true_one():
    """The probe's regularizer: its Hessian at w = 0 by second differences is 0.8 I; no certificate states more."""
    def regularizer(w):
        return 0.5 * cp.sum_squares(w) - 0.1 * cp.sum(cp.huber(w, 1))

    w = cp.Variable(2)
    expression = regularizer(w)

    def value(x):
        w.value = np.asarray(x, dtype=float)
        return float(expression.value)

    h = 1e-3
    second = (value([h, 0.0]) - 2 * value([0.0, 0.0]) + value([-h, 0.0])) / h**2
    assert second == pytest.approx(0.8, rel=1e-9)
    certified = dpcvx.verify("logistic", regularizer=regularizer, dim=2).strong_convexity
    assert certified is None or certified <= second


def test_a_problem_whose_m_is_not_established_reads_m_as_zero():
    """VerifiedProblem.strong_convexity, m rounded down, is 0.0 where the certificate holds no m (a regularizer
    that could not be declared, a term not proved convex): it raised AttributeError on the value None."""
    from dpcvx.verification.verifier import verify_problem

    for regularizer in (lambda w: 1 / 0, lambda w: 0.5 * cp.sum_squares(w) - 0.1 * cp.sum(cp.huber(w, 1))):
        problem = verify_problem("logistic", regularizer, dim=2)
        assert problem.certificate.strong_convexity is None and problem.strong_convexity == 0.0
