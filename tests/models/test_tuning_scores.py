"""tune's scores (docs/theory.md, section 24.4): class-weighted mistakes and a clipped squared error in whole
units of a public grid, their exact sensitivity over one-row replacements, the noise calibrated to it, and
regressors and multiclass learners tuned or refused before any charge."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.tuning import ClippedSquaredError, Mistakes, full_data, split, tune
from dpcvx.models.tuning.scores import total_units

# small fits: whether a candidate is mostly noise is beside the point here (their own tests check the warnings)
pytestmark = [pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning"),
              pytest.mark.filterwarnings("ignore::dpcvx.exceptions.SmallTableWarning")]

CLASSES = (0, 1, 2)
WEIGHTS = {0: 1.0, 1: 3.7, 2: 0.2}


def _worst_replacement(score, pairs):
    """The largest change of a total when one row (prediction, label) is replaced by another, over every
    pair of rows in ``pairs``, with the other rows of a held-out part fixed: exact integers."""
    rest_predictions, rest_labels = np.array([0, 1, 2, 1]), np.array([0, 2, 2, 1])
    totals = []
    for prediction, label in pairs:
        predictions = np.append(rest_predictions, prediction).astype(float)
        labels = np.append(rest_labels, label).astype(float)
        totals.append(int(score.row_units(predictions, labels).sum()))
    return max(abs(a - b) for a, b in itertools.combinations(totals, 2))


def test_weighted_mistakes_have_sensitivity_exactly_their_largest_unit():
    score = Mistakes(class_weight=WEIGHTS, steps=100)
    assert score.units == {0: 27, 1: 100, 2: 5}  # w_c / max w on 100 units, rounded exactly
    assert score.sensitivity == 100 and score.unit == Fraction(3.7) / 100
    pairs = list(itertools.product(CLASSES, CLASSES))
    assert _worst_replacement(score, pairs) == score.sensitivity
    assert _worst_replacement(Mistakes(), pairs) == Mistakes().sensitivity == 1


def test_clipped_squared_error_has_sensitivity_exactly_its_steps_whatever_the_prediction():
    score = ClippedSquaredError(bound=4.0, steps=50)
    values = [-1e308, -3.0, -1.0, -0.01, 0.0, 0.3, 1.0, 2.0, 1e308, np.inf, -np.inf, np.nan]
    pairs = [(prediction, label) for prediction in values for label in (-1.0, 0.0, 1.0)]
    assert _worst_replacement(score, pairs) == score.sensitivity == 50
    units = score.row_units(np.array([0.0, 1.0, 1.5, 5.0, np.nan]), np.zeros(5))
    assert units.tolist() == [0, 13, 28, 50, 50]  # floor(r^2 50 / 4 + 1/2), clipped at C = 4 and for NaN


def _regression(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.clip(X @ np.array([0.8, -0.6, 0.4]) + 0.05 * rng.normal(size=n), -1, 1)
    return X, y


def _three_classes(n=900, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n)
    centres = np.array([[1.0, 0.0], [-0.5, 0.8], [-0.5, -0.8]])
    X = centres[y] * 0.7 + 0.1 * rng.normal(size=(n, 2))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    return X, y


@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_the_noise_is_calibrated_to_the_scores_sensitivity(monkeypatch, procedure):
    """The count's epsilon is e / K (full-data) and the exponential mechanism's sensitivity is K (split): a
    calibration that forgot K (the unit-count noise on a total of K-unit rows) fails here."""
    seen = []
    if procedure == "full-data":
        original = full_data.noisy_count

        def spy(count, epsilon, source):
            seen.append(epsilon)
            return original(count, epsilon, source)
        monkeypatch.setattr(full_data, "noisy_count", spy)
    else:
        original_select = split.sample_exponential

        def spy_select(scores, epsilon, sensitivity, rng):
            seen.append(sensitivity)
            return original_select(scores, epsilon, sensitivity, rng)
        monkeypatch.setattr(split, "sample_exponential", spy_select)
    X, y = _regression()
    score = ClippedSquaredError(bound=4.0, steps=40)
    result = tune(dpcvx.DPHuberRegressor(), X, y, {"lam": [1e-2, 1e-1]}, epsilon=1.0, procedure=procedure,
                  score=score, random_state=0, mean_runs=2 if procedure == "full-data" else None)
    assert seen
    if procedure == "full-data":
        assert all(epsilon == Fraction(result.certificate.run_epsilon) / 40 for epsilon in seen)
    else:
        assert seen == [40]
    assert result.certificate.to_dict()["score"] == {"name": "clipped squared error", "sensitivity": 40,
                                                     "unit": "1/10", "bound": 4.0}


@pytest.mark.slow
def test_a_regressor_is_tuned_under_one_charge_by_its_clipped_squared_error():
    X, y = _regression()
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    result = tune(dpcvx.DPHuberRegressor(label_bound=(-1, 1)), X, y, {"lam": [1e-3, 1.0]}, epsilon=3.0,
                  accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1 and accountant.spent == (3.0, 0.0)
    record = result.certificate.to_dict()
    assert record["score"]["name"] == "clipped squared error" and record["score"]["bound"] == 4.0  # (hi - lo)^2
    assert "squared error clipped to 4" in record["guarantee"]
    assert isinstance(result.model, dpcvx.DPHuberRegressor) and record["release"]["epsilon"] <= 1.0
    # seeded, three draws: lam = 1 shrinks the model to about 0 (MSE about Var y = .3 against .03 at 1e-3)
    picked = [tune(dpcvx.DPHuberRegressor(), X, y, {"lam": [1e-3, 1.0]}, epsilon=3.0, random_state=seed).params
              for seed in range(3)]
    assert picked.count({"lam": 1e-3}) >= 2


def test_a_multiclass_estimator_is_tuned_by_mistakes_or_by_public_class_weights():
    X, y = _three_classes()
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    learner = dpcvx.DPLogisticRegression(classes=CLASSES)
    result = tune(learner, X, y, {"lam": [1e-3, 1e-2]}, epsilon=2.0, accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1 and result.certificate.to_dict()["score"]["name"] == "mistakes"
    assert set(np.unique(result.model.predict(X))) <= set(CLASSES)
    weighted = tune(learner, X, y, {"lam": [1e-3, 1e-2]}, epsilon=2.0, procedure="split", accountant=accountant,
                    score=Mistakes(class_weight=WEIGHTS), random_state=0)
    record = weighted.certificate.to_dict()["score"]
    assert record["name"] == "class-weighted mistakes" and record["sensitivity"] == 100
    assert len(accountant.ledger) == 2


@pytest.mark.parametrize("learner, score, reason", [
    (dpcvx.DPLogisticRegression(classes=CLASSES), "balanced_accuracy", "sensitivity"),
    (dpcvx.DPLogisticRegression(classes=CLASSES), Mistakes(class_weight={0: 1.0, 1: 2.0}), r"\[2\]"),
    (dpcvx.DPLogisticRegression(classes=CLASSES), ClippedSquaredError(bound=1.0), "classifier"),
    (dpcvx.DPHuberRegressor(), "mistakes", "meaningless"),
    (dpcvx.DPHuberRegressor(label_bound="private", label_range=(0.25, 8)), None, "label_bound"),
    (dpcvx.DPLinearRegression(), None, "delta=0"),  # AdaSSP needs delta > 0: refused, never its default 1e-6
])
@pytest.mark.parametrize("procedure", ["full-data", "split"])
def test_what_tune_cannot_run_is_refused_with_its_reason_and_nothing_charged(learner, score, reason, procedure):
    X, y = _three_classes(300) if "classes" in learner.get_params() else _regression(300)
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    with pytest.raises(InputError, match=reason) as refusal:
        tune(learner, X, y, {"lam": [1e-2]}, epsilon=1.0, procedure=procedure, score=score, accountant=accountant,
             random_state=0)
    assert not accountant.ledger and "Nothing was charged" in str(refusal.value)


def test_adassp_is_tuned_with_tunes_delta_and_charged_it():
    X, y = _regression()
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0, delta=1e-5)
    result = tune(dpcvx.DPLinearRegression(), X, y, {"lam": [0.0, 1e-2]}, epsilon=1.0, delta=1e-6,
                  procedure="split", accountant=accountant, random_state=0)
    assert accountant.spent == (1.0, 1e-6) and result.model.certificate_.delta == 1e-6


def test_the_score_rounds_each_row_and_sums_exact_integers():
    class Model:
        def predict(self, X):
            return X[:, 0]
    X = np.array([[0.0], [0.5], [3.0]])
    assert total_units(ClippedSquaredError(bound=1.0, steps=4), Model(), X, np.zeros(3)) == 0 + 1 + 4


def test_the_rehearsal_on_synthetic_rows_speaks_no_warning_and_is_not_refused_by_one():
    """The rehearsal's 64 synthetic rows make small noisy fits; their warnings say nothing of the data. With
    dpcvx's warnings as errors (this suite's setting) a warning there used to refuse a sound candidate."""
    import warnings

    X, y = _three_classes(3000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dpcvx.exceptions.DPCVXWarning)
        result = tune(dpcvx.DPLogisticRegression(classes=CLASSES), X, y, {"lam": [1e-4]}, epsilon=2.0,
                      procedure="split", random_state=0)
    assert result.model is not None


def test_one_vs_rest_in_the_mathematical_layer_is_tuned_by_its_binary_learner_s_names_or_through_a_factory():
    """PrivateMulticlassERM had no get_params / set_params, and tune refused it with the way round (a factory); it
    now takes scikit-learn's names of its binary learner's settings (binary__lam), and refuses another name before
    the charge, naming them."""
    X, y = _three_classes()
    accountant = dpcvx.PrivacyAccountant(epsilon=7.0)
    binary = dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, classes=(-1, 1))
    with pytest.raises(InputError, match=r"no parameter\(s\) \['lam'\].*binary__<name>"):
        tune(dpcvx.PrivateMulticlassERM(binary, CLASSES), X, y, {"lam": [1e-2]}, epsilon=2.0, accountant=accountant)
    assert not accountant.ledger
    result = tune(dpcvx.PrivateMulticlassERM(binary, CLASSES), X, y, {"binary__lam": [1e-3, 1e-2]}, epsilon=2.0,
                  accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 1 and set(np.unique(result.model.predict(X))) <= set(CLASSES)
    assert set(result.params) == {"binary__lam"} and binary.lam == 1e-2  # the user's learner unchanged
    result = tune(lambda lam: dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=lam, data_norm=1.0, classes=(-1, 1)),
                                                         CLASSES),
                  X, y, {"lam": [1e-3, 1e-2]}, epsilon=2.0, accountant=accountant, random_state=0)
    assert len(accountant.ledger) == 2 and set(np.unique(result.model.predict(X))) <= set(CLASSES)


def test_a_delta_selection_of_an_estimator_names_the_estimator_and_spends_nothing():
    X, y = _regression(300)
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0, delta=1e-5)
    with pytest.raises(dpcvx.exceptions.AssumptionError, match="and DPHuberRegressor states only"):
        tune(dpcvx.DPHuberRegressor(), X, y, {"m": [1.0]}, epsilon=1.0, delta=1e-6, accountant=accountant)
    assert not accountant.ledger


def test_the_default_squared_error_grid_resolves_a_target_narrow_in_its_public_range():
    """The noise is C / e_Q in squared error whatever K is (theory.md 24.4), so the default grid is fine: at K = 100
    units of C = 2000^2 every residual below 141 scored 0, and a model of residuals about 23 tied with the mean's of
    about 50 on every row (the selection was the noise's alone)."""
    rng = np.random.default_rng(3)
    labels = 1000 + 50 * rng.normal(size=4000)
    good, mean = labels + 23 * rng.normal(size=4000), np.full(4000, 1000.0)
    score = ClippedSquaredError(bound=2000.0**2)
    good_units, mean_units = score.row_units(good, labels), score.row_units(mean, labels)
    assert score.sensitivity == 10**6
    assert mean_units.sum() > 4 * good_units.sum() > 0  # 100 units: both sums 0
    exact = np.minimum((mean - labels) ** 2, score.bound) * score.sensitivity / score.bound
    assert np.all(np.abs(mean_units - exact) <= 0.5)  # each row rounded by at most half a unit
