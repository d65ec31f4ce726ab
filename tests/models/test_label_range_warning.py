"""A regressor's label clipping is told in the terms the user declared: a range label_bound=(lo, hi) is fitted as
y - (lo + hi) / 2 within [-B, B], and the warning spoke of that B (labels of -3000 "had |y| > B = 2000") and advised
declaring the range already declared. It names the declared [lo, hi] now; a bound B keeps its |y| > B text."""

import numpy as np
import pytest

from dpcvx import DPHuberRegressor, DPLinearRegression
from dpcvx.exceptions import ClippingWarning

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
