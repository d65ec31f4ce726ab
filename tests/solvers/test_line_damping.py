"""A full Newton step that fails the line search's sufficient decrease is retried at the line's minimum
(:func:`dpcvx.solvers.linear._line_damping`), not at half the step."""

from __future__ import annotations

import numpy as np
import pytest

from dpcvx.solvers import linear


def _halving(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second trial at half the step, as before."""
    monkeypatch.setattr(linear, "_line_damping", lambda *args: 0.5)


@pytest.mark.parametrize("seed", [0, 1])
def test_damped_steps_start_at_the_line_minimum(seed, fits_with_and_without, rows_repeated):
    X, y = rows_repeated(4000, 500, seed)
    fits = fits_with_and_without(X, y, _halving, 3, lam=1e-4)
    (products, iterations, weights), (products0, iterations0, weights0) = fits[True], fits[False]
    # both are certified stops of the same objective with the same noise: the same release up to the solver's gamma
    np.testing.assert_allclose(weights, weights0, atol=1e-6)
    # measured: 50 products and 12 iterations against 60 and 15 (seed 0), 52 and 11 against 62 and 14 (seed 1)
    assert iterations < iterations0 and products < products0, fits


class _Line:
    """An objective whose line phi(t) has phi'(t) = exp(a (t - root)) - 1 (convex, minimum at ``root``)."""

    def __init__(self, root: float, a: float, dim: int = linear.DENSE_NEWTON_MAX_DIM + 1) -> None:
        self.root, self.a, self.calls = root, a, 0
        self.dim = dim  # by default the CG path's widths, where the damping applies

    def line_derivatives(self, w, direction, margins, change, t):
        self.calls += 1
        e = np.exp(self.a * (t - self.root))
        return e - 1.0, self.a * e


@pytest.mark.parametrize("root, a", [(0.3, 2.0), (0.05, 8.0), (0.7, 30.0), (0.2, 0.5)])
def test_the_retried_step_is_the_line_minimum(root, a):
    line = _Line(root, a)
    slope = float(np.exp(-a * root) - 1.0)  # phi'(0) < 0
    t = linear._line_damping(line, None, None, np.zeros(3), None, slope)
    assert 0.0 < t < 1.0
    assert abs(np.exp(a * (t - root)) - 1.0) <= linear.LINE_SLOPE_TOL * abs(slope) or line.calls == \
        linear.LINE_DAMPING_STEPS
    assert abs(t - root) < 0.05, (t, root)


@pytest.mark.parametrize("dim, margins", [(linear.DENSE_NEWTON_MAX_DIM + 1, object()),
                                          (linear.DENSE_NEWTON_MAX_DIM, np.zeros(3))])
def test_margins_out_of_memory_and_the_dense_path_halve(dim, margins):
    line = _Line(0.3, 2.0, dim)
    assert linear._line_damping(line, None, None, margins, None, -1.0) == 0.5 and line.calls == 0
