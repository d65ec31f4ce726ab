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
    INT64_BOUND,
    BatchSource,
    GeneratorSource,
    IntegerSource,
    SystemSource,
    _floor_ratio,
    _RawPCG64Source,
    _scalar_source,
    bernoulli,
    bernoulli_exp,
    discrete_gaussian,
    discrete_gaussian_array,
    discrete_gaussian_pmf,
    discrete_laplace,
    discrete_laplace_array,
    discrete_laplace_pmf,
    integer_source,
    uniform_below,
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


class SeededBatchSource:
    """A seeded :class:`BatchSource` for tests: ``below_array`` is :func:`uniform_below` (SystemSource's rejection)
    on a seeded generator's bytes; it counts the uniform values of its arrays (none for k = 1) and its scalar draws."""

    reproducible = True

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.values = self.scalars = 0

    def below(self, k: int) -> int:
        self.scalars += 1
        return GeneratorSource(self.rng).below(k)

    def below_array(self, k: int, size: int) -> np.ndarray:
        self.values += size if k > 1 else 0
        return uniform_below(k, size, self.rng.bytes)


def assert_law_and_wrong_scale_rejected(array_sampler, pmf, parameter, factor: Fraction, seed: int,
                                        source=seeded) -> None:
    """The sampler's draws pass the chi-square test against pmf(parameter); a sampler run at
    ``factor`` times the parameter fails the same test."""
    value = float(parameter)
    assert chi_square_pvalue(array_sampler(parameter, DRAWS, source(seed)), lambda z: pmf(z, value)) > 1e-3
    wrong = array_sampler(Fraction(parameter) * factor, DRAWS, source(seed))
    assert chi_square_pvalue(wrong, lambda z: pmf(z, value)) < 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("scale", [Fraction(1), Fraction(7, 3), 0.4])
def test_discrete_laplace_matches_its_pmf_and_the_test_rejects_broken_samplers(scale):
    assert_law_and_wrong_scale_rejected(discrete_laplace_array, discrete_laplace_pmf, scale, Fraction(5, 4), 11)
    t = float(scale)
    if t > 1:
        return
    # the float Laplace of numpy rounded to the integers is not the discrete Laplace (visible at t <= 1)
    rounded = np.round(np.random.default_rng(11).laplace(0.0, t, DRAWS)).astype(np.int64)
    assert chi_square_pvalue(rounded, lambda z: discrete_laplace_pmf(z, t)) < 1e-6


@pytest.mark.slow
@pytest.mark.parametrize("sigma2", [Fraction(5, 2), 16])
@pytest.mark.parametrize("source", [seeded, SeededBatchSource], ids=["scalar", "lockstep candidates"])
def test_discrete_gaussian_matches_its_pmf_and_the_test_rejects_a_wrong_scale(sigma2, source):
    assert_law_and_wrong_scale_rejected(discrete_gaussian_array, discrete_gaussian_pmf, sigma2, Fraction(3, 2), 12,
                                        source=source)


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


# the lockstep discrete Laplace (a BatchSource: SystemSource by default) and its uniform integers

@pytest.mark.parametrize("k", [2, 3, 7, 200])
def test_uniform_below_is_uniform_and_a_modulus_would_be_caught(k):
    rng = np.random.default_rng(16)
    values = uniform_below(k, 50 * k + 20_000, rng.bytes)
    assert values.dtype == np.int64 and values.min() >= 0 and values.max() < k
    assert stats.chisquare(np.bincount(values, minlength=k)).pvalue > 1e-3
    if k in (3, 200):  # the masked word reduced modulo k, not rejected, favours the low residues: the test fails
        biased = (np.frombuffer(rng.bytes(values.size), dtype=np.uint8) & ((1 << (k - 1).bit_length()) - 1)) % k
        assert stats.chisquare(np.bincount(biased, minlength=k)).pvalue < 1e-6


def test_uniform_below_rejects_fewer_than_half_its_words_and_checks_its_bound():
    used = []

    def counted(m: int) -> bytes:
        used.append(m)
        return np.random.default_rng(17).bytes(m)

    k = 2**40 + 1  # the worst case: k / 2^41 just above 1/2 (41-bit values in 64-bit words)
    values = uniform_below(k, 20_000, counted)
    assert values.max() < k and stats.chisquare(np.bincount(values * 4 // k, minlength=4)).pvalue > 1e-3
    assert sum(used) / 8 < 2.3 * values.size  # the expected count is 2 (1 - 2^-41)^-1 words per value, and a margin
    used.clear()
    assert not uniform_below(1, 10, counted).any() and not used  # k = 1: no draw
    top = uniform_below(INT64_BOUND, 1000, np.random.default_rng(18).bytes)
    assert top.min() >= 0 and top.max() >= 2**62  # the whole int64 range
    for bad in (0, INT64_BOUND + 1):
        with pytest.raises(InputError):
            uniform_below(bad, 1, counted)


@pytest.mark.parametrize("scale, wrong", [(Fraction(1), Fraction(11, 10)), (Fraction(7, 3), Fraction(11, 10)),
                                          (0.4, Fraction(11, 10)), (Fraction(40) / Fraction(0.3), Fraction(5, 4))])
def test_lockstep_discrete_laplace_matches_its_pmf_and_the_test_rejects_a_wrong_scale(scale, wrong):
    # 40 / 0.3 is a default histogram's scale (2 k / eps_s, k = 20): a 61-bit numerator, so Y in Python ints; its
    # ~1,000 bins need 25 % (not 10 %) off to fail at 10,000 draws (p = 0.1 at 10 %, 2e-28 at 25 %)
    assert_law_and_wrong_scale_rejected(discrete_laplace_array, discrete_laplace_pmf, scale, wrong, 19,
                                        source=SeededBatchSource)


def test_the_array_sampler_takes_the_lockstep_path_on_batch_sources_only():
    assert isinstance(SystemSource(), BatchSource) and not isinstance(seeded(0), BatchSource)
    scale = Fraction(1000, 3)
    draws = discrete_laplace_array(scale, 300, seeded(20))  # a seeded generator: the scalar sampler's draws
    scalar = seeded(20)
    np.testing.assert_array_equal(draws, [discrete_laplace(scale, scalar) for _ in range(300)])
    lockstep, wide = SeededBatchSource(21), SeededBatchSource(21)
    assert discrete_laplace_array(scale, 100, lockstep).shape == (100,) and lockstep.values and not lockstep.scalars
    discrete_laplace_array(Fraction(INT64_BOUND, 3), 1, wide)  # a numerator of 2^63: the scalar sampler
    assert wide.scalars and not wide.values
    assert discrete_laplace_array(scale, 0, SeededBatchSource(21)).shape == (0,)


def test_floor_ratio_is_exact_in_int64_past_the_naive_overflow_and_else_in_python_ints():
    num, den = 3 * 2**60 + 1, 2**52 + 7
    u = np.array([0, num - 1, 12345], dtype=np.int64)

    def exact(v: np.ndarray) -> list[int]:
        return [(int(a) + num * int(b)) // den for a, b in zip(u, v, strict=True)]

    v = np.array([0, 5, 3], dtype=np.int64)  # num v up to 2^63.9: u + num v itself would overflow int64
    low = _floor_ratio(u, v, num, den)
    assert low.dtype == np.int64 and low.tolist() == exact(v)
    v = np.array([0, 5, 2**40], dtype=np.int64)  # den (2^40 + 1) > 2^63: Python ints
    high = _floor_ratio(u, v, num, den)
    assert high.dtype == object and high.tolist() == exact(v)
    wide = _floor_ratio(u[:1], v[:1], 3, INT64_BOUND)  # a denominator past int64
    assert wide.dtype == object and wide.tolist() == [0]
    assert _floor_ratio(u[:0], v[:0], num, den).shape == (0,)


@pytest.mark.parametrize("scale", [Fraction(1, 4), Fraction(3), Fraction(40) / Fraction(0.3)])
def test_lockstep_mean_draws_per_sample(scale):
    # measured 7.5 to 10.8 uniform values per sample (the scalar sampler: 9.6 to 14.5, exact_samplers.md);
    # the module docstring's bound is 3 e (2 / (1 - e^-1)) ATTEMPTS < 52
    source = SeededBatchSource(22)
    discrete_laplace_array(scale, 20_000, source)
    assert source.values / 20_000 < 12


#: Bounds on every path of numpy's bounded integers: no draw (1), Lemire on 32-bit words, the 32-bit word itself
#: (2^32), Lemire on 64-bit words, up to 2^63; and GeneratorSource's 62-bit words above it.
RAW_BOUNDS = [1, 2, 3, 7, 30, 1000, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**33 + 5, 2**62 + 3, 2**63 - 1,
              2**63, 3 * 10**17, 2**64 + 13, 2**100 + 1]


def test_a_seeded_pcg64s_integers_from_its_raw_words_are_numpys_and_its_stream_goes_on_alike():
    rng = np.random.default_rng(11)
    bounds = [RAW_BOUNDS[i] for i in rng.integers(0, len(RAW_BOUNDS), 20_000)]
    bounds += [int(k) for k in rng.integers(1, 2**40, 2_000)]
    numpy_rng, raw_rng = np.random.default_rng(5), np.random.default_rng(5)
    numpy_rng.integers(0, 10)
    raw_rng.integers(0, 10)  # a 32-bit half kept in the state before the loop
    with _scalar_source(GeneratorSource(raw_rng)) as raw_source:
        assert isinstance(raw_source, _RawPCG64Source)
        drawn = [raw_source.below(k) for k in bounds]
    numpy_source = GeneratorSource(numpy_rng)
    assert drawn == [numpy_source.below(k) for k in bounds]
    assert raw_rng.bit_generator.state == numpy_rng.bit_generator.state
    np.testing.assert_array_equal(raw_rng.integers(0, 100, 9), numpy_rng.integers(0, 100, 9))
    assert raw_rng.normal() == numpy_rng.normal()


@pytest.mark.parametrize("array", ["laplace", "gaussian"])
def test_seeded_array_draws_are_the_scalar_samplers_on_numpys_integers(array):
    # the array samplers' seeded path: the draws of a loop of scalar samples on Generator.integers, and the same state
    numpy_rng, raw_rng = np.random.default_rng(8), np.random.default_rng(8)
    if array == "laplace":
        expected = [discrete_laplace(Fraction(61, 2), GeneratorSource(numpy_rng)) for _ in range(400)]
        drawn = discrete_laplace_array(Fraction(61, 2), 400, GeneratorSource(raw_rng))
    else:
        expected = [discrete_gaussian(Fraction(900), GeneratorSource(numpy_rng)) for _ in range(400)]
        drawn = discrete_gaussian_array(Fraction(900), 400, GeneratorSource(raw_rng))
    np.testing.assert_array_equal(drawn, expected)
    assert raw_rng.bit_generator.state == numpy_rng.bit_generator.state
