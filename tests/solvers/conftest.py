"""Shared data for the solver tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpcvx import PrivateERM, losses
from dpcvx.solvers.objective import PerturbedObjective

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


def repeated_rows(n: int, d: int, seed: int, distinct: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """``distinct`` Gaussian rows in the unit ball, each repeated about n / distinct times, labels drawn from a
    logistic model of each row (so most rows repeat with both labels): a table of a few coded columns, and where
    Newton's steps overshoot."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(distinct, d))
    base /= np.linalg.norm(base, axis=1)[:, None] * 1.01
    X = base[rng.integers(0, distinct, n)]
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-3 * X @ rng.normal(size=d))), 1.0, -1.0)
    return X, y


@pytest.fixture
def rows_repeated() -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    """``repeated_rows(n, d, seed, distinct=100)``."""
    return repeated_rows


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


Fits = dict[bool, tuple[int, int, np.ndarray]]


@pytest.fixture
def fits_with_and_without(count_calls: Callable[[type, str], list[int]],
                          monkeypatch: pytest.MonkeyPatch) -> Callable[..., Fits]:
    """``fits_with_and_without(X, y, withhold, random_state, **options)``: a logistic ``PrivateERM`` fit (data_norm
    1, epsilon 1, ``options`` such as lam and fit_intercept) as it is (True) and again after ``withhold(monkeypatch)``
    took something away (False), each as (Hessian products, Newton iterations, released weights with the intercept
    last when fitted); each fit converged."""
    def run(X: object, y: np.ndarray, withhold: Callable[[pytest.MonkeyPatch], None], random_state: int,
            **options: object) -> Fits:
        calls = count_calls(PerturbedObjective, "hessian_product")
        step_pass = PerturbedObjective.step_pass

        def counted_step(self: PerturbedObjective, *args: Any, **kwargs: Any) -> Any:
            if kwargs["hessian"]:  # CG's first step, its Hessian product in the read of the step
                calls.append(1)
            return step_pass(self, *args, **kwargs)

        monkeypatch.setattr(PerturbedObjective, "step_pass", counted_step)
        fits: Fits = {}
        for kept in (True, False):
            if not kept:
                withhold(monkeypatch)
            calls.clear()
            learner = PrivateERM(losses.logistic(), data_norm=1.0, **options)
            model = learner.fit(X, y, epsilon=1.0, random_state=random_state)
            assert learner.diagnostics_.converged
            weights = np.append(model.coef_, model.intercept_) if learner.fit_intercept else np.asarray(model.coef_)
            fits[kept] = (len(calls), learner.diagnostics_.iterations, weights)
        return fits

    return run
