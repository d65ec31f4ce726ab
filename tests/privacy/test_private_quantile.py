"""The exponential-mechanism quantile of the row norms: its law, its grid and its order (charge, then read)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpcvx
from dpcvx.exceptions import BudgetExceededError, InputError
from dpcvx.privacy import quantile as quantile_module
from dpcvx.privacy.quantile import power_of_two_grid, private_norm_bound, quantile_probabilities, row_norms


def _rows(n: int = 400, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X * rng.uniform(0.2, 6.0, size=(n, 1)) / np.linalg.norm(X, axis=1, keepdims=True)


def test_the_grid_is_the_powers_of_two_in_the_public_range():
    assert power_of_two_grid(0.3, 10) == (0.5, 1.0, 2.0, 4.0, 8.0)
    assert power_of_two_grid(1, 1) == (1.0,)
    with pytest.raises(InputError, match="no power of two"):
        power_of_two_grid(0.3, 0.4)


def _chi_square_p(chosen: np.ndarray, grid: tuple[float, ...], probabilities: np.ndarray) -> float:
    observed = np.array([np.sum(chosen == r) for r in grid])
    keep = probabilities * chosen.size >= 5  # pool the rare cells
    observed = np.append(observed[keep], observed[~keep].sum())
    expected = np.append(probabilities[keep], probabilities[~keep].sum()) * chosen.size
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.slow  # about 2.3 s: a law by sampling
def test_the_chosen_bound_follows_the_exponential_mechanism_law():
    """3,000 seeded draws at eps_q = 0.05 (a spread law over 6 grid points): chi-square p > 0.001; a broken
    draw (a score of sensitivity 2, i.e. half the epsilon) is rejected at p < 1e-6."""
    X, epsilon = _rows(), 0.05
    grid = power_of_two_grid(0.25, 8)
    law = quantile_probabilities(row_norms(X), grid, 0.9, epsilon)
    rng = np.random.default_rng(7)
    chosen = np.array([private_norm_bound(X, epsilon=epsilon, r_min=0.25, r_max=8, quantile=0.9,
                                          random_state=rng).bound for _ in range(3000)])
    assert _chi_square_p(chosen, grid, law) > 1e-3
    broken = np.array([private_norm_bound(X, epsilon=epsilon / 2, r_min=0.25, r_max=8, quantile=0.9,
                                          random_state=rng).bound for _ in range(3000)])
    assert _chi_square_p(broken, grid, law) < 1e-6


def test_the_norms_are_never_read_before_the_charge(monkeypatch):
    reads: list[str] = []
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    original_spend = accountant.spend

    def spend(*args, **kwargs):
        reads.append("charge")
        return original_spend(*args, **kwargs)

    def norms(X):
        reads.append("norms")
        return row_norms(X)

    monkeypatch.setattr(accountant, "spend", spend)
    monkeypatch.setattr(quantile_module, "row_norms", norms)
    result = private_norm_bound(_rows(), epsilon=0.5, r_min=0.5, r_max=8, accountant=accountant, random_state=1)
    assert reads == ["charge", "norms"]
    assert accountant.spent == (0.5, 0.0) and result.bound in result.grid
    reads.clear()
    with pytest.raises(BudgetExceededError):
        private_norm_bound(_rows(), epsilon=0.75, r_min=0.5, r_max=8, accountant=accountant, random_state=1)
    assert reads == ["charge"] and accountant.spent == (0.5, 0.0)  # refused: nothing read, nothing spent
    with pytest.raises(InputError):
        private_norm_bound(_rows(), epsilon=0.1, r_min=0.5, r_max=8, quantile=1.0, accountant=accountant)
    assert reads == ["charge"]


def test_the_scores_are_exact_rationals_of_sensitivity_exactly_one():
    """n = 259, q = 0.01: in doubles, 258 - fl(2.59) is rounded again and two neighbours' scores differ by
    1 + 2.8e-14 (the audit's finding); the exact scores differ by at most 1 exactly, over every replacement
    of one row that moves a count (each grid point's count by one)."""
    from fractions import Fraction

    from dpcvx.privacy.quantile import quantile_scores

    n, q = 259, 0.01
    assert abs(Fraction(-abs(258.0 - q * n)) - Fraction(-abs(259.0 - q * n))) > 1  # the double score's defect
    grid = (1.0, 2.0, 4.0)
    norms = np.full(n, 0.5)
    worst = Fraction(0)
    for moved in range(n):  # the neighbour replaces one row at 0.5 by a row of norm 3 (leaves grid points 1, 2)
        base = np.where(np.arange(n) < moved, 3.0, 0.5)
        neighbour = base.copy()
        neighbour[moved] = 3.0
        scores, other = quantile_scores(base, grid, q), quantile_scores(neighbour, grid, q)
        assert all(isinstance(score, Fraction) for score in scores)
        worst = max(worst, *(abs(a - b) for a, b in zip(scores, other, strict=True)))
    assert worst == 1
    assert quantile_scores(norms, grid, q)[0] == -abs(n - Fraction(q) * n)


@pytest.mark.parametrize("sparse_rows", [False, True])
def test_a_row_whose_squares_overflow_has_norm_inf_and_no_warning(sparse_rows):
    """numpy's overflow warning of a row near 1e300 appeared or not with that one private row, beside a release that
    did not change (an infinite norm is above every grid point, as the true one)."""
    import warnings

    from scipy import sparse

    X = np.array([[1e300, -1e300], [0.3, 0.4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        norms = row_norms(sparse.csr_matrix(X) if sparse_rows else X)
    assert norms[0] == np.inf and norms[1] == pytest.approx(0.5)
