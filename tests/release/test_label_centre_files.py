"""A DPHuberRegressor file without an intercept feature loads back when its label range was drawn privately.

``column_statistics="ranges"`` releases the label's range; the fit sees y - c and adds the private centre c to the
intercept (post-processing), so with ``fit_intercept=False`` the released intercept is c. The loader refused every
non-zero intercept without an intercept feature as edited; it now re-derives c from the recorded label cells as the
fit did (:func:`dpcvx.release.records.release_certificate.label_range`) and refuses any other intercept.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import dpcvx


def _fit(n: int, d: int, epsilon: float, **settings) -> dpcvx.DPHuberRegressor:
    rng = np.random.default_rng(n + d)
    X = rng.uniform(-1, 1, (n, d)) / 2
    y = X @ rng.standard_normal(d) / 3 + 0.4 + 0.1 * rng.standard_normal(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.ClippingWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        return dpcvx.DPHuberRegressor(epsilon=epsilon, fit_intercept=False, column_statistics="ranges",
                                      random_state=0, **settings).fit(X, y), X


@pytest.mark.parametrize("float_safe", [False, True])
@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("shape", [(200, 6, 3.0), (600, 2, 5.0)])
def test_a_private_label_centre_without_an_intercept_feature_loads_back(tmp_path, shape, mechanism, float_safe):
    model, X = _fit(*shape, mechanism=mechanism, float_safe=float_safe)
    assert model.intercept_ != 0.0  # the private centre, the only intercept of this model
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "model.json"))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert str(loaded.certificate) == str(model.certificate_)


def test_another_intercept_without_an_intercept_feature_is_refused(tmp_path):
    model, _ = _fit(600, 2, 5.0)
    path = dpcvx.save(model, tmp_path / "model.json")
    data = json.loads(path.read_text())
    data["privatised"]["intercept"] += 0.25
    path.write_text(json.dumps(data))
    with pytest.raises(dpcvx.InputError, match="no intercept feature, so it must be the centre"):
        dpcvx.load(path)
