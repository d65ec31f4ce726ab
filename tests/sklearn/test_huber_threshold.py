"""DPHuberRegressor(m="auto"): the Huber threshold m = B / 4 of the public label bound (docs/theory.md, section 16).

The rule reads the public B only: the certificate's L (= m for the Huber loss of the residual) is B / 4 for a
centred range and for a plain bound, whatever the labels are; with label_bound="private" there is no public B
and "auto" is refused before anything is charged. A threshold beyond the verifier's sampling reach (m >= 500)
and one next to a simple fraction (B / 4 = 12.50000000025) are proved as any other (both were refused: a breakpoint
sampled on the wrong side, or taken for 25/2).
"""

import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.sklearn.regressors import HUBER_FRACTION

RNG = np.random.default_rng(7)
X = RNG.uniform(-0.5, 0.5, size=(400, 3))


def _fit(labels: np.ndarray, **parameters: object) -> dpcvx.DPHuberRegressor:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return dpcvx.DPHuberRegressor(random_state=0, **parameters).fit(X, labels)


@pytest.mark.parametrize("label_bound, half_range", [((0.0, 500.0), 250.0), (40.0, 40.0), ((0.0, 8000.0), 4000.0)])
def test_auto_threshold_is_a_quarter_of_the_public_bound(label_bound, half_range):
    centre = 0.0 if isinstance(label_bound, float) else sum(label_bound) / 2
    for scale in (0.1, 1.0):  # the labels' own spread does not move m
        labels = centre + scale * half_range * np.clip(X @ [1.0, -1.0, 0.5], -1, 1)
        constants = _fit(labels, label_bound=label_bound).certificate_.constants
        assert Fraction(half_range) * Fraction(HUBER_FRACTION) == constants.L


def test_a_number_is_kept():
    assert _fit(X[:, 0], label_bound=(0.0, 500.0), m=3.0).certificate_.constants.L == 3


def test_auto_with_a_private_label_bound_is_refused_before_charging():
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    with pytest.raises(InputError, match="m='auto' is B / 4 of a PUBLIC label bound"):
        dpcvx.DPHuberRegressor(label_bound="private", label_range=(0.25, 8.0)).fit(X, X[:, 0], accountant=accountant)
    assert accountant.spent == (0.0, 0.0)


def test_an_unknown_threshold_word_is_refused():
    with pytest.raises(InputError, match="m must be 'auto' or a number"):
        dpcvx.DPHuberRegressor(m="wide").fit(X, X[:, 0])


@pytest.mark.parametrize("m", [12.50000000025, 1000.0])
@pytest.mark.parametrize("mechanism", ["objective", "output"])
def test_thresholds_that_b_over_4_gives_are_proved(m, mechanism):
    """B / 4 of a bound such as 50.000000001 sits next to 25/2, and B = 4000 puts m beyond the verifier's
    sampling reach: both breakpoints were missed and the Huber loss refused (docs/theory.md, section 16)."""
    labels = 4 * m * np.clip(X @ [1.0, -1.0, 0.5], -1, 1)
    fitted = _fit(labels, label_bound=4 * m, mechanism=mechanism, delta=1e-6 if mechanism == "output" else 0.0)
    assert Fraction(m) == fitted.certificate_.constants.L


@pytest.mark.parametrize("label_bound, column_statistics, names", [
    ((-1e-9, 0.0), False, "label_bound=(-1e-09, 0.0) gives B = 5e-10"),
    (2e-7, "ranges", "column_statistics may draw a label range as narrow as B ="),
])
def test_a_derived_threshold_out_of_range_names_the_label_bound_before_charging(label_bound, column_statistics, names):
    """m="auto" is derived from B (B' of a drawn label range): a B / 4 below the loss's range was refused naming m,
    which the user never set ("got m=1.25e-10"); a drawn B' so narrow was refused after the ranges were charged. The
    message names the label bound and the derivation, before any charge (the narrowest B' the draw can release, a
    public function of B and the level, is checked at the plan)."""
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    with pytest.raises(InputError, match="m='auto' is B / 4 of the label's half-width B") as refused:
        dpcvx.DPHuberRegressor(label_bound=label_bound, column_statistics=column_statistics).fit(
            RNG.uniform(-0.5, 0.5, size=(3000, 3)), np.zeros(3000), accountant=accountant)
    assert names in str(refused.value) and "got m=" not in str(refused.value)
    assert accountant.spent == (0.0, 0.0)

