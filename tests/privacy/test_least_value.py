"""The calibrations' bisection with its far tests inferred (dpcvx.privacy.least_value): the same double as the
bisection that evaluates every test, in fewer evaluations."""

from __future__ import annotations

import numpy as np
import pytest

from dpcvx.privacy import objective_gaussian
from dpcvx.privacy.gaussian import GAUSSIAN_WINDOW, gaussian_delta
from dpcvx.privacy.least_value import least_below, least_passing
from dpcvx.privacy.neighbours import Neighbours


def _cases(seed: int, count: int):
    """Seeded public inputs over the calibrations' range: epsilon from 1e-12 (the least accepted, where the profile
    as written would cancel) to 1e3, delta from 1e-300 (every other case from 1e-15) to 0.3, sensitivities over
    six decades."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        smallest = -300 if rng.integers(2) else -15
        yield (float(10 ** rng.uniform(-12, 3)), float(10 ** rng.uniform(smallest, -0.5)),
               float(10 ** rng.uniform(-3, 3)), Neighbours.REPLACE_ONE if rng.integers(2) else Neighbours.ADD_REMOVE,
               bool(rng.integers(2)))


def _objective(epsilon: float, shift: float, neighbours: Neighbours, monotone: bool, calls: list | None = None):
    """The objective-perturbation profile in sigma (``calls`` records each evaluation)."""
    def profile(sigma: float) -> float:
        if calls is not None:
            calls.append(sigma)
        return objective_gaussian._profile(epsilon, sigma, shift, neighbours, monotone)
    return profile


def _analytic(epsilon: float, shift: float):
    return lambda sigma: gaussian_delta(sigma, shift, epsilon)


def _every_test(profile, target: float, start: float) -> float:
    return least_passing(lambda x: profile(x) <= target, start)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_inferred_bisection_gives_the_double_of_the_full_one(seed: int) -> None:
    # the objective-perturbation profile (every neighbour relation and loss sign) and the analytic Gaussian's; with
    # a window of 1e-15 in place of GAUSSIAN_WINDOW, some of these cases differ (the window must hold the band in
    # which the computed profile's rounding decides a test)
    for epsilon, delta, shift, neighbours, monotone in _cases(seed, 120):
        profile = _objective(epsilon, shift, neighbours, monotone)
        start = 2 * shift / epsilon
        assert least_below(profile, delta, start, GAUSSIAN_WINDOW) == _every_test(profile, delta, start)
        analytic = _analytic(epsilon, shift)
        start = shift / epsilon
        assert least_below(analytic, delta, start, GAUSSIAN_WINDOW) == _every_test(analytic, delta, start)


def test_a_window_narrower_than_the_rounding_band_changes_the_double() -> None:
    # the check above can fail: a window of 1e-15 infers tests the rounding decides otherwise
    differ = 0
    for epsilon, delta, shift, neighbours, monotone in _cases(0, 120):
        for profile, start in ((_objective(epsilon, shift, neighbours, monotone), 2 * shift / epsilon),
                               (_analytic(epsilon, shift), shift / epsilon)):
            differ += least_below(profile, delta, start, 1e-15) != _every_test(profile, delta, start)
    assert differ > 0


def test_the_inferred_bisection_evaluates_about_half_the_tests() -> None:
    # the objective calibration's profile at epsilon 1, delta 1e-6, replace-one: 57 evaluations in full
    counts = []
    for inferred in (False, True):
        calls: list[float] = []
        profile = _objective(0.78, 1.0, Neighbours.REPLACE_ONE, False, calls)
        if inferred:
            least_below(profile, 1e-6, 2 / 0.78, GAUSSIAN_WINDOW)
        else:
            _every_test(profile, 1e-6, 2 / 0.78)
        counts.append(len(calls))
    assert counts[0] >= 50 and counts[1] <= 0.6 * counts[0]


@pytest.mark.parametrize("profile", [lambda x: 0.0, lambda x: 1.0 if x < 3.0 else 0.0, lambda x: 1.0 / x])
def test_profiles_the_window_cannot_locate_or_steps_give_the_same_double(profile) -> None:
    # a profile that passes everywhere (the window is not found: every test is evaluated), a step, a power law
    for start in (0.5, 3.0, 7.0):
        assert least_below(profile, 0.25, start, 1e-11) == _every_test(profile, 0.25, start)


def _calibrations(seed: int, count: int):
    """Seeded public inputs of calibrate_objective_gaussian over wide ranges, and its result."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        public = dict(n=int(10 ** rng.uniform(2, 7)), dim=int(10 ** rng.uniform(0, 4)),
                      lipschitz=float(10 ** rng.uniform(-1, 1)), smoothness=float(10 ** rng.uniform(-2, 1)),
                      norm_bound=float(10 ** rng.uniform(-1, 2)), lam_m=float(10 ** rng.uniform(-8, 0)),
                      smooth_unconstrained=True, neighbours=["replace-one", "add-remove"][rng.integers(2)],
                      monotone_loss=bool(rng.integers(2)))
        epsilon, delta = float(10 ** rng.uniform(-2, 1)), float(10 ** rng.uniform(-12, -3))
        yield objective_gaussian.calibrate_objective_gaussian(epsilon, delta, **public)


@pytest.mark.slow
def test_the_grid_search_bisects_its_candidates_only_and_chooses_as_if_it_bisected_every_point(monkeypatch) -> None:
    # the grid's points ruled out by their sigma brackets are never the first least value, so the calibration is the
    # one of a search that bisects every point's sigma to the last double (each field, to the bit)
    bisected = []
    original = objective_gaussian._bisect_sigma
    monkeypatch.setattr(objective_gaussian, "_bisect_sigma", lambda *a: bisected.append(a) or original(*a))
    ruled_out = list(_calibrations(3, 40))
    assert len(bisected) < 40 * 30  # about 23 a calibration (its candidates, Brent's points, the final one)

    def every_point(points, value, bounds, floor):
        return [value(float(x)) for x in points]

    monkeypatch.setattr(objective_gaussian, "_least_of", every_point)
    bisected.clear()
    assert ruled_out == list(_calibrations(3, 40))
    assert len(bisected) > 40 * 60  # the 48 grid points, Brent's points and the final one
