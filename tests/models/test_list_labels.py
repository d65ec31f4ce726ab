"""A list of labels keeps each label's own type (sixty-third session, an attacker probe): numpy gives a list one type
for all, so one text label made every number text ([1, 0, "a"] is ["1", "0", "a"]), and one record decided whether
every other label matched the declared classes: the refusal counted every row and named row 0, and with classes
("0", "1") a list of numbers was refused where the same list with one text "1" was released."""

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError

X = np.random.default_rng(0).uniform(-0.5, 0.5, (200, 2))
LABELS = (X[:, 0] > 0).astype(int).tolist()


@pytest.mark.parametrize("fit", [
    lambda y, classes: dpcvx.DPLogisticRegression(classes=classes, random_state=0).fit(X, y),
    lambda y, classes: dpcvx.PrivateERM(lam=0.01, data_norm=1.0, classes=classes).fit(X, y, 1.0, random_state=0),
], ids=["estimator", "learner"])
def test_one_text_label_never_changes_how_the_others_are_read(fit):
    with pytest.raises(InputError, match=r"y has 1 label\(s\), the first at row 199 "):
        fit([*LABELS[:-1], "a"], (0, 1))
    texts = list(map(str, LABELS))  # numbers against text classes: released as the text is, either way (each
    for labels in ([*LABELS[:-1], str(LABELS[-1])], LABELS):  # label read by value, sixty-fourth session)
        assert np.array_equal(fit(labels, ("0", "1")).coef_, fit(texts, ("0", "1")).coef_)
    assert np.array_equal(fit(LABELS, (0, 1)).coef_, fit(list(map(int, LABELS)), (0, 1)).coef_)


@pytest.mark.parametrize("regressor", [lambda: dpcvx.DPLinearRegression(label_bound=1.0, delta=1e-5),
                                       lambda: dpcvx.DPHuberRegressor(label_bound=1.0)], ids=["linear", "huber"])
def test_a_list_of_targets_names_its_one_text(regressor):
    """A regressor's list of targets with one text entry named row 0 (numpy made every target text)."""
    targets = [*X[:, 0].tolist()[:-1], "a"]
    with pytest.raises(InputError, match=r"y holds text \(str\) in row 199 "):
        regressor().fit(X, targets)
