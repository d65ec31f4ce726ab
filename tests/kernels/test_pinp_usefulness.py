"""PINP says when its answers are expected to be no better than the answer 0: from public parameters (its accuracy
guarantee no better than 0's, NoiseDominatesWarning) or, NOT PRIVATE, from its training rows (TrainingRowsWarning).
Both were silent: a fit at epsilon 1 answered 0 to every query (the class -1, kernel_labels) without a word."""

import warnings

import numpy as np
import pytest
from circles import circle

from dpcvx.exceptions import NoiseDominatesWarning, TrainingRowsWarning
from dpcvx.models.pinp import PINP
from dpcvx.privacy.kernel_calibrate import pinp_parameters


def test_a_vacuous_guarantee_is_named_from_public_parameters():
    X, y = circle(800)
    with pytest.warns(NoiseDominatesWarning, match=r"^PINP: its accuracy guarantee is vacuous: each answer is within "
                      r"57.21 of .*threshold tau = 35.68 is above every gap .* 14.14"):
        model = PINP("rbf", gamma=2.0, lam=0.01, max_queries=100).fit(X, y, 1.0, delta=1e-5, random_state=0)
    answers = model.decision_function(X[:100])  # its T = 100 queries
    assert model.updates_used_ == 0 and np.all(answers == 0.0)  # what the warning said: 0 to every query


@pytest.mark.parametrize("epsilon, expected", [(1.0, True), (5.0, True), (10.0, False), (50.0, False)])
def test_the_finding_is_the_comparison_of_the_guarantee_with_the_magnitude_bound(epsilon, expected):
    """accuracy >= (C + gamma) R exactly when the finding is given; public inputs only (no data)."""
    parameters = pinp_parameters(3000, 0.01, 1.0, 1.0, 14.142135623730951, epsilon, 1e-5, 100)
    assert (parameters.vacuous_finding() is not None) == expected
    assert (parameters.accuracy >= parameters.magnitude_bound) == expected


def test_a_useless_transcript_is_named_on_the_training_rows_when_the_guarantee_is_not_vacuous():
    """NOT PRIVATE: at epsilon 50 the guarantee is no longer vacuous, but every training row's |<w*, phi(x)>| lies
    below the threshold, so every query is expected to get 0; the owner is told, from w* and the rows."""
    X, y = circle(800)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = PINP("rbf", gamma=2.0, lam=0.1, max_queries=100).fit(X, y, 50.0, delta=1e-5, random_state=0)
    kinds = [type(warning.message) for warning in caught]
    assert TrainingRowsWarning in kinds and NoiseDominatesWarning not in kinds
    assert model.queries_answered_ == 0  # the check answered no query
    assert np.all(model.decision_function(X[:100]) == 0.0)


def test_the_curator_answers_at_most_its_max_queries():
    """sigma is calibrated for T = max_queries answers (ln(3 T / beta)); the curator answered past T and released 60
    answers under a certificate for 5 (an attacker probe, sixty-second session). A call that would pass T is refused
    before any of it is answered (the count is the analyst's own, public), whichever entry asks."""
    from dpcvx.exceptions import BudgetExceededError

    X, y = circle(300)
    curator = PINP("rbf", gamma=2.0, lam=0.1, max_queries=5).fit(X, y, 1.0, delta=1e-5, random_state=0)
    curator.decision_function(X[:3])
    for ask in (lambda: curator.decision_function(X[:3]), lambda: curator.predict(X[:3]),
                lambda: curator.score(X[:3], y[:3])):
        with pytest.raises(BudgetExceededError, match=r"answered 3 of its T = 5 queries .* asks 3 more"):
            ask()
    curator.query(X[3]), curator.query(X[4])
    with pytest.raises(BudgetExceededError, match="answered 5 of its T = 5"):
        curator.query(X[5])
    assert curator.queries_answered_ == 5 and len(curator.release().outputs["answers"]) == 5
