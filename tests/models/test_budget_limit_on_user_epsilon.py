"""A refusal of a part of the user's epsilon quotes that part as epsilon' and advises the limit on what the user sets.

Analyst probe P7 (session 68, finding 3): ``DPLogisticRegression(delta=1e-6, epsilon=3000, classes=(0, 1, 2, 3))``
was refused with "epsilon=749.99999999925 is above 700 ... choose epsilon <= 700", one class's part quoted as the
user's epsilon and the limit set on it, while epsilon=2800 was accepted. Each test drives a public estimator (or
learner) whose fit checks a part of epsilon (one-vs-rest's k fits, column statistics drawn first, a private class
count, a private norm bound, tune's candidates) and asserts: the refusal quotes the user's epsilon, names the part
epsilon', advises a limit that is accepted, while the limit plus one unit in its sixth significant digit is refused,
and nothing is charged (dpcvx.privacy.budget_part).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import dpcvx
import dpcvx.sklearn as S
from dpcvx.exceptions import (
    BudgetLimitError,
    ClassFloorWarning,
    ClippingWarning,
    NoiseDominatesWarning,
    SmallTableWarning,
    TrainingRowsWarning,
)

#: the fits at huge epsilon on random labels: their notes are not what these tests read
QUIET = (NoiseDominatesWarning, SmallTableWarning, TrainingRowsWarning, ClippingWarning, ClassFloorWarning)


def _rows(n: int = 600, k: int = 4) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1).max()
    return X, rng.integers(0, k, n)


def _advised(message: str) -> float:
    """The limit a refusal advises on the epsilon the user sets."""
    found = re.search(r"choose epsilon <= ([0-9.e+]+)", message)
    assert found, message
    return float(found.group(1))


def _above(limit: float) -> float:
    """The limit plus one unit in its sixth significant digit: just above what the advice writes."""
    return limit + 10.0 ** (np.floor(np.log10(limit)) - 5)


def _fit(make, X, y, epsilon: float) -> None:
    with warnings.catch_warnings():
        for category in QUIET:
            warnings.simplefilter("ignore", category)
        make(epsilon).fit(X, y)


def _refusal(make, X, y, epsilon: float) -> str:
    accountant = dpcvx.PrivacyAccountant(epsilon=1e6, delta=0.5)
    with pytest.raises(BudgetLimitError) as raised, warnings.catch_warnings():
        for category in QUIET:
            warnings.simplefilter("ignore", category)
        make(epsilon, accountant).fit(X, y)
    assert accountant.spent.epsilon == 0 and accountant.spent.delta == 0  # refused before any charge
    return str(raised.value)


def _classifier(**settings):
    def make(epsilon: float, accountant=None):
        return S.DPLogisticRegression(delta=1e-6, epsilon=epsilon, random_state=0, accountant=accountant, **settings)
    return make


def _the_advice_holds(make, X, y, limit: float) -> None:
    _fit(make, X, y, limit)
    with pytest.raises(BudgetLimitError):
        _fit(make, X, y, _above(limit))


def test_the_probe_s_one_vs_rest_refusal_quotes_the_class_part_and_the_limit_on_epsilon():
    X, y = _rows()
    make = _classifier(classes=(0, 1, 2, 3), column_statistics=False)
    message = _refusal(make, X, y, 3000.0)
    assert message.startswith("epsilon' = 749.99999999925 (one class's part of your epsilon = 3000: one-vs-rest's "
                              "4 fits spend 750 each) is above 700"), message
    assert "epsilon=749" not in message and "choose epsilon <= 700," not in message
    assert "choose epsilon <= 2800 (so that epsilon' <= 700)" in message
    _the_advice_holds(make, X, y, _advised(message))


def test_column_statistics_drawn_first_quote_the_fit_s_part_and_the_limit_on_epsilon():
    X, y = _rows(k=2)
    make = _classifier(classes=(0, 1), column_statistics=True)
    message = _refusal(make, X, y, 800.0)
    assert message.startswith("epsilon' = 720 (the part of your epsilon = 800 that fits the weights"), message
    assert _advised(message) == 777.777  # 700 / (1 - column_statistics_share 0.1), rounded down
    _the_advice_holds(make, X, y, 777.777)


def test_one_vs_rest_after_column_statistics_states_the_limit_on_epsilon():
    X, y = _rows()
    make = _classifier(classes=(0, 1, 2, 3), column_statistics=True)
    message = _refusal(make, X, y, 4000.0)
    # the k fits share what column statistics leave (4000 less 400): not "spend 1000 each" (an attacker probe)
    assert "your epsilon = 4000: one-vs-rest's 4 fits share what is left of it after what is drawn first" in message
    assert "spend 1000 each" not in message, message
    part = float(message[len("epsilon' = "):message.index(" (")])
    assert part == pytest.approx(900.0, rel=1e-9) and "epsilon=" not in message  # 4000 less eps_s 400, over 4
    _the_advice_holds(make, X, y, _advised(message))


def test_a_private_class_count_s_part_states_the_limit_on_epsilon():
    X, y = _rows(k=2)
    make = _classifier(classes=(0, 1), class_weight="balanced", class_prior="private", column_statistics=False)
    message = _refusal(make, X, y, 800.0)
    assert "of your epsilon = 800 that fits the weights" in message and "epsilon=" not in message, message
    assert _advised(message) == 736.842  # 700 / (1 - class_count_share 0.05)
    _the_advice_holds(make, X, y, 736.842)


def test_a_private_norm_bound_s_part_states_the_limit_on_epsilon():
    X, y = _rows(k=2)
    make = _classifier(classes=(0, 1), data_norm="private", norm_range=(0.01, 100.0))
    message = _refusal(make, X, y, 800.0)
    assert "of your epsilon = 800 that fits the weights" in message, message
    _the_advice_holds(make, X, y, _advised(message))


def test_check_options_refuses_what_fit_refuses_on_the_fit_s_part():
    """check_options checked the whole epsilon against 700 where fit checks the fit's part: 750 with column
    statistics (a fit at 675) was refused by check_options and accepted by fit."""
    learner = dpcvx.PrivateERM(loss="logistic", lam=0.01, data_norm=1.0, classes=(0, 1), column_statistics=True)
    learner.check_options(750.0, delta=1e-6)
    with pytest.raises(BudgetLimitError, match=r"choose epsilon <= 777\.777 \(so that epsilon' <= 700\)"):
        learner.check_options(778.0, delta=1e-6)
    multiclass = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(loss="logistic", lam=0.01, data_norm=1.0),
                                            classes=(0, 1, 2))
    multiclass.check_options(2100.0, delta=1e-6)
    with pytest.raises(BudgetLimitError, match=r"your epsilon = 2101: one-vs-rest's 3 fits .* choose epsilon <= "
                                               r"2100 \(so that"):
        multiclass.check_options(2101.0, delta=1e-6)


def test_a_fit_of_the_whole_epsilon_still_says_epsilon():
    X, y = _rows(k=2)
    message = _refusal(_classifier(classes=(0, 1), column_statistics=False), X, y, 800.0)
    assert message.startswith("epsilon=800 is above 700") and "choose epsilon <= 700, or" in message, message


def test_tune_s_candidates_are_refused_on_the_epsilon_given_to_tune():
    X, y = _rows()
    learner = S.DPLogisticRegression(classes=(0, 1, 2, 3), delta=1e-6, column_statistics=False)
    with pytest.raises(BudgetLimitError) as raised:
        dpcvx.tune(learner, X, y, {"lam": [0.01, 0.1]}, epsilon=3000.0, procedure="split", delta=1e-6,
                   random_state=0)
    message = str(raised.value)
    assert "your epsilon = 3000" in message and "choose epsilon <= 2800" in message, message


def test_one_vs_rest_output_after_column_statistics_quotes_the_part_left_for_the_fits():
    X, y = _rows(n=2000)
    with pytest.raises(dpcvx.InputError) as raised, warnings.catch_warnings():
        for category in QUIET:
            warnings.simplefilter("ignore", category)
        S.DPLogisticRegression(mechanism="output", delta=1e-4, epsilon=1e-4, classes=(0, 1, 2, 3),
                               column_statistics=True, random_state=0).fit(X, y)
    message = str(raised.value)
    assert "at epsilon' = 9e-05 (the part of your epsilon = 0.0001 that fits the weights" in message, message
    assert "epsilon=9e-05" not in message
