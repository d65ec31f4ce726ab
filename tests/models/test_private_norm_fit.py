"""Fitting with a privately chosen row-norm bound: one charge at eps_q + eps_fit, nothing spent when refused."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.exceptions import BudgetExceededError, InputError
from dpcvx.models.private_norm import fit_private_norm, split_budget
from dpcvx.privacy.neighbours import Neighbours


def _data(n: int = 600, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * 2.0  # norms around 3.5: no public bound is given
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


class StubLearner:
    """Records what it is asked; its model predicts +1."""

    def __init__(self, log: list):
        self.log, self.data_norm = log, None

    def __deepcopy__(self, memo) -> StubLearner:  # copies share the log
        return StubLearner(self.log)

    def set_params(self, **params) -> StubLearner:
        self.data_norm = params["data_norm"]
        return self

    def check_fit_inputs(self, X, y, epsilon: float):
        self.log.append(("check", self.data_norm, epsilon))

    def fit(self, X, y, epsilon: float, random_state=None):
        self.log.append(("fit", self.data_norm, epsilon))
        return "model"


def test_checks_come_first_then_one_charge_at_the_total_then_the_fit_with_the_drawn_bound():
    X, y = _data()
    log: list = []
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    result = fit_private_norm(StubLearner(log), X, y, 1.0, r_min=0.25, r_max=64, accountant=accountant,
                              random_state=3)
    assert [entry[0] for entry in log] == ["check", "check", "fit"]
    assert {entry[1] for entry in log[:2]} == {0.25, 64.0}  # both ends of the public grid
    assert log[2] == ("fit", result.norm.bound, result.fit_epsilon)
    assert len(accountant.ledger) == 1 and accountant.spent.epsilon == pytest.approx(1.0)
    assert result.epsilon <= 1.0 and result.norm.epsilon == pytest.approx(0.1)
    # the 95% quantile of the norms is about 5.6: every R >= 8 scores best (all rows below it, a tie), seeded
    assert result.norm.bound >= 8.0


@pytest.mark.slow
def test_private_erm_with_a_private_bound_clips_to_it_and_states_its_part():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = dpcvx.PrivateERM(loss=losses.logistic(), lam=1e-2)
    result = fit_private_norm(learner, X, y, 1.0, r_min=0.25, r_max=64, accountant=accountant, random_state=3)
    assert len(accountant.ledger) == 1 and accountant.spent.epsilon == pytest.approx(1.0)
    assert result.epsilon <= 1.0 and result.norm.epsilon == pytest.approx(0.1)
    assert result.model.certificate.epsilon == result.fit_epsilon
    assert result.model.certificate.data_norm == result.norm.bound  # the fit clipped to the chosen R
    assert learner.data_norm is None  # the user's learner is not changed
    assert result.to_dict()["norm_bound"]["grid"][0] == 0.25


@pytest.mark.parametrize("kwargs, error", [
    ({"epsilon": 5.0}, BudgetExceededError),
    ({"delta": 1.5}, InputError),
    ({"share": 1.0}, InputError),
    ({"r_min": 3, "r_max": 3.5}, InputError),
])
def test_a_refused_private_bound_fit_spends_nothing(kwargs, error):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    arguments = {"epsilon": 1.0, "r_min": 0.25, "r_max": 64, **kwargs}
    log: list = []
    with pytest.raises(error):
        fit_private_norm(StubLearner(log), X, y, accountant=accountant, random_state=0, **arguments)
    assert accountant.ledger == [] and all(entry[0] == "check" for entry in log)


def test_the_budget_split_never_exceeds_the_total():
    for epsilon in (0.1, 0.3, 1.0, 7.7):
        eps_q, eps_fit = split_budget(epsilon, 0.1, "share")
        assert eps_q + eps_fit <= epsilon


def test_private_erm_with_a_private_bound_and_no_range_is_refused_naming_norm_range():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    with pytest.raises(InputError, match="norm_range"):
        dpcvx.PrivateERM(data_norm="private").fit(X, y, epsilon=1.0, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.slow
def test_an_estimator_takes_a_private_bound_through_the_budget_adapter():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = dpcvx.BudgetInConstructor(dpcvx.DPLogisticRegression, lam=1e-2)
    result = fit_private_norm(learner, X, (y > 0).astype(int), 1.0, r_min=0.25, r_max=64, accountant=accountant,
                              random_state=1)
    assert accountant.spent.epsilon == pytest.approx(1.0) and len(accountant.ledger) == 1
    assert result.model.data_norm == result.norm.bound and result.model.epsilon == result.fit_epsilon


class RelationStub(StubLearner):
    """A StubLearner whose check and fit take the neighbour relation, as PrivateERM's do."""

    def __deepcopy__(self, memo) -> RelationStub:
        return RelationStub(self.log)

    def check_fit_inputs(self, X, y, epsilon: float, neighbours=None):
        self.log.append(("check", self.data_norm, epsilon))

    def fit(self, X, y, epsilon: float, random_state=None, neighbours=None):
        self.log.append(("fit", self.data_norm, epsilon))
        return "model"


@pytest.mark.parametrize("relation", ["replace-one", Neighbours.REPLACE_ONE])
def test_the_replace_one_relation_is_accepted_in_either_spelling(relation):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    fit_private_norm(RelationStub([]), X, y, 1.0, r_min=0.25, r_max=64, accountant=accountant, random_state=0,
                     neighbours=relation)
    assert accountant.spent.epsilon == pytest.approx(1.0)


@pytest.mark.parametrize("relation", ["add-remove", Neighbours.ADD_REMOVE, "replace_one"])
def test_another_relation_is_refused_before_anything_is_charged(relation):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    with pytest.raises(InputError):
        fit_private_norm(RelationStub([]), X, y, 1.0, r_min=0.25, r_max=64, accountant=accountant,
                         neighbours=relation)
    assert accountant.ledger == []


def test_the_model_states_what_the_drawn_bound_cost_as_data_norm_private_does(tmp_path):
    """The model publishes the drawn R (its certificate's data_norm), so on its own it states the whole cost: its
    certificate said eps_fit (0.9 of 1), and an accountant's spend_release of it charged 0.9 (an accounting audit).
    Now it records the draw as PrivateERM(data_norm="private") does, and its file loads."""
    X, y = _data()
    result = fit_private_norm(dpcvx.PrivateERM(loss=losses.logistic(), lam=1e-2), X, y, 1.0, r_min=0.25, r_max=64,
                              random_state=3)
    certificate = result.model.certificate
    assert certificate.epsilon == pytest.approx(result.fit_epsilon)  # the fit's part given R
    assert certificate.total_epsilon == pytest.approx(result.epsilon) == pytest.approx(1.0)
    assert certificate.private_bound["bound"] == certificate.data_norm == result.norm.bound
    assert dpcvx.PrivacyAccountant(5.0).spend_release(result.model).epsilon == pytest.approx(1.0)
    assert "epsilon = 1 in total, the fit's 0.9" in str(certificate)
    loaded = dpcvx.load(dpcvx.save(result.model, tmp_path / "model.json"))
    assert loaded.certificate.total_epsilon == pytest.approx(1.0)
