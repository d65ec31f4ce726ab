"""PrivacyAccountant: sequential and parallel arithmetic, (epsilon, delta) pairs, refusal before work."""

import contextlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.accountant import PrivacyAccountant, PrivacyCost, check_cost


def test_sequential_charges_add_up():
    accountant = PrivacyAccountant(epsilon=1.0)
    assert accountant.spend(0.1, description="first") == PrivacyCost(0.1, 0.0)
    accountant.spend(0.25, description="second")
    assert accountant.spent == PrivacyCost(0.35, 0.0)
    assert accountant.remaining.epsilon == pytest.approx(0.65, abs=1e-15)
    assert [entry.composition for entry in accountant.ledger] == ["sequential", "sequential"]
    assert [entry.description for entry in accountant.ledger] == ["first", "second"]


def test_ten_tenths_fill_a_budget_of_one_and_the_eleventh_is_refused():
    # 0.1 added ten times in floating point is 0.9999999999999999; the sum is exact (fsum)
    # and the comparison has a relative slack of 1e-12, so exactly ten charges fit.
    accountant = PrivacyAccountant(epsilon=1.0)
    for _ in range(10):
        accountant.spend(0.1)
    assert accountant.spent.epsilon == pytest.approx(1.0, abs=1e-15)
    assert accountant.remaining.epsilon == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(dpcvx.BudgetExceededError):
        accountant.spend(0.1)
    assert len(accountant.ledger) == 10


def test_parallel_charge_is_the_maximum_of_each_coordinate():
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    cost = accountant.spend_parallel([(0.3, 1e-6), (0.5, 0.0), (0.2, 4e-6)], description="parts")
    assert cost == PrivacyCost(0.5, 4e-6)
    assert accountant.spent == PrivacyCost(0.5, 4e-6)
    assert accountant.ledger[-1].composition == "parallel over 3 disjoint parts"


def test_mixed_epsilon_delta_arithmetic_and_refusal_on_delta():
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-5)
    accountant.spend(0.2, 4e-6)
    accountant.spend_parallel([(0.1, 5e-6), (0.3, 1e-6)])
    assert accountant.spent.epsilon == pytest.approx(0.5, abs=1e-15)
    assert accountant.spent.delta == pytest.approx(9e-6, rel=1e-12)
    assert accountant.remaining.delta == pytest.approx(1e-6, rel=1e-9)
    assert accountant.can_spend(0.1, 1e-6) and not accountant.can_spend(0.1, 2e-6)
    with pytest.raises(dpcvx.BudgetExceededError, match="delta=2e-06"):
        accountant.spend(0.1, 2e-6)          # epsilon would fit; delta would not
    assert len(accountant.ledger) == 2
    accountant.spend(0.1)                    # pure epsilon still fits
    assert accountant.spent.epsilon == pytest.approx(0.6, abs=1e-15)


def test_a_pure_budget_refuses_any_delta():
    accountant = PrivacyAccountant(epsilon=5.0)
    with pytest.raises(dpcvx.BudgetExceededError):
        accountant.spend(0.1, 1e-9)
    assert accountant.ledger == []


def test_refusal_names_the_problem_and_leaves_the_ledger_unchanged():
    accountant = PrivacyAccountant(epsilon=1.0)
    accountant.spend(0.7)
    with pytest.raises(dpcvx.BudgetExceededError) as error:
        accountant.spend(0.5, description="big fit")
    message = str(error.value)
    assert "big fit needs (epsilon=0.5" in message and "only (epsilon=0.3" in message
    assert "nothing was computed" in message and "smaller epsilon" in message
    assert accountant.spent == PrivacyCost(0.7, 0.0) and len(accountant.ledger) == 1


@pytest.mark.parametrize("epsilon, delta", [(0, 0), (-1, 0), (math.nan, 0), (math.inf, 0),
                                            (1, -0.1), (1, 1.0), (1, math.nan), (1, True), (1, "x")])
def test_invalid_costs_are_input_errors(epsilon, delta):
    with pytest.raises(dpcvx.InputError):
        check_cost(epsilon, delta)
    with pytest.raises(dpcvx.InputError):
        PrivacyAccountant(epsilon, delta)
    with pytest.raises(dpcvx.InputError):
        PrivacyAccountant(10.0, 0.5).spend(epsilon, delta)


def test_parallel_needs_a_cost():
    with pytest.raises(dpcvx.InputError, match="at least one"):
        PrivacyAccountant(1.0).spend_parallel([])


def test_summary_lists_every_charge():
    accountant = PrivacyAccountant(epsilon=2.0, delta=1e-6)
    accountant.spend(0.5, description="fit A")
    accountant.spend_parallel([(1.0, 1e-7)] * 3, description="tuning B")
    text = str(accountant)
    assert "spent (epsilon=1.5, delta=1e-07)" in text and "remaining (epsilon=0.5" in text
    assert "(sequential): fit A" in text and "(parallel over 3 disjoint parts): tuning B" in text


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.lists(st.floats(0.01, 0.6), min_size=1, max_size=4)),
                max_size=12))
def test_spent_is_the_composition_of_accepted_charges_and_never_exceeds_the_budget(charges):
    accountant = PrivacyAccountant(epsilon=1.5)
    expected = 0.0
    for parallel, costs in charges:
        cost = max(costs) if parallel else sum(costs)
        fits = expected + cost <= 1.5 * (1 + 1e-12)
        try:
            if parallel:
                accountant.spend_parallel([(c, 0.0) for c in costs])
            else:
                for c in costs:          # sequential: one charge each
                    accountant.spend(c)
        except dpcvx.BudgetExceededError:
            assert not fits
            expected = accountant.spent.epsilon   # sequential charges before the refusal stay
            continue
        assert fits
        expected += cost
        assert accountant.spent.epsilon == pytest.approx(expected, abs=1e-12)
    assert accountant.spent.epsilon <= 1.5 * (1 + 1e-12)
    assert accountant.remaining.epsilon == pytest.approx(max(1.5 - accountant.spent.epsilon, 0), abs=1e-12)


# -- fit(..., accountant=) -------------------------------------------------------------------


class CountingERM(dpcvx.PrivateERM):
    """PrivateERM that counts its solves (the work a refused charge must prevent)."""

    solves = 0

    def _solve(self, *args, **kwargs):
        type(self).solves += 1
        return super()._solve(*args, **kwargs)


def _data(n=400, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, np.where(X[:, 0] + 0.2 * rng.normal(size=n) > 0, 1, -1)


def test_private_erm_fit_charges_epsilon_and_is_refused_before_solving():
    X, y = _data()
    CountingERM.solves = 0
    accountant = PrivacyAccountant(epsilon=1.0)
    erm = CountingERM(lam=1e-2, data_norm=1.0)
    model = erm.fit(X, y, epsilon=0.6, random_state=0, accountant=accountant)
    assert CountingERM.solves == 1 and model.certificate.epsilon == 0.6
    assert accountant.spent == PrivacyCost(0.6, 0.0)
    assert accountant.ledger[0].description == "PrivateERM.fit (loss logistic, objective perturbation, n=400)"
    with pytest.raises(dpcvx.BudgetExceededError):
        erm.fit(X, y, epsilon=0.6, mechanism="output", random_state=0, accountant=accountant)
    assert CountingERM.solves == 1          # the refused fit solved nothing
    assert accountant.spent == PrivacyCost(0.6, 0.0)


# -- concurrency ---------------------------------------------------------------------------


def _race(accountant, threads=8, cost=0.25):
    """``threads`` threads released together each try one charge; returns the number accepted."""
    import threading

    barrier, accepted, lock = threading.Barrier(threads), [], threading.Lock()

    def worker():
        barrier.wait()
        try:
            accountant.spend(cost, description="thread")
        except dpcvx.BudgetExceededError:
            return
        with lock:
            accepted.append(1)

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return len(accepted)


def _slow_can_spend(monkeypatch):
    """Make the check slow, so every thread reaches it before any appends: without an atomic
    check-and-append (the unfixed ``_charge``: ``if not can_spend(): raise``, then append) all
    threads pass the check against the same empty ledger and the race overspends every time."""
    import time

    original = PrivacyAccountant._fits  # the check of every charge, ``can_spend``'s too

    def slow(self, entry):
        answer = original(self, entry)
        time.sleep(0.002)
        return answer

    monkeypatch.setattr(PrivacyAccountant, "_fits", slow)


@pytest.mark.slow
def test_concurrent_spends_never_exceed_the_budget(monkeypatch):
    """8 threads charge 0.25 each against a budget of 1.0, 200 times: exactly 4 are accepted.

    ``can_spend`` is slowed down (see ``_slow_can_spend``), which made the unfixed accountant
    accept all 8 charges (spent 2.0 > 1.0) in every trial; the next test shows the same race
    with the lock disabled."""
    _slow_can_spend(monkeypatch)
    for _ in range(200):
        accountant = PrivacyAccountant(epsilon=1.0)
        assert _race(accountant) == 4
        assert len(accountant.ledger) == 4
        assert accountant.spent == PrivacyCost(1.0, 0.0)


@pytest.mark.slow
def test_concurrent_parallel_and_sequential_spends_share_the_lock(monkeypatch):
    _slow_can_spend(monkeypatch)
    import threading

    for _ in range(50):
        accountant = PrivacyAccountant(epsilon=1.0)
        barrier = threading.Barrier(6)

        def sequential(accountant=accountant, barrier=barrier):
            barrier.wait()
            with contextlib.suppress(dpcvx.BudgetExceededError):  # the 4th charge is refused
                accountant.spend(0.3)

        def parallel(accountant=accountant, barrier=barrier):
            barrier.wait()
            with contextlib.suppress(dpcvx.BudgetExceededError):
                accountant.spend_parallel([(0.3, 0.0), (0.1, 0.0)])

        pool = [threading.Thread(target=f) for f in (sequential, parallel) * 3]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        assert len(accountant.ledger) == 3                    # 3 x 0.3 fit in 1.0, a 4th does not
        assert accountant.spent.epsilon == pytest.approx(0.9, abs=1e-12)


def test_the_race_is_real_without_the_lock(monkeypatch):
    """The test above is not vacuous: with the lock replaced by a no-op the same race overspends.

    On a quiet machine the first trial overspends; on a loaded one the scheduler may run the
    threads one after another, so up to 20 fresh trials are run and one overspend suffices (a
    locked accountant never overspends in 200: the test above)."""
    import contextlib

    _slow_can_spend(monkeypatch)
    for _ in range(20):
        accountant = PrivacyAccountant(epsilon=1.0)
        accountant._lock = contextlib.nullcontext()
        if _race(accountant) > 4:
            break
    assert accountant.spent.epsilon > 1.0


def test_the_lock_does_not_change_equality_copy_pickle_or_asdict():
    import copy
    import dataclasses
    import pickle
    import threading

    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    accountant.spend(0.25, description="fit")
    assert accountant == PrivacyAccountant(epsilon=1.0, delta=1e-6, ledger=list(accountant.ledger))
    assert "_lock" not in repr(accountant)
    assert dataclasses.asdict(accountant)["ledger"][0]["description"] == "fit"
    assert "_lock" not in dataclasses.asdict(accountant)
    for duplicate in (copy.copy(accountant), copy.deepcopy(accountant),
                      pickle.loads(pickle.dumps(accountant)), dataclasses.replace(accountant)):
        assert duplicate == accountant
        assert duplicate._lock is not accountant._lock
        assert isinstance(duplicate._lock, type(threading.RLock()))
        duplicate.spend(0.5)                                  # a copy keeps its own ledger and lock
        assert duplicate.spent.epsilon == 0.75 and accountant.spent.epsilon == 0.25
        assert _race(duplicate) == 1                          # 0.25 of 0.25 left


@pytest.mark.parametrize("charge, match", [
    (lambda a: a.spend(0.1, 0, 5), "description must be a str"),
    (lambda a: a.spend_parallel([(0.1, 0)], 5), "description must be a str"),
    (lambda a: a.spend_parallel([0.1]), r"one \(epsilon, delta\) pair per disjoint part, got 0.1"),
    (lambda a: a.spend_parallel([(0.1, 0, 0)]), r"one \(epsilon, delta\) pair per disjoint part, got \(0.1, 0, 0\)"),
    (lambda a: a.spend_parallel(0.1), r"takes a list of \(epsilon, delta\) pairs, got float"),
])
def test_malformed_charges_get_typed_errors_and_charge_nothing(charge, match):
    accountant = PrivacyAccountant(1.0)
    with pytest.raises(dpcvx.InputError, match=match):
        charge(accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("ledger, match", [([1, 2], r"LedgerEntry items only \(an accountant.s ledger\), got int"),
                                           (5, "ledger must be a list of LedgerEntry")])
def test_a_ledger_given_to_the_constructor_holds_ledger_entries(ledger, match):
    with pytest.raises(dpcvx.InputError, match=match):
        PrivacyAccountant(1, ledger=ledger)
    copied = PrivacyAccountant(1.0)
    copied.spend(0.1)
    assert PrivacyAccountant(1.0, ledger=copied.ledger).spent == copied.spent


def test_a_continued_ledger_keeps_the_relation_its_costs_are_under():
    """PrivacyAccountant(epsilon, ledger=saved.ledger) without neighbours= read an add-remove ledger's costs as
    replace-one (spent 1.0 where the same charge on a replace-one ledger costs 2.0 by group privacy), and a
    replace-one ledger as add-remove; both are refused, naming the way to continue. An add-remove charge converted
    on a replace-one ledger is a replace-one cost and continues as one."""
    added = PrivacyAccountant(10.0, neighbours="add-remove")
    added.spend(1.0, neighbours="add-remove")
    with pytest.raises(dpcvx.InputError, match="entry 0 .* under add-remove neighbours.*neighbours=saved.neighbours"):
        PrivacyAccountant(10.0, ledger=added.ledger)
    assert PrivacyAccountant(10.0, ledger=added.ledger, neighbours="add-remove").spent == added.spent
    replaced = PrivacyAccountant(10.0)
    replaced.spend(1.0, neighbours="add-remove")  # converted: (2, 0) under replace-one
    replaced.spend(0.5)
    with pytest.raises(dpcvx.InputError, match="under replace-one neighbours"):
        PrivacyAccountant(10.0, ledger=replaced.ledger, neighbours="add-remove")
    assert PrivacyAccountant(10.0, ledger=replaced.ledger).spent == replaced.spent == (2.5, 0.0)


def test_a_budget_below_what_the_ledger_spent_is_refused():
    spent = PrivacyAccountant(10.0)
    spent.spend(7.0)
    with pytest.raises(dpcvx.BudgetExceededError, match=r"already spent \(epsilon=7, delta=0\), beyond this budget"):
        PrivacyAccountant(1.0, ledger=spent.ledger)
    assert PrivacyAccountant(7.0, ledger=spent.ledger).remaining.epsilon == 0


@pytest.mark.parametrize("pair", [("a", "b"), (-1.0, 0.0), (float("nan"), 0.0), (math.inf, 0.0), (1.0, 2.0),
                                  (1.0, -0.1), (None, 0.0)])
def test_privacy_cost_refuses_what_no_accountant_reports(pair):
    """PrivacyCost is checked at construction (epsilon finite >= 0, delta in [0, 1]), _replace too; still a pair."""
    with pytest.raises(InputError, match="epsilon|delta"):
        PrivacyCost(*pair)
    with pytest.raises(InputError, match="epsilon|delta"):
        PrivacyCost(1.0, 0.5)._replace(epsilon=pair[0], delta=pair[1])
    epsilon, delta = PrivacyCost(0, 1)
    assert (epsilon, delta) == (0.0, 1.0) and PrivacyCost(*PrivacyCost(0.5, 1e-6)) == (0.5, 1e-6)


def test_spend_release_charges_a_fitted_estimator_as_its_release():
    """An estimator's fit returns the estimator; spend_release refused it ("takes a dpcvx release with a certificate,
    got DPLogisticRegression", a neighbour-pair probe, sixty-first session) where its docstring says "a model from
    fit". It charges the release the estimator holds, and still refuses one not fitted."""
    pytest.importorskip("sklearn")
    from dpcvx.demo import synthetic_classification

    X, y = synthetic_classification(n=300, d=3, random_state=0)
    estimator = dpcvx.DPLogisticRegression(epsilon=0.7, delta=1e-6, classes=(-1, 1), random_state=0).fit(X, y)
    accountant = PrivacyAccountant(2.0, 1e-5)
    cost = accountant.spend_release(estimator)
    assert (cost.epsilon, cost.delta) == (0.7, 1e-6) == (estimator.model_.epsilon, estimator.model_.delta)
    with pytest.raises(InputError, match="takes a dpcvx release"):
        accountant.spend_release(dpcvx.DPLogisticRegression(epsilon=0.7))


def test_spend_release_charges_what_holds_one_release():
    """spend_release refused a fitted kernel learner and a TuningResult ("takes a dpcvx release with a certificate,
    got TuningResult"; a lead of the sixty-first session), which dpcvx.save writes as their release. Each is charged
    the release it holds: the learner's model_, the selection's whole cost. A pipeline is refused with the way to
    charge its last step: its other steps may have read the rows (a fitted StandardScaler before the private fit was
    charged as if the pipeline were private, and a SelectFromModel of a private fit went uncharged: an attacker
    probe, sixty-second session)."""
    pytest.importorskip("sklearn")
    from sklearn.feature_selection import SelectFromModel
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from dpcvx.demo import synthetic_classification

    X, y = synthetic_classification(n=300, d=3, random_state=1)
    learner = dpcvx.TDDL("rbf", gamma=1.0, lam=0.1)
    learner.fit(X[:200], y[:200], 0.8, Z=X[200:240], random_state=0)
    result = dpcvx.tune(dpcvx.DPLogisticRegression(classes=(-1, 1), random_state=0), X, y, {"lam": [0.01, 0.1]},
                        epsilon=0.9, random_state=0)
    for held, release in ((learner, learner.model_), (result, result.model)):
        accountant = PrivacyAccountant(5.0, 1e-5)
        cost = accountant.spend_release(held)
        assert cost == accountant.spend_release(release) and cost.epsilon in (0.8, 0.9), type(held).__name__
    schema = dpcvx.PublicSchema([dpcvx.NumericColumn(f"x{i}", -1.0, 1.0) for i in range(3)])
    pipelines = [make_pipeline(schema, dpcvx.DPLogisticRegression(epsilon=0.6, classes=(-1, 1), random_state=0)),
                 make_pipeline(StandardScaler(), dpcvx.DPLogisticRegression(epsilon=0.6, classes=(-1, 1))),
                 make_pipeline(SelectFromModel(dpcvx.DPLogisticRegression(epsilon=1.0, classes=(-1, 1))),
                               dpcvx.DPLogisticRegression(epsilon=0.6, classes=(-1, 1)))]
    for pipeline in pipelines:
        accountant = PrivacyAccountant(5.0)
        with pytest.raises(InputError, match=r"not a Pipeline.*spend_release\(pipeline\[-1\]\)"):
            accountant.spend_release(pipeline.fit(X, y))
        assert not accountant.ledger
    assert PrivacyAccountant(5.0).spend_release(pipelines[0][-1]).epsilon == 0.6
