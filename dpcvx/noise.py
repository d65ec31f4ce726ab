"""Noise samplers used by the mechanisms. The noise itself is never released or stored."""

from __future__ import annotations

import numpy as np

from .exceptions import InputError

__all__ = ["sample_l2_laplace", "sample_laplace", "sample_gaussian"]


def _positive_scale(name: str, value: float) -> float:
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise InputError(f"{name} must be finite and positive, got {value}")
    return value


def sample_l2_laplace(d: int, beta: float, rng: np.random.Generator) -> np.ndarray:
    """b in R^d with density proportional to exp(-beta ||b||_2).

    ||b|| ~ Gamma(shape=d, scale=1/beta) and b/||b|| is uniform on the unit sphere
    (a normalised standard Gaussian). Chaudhuri, Monteleoni, Sarwate, JMLR 2011,
    Algorithms 1 and 2.
    """
    if int(d) != d or d < 1:
        raise InputError(f"d must be a positive integer, got {d}")
    beta = _positive_scale("beta", beta)
    direction = rng.standard_normal(int(d))
    length = np.linalg.norm(direction)
    while length == 0.0:  # probability zero, but never divide by it
        direction = rng.standard_normal(int(d))
        length = np.linalg.norm(direction)
    return rng.gamma(shape=d, scale=1.0 / beta) * direction / length


def sample_laplace(size: int, scale: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. Laplace(0, scale) entries: density proportional to exp(-|b| / scale)."""
    return rng.laplace(0.0, _positive_scale("scale", scale), size=size)


def sample_gaussian(size: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. N(0, sigma^2) entries."""
    return rng.normal(0.0, _positive_scale("sigma", sigma), size=size)
