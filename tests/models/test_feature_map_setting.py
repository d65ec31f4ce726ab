"""PrivateERM's feature_map is checked with its other settings, before anything is charged: an instance with
transform(X) and norm_bound. Before, an object without them raised a raw AttributeError ('object' object has no
attribute 'norm_bound') and the class RandomFourierFeatures, passed for an instance, a raw TypeError from inside the
row map (transform() missing 1 required positional argument)."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

RNG = np.random.default_rng(2)
X = RNG.uniform(-0.3, 0.3, size=(200, 3))
Y = np.where(X[:, 0] > 0, 1, -1)
HEAD = (r"^feature_map must be a feature map with transform\(X\) and norm_bound \(a bound on \|\|transform\(x\)\|\|\), "
        r"for example dpcvx\.RandomFourierFeatures\(n_components=\.\.\., gamma=\.\.\.\); got ")


class _NoBound:
    def transform(self, X):
        return X


@pytest.mark.parametrize("feature_map, got", [
    (object(), r"object, which has no transform or norm_bound$"),
    (dpcvx.RandomFourierFeatures, r"the class RandomFourierFeatures, not an instance$"),
    (_NoBound(), r"_NoBound, which has no norm_bound$"),
])
@pytest.mark.parametrize("entry", ["fit", "plan", "multiclass"])
def test_a_feature_map_fit_cannot_use_is_refused_before_the_charge(feature_map, got, entry):
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    learner = dpcvx.PrivateERM(feature_map=feature_map)
    with pytest.raises(InputError, match=HEAD + got):
        if entry == "fit":
            learner.fit(X, Y, epsilon=1.0, accountant=accountant)
        elif entry == "plan":
            learner.plan(X, Y, epsilon=1.0)
        else:
            dpcvx.PrivateMulticlassERM(learner, classes=(0, 1, 2)).fit(X, np.digitize(X[:, 0], [-0.1, 0.1]),
                                                                       epsilon=1.0, accountant=accountant)
    assert accountant.ledger == []


def test_random_fourier_features_fit():
    model = dpcvx.PrivateERM(feature_map=dpcvx.RandomFourierFeatures(n_components=10, gamma=1.0, random_state=0)).fit(
        X, Y, epsilon=1.0, random_state=0)
    assert model.predict(X).shape == (200,)
