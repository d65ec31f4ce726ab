"""Exact sampling from the density proportional to exp(kappa |<v, z>|) on the ball ||z|| <= r.

This is the exponential mechanism with the linear score |<v, z>| over the
whole ball (uniform base measure), the efficient route of Jain and Thakurta's
Algorithm 3 for the linear kernel: "a uniform mixture of two log-concave
distributions". The density is symmetric under z -> -z, so

1. a fair sign picks the half-ball {<v, z> >= 0} or its mirror image;
2. on the half-ball write z = t v/||v|| + z_perp. The coordinate t in [0, r]
   has density proportional to exp(a t) (r^2 - t^2)^((d-1)/2) with
   a = kappa ||v|| (the factor is the volume of the (d-1)-ball of radius
   sqrt(r^2 - t^2)), and given t, z_perp is uniform in that (d-1)-ball.

The density of t is log-concave. It is sampled exactly by rejection from the
envelope made of tangent lines of its log at the mode and about one standard
deviation on each side (tangents of a concave function lie above it). Exact
sampling matters: the privacy proof of the exponential mechanism is about the
exact distribution.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["sample_ball_exponential", "sample_radial"]


def _log_mass(intercept: float, slope: float, low: float, high: float) -> float:
    """log of the integral of exp(intercept + slope t) over [low, high]."""
    width = high - low
    if slope == 0:
        return intercept + math.log(width)
    if slope > 0:
        return intercept + slope * high + math.log(-math.expm1(-slope * width)) - math.log(slope)
    return intercept + slope * low + math.log(-math.expm1(slope * width)) - math.log(-slope)


def _truncated_exponential(slope: float, low: float, high: float, uniform: float) -> float:
    """Inverse CDF of the density proportional to exp(slope t) on [low, high]."""
    width = high - low
    if slope == 0:
        return low + uniform * width
    if slope > 0:
        return high + math.log1p((1 - uniform) * math.expm1(-slope * width)) / slope
    return low + math.log1p(uniform * math.expm1(slope * width)) / slope


def sample_radial(a: float, radius: float, power: float, rng: np.random.Generator) -> float:
    """t in [0, radius] with density proportional to exp(a t) (radius^2 - t^2)^power, a, power >= 0."""
    r2 = radius * radius
    if power == 0:
        return _truncated_exponential(a, 0.0, radius, rng.random())

    def log_density(t: float) -> float:
        return a * t + power * math.log(r2 - t * t)

    def derivative(t: float) -> float:
        return a - 2 * power * t / (r2 - t * t)

    mode = radius * a * radius / (power + math.sqrt(power * power + (a * radius) ** 2))
    spread = (r2 - mode * mode) / math.sqrt(2 * power * (r2 + mode * mode))
    points = sorted({max(mode - spread, 0.0), mode, mode + min(spread, (radius - mode) / 2)})
    lines = [(log_density(t) - derivative(t) * t, derivative(t)) for t in points]  # (intercept, slope)
    edges = [0.0]
    for (c1, s1), (c2, s2) in zip(lines[:-1], lines[1:], strict=True):
        edges.append(min(max((c2 - c1) / (s1 - s2), edges[-1]), radius))
    edges.append(radius)
    log_masses = np.array([_log_mass(c, s, lo, hi) if hi > lo else -np.inf
                           for (c, s), lo, hi in zip(lines, edges[:-1], edges[1:], strict=True)])
    weights = np.exp(log_masses - log_masses.max())
    weights /= weights.sum()
    while True:
        piece = int(rng.choice(len(lines), p=weights))
        intercept, slope = lines[piece]
        t = _truncated_exponential(slope, edges[piece], edges[piece + 1], rng.random())
        if t >= radius:
            continue
        if math.log(rng.random()) <= log_density(t) - (intercept + slope * t):
            return t


def sample_ball_exponential(v: np.ndarray, kappa: float, radius: float,
                            rng: np.random.Generator) -> np.ndarray:
    """z in the ball of the given radius with density proportional to exp(kappa |<v, z>|)."""
    v = np.asarray(v, dtype=float)
    dim = v.size
    norm = float(np.linalg.norm(v))
    if norm == 0 or kappa == 0:  # uniform on the ball
        direction = rng.standard_normal(dim)
        return radius * rng.random() ** (1 / dim) * direction / np.linalg.norm(direction)
    unit = v / norm
    t = sample_radial(kappa * norm, radius, (dim - 1) / 2, rng)
    z = t * unit
    if dim > 1:
        across = rng.standard_normal(dim)
        across -= (across @ unit) * unit
        z += math.sqrt(radius * radius - t * t) * rng.random() ** (1 / (dim - 1)) \
            * across / np.linalg.norm(across)
    return z if rng.random() < 0.5 else -z
