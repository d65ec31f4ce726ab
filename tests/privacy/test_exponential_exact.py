"""The exponential mechanism draws its law exactly (dpcvx.privacy.exponential.sample_exponential).

Statistical tolerance: a chi-square p-value above 1e-3 on 8,000 seeded draws; the same test
must reject a broken variant (epsilon halved inside the Bernoulli) at p < 1e-6.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpcvx.privacy.exact_sampling import GeneratorSource
from dpcvx.privacy.exponential import exponential_probabilities, sample_exponential

DRAWS = 8_000
SCORES, EPSILON, SENSITIVITY = [-3.0, -1.0, -2.5, 0.5, -6.0], 1.3, 0.7


def pvalue(sampler) -> float:
    rng = np.random.default_rng(21)
    counts = np.bincount([sampler(SCORES, EPSILON, SENSITIVITY, rng) for _ in range(DRAWS)], minlength=len(SCORES))
    weights = np.array([math.exp(EPSILON * u / (2 * SENSITIVITY)) for u in SCORES])
    return float(stats.chisquare(counts, DRAWS * weights / weights.sum()).pvalue)


@pytest.mark.slow  # about 2 s (the default run's 5-minute limit)
def test_exact_exponential_mechanism_matches_its_law_and_a_broken_one_fails():
    assert pvalue(sample_exponential) > 1e-3

    def broken(scores, epsilon, sensitivity, rng):  # exp(epsilon u / (4 Delta)): the rate halved
        return sample_exponential(scores, epsilon / 2, sensitivity, rng)

    assert pvalue(broken) < 1e-6


class ScriptedSource:
    """An integer source answering below(k) from a table (to force one path through the sampler)."""

    reproducible = True

    def __init__(self, table: dict[int, int]):
        self.table = table

    def below(self, k: int) -> int:
        return self.table[k]


def test_a_candidate_whose_float_weight_underflows_keeps_positive_probability():
    """exp(-800) is 0.0 in doubles: the float mechanism can never select candidate 3, so an output
    impossible under one data set is possible under a neighbour whose score moved (Ilvento 2020).
    The exact sampler selects it along a path of positive probability: propose 3 (below(4) = 3),
    then 800 Bernoulli(exp(-1)) successes (each: below(1) = 0, below(2) = 0, below(3) = 1)."""
    scores = [0.0, -1.0, -2.0, -800.0]
    assert exponential_probabilities(scores, 2.0, 1.0)[3] == 0.0
    source = ScriptedSource({4: 3, 1: 0, 2: 0, 3: 1})
    assert sample_exponential(scores, 2.0, 1.0, source) == 3


def test_the_seeded_draws_are_reproducible():
    source_a, source_b = GeneratorSource(np.random.default_rng(9)), GeneratorSource(np.random.default_rng(9))
    draws = [sample_exponential(SCORES, EPSILON, SENSITIVITY, source_a) for _ in range(50)]
    assert draws == [sample_exponential(SCORES, EPSILON, SENSITIVITY, source_b) for _ in range(50)]
    assert len(set(draws)) > 1
