"""Labels are read by value at every Python entry that takes them against declared classes, as the command line's
label column is (sixty-fourth session). A reader gives a WHOLE column one type, which every record sets (pandas
reads codes as ints, as text once one cell is text; a float column written as text is "1.0"), so matched by exact
value one record decided refusal or release for every other: classes=("0", "1") against 0/1 ints was refused, the
same column with one text record released; "1.0" or "true" was no class 1. Neighbouring label columns are now
released alike (equal coefficients under one seed), and classes that share a reading key ("1" and "1.0") are
refused when declared, before any charge."""

from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.tddl import TDDL
from dpcvx.validation import declared_labels

RNG = np.random.default_rng(7)
X = RNG.uniform(-1, 1, (240, 3)) / np.sqrt(3)
Y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, 0)          # 0/1 codes
Y3 = np.digitize(X[:, 0], (-0.2, 0.2))                   # 0/1/2 codes


def spellings(y: np.ndarray) -> dict[str, object]:
    """The columns a reader may give for the codes ``y`` (ints), depending on the other records (a pyarrow decimal
    column's Decimal("1") equalled the class 1 already: :func:`test_text_classes_read_number_labels_by_value`)."""
    mixed = [str(v) if i == 0 else int(v) for i, v in enumerate(y)]   # one text record in a list of ints
    return {"text": y.astype(str),                                    # pandas, once one cell is text
            "float text": np.array([f"{v}.0" for v in y]),            # a float column written as text
            "padded text": np.array([f" 0{v}" for v in y]),
            "object series": pd.Series(y.astype(object).astype(str), dtype=object),
            "mixed list": mixed,
            "bytes": np.array([str(v).encode() for v in y]),                # a binary column (Parquet, numpy S)
            "bytes and text list": [str(v) if i == 0 else str(v).encode() for i, v in enumerate(y)]}


def flag_spellings(y: np.ndarray) -> dict[str, object]:
    return {"flag text": np.where(y == 1, "true", "false"), "flag text cased": np.where(y == 1, "TRUE", "False")}


def released(fit, labels) -> np.ndarray:
    return np.asarray(fit(labels), dtype=float)


ESTIMATORS = {
    "DPLogisticRegression": lambda classes: lambda y: dpcvx.DPLogisticRegression(
        epsilon=1.0, classes=classes, random_state=3).fit(X, y).coef_,
    "DPHuberSVM": lambda classes: lambda y: dpcvx.DPHuberSVM(
        epsilon=1.0, classes=classes, random_state=3).fit(X, y).coef_,
    "PrivateERM": lambda classes: lambda y: dpcvx.PrivateERM(
        loss=dpcvx.losses.logistic(), lam=0.1, data_norm=1.0, classes=classes).fit(
        X, y, epsilon=1.0, random_state=3).coef_,
    "tune": lambda classes: lambda y: dpcvx.tune(
        dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), data_norm=1.0, classes=classes), X, y,
        {"lam": [0.01, 0.1]}, 2.0, random_state=3).model.coef_,
}


@pytest.mark.parametrize("entry", sorted(ESTIMATORS))
@pytest.mark.parametrize("spelling", sorted(spellings(Y)))
def test_a_binary_fit_reads_each_label_by_value(entry, spelling):
    """Declared (0, 1): every spelling of the codes is released as the ints are, coefficients equal."""
    fit = ESTIMATORS[entry]((0, 1))
    np.testing.assert_array_equal(released(fit, spellings(Y)[spelling]), released(fit, Y))


@pytest.mark.parametrize("entry", ["DPLogisticRegression", "PrivateERM"])
@pytest.mark.parametrize("spelling", sorted([*spellings(Y), "decimal"]))
def test_text_classes_read_number_labels_by_value(entry, spelling):
    """Declared ("0", "1"): the ints, and every other spelling, are released as the text is."""
    fit = ESTIMATORS[entry](("0", "1"))
    expected = released(fit, Y.astype(str))
    labels = [Decimal(int(v)) for v in Y] if spelling == "decimal" else spellings(Y)[spelling]
    np.testing.assert_array_equal(released(fit, Y), expected)
    np.testing.assert_array_equal(released(fit, labels), expected)


@pytest.mark.parametrize("spelling", sorted(flag_spellings(Y)))
@pytest.mark.parametrize("classes", [(0, 1), (False, True)])
def test_flag_text_is_its_flag_or_number(spelling, classes):
    fit = ESTIMATORS["DPLogisticRegression"](classes)
    np.testing.assert_array_equal(released(fit, flag_spellings(Y)[spelling]), released(fit, Y.astype(bool)))


@pytest.mark.parametrize("spelling", sorted(spellings(Y3)))
@pytest.mark.parametrize("entry", ["estimator", "PrivateMulticlassERM"])
def test_a_multiclass_fit_reads_each_label_by_value(entry, spelling):
    def fit(y):
        if entry == "estimator":
            return dpcvx.DPLogisticRegression(epsilon=3.0, classes=(0, 1, 2), random_state=3).fit(X, y).coef_
        binary = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=0.1, data_norm=1.0, classes=(-1, 1))
        return dpcvx.PrivateMulticlassERM(binary, (0, 1, 2)).fit(X, y, 3.0, random_state=3).coef_

    np.testing.assert_array_equal(released(fit, spellings(Y3)[spelling]), released(fit, Y3))


@pytest.mark.parametrize("labels", [lambda s: s.astype(str), lambda s: np.array([f"{v:.1f}" for v in s]),
                                    lambda s: [str(int(v)) if i == 0 else int(v) for i, v in enumerate(s)]],
                         ids=["text", "float text", "mixed list"])
def test_a_kernel_learner_reads_each_label_by_value(labels):
    """The kernel learners' fixed classes (-1, 1): "-1"/"1" or "-1.0"/"1.0" are those labels."""
    signs = 2 * Y - 1
    Z = X[:30]

    def fit(y):
        return TDDL("rbf", gamma=2.0, lam=0.1, loss="huber_hinge:h=0.5").fit(
            X, y, 5.0, Z=Z, random_state=0).decision_function(X[:20])

    np.testing.assert_array_equal(released(fit, labels(signs)), released(fit, signs))


def test_a_release_scores_labels_by_value():
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=3).fit(X, Y)
    model = dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=0.1, data_norm=1.0, classes=(0, 1)).fit(
        X, Y, epsilon=1.0, random_state=3)
    for scored in (estimator, model):
        expected = scored.score(X, Y)
        for labels in spellings(Y).values():
            assert scored.score(X, labels) == expected


@pytest.mark.parametrize("classes", [("1", "1.0"), ("0", "00"), ("1", "true"), ("0", "1", "01"),
                                     ("false", "0")])
def test_classes_sharing_a_reading_key_are_refused_before_any_charge(classes):
    """Two declared classes of one value (a table's "1", "1.0" and "true" are one label): a label of that value
    would be both; refused at the declaration, naming both, nothing charged."""
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    labels = np.array(classes)[np.arange(X.shape[0]) % len(classes)]
    fits = [lambda: dpcvx.DPLogisticRegression(epsilon=1.0, classes=classes, accountant=accountant).fit(X, labels)]
    if len(classes) == 2:
        fits.append(lambda: dpcvx.PrivateERM(loss=dpcvx.losses.logistic(), lam=0.1, data_norm=1.0,
                                             classes=classes).fit(X, labels, epsilon=1.0, accountant=accountant))
    else:
        fits.append(lambda: dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(
            loss=dpcvx.losses.logistic(), lam=0.1, data_norm=1.0), classes).fit(X, labels, 1.0, accountant=accountant))
    for fit in fits:
        with pytest.raises(InputError, match="are one value, and a label is read by its value") as refused:
            fit()
        shared = [label for label in classes if repr(label) in str(refused.value).split("are one value")[0]]
        assert len(shared) == 2
    assert accountant.ledger == [] and accountant.spent.epsilon == 0.0


def test_the_mapping_touches_only_labels_that_are_no_class():
    """Labels that are all classes come back as the same array (the release on them unchanged); a label of no
    class's value stays for the refusal."""
    y = np.array([0, 1, 1, 0])
    assert declared_labels(y, (0, 1)) is y
    mapped = declared_labels(np.array(["1.0", "0", "2", "x"], dtype=object), (0, 1))
    assert mapped.tolist() == [1, 0, "2", "x"] and [type(v) for v in mapped[:2]] == [int, int]
    mapped = declared_labels(np.arange(1_000_000) % 2, ("0", "1"))
    assert mapped.dtype.kind == "U" and mapped[:4].tolist() == ["0", "1", "0", "1"]


def test_an_audit_pair_compares_labels_by_value():
    """A NeighbouringPair's D and D' differ in the one replaced record whatever type each label column has: a list
    with one text record (which numpy made all text) or a float column written as text ("1.0") was counted as
    differing in every row and refused."""
    from dpcvx.models.audit import NeighbouringPair

    X2 = np.zeros((4, 2))
    X2_prime = X2.copy()
    X2_prime[3] = 0.5
    y = np.array([1, 0, 1, 0])
    for y_prime in ([1, 0, "1", 0], np.array(["1.0", "0.0", "1.0", "0.0"]), [True, False, True, False]):
        pair = NeighbouringPair(X2, y, X2_prime, y_prime, [1, 0])
        assert pair.X_prime[3].tolist() == [0.5, 0.5]
    with pytest.raises(InputError, match="differ in 2"):
        NeighbouringPair(X2, y, X2_prime, ["1", "0", "2", 0], [1, 0])
