"""lam="auto" for regression and multiclass (docs/theory.md, section 25.9): public inputs only, recorded in the
certificate, no privacy spent; AdaSSP's "auto" is its own ridge."""

import math

import numpy as np
import pytest

import dpcvx
from dpcvx.privacy import lam_rule

pytestmark = [pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning"),
              pytest.mark.filterwarnings("ignore::dpcvx.exceptions.SmallTableWarning"),
              pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")]  # the neighbour's extreme label


def _regression(n=500, d=4, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True)) * (1 + 1e-12)
    y = np.clip(scale * (X @ rng.normal(size=d) + 0.1 * rng.normal(size=n)), -scale, scale)
    return X, y


def _neighbour(X, y):
    """The last record replaced by an extreme one (a row at the bound, the label at the top of its range)."""
    X2, y2 = X.copy(), y.copy()
    X2[-1] = np.full(X.shape[1], 1 / math.sqrt(X.shape[1]))
    y2[-1] = 1e9  # clipped onto the public bound: the largest label a neighbour can have
    return X2, y2


class DataReadingHuber(dpcvx.DPHuberRegressor):
    """Broken: takes the label bound of the rule from the labels' largest value (a statistic of the data)."""

    def fit(self, X, y, sample_weight=None, **kwargs):
        self.label_bound = float(np.max(np.abs(y))) + 1e-9
        return super().fit(X, y, **kwargs)


def _lam(estimator, X, y):
    fitted = estimator.fit(X, y)
    return fitted.certificate_.lam_rule.lam, fitted.certificate_.lam_rule


def test_the_regression_rule_reads_no_data_and_a_rule_that_does_is_caught():
    X, y = _regression(scale=50.0)
    X2, y2 = _neighbour(X, y)
    first, record = _lam(dpcvx.DPHuberRegressor(label_bound=(-50, 50), random_state=0), X, y)
    second, _ = _lam(dpcvx.DPHuberRegressor(label_bound=(-50, 50), random_state=1), X2, y2)
    assert first == second and record.rule == lam_rule.REGRESSION_RULE
    # what the public method computes before any data, at the same settings (m = "auto" = B / 4)
    public = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(50.0 / 4), task="regression", label_bound=50.0,
                              lam="auto", data_norm=1.0, fit_intercept=True).choose_lam(500, 4, 1.0)
    assert public.lam == first and public.rule == lam_rule.REGRESSION_RULE
    # the check fails for a rule that reads the labels: its lam moves with one record (output perturbation: no
    # Delta holds lam + Delta fixed, as objective perturbation does below its threshold)
    broken = [_lam(DataReadingHuber(mechanism="output", m=1.0, random_state=0), *data)[0]
              for data in ((X, y), (X2, y2))]
    assert broken[0] != broken[1]


def test_the_regression_prior_is_a_comparator_inside_the_label_bound():
    """W = B / R joined by the intercept's |b| <= B at the intercept column s: W' = sqrt((B/R)^2 + (B/s)^2)."""
    X, y = _regression(scale=300.0)
    for bound, R in ((300.0, 1.0), (300.0, 2.0), (3.0, 1.0)):
        _, record = _lam(dpcvx.DPHuberRegressor(label_bound=bound, data_norm=R, random_state=0), X, y)
        assert record.comparator_norm == pytest.approx(math.hypot(bound / R, bound / 1.0), rel=1e-12)
        assert lam_rule.comparator_for(None, None, R, None, bound) == pytest.approx(bound / R)
    # the classifier's prior is unchanged: COMPARATOR_SCALE / R and log 19
    assert lam_rule.comparator_for(None, None, 1.0, 1.0) == pytest.approx(math.hypot(8.0, math.log(19.0)))


def test_the_larger_label_range_gets_the_smaller_lam_as_derived():
    """The bias Lam W^2 / 2 grows like B^2 while the Huber noise term does not: Lam falls as B grows."""
    small = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(1.0), task="regression", label_bound=1.0,
                             lam="auto", data_norm=1.0).choose_lam(5000, 8, 1.0)
    large = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(1.0), task="regression", label_bound=100.0,
                             lam="auto", data_norm=1.0).choose_lam(5000, 8, 1.0)
    assert large.lam < small.lam and large.comparator_norm == pytest.approx(100 * small.comparator_norm)


def test_auto_is_the_default_of_both_regressors_and_charged_once():
    X, y = _regression()
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0, delta=1e-5)
    huber = dpcvx.DPHuberRegressor(random_state=0).fit(X, y, accountant=accountant)
    assert huber.lam == "auto" and huber.certificate_.lam_rule.lam == huber.certificate_.constants["lam"]
    adassp = dpcvx.DPLinearRegression(random_state=0).fit(X, y, accountant=accountant)
    assert adassp.lam == "auto" and len(accountant.ledger) == 2
    assert accountant.spent.epsilon <= 2.0  # one charge each (composed exactly, at most their sum)


def test_multiclass_auto_chooses_each_class_at_its_share_of_the_budget():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 600)
    X = np.array([[1.0, 0.0], [-0.5, 0.8], [-0.5, -0.8]])[y] * 0.7 + 0.1 * rng.normal(size=(600, 2))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    model = dpcvx.DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(X, y)
    per_class = model.certificate_.per_class
    expected = dpcvx.DPLogisticRegression(classes=(-1, 1))._private_erm().choose_lam(600, 2, 1.0 / 3)
    assert len(per_class) == 3
    for certificate in per_class:
        assert certificate.lam_rule.lam == expected.lam and certificate.lam_rule.rule == lam_rule.RULE
