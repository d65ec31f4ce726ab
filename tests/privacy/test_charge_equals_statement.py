"""What a fit charges is what its release states, exactly (a probe of the sixty-third session, fixed in the
sixty-fourth): the accountant's recorded epsilon and delta are the release's ``epsilon`` and ``delta`` (and its
certificate's ``total_epsilon``), compared with ==, and the charged curve is the release's privacy curve, over the
learners, private column statistics on and off, the class priors (a private class count or none), pure and
approximate budgets and awkward epsilons. Charged as the statistics' eps_s + eps_fit, a fit with a class count drawn
inside eps_fit at epsilon 3 was charged 3.0 for a release stating 3.0000000000000004 (two orders of one sum), and its
charged curve had the fit's Gaussian at the statistics' eps_fit and no part for the count."""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest

from dpcvx import PrivacyAccountant
from dpcvx.exceptions import ClippingWarning, NoiseDominatesWarning
from dpcvx.models.fit_plan import composite_ledger_line
from dpcvx.privacy.composition import sequential_epsilon
from dpcvx.sklearn import DPHuberRegressor, DPHuberSVM, DPLogisticRegression

EPSILONS = (0.1, 1 / 3, 2.7, 3.0)
N, D = 2500, 3


def _rows(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    return X, (X[:, 0] + rng.normal(size=N) > 0).astype(int), X @ np.ones(D) / 2 + rng.normal(size=N) / 4


def _charged_and_stated(estimator, X, y):
    accountant = PrivacyAccountant(100.0, 0.5)
    estimator.set_params(accountant=accountant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        warnings.simplefilter("ignore", NoiseDominatesWarning)
        fitted = estimator.fit(X, y)
    (entry,) = accountant.ledger
    return entry, fitted.model_


def _assert_same(entry, model) -> None:
    assert entry.cost.epsilon == model.epsilon == model.certificate.total_epsilon, (
        entry.cost.epsilon, model.epsilon, model.certificate.total_epsilon)
    assert entry.cost.delta == model.delta
    assert entry.curve == model.privacy_curve
    again = PrivacyAccountant(100.0, 0.5)
    assert again.spend_release(model) == entry.cost  # spend_release charges what the fit charged


# class_prior="private" without class weights is the logistic intercept offset: DPLogisticRegression's only
# epsilon 0.1 and 2.7 in the slow tier (about 80 fits of two mechanisms in all: the default run on a bare clone
# must stay within 5 minutes); 1 / 3 and 3.0, the awkward sums, run by default
CLASSIFIER_SETTINGS = [setting if setting[-1] in (1 / 3, 3.0) else pytest.param(*setting, marks=pytest.mark.slow)
                       for setting in itertools.product(
    (DPLogisticRegression, DPHuberSVM), (False, True), (None, "private", "balanced"), (0.0, 1e-6), EPSILONS)
    if setting[2] != "private" or setting[0] is DPLogisticRegression]


@pytest.mark.parametrize(("learner", "statistics", "prior", "delta", "epsilon"), CLASSIFIER_SETTINGS)
def test_classifier_charge_is_the_release_statement(learner, statistics, prior, delta, epsilon) -> None:
    X, y, _ = _rows()
    options: dict = {"data_norm": 4.0, "column_statistics": statistics, "epsilon": epsilon, "delta": delta}
    if prior == "private":
        options["class_prior"] = "private"
    elif prior == "balanced":
        options["class_weight"] = "balanced"
    # a piecewise C^2 loss (the Huber SVM's) has no Gaussian objective perturbation: output at delta > 0
    for mechanism in ("output",) if delta and learner is DPHuberSVM else ("objective", "output"):
        entry, model = _charged_and_stated(learner(mechanism=mechanism, **options), X, y)
        _assert_same(entry, model)


@pytest.mark.parametrize(("ranges", "delta", "epsilon"), [  # ranges: too few rows for the label range's noise below
    setting for setting in itertools.product((False, "ranges"), (0.0, 1e-6), EPSILONS)  # epsilon 1 (label_depth)
    if not (setting[0] and setting[2] < 1)])
def test_regressor_charge_is_the_release_statement(ranges, delta, epsilon) -> None:
    """DPHuberRegressor: column ranges with a label's range (three shares) or none."""
    X, _, y = _rows(1)
    entry, model = _charged_and_stated(DPHuberRegressor(data_norm=4.0, label_bound=4.0, column_statistics=ranges,
                                                        epsilon=epsilon, delta=delta), X, y)
    _assert_same(entry, model)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_private_bound_charge_is_the_release_statement(epsilon) -> None:
    X, y, _ = _rows(2)
    X = X / 4
    entry, model = _charged_and_stated(DPLogisticRegression(data_norm="private", norm_range=(0.5, 8.0),
                                                            epsilon=epsilon), X, y)
    _assert_same(entry, model)


def test_sequential_epsilon_adds_in_the_given_order() -> None:
    """The one sum: left to right, so the same shares in the same order are the same double."""
    shares = [0.1 * 0.3, 0.1, 3.0 - 0.1 - 0.1 * 0.3]
    assert sequential_epsilon(shares) == (0.0 + shares[0] + shares[1]) + shares[2]
    assert sequential_epsilon([]) == 0.0


@pytest.mark.parametrize(("statistics", "prior", "delta", "epsilon"),
                         list(itertools.product((False, True), (None, "private"), (0.0, 1e-6), (1 / 3, 3.0))))
def test_one_vs_rest_charge_is_the_release_statement(statistics, prior, delta, epsilon) -> None:
    """Three classes one-vs-rest (statistics drawn once, each class's count inside its share)."""
    X, _, _ = _rows(3)
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    entry, model = _charged_and_stated(DPLogisticRegression(
        classes=[0, 1, 2], data_norm=4.0, column_statistics=statistics, class_prior=prior, epsilon=epsilon,
        delta=delta, mechanism="objective"), X, y)
    assert entry.cost.epsilon == model.epsilon and entry.cost.delta == model.delta
    assert entry.curve == model.privacy_curve


def _shares_on_the_line(description: str) -> list[float]:
    """The epsilons a composite ledger line states, in its order (each "eps_x=<number>")."""
    return [float(text) for text in re.findall(r"\beps_[a-z]+=([^,)\s]+)", description)]


@pytest.mark.parametrize(("statistics", "prior", "epsilon"),
                         list(itertools.product((False, True), ("private", "balanced"), EPSILONS)))
def test_ledger_line_shares_add_up_to_its_charge(statistics, prior, epsilon) -> None:
    """The shares a ledger line prints, read back and added in its order, are the charge it prints, exactly (six
    significant digits wrote shares that,
    read back, did not add up to the charge)."""
    X, y, _ = _rows(4)
    options = {"class_prior": "private"} if prior == "private" else {"class_weight": "balanced"}
    entry, _ = _charged_and_stated(DPLogisticRegression(data_norm=4.0, column_statistics=statistics, epsilon=epsilon,
                                                        **options), X, y)
    shares = _shares_on_the_line(entry.description)
    assert len(shares) == 2 + statistics
    assert sequential_epsilon(shares) == entry.cost.epsilon
    accountant = PrivacyAccountant(100.0, ledger=[entry])
    (line,) = [text for text in str(accountant).splitlines() if text.startswith("  epsilon=")]
    assert float(re.match(r"  epsilon=([^,]+),", line).group(1)) == entry.cost.epsilon


def test_composite_ledger_line_writes_each_share_exactly() -> None:
    """Each share as number_text writes it: :g where that reads back (0.1, 0.5), else the fewest digits that do."""
    third = 1 / 3
    line = composite_ledger_line("PrivateERM.fit (n=10)", [("private column statistics", "eps_s", 0.1),
                                                           ("private class count", "eps_c", third)], 0.5)
    assert line == (f"PrivateERM.fit (n=10): private column statistics (eps_s=0.1), private class count "
                    f"(eps_c={third!r}), then the fit (eps_fit=0.5)")
    assert _shares_on_the_line(line) == [0.1, third, 0.5]
