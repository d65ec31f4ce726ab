"""A release drawn after a private class count nested inside private column statistics loads back.

The certificate sums its total epsilon as eps_c + eps_s + eps_fit (:func:`dpcvx.release.model.composed_epsilon`), and
the loader checks each record's ``total_epsilon`` against that sum. The column statistics recorded their plan's total
instead, eps_s + eps_fit' with eps_fit' split again into eps_c + eps_fit by the count: the two sums differ in the last
bit for most epsilons (0.1, 0.7, 3), so the sweep's files of ``column_statistics="ranges"`` with
``class_weight="balanced"`` or ``class_prior="private"`` were refused as edited. The records now state the
certificate's sum.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx


@pytest.mark.parametrize("epsilon", [0.1, 0.7, 1.0, 3.0])
@pytest.mark.parametrize("count", [{"class_weight": "balanced"}, {"class_prior": "private"}])
def test_a_count_inside_column_ranges_loads_back(tmp_path, epsilon, count):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (600, 2)) / 2
    y = (X[:, 0] + 0.3 > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        model = dpcvx.DPLogisticRegression(epsilon=epsilon, column_statistics="ranges", random_state=0,
                                           **count).fit(X, y)
    certificate = model.certificate_
    assert certificate.column_statistics["total_epsilon"] == certificate.total_epsilon
    assert certificate.weights.private_count["total_epsilon"] == certificate.total_epsilon
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "model.json"))
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    assert str(loaded.certificate) == str(certificate)
