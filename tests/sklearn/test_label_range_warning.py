"""A regressor's label clipping is told in the terms the user declared: a range label_bound=(lo, hi) is fitted as
y - (lo + hi) / 2 within [-B, B], and the warning spoke of that B (labels of -3000 "had |y| > B = 2000") and advised
declaring the range already declared. It names the declared [lo, hi] now; a bound B keeps its |y| > B text."""

import numpy as np
import pytest

from dpcvx import DPHuberRegressor, DPLinearRegression
from dpcvx.exceptions import ClippingWarning
from dpcvx.validation import label_codes

pytestmark = [pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")]

RNG = np.random.default_rng(3)
X = RNG.uniform(-0.5, 0.5, size=(400, 3))
Y = -3000.0 + 800.0 * X[:, 0]
Y[:7] = -6000.0  # seven labels below lo


@pytest.mark.parametrize("estimator", [DPLinearRegression, DPHuberRegressor])
def test_a_declared_range_is_named_in_the_clipping_warning(estimator):
    with pytest.warns(ClippingWarning) as caught:
        estimator(label_bound=(-5000, -1000), delta=1e-6, random_state=0).fit(X, Y)
    texts = [str(warning.message) for warning in caught if warning.category is ClippingWarning]
    assert len(texts) == 1, texts
    assert texts[0].startswith("7 of 400 labels lay outside the declared range [lo, hi] = [-5000, -1000] and were "
                               "clipped onto it")
    assert "|y| > B" not in texts[0] and "label_bound=(lo, hi)" in texts[0]


@pytest.mark.parametrize("estimator", [DPLinearRegression, DPHuberRegressor])
def test_a_declared_bound_keeps_its_text(estimator):
    with pytest.warns(ClippingWarning, match=r"^7 of 400 labels had \|y\| > B = 5000 and were clipped onto \[-B, B\]"):
        estimator(label_bound=5000, delta=1e-6, random_state=0).fit(X, Y)


def _scores_with_a_code(n: int = 4000, seed: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A score in [0, 100] of three columns, with 4 % of its labels at the code 999 ("unknown")."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(n, 3))
    y = np.clip(50 + 60 * X[:, 0] - 40 * X[:, 1] + rng.normal(0, 8, n), 0, 100)
    code = rng.random(n) < 0.04
    y[code] = 999
    return X, y, code


@pytest.mark.parametrize("estimator", [DPLinearRegression, DPHuberRegressor])
def test_a_code_among_the_clipped_labels_is_named_with_its_own_fix(estimator):
    """4 % of a [0, 100] score at the code 999: the note only said to declare a range holding every label (which,
    followed, fitted the code as a label); it names the repeated largest label (not its value: that is data) and
    says to drop or read it as missing."""
    X, y, code = _scores_with_a_code()
    with pytest.warns(ClippingWarning) as caught:
        estimator(label_bound=(0, 100), delta=1e-6, random_state=0).fit(X, y)
    text = next(str(w.message) for w in caught if w.category is ClippingWarning)
    assert text.startswith(f"{code.sum()} of 4000 labels lay outside the declared range [lo, hi] = [0, 100]")
    assert "Among them the largest label repeats on several rows" in text and "drop those rows or read it" in text
    assert "999" not in text.replace("(such as 999 or -1)", "")


@pytest.mark.parametrize("estimator", [DPLinearRegression, DPHuberRegressor])
def test_labels_spread_beyond_the_range_are_not_called_a_code(estimator):
    """Labels that pass the range by scattered amounts (a range declared too narrow) keep the plain note."""
    X, y, code = _scores_with_a_code()
    y[code] = 100 + 50 * np.random.default_rng(2).random(code.sum())
    with pytest.warns(ClippingWarning) as caught:
        estimator(label_bound=(0, 100), delta=1e-6, random_state=0).fit(X, y)
    text = next(str(w.message) for w in caught if w.category is ClippingWarning)
    assert text.startswith(f"{code.sum()} of 4000 labels lay outside") and "on several rows" not in text


def test_label_codes_reads_the_ends_of_the_labels():
    scores = np.linspace(0, 100, 200)
    assert label_codes(np.r_[scores, [999.0] * 5]) == (999.0,)
    assert label_codes(np.r_[scores, [999.0] * 5, [-1000.0] * 3]) == (999.0, -1000.0)
    assert label_codes(np.r_[scores, [999.0] * 5], label_bound=1000) == ()  # inside [-B, B]: nothing clipped
    assert label_codes(np.r_[scores, [999.0]]) == ()  # one row: not repeated
    assert label_codes(np.r_[scores, [150.0] * 5]) == ()  # nearer the others than they spread
    assert label_codes(np.r_[np.zeros(300), np.ones(200)]) == ()  # 0/1 labels: no spread beside either end
