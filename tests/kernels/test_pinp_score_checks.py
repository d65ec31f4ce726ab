"""PINP.score checks y and sample_weight before it answers a row: each answer spends the curator's budget (an update
when the gap passes the threshold) and enters the released transcript, so a refused score answered rows (10 answers
for ``score(X[:10], y[:9])``) and could use up updates."""

import dataclasses

import numpy as np
import pytest

from dpcvx import PINP, InputError


def circle_task(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


def _curator(updates):
    X, y = circle_task(300, 22)
    pinp = PINP("rbf", gamma=4.0, lam=0.1, max_queries=40, max_updates=updates, loss="huber_hinge:h=0.5").fit(
        X, y, 1.0, random_state=2)
    # a (public) threshold far below every gap makes each query an update
    pinp.parameters_ = dataclasses.replace(pinp.parameters_, threshold=-1e9, threshold_steps=-10**18)
    return pinp

BAD = {
    "short y": lambda y: (y[:-1], None),
    "missing y": lambda y: (None, None),
    "text labels": lambda y: (np.array(["a"] * y.size), None),
    "labels outside -1, +1": lambda y: (np.where(y > 0, 1.0, 0.0), None),
    "two-column y": lambda y: (np.column_stack([y, y]), None),
    "NaN label": lambda y: (np.r_[np.nan, y[1:]], None),
    "short weights": lambda y: (y, np.ones(y.size - 1)),
    "weights summing to zero": lambda y: (y, np.r_[1.0, -1.0, np.zeros(y.size - 2)]),
    "NaN weight": lambda y: (y, np.r_[np.nan, np.ones(y.size - 1)]),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_refused_score_answers_no_row(case):
    pinp = _curator(updates=20)  # every answer is an update (the threshold is far below every gap)
    X, y = circle_task(10, 5)
    labels, weights = BAD[case](y)
    with pytest.raises(InputError):
        pinp.score(X, labels, sample_weight=weights)
    assert pinp.queries_answered_ == 0 and pinp.updates_used_ == 0
    assert pinp.release().outputs["answers"] == []


def test_a_checked_score_answers_every_row_once():
    pinp = _curator(updates=20)
    X, y = circle_task(10, 5)
    score = pinp.score(X, y, sample_weight=np.full(10, 2.0))
    assert 0.0 <= score <= 1.0 and pinp.queries_answered_ == 10 and pinp.updates_used_ == 10
