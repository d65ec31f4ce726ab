"""Fixtures shared by the models' tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dpcvx.privacy.column_ranges import SEARCH_DEPTH, grid_points

SearchValues = Callable[[np.random.Generator, int, int, int], tuple[np.ndarray, np.ndarray]]


@pytest.fixture()
def search_values() -> SearchValues:
    """``make(rng, case, low, high)``: (values, bounds) of a range-search test case, n in [low, high) rows of 1 to 8
    columns, concentrated or spread about a centre inside public bounds of any scale; every third case with ties,
    values on the search's grid points and at the bounds themselves."""
    def make(rng: np.random.Generator, case: int, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
        n, k = int(rng.integers(low, high)), int(rng.integers(1, 9))
        bounds = 10.0 ** rng.uniform(-3, 2, k)
        centre, scale = rng.uniform(-0.9, 0.9, k) * bounds, 10.0 ** rng.uniform(-4, 0, k) * bounds
        values = np.clip(centre + scale * rng.standard_normal((n, k)), -bounds, bounds)
        if case % 3 == 0:  # ties, grid points and the bounds themselves
            values[: n // 4] = grid_points(rng.integers(0, (1 << SEARCH_DEPTH) + 1, (n // 4, k)), bounds)
            values[n // 4: n // 3] = values[0]
        return values, bounds
    return make
