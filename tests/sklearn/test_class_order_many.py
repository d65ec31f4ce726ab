"""ClassOrderWarning for more than two classes names no binary setting. Analyst probe P8 (session 69, finding 8): an
ordinal grade declared ('poor', 'fair', 'good', 'great') drew, on every fit, "(a threshold and a class_prior are then
of 'poor')", a binary fit's words in a 4-class fit. The warning stays for k > 2: scikit-learn's probability scorers
read predict_proba's columns in sorted order (on such a grade one release scored roc_auc_ovr 0.51 declared in the
natural order and 0.91 sorted), while predict and the scorers of predicted labels are right in any order."""

import re
import warnings

import numpy as np
import pytest
from sklearn.metrics import get_scorer

import dpcvx
from dpcvx.exceptions import ClassOrderWarning
from dpcvx.sklearn.inputs import warn_if_unsorted_classes

GRADES = ("poor", "fair", "good", "great")


def _grade(n: int = 3000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    latent = X[:, 0] + 0.3 * rng.normal(size=n)
    return X / 8, np.array(GRADES)[np.searchsorted(np.quantile(latent, [0.4, 0.7, 0.9]), latent)]


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.TrainingRowsWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_many_classes_out_of_order_are_told_without_a_binary_setting():
    X, y = _grade()
    with pytest.warns(ClassOrderWarning) as caught:
        natural = dpcvx.DPLogisticRegression(classes=GRADES, epsilon=5, random_state=0).fit(X, y)
    (text,) = [str(w.message) for w in caught if w.category is ClassOrderWarning]
    assert "threshold" not in text and "class_prior" not in text and "positive class" not in text
    assert re.search(r"declare classes=\('fair', 'good', 'great', 'poor'\) to score with them", text)
    assert "predict, score and the scorers of predicted labels" in text and "right in any order" in text
    # what the text says: predict's scorers agree across the two orders, the probability scorer does not
    with warnings.catch_warnings():
        # ignore: the fit's and the scorers' notes on a noisy release are not what this test reads (its scores are)
        warnings.simplefilter("ignore")
        ordered = dpcvx.DPLogisticRegression(classes=tuple(sorted(GRADES)), epsilon=5, random_state=0).fit(X, y)
        balanced = [get_scorer("balanced_accuracy")(m, X, y) for m in (natural, ordered)]
        auc = [get_scorer("roc_auc_ovr")(m, X, y) for m in (natural, ordered)]
    assert abs(balanced[0] - balanced[1]) < 0.05 and balanced[0] > 0.4  # same noise seed, both orders read right
    assert auc[1] > 0.8 and auc[0] < auc[1] - 0.2  # the natural order misread by the scorer


def test_a_pair_out_of_order_keeps_its_binary_words():
    with pytest.warns(ClassOrderWarning, match=re.escape("(a threshold and a class_prior are then of 'good')")):
        warn_if_unsorted_classes("DPLogisticRegression", ("good", "bad"))
