"""``PrivateERM``'s default releases (``float_safe=False``) under the support attack: the grid their certificate states.

tests/privacy/test_float_safe_linear.py shows that the raw double releases of the output kinds and of the pure
objective kind fall to the support attack in the manner of Mironov (tests/privacy/support_attack.py) and that the
lattice releases of ``float_safe=True`` resist it. The releases made by default are neither: secret + double noise
rounded to a grid 2^-30 of the noise's scale (:meth:`dpcvx.privacy.calibrate.GriddedRelease.release`), certified
"mitigation-only". Here the same attack is run on that grid for each kind, including the (epsilon, delta) objective
perturbation, which has no float-safe form (docs/theory.md, section 22.5): its release w~ + b_2, b_2 Gaussian. The raw
doubles fall to it; rounded to the stated grid the same releases find nothing. The release is checked to round to
exactly that grid and to record it (and the check to fail on a release that does not round).

Secrets: pairs at the distance the proof allows (output kinds: the minimiser's sensitivity; objective kinds: 2 r, the
coupling's bound on the approximate minimisers, section 7). Noise: the Gaussian kinds' coordinates are modelled by
inversion, exactly as their law; the pure kinds' l2-Laplace vector b (Gamma times a direction) has no one-dimensional
model, so its coordinates are modelled, as test_float_safe_linear.py does, by Laplace noise of the same scale 1 / beta:
the attack reads the low bits of each released coordinate, which the grid removes whatever the noise's law.
Seeded: ``raw_attack``'s seed 11, 60 releases (raw: 48, 52, 43 and 59 of 60 cannot occur under the neighbour here, in
the order of KINDS); the bound 18 is delta >= 0.3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from support_attack import GAUSSIAN_BRANCHES, LAPLACE_BRANCHES, inverse_gaussian, numpy_laplace, on_lattice, raw_attack

from dpcvx.privacy import calibrate
from dpcvx.privacy.calibrate import GriddedRelease, objective_perturbation, output_perturbation
from dpcvx.privacy.calibrate_gaussian import gaussian_objective_perturbation, gaussian_output_perturbation
from dpcvx.privacy.float_guarantee import FloatGuarantee
from dpcvx.privacy.noise import release_grid_spacing

N, LAM, D = 200, 0.1, 3
KINDS = ("output-pure", "output-gaussian", "objective-pure", "objective-gaussian")


def kind(name: str) -> tuple[GriddedRelease, float, bool]:
    """(the calibration, the distance between the neighbours' secrets, whether its noise is Gaussian)."""
    if name == "output-pure":
        pure = output_perturbation(N, LAM, 1.0, tol=1e-10)
        return pure, pure.sensitivity, False
    if name == "output-gaussian":
        gauss = gaussian_output_perturbation(N, LAM, 1.0, 1e-6, L=1, R=1, m=1, tol=1e-10, dim=D)
        return gauss, gauss.sensitivity, True
    if name == "objective-pure":
        objective = objective_perturbation(N, LAM, 1.0, 0.25, tol=1e-3)
        return objective, objective.amp_sensitivity, False
    gaussian_objective = gaussian_objective_perturbation(N, LAM, 1.0, 1e-6, 0.25, L=1, R=1, m=0.25, tol=1e-3, dim=D)
    return gaussian_objective, gaussian_objective.amp_sensitivity, True


SECRET = np.array([0.31, -0.72, 0.05])


@pytest.mark.parametrize("name", KINDS)
def test_the_default_release_falls_to_the_attack_raw_but_not_on_its_stated_grid(name):
    calibration, distance, gaussian = kind(name)
    scale = calibration.release_scale
    other = SECRET + distance / math.sqrt(D)  # ||secret - other|| = the proof's distance
    noise = (lambda k: inverse_gaussian(k, scale)) if gaussian else (lambda k: numpy_laplace(k, scale))
    branches = GAUSSIAN_BRANCHES if gaussian else LAPLACE_BRANCHES
    grid = release_grid_spacing(scale)
    assert grid <= scale * 2.0**-29
    assert raw_attack(SECRET, other, noise, branches, releases=60) >= 18  # delta >= 0.3
    assert raw_attack(SECRET, other, noise, branches, releases=60, grid=grid) == 0


def released_on_grid(calibration: GriddedRelease, seed: int) -> bool:
    """Whether the release of SECRET is SECRET + its noise (the same draw) rounded to the grid 2^-30 of its scale,
    recorded in the calibration it returns, which names mitigation-only."""
    grid = release_grid_spacing(calibration.release_scale)
    noise = calibration.draw_release_noise(D, np.random.default_rng(seed))
    released, stated = calibration.release(SECRET, noise)
    return (stated.release_grid == grid and stated.to_dict()["float_guarantee"] == "mitigation-only"
            and stated.float_guarantee is FloatGuarantee.MITIGATION_ONLY
            and all(on_lattice(float(value), grid) for value in released)
            and bool(np.all(np.abs(released - (SECRET + noise)) <= grid / 2)))


@pytest.mark.parametrize("name", KINDS)
def test_the_default_release_rounds_to_the_grid_the_attack_assumes_and_records_it(name, monkeypatch):
    calibration, _, _ = kind(name)
    assert calibration.float_guarantee is None  # not yet released: the grid is recorded by the release
    assert all(released_on_grid(calibration, seed) for seed in range(10))
    # the check fails on a release of the raw doubles (its grid taken off)
    monkeypatch.setattr(calibrate, "round_to_grid", lambda values, scale: (np.asarray(values),
                                                                         release_grid_spacing(scale)))
    assert not any(released_on_grid(calibration, seed) for seed in range(10))
