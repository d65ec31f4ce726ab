"""The kernel learners' ``time_limit``: the deadline of the loss's verification, as PrivateERM's. One check
(dpcvx.verification.loss_declaration.check_time_limit, PrivateERM's), run by the constructor, set_params,
check_options and fit before any data is read or anything charged; the checked value is the deadline of
resolve_loss (the verification and the kernel facts). Before, the learners refused the keyword and verified every
loss under the fixed default of 20 s."""

from __future__ import annotations

import numpy as np
import pytest

from dpcvx.exceptions import InputError
from dpcvx.models import kernel_learner
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.privacy.accountant import PrivacyAccountant

LEARNERS = {"PINP": (PINP, dict(gamma=1.0, lam=0.1, max_queries=5)),
            "TDIL": (TDIL, dict(gamma=1.0, lam=0.1, input_bound=1.0)),
            "TDDL": (TDDL, dict(gamma=1.0, lam=0.1))}
BAD = [0, -1.0, float("inf"), float("nan"), True, "soon", "1", np.array([1.0])]  # text that reads as a number too
REFUSAL = "time_limit must be (a positive number|finite and positive)"


def make(name: str, **settings):
    learner, base = LEARNERS[name]
    return learner("rbf", **{**base, **settings})


def task(n: int = 30, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] > 0, 1.0, -1.0)


class Unread:
    """Training rows that fail the test if anything reads them."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data was read before the settings were checked")


def fit_options(name: str, Z: np.ndarray | None = None) -> dict:
    return {"Z": Unread() if Z is None else Z} if name == "TDDL" else {}


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("value", BAD, ids=repr)
def test_constructor_and_set_params_refuse_a_bad_time_limit(name, value):
    with pytest.raises(InputError, match=REFUSAL):
        make(name, time_limit=value)
    with pytest.raises(InputError, match=REFUSAL):
        make(name).set_params(time_limit=value)


@pytest.mark.parametrize("name", LEARNERS)
@pytest.mark.parametrize("value", [0, "soon"], ids=repr)
def test_check_options_and_fit_refuse_it_before_reading_data_or_charging(name, value):
    learner = make(name)
    learner.time_limit = value  # assigned past the constructor's check
    with pytest.raises(InputError, match=REFUSAL):
        learner.check_options(1.0)
    accountant = PrivacyAccountant(10.0)
    with pytest.raises(InputError, match=REFUSAL):
        learner.fit(Unread(), Unread(), 1.0, accountant=accountant, **fit_options(name))
    assert accountant.ledger == []


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")  # TDIL's net of the plane
@pytest.mark.parametrize("name", LEARNERS)
def test_the_checked_time_limit_is_the_loss_verification_deadline(name, monkeypatch):
    deadlines = []
    resolve = kernel_learner.resolve_loss

    def recording(loss, *, time_limit=None):
        deadlines.append(time_limit)
        return resolve(loss, time_limit=time_limit)

    monkeypatch.setattr(kernel_learner, "resolve_loss", recording)
    learner = make(name, time_limit=7)
    assert learner.time_limit == 7.0 and learner.get_params()["time_limit"] == 7.0
    X, y = task()
    learner.fit(X, y, 1.0, random_state=0, **fit_options(name, X[:5]))
    assert deadlines == [7.0]
    learner.set_params(time_limit=3)  # a new deadline: the loss is verified again, within it
    learner.check_options(1.0)
    assert deadlines == [7.0, 3.0]
    assert make(name).time_limit is None  # the default: resolve_loss's own (20 s)
