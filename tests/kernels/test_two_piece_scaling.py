"""Two-piece losses: the duality gap's Fenchel-Young terms, computed without cancellation."""

from fractions import Fraction

import numpy as np
import pytest


@pytest.mark.parametrize("pieces", [(-1.0, 1.0, 0.0, 0.0), (-2.0, 1.0, 0.0, 0.0), (-1.0, 1.0, 1.0, -1.0)],
                         ids=["hinge", "2 max(0, 0.5 - z)", "|z - 1|"])
def test_fenchel_young_terms_are_the_conjugate_form_without_its_cancellation(pieces):
    """(a2 - u)(z - z_k)_+ + (u - a1)(z_k - z)_+ equals l(z) + l*(u) - u z (exact rationals), to a few eps of
    itself, also where the two sides cancel (z near 0, u at a1: the hinge's 1 - z - 1 + z)."""
    from dpcvx.verification.kernel_loss import TwoPieceLinear

    two = TwoPieceLinear(*pieces)
    a1, c1, a2, c2 = (Fraction(value) for value in pieces)
    rng = np.random.default_rng(4)
    z = np.concatenate([rng.uniform(-3, 3, 50), rng.uniform(-1e-9, 1e-9, 50)])
    u = np.concatenate([rng.uniform(float(a1), float(a2), 50), np.full(50, float(a1))])
    u[-10:] = float(a1) + 1e-12
    for zi, ui, computed in zip(z, u, two.fenchel_young(z, u), strict=True):
        Z, U = Fraction(zi), Fraction(ui)
        exact = max(a1 * Z + c1, a2 * Z + c2) - c1 - (c2 - c1) * (U - a1) / (a2 - a1) - U * Z
        assert exact >= 0
        assert abs(Fraction(computed) - exact) <= Fraction(8 * np.finfo(float).eps) * exact
