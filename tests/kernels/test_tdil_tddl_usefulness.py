"""TDIL and TDDL say when their release is expected to be useless, from public quantities, as PINP and the linear
learners do (NoiseDominatesWarning). Both were silent but for the NOT PRIVATE training-rows check (which never runs
inside dpcvx.tune): TDIL at epsilon 1, 10 and 100 (n 400) released all-zero coefficients, one constant prediction,
with an accuracy bound of 20.9 at epsilon 10 above the C R = 14.1 that bounds every prediction; TDDL at epsilon 1
added noise of deviation 14.4 to predictions bounded by 14.1 (test accuracy 0.50 to 0.70 against 0.88)."""

import warnings

import numpy as np
import pytest
from circles import circle

from dpcvx.exceptions import ExponentialCostWarning, NoiseDominatesWarning
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.kernel_calibrate import tddl_calibration, tdil_parameters


def test_tdil_names_a_vacuous_guarantee_and_still_returns_its_release():
    X, y = circle(400)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NoiseDominatesWarning)  # shown, never raised: the release is paid for
        warnings.simplefilter("ignore", ExponentialCostWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        with pytest.warns(NoiseDominatesWarning, match=r"^TDIL: its accuracy guarantee is vacuous: the released "
                          r"predictor at every z of the ball is within 73\.01 of .* C R = 14\.14; its threshold tau = "
                          r"22\.92 is above every gap .* the rounds are expected to stop with w = 0"):
            model = TDIL("rbf", gamma=2.0, lam=0.01, input_bound=1.0).fit(X, y, 1.0, random_state=0)
    assert model.predictor.coef.size == 0  # what the warning said: w = 0


@pytest.mark.parametrize("epsilon", [1.0, 10.0, 30.0, 100.0, 1000.0])
def test_tdil_s_finding_is_its_accuracy_against_c_r(epsilon):
    """accuracy >= C R exactly when the finding is given; public inputs only (no data)."""
    parameters = tdil_parameters(400, 0.01, 1.0, 1.0, 14.142135623730951, epsilon, 0.0, net_size=185,
                                 feature_distance=0.1)
    assert (parameters.vacuous_finding() is not None) == (parameters.accuracy >= parameters.C * parameters.R)


def test_tddl_names_noise_above_every_prediction_and_is_silent_when_it_is_not():
    X, y = circle(400)
    Z = circle(100, seed=5)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        with pytest.warns(NoiseDominatesWarning, match=r"^TDDL: each noisy prediction on the public sample Z carries "
                          r"noise of standard deviation 44\.65, at least the bound .* = 14\.14 .* T = 100 public "
                          r"points\)\. To gain: raise epsilon or n, or use fewer public points Z"):
            TDDL("rbf", gamma=2.0, lam=0.01).fit(X, y, 1.0, Z=Z, random_state=0)
        warnings.simplefilter("error", NoiseDominatesWarning)
        TDDL("rbf", gamma=2.0, lam=0.01).fit(X, y, 10.0, Z=Z, random_state=0)  # deviation 4.5: no finding


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_tddl_s_finding_is_its_noise_deviation_against_the_bound(delta):
    norms = np.ones(50)
    for epsilon in (0.1, 1.0, 10.0):
        calibration = tddl_calibration(400, 0.01, 1.0, 1.0, epsilon, delta, norms, 20.0)
        deviation = calibration.scale * (np.sqrt(2) if delta == 0 else 1.0)
        assert deviation <= calibration.noise_deviation <= deviation * (1 + 1e-9)  # rounded up
        for bound in (deviation / 2, deviation * 2):
            assert (calibration.noise_finding(bound) is not None) == (calibration.noise_deviation >= bound)
