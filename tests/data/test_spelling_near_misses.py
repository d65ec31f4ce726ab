"""Near misses of a declared spelling, in Python. Labels that are a declared class but for letter case or
surrounding spaces ('yes ', 'YES' for 'Yes'): every refusal of labels outside the classes counts them and says to
normalise y, without showing a value, and a binary estimator does not call them a multiclass target. Codes
zero-padded in the table but not in the categories: told so, not advised to pad."""

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.tables import NEAR_SPELLING

X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(8, 2))
Y = np.array(["Yes", "No", " yes", "no ", "YES", "No", "Yes", "maybe"], dtype=object)
NOTE = f"(3 of them differ from a declared class only in {NEAR_SPELLING}: normalise y first"


def test_spelling_variants_mask():
    from dpcvx.tables import spelling_variants

    assert spelling_variants(Y, ("No", "Yes")).tolist() == [False, False, True, True, True, False, False, False]
    assert not spelling_variants(np.array([0, 1, 2]), (0, 1)).any()


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClassOrderWarning")  # declared order on purpose
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


@pytest.mark.parametrize("codes, values", [
    (("7", "12"), ["7", "0012"]),           # integer codes declared, the table writes them zero-padded
    ((7, 12), ["7", "012"]),                 # the same with integer categories
    (("02134", "55555"), ["55555", "002134"]),  # padded wider than the declared code
])
def test_codes_padded_in_the_table_are_their_category(codes, values):
    """A code the table writes zero-padded is the category of its value, as the number is (pandas reads such a
    column as numbers unless one record is text: one record decided every other row's text)."""
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("dx", codes),), strict=True)
    np.testing.assert_array_equal(schema.transform({"dx": np.array(values)}),
                                  schema.transform({"dx": np.array([int(value) for value in values])}))


@pytest.mark.parametrize("texts", [("1", "2"), (" 1", "2.0")])
def test_labels_read_as_text_are_their_number_class(texts):
    """A label column read as text ("1"/"2", as pd.read_csv(dtype=str) gives) against classes=(1, 2) was refused
    with the advice to convert it, while the same codes as numbers were released: one text record (which makes
    pandas read the whole column as text) decided refusal or release. Each label is now read by its value
    (dpcvx.validation.declared_labels), and the text is released as the numbers are."""
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (200, 2))
    y = np.where(X[:, 0] > 0, texts[1], texts[0])
    numbers = np.where(X[:, 0] > 0, 2, 1)
    fit = lambda labels: dpcvx.DPLogisticRegression(classes=(1, 2), random_state=0).fit(X, labels).coef_  # noqa: E731
    np.testing.assert_array_equal(fit(y), fit(numbers))


@pytest.mark.parametrize("texts", [("False", "True"), ("false", " TRUE")])
def test_flags_read_as_text_are_their_flag_class(texts):
    """A flag column written as text ("True"/"False", as PublicSchema and a table read as text write a flag) against
    classes=(False, True) was refused; it is released as the flags are."""
    X = np.random.default_rng(0).uniform(-0.5, 0.5, (200, 2))
    y = np.where(X[:, 0] > 0, texts[1], texts[0])
    fit = lambda labels: dpcvx.DPLogisticRegression(classes=(False, True), random_state=0).fit(X, labels).coef_  # noqa: E731
    np.testing.assert_array_equal(fit(y), fit(X[:, 0] > 0))
