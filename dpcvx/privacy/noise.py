"""Noise samplers used by the mechanisms. The noise itself is never released or stored."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np

from ..exceptions import InputError
from ..validation import integer, positive, sample_size
from .float_guarantee import FloatGuarantee

__all__ = ["sample_l2_laplace", "sample_laplace", "sample_gaussian", "round_to_grid",
           "l2_laplace_moments", "gaussian_moments",
           "release_grid_spacing", "grid_record",
           "GRID_BITS_BELOW_SCALE"]

GRID_BITS_BELOW_SCALE = 30
# the range of beta whose square is a normal double (beta**2 raises OverflowError above it)
_SQUARE_MIN, _SQUARE_MAX = math.sqrt(sys.float_info.min), math.sqrt(sys.float_info.max)


def sample_l2_laplace(d: int, beta: float, rng: np.random.Generator) -> np.ndarray:
    """b in R^d with density proportional to exp(-beta ||b||_2).

    ||b|| ~ Gamma(shape=d, scale=1/beta) and b/||b|| is uniform on the unit sphere
    (a normalised standard Gaussian). Chaudhuri, Monteleoni, Sarwate, JMLR 2011,
    Algorithms 1 and 2.
    """
    d = sample_size(d, "d")
    scale = 1.0 / positive("beta", beta)
    direction = rng.standard_normal(d)
    length = np.linalg.norm(direction)
    while length == 0.0:  # probability zero, but never divide by it
        direction = rng.standard_normal(d)
        length = np.linalg.norm(direction)
    return _draw(lambda: rng.gamma(shape=d, scale=scale) * direction / length, f"1/beta = {scale:g}")


def l2_laplace_moments(d: int, beta: float) -> tuple[float, float]:
    """(E||b||, E||b||^2) of :func:`sample_l2_laplace`'s law: ||b|| ~ Gamma(d, 1/beta), so d / beta
    and d (d + 1) / beta^2.

    Never raises (the noise warning reads them after a release): where beta^2 is not a normal double
    the second moment is (d / beta) ((d + 1) / beta), which overflows to infinity or underflows to 0
    instead; elsewhere it is d (d + 1) / beta^2, the value lam="auto" was always chosen with."""
    if _SQUARE_MIN <= beta <= _SQUARE_MAX:
        return d / beta, d * (d + 1) / beta**2
    return d / beta, (d / beta) * ((d + 1) / beta)


def gaussian_moments(d: int, sigma: float) -> tuple[float, float]:
    """(bound on E||b||, E||b||^2) of N(0, sigma^2 I_d): sigma sqrt(d) (Jensen) and sigma^2 d."""
    return sigma * math.sqrt(d), sigma * sigma * d


def sample_laplace(size: int, scale: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. Laplace(0, scale) entries: density proportional to exp(-|b| / scale)."""
    size, scale = integer("size", size, minimum=0), positive("scale", scale)
    return _draw(lambda: rng.laplace(0.0, scale, size=size), f"scale = {scale:g}")


def sample_gaussian(size: int, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. N(0, sigma^2) entries (sigma from :func:`dpcvx.privacy.gaussian.analytic_gaussian_sigma`)."""
    size, sigma = integer("size", size, minimum=0), positive("sigma", sigma)
    return _draw(lambda: rng.normal(0.0, sigma, size=size), f"sigma = {sigma:g}")


def _draw(draw: Callable[[], np.ndarray], scale: str) -> np.ndarray:
    """The noise ``draw()``, or an InputError naming its scale when a draw overflowed (never NaN/inf)."""
    with np.errstate(over="ignore", invalid="ignore"):
        noise = np.asarray(draw(), dtype=float)
    if not np.all(np.isfinite(noise)):
        raise InputError(
            f"a noise draw with {scale} overflowed to infinity: the noise scale is too large for "
            "floating point. Raise epsilon, n or lam (the scale falls as they grow)"
        )
    return noise


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
    values = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(values)):
        raise InputError("round_to_grid: the values to round hold NaN or infinity; nothing is released")
    spacing = release_grid_spacing(scale, bits_below)
    # a value with |v| >= 2^52 spacing is already a multiple of the spacing (its ulp is at least
    # the spacing); dividing it could overflow, so it is kept as it is
    on_grid = np.abs(values) >= spacing * 2.0**52
    with np.errstate(over="ignore"):
        rounded = np.round(np.where(on_grid, 0.0, values) / spacing) * spacing
    return np.where(on_grid, values, rounded), spacing


def release_grid_spacing(scale: float, bits_below: int = GRID_BITS_BELOW_SCALE) -> float:
    """The grid of :func:`round_to_grid` for a noise scale: 2^(ceil(log2(scale)) - bits_below).

    ldexp keeps the spacing a power of two even below the normal range (never 0: scale >= 2.2e-308).
    """
    scale = positive("scale", scale)
    return float(np.ldexp(1.0, int(np.ceil(np.log2(scale))) - int(bits_below)))


def grid_record(spacing: float | None) -> dict:
    """A calibration's record of its release grid and of the floating-point guarantee that grid gives
    (:class:`~dpcvx.privacy.float_guarantee.FloatGuarantee`: mitigation only, see :func:`round_to_grid`)."""
    if spacing is None:
        return {"release_grid": None}
    return {"release_grid": spacing, "float_guarantee": FloatGuarantee.MITIGATION_ONLY.value}
