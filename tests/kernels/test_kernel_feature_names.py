"""TDDL, PINP and TDIL keep the training table's width and column names (n_features_in_, feature_names_in_) and
refuse a table whose columns differ in names or order, as the linear estimators do: TDDL fitted on a DataFrame of
("age", "income") scored 0.875, and 0.395 on the same frame with its columns swapped, without a word."""

import warnings

import numpy as np
import pytest

from dpcvx.exceptions import InputError
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL

pd = pytest.importorskip("pandas")


def _frame(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.7, 0.7, size=(n, 2)) * [1.0, 0.3]
    return pd.DataFrame(X, columns=["age", "income"]), np.where(X[:, 0] > 0, 1.0, -1.0)


def _fit(name, frame, y, epsilon=50.0):
    if name == "TDDL":
        learner = TDDL("rbf", gamma=1.0, lam=0.05)
        learner.fit(frame, y, epsilon, Z=frame.iloc[:40], random_state=0)
    elif name == "PINP":
        learner = PINP("rbf", gamma=1.0, lam=0.05, max_queries=50)
        learner.fit(frame, y, epsilon, random_state=0)
    else:
        learner = TDIL("rbf", gamma=1.0, lam=0.05, input_bound=1.0, net_spacing=0.5)
        learner.fit(frame, y, epsilon, random_state=0)
    return learner


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore:X does not have valid feature names:UserWarning")  # the array predict below
@pytest.mark.parametrize("name", ["TDDL", "PINP", "TDIL"])
def test_a_reordered_or_renamed_table_is_refused(name):
    frame, y = _frame(300, 0)
    learner = _fit(name, frame, y)
    assert learner.feature_names_in_.tolist() == ["age", "income"] and learner.n_features_in_ == 2
    for other in (frame[["income", "age"]], frame.rename(columns={"age": "years"})):
        with pytest.raises(InputError, match="The feature names should match those that were passed during fit"):
            learner.predict(other)
        with pytest.raises(InputError, match="The feature names should match"):
            learner.score(other, y)
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        learner.decision_function(frame.to_numpy()[:3])


def test_a_refused_refit_keeps_the_last_release_s_names_and_an_array_fit_has_none():
    frame, y = _frame(300, 0)
    learner = _fit("TDDL", frame, y)
    with pytest.raises(InputError):
        learner.fit(frame.rename(columns={"age": "years"}), y, -1.0, Z=frame.iloc[:40].to_numpy())
    assert learner.feature_names_in_.tolist() == ["age", "income"]
    learner.fit(frame.to_numpy(), y, 50.0, Z=frame.iloc[:40].to_numpy(), random_state=0)
    assert not hasattr(learner, "feature_names_in_") and learner.n_features_in_ == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        learner.predict(frame[["income", "age"]])  # fitted without names: nothing to check, as scikit-learn


@pytest.mark.filterwarnings("ignore:Z does not have valid feature names:UserWarning")
def test_tddl_refuses_a_public_sample_whose_columns_are_not_those_of_x():
    """Z is read by position as X is, and checked against X's names as predict checks a table: Z[["income", "age"]]
    was accepted and its rows used as the wrong points, with X's names kept; refused before the charge."""
    import dpcvx

    frame, y = _frame(300, 0)
    for other in (frame.iloc[:40][["income", "age"]], frame.iloc[:40].rename(columns={"age": "years"})):
        accountant = dpcvx.PrivacyAccountant(epsilon=100.0)
        with pytest.raises(InputError, match=r"^The feature names of Z should match those of X: .* pass the fitted "
                                             r"columns \['age', 'income'\] in that order, for example Z\[list\(X"):
            TDDL("rbf", gamma=1.0, lam=0.05).fit(frame, y, 50.0, Z=other, random_state=0, accountant=accountant)
        assert accountant.ledger == []
    with pytest.warns(UserWarning, match="^Z does not have valid feature names, but TDDL was fitted with feature"):
        TDDL("rbf", gamma=1.0, lam=0.05).fit(frame, y, 50.0, Z=frame.iloc[:40].to_numpy(), random_state=0)
    learner = TDDL("rbf", gamma=1.0, lam=0.05).fit(frame, y, 50.0, Z=frame.iloc[:40], random_state=0)
    np.testing.assert_array_equal(learner.centers, frame.iloc[:40].to_numpy())
