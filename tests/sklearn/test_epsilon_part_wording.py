"""Every warning that quotes the epsilon a fit's weights were calibrated to says how it stands to the epsilon the
user gave, in one phrase (dpcvx.sklearn.noise_warning.epsilon_share). An analyst probe (session 67, P3 finding 4):
DPHuberRegressor's NoiseDominatesWarning and SmallTableWarning quoted "epsilon=0.15" for a user's epsilon 0.3 whose
other half bought the column and label ranges."""

from __future__ import annotations

import warnings

import numpy as np

import dpcvx
from dpcvx.exceptions import NoiseDominatesWarning, SmallTableWarning

PART = "the part of your epsilon = 0.3 that fits the weights"


def test_one_phrase_for_the_part_and_the_whole() -> None:
    from dpcvx.sklearn.noise_warning import epsilon_quoted, epsilon_share

    assert epsilon_share(0.3, 0.3) is None and epsilon_quoted(0.3, 0.3) == "epsilon=0.3"
    assert epsilon_quoted(0.3, None) == "epsilon=0.3"
    assert epsilon_quoted(0.15, 0.3).startswith("epsilon' = 0.15 (" + PART)
    assert "one class's part of your epsilon = 0.3: one-vs-rest's 3 fits spend 0.1 each" in epsilon_quoted(0.1, 0.3, 3)


def test_the_huber_regressor_s_warnings_name_the_part_of_the_user_s_epsilon() -> None:
    rng = np.random.default_rng(0)
    n, d = 2000, 20
    X = rng.uniform(-1, 1, (n, d)) / np.sqrt(d)
    y = X @ rng.normal(size=d) * 30 + rng.normal(0, 1, n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPHuberRegressor(epsilon=0.3, label_bound=(-50, 50), random_state=0).fit(X, y)
    fit_epsilon = model.certificate_.epsilon
    assert fit_epsilon < 0.3  # the rest bought the column statistics
    quoted = [str(w.message) for w in caught if issubclass(w.category, (NoiseDominatesWarning, SmallTableWarning))]
    assert any(issubclass(w.category, SmallTableWarning) for w in caught)
    assert quoted and all(f"epsilon={fit_epsilon:g}" not in text for text in quoted)
    small = [text for text in quoted if "n epsilon / d" in text]
    assert small and all(f"epsilon' = {fit_epsilon:g} in epsilon's place ({PART}" in text for text in small)
    assert all(PART in text for text in quoted if "public quantities only (" in text)
