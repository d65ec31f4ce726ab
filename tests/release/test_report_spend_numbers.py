"""The refusal of threshold='prior' set after a fit without an intercept offset (class_weight='balanced', or
one-vs-rest without private counts) names class_prior, the setting that gives one (it said only "no intercept
offset", although a balanced fit's release holds a private count)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx


def _data(classes: int):
    rng = np.random.default_rng(1)
    return rng.uniform(-0.5, 0.5, (3000, 3)), rng.integers(0, classes, 3000)


def test_threshold_prior_without_an_offset_names_class_prior():
    X, y = _data(2)
    binary = dpcvx.DPLogisticRegression(epsilon=1.0, class_weight="balanced", random_state=0).fit(X, y)
    binary.set_params(threshold="prior")
    with pytest.raises(dpcvx.InputError, match=r"no intercept offset; .*class_prior"):
        binary.predict(X)
    X, y = _data(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        several = dpcvx.DPLogisticRegression(epsilon=1.0, classes=[0, 1, 2], random_state=0).fit(X, y)
    several.set_params(threshold="prior")
    with pytest.raises(dpcvx.InputError, match=r"no private class counts; .*class_prior='private'"):
        several.predict(X)
