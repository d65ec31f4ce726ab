"""The noise of Algorithms 1 and 2: ||b|| ~ Gamma(d, 1/beta), b/||b|| uniform on the sphere.

Seeded Kolmogorov-Smirnov tests at level 1e-3; each is paired with a broken
sampler that the same test rejects, to show it has power.
"""

import numpy as np
import pytest
from scipy import stats

from dpcvx import InputError
from dpcvx.privacy.noise import round_to_grid, sample_gaussian, sample_l2_laplace, sample_laplace
from dpcvx.privacy.rng import resolve_rng

DRAWS = 4000


def draws(d, beta, seed, sampler=sample_l2_laplace):
    rng = np.random.default_rng(seed)
    return np.array([sampler(d, beta, rng) for _ in range(DRAWS)])


@pytest.mark.parametrize("d, beta", [(1, 2.0), (5, 0.3), (40, 10.0)])
def test_norm_is_gamma(d, beta):
    b = draws(d, beta, seed=d)
    assert stats.kstest(np.linalg.norm(b, axis=1), stats.gamma(d, scale=1 / beta).cdf).pvalue > 1e-3
    # power: a 10% error in the scale is rejected
    assert stats.kstest(np.linalg.norm(b, axis=1), stats.gamma(d, scale=1.1 / beta).cdf).pvalue < 1e-3


@pytest.mark.parametrize("d", [2, 3, 7])
def test_direction_is_uniform(d):
    u = draws(d, 1.0, seed=100 + d)
    u /= np.linalg.norm(u, axis=1)[:, None]
    # each coordinate of a uniform unit vector: (u_1 + 1) / 2 ~ Beta((d-1)/2, (d-1)/2)
    law = stats.beta((d - 1) / 2, (d - 1) / 2)
    for axis in range(d):
        assert stats.kstest((u[:, axis] + 1) / 2, law.cdf).pvalue > 1e-4
    # power: directions of i.i.d. Laplace vectors are not uniform
    rng = np.random.default_rng(7)
    skew = rng.laplace(size=(5 * DRAWS, d))
    skew /= np.linalg.norm(skew, axis=1)[:, None]
    assert stats.kstest((skew[:, 0] + 1) / 2, law.cdf).pvalue < 1e-3


def test_d1_is_two_sided_laplace():
    b = draws(1, 3.0, seed=5).ravel()
    assert stats.kstest(b, stats.laplace(scale=1 / 3.0).cdf).pvalue > 1e-3


def test_scalar_samplers():
    rng = np.random.default_rng(1)
    assert stats.kstest(sample_laplace(DRAWS, 0.7, rng), stats.laplace(scale=0.7).cdf).pvalue > 1e-3
    assert stats.kstest(sample_gaussian(DRAWS, 2.0, rng), stats.norm(scale=2.0).cdf).pvalue > 1e-3


def test_bad_arguments():
    rng = np.random.default_rng(0)
    for d, beta in [(0, 1.0), (2.5, 1.0), (3, 0.0), (3, -1.0), (3, np.inf), (3, np.nan)]:
        with pytest.raises(InputError):
            sample_l2_laplace(d, beta, rng)


def test_random_state_resolution():
    a = sample_l2_laplace(5, 1.0, resolve_rng(42))
    assert np.array_equal(a, sample_l2_laplace(5, 1.0, resolve_rng(42)))
    generator = np.random.default_rng(3)
    assert resolve_rng(generator) is generator
    # None: fresh OS entropy each time, independent of numpy's global seed
    np.random.seed(0)  # noqa: NPY002  (the legacy global seed, set on purpose: resolve_rng(None) ignores it)
    first = sample_l2_laplace(5, 1.0, resolve_rng(None))
    np.random.seed(0)  # noqa: NPY002  (as above)
    assert not np.array_equal(first, sample_l2_laplace(5, 1.0, resolve_rng(None)))
    for bad in (-1, 1.5, "seed", True, np.random.RandomState(0)):
        with pytest.raises(InputError):
            resolve_rng(bad)


def test_round_to_grid():
    values = np.array([0.123456789123, -3.0, 1e-9, 0.0])
    rounded, spacing = round_to_grid(values, scale=0.37)
    assert spacing == 2.0 ** (-1 - 30)  # ceil(log2 0.37) = -1
    assert np.all(np.abs(rounded - values) <= spacing / 2)
    assert np.all(rounded / spacing == np.round(rounded / spacing))  # exact multiples
    with pytest.raises(InputError):
        round_to_grid(values, scale=0.0)


def test_round_to_grid_leaves_values_coarser_than_the_grid_and_never_overflows():
    values = np.array([1.5, -2.25e10, 3.0, 1e300])
    rounded, spacing = round_to_grid(values, scale=1e-300)
    assert np.all(np.isfinite(rounded))
    np.testing.assert_array_equal(rounded, values)  # already multiples of a grid this fine
