"""Full-data selection draws each run's coins again until they leave enough rows to train on (audit, twenty-eighth
session): a run whose coins held out every row fitted on no rows after the charge, and a balanced-weights candidate
(a private class count, two rows at least) on one row; both raised a SolverError with the budget spent (81 % of runs
at n = 2 and held_out = 0.9). The fewest rows are found on synthetic rows before the charge
(:func:`dpcvx.models.failure.least_rows`), and a held_out that leaves them too rarely is refused before it."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import InputError
from dpcvx.privacy.partition import coin_parts, training_chance

X, Y = synthetic_classification(n=40, d=3, random_state=0)


def _tune(learner, n: int, held_out: float, seed: int, accountant=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return dpcvx.tune(learner, X[:n], Y[:n], {"lam": [0.01, 0.1]}, epsilon=1.0, held_out=held_out,
                          accountant=accountant, random_state=seed)


@pytest.mark.parametrize("seed", range(6))
def test_no_run_fits_on_an_empty_training_part(seed: int) -> None:
    accountant = dpcvx.PrivacyAccountant(epsilon=10)
    result = _tune(dpcvx.PrivateERM(data_norm=1.0), 2, 0.9, seed, accountant)
    assert result.certificate.epsilon == pytest.approx(1.0) and accountant.spent.epsilon == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(4))
def test_a_private_class_count_gets_the_two_rows_it_needs(seed: int) -> None:
    learner = dpcvx.DPLogisticRegression(classes=(-1, 1), data_norm=1.0, column_statistics=False,
                                         class_weight="balanced")
    _tune(learner, 3, 0.9, seed)


def test_a_held_out_that_leaves_too_few_training_rows_is_refused_before_the_charge() -> None:
    accountant = dpcvx.PrivacyAccountant(epsilon=10)
    learner = dpcvx.DPLogisticRegression(classes=(-1, 1), data_norm=1.0, column_statistics=False,
                                         class_weight="balanced")
    with pytest.raises(InputError, match="held_out=0.9999 and n=3 rows.*2 training rows every candidate needs"):
        _tune(learner, 3, 0.9999, 0, accountant)
    assert accountant.spent.epsilon == 0 and not accountant.ledger


def test_the_coins_law_is_the_binomial_conditioned_on_enough_training_rows() -> None:
    """n = 3 coins of bias 1/2 conditioned on at least 1 training row: |T| = k >= 1 with chance C(3, k) / 7. Seeded;
    20,000 draws, each frequency within 0.015 of its chance (over 4 standard deviations)."""
    rng = np.random.default_rng(2800)
    sizes = np.array([coin_parts(3, 0.5, rng, least=1)[0].size for _ in range(20_000)])
    assert not np.any(sizes == 0)
    for k in range(1, 4):
        assert abs(np.mean(sizes == k) - math.comb(3, k) / 7) < 0.015
    assert training_chance(3, 0.5, 1) == pytest.approx(7 / 8)
    assert min(coin_parts(5, 0.9, rng, least=2)[0].size for _ in range(500)) >= 2
