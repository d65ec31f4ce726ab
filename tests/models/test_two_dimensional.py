"""X that is not 2-D, and labels that are not one per row, get one refusal each at every entry (dpcvx.validation's
not_two_dimensional, with the reshapes that fix it, and label_vector): tune, the private norm quantile and a memmap's
row blocks each had their own text for X, tune's and the quantile's without the fix, the quantile's without the shape;
tune and the kernel learners refused a column vector of labels that every fit takes."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.quantile import private_norm_bound

X1 = np.random.default_rng(4).uniform(-0.3, 0.3, size=300)
Y = np.where(X1 > 0, 1, -1)
REFUSAL = (r"^X must be 2-D \(n samples x d features\), got shape \(300,\)\. Reshape your data: X\.reshape\(-1, 1\) "
           r"if it has a single feature, or X\.reshape\(1, -1\) if it is a single sample$")


def _memmap(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, X1)
    return np.load(path, mmap_mode="r")


ENTRIES = {
    "PrivateERM": lambda X, accountant: dpcvx.PrivateERM(data_norm=1.0).fit(X, Y, epsilon=1.0, accountant=accountant),
    "tune": lambda X, accountant: dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, Y, grid={"lam": [1e-2]},
                                             epsilon=1.0, accountant=accountant),
    "fit_private_norm": lambda X, accountant: dpcvx.fit_private_norm(dpcvx.PrivateERM(), X, Y, 1.0, r_min=0.1,
                                                                     r_max=10.0, accountant=accountant),
    "private_norm_bound": lambda X, accountant: private_norm_bound(X, epsilon=1.0, r_min=0.1, r_max=10.0,
                                                                   accountant=accountant),
    "TDDL": lambda X, accountant: dpcvx.TDDL(lam=1e-2, gamma=1.0).fit(X, Y, epsilon=1.0, Z=np.zeros((3, 1)),
                                                                      accountant=accountant),
}


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", ["array", "memmap"])
def test_one_refusal_of_x_that_is_not_two_dimensional(entry, kind, tmp_path):
    X = X1 if kind == "array" else _memmap(tmp_path)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=REFUSAL):
        ENTRIES[entry](X, accountant)
    assert accountant.ledger == []


Y3 = np.digitize(X1, [-0.1, 0.1])
X2 = X1[:, None]
LABEL_ENTRIES = {
    "PrivateERM": lambda y, accountant: dpcvx.PrivateERM(data_norm=1.0).fit(X2, y, epsilon=1.0, accountant=accountant,
                                                                           random_state=0),
    "tune": lambda y, accountant: dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X2, y, grid={"lam": [1e-2]},
                                             epsilon=1.0, accountant=accountant, random_state=0),
    "one-vs-rest": lambda y, accountant: dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0),
                                                                    classes=(-1, 0, 1)).fit(
        X2, y, epsilon=1.0, accountant=accountant, random_state=0),
    "TDDL": lambda y, accountant: dpcvx.TDDL(lam=1e-2, gamma=1.0).fit(X2, y, epsilon=1.0, Z=np.zeros((3, 1)),
                                                                      accountant=accountant, random_state=0),
}


@pytest.mark.parametrize("entry", LABEL_ENTRIES)
def test_labels_are_shaped_alike_at_every_entry(entry):
    """A column vector of labels is taken as its vector (tune and the kernel learners refused it), and a wrong length
    or shape is named in one message (validation.label_vector), before anything is charged."""
    y = Y if entry != "one-vs-rest" else Y3 - 1
    assert LABEL_ENTRIES[entry](y[:, None], None) is not None
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=r"^X has 300 rows but y has 299 labels$"):
        LABEL_ENTRIES[entry](y[:-1], accountant)
    with pytest.raises(InputError, match=r"^y should be a 1d array, got an array of shape \(300, 2\) instead\.$"):
        LABEL_ENTRIES[entry](np.c_[y, y], accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("entry", LABEL_ENTRIES)
def test_a_row_of_labels_and_missing_labels_are_refused_at_every_entry_as_the_estimators_refuse_them(entry):
    """A row (1, n) of labels was flattened by every entry but the estimators' fit (validation.label_vector flattened
    any shape with a 1 in it): refused in the estimators' words, before anything is charged. y=None said
    "y must be 1-D, got shape ()"."""
    y = Y if entry != "one-vs-rest" else Y3 - 1
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=r"^y should be a 1d array, got an array of shape \(1, 300\) instead\.$"):
        LABEL_ENTRIES[entry](y[None, :], accountant)
    with pytest.raises(InputError, match=r"^y is missing \(None\)"):
        LABEL_ENTRIES[entry](None, accountant)
    assert accountant.ledger == []


def test_a_row_of_labels_is_refused_by_fit_and_score_alike():
    estimator = dpcvx.DPLogisticRegression(data_norm=1.0, classes=(-1, 1), random_state=0)
    message = r"^y should be a 1d array, got an array of shape \(1, 300\) instead\.$"
    with pytest.raises(InputError, match=message):
        estimator.fit(X2, Y[None, :])
    estimator.fit(X2, Y)
    for scorer in (estimator, estimator.model_):
        with pytest.raises(InputError, match=message):
            scorer.score(X2, Y[None, :])
    regression = dpcvx.PrivateLinearRegression(1.0, 1.0).fit(X2, Y, 1.0, 1e-6, random_state=0)
    with pytest.raises(InputError, match=message):
        regression.score(X2, Y[None, :].astype(float))
    with pytest.raises(InputError, match=message):
        dpcvx.PrivateLinearRegression(1.0, 1.0).fit(X2, Y[None, :], 1.0, 1e-6)
