"""Calibration of Algorithms 1 and 2: hand-computed values, paper reduction, both splits."""

import math

import pytest

from dpcvx import InputError
from dpcvx.privacy.calibrate import objective_perturbation, output_perturbation
from dpcvx.rounding import round_up

REL = 1e-9  # calibration moves values by a relative 1e-12 in the safe direction


def test_objective_smooth_branch_by_hand():
    # n = 100, Lam = 0.01, c = 1/4, eps = 1: a = c / (n Lam) = 0.25,
    # eps' = 1 - log(1 + 0.5 + 0.0625) = 1 - 2 log 1.25 = 0.553712897...
    cal = objective_perturbation(100, 0.01, 1.0, 0.25)
    assert cal.extra_reg == 0
    assert cal.epsilon_prime == pytest.approx(0.5537128973500137, rel=REL)
    assert cal.beta == pytest.approx(0.5537128973500137 / 2, rel=REL)


def test_objective_extra_regularization_branch_by_hand():
    # n = 100, Lam = 1e-3, c = 1/4, eps = 0.1: a = 2.5, eps - 2 log 3.5 < 0, so
    # Delta = c / (n (e^{eps/4} - 1)) - Lam = 0.25 / (100 * 0.0253151205...) - 0.001,
    # eps' = eps / 2 = 0.05 and beta = eps' / 2.
    cal = objective_perturbation(100, 1e-3, 0.1, 0.25)
    assert cal.epsilon_prime == 0.05
    assert cal.extra_reg == pytest.approx(0.25 / (100 * 0.025315120524428837) - 0.001, rel=REL)
    assert cal.extra_reg == pytest.approx(0.0977553, rel=1e-6)
    assert cal.beta == pytest.approx(0.025, rel=REL)


def test_output_by_hand():
    # beta = n m Lam eps / (2 L R) = 1000 * 0.01 * 0.1 / 2 = 0.5; sensitivity 2 / (n Lam) = 0.2
    cal = output_perturbation(1000, 0.01, 0.1)
    assert cal.beta == pytest.approx(0.5, rel=REL)
    assert cal.sensitivity == pytest.approx(0.2, rel=REL)


GRID = [(n, lam, eps, c) for n in (50, 1000, 45000) for lam in (1e-5, 1e-3, 1e-1)
        for eps in (0.01, 0.1, 1.0, 5.0) for c in (0.25, 1.0, 5.0)]


def paper(n, lam, eps, c):
    """JMLR 2011 Algorithm 2 with R = L = m = 1, written as in the paper."""
    eps_p = eps - math.log(1 + 2 * c / (n * lam) + c**2 / (n * lam) ** 2)
    delta = 0.0
    if eps_p <= 0:
        delta = c / (n * (math.exp(eps / 4) - 1)) - lam
        eps_p = eps / 2
    return eps_p, delta, eps_p / 2


@pytest.mark.parametrize("n, lam, eps, c", GRID)
def test_general_form_reduces_to_paper(n, lam, eps, c):
    cal = objective_perturbation(n, lam, eps, c)  # R = L = m = 1 by default
    eps_p, delta, beta = paper(n, lam, eps, c)
    assert cal.epsilon_prime == pytest.approx(eps_p, rel=REL, abs=1e-15)
    assert cal.extra_reg == pytest.approx(delta, rel=REL, abs=1e-15)
    assert cal.beta == pytest.approx(beta, rel=REL, abs=1e-15)
    assert output_perturbation(n, lam, eps).beta == pytest.approx(n * lam * eps / 2, rel=REL)


@pytest.mark.parametrize("n, lam, eps, c", GRID)
@pytest.mark.parametrize("L, R, m", [(1, 1, 1), (2.0, 0.5, 1.0), (1.0, 3.0, 0.25), (0.5, 1.4142, 2.0)])
def test_general_constants(n, lam, eps, c, L, R, m):
    for split in ("paper", "max", "rank-one"):
        cal = objective_perturbation(n, lam, eps, c, L=L, R=R, m=m, split=split)
        # the Jacobian ratio bound of the proof holds for the chosen split
        assert cal.jacobian_ratio <= math.exp(eps - cal.epsilon_prime)
        assert 0 < cal.epsilon_prime <= eps and cal.extra_reg >= 0
        assert cal.beta <= cal.epsilon_prime / (2 * L * R)
        # R, m enter only through c R^2 / m and Lam m: the paper formula with c' = c R^2 / m
        ref = objective_perturbation(n, lam, eps, c * R**2 / m, split=split)
        assert cal.epsilon_prime == pytest.approx(ref.epsilon_prime, rel=REL, abs=1e-15)
        assert cal.extra_reg == pytest.approx(ref.extra_reg * m, rel=1e-8, abs=1e-15)
    out = output_perturbation(n, lam, eps, L=L, R=R, m=m)
    assert out.beta == pytest.approx(n * m * lam * eps / (2 * L * R), rel=REL)


def test_rank_one_split_by_hand():
    # a = 0.25: eps' = 0.6 - log 1.25 = 0.376856... (Delta = 0), one Jacobian factor
    cal = objective_perturbation(1000, 1e-3, 0.6, 0.25, split="rank-one")
    assert cal.extra_reg == 0 and cal.jacobian_exponent == 1
    assert cal.epsilon_prime == pytest.approx(0.6 - math.log(1.25), rel=REL)
    # a = 2.5, eps = 0.1: eps' = eps / 2, Delta = c / (n (e^{eps/2} - 1)) - Lam
    cal = objective_perturbation(100, 1e-3, 0.1, 0.25, split="rank-one")
    assert cal.epsilon_prime == 0.05
    assert cal.extra_reg == pytest.approx(0.25 / (100 * math.expm1(0.05)) - 1e-3, rel=REL)


@pytest.mark.parametrize("n, lam, eps, c", GRID)
def test_rank_one_split_dominates_and_meets_its_bound(n, lam, eps, c):
    ours = objective_perturbation(n, lam, eps, c, split="rank-one")
    assert ours.jacobian_ratio <= math.exp(eps - ours.epsilon_prime)
    best_jmlr = objective_perturbation(n, lam, eps, c, split="max")
    assert ours.epsilon_prime >= best_jmlr.epsilon_prime
    if ours.epsilon_prime == best_jmlr.epsilon_prime:  # both at eps / 2: less extra regularization
        assert ours.extra_reg <= best_jmlr.extra_reg


@pytest.mark.parametrize("n, lam, eps, c", GRID)
def test_max_split_is_never_worse(n, lam, eps, c):
    ours = objective_perturbation(n, lam, eps, c, split="max")
    theirs = objective_perturbation(n, lam, eps, c, split="paper")
    assert ours.epsilon_prime >= theirs.epsilon_prime
    assert ours.epsilon_prime >= eps / 2 * (1 - 1e-12)


def test_splits_differ_where_paper_keeps_a_small_budget():
    # a = 0.25: eps - 2 log 1.25 = 0.6 - 0.446 = 0.154 in (0, eps/2): paper keeps it,
    # max trades it for eps/2 = 0.3 with Delta = c / (n (e^{0.15} - 1)) - Lam.
    paper_split = objective_perturbation(1000, 1e-3, 0.6, 0.25, split="paper")
    max_split = objective_perturbation(1000, 1e-3, 0.6, 0.25, split="max")
    assert paper_split.extra_reg == 0
    assert paper_split.epsilon_prime == pytest.approx(0.6 - 2 * math.log(1.25), rel=REL)
    assert max_split.epsilon_prime == 0.3
    assert max_split.extra_reg == pytest.approx(0.25 / (1000 * math.expm1(0.15)) - 1e-3, rel=REL)


@pytest.mark.parametrize("bad", [
    dict(n=0), dict(n=2.5), dict(lam=0), dict(lam=-1), dict(epsilon=0), dict(epsilon=-0.1),
    dict(epsilon=math.inf), dict(epsilon=math.nan), dict(c=-1), dict(L=0), dict(R=0), dict(m=-1),
    dict(m=0, c=0), dict(split="half"), dict(epsilon=True),
])
def test_bad_arguments_raise_input_error(bad):
    args = dict(n=100, lam=0.01, epsilon=0.1, c=0.25) | bad
    with pytest.raises(InputError):
        objective_perturbation(**args)


def test_m_zero_takes_the_strong_convexity_from_delta():
    # KST12 (docs/theory.md, section 14): a convex-only regularizer, so Delta carries it all;
    # output perturbation has no such term and still needs m > 0
    calibration = objective_perturbation(100, 0.01, 0.1, 0.25, m=0)
    assert calibration.epsilon_prime == pytest.approx(0.05)
    assert calibration.extra_reg == pytest.approx(0.25 / (100 * math.expm1(0.1 / 4)), rel=REL)
    with pytest.raises(InputError):
        output_perturbation(100, 0.01, 0.1, m=0)


def test_one_rounding_policy():
    """Calibration, composition and the exact->double conversion all round by dpcvx.rounding."""
    import sympy as sp

    from dpcvx import rounding
    from dpcvx.privacy.composition import round_epsilon
    from dpcvx.verification.exact import float_down, float_up, product_down

    assert round_epsilon(1.0, 0.0, 4) == rounding.round_down(0.25) < 0.25
    cal = output_perturbation(100, 0.1, 1.0, tol=1e-10)
    assert cal.beta == rounding.round_down(cal.epsilon / cal.sensitivity)
    assert rounding.round_up(-1.0) > -1.0 and rounding.round_down(-1.0) < -1.0
    third = sp.Rational(1, 3)
    assert float_down(third) == rounding.next_down(1 / 3) or float_down(third) == 1 / 3 < third
    assert sp.Rational(float_down(third)) <= third <= sp.Rational(float_up(third))
    assert float_up(third) - float_down(third) == math.ulp(1 / 3)
    assert sp.Rational(product_down(third, 3.0)) <= 1
    assert sp.Rational(rounding.sum_down([0.1, 0.2])) <= sp.Rational(0.1) + sp.Rational(0.2)
    assert rounding.sum_down([1.0, -1.0]) == 0.0 and rounding.bound_up(0.0) > 0


@pytest.mark.parametrize(("epsilon", "n", "lam"), [
    (0.03401591650503123, 10947, 0.0013313561350330567),  # eps - 2 log(1 + a) = 1.6e-11, from a calibration audit
    (0.012181600357313584, 315, 0.12990678399011094),
])
def test_the_papers_split_meets_its_inequality_in_exact_arithmetic(epsilon: float, n: int, lam: float) -> None:
    # (*) eps' + 2 log(1 + a) <= eps where eps' is a tiny difference: the relative 1e-12 of round_down could not
    # absorb log1p's absolute rounding (before, the exact left side exceeded eps by about 1e-17)
    import mpmath as mp

    cal = objective_perturbation(n, lam, epsilon, 0.25, split="paper")
    assert cal.extra_reg == 0 and cal.epsilon_prime > 0
    with mp.workdps(60):
        spent = mp.mpf(cal.epsilon_prime) + 2 * mp.log1p(mp.mpf(0.25) / (n * mp.mpf(lam)))
        assert spent <= epsilon


def _near_switch() -> list[tuple[str, float, int, float]]:
    """The probeB audit's worst case and 60 seeded Lams within 1e-12 of where Delta switches on (c R^2 / (n growth)
    = m Lam), split "max" and "rank-one"."""
    import random

    rng = random.Random(3)
    cases = [("max", 0.004051893948717101, 71197, 0.003464657053613643)]
    for split in ("max", "rank-one"):
        k = 1 if split == "rank-one" else 2
        for _ in range(30):
            eps, n = 10 ** rng.uniform(-3, 1), rng.randint(1, 10**6)
            cases.append((split, eps, n, 0.25 / (n * math.expm1(eps / (2 * k)) * (1 + rng.uniform(-1e-12, 1e-12)))))
    return cases


def test_delta_near_its_switch_point_meets_the_jacobian_bound_in_exact_arithmetic() -> None:
    # eps' + k log(1 + c R^2 / (n (m Lam + Delta))) <= eps with eps' = eps / 2 exactly (tol None): Delta =
    # round_up(fl(c R^2 / (n growth)) - m Lam) is a difference far below its terms there, whose absolute error of a
    # few ulps of m Lam the relative 1e-12 of round_up missed (the exact left side was up to 1.3e-16 relative above)
    import mpmath as mp

    with mp.workdps(60):
        worst = -math.inf
        for split, eps, n, lam in _near_switch():
            cal = objective_perturbation(n, lam, eps, 0.25, split=split)
            k = 1 if split == "rank-one" else 2
            jacobian = k * mp.log1p(mp.mpf(0.25) / (n * (mp.mpf(lam) + mp.mpf(cal.extra_reg))))
            worst = max(worst, (mp.mpf(cal.epsilon_prime) + jacobian - eps) / eps)
        assert worst <= 0


def test_with_a_tol_delta_near_its_switch_point_is_the_rounded_difference() -> None:
    # a public tol leaves the 1e-12 slack of epsilon = round_down(total - eps_2) to absorb those ulps: that
    # release keeps Delta = round_up(max(c R^2 / (n growth) - m Lam, 0)), and the exact total stays below eps
    import mpmath as mp

    for split, eps, n, lam in _near_switch()[:11]:
        cal = objective_perturbation(n, lam, eps, 0.25, split=split, tol=1e-10)
        k = 1 if split == "rank-one" else 2
        growth = math.expm1(cal.epsilon_prime * 2 / (2 * k))
        assert cal.extra_reg == round_up(max(0.25 / (n * growth) - lam, 0.0))
        with mp.workdps(60):
            jacobian = k * mp.log1p(mp.mpf(0.25) / (n * (mp.mpf(lam) + mp.mpf(cal.extra_reg))))
            assert mp.mpf(cal.amp_epsilon) + mp.mpf(cal.epsilon_prime) + jacobian <= eps


@pytest.mark.parametrize(("calibrate", "kwargs"), [
    (output_perturbation, {"n": 1, "lam": 1e-300, "epsilon": 1e-9, "L": 1, "R": 1e3}),  # beta = 5e-313
    (output_perturbation, {"n": 1, "lam": 1e-300, "epsilon": 1e-12, "L": 1e3, "R": 1e3}),
    (output_perturbation, {"n": 1, "lam": 1e-150, "epsilon": 1e-12, "L": 1e-160, "R": 1e-160}),  # L R = 1e-320
    (objective_perturbation, {"n": 1, "lam": 1e-300, "epsilon": 1.0, "c": 0.25, "m": 1e-10}),  # m lam = 1e-310
    (objective_perturbation, {"n": 1, "lam": 1.0, "epsilon": 1.0, "c": 1e-300, "R": 1e-5}),  # c R^2 = 1e-310
])
def test_a_subnormal_beta_or_product_is_refused_at_calibration(calibrate, kwargs) -> None:
    # below 2.2e-308 a double's relative error is far above the 1e-12 of the rounding policy: output perturbation
    # gave beta = 5e-313 at 1.0000000000034 times eps / sensitivity (noise smaller than the proof needs), and the
    # sampler refused it only after a charge; refused now before any charge
    with pytest.raises(InputError, match="smallest normal double"):
        calibrate(**kwargs)
    assert objective_perturbation(1, 1.0, 1.0, 0.0, m=1.0).extra_reg == 0  # c = 0 and m = 0 stay allowed
    assert objective_perturbation(1, 1.0, 1.0, 0.25, m=0.0).extra_reg > 0


def test_the_gaussian_output_sensitivity_refuses_a_subnormal_product() -> None:
    # 2 L R = 2e-320 is a subnormal: the sensitivity 2 L R / (n m lam) it gave had a relative error near 1e-4,
    # rounded up by only 1e-12 (one formula, minimiser_sensitivity, for every calibration that states it)
    from dpcvx.privacy.calibrate_gaussian import gaussian_output_perturbation

    with pytest.raises(InputError, match="smallest normal double"):
        assert gaussian_output_perturbation(1, 1e-150, 1e-3, 1e-6, L=1e-160, R=1e-160, m=1.0, tol=1e-10, dim=1).sigma
