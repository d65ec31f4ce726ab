"""Labels that are a declared class but for letter case or surrounding spaces ('yes ', 'YES' for 'Yes'), in Python:
every refusal of labels outside the classes counts them and says to normalise y, without showing a value, and a
binary estimator does not call them a multiclass target."""

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(8, 2))
Y = np.array(["Yes", "No", " yes", "no ", "YES", "No", "Yes", "maybe"], dtype=object)
NOTE = "(3 of them differ from a declared class only in letter case or surrounding spaces: normalise y first"


def test_spelling_variants_mask():
    from dpcvx.tables import spelling_variants

    assert spelling_variants(Y, ("No", "Yes")).tolist() == [False, False, True, True, True, False, False, False]
    assert not spelling_variants(np.array([0, 1, 2]), (0, 1)).any()


@pytest.mark.parametrize("fit", [
    lambda: dpcvx.DPLogisticRegression(epsilon=1.0, classes=("No", "Yes")).fit(X, Y),
    lambda: dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=0.1, data_norm=1.0,
                             classes=("No", "Yes")).fit(X, Y, epsilon=1.0),
    lambda: dpcvx.DPLogisticRegression(epsilon=1.0, classes=("No", "Yes", "Unsure")).fit(X, Y),
], ids=["estimator", "PrivateERM", "multiclass"])
def test_refusal_counts_variant_spellings(fit):
    with pytest.raises(InputError) as caught:
        fit()
    message = str(caught.value)
    assert "4 label(s), the first at row 2" in message and NOTE in message
    assert "Only binary classification" not in message  # the declared pair misspelt, not a multiclass target
    assert "YES" not in message and "maybe" not in message
