"""PINP's answers under a floating-point support attack in the manner of Mironov (2012).

The old release, ``secret + numpy Laplace`` in doubles, is modelled bit for bit (numpy's
``Generator.laplace`` maps a 53-bit uniform U = k 2^-53 to scale log(2U) or -scale log(2 - 2U)).
For an answer a released under D the attack asks whether any of the 2^53 noise values gives a
under the neighbour D' (bisection over k: the noise is monotone in k). Answers that cannot occur
under D' break every (epsilon, delta) claim with delta below their frequency.

The lattice release (PINP today) puts every output on gamma_L Z with exact discrete Laplace
noise: the same attack finds nothing, and the exact pmf bounds the probability ratio of every
output by e^eps_answer.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest
from support_attack import LAPLACE_BRANCHES, can_occur, numpy_laplace, on_lattice, released_value

from dpcvx.exceptions import SolverError
from dpcvx.models.kernel_learner import check_coefficient_bound
from dpcvx.models.pinp import PINP
from dpcvx.privacy.lattice import to_lattice

LOSS = "huber_hinge:h=0.5"


def circle_task(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


def can_occur_raw(answer: float, secret: float, scale: float) -> bool:
    """Whether fl(secret + numpy_laplace(k, scale)) == answer for some k in [1, 2^53)."""
    return can_occur(answer, released_value(secret, lambda k: numpy_laplace(k, scale), None), LAPLACE_BRANCHES)


@pytest.fixture(scope="module")
def neighbours():
    """Two curators fitted on neighbouring data (row 0 replaced), a query, and their secrets there."""
    X, y = circle_task(150, 31)
    X2, y2 = X.copy(), y.copy()
    X2[0], y2[0] = -X[0], -y[0]
    fits = [PINP("rbf", gamma=4.0, lam=0.1, max_queries=50, max_updates=20, loss=LOSS).fit(
        data, labels, 1e4, 1e-6, random_state=3) for data, labels in ((X, y), (X2, y2))]
    query = np.array([[0.2, -0.1]])
    secrets = [float(fit._model.predict(query)[0]) for fit in fits]
    return fits, query, secrets


def test_the_numpy_laplace_model_is_bit_exact():
    scale = 0.00213
    drawn, raw = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(2000):
        assert drawn.laplace(0.0, scale) == numpy_laplace(int(raw.bit_generator.random_raw()) >> 11, scale)


def test_raw_double_answers_fall_to_the_support_attack(neighbours):
    """secret + numpy Laplace: answers under D that no noise value produces under D'."""
    fits, _, (secret, other) = neighbours
    parameters = fits[0].parameters_
    assert 0 < abs(secret - other) <= parameters.query_sensitivity
    rng = np.random.default_rng(7)
    answers = [secret + rng.laplace(0.0, parameters.answer_noise) for _ in range(1000)]
    assert all(can_occur_raw(answer, secret, parameters.answer_noise) for answer in answers[:100])  # the model
    impossible = sum(not can_occur_raw(answer, other, parameters.answer_noise) for answer in answers)
    assert impossible >= 100  # delta >= 0.1 against a claimed 1e-6 (seeded; 843 of 1000 here)


def test_lattice_answers_have_the_same_support_and_a_bounded_ratio(neighbours):
    fits, query, (secret, other) = neighbours
    curator = fits[0]
    parameters = dataclasses.replace(curator.parameters_, threshold_steps=-10**18)  # every query answers
    curator.parameters_ = parameters
    spacing, K = parameters.lattice, parameters.lattice_sensitivity
    answer_scale = parameters.lattice_scales()[2]
    steps = [to_lattice(value, spacing, parameters.magnitude_bound) for value in (secret, other)]
    assert abs(steps[0] - steps[1]) <= K
    answers = [curator.query(query) for _ in range(parameters.max_updates)]
    half = Fraction(parameters.round_epsilon) / 2
    for answer in answers:
        j = Fraction(answer) / Fraction(spacing)
        assert j.denominator == 1  # on the public lattice: an integer number of steps
        # probability under D and D': the exact discrete Laplace pmf at j - q, always positive;
        # log ratio = (|j - q_D'| - |j - q_D|) / t <= |q_D - q_D'| / t <= K / t = eps_answer
        log_ratio = (abs(j - steps[1]) - abs(j - steps[0])) / answer_scale
        assert abs(log_ratio) <= K / answer_scale <= half * (1 + 1e-12)
        assert on_lattice(answer, spacing)
    assert len(set(answers)) > 1


def test_the_coefficient_bound_behind_the_evaluation_error_is_checked(neighbours):
    """E rests on sum_i |w_i| <= A = 2 L / lam; the curator checks it before answering anything."""
    fits, _, _ = neighbours
    parameters = fits[0].parameters_
    assert parameters.coefficient_bound == pytest.approx(2 * 1.0 / 0.1, rel=1e-9)
    check_coefficient_bound(fits[0]._model, parameters.coefficient_bound, "no query was answered")  # it holds
    with pytest.raises(SolverError, match="no query was answered"):
        check_coefficient_bound(fits[0]._model, 1e-3, "no query was answered")
