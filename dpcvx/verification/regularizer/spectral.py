"""Proved bounds on the extreme eigenvalues and singular values of float matrices.

A backward-stable ``eigvalsh`` (``svd``) returns the eigenvalues (singular values) of a matrix
within ``(n + 4) eps ||S||_F`` of the exact ones (Golub and Van Loan, Matrix Computations,
Sections 8.1 and 8.6); each bound moves by that margin to its safe side under the rounding
policy of :mod:`dpcvx.rounding`.
"""

from __future__ import annotations

import numpy as np

from ...rounding import EPS, bound_up

__all__ = ["eig_lower", "eig_upper", "sigma_min_lower"]


def eig_lower(S: np.ndarray) -> float:
    """A lower bound of lambda_min of the symmetric float matrix S (backward-stable eigvalsh)."""
    if S.size == 0:
        return 0.0
    smallest = float(np.linalg.eigvalsh(S)[0])
    return smallest - bound_up((S.shape[0] + 4) * EPS * float(np.linalg.norm(S)))


def eig_upper(S: np.ndarray) -> float:
    if S.size == 0:
        return 0.0
    largest = float(np.linalg.eigvalsh(S)[-1])
    return largest + bound_up((S.shape[0] + 4) * EPS * float(np.linalg.norm(S)))


def sigma_min_lower(B: np.ndarray, error: float) -> float:
    """A lower bound of sigma_min of the true matrix within Frobenius ``error`` of the float B (k >= d)."""
    k, d = B.shape
    if k < d:
        return 0.0
    smallest = float(np.linalg.svd(B, compute_uv=False)[-1])
    shade = bound_up((max(k, d) + 4) * EPS * float(np.linalg.norm(B)) + error)
    return max(smallest - shade, 0.0)
