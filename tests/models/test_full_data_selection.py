"""Full-data private selection (random stopping): the charge, refusals, failed fits, the law of K and an audit."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpcvx
from dpcvx.exceptions import AssumptionError, BudgetExceededError, InputError, SolverError
from dpcvx.models import failure
from dpcvx.models.audit import epsilon_lower_bound
from dpcvx.models.tuning import SelectionCertificate
from dpcvx.privacy.exact_sampling import GeneratorSource, IntegerSource, bernoulli
from dpcvx.privacy.partition import coin_parts
from dpcvx.privacy.stopping import StoppingRule, draw_runs, miss_probability, noisy_count, run_epsilon


class ConstantModel:
    def __init__(self, label: int):
        self.label = label

    def predict(self, X) -> np.ndarray:
        return np.full(X.shape[0], self.label)


class ConstantLearner:
    """Predicts a fixed label; fails (SolverError) when ``fail``; counts its fits in ``log``."""

    predicts_per_row = True

    def __init__(self, label: int = 1, fail: bool = False, log: list | None = None):
        self.label, self.fail, self.log = label, fail, log if log is not None else []

    def __deepcopy__(self, memo) -> ConstantLearner:  # copies share the log
        return type(self)(self.label, self.fail, self.log)

    def get_params(self, deep: bool = True) -> dict:
        return {"label": self.label, "fail": self.fail, "log": self.log}

    def set_params(self, **params) -> ConstantLearner:
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X, y, epsilon: float, random_state=None) -> ConstantModel:
        if not failure.rehearsing():  # the rehearsal on synthetic public rows is not a fit of the data
            self.log.append(epsilon)
        if self.fail:
            raise SolverError("this candidate never converges")
        return ConstantModel(self.label)


def _data(n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros((n, 2)), np.ones(n, dtype=int)


def test_full_data_selection_charges_the_random_stopping_total_once():
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    result = dpcvx.tune(ConstantLearner(), X, y, {"label": [1, -1]}, epsilon=1.5, procedure="full-data",
                        accountant=accountant, random_state=3)
    assert len(accountant.ledger) == 1
    assert accountant.spent == (1.5, 0.0)
    certificate = result.certificate
    assert isinstance(certificate, SelectionCertificate)
    # each run gets e / (2 + eta), never more (rounded down to a double)
    assert certificate.run_epsilon <= 1.5 / 3 and certificate.run_epsilon == pytest.approx(0.5)
    assert set(result.certificate.candidates[0]) == {"label"}
    # the public rule, never the realised K
    released = result.certificate.to_dict()
    assert released["mean_runs"] == pytest.approx(8.0) and released["eta"] == 1
    assert "runs" not in released and "runs" in result.diagnostics_
    assert result.params == {"label": 1}  # the label that makes no mistakes (scores 0 against 1 per row)


@pytest.mark.parametrize("kwargs, error", [
    ({"delta": 1e-6}, AssumptionError),   # the RDP form is not available for dpcvx's (eps, delta) learners
    ({"epsilon": 5.0}, BudgetExceededError),
    ({"held_out": 1.0}, InputError),
    ({"eta": 0}, InputError),
    ({"mean_runs": 1.0}, InputError),
])
def test_a_refused_full_data_selection_spends_nothing_and_fits_nothing(kwargs, error):
    X, y = _data()
    log: list = []
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    arguments = {"epsilon": 1.0, **kwargs}
    with pytest.raises(error):
        dpcvx.tune(ConstantLearner(log=log), X, y, {"label": [1, -1]}, procedure="full-data",
                   accountant=accountant, random_state=0, **arguments)
    assert accountant.ledger == [] and log == []


@pytest.mark.parametrize("kwargs, match", [
    ({"held_out": "0.5"}, r"held_out must be a number in \(0, 1\), got '0.5' \(a str\)"),
    ({"eta": 10**9}, r"eta must be an integer from 1 to 1000, got 1000000000"),
    ({"mean_runs": 1e12}, r"mean_runs=1e\+12 is outside the range \[1.01, 1e\+06\]"),
    ({"eta": 1000, "mean_runs": 1.0001}, r"mean_runs=1.0001 is outside the range \[1.01, 1e\+06\]"),
    ({"fit_params": [1]}, r"fit_params must be a dict of keyword arguments of the learner's fit .* got list"),
    ({"grid": {"accountant": [None]}}, r"the grid must not set \['accountant'\]"),
    ({"grid": [{"label": 1, "random_state": 3}]}, r"the grid must not set \['random_state'\]"),
])
def test_tune_s_own_arguments_are_refused_with_their_names_before_the_charge(kwargs, match):
    X, y = _data()
    log: list = []
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    arguments = {"grid": {"label": [1, -1]}, **kwargs}
    with pytest.raises(InputError, match=match):
        dpcvx.tune(ConstantLearner(log=log), X, y, epsilon=1.0, procedure="full-data", accountant=accountant,
                   random_state=0, **arguments)
    assert accountant.ledger == [] and log == []


def test_split_refuses_the_random_stopping_parameters():
    X, y = _data()
    with pytest.raises(InputError, match="full-data"):
        dpcvx.tune(ConstantLearner(), X, y, {"label": [1]}, epsilon=1.0, procedure="split", mean_runs=5)


@pytest.mark.parametrize("grid", [[{"label": -1, "fail": True}, {"label": 1, "fail": False}],
                                  [{"label": 1, "fail": True}, {"label": -1, "fail": True}]])
def test_a_candidate_whose_fit_fails_is_refused_before_the_charge_never_scored(grid):
    """A failure used to be scored -inf after the charge (and "every run failed" released nothing): an event
    whose probability depends on the data (docs/theory.md, section 7.1). The rehearsal on synthetic public rows
    now finds it before anything is spent."""
    X, y = _data()
    log: list = []
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    with pytest.raises(InputError, match="synthetic public rows.*never converges"):
        dpcvx.tune(ConstantLearner(log=log), X, y, grid, epsilon=1.0, procedure="full-data", mean_runs=20,
                   accountant=accountant, random_state=5)
    assert accountant.ledger == [] and log == []


def _chi_square_p(draws: np.ndarray, rule: StoppingRule, top: int) -> float:
    observed = np.array([np.sum(draws == k) for k in range(1, top)] + [np.sum(draws >= top)])
    probabilities = np.array([rule.pmf(k) for k in range(1, top)])
    expected = len(draws) * np.append(probabilities, 1 - probabilities.sum())
    return float(stats.chisquare(observed, expected).pvalue)


def _broken_draw_runs(rule: StoppingRule, source: IntegerSource) -> int:
    """K without the truncation's rejection: a zero becomes 1 (more mass on K = 1)."""
    total = 0
    for _ in range(rule.eta):
        while bernoulli(1 - rule.gamma, source):
            total += 1
    return max(total, 1)


@pytest.mark.parametrize("eta, mean", [(1, 4.0), (2, 4.0), (3, 6.0)])
@pytest.mark.slow  # about 2 s (the default run's 5-minute limit)
def test_the_number_of_runs_follows_the_truncated_negative_binomial(eta, mean):
    """Chi-square at 5,000 seeded draws (bins 1..11 and >= 12), p > 0.001; the broken sampler is rejected."""
    rule = StoppingRule.with_mean(mean, eta)
    assert rule.mean_runs == pytest.approx(mean, rel=1e-4)
    source = GeneratorSource(np.random.default_rng(11))
    draws = np.array([draw_runs(rule, source) for _ in range(5000)])
    assert _chi_square_p(draws, rule, 12) > 1e-3
    assert draws.mean() == pytest.approx(mean, rel=0.06)
    broken = np.array([_broken_draw_runs(rule, source) for _ in range(5000)])
    assert _chi_square_p(broken, rule, 12) < 1e-6


def test_the_run_budget_and_the_miss_probability():
    assert run_epsilon(1.0, 1) * 3 == 1
    assert miss_probability(10, 40) == pytest.approx(9 / 49)
    # the closed form against the sum it stands for (geometric K, uniform candidate)
    gamma, m = 1 / 40, 10
    series = sum(gamma * (1 - gamma) ** (k - 1) * (1 - 1 / m) ** k for k in range(1, 5000))
    assert miss_probability(m, 40) == pytest.approx(series)


# -- audit: a canary's influence on the released candidate -------------------------------------

CANARY_HELD_OUT = 0.5


class ResponseLearner:
    """Randomised response on "is the canary (x_0 = 1) in my training part": the model predicts -1 when the
    answer is yes, +1 otherwise. epsilon-DP for the training part (one record flips the bit)."""

    predicts_per_row = True

    def __init__(self, tag: int = 0):
        self.tag = tag

    def get_params(self, deep: bool = True) -> dict:
        return {"tag": self.tag}

    def set_params(self, **params) -> ResponseLearner:
        self.tag = params.get("tag", self.tag)
        return self

    def fit(self, X, y, epsilon: float, random_state=None) -> ConstantModel:
        truth = bool(np.any(X[:, 0] == 1))
        keep = random_state.random() < math.exp(epsilon) / (1 + math.exp(epsilon))
        return ConstantModel(-1 if truth == keep else 1)


def _canary_data(canary: bool, n: int = 200) -> tuple[np.ndarray, np.ndarray]:
    X, y = np.zeros((n, 1)), np.ones(n, dtype=int)
    if canary:
        X[0, 0] = 1.0
    return X, y


def _broken_selection(X, y, candidates: int, run_budget: float, rng: np.random.Generator) -> int:
    """Every candidate run once, no random stopping, the best released: "charged as one candidate"."""
    source = GeneratorSource(rng)
    best, label = -math.inf, 0
    for tag in range(candidates):
        train, hold = coin_parts(X.shape[0], CANARY_HELD_OUT, rng)
        model = ResponseLearner(tag).fit(X[train], y[train], epsilon=run_budget, random_state=rng)
        mistakes = int(np.count_nonzero(model.predict(X[hold]) != y[hold]))
        score = -noisy_count(mistakes, run_budget, source) / max(hold.size, 1)
        if score > best:
            best, label = score, model.label
    return label


def _lower_bound(says_canary_on_d: int, says_canary_on_d_prime: int, trials: int) -> float:
    """The test "the released model predicts -1 => the canary is in": FP on D, FN on D'."""
    return float(epsilon_lower_bound(says_canary_on_d, trials, trials - says_canary_on_d_prime, trials,
                                     confidence=0.95))


@pytest.mark.slow
def test_audit_of_full_data_selection_stays_under_its_claim_and_catches_the_broken_variant():
    """3,000 seeded trials per data set. The claim of the full selection is epsilon = 3 (each run 1, geometric
    K with E[K] = 2): the empirical lower bound must stay below 3 (it is near 0.7 in expectation). The broken
    variant (4 candidates run once each, best released, claimed as one run: epsilon 1) leaks about
    log((1/2)^4 / (1/(1+e))^4) = 2.5 and its 95% lower bound must exceed its claim of 1."""
    trials, rng = 3000, np.random.default_rng(2024)
    claim = 3.0
    grid = {"tag": [0, 1, 2, 3]}
    counts = {}
    for canary in (False, True):
        X, y = _canary_data(canary)
        released = [dpcvx.tune(ResponseLearner(), X, y, grid, epsilon=claim, procedure="full-data", mean_runs=2,
                               held_out=CANARY_HELD_OUT, random_state=rng).model.label for _ in range(trials)]
        counts[canary] = int(np.sum(np.array(released) == -1))
    bound = _lower_bound(counts[False], counts[True], trials)
    assert counts[True] > counts[False]  # the canary is seen ...
    assert bound < claim  # ... but within the claim

    run_budget = claim / 3  # what the broken variant claims for the whole
    broken = {}
    for canary in (False, True):
        X, y = _canary_data(canary)
        labels = np.array([_broken_selection(X, y, 4, run_budget, rng) for _ in range(trials)])
        broken[canary] = int(np.sum(labels == -1))
    assert _lower_bound(broken[False], broken[True], trials) > run_budget


def test_the_default_procedure_is_full_data_and_refuses_an_undeclared_learner_before_charging():
    class Undeclared(ConstantLearner):
        predicts_per_row = False

    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    with pytest.raises(InputError, match="predicts_per_row"):
        dpcvx.tune(Undeclared(), X, y, {"label": [1]}, epsilon=1.0, accountant=accountant)
    assert accountant.ledger == []
    result = dpcvx.tune(ConstantLearner(), X, y, {"label": [1]}, epsilon=1.0, random_state=0)
    assert isinstance(result.certificate, SelectionCertificate)


@pytest.mark.parametrize("eta", [1, 2, 3])
def test_each_run_gets_epsilon_over_two_plus_eta_and_the_charge_is_the_total(eta):
    X, y = _data()
    log: list = []
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    result = dpcvx.tune(ConstantLearner(log=log), X, y, {"label": [1, -1]}, epsilon=0.7, eta=eta,
                        accountant=accountant, random_state=eta)
    assert accountant.spent == (0.7, 0.0) and len(accountant.ledger) == 1
    assert set(log) == {result.certificate.run_epsilon}
    assert result.certificate.run_epsilon * (2 + eta) <= 0.7
    assert len(log) == result.diagnostics_["runs"]  # one fit per run, never per candidate


def test_the_selected_fit_s_solver_facts_go_to_the_not_private_diagnostics_only():
    class Measuring(ConstantLearner):
        def fit(self, X, y, epsilon: float, random_state=None) -> ConstantModel:
            self.diagnostics_ = {"iterations": X.shape[0]}  # a fact of the private training part
            return super().fit(X, y, epsilon, random_state)

    X, y = _data()
    result = dpcvx.tune(Measuring(), X, y, {"label": [1, -1]}, epsilon=1.0, random_state=4)
    assert 0 < result.diagnostics_["selected_model"]["iterations"] < 200
    assert "iterations" not in result.to_json()


@pytest.mark.parametrize("mean_runs", [np.int64(10), np.int32(10), np.float32(10.0), np.float64(10.0)])
def test_numpy_numbers_are_taken_as_mean_runs(mean_runs):
    """tune(mean_runs=np.int64(10)) passed positive() and was then refused by the stopping rule's exact check
    (exact_sampling.rational took only int, float and Fraction): a numpy number is taken as every Python one."""
    X, y = _data()
    result = dpcvx.tune(ConstantLearner(), X, y, {"label": [1, -1]}, epsilon=1.5, procedure="full-data",
                        mean_runs=mean_runs, random_state=3)
    assert result.certificate.to_dict()["mean_runs"] == pytest.approx(10.0)
    assert StoppingRule.with_mean(mean_runs).gamma == StoppingRule.with_mean(10).gamma
