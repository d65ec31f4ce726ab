"""The support attack in the manner of Mironov (2012), shared by the floating-point tests of tests/privacy.

A raw floating-point release ``secret + noise`` in doubles is modelled bit for bit: coordinate noise
from a 53-bit uniform U = k 2^-53 by inversion (numpy's ``Generator.laplace`` formula for the Laplace
kinds; sigma ndtri(U) for the Gaussian kinds), so the set of noise values is finite and the attack
decides, by bisection over k (the noise is monotone in k on each branch), whether a released value
can occur under the neighbour's secret. A value that cannot occur under D' has probability ratio
infinity. A lattice release puts every value on a public lattice with exact integer noise charging
every integer: a value can occur under any data set iff it is a lattice point (:func:`on_lattice`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from scipy import special

UNIT = 2.0**-53
LAPLACE_BRANCHES = ((1, 2**52), (2**52, 2**53))
GAUSSIAN_BRANCHES = ((1, 2**53),)
Noise = Callable[[int], float]


def numpy_laplace(k: int, scale: float) -> float:
    """numpy's Generator.laplace(0, scale) for the uniform U = k 2^-53 (its C code, in doubles)."""
    u = k * UNIT
    if u >= 0.5:
        return 0.0 - scale * math.log(2.0 - u - u)
    return 0.0 + scale * math.log(u + u)


def inverse_gaussian(k: int, sigma: float) -> float:
    """A raw double Gaussian by inversion: sigma ndtri(k 2^-53), increasing in k."""
    return sigma * float(special.ndtri(k * UNIT))


def can_occur(answer: float, value: Noise, branches: Sequence[tuple[int, int]]) -> bool:
    """Whether value(k) == answer for some k, value increasing in k on each branch (bisection)."""
    for low, high in branches:
        lo, hi = low, high
        while lo < hi:
            middle = (lo + hi) // 2
            if value(middle) >= answer:
                hi = middle
            else:
                lo = middle + 1
        if lo < high and value(lo) == answer:
            return True
    return False


def released_value(center: float, noise: Noise, grid: float | None) -> Noise:
    """k -> fl(center + noise(k)), rounded to multiples of ``grid`` when one is given (round_to_grid)."""
    if grid is None:
        return lambda k: center + noise(k)
    return lambda k: round((center + noise(k)) / grid) * grid


def vector_can_occur(vector: np.ndarray, center: np.ndarray, noise: Noise,
                     branches: Sequence[tuple[int, int]], grid: float | None = None) -> bool:
    """Whether every coordinate of ``vector`` can occur under ``center`` (independent coordinates)."""
    return all(can_occur(a, released_value(c, noise, grid), branches) for a, c in zip(vector, center, strict=True))


def raw_attack(secret: np.ndarray, other: np.ndarray, noise: Noise, branches: Sequence[tuple[int, int]],
               releases: int = 200, seed: int = 11, grid: float | None = None) -> int:
    """How many of ``releases`` double releases under ``secret`` (rounded to ``grid`` when given) cannot
    occur under ``other``. Checks the model first: the first 20 can occur under their own secret."""
    rng = np.random.default_rng(seed)
    released = [np.array([released_value(c, noise, grid)(int(k))
                          for c, k in zip(secret, rng.integers(1, 2**53, size=secret.size), strict=True)])
                for _ in range(releases)]
    assert all(vector_can_occur(vector, secret, noise, branches, grid) for vector in released[:20])
    return sum(not vector_can_occur(vector, other, noise, branches, grid) for vector in released)


def on_lattice(value: float, spacing: float) -> bool:
    """A lattice release's value can occur under any data set iff it is a lattice point."""
    return (Fraction(value) / Fraction(spacing)).denominator == 1
