"""The accountant's neighbour relations: one relation per ledger, add-remove charges converted to
replace-one by group privacy, replace-one charges refused on an add-remove ledger, and tune refusing
learners whose predictions are not a per-row function of a released model.

On the code before the typed relation: an add-remove ledger (then: the relation of its curves)
accepted a TDDL release and a replace-one multiclass release, a replace-one ledger took an
add-remove release at its add-remove cost, and tune charged, then fed its held-out rows to PINP.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import BudgetExceededError, InputError
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.tuning import tune
from dpcvx.privacy.accountant import PrivacyAccountant, PrivacyCost
from dpcvx.privacy.neighbours import Neighbours, group_epsilon_delta, group_noise_multiplier
from dpcvx.privacy.privacy_curve import RDP_ORDERS, CurvePart, PrivacyCurve
from dpcvx.rounding import ROUNDING

ADD_REMOVE, REPLACE_ONE = Neighbours.ADD_REMOVE, Neighbours.REPLACE_ONE


def data(n: int = 120, d: int = 2, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.7, 0.7, size=(n, d))
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


X, Y = data()


def add_remove_release(epsilon: float = 0.5, delta: float = 1e-6) -> dpcvx.PrivateModel:
    """A Gaussian output-perturbation release proved for add-remove neighbours (n_public stated)."""
    return dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, Y, epsilon, "output", delta=delta, neighbours="add-remove",
                                                        n_public=X.shape[0], random_state=0)


# -- the relation type ------------------------------------------------------------------------


def test_the_relation_parses_its_public_spellings_and_refuses_others():
    assert Neighbours.parse("replace-one") is REPLACE_ONE and Neighbours.parse(ADD_REMOVE) is ADD_REMOVE
    assert str(ADD_REMOVE) == "add-remove"
    assert Neighbours.of_statement("replace-one, n public: same n") is REPLACE_ONE
    assert Neighbours.of_statement("add-remove: one record added or removed") is ADD_REMOVE
    with pytest.raises(InputError, match="neighbours must be one of"):
        Neighbours.parse("add/remove")
    assert ADD_REMOVE.converts_to(REPLACE_ONE) and not REPLACE_ONE.converts_to(ADD_REMOVE)


# -- each conversion's numbers ------------------------------------------------------------------


def test_pure_epsilon_doubles():
    assert group_epsilon_delta(0.3, 0.0) == (0.6, 0.0)


def test_epsilon_delta_becomes_two_epsilon_and_one_plus_e_to_the_epsilon_delta():
    epsilon, delta = group_epsilon_delta(0.5, 1e-6)
    assert epsilon == 1.0
    exact = (1 + math.exp(0.5)) * 1e-6
    assert exact <= delta <= exact * (1 + 2 * ROUNDING)  # rounded up by the project's policy, never down


def test_a_gaussian_part_halves_its_noise_multiplier_which_is_four_times_its_zcdp_rho():
    assert group_noise_multiplier(3.0) == 1.5
    part = CurvePart("gaussian", "output perturbation", noise_multiplier=3.0)
    grouped = part.grouped()
    assert grouped.noise_multiplier == 1.5
    # rho = 1 / (2 z^2): the Renyi curve alpha rho of the converted part is 4 times the original's
    assert np.allclose(grouped.rdp(RDP_ORDERS), 4 * part.rdp(RDP_ORDERS), rtol=1e-15)


def test_an_add_remove_curve_converts_to_replace_one_part_by_part_and_never_back():
    curve = PrivacyCurve((CurvePart("epsilon-delta", "objective", epsilon=0.4, delta=1e-7),
                          CurvePart("gaussian", "cover", noise_multiplier=8.0)), "add-remove")
    converted = curve.under(REPLACE_ONE)
    assert converted.neighbours is REPLACE_ONE
    assert (converted.parts[0].epsilon, converted.parts[0].delta) == group_epsilon_delta(0.4, 1e-7)
    assert converted.parts[1].noise_multiplier == 4.0
    assert curve.under(ADD_REMOVE) is curve
    with pytest.raises(InputError, match="only add-remove converts to replace-one"):
        converted.under(ADD_REMOVE)


# -- the ledger ----------------------------------------------------------------------------------


def test_a_replace_one_ledger_charges_an_add_remove_cost_at_its_group_privacy_cost_and_says_so():
    accountant = PrivacyAccountant(2.0, 1e-5)
    charged = accountant.spend(0.5, 1e-6, description="my add-remove mechanism", neighbours="add-remove")
    assert charged == PrivacyCost(*group_epsilon_delta(0.5, 1e-6))
    entry = accountant.ledger[-1]
    assert entry.neighbours is ADD_REMOVE and "group privacy" in entry.conversion
    assert "replace-one" in str(accountant) and "group privacy" in str(accountant)
    assert accountant.spent == charged


def test_a_replace_one_ledger_converts_an_add_remove_release_not_its_add_remove_cost():
    """The broken accountant took (0.6, 1e-6) into a (1.0, 1e-5) budget; the conversion needs 1.2."""
    model = add_remove_release(0.6, 1e-6)
    accountant = PrivacyAccountant(1.0, 1e-5)
    with pytest.raises(BudgetExceededError):
        accountant.spend_release(model)
    assert accountant.ledger == []  # a refused charge records nothing

    roomy = PrivacyAccountant(2.0, 1e-5)
    roomy.spend_release(model)
    entry = roomy.ledger[-1]
    assert entry.cost == PrivacyCost(*group_epsilon_delta(0.6, 1e-6))
    assert entry.curve is not None and entry.curve.neighbours is REPLACE_ONE
    release_z = model.certificate.privacy_curve.parts[0].noise_multiplier
    assert entry.curve.parts[0].noise_multiplier == release_z / 2


def test_the_learner_charge_of_an_add_remove_fit_is_converted_on_a_replace_one_ledger():
    accountant = PrivacyAccountant(2.0, 1e-5)
    dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, Y, 0.5, "output", delta=1e-6, neighbours="add-remove",
                                                 n_public=X.shape[0], random_state=0, accountant=accountant)
    assert accountant.ledger[-1].neighbours is ADD_REMOVE
    assert accountant.spent.delta == group_epsilon_delta(0.5, 1e-6)[1]


def test_an_add_remove_ledger_takes_add_remove_releases_at_their_cost():
    accountant = PrivacyAccountant(1.0, 1e-5, neighbours="add-remove")
    accountant.spend_release(add_remove_release(0.5, 1e-6))
    assert accountant.ledger[-1].cost == PrivacyCost(0.5, 1e-6) and accountant.ledger[-1].conversion == ""


def test_an_add_remove_ledger_refuses_a_replace_one_charge_and_records_nothing():
    accountant = PrivacyAccountant(1.0, 1e-5, neighbours="add-remove")
    accountant.spend_release(add_remove_release(0.2, 1e-6))
    before = list(accountant.ledger)
    with pytest.raises(InputError, match="replace-one neighbours and this accountant's ledger for add-remove"):
        accountant.spend(0.1)
    with pytest.raises(InputError, match="add-remove"):
        accountant.can_spend(0.1, neighbours="replace-one")
    assert accountant.ledger == before


def test_an_add_remove_ledger_refuses_a_tddl_release_before_solving(monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("TDDL solved after a refused charge")

    monkeypatch.setattr("dpcvx.solvers.kernel.solve_kernel_erm", no_work)
    accountant = PrivacyAccountant(10.0, 1e-5, neighbours="add-remove")
    learner = dpcvx.TDDL("rbf", gamma=2.0, lam=0.1)
    with pytest.raises(InputError, match="replace-one"):
        learner.fit(X, Y, 0.5, 1e-6, Z=X[:20], random_state=0, accountant=accountant)
    assert accountant.ledger == [] and learner.model_ is None


@pytest.mark.parametrize("mechanism, delta", [("objective", 0.0), ("objective", 1e-6), ("output", 1e-6)])
def test_an_add_remove_ledger_refuses_a_replace_one_multiclass_release(mechanism, delta):
    y = np.array([0, 1, 2] * 40)
    learner = PrivateMulticlassERM(dpcvx.PrivateERM(lam=0.1, data_norm=1.0), (0, 1, 2))
    accountant = PrivacyAccountant(10.0, 1e-5, neighbours="add-remove")
    with pytest.raises(InputError, match="replace-one"):
        learner.fit(X, y, 1.0, mechanism, delta=delta, random_state=0, accountant=accountant)
    assert accountant.ledger == []


def test_an_add_remove_multiclass_release_carries_its_relation_to_a_replace_one_ledger():
    y = np.array([0, 1, 2] * 40)
    learner = PrivateMulticlassERM(dpcvx.PrivateERM(lam=0.1, data_norm=1.0), (0, 1, 2))
    accountant = PrivacyAccountant(10.0, 1e-5)
    learner.fit(X, y, 1.0, "objective", delta=1e-6, neighbours="add-remove", n_public=120, random_state=0,
                accountant=accountant)
    entry = accountant.ledger[-1]
    assert entry.neighbours is ADD_REMOVE and entry.cost == PrivacyCost(*group_epsilon_delta(1.0, 1e-6))


def test_an_add_remove_ledger_refuses_tune_which_uses_n():
    accountant = PrivacyAccountant(10.0, 1e-5, neighbours="add-remove")
    with pytest.raises(InputError, match="replace-one"):
        tune(dpcvx.PrivateERM(data_norm=1.0), X, Y, {"lam": [0.1, 1.0]}, 0.5, accountant=accountant,
             random_state=0, procedure="split")
    assert accountant.ledger == []


def test_a_charge_and_its_curve_must_state_the_same_relation():
    curve = PrivacyCurve((CurvePart("gaussian", "g", noise_multiplier=2.0),), "add-remove")
    accountant = PrivacyAccountant(10.0, 1e-5)
    with pytest.raises(InputError, match="its curve is for add-remove"):
        accountant.spend(0.5, 1e-6, curve=curve, neighbours="replace-one")
    assert accountant.ledger == []


# -- tune and interactive learners ----------------------------------------------------------------


def pinp(**params: float) -> dpcvx.PINP:
    return dpcvx.PINP("rbf", gamma=2.0, lam=params.get("lam", 0.1), max_queries=5, loss="huber_hinge:h=0.5")


@pytest.mark.parametrize("learner", [pinp(), pinp], ids=["instance", "factory"])
def test_tune_refuses_an_interactive_learner_before_charging(learner, monkeypatch):
    def no_query(*args, **kwargs):
        raise AssertionError("a private held-out row reached PINP")

    monkeypatch.setattr(dpcvx.PINP, "query", no_query)
    accountant = PrivacyAccountant(10.0, 1e-5)
    with pytest.raises(InputError, match="predicts_per_row"):
        tune(learner, X, Y, {"lam": [0.1, 1.0]}, 0.5, accountant=accountant, random_state=0, procedure="split")
    assert accountant.ledger == [] and accountant.spent == PrivacyCost(0.0, 0.0)


def test_tune_refuses_a_learner_that_does_not_declare_per_row_predictions():
    class Undeclared:
        def __init__(self, lam: float = 0.1) -> None:
            self.lam = lam

        def fit(self, X, y, epsilon, random_state=None):
            return self

    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match="Undeclared does not declare predicts_per_row"):
        tune(Undeclared, X, Y, {"lam": [0.1]}, 0.5, accountant=accountant, random_state=0, procedure="split")
    assert accountant.ledger == []


def test_tune_refuses_add_remove_candidates_before_charging():
    accountant = PrivacyAccountant(10.0, 1e-5)
    with pytest.raises(InputError, match="replace-one neighbours"):
        tune(dpcvx.PrivateERM(data_norm=1.0), X, Y, {"lam": [0.1, 1.0]}, 0.5, mechanism="output", delta=1e-6,
             fit_params={"neighbours": "add-remove", "n_public": 40}, accountant=accountant,
    random_state=0, procedure="split")
    assert accountant.ledger == []


def test_tune_accepts_a_per_row_learner_and_charges_it_as_replace_one():
    accountant = PrivacyAccountant(1.0)
    result = tune(dpcvx.TDDL("rbf", gamma=2.0, lam=0.1), X, Y, {"lam": [0.1, 1.0]}, 0.5,
                  fit_params={"Z": X[:10]}, accountant=accountant, random_state=0, procedure="split")
    assert result.params["lam"] in (0.1, 1.0)
    assert accountant.spent == PrivacyCost(0.5, 0.0) and accountant.ledger[-1].neighbours is REPLACE_ONE


def test_tune_releases_nothing_from_a_candidate_whose_certificate_is_add_remove():
    """A learner that hides its relation passes the check before the charge; its release is still refused."""

    class HiddenAddRemove:
        predicts_per_row = True

        def __init__(self, lam: float = 0.1) -> None:
            self.lam = lam

        def fit(self, X, y, epsilon, random_state=None, delta=0.0):
            return dpcvx.PrivateERM(lam=self.lam, data_norm=1.0).fit(
                X, y, epsilon, "output", delta=delta, neighbours="add-remove", n_public=X.shape[0],
                random_state=random_state)

    with pytest.raises(dpcvx.AssumptionError, match="add-remove"):
        tune(HiddenAddRemove, X, Y, {"lam": [0.1, 1.0]}, 0.5, delta=1e-6, random_state=0, procedure="split")


@pytest.mark.parametrize("value", ["x", None, 3, [1]])
def test_the_enums_own_lookup_refuses_as_parse_does(value):
    """Neighbours(value) raises parse's InputError (still a ValueError, as Enum's refusal is)."""
    with pytest.raises(dpcvx.InputError, match="neighbours must be one of") as raised:
        dpcvx.Neighbours(value)
    assert isinstance(raised.value, ValueError) and dpcvx.Neighbours("add-remove") is ADD_REMOVE
