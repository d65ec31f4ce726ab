"""The private column ranges' floating-point status (dpcvx/privacy/column_ranges.py, the search before AdaSSP-ranged
and noisy gradient descent): MITIGATION_ONLY, named in the certificate of the release they belong to.

Each step of the search adds double Gaussian noise (sigma_c, ``count_sigma``) to 2 k integer counts #{i : v_ij <= t}
and compares the noisy counts with q n and (1 - q) n; the release holds only where the searches ended (grid points),
a function of those comparisons. Were the noisy counts released as raw doubles, the support attack in the manner of
Mironov (tests/privacy/support_attack.py) would tell two neighbouring data sets apart: at the first step (t = 0) the
counts of columns whose values all lie above 0 are 0 under D and 1 under D' (row 0 replaced by one below 0), and
most raw noisy counts under D cannot occur under D'. Rounded to the grid 2^-30 of sigma_c, as the search rounds every
count before comparing it, the same attack finds nothing. The search is checked to round every one of its noisy
counts to exactly that grid (and the check to fail on a search that does not round), and its release to be grid
points. A mitigation, not a proof: the certificate says "mitigation-only".

Seeded: the attack's releases come from ``raw_attack``'s seed 11 (60 releases; raw: 60 of 60 cannot occur under the
neighbour here, the bound 18 is delta >= 0.3 against the claimed delta = 1e-6).
"""

from __future__ import annotations

import numpy as np
import pytest
from support_attack import GAUSSIAN_BRANCHES, inverse_gaussian, on_lattice, raw_attack

from dpcvx.privacy import column_ranges
from dpcvx.privacy.column_ranges import SEARCH_DEPTH, release_ranges
from dpcvx.privacy.gradient_descent import gradient_calibration
from dpcvx.privacy.noise import release_grid_spacing
from dpcvx.sklearn import DPLinearRegression

N, K = 2000, 3  # two feature columns and the label
HALF_WIDTHS = np.array([1.0, 1.0, 1.0])


@pytest.fixture(scope="module")
def sigma():
    """sigma_c of a search of K columns at (1, 1e-6), as a gradient-ranged fit calibrates it."""
    return gradient_calibration(1.0, 1e-6, dim=K - 1, data_norm=1.0, label_bound=1.0, range_columns=K).count_sigma


@pytest.fixture(scope="module")
def neighbours():
    """n x K values (two feature columns inside (0, 0.7), a label inside [-1, 1]) and the same with row 0 replaced
    by a row whose features lie below 0."""
    rng = np.random.default_rng(4)
    values = np.column_stack([rng.uniform(0.05, 0.7, (N, 2)), rng.uniform(-1, 1, N)])
    other = values.copy()
    other[0] = [-0.3, -0.2, values[0, 2]]
    return values, other


def first_counts(values: np.ndarray) -> np.ndarray:
    """The 2 K counts of the first step: both searches of every column at its grid's midpoint t = 0."""
    below = (values <= 0.0).sum(axis=0).astype(float)
    return np.concatenate([below, below])


def test_raw_noisy_counts_fall_to_the_attack_but_not_on_the_grid_of_sigma_c(neighbours, sigma):
    values, other = neighbours
    counts, other_counts = first_counts(values), first_counts(other)
    assert column_ranges.range_level(sigma, N) is not None  # n large enough for the search to be offered
    assert np.max(np.abs(counts - other_counts)) == 1  # each count moves by at most 1 (replace-one)
    grid = release_grid_spacing(sigma)
    assert grid <= sigma * 2.0**-29
    noise = lambda k: inverse_gaussian(k, sigma)  # noqa: E731 - the double Gaussian by inversion
    assert raw_attack(counts, other_counts, noise, GAUSSIAN_BRANCHES, releases=60) >= 18  # delta >= 0.3
    assert raw_attack(counts, other_counts, noise, GAUSSIAN_BRANCHES, releases=60, grid=grid) == 0


def rounded_counts(values: np.ndarray, sigma: float, seed: int, monkeypatch) -> tuple[list[np.ndarray], np.ndarray]:
    """The noisy counts the search compared (the output of each of its roundings, read by a wrapper around the
    module's ``round_to_grid``), and the ranges it released."""
    seen: list[np.ndarray] = []
    rounding = column_ranges.round_to_grid

    def spy(noisy, scale, bits_below=30):
        rounded = rounding(noisy, scale, bits_below)
        seen.append(np.asarray(rounded[0]))
        return rounded

    with monkeypatch.context() as patch:
        patch.setattr(column_ranges, "round_to_grid", spy)
        level = column_ranges.range_level(sigma, values.shape[0])
        assert level is not None
        ranges = release_ranges(values, HALF_WIDTHS, level, sigma, np.random.default_rng(seed))
    return seen, ranges


def every_count_on_the_grid(values: np.ndarray, sigma: float, seed: int, monkeypatch) -> bool:
    """Whether the search rounded all its 2 K D noisy counts, each to the grid 2^-30 of sigma_c."""
    seen, _ = rounded_counts(values, sigma, seed, monkeypatch)
    grid = release_grid_spacing(sigma)
    return (sum(step.size for step in seen) == 2 * K * SEARCH_DEPTH
            and all(on_lattice(float(count), grid) for step in seen for count in step.ravel()))


def test_the_search_compares_every_noisy_count_on_the_grid_and_releases_grid_points(neighbours, sigma, monkeypatch):
    values, _ = neighbours
    assert all(every_count_on_the_grid(values, sigma, seed, monkeypatch) for seed in range(5))
    _, ranges = rounded_counts(values, sigma, 0, monkeypatch)
    cell = 2 * HALF_WIDTHS / 2**SEARCH_DEPTH
    assert ranges.shape == (2, K)
    assert all(on_lattice(float(r + b), float(c))  # grid points -b + i 2b / 2^D only (r + b exact here)
               for row in ranges for r, b, c in zip(row, HALF_WIDTHS, cell, strict=True))
    # the check fails on a search that compares the raw noisy doubles (its grid taken off)
    monkeypatch.setattr(column_ranges, "round_to_grid", lambda noisy, scale, bits_below=30: (noisy, scale))
    assert not any(every_count_on_the_grid(values, sigma, seed, monkeypatch) for seed in range(5))


@pytest.mark.parametrize("mechanism", ["gradient", "adassp"])
def test_a_ranged_release_names_mitigation_only(neighbours, mechanism):
    values, _ = neighbours
    X, y = values[:, :2] / np.sqrt(2), values[:, 2]
    model = DPLinearRegression(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=1.0, mechanism=mechanism,
                               random_state=0).fit(X, y)
    record = model.certificate_.calibration.to_dict()
    assert record["mechanism"] == f"{mechanism}-ranged" and record["range_columns"] == K  # every column searched
    assert record["float_guarantee"] == "mitigation-only"
    assert "floating point: mitigation only" in str(model.certificate_)
