"""Shared data for the solver tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

Data = Callable[[int, int, int], tuple[np.ndarray, np.ndarray]]


def unit_ball_rows(n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian rows scaled just inside the unit sphere, labels of a linear rule with noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1)[:, None] * 1.01
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.fixture
def rows_in_ball() -> Data:
    """``unit_ball_rows(n, d, seed)``."""
    return unit_ball_rows


@pytest.fixture
def count_calls(monkeypatch: pytest.MonkeyPatch) -> Callable[[type, str], list[int]]:
    """``count_calls(owner, name)``: ``owner.name`` patched (for the test) to record each call, a list that grows
    by one per call, and to do what it did."""
    def patch(owner: type, name: str) -> list[int]:
        calls: list[int] = []
        original = getattr(owner, name)

        def recorded(self: object, *args: object, **kwargs: object) -> object:
            calls.append(1)
            return original(self, *args, **kwargs)

        monkeypatch.setattr(owner, name, recorded)
        return calls

    return patch
