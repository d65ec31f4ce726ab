"""A model file of the dpcvx before the Gaussian profiles were computed without cancellation (2026-12-01) records its
approximate minimiser's sigma, and the privacy curve's noise multiplier, about 2e-11 relative from what the loader now
recomputes (at ordinary epsilon). Such a file is genuine: it loads, and its certificate holds the recomputed numbers
(dpcvx.rounding.RECORD_TOLERANCE). A number moved well beyond that is still refused as edited."""

import json

import numpy as np
import pytest
from former_texts import without_noise_source

import dpcvx
from dpcvx import losses
from dpcvx.release.serialization import model_from_dict, model_to_dict

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files


@pytest.fixture(scope="module")
def saved():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (400, 3)) / 2
    y = np.where(X[:, 0] + rng.normal(0, 0.3, 400) > 0, 1.0, -1.0)
    with pytest.MonkeyPatch.context() as patch:  # the Gaussian calibration (d 3: the pure one would compete and win)
        patch.setattr("dpcvx.privacy.linear_calibration.pure_competitor", lambda *args, **kwargs: None)
        model = dpcvx.PrivateERM(losses.logistic(), lam=0.1, data_norm=1.0).fit(X, y, 1.0, "objective",
                                                                               delta=1e-6, random_state=0)
    return json.loads(json.dumps(model_to_dict(model))), model.certificate


def _moved(data, factor):
    """The file as the former dpcvx wrote it: format version 9 (no digest), its Gaussian scales moved by factor."""
    moved = json.loads(json.dumps(data))
    moved["format_version"] = 9
    del moved["sha256"]
    without_noise_source(moved)  # (format version 19 added it)
    moved["certificate"]["calibration"]["amp_sigma"] *= factor
    for part in moved["certificate"]["privacy_curve"]["parts"]:
        if part.get("noise_multiplier"):
            part["noise_multiplier"] *= factor
    return moved


def test_a_file_of_the_former_gaussian_profiles_loads_with_the_recomputed_numbers(saved):
    data, certificate = saved
    loaded = model_from_dict(_moved(data, 1 + 2.2e-11))   # the fingerprinted releases' shift (before the fix: refused)
    assert loaded.certificate.calibration.amp_sigma == certificate.calibration.amp_sigma
    assert loaded.certificate.privacy_curve == certificate.privacy_curve


@pytest.mark.parametrize("factor", [1 + 1e-6, 1 - 1e-6])
def test_a_scale_moved_beyond_the_tolerance_is_refused_as_edited(saved, factor):
    with pytest.raises(dpcvx.exceptions.InputError, match="amp_sigma.*edited"):
        model_from_dict(_moved(saved[0], factor))
