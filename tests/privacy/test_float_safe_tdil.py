"""TDIL's test (``TDIL(..., float_safe=True)``) under a support attack in the manner of Mironov (2012).

TDIL releases per round only the test's decision (certify, or the sign of the update). numpy's double
Laplace (tests/privacy/support_attack.py) has a bounded support: its most negative value is
scale log(2^-52), reached at U = 2^-53. A gap g just above tau + 52 ln 2 scale therefore certifies with
probability exactly 0, while the neighbour's gap g - Delta certifies with positive probability:
an infinite ratio, against the claimed e^eps_test. The lattice test adds an exact discrete Laplace,
which charges every integer: both neighbours certify with positive probability and the exact ratio
is at most e^eps_test. The certificate names the guarantee (exact over a net with the rbf kernel,
mitigation-only with the linear kernel's ball sampler) and the loader recomputes it.
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from support_attack import numpy_laplace

import dpcvx
from dpcvx.exceptions import ExponentialCostWarning, InputError
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.float_guarantee import FloatGuarantee
from dpcvx.privacy.kernel_calibrate import tdil_parameters
from dpcvx.privacy.lattice_tdil import LatticeTDIL
from dpcvx.rounding import round_down

LOSS = "huber_hinge:h=0.5"


def laplace_below(m: int, t: float) -> float:
    """P(Z <= m) for the discrete Laplace of scale t (steps)."""
    q = math.exp(-1.0 / t)
    return 1 - math.exp(-(m + 1) / t) / (1 + q) if m >= 0 else math.exp(m / t) / (1 + q)


def lattice_certifies(steps: int, calibration) -> float:
    """P(|steps + Z| <= threshold_steps), exactly from the pmf (doubles: relative error ~1e-15 here)."""
    t, top = float(calibration.test_scale), calibration.threshold_steps
    return laplace_below(top - steps, t) - laplace_below(-top - steps - 1, t)


def test_the_raw_test_falls_to_the_support_attack_and_the_lattice_test_does_not():
    base = tdil_parameters(200, 0.1, 1.0, 1.0, 10.0, 1.0, 0.0, net_size=50, feature_distance=0.1, rounds=4)
    calibration = LatticeTDIL.of(base, "rbf", 2)
    scale, delta_score = base.answer_noise, base.score_sensitivity
    eps_test = round_down(base.round_epsilon / 2)
    lowest = numpy_laplace(1, scale)  # the most negative double Laplace value
    assert lowest == pytest.approx(-scale * 52 * math.log(2))
    gap = base.threshold - lowest + eps_test * scale / 2  # g - 36 scale just above tau
    neighbour = gap - delta_score
    # raw: certifying needs g + noise <= tau; impossible under D, possible under D' (k = 1)
    assert gap + lowest > base.threshold
    assert abs(neighbour + lowest) <= base.threshold
    # lattice: both certify with positive probability, ratio at most e^eps_test
    steps, other = (round(value / calibration.lattice) for value in (gap, neighbour))
    assert abs(steps - other) <= calibration.lattice_sensitivity
    p, p_other = lattice_certifies(steps, calibration), lattice_certifies(other, calibration)
    assert 0 < p < p_other
    assert p_other / p <= math.exp(eps_test) * (1 + 1e-9)
    assert calibration.test_scale == Fraction(calibration.lattice_sensitivity) / Fraction(eps_test)


@pytest.fixture(scope="module")
def circle():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (200, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


@pytest.mark.parametrize(("kernel", "guarantee"), [({"kernel": "rbf", "gamma": 4.0, "net_spacing": 0.3}, "exact"),
                                                   ({"kernel": "linear"}, "mitigation-only")])
def test_the_certificate_names_the_guarantee_and_the_loader_recomputes_it(circle, tmp_path, kernel, guarantee):
    X, y = circle
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExponentialCostWarning)
        model = TDIL(lam=0.1, input_bound=1.0, loss=LOSS, float_safe=True, **kernel).fit(X, y, 200.0, 1e-6,
                                                                                          random_state=3)
    calibration = model.certificate.calibration
    assert isinstance(calibration, LatticeTDIL) and calibration.float_guarantee is FloatGuarantee(guarantee)
    assert (calibration.score_error > 0) == (guarantee == "exact")
    assert calibration.selection_sensitivity >= calibration.base.score_sensitivity
    path = dpcvx.save(model, tmp_path / "release.json")
    assert dpcvx.load(path).certificate.calibration == calibration
    for key, value in (("float_guarantee", "exact" if guarantee != "exact" else "mitigation-only"),
                       ("score_error", 1e-9), ("lattice_sensitivity", calibration.lattice_sensitivity - 1)):
        edited = json.loads(path.read_text())
        edited["certificate"]["calibration"][key] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(InputError, match=f"calibration.{key}: recorded"):
            dpcvx.load(tmp_path / "edited.json")
