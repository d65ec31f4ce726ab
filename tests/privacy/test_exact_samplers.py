"""The exact samplers (dpcvx.privacy.exact_sampling) draw their stated laws.

Every statistical test is seeded and states its tolerance: a chi-square goodness-of-fit p-value
above 1e-3 for the sampler, and the SAME test function must reject a deliberately broken sampler
(wrong scale, or numpy's float Laplace rounded to the integers) at p < 1e-6.
10,000 draws per sampler.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpcvx.exceptions import InputError
from dpcvx.privacy.exact_sampling import (
    GeneratorSource,
    IntegerSource,
    SystemSource,
    bernoulli,
    bernoulli_exp,
    discrete_gaussian,
    discrete_gaussian_array,
    discrete_gaussian_pmf,
    discrete_laplace,
    discrete_laplace_array,
    discrete_laplace_pmf,
    integer_source,
)

DRAWS = 10_000


def chi_square_pvalue(draws: np.ndarray, pmf: Callable[[np.ndarray], np.ndarray]) -> float:
    """p-value of the integer ``draws`` against ``pmf``: one bin per value with expected count >= 5,
    the two tails pooled into one bin each."""
    support = np.arange(-2000, 2001)
    expected = pmf(support) * draws.size
    keep = expected >= 5
    low, high = support[keep].min(), support[keep].max()
    inner = np.arange(low, high + 1)
    observed = [np.count_nonzero(draws < low)] + [np.count_nonzero(draws == z) for z in inner] + \
        [np.count_nonzero(draws > high)]
    expect = [expected[support < low].sum()] + list(pmf(inner) * draws.size) + [expected[support > high].sum()]
    observed_arr, expect_arr = np.array(observed, dtype=float), np.array(expect)
    expect_arr *= observed_arr.sum() / expect_arr.sum()  # the pmf's mass beyond +-2000 is < 1e-100 here
    return float(stats.chisquare(observed_arr, expect_arr).pvalue)


def seeded(seed: int) -> IntegerSource:
    return GeneratorSource(np.random.default_rng(seed))


def assert_law_and_wrong_scale_rejected(array_sampler, pmf, parameter, factor: Fraction, seed: int) -> None:
    """The sampler's draws pass the chi-square test against pmf(parameter); a sampler run at
    ``factor`` times the parameter fails the same test."""
    value = float(parameter)
    assert chi_square_pvalue(array_sampler(parameter, DRAWS, seeded(seed)), lambda z: pmf(z, value)) > 1e-3
    wrong = array_sampler(Fraction(parameter) * factor, DRAWS, seeded(seed))
    assert chi_square_pvalue(wrong, lambda z: pmf(z, value)) < 1e-6


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(7, 3), 0.4])
def test_discrete_laplace_matches_its_pmf_and_the_test_rejects_broken_samplers(scale):
    assert_law_and_wrong_scale_rejected(discrete_laplace_array, discrete_laplace_pmf, scale, Fraction(5, 4), 11)
    t = float(scale)
    if t > 1:
        return
    # the float Laplace of numpy rounded to the integers is not the discrete Laplace (visible at t <= 1)
    rounded = np.round(np.random.default_rng(11).laplace(0.0, t, DRAWS)).astype(np.int64)
    assert chi_square_pvalue(rounded, lambda z: discrete_laplace_pmf(z, t)) < 1e-6


@pytest.mark.parametrize("sigma2", [Fraction(5, 2), 16])
def test_discrete_gaussian_matches_its_pmf_and_the_test_rejects_a_wrong_scale(sigma2):
    assert_law_and_wrong_scale_rejected(discrete_gaussian_array, discrete_gaussian_pmf, sigma2, Fraction(3, 2), 12)


@pytest.mark.parametrize("x", [Fraction(0), Fraction(3, 10), Fraction(1), Fraction(27, 10)])
def test_bernoulli_exp_has_probability_exp_minus_x(x):
    source = seeded(13)
    hits = sum(bernoulli_exp(x, source) for _ in range(DRAWS))
    p = math.exp(-float(x))
    assert stats.binomtest(hits, DRAWS, p).pvalue > 1e-3
    if x > 0:  # Bernoulli(exp(-x/2)) (a halved exponent) is rejected by the same test
        broken = sum(bernoulli_exp(x / 2, source) for _ in range(DRAWS))
        assert stats.binomtest(broken, DRAWS, p).pvalue < 1e-6


def test_bernoulli_of_a_rational_and_bad_parameters():
    source = seeded(14)
    hits = sum(bernoulli(Fraction(2, 7), source) for _ in range(DRAWS))
    assert stats.binomtest(hits, DRAWS, 2 / 7).pvalue > 1e-3
    assert not any(bernoulli(0, source) for _ in range(100)) and all(bernoulli(1, source) for _ in range(100))
    for bad in (Fraction(3, 2), -0.1, math.nan, True, "0.5"):
        with pytest.raises(InputError):
            bernoulli(bad, source)
    with pytest.raises(InputError):
        discrete_laplace(0, source)
    with pytest.raises(InputError):
        discrete_gaussian(-1, source)


def test_a_seed_reproduces_the_draws_and_the_os_default_does_not():
    first = discrete_laplace_array(Fraction(1000, 3), 50, integer_source(5))
    again = discrete_laplace_array(Fraction(1000, 3), 50, integer_source(5))
    np.testing.assert_array_equal(first, again)
    assert integer_source(5).reproducible and not integer_source(None).reproducible
    assert isinstance(integer_source(None), SystemSource)
    os_draws = [discrete_laplace_array(Fraction(1000, 3), 50, integer_source(None)) for _ in range(2)]
    assert not np.array_equal(*os_draws)  # equal with probability < 1e-100


def test_generator_source_is_uniform_beyond_64_bits():
    source = seeded(15)
    k = 3 * 2**70
    tops = np.array([source.below(k) * 3 // k for _ in range(6000)])  # which third of [0, k)
    assert stats.chisquare(np.bincount(tops, minlength=3)).pvalue > 1e-3
    assert all(0 <= source.below(k) < k for _ in range(200))
