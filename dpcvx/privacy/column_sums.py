"""The lattice contributions of private column statistics and their L1 sensitivity (docs/theory.md, section 33).

Each row x, clipped onto ||x|| <= R, contributes c(x) = (round(x / g), round(x * x / (R g))), g = R 2^-B, set to 0
when ||round(x / g)||_1 > A = isqrt(4^B d) + d or ||round(x * x / (R g))||_1 > S = 2^B + d. Every contribution
then has ||c(x)||_1 <= A + S, so two records' contributions differ by at most 2 (A + S) in L1 norm: the
sensitivity of the sums under replace-one. :mod:`dpcvx.models.column_statistics` releases the sums with discrete
Laplace noise; the model file's loader recomputes the sensitivity with :func:`sums_sensitivity`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["contribution_caps", "sums_sensitivity", "lattice_contributions"]


def contribution_caps(d: int, bits: int) -> tuple[int, int]:
    """(A, S) = (isqrt(4^B d) + d, 2^B + d): the L1 caps of a record's rounded values and rounded squares."""
    return math.isqrt(4**bits * d) + d, 2**bits + d


def sums_sensitivity(d: int, bits: int) -> int:
    """2 (A + S): the L1 distance of two records' capped contributions is at most the sum of their norms."""
    return 2 * sum(contribution_caps(d, bits))


def lattice_contributions(unit: np.ndarray, bits: int) -> np.ndarray:
    """Each record's integer vector c(x) from ``unit`` = the rows clipped onto R, divided by R (module docstring),
    0 beyond its caps; int64 of shape (n, 2 d)."""
    values = np.rint(np.ldexp(unit, bits)).astype(np.int64)
    squares = np.rint(np.ldexp(unit * unit, bits)).astype(np.int64)
    cap_values, cap_squares = contribution_caps(unit.shape[1], bits)
    keep = (np.abs(values).sum(axis=1) <= cap_values) & (squares.sum(axis=1) <= cap_squares)
    return np.where(keep[:, None], np.hstack([values, squares]), 0)
