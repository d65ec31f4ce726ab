"""The kernel Newton certificate bounds ||grad J||_H at the returned coefficients, whatever the path to them.

The margins f = K beta are updated step by step (f + t K d); the certificate's pad bounds the rounding of ONE
product K beta (m eps max K_ii ||beta||_1), so a path that overshoots and comes back carries the rounding of every
step's K d, which ||beta||_1 does not bound. ``_newton`` certifies on margins computed afresh.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dpcvx.solvers.gram import DenseGram
from dpcvx.solvers.kernel import EPS, solve_kernel_erm
from dpcvx.verification.kernel_loss import resolve_loss


class RoundingAtItsBound(DenseGram):
    """K v with every entry off by 0.9 of the rounding bound the certificate assumes for one product
    (``product_terms`` eps max K_ii ||v||_1), all in the same direction: an operator within the contract."""

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        pad = 0.9 * self.product_terms * EPS * float(np.max(np.diag(self.matrix))) * float(np.sum(np.abs(vector)))
        return self.matrix @ vector + pad


def _huber_first(z: Fraction, h: Fraction) -> Fraction:
    """l'(z) of the Huber hinge (dpcvx.losses.huber_hinge), exactly."""
    if z < 1 - h:
        return Fraction(-1)
    return -(1 + h - z) / (2 * h) if z <= 1 + h else Fraction(0)


def test_certificate_bounds_the_exact_gradient_after_an_overshooting_path():
    # K = 1 1^T (every phi(x_i) the same unit vector), labels +1: ||grad J||_H = |sum_i r_i| exactly. At lam = 1e-6
    # the first Newton step from 0 (l'' = 0 at z = 0) runs far past the kink to z ~ 1e3 and the next ones come back
    # to z ~ 1: the running margins' error is ~ 2000 times the pad of one product
    n, lam, h = 50, 1e-6, Fraction(1, 2)
    y = np.ones(n)
    solution = solve_kernel_erm(RoundingAtItsBound(np.ones((n, n))), y, lam, resolve_loss("huber_hinge"),
                                tolerance=1e-3, feature_bound=1.0)
    beta = [Fraction(b) for b in solution.coef]
    margin = sum(beta, Fraction(0))  # (K beta)_i, exactly, for every i
    exact = abs(sum(_huber_first(margin, h) / n + Fraction(lam) * b for b in beta))
    assert exact <= solution.report.residual  # before: 2.0e-11 against a certified 1.9e-14
    assert solution.report.distance_bound <= solution.report.tolerance
