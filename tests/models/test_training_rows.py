"""The NOT PRIVATE check on the training rows (dpcvx.models.training_rows): fixed texts, shown after a fit,
never inside tune (once on the model tune released, after its selection), never in the release."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sparse

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models import training_rows
from dpcvx.models.training_rows import (
    BELOW_MAJORITY,
    CODE_LABELS,
    KERNEL,
    NEARLY_ONE_CLASS,
    NO_BETTER,
    NO_BETTER_REGRESSION,
    ONE_CLASS,
    ONE_LABEL,
    ONE_VS_REST,
    PRIOR_ADVICE_FLOOR,
    one_vs_rest_ranges,
    one_vs_rest_scale,
    prior_not_advised,
    training_rows_finding,
    warning_text,
)
from dpcvx.models.tuning import BudgetInConstructor, tune
from dpcvx.release.usefulness import called

ADVISED = float(PRIOR_ADVICE_FLOOR)  # a one-vs-rest scale (n x epsilon / k) where the note advises the class prior


def test_findings_on_known_predictions():
    y = np.array([0, 0, 0, 1, 1, 2])
    assert training_rows_finding(np.zeros(6), y, False) == ONE_CLASS
    # recalls 1/3, 1/2, 0: balanced accuracy 5/18 <= 1/3, no better than a constant
    assert training_rows_finding(np.array([0, 1, 1, 1, 0, 0]), y, False) == NO_BETTER
    assert training_rows_finding(np.array([0, 0, 1, 1, 1, 2]), y, False) is None
    labels = np.array([1.0, 2.0, 3.0, 4.0])
    assert training_rows_finding(np.full(4, 2.5), labels, True) == NO_BETTER_REGRESSION
    assert training_rows_finding(labels + 0.1, labels, True) is None


@pytest.mark.parametrize("right, expected", [(3800, True), (3975, False)])
def test_a_balanced_accuracy_within_the_sampling_error_of_chance_is_no_better(right, expected):
    """15,000 rows, 7,500 a class, each class predicted on half the rows: balanced accuracy 0.507 is within two
    standard errors (0.0041 each) of a guess made without looking at the row, and passed the rule "at most 1/2";
    0.53 is beyond them."""
    labels = np.repeat([0, 1], 7500)
    predictions = np.concatenate([np.repeat([0, 1], [right, 7500 - right]), np.repeat([1, 0], [right, 7500 - right])])
    finding = training_rows_finding(predictions, labels, False)
    assert (finding == NO_BETTER) == expected and (finding is None) == (not expected)


@pytest.mark.parametrize("right, said", [(4940, False), (4840, True)])
def test_a_release_fitted_for_accuracy_is_held_to_the_most_common_class(right, said):
    """Three classes on 10,000 rows, 6,000 of the first, 2,000 each of the others. A release of accuracy 0.40 and
    balanced accuracy 0.44, far above 1 / 3 (NO_BETTER passes it), is below the 0.60 of always predicting the first
    class: said for a fit that weighed every record alike, not for a weighted one, which trades accuracy for the
    rarer classes by design. At the edge: accuracy 0.594 is within two standard errors (0.0049 each) of 0.60, not
    said; 0.584 is beyond them."""
    below = np.array([[2000, 4000, 0], [1000, 1000, 0], [0, 1000, 1000]], dtype=np.int64)
    assert training_rows.classification_finding(below) is None  # weighted, or cut elsewhere: not held to it
    assert training_rows.classification_finding(below, for_accuracy=True) == BELOW_MAJORITY
    level = np.array([[5950, 50, 0], [950, 1050, 0], [0, 950, 1050]], dtype=np.int64)  # accuracy 0.805
    assert training_rows.classification_finding(level, for_accuracy=True) is None
    wrong = (6000 - right) // 2
    edge = np.array([[right, wrong, wrong], [1000, 500, 500], [1000, 500, 500]], dtype=np.int64)
    assert training_rows.classification_finding(edge) is None
    assert (training_rows.classification_finding(edge, for_accuracy=True) == BELOW_MAJORITY) == said
    # an estimator's cut: held to it at its sign (threshold 1/2) when its learner was unweighted, else not
    check = training_rows.Deferred("DPLogisticRegression", classes=(0, 1))
    for unweighted, cut, expected in [(True, 0.0, said), (False, 0.0, False), (True, 0.4, False)]:
        check.counts, check.unweighted = (lambda cut: edge[:2, :2] + edge[:2, 2:] // 2), unweighted
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            training_rows.warn_at_cut(check, cut)
        assert any(BELOW_MAJORITY in str(w.message) for w in caught) == expected, (unweighted, cut)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnresolvedColumnWarning")
def test_a_multiclass_release_below_the_majority_class_is_said():
    """A prober's six classes in raw columns in units 1 to 1e5 under one public data_norm: the release's accuracy was
    below the share of the most common class, its balanced accuracy above chance by more than two standard errors,
    and nothing was said (35,000 rows, 60 columns)."""
    rng = np.random.default_rng(0)
    n, d, k = 35000, 60, 6
    Z = rng.normal(size=(n, d))
    scale = 10.0 ** (np.arange(d) % 6)
    X = (Z + 4) * scale
    scores = Z @ rng.normal(size=(d, k)) + np.log([.3, .25, .2, .15, .08, .02])
    p = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    y = (p.cumsum(axis=1) < rng.uniform(size=(n, 1))).sum(axis=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = dpcvx.DPLogisticRegression(classes=tuple(range(k)), data_norm=float(np.linalg.norm(8 * scale)),
                                           epsilon=1, random_state=0).fit(X, y)
    assert np.mean(model.predict(X) == y) < np.bincount(y).max() / n
    texts = [str(w.message) for w in caught if w.category is TrainingRowsWarning]
    assert len(texts) == 1 and BELOW_MAJORITY in texts[0], texts


@pytest.mark.parametrize("unweighted", [None, ONE_VS_REST, KERNEL])
def test_texts_are_fixed_and_point_at_tune(unweighted):
    for finding in (ONE_CLASS, NEARLY_ONE_CLASS, NO_BETTER, BELOW_MAJORITY, NO_BETTER_REGRESSION):
        text = warning_text(finding, unweighted)
        assert "NOT PRIVATE" in text and "dpcvx.tune" in text and "no guarantee covers" in text
        if unweighted == ONE_VS_REST:  # its only numbers: the public floor and the benchmark's counts
            text = text.replace(prior_not_advised(None), "")
        assert not any(character.isdigit() for character in text.replace("R^2 <= 0", ""))


def test_the_note_names_what_the_release_takes(monkeypatch):
    """A one-vs-rest release's note advised class_weight='balanced', which a classifier of more than two classes
    refuses (UnsupportedWeightsError); a binary one's named balanced weights only, where the private class count
    with the cut at its rate did better on a helper's rare-class tables (balanced accuracy 0.645 against 0.584 at 3%
    positives, epsilon 5)."""
    # where the advice would stand (training_rows.PRIOR_REAL decides: on the recorded real tables it does not)
    monkeypatch.setattr(training_rows, "_REAL_STANDS", True)
    with called("DPLogisticRegression"):  # an estimator's fit: its settings (at a scale where the prior is advised)
        binary, multiclass = warning_text(NEARLY_ONE_CLASS), warning_text(NEARLY_ONE_CLASS, ONE_VS_REST, scale=ADVISED)
    learner = warning_text(NEARLY_ONE_CLASS, ONE_VS_REST, scale=ADVISED)  # PrivateMulticlassERM called directly
    assert "PrivateERM(..., fit_intercept=True, class_prior='private')" in learner  # whose settings it names
    assert "prior_cuts(release.certificate.per_class)" in learner
    assert "class_prior='private' with threshold='prior'" in binary and "class_weight='balanced'" in binary
    assert "class_weight='balanced'" not in multiclass and "class_prior='private' with threshold='prior'" in multiclass
    assert "within the class's share epsilon / k" in multiclass and "whole epsilon" not in multiclass
    assert "largest score s_c minus its cut t_c" in multiclass and "classes=(False, True)" not in multiclass


def test_a_learner_s_note_names_the_settings_it_takes():
    """PrivateERM takes no threshold: its note advised "class_prior='private' with threshold='prior'" all the same.
    It names the learner's own settings (balanced weights at a private count, the intercept offset) and its release's
    decision_cut, and following it moves a rare class's balanced accuracy off the constant 0.5."""
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(20000, 4))
    y = np.where(rng.random(20000) < 1 / (1 + np.exp(3.0 - Z @ [1.5, -1.0, 0.5, 0.0])), 1, -1)  # 12% positives
    X = (Z - Z.min(0)) / (Z.max(0) - Z.min(0)) / 2.0
    with pytest.warns(TrainingRowsWarning) as caught:
        constant = dpcvx.PrivateERM(loss="logistic", lam=1e-3, data_norm=1.0).fit(X, y, 1.0, random_state=0)
    text = str(next(w.message for w in caught if w.category is TrainingRowsWarning))
    assert "threshold='prior'" not in text and "class_weight='balanced' and class_prior='private'" in text
    assert "decision_cut" in text and "fit_intercept=True" in text
    assert set(constant.predict(X)) == {-1}
    advised = dpcvx.PrivateERM(loss="logistic", lam=1e-3, data_norm=1.0, class_weight="balanced",
                               class_prior="private").fit(X, y, 1.0, random_state=0)
    predicted = advised.predict(X)
    recall = [np.mean(predicted[y == label] == label) for label in (-1, 1)]
    assert np.mean(recall) > 0.65  # 0.757 at this seed; the constant release's is 0.5


def test_the_one_vs_rest_note_advises_what_helped_there():
    """The one-vs-rest note advised tune scored by Mistakes(class_weight=...); on benchmarks/multiclass_tuning.py's
    tables (3, 5, 8 classes, skewed public shares, n 3,000 and 20,000, epsilon 1 and 5, three seeds) that scored
    held-out balanced accuracy 0.577 against the default score's 0.606 and one default fit's 0.712. It names neither as
    a gain; it names the two-class fit of a rare class with the private class count and its cut, which told the
    rarest class from the rest at 0.893 (one-vs-rest 0.785 at best), on the command line by its flags."""
    from dpcvx.advice import on_command_line

    with called("DPLogisticRegression"):  # an estimator's fit: its settings
        text = warning_text(NEARLY_ONE_CLASS, ONE_VS_REST, scale=ADVISED)
    assert "Mistakes(class_weight" not in text and "did worse than one fit at its defaults" in text
    assert "class_prior='private' with threshold='prior'" in text and "splits epsilon among the classes" in text
    assert "dpcvx.tune is the private way to choose settings." in text and "column ranges" not in text
    assert "column_statistics='ranges'" in one_vs_rest_ranges()  # said after it, for a release that drew none
    with on_command_line():
        flags = warning_text(NEARLY_ONE_CLASS, ONE_VS_REST, scale=ADVISED)
        assert one_vs_rest_ranges() == ""  # the command line's default draws them by the rule; no flag asks more
    assert "Mistakes(class_weight" not in flags and "--class-prior private with --threshold prior" in flags
    assert "class_prior=" not in flags and "--others-negative" not in flags and "whole epsilon" not in flags


def test_the_one_vs_rest_note_names_the_flags_on_the_command_line(monkeypatch):
    """On the command line the note named no flag for a rare class fitted against the rest (docs/cli.md: a warning
    that advises a setting names its flag)."""
    from dpcvx.advice import on_command_line

    monkeypatch.setattr(training_rows, "_REAL_STANDS", True)  # where the advice would stand (PRIOR_REAL)
    with on_command_line():
        text = warning_text(NEARLY_ONE_CLASS, ONE_VS_REST, scale=ADVISED)
    assert "--class-prior private with --threshold prior (and --classes)" in text
    assert "classes=(False, True)" not in text and "--others-negative" not in text


@pytest.mark.parametrize("fit", [
    lambda X, y: dpcvx.TDDL(lam=1.0, gamma=1.0).fit(X, y, 0.05, Z=X[:5], random_state=0),
    # epsilon 20: below it TDIL's guarantee is vacuous, said publicly (NoiseDominatesWarning) in place of this note
    lambda X, y: dpcvx.TDIL(lam=1.0, gamma=1.0, input_bound=1.0).fit(X, y, 20.0, random_state=0),
], ids=["TDDL", "TDIL"])
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_a_kernel_learner_s_note_names_no_class_weights(noise_labels, fit):
    """TDDL's and TDIL's note advised class_prior='private' and class_weight='balanced', which they refuse (TDDL has
    no parameter class_weight); it names the Fourier-feature pipeline, which takes them."""
    X, y = noise_labels
    with pytest.warns(TrainingRowsWarning) as caught:
        fit(X, np.where(y > 0, 1, -1))
    texts = _training_row_messages(caught)
    assert texts and all(KERNEL in text and "class_weight='balanced'" not in text for text in texts)


@pytest.fixture(scope="module")
def noise_labels():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 3)) / 2
    return X, (rng.random(400) < 0.5).astype(int)


def _fit(X, y):
    with pytest.warns(TrainingRowsWarning) as caught:
        estimator = dpcvx.DPLogisticRegression(epsilon=0.05, lam=1.0, random_state=0).fit(X, y)
    return estimator, caught


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_a_fit_warns_with_the_fixed_text_only(noise_labels):
    X, y = noise_labels
    estimator, caught = _fit(X, np.zeros_like(y))
    messages = [str(w.message) for w in caught if w.category is TrainingRowsWarning]
    with called("DPLogisticRegression"):
        assert messages == [f"DPLogisticRegression: {warning_text(ONE_CLASS, advice=ONE_LABEL)}"]
    saved = str(estimator.certificate_.to_dict()) + str(estimator.certificate_)
    assert "NOT PRIVATE" not in saved and "training rows" not in saved


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_a_regressor_warns_when_no_better_than_a_constant():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(300, 2)) / 2
    y = rng.uniform(-1, 1, size=300)   # labels independent of X: the training mean is the best constant
    with pytest.warns(TrainingRowsWarning, match=r"R\^2 <= 0") as caught:
        dpcvx.DPLinearRegression(epsilon=1.0, random_state=0).fit(X, y)
    text = str(next(w.message for w in caught if w.category is TrainingRowsWarning))
    # a regression's advice: its settings and its tuning score, not a classifier's class weights
    assert "label_bound" in text and "class" not in text, text


@pytest.mark.parametrize("estimator", [True, False], ids=["DPLogisticRegression", "PrivateERM"])
def test_never_runs_inside_tune(noise_labels, monkeypatch, estimator):
    X, y = noise_labels
    calls = []
    original = training_rows.classification_finding  # every classifier's check ends in it
    monkeypatch.setattr(training_rows, "classification_finding", lambda *a, **k: calls.append(1) or original(*a, **k))
    if estimator:
        learner, labels = BudgetInConstructor(dpcvx.DPLogisticRegression, lam=1.0), y
    else:
        learner, labels = dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1.0, data_norm=1.0), np.where(y == 1, 1, -1)
    tune(learner, X, labels, {"lam": [1.0, 0.1]}, epsilon=1.0, procedure="split", random_state=0)
    assert calls == [1]  # once, on the released model after the selection (warn_on_tuned): no candidate's fit
    dpcvx.DPLogisticRegression(epsilon=1.0, lam=1.0, random_state=0).fit(X, y)
    assert calls == [1, 1]


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.SmallTableWarning")
def test_no_candidate_of_tune_warns_about_its_usefulness(noise_labels):
    """Every candidate is constant: no candidate's run warns (its count would tell K), and the selected release,
    which is released, warns once from its own certificate after the selection (release.usefulness.held_warnings)."""
    import warnings

    from dpcvx.exceptions import ConstantPredictionWarning

    X, _ = noise_labels
    labels = np.zeros(X.shape[0], dtype=int)   # every candidate is constant
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tune(BudgetInConstructor(dpcvx.DPLogisticRegression), X, labels, {"lam": [1.0, 0.1]},
                      epsilon=4.0, procedure="split", random_state=0)
    constant = [w for w in caught if issubclass(w.category, ConstantPredictionWarning)]
    assert len(constant) == 1   # the released run's, once; not one per candidate
    assert result.model.certificate_.findings   # the selected release still states its own
    with pytest.warns(ConstantPredictionWarning):
        dpcvx.DPLogisticRegression(epsilon=4.0, lam=1.0, random_state=0).fit(X, labels)


def test_a_class_predicted_on_under_a_tenth_of_its_rows_is_nearly_constant():
    # 20 positives of 200; 1 predicted positive (under 20 / 10 = 2): close to a constant prediction
    y = np.repeat([0, 1], [180, 20])
    predicted = np.zeros(200, dtype=int)
    predicted[-1] = 1
    assert training_rows_finding(predicted, y, False) == NEARLY_ONE_CLASS
    predicted[-2] = 1  # 2 of 20: a tenth, no longer "fewer than a tenth"
    assert training_rows_finding(predicted, y, False) is None


# -- every classification fit path runs the same check, once ------------------------------------------------------

def _training_row_messages(caught):
    return [str(w.message) for w in caught if w.category is TrainingRowsWarning]


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_private_erm_without_intercept_warns_on_a_constant_release(noise_labels):
    X, _ = noise_labels
    learner = dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.01, data_norm=1.0)
    with pytest.warns(TrainingRowsWarning) as caught:   # rows in the positive orthant, every label +1
        model = learner.fit(np.abs(X), np.ones(X.shape[0]), epsilon=4.0, random_state=0)
    assert _training_row_messages(caught) == [f"PrivateERM: {warning_text(ONE_CLASS, advice=ONE_LABEL)}"]
    assert "NOT PRIVATE" not in str(model.certificate.to_dict()) + str(model.certificate)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_private_erm_checks_its_own_predictions(noise_labels, monkeypatch):
    """The counts the check reads are the released model's predictions against the training labels."""
    X, y = noise_labels
    labels = np.where(y == 1, 1, -1)
    seen = []
    original = training_rows.classification_finding
    monkeypatch.setattr(training_rows, "classification_finding",
                        lambda counts, classes, for_accuracy=False: seen.append(counts) or original(counts, classes))
    for intercept in (False, True):
        seen.clear()
        model = dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.01, data_norm=1.0, fit_intercept=intercept).fit(
            X, labels, epsilon=1.0, random_state=1)
        [counts] = seen
        expected = training_rows.confusion(model.predict(X), labels, np.array([-1, 1]))
        np.testing.assert_array_equal(counts, expected)
        assert counts.sum() == X.shape[0] and np.count_nonzero(counts.sum(axis=0)) == 2


def test_the_counts_give_the_findings_of_the_predictions():
    """One rule: a finding from predictions equals the finding from their confusion counts, on every case."""
    cases = {training_rows.ONE_CLASS: ([1, 1, 1, 1], [1, -1, 1, -1]),
             training_rows.NO_BETTER: ([1, -1, 1, -1], [-1, 1, 1, -1]),
             training_rows.NEARLY_ONE_CLASS: ([1] * 24 + [-1], [1] * 12 + [-1] * 13),
             None: ([1, -1] * 20, [1, -1] * 19 + [1, 1])}
    for expected, (predicted, labels) in cases.items():
        assert training_rows.training_rows_finding(np.array(predicted), np.array(labels), False) == expected
        counts = training_rows.confusion(np.array(predicted), np.array(labels), np.array([-1, 1]))
        assert training_rows.classification_finding(counts) == expected


def test_sign_confusion_counts_the_predictions_of_the_decision_values():
    """The binary fit's counts from decision values (above 0: +1, else -1, a NaN included) are the general
    confusion counts of those predictions, and a count of a class the labels or predictions lack is 0."""
    rng = np.random.default_rng(5)
    decisions = np.concatenate([rng.normal(size=200), [0.0, -0.0, np.nan]])
    labels = np.where(rng.random(decisions.size) < 0.3, 1.0, -1.0)
    predicted = np.where(decisions > 0, 1, -1)
    for subset in (slice(None), decisions > 0, labels < 0):
        expected = training_rows.confusion(predicted[subset], labels[subset], np.array([-1, 1]))
        counts = training_rows.sign_confusion(decisions[subset], labels[subset])
        np.testing.assert_array_equal(counts, expected)
        assert counts.dtype == np.int64 and counts.sum() == labels[subset].size
    np.testing.assert_array_equal(training_rows.sign_confusion(decisions[:3], labels[:3]).sum(axis=1),
                                  [np.count_nonzero(labels[:3] < 0), np.count_nonzero(labels[:3] > 0)])


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
def test_a_memmap_fit_is_checked_too(noise_labels, tmp_path):
    X, y = noise_labels
    stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    stored[:] = np.abs(X)
    stored.flush()
    rows = np.load(tmp_path / "X.npy", mmap_mode="r")
    with pytest.warns(TrainingRowsWarning, match="predicts one class only"):
        dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.01, data_norm=1.0).fit(
            rows, np.ones(X.shape[0]), epsilon=4.0, random_state=0)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_one_vs_rest_warns_once_on_its_argmax(noise_labels):
    X, _ = noise_labels
    labels = np.zeros(X.shape[0], dtype=int)   # one class present: each binary problem is constant too
    learner = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1.0, data_norm=1.0),
                                         classes=(0, 1, 2))
    with pytest.warns(TrainingRowsWarning) as caught:
        learner.fit(X, labels, 0.05, random_state=0)
    # a release that drew no column statistics: the ranges named after the note (a learner's words)
    scale = one_vs_rest_scale(X.shape[0], 0.05, 3)  # public: below the floor, 3 classes: measured both ways
    assert _training_row_messages(caught) in ([f"PrivateMulticlassERM: "
                                               f"{warning_text(text, ONE_VS_REST, scale=scale, classes=3)}"
                                               f"{one_vs_rest_ranges()}"] for text in (ONE_CLASS, NO_BETTER))


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_an_estimator_warns_once_at_its_threshold(noise_labels):
    X, y = noise_labels
    with pytest.warns(TrainingRowsWarning) as caught:
        dpcvx.DPLogisticRegression(epsilon=0.05, lam=1.0, classes=(0, 1, 2), random_state=0).fit(X, np.zeros_like(y))
    with called("DPLogisticRegression"):
        scale = one_vs_rest_scale(X.shape[0], 0.05, 3)
        expected = [[f"DPLogisticRegression: {warning_text(text, ONE_VS_REST, scale=scale, classes=3)}"
                     f"{one_vs_rest_ranges()}"] for text in (ONE_CLASS, NO_BETTER)]
        # epsilon 0.05: "auto" drew no ranges (the public rule)
    assert _training_row_messages(caught) in expected


@pytest.mark.parametrize("fit", [
    lambda X, y: dpcvx.TDDL(lam=1.0, gamma=1.0).fit(X, y, 0.05, Z=X[:5], random_state=0),
    # epsilon 20: below it TDIL's guarantee is vacuous, said publicly (NoiseDominatesWarning) in place of this note
    lambda X, y: dpcvx.TDIL(lam=1.0, gamma=1.0, input_bound=1.0).fit(X, y, 20.0, random_state=0),
], ids=["TDDL", "TDIL"])
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ExponentialCostWarning")
def test_kernel_learners_warn_when_useless_on_their_rows(noise_labels, fit):
    X, _ = noise_labels
    with pytest.warns(TrainingRowsWarning) as caught:   # every label +1: any release is no better than a constant
        fit(X, np.ones(X.shape[0]))
    assert len(_training_row_messages(caught)) == 1


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClassOrderWarning")  # declared order on purpose
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.TrainingRowsWarning")
@pytest.mark.parametrize("layout", ["array", "csr", "memmap"])
@pytest.mark.parametrize("classes, threshold", [((0, 1), 0.5), ((1, 0), 0.3), (("yes", "no"), 0.7)])
def test_an_estimator_counts_its_predictions_at_its_threshold(noise_labels, monkeypatch, tmp_path, classes, threshold,
                                                             layout):
    """A binary estimator's counts (its learner's plan's, at the estimator's cut, from the solver's margins; no
    predictions' array) are those of its predict on the training rows, rows and columns in the order of its
    classes; any order of the classes, in memory, sparse or on a memmap."""
    X, y = noise_labels
    if layout == "csr":
        X = sparse.csr_matrix(X)
    elif layout == "memmap":
        stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
        stored[:] = X
        stored.flush()
        X = np.load(tmp_path / "X.npy", mmap_mode="r")
    labels = np.where(y == 1, classes[1], classes[0])
    seen = []
    original = training_rows.warn_on_confusion
    monkeypatch.setattr(training_rows, "warn_on_confusion", lambda owner, counts, classes, **located:
                        seen.append(counts) or original(owner, counts, classes, **located))
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, lam=0.01, classes=classes, threshold=threshold,
                                           random_state=0).fit(X, labels)
    [counts] = seen
    predicted = estimator.predict(X)
    expected = [[np.count_nonzero((labels == a) & (predicted == b)) for b in classes] for a in classes]
    np.testing.assert_array_equal(counts, expected)
    assert training_rows.classification_finding(counts) == training_rows_finding(predicted, labels, False)


def test_an_estimator_counts_at_the_log_odds_of_its_released_count(noise_labels, monkeypatch):
    """threshold="prior" with a private class count: the cut is the log-odds of the count the release holds, known
    only after the plan's release; the counts are those of predict on the training rows."""
    X, y = noise_labels
    seen = []
    original = training_rows.warn_on_confusion
    monkeypatch.setattr(training_rows, "warn_on_confusion", lambda owner, counts, classes, **located:
                        seen.append(counts) or original(owner, counts, classes, **located))
    estimator = dpcvx.DPLogisticRegression(epsilon=2.0, lam=0.01, class_prior="private", threshold="prior",
                                           random_state=0).fit(X, y)
    [counts] = seen
    predicted = estimator.predict(X)
    expected = [[np.count_nonzero((y == a) & (predicted == b)) for b in (0, 1)] for a in (0, 1)]
    np.testing.assert_array_equal(counts, expected)


def test_the_public_classes_give_the_finding_of_the_union(noise_labels):
    """training_rows_finding over the public classes is that over the labels' and predictions' union."""
    rng = np.random.default_rng(5)
    for k in (2, 3, 5):
        for present in (1, 2, k):
            labels = rng.integers(0, present, size=200)
            for predicted in (labels, rng.integers(0, k, size=200), np.zeros(200, dtype=int)):
                assert training_rows_finding(predicted, labels, False, classes=np.arange(k)[::-1]) == \
                    training_rows_finding(predicted, labels, False)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
@pytest.mark.parametrize("layout", ["array", "memmap"])
@pytest.mark.parametrize("intercept", [False, True])
def test_one_vs_rest_counts_its_argmax_on_a_memmap_too(noise_labels, monkeypatch, tmp_path, layout, intercept):
    """One-vs-rest's counts are those of its predict on the training rows, in memory or read by blocks from a
    memmap (never loaded whole); the memmap fit was not checked before (a constant classifier went unwarned)."""
    X, _ = noise_labels
    labels = np.where(X[:, 0] > 0.3, 2, np.where(X[:, 1] > 0, 1, 0))
    if layout == "memmap":
        stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
        stored[:] = X
        stored.flush()
        X = np.load(tmp_path / "X.npy", mmap_mode="r")
    seen = []
    original = training_rows.warn_on_confusion
    monkeypatch.setattr(training_rows, "warn_on_confusion", lambda owner, counts, classes, **located:
                        seen.append(counts) or original(owner, counts, classes, **located))
    released = dpcvx.PrivateMulticlassERM(
        dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=0.01, data_norm=0.5, fit_intercept=intercept),
        classes=(0, 1, 2)).fit(X, labels, 4.0, random_state=0)
    [counts] = seen
    predicted = released.predict(np.asarray(X))
    np.testing.assert_array_equal(counts, [[np.count_nonzero((labels == a) & (predicted == b)) for b in range(3)]
                                           for a in range(3)])


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ConstantPredictionWarning")
def test_a_multiclass_estimator_on_a_memmap_warns_of_a_constant_classifier(tmp_path):
    """Three classes at 90/7/3 %, eps 1: the release predicts the largest class everywhere; on a memmap as in
    memory, the owner is told (issue 42: no fit releases a constant classifier without a warning)."""
    rng = np.random.default_rng(10)
    labels = rng.choice(3, 3000, p=[0.9, 0.07, 0.03])
    X = (rng.normal(size=(3, 10))[labels] + rng.normal(size=(3000, 10))) / 25
    stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=np.float64, shape=X.shape)
    stored[:] = X
    stored.flush()
    with pytest.warns(TrainingRowsWarning, match="predicts one class only"):
        dpcvx.DPLogisticRegression(classes=(0, 1, 2), epsilon=1.0, random_state=0).fit(
            np.load(tmp_path / "X.npy", mmap_mode="r"), labels)


def test_a_regression_finding_on_targets_near_the_float_limit_squares_nothing_to_infinity():
    # the squares overflowed: numpy's RuntimeWarning came out of a fit on targets near 1e300 (an audit)
    labels = np.array([1e300, -1e300, 1e300, -1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert training_rows_finding(np.full(4, 1e300), labels, True) == NO_BETTER_REGRESSION
        assert training_rows_finding(labels * 0.999, labels, True) is None
        many = np.where(np.arange(1000) % 2 == 0, 1e306, 9e305)  # their sum passes the float range: so may no mean
        assert training_rows_finding(np.zeros(1000), many, True) == NO_BETTER_REGRESSION
        assert training_rows_finding(many, many, True) is None


def test_a_regression_finding_needs_both_the_raw_and_the_clipped_labels_no_better():
    """Either comparison alone false-alarms: on the raw labels a few huge outliers make a good fit's R^2 negative;
    on the labels clipped onto a declared range a fit that predicts the raw scale has R^2 below 0 there."""
    rng = np.random.default_rng(0)
    labels = rng.normal(0, 8, 5000)  # 80 % beyond 2
    wide = 0.95 * labels  # R^2 0.99 on the raw labels, below 0 on the labels clipped onto [-2, 2]
    clipped = np.clip(labels, -2, 2)
    assert np.mean(np.abs(labels) > 2) > 0.79
    assert np.sum((labels - wide) ** 2) < 0.01 * np.sum((labels - labels.mean()) ** 2)
    assert np.sum((clipped - wide) ** 2) > np.sum((clipped - clipped.mean()) ** 2)
    assert training_rows_finding(wide, labels, True, label_range=(-2.0, 2.0)) is None
    outliers = np.where(rng.random(5000) < 0.005, 1e7, labels)  # the bulk predicted well, the outliers not
    # the raw comparison alone: no better only through the 1e7 repeated far beyond the rest, named as a code
    assert training_rows_finding(labels, outliers, True) == CODE_LABELS
    assert training_rows_finding(labels, outliers, True, label_range=(-10.0, 10.0)) is None
    useless = rng.normal(0, 3, 5000)  # no better on either scale
    assert training_rows_finding(useless, outliers, True, label_range=(-10.0, 10.0)) == NO_BETTER_REGRESSION


@pytest.mark.parametrize("memmap", [False, True])
def test_a_huber_fit_beside_a_few_huge_labels_is_not_called_useless(tmp_path, memmap):
    """0.3 % of 20,000 labels at 1e7 in a table whose labels are within 50,000: the DPHuberRegressor's median absolute
    error is 1,493 (the mean's 24,065), yet its squared error on the raw labels passed their spread about their mean
    and it was warned as no better than a constant."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (20_000, 3)) / np.sqrt(3)
    y = 30_000 * (X @ np.array([1.0, -1.0, 0.5])) + rng.normal(0, 1000, 20_000)
    y[rng.random(20_000) < 0.003] = 1e7
    if memmap:
        stored = np.memmap(tmp_path / "X.dat", dtype=float, mode="w+", shape=X.shape)
        stored[:] = X
        X = stored
    regressor = dpcvx.DPHuberRegressor(data_norm=1, label_bound=50_000, epsilon=5, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        regressor.fit(X, y)
    assert [w.category for w in caught] == [dpcvx.ClippingWarning]  # the labels beyond B: the fit's own note
    assert np.median(np.abs(y - regressor.predict(X))) < np.median(np.abs(y - y.mean())) / 5


def test_a_nearly_constant_finding_names_the_declared_classes():
    """Declared classes are public: the finding names the rarely predicted ones by them (it said "some class");
    classes found in the rows only (no declaration) are not named."""
    counts = np.diag([500, 500, 500, 40]).astype(np.int64)
    counts[3, 3], counts[3, 0] = 1, 39  # the last class predicted on 1 of its 40 rows
    assert training_rows.classification_finding(counts) == NEARLY_ONE_CLASS
    named = training_rows.classification_finding(counts, ["a", "b", "c", "rare"])
    assert named == training_rows.nearly_one_class(["rare"]) and "'rare'" in named and "some class" not in named
    labels = np.repeat([0, 1, 2], [500, 500, 40])
    predictions = np.where(labels == 2, 0, labels)
    predictions[-1] = 2
    assert "class 2 on fewer" in training_rows_finding(predictions, labels, False, classes=[0, 1, 2])
    assert training_rows_finding(predictions, labels, False) == NEARLY_ONE_CLASS
    check = training_rows.Deferred("DPLogisticRegression", lambda cut: np.array([[900, 0], [99, 1]]), ("no", "yes"))
    with pytest.warns(TrainingRowsWarning, match="predicts the class 'yes' on fewer"):
        training_rows.warn_at_cut(check, 0.0)


def test_a_multiclass_fit_names_its_tiny_classes():
    """12 declared classes, 3 of them a third of a percent of the rows each: the warning names those 3."""
    rng = np.random.default_rng(0)
    centres = rng.normal(0, 1, (12, 4))
    centres /= np.linalg.norm(centres, axis=1)[:, None]
    y = rng.choice(12, size=6000, p=np.r_[np.full(9, 0.99 / 9), np.full(3, 0.01 / 3)])
    X = centres[y] * 0.5 + rng.normal(0, 0.1, (6000, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dpcvx.DPLogisticRegression(epsilon=20, classes=list(range(12)), random_state=0).fit(X, y)
    (text,) = [str(w.message) for w in caught if w.category is TrainingRowsWarning]
    assert "predicts the classes 9, 10, 11 on fewer than a tenth" in text, text


def test_a_regression_no_better_only_through_a_code_is_told_of_the_code():
    """A score in [0, 100] with 4 % of its labels at the code 999, declared (0, 999) as the clipping note advised:
    the 999 rows made R^2 <= 0 on the labels as given and clipped alike, and the model (R^2 0.77 on the rows with real
    labels, the non-private 0.78) was called useless on every run. The finding names the code as the cause now."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(4000, 3))
    y = np.clip(50 + 60 * X[:, 0] - 40 * X[:, 1] + rng.normal(0, 8, 4000), 0, 100)
    code = rng.random(4000) < 0.04
    y[code] = 999
    regressor = dpcvx.DPLinearRegression(label_bound=(0, 999), epsilon=1, random_state=0)
    with pytest.warns(TrainingRowsWarning) as caught:
        regressor.fit(X, y)
    texts = [str(w.message) for w in caught if w.category is TrainingRowsWarning]
    assert len(texts) == 1 and CODE_LABELS in texts[0] and NO_BETTER_REGRESSION not in texts[0]
    kept = y[~code]
    predicted = regressor.predict(X[~code])
    assert np.sum((kept - predicted) ** 2) < 0.5 * np.sum((kept - kept.mean()) ** 2)  # a useful model there
    useless = np.full(4000, 500.0)  # far from every label: no better on the other rows either
    assert training_rows_finding(useless, y, True, label_range=(0.0, 999.0)) == NO_BETTER_REGRESSION


def test_one_vs_rest_on_a_narrow_column_draws_the_column_ranges_once_and_names_them_when_it_did_not():
    """A prober's table: four balanced tiers told by orders 0..50 declared 0..5,000. One-vs-rest drew no private
    column ranges and released no better than a constant (0.23 to 0.30 against 0.90 non-private), and
    column_statistics='ranges' was refused. Now its default draws the ranges once for the four fits (the public rule
    of n, d and epsilon says they can be located here) and tells the tiers apart; a fit told to draw none names them
    in its warning, beside the two-class fit of a class against the rest."""
    rng = np.random.default_rng(11)
    tiers = rng.integers(0, 4, 12000)
    orders = np.clip(tiers * 12 + rng.normal(6, 4, tiers.size), 0, None)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("orders", 0, 5000), dpcvx.NumericColumn("visits", 0, 366)))
    X = schema.transform({"orders": orders, "visits": rng.uniform(0, 365, tiers.size)})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        default = dpcvx.DPLogisticRegression(classes=(0, 1, 2, 3), epsilon=1, random_state=0).fit(X, tiers)
    assert default.model_.certificate.column_statistics is not None and default.score(X, tiers) > 0.6
    assert not [w for w in caught if w.category is TrainingRowsWarning]
    with pytest.warns(TrainingRowsWarning) as caught:
        dpcvx.DPLogisticRegression(classes=(0, 1, 2, 3), epsilon=1, random_state=0, column_statistics=False).fit(
            X, tiers)
    (text,) = [str(w.message) for w in caught if w.category is TrainingRowsWarning]
    assert "located by private column ranges, drawn once for every class: column_statistics='ranges'" in text
    # 4 classes at n x epsilon / k 3,000: fewer than MANY_CLASSES, so the class prior is said to be measured both
    # ways, not advised (benchmarks/results/multiclass_prior_ordinal.md)
    assert "class_prior='private' with threshold='prior' was measured both ways" in text
