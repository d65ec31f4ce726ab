"""Privacy soundness of the verifier: a certified constant is never below the truth.

Adversarial losses whose grid estimate (dpcvx.verification.numeric) is wrong: steep curvature
between grid points, a narrow bump, kinks hidden in a maximum of smooth pieces,
and atoms that do not translate. Each must be refused, or certified with a
constant that is proved (symbolic or validated) and at least the true supremum,
checked here by dense sampling of the closed-form derivatives.
"""

import json
import math
import time
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest
import sympy as sp
from cvxpy.atoms.elementwise.logistic import logistic as cvxpy_logistic

import dpcvx
from dpcvx import losses
from dpcvx.verification import interval, numeric, validated
from dpcvx.verification.certificate import MECHANISMS
from dpcvx.verification.translate import Softplus, lambdify, to_sympy
from dpcvx.verification.verdict import theorem_for

Z = sp.Symbol("z", real=True)
PROOFS = ("symbolic", "validated")
QUICK = 12.0  # seconds per verification: sympy (at most half) cannot settle these; the validated bounds need 2-4 s


def sigmoid(t):
    return 0.5 * (1 + np.tanh(0.5 * t))


def sigmoid_slope(t):
    s = sigmoid(t)
    return s * (1 - s)


def dense(center: float, half_width: float, n: int = 2_000_001) -> np.ndarray:
    return np.linspace(center - half_width, center + half_width, n)


def sympy_form(loss):
    variable = cp.Variable()
    return to_sympy(loss(variable), variable, Z)


def grid_estimate(loss) -> numeric.NumericAnalysis:
    return numeric.analyse(lambdify(Z, sympy_form(loss)))


def assert_sound(cert, name: str, true_sup: float) -> None:
    """Refused, or certified by a proof with a constant >= the true supremum."""
    item = cert.condition(name)
    if not item.passed:
        return
    if item.method == "estimate":  # shown, but refused by every mechanism that needs it
        assert not cert.allow_estimates
        for mechanism in MECHANISMS:
            if name in theorem_for(mechanism, delta=0.0, kst12=False, piecewise=False).requires:
                assert name in {failing.name for failing in cert.failures(mechanism)}
        return
    assert item.method in PROOFS, f"{name} certified by {item.method}"
    assert float(item.value) >= true_sup * (1 - 1e-12), (float(item.value), true_sup)


# --- steep curvature between grid points -------------------------------------------------

W_STEEP, Z0 = 1e-3, 0.3137


def steep(z):
    return cp.logistic(-z) + W_STEEP * cp.logistic((z - Z0) / W_STEEP)


def steep_second(z):
    return sigmoid_slope(-z) + sigmoid_slope((z - Z0) / W_STEEP) / W_STEEP


def test_grid_estimate_misses_steep_curvature():
    # the failure being fixed: the grid's c is below the truth, so the noise would be too small
    true_c = steep_second(dense(Z0, 0.01)).max()
    assert grid_estimate(steep).curvature < 0.99 * true_c


@pytest.mark.slow
@pytest.mark.timing
def test_steep_curvature_is_certified_with_a_proved_upper_bound():
    cert = dpcvx.verify(steep, time_limit=QUICK)
    true_c = steep_second(dense(Z0, 0.01)).max()
    assert true_c > 250
    assert cert.condition("curvature").passed
    assert cert.method("curvature") in PROOFS
    assert true_c <= float(cert.curvature) <= 1.01 * true_c
    t = dense(0.0, 60.0)
    true_first = np.abs(sigmoid((t - Z0) / W_STEEP) - sigmoid(-t)).max()  # -> 1 at both ends
    assert true_first > 1 - 1e-9
    assert_sound(cert, "lipschitz", true_first)
    assert cert.allows("objective") and not cert.conditional


# --- a narrow bump -----------------------------------------------------------------------

A_BUMP, W_BUMP = 1e-4, 1e-3


def bump(z):
    return cp.logistic(-z) + A_BUMP * cp.exp(-cp.square((z - Z0) / W_BUMP))


def bump_second(z):
    u = (z - Z0) / W_BUMP
    return sigmoid_slope(-z) + A_BUMP * (4 * u**2 - 2) * np.exp(-(u**2)) / W_BUMP**2


@pytest.mark.slow
@pytest.mark.timing
def test_narrow_bump_is_refused_or_bounded_soundly():
    grid = grid_estimate(bump)
    values = bump_second(dense(Z0, 0.02))
    true_c = np.abs(values).max()
    assert grid.curvature < 0.9 * true_c  # the grid underestimates c
    cert = dpcvx.verify(bump, time_limit=QUICK)
    assert values.min() < 0  # the bump makes l nonconvex ...
    assert cert.condition("convexity").passed is False  # ... and that is proved, not guessed
    assert cert.method("convexity") in PROOFS
    assert not cert.allows("objective") and not cert.allows("output")
    assert_sound(cert, "curvature", true_c)


@pytest.mark.slow  # about 2 s (the default run's 5-minute limit)
def test_validated_bound_of_a_convex_bump_in_the_slope():
    # a convex loss whose l'' has a narrow peak of height a / (4 w): proved, not sampled
    a, w = 0.37, 2e-4
    expression = Softplus(-Z) + a * w * Softplus((Z - sp.Rational(1, 7)) / w)
    second = validated.Enclosure(sp.diff(expression, Z, 2), Z)
    bound = validated.sup_abs(second)
    t = dense(1 / 7, 0.005)
    true_c = (sigmoid_slope(-t) + a * sigmoid_slope((t - 1 / 7) / w) / w).max()
    assert true_c <= bound.upper <= (1 + 2 * validated.RTOL) * true_c
    assert validated.infimum(second).lower >= 0  # convexity proved


# --- kinks hidden in a maximum of smooth convex pieces -----------------------------------


@pytest.mark.slow
@pytest.mark.timing
@pytest.mark.parametrize("loss", [
    lambda z: cp.maximum(cp.logistic(-z), cp.logistic(-2 * z) + 0.1),
    lambda z: cp.maximum(cp.logistic(-z), cp.logistic(-z) + 1e-3 * (z - 0.5)),
], ids=["two-logistics", "slopes-differ-by-1e-3"])
def test_kink_in_a_maximum_is_refused(loss):
    cert = dpcvx.verify(loss, time_limit=QUICK)
    assert cert.condition("differentiability").passed is False
    assert cert.method("differentiability") in PROOFS
    assert not cert.allows("output") and not cert.allows("objective")
    if cert.method("differentiability") == "validated":
        assert "kink at z =" in cert.condition("differentiability").detail


def test_validated_kink_location_is_proved():
    expression = sp.Max(Softplus(-Z), Softplus(-Z) + sp.Rational(1, 1000) * (Z - sp.Rational(1, 2)))
    smooth = validated.smoothness(expression, Z)
    assert smooth.c2 is False
    low, high = smooth.kink
    assert low <= 0.5 <= high and high - low < 1e-6
    assert "objective/output perturbation need C^1" in smooth.reason


@pytest.mark.slow
def test_max_of_ordered_pieces_is_proved_to_be_the_larger_piece():
    # softplus(-z) > 0 > e^{-z^2} - 2 everywhere: the max is softplus(-z), smooth, c = 1/4
    facts = dict(validated.validated_facts(sp.Max(Softplus(-Z), sp.exp(-Z**2) - 2), Z))
    assert facts["smoothness"].c2 is True and "on all of R" in facts["smoothness"].reason
    assert 0.25 <= facts["sup2"].upper <= 0.25 * (1 + 2 * validated.RTOL)
    assert facts["inf2"].lower >= 0


def test_max_of_crossing_pieces_without_a_proved_kink_is_not_smooth():
    # the pieces touch tangentially at z = 0 (slopes equal): no kink is proved, and the
    # difference z^3 changes sign, so nothing is claimed either way
    smooth = validated.smoothness(sp.Max(Softplus(-Z), Softplus(-Z) + Z**3), Z)
    assert smooth.c2 is None and "Max" in smooth.reason


# --- atoms that do not translate ---------------------------------------------------------


class opaque_logistic(cvxpy_logistic):
    """An atom the translator does not know: no sympy form, nothing to enclose."""


def opaque_steep(z):
    return opaque_logistic(-z) + W_STEEP * opaque_logistic((z - Z0) / W_STEEP)


def test_untranslatable_loss_is_refused_by_default():
    cert = dpcvx.verify(opaque_steep, time_limit=QUICK)
    assert cert.method("curvature") == "estimate"
    assert not cert.allows("objective") and not cert.allows("output")
    assert "allow_estimates=True" in cert.failures("objective")[0].detail + cert.failures("objective")[0].fix


def test_float_overflow_on_the_grid_is_not_a_violated_domain_constraint():
    """log1p(exp(-z)) is the logistic loss, finite everywhere, but log1p has no translation and the grid's values
    overflow to inf at z = -712: the domain is not established, and the message says it was overflow (it said
    "undefined or infinite ... (domain constraint -1.0 <= exp(-z))", a constraint that always holds) and names a
    catalogue atom. A loss that truly is undefined somewhere still names its violated constraint."""
    domain = dpcvx.verify(lambda z: cp.log1p(cp.exp(-z)), time_limit=QUICK).condition("domain")
    assert domain.passed is None and "exp(-z)" not in domain.detail, domain
    assert "overflows in floating point at |z| = 712" in domain.detail and "log1p" in domain.detail
    assert "cp.logistic" in domain.fix
    domain = dpcvx.verify(lambda z: cp.log1p(z), time_limit=QUICK).condition("domain")
    assert domain.passed is False and "-1.0 <= z" in domain.detail


def test_a_nan_on_the_grid_names_only_the_violated_domain_constraints():
    """Audit: when the grid showed NaN, the domain failure listed every domain constraint of the loss. log1p has no
    translation, so the grid decides. log1p(z) + log1p(exp(-z)) is undefined for z < -1 only: the failure names
    -1.0 <= z (with a point that violates it), not -1.0 <= exp(-z), which always holds. log1p(exp(z)) - log1p(exp(z))
    + logistic(z) violates none of its constraints: its NaN at large z is inf - inf in floating point, so the domain
    is not established (it is not shown to fail either), and the message says so."""
    domain = dpcvx.verify(lambda z: cp.log1p(z) + cp.log1p(cp.exp(-z)), time_limit=QUICK).condition("domain")
    assert domain.passed is False and domain.method == "estimate", domain
    assert "-1.0 <= z violated at z = -1" in domain.detail and "exp(-z)" not in domain.detail, domain.detail
    domain = dpcvx.verify(lambda z: cp.log1p(cp.exp(z)) - cp.log1p(cp.exp(z)) + cp.logistic(z),
                          time_limit=QUICK).condition("domain")
    assert domain.passed is None and "exp(z)" not in domain.detail, domain
    assert "no domain constraint is violated" in domain.detail and "inf - inf" in domain.detail
    assert "log1p" in domain.detail  # why nothing proved it


def test_untranslatable_loss_is_conditional_when_estimates_are_allowed():
    cert = dpcvx.verify(opaque_steep, time_limit=QUICK, allow_estimates=True)
    assert cert.allows("objective") and cert.conditional
    true_c = steep_second(dense(Z0, 0.01)).max()
    # the reason estimates are opt-in: this one is below the truth
    assert float(cert.curvature) < true_c
    guarantee = cert.guarantee("objective")
    assert "CONDITIONAL" in guarantee and "curvature" in guarantee
    data = json.loads(json.dumps(cert.to_dict()))
    assert data["conditional"] is True and "curvature" in data["estimated"]
    assert "CONDITIONAL" in str(cert)


# --- the existing losses keep their exact constants --------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("loss, L, c", [
    (losses.logistic(), 1, sp.Rational(1, 4)),
    (losses.huber_hinge(0.5), 1, 1),
    (losses.huber_hinge(0.25), 1, 2),
    (lambda z: cp.norm(cp.hstack([1, z])), 1, 1),  # pseudo-Huber
    (lambda z: 2 * cp.logistic(-z / 2), 1, sp.Rational(1, 8)),
], ids=["logistic", "huber_hinge-0.5", "huber_hinge-0.25", "pseudo-huber", "2-logistic-half"])
def test_catalogue_constants_stay_exact_and_symbolic(loss, L, c):
    cert = dpcvx.verify(loss)
    assert cert.lipschitz == L and cert.curvature == c
    assert isinstance(cert.curvature, Fraction)  # exact
    for name in ("lipschitz", "curvature", "differentiability", "twice_differentiability", "domain"):
        assert cert.method(name) == "symbolic"
    assert cert.allows("objective") and not cert.conditional


# --- the validated bounds on their own ----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_validated_bounds_of_random_logistic_mixtures(seed):
    rng = np.random.default_rng(seed)
    weights = rng.uniform(0.2, 2.0, size=3)
    slopes = rng.uniform(0.3, 4.0, size=3) * rng.choice([-1, 1], size=3)
    shifts = rng.uniform(-3, 3, size=3)
    expression = sum(sp.Rational(float(a)) * Softplus(sp.Rational(float(b)) * Z + sp.Rational(float(s)))
                     for a, b, s in zip(weights, slopes, shifts, strict=True))
    t = np.linspace(-40, 40, 800_001)
    args = np.outer(slopes, t) + shifts[:, None]
    first = (weights[:, None] * slopes[:, None] * sigmoid(args)).sum(axis=0)
    second = (weights[:, None] * slopes[:, None] ** 2 * sigmoid_slope(args)).sum(axis=0)
    true_first = max(abs(first).max(), abs((weights * np.clip(slopes, 0, None)).sum()),
                     abs((weights * np.clip(slopes, None, 0)).sum()))
    for order, true in ((1, true_first), (2, np.abs(second).max())):
        bound = validated.sup_abs(validated.Enclosure(sp.diff(expression, Z, order), Z))
        assert true * (1 - 1e-12) <= bound.upper <= (1 + 2 * validated.RTOL) * true + 1e-9
    assert validated.infimum(validated.Enclosure(sp.diff(expression, Z, 2), Z)).lower >= 0


def test_validated_bound_of_pseudo_huber_needs_the_tail_substitution():
    expression = sp.sqrt(1 + Z**2)
    first = validated.sup_abs(validated.Enclosure(sp.diff(expression, Z), Z))
    assert first.converged and 1 <= first.upper <= 1 + 2 * validated.RTOL


def test_validated_bound_refuses_unbounded_and_unknown():
    unbounded = validated.sup_abs(validated.Enclosure(sp.diff(Z**2 + Softplus(Z), Z), Z))
    assert math.isinf(unbounded.upper) and unbounded.lower > 1e30
    with pytest.raises(validated.NotEnclosable):
        validated.Enclosure(sp.erf(Z), Z)
    facts = dict(validated.validated_facts(sp.erf(Z) + Z, Z))
    assert facts["smoothness"].c2 is None
    assert isinstance(facts["sup2"], str)


def test_validated_nonconvexity_has_a_witness():
    expression = Softplus(-Z) + sp.Rational(1, 10) * sp.sin(Z)
    result = validated.infimum(validated.Enclosure(sp.diff(expression, Z, 2), Z))
    assert result.witness is not None
    w = result.witness
    assert sigmoid_slope(-w) - 0.1 * np.sin(w) < 0


def test_validated_bounds_round_outward():
    # 1/3 is not a double: the enclosure of the constant must contain it on both sides
    enclosure = validated.Enclosure(Z / 3, Z, simplify=False).at(1.0)
    lo, hi = interval.inf_of(enclosure), interval.sup_of(enclosure)
    assert lo < hi and sp.Rational(lo) < sp.Rational(1, 3) < sp.Rational(hi)


@pytest.mark.slow
def test_a_bound_cut_short_by_the_clock_is_still_an_upper_bound():
    expression = Softplus(-Z) + sp.Rational(1, 1000) * Softplus(1000 * (Z - sp.Rational(3137, 10000)))
    enclosure = validated.Enclosure(sp.diff(expression, Z, 2), Z)
    cut = validated.sup_abs(enclosure, deadline=time.monotonic())  # already expired: no bisection
    full = validated.sup_abs(enclosure)
    true_c = steep_second(dense(Z0, 0.01)).max()
    assert not cut.converged and validated.TIME_LIMIT_REASON in cut.reason
    assert cut.upper >= full.upper >= true_c
