"""Noise samplers used by the mechanisms. The noise itself is never released or stored."""

from __future__ import annotations

import numpy as np

from .validation import positive, sample_size

__all__ = ["sample_l2_laplace", "sample_laplace", "sample_gaussian", "round_to_grid",
           "release_grid_spacing",
           "GRID_BITS_BELOW_SCALE"]

GRID_BITS_BELOW_SCALE = 30


def sample_l2_laplace(d: int, beta: float, rng: np.random.Generator) -> np.ndarray:
    """b in R^d with density proportional to exp(-beta ||b||_2).

    ||b|| ~ Gamma(shape=d, scale=1/beta) and b/||b|| is uniform on the unit sphere
    (a normalised standard Gaussian). Chaudhuri, Monteleoni, Sarwate, JMLR 2011,
    Algorithms 1 and 2.
    """
    d = sample_size(d, "d")
    beta = positive("beta", beta)
    direction = rng.standard_normal(d)
    length = np.linalg.norm(direction)
    while length == 0.0:  # probability zero, but never divide by it
        direction = rng.standard_normal(d)
        length = np.linalg.norm(direction)
    return rng.gamma(shape=d, scale=1.0 / beta) * direction / length


def sample_laplace(size: int, scale: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. Laplace(0, scale) entries: density proportional to exp(-|b| / scale)."""
    return rng.laplace(0.0, positive("scale", scale), size=size)


def sample_gaussian(size: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. N(0, sigma^2) entries."""
    return rng.normal(0.0, positive("sigma", sigma), size=size)


def round_to_grid(values: np.ndarray, scale: float,
                  bits_below: int = GRID_BITS_BELOW_SCALE) -> tuple[np.ndarray, float]:
    """Round to multiples of the power of two 2^(ceil(log2(scale)) - bits_below).

    A mitigation of Mironov's (2012) floating-point attack on "secret + noise"
    releases: the attack reads the low-order bits of the released double, which
    depend on the secret. Rounding to a grid about 2^-30 of the noise scale
    discards those bits while changing the values by a negligible amount. It
    is post-processing, so it cannot weaken the guarantee in exact arithmetic;
    it is not itself a proof for floating point (Mironov's snapping mechanism
    proves one for scalar Laplace noise with a grid as coarse as the noise).
    Returns (rounded values, grid spacing). Division and multiplication by a
    power of two are exact in binary floating point.
    """
    spacing = release_grid_spacing(scale, bits_below)
    values = np.asarray(values, dtype=float)
    # a value of magnitude >= 2^52 spacing is already a multiple of the (power of two)
    # spacing, since its ulp is at least the spacing: leave it, and never divide it into inf
    coarse = np.abs(values) >= spacing * 2.0**52
    with np.errstate(over="ignore"):
        rounded = np.where(coarse, values, np.round(values / spacing) * spacing)
    return rounded, spacing


def release_grid_spacing(scale: float, bits_below: int = GRID_BITS_BELOW_SCALE) -> float:
    """The grid of :func:`round_to_grid` for a noise scale: 2^(ceil(log2(scale)) - bits_below)."""
    scale = positive("scale", scale)
    return 2.0 ** (int(np.ceil(np.log2(scale))) - int(bits_below))
