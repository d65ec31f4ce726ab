"""Record weights at every entry point (an audit of weights and entry points): the same class weights give the
same SmallTableWarning by one rule; a refusal of weights names the entry point called and its spelling; a refused
call emits no warning computed on the data; probabilities follow ``losses.has_probabilities`` for every model."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import SmallTableWarning


def _small_table_texts(estimator, X, y, **fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y, **fit)
    return [str(w.message) for w in caught if w.category is SmallTableWarning]


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_the_same_class_weights_warn_alike_from_a_dict_a_prior_or_with_sample_weight():
    """Audit: class_weight={0: 1, 1: 49} on 2% positives was silent where the same weights through
    class_prior=(0.98, 0.02) warned (the rule read s_bar / 2, public only for a prior's rates); now one rule, the
    rate the weights balance, w_- / (w_- + w_+), for any weights."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.1, 0.1, size=(2000, 4))
    y = (rng.random(2000) < 0.02).astype(int)
    prior = _small_table_texts(dpcvx.DPLogisticRegression(class_weight="balanced", class_prior=(0.98, 0.02),
                                                          random_state=0), X, y)
    assert len(prior) == 1 and "2000 x 0.04 = 80 in n's place" in prior[0], prior  # n 2 min(prior, 1 - prior)
    for weights in ({0: 1, 1: 49}, {0: 0.5, 1: 24.5}):
        assert _small_table_texts(dpcvx.DPLogisticRegression(class_weight=weights, random_state=0), X, y) == prior
    weighted = _small_table_texts(dpcvx.DPLogisticRegression(class_weight={0: 1, 1: 49}, sample_weight_bound=1.0,
                                                             random_state=0), X, y, sample_weight=np.ones(2000))
    assert weighted == prior


@pytest.mark.parametrize("make, y", [
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0), lambda X: (X[:, 0] > 0).astype(int)),
    (lambda: dpcvx.DPHuberSVM(epsilon=1.0, column_statistics=True, random_state=0),
     lambda X: (X[:, 0] > 0).astype(int)),
    (lambda: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=2.0, random_state=0), lambda X: X[:, 0]),
], ids=["logistic", "huber svm, column statistics", "huber regressor"])
def test_sample_weight_without_its_bound_is_refused_naming_the_estimator_called(make, y):
    """Audit: an estimator's refusal said "PrivateERM takes sample_weight only with a PUBLIC bound", the learner
    it fits with, which the user never called."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-0.5, 0.5, size=(300, 3))
    estimator, accountant = make(), dpcvx.PrivacyAccountant(epsilon=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing computed on the data before the refusal
        with pytest.raises(dpcvx.exceptions.UnsupportedWeightsError) as refused:
            estimator.fit(X, y(X), sample_weight=np.ones(300), accountant=accountant)
    message = str(refused.value)
    assert message.startswith(f"{type(estimator).__name__} takes sample_weight only with a PUBLIC bound "
                              "sample_weight_bound=") and "PrivateERM" not in message, message
    assert accountant.ledger == []


def _blobs(k=3, n=600):
    rng = np.random.default_rng(5)
    labels = rng.integers(0, k, n)
    X = rng.normal(size=(n, 2)) * 0.2 + np.stack([np.cos(2 * np.pi * labels / k), np.sin(2 * np.pi * labels / k)], 1)
    return X / np.linalg.norm(X, axis=1).max(), labels


def test_a_multiclass_release_has_probabilities_as_a_binary_one_by_its_loss():
    """Audit: one-vs-rest over the Huber hinge gave a softmax from predict_proba, while its binary release (and dpcvx
    predict, for both) had none: the loss has no probability model. One rule, losses.has_probabilities."""
    X, y = _blobs()
    huber = dpcvx.PrivateERM(loss=dpcvx.losses.huber_hinge(0.5), lam=1e-2, data_norm=1.0, fit_intercept=True)
    multiclass = dpcvx.PrivateMulticlassERM(huber, (0, 1, 2)).fit(X, y, 2.0, random_state=0)
    binary = huber.set_params(classes=(0, 1)).fit(X, (y == 1).astype(int), 2.0, random_state=0)
    for model in (multiclass, binary):
        assert not hasattr(model, "predict_proba"), model
        with pytest.raises(AttributeError, match="no probability model"):
            model.predict_proba(X)
    logistic = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, fit_intercept=True),
                                          (0, 1, 2)).fit(X, y, 2.0, random_state=0)
    assert np.allclose(logistic.predict_proba(X[:5]).sum(axis=1), 1.0)


@pytest.mark.parametrize("loss, offered", [("logistic", True), ("huber:h=0.5", False)])
@pytest.mark.parametrize("classes", [(0, 1), (0, 1, 2)], ids=["binary", "one-vs-rest"])
def test_an_estimators_predict_proba_follows_its_release(loss, offered, classes):
    """Audit: DPERMClassifier(loss="logistic") had no predict_proba though its release had one (and dpcvx predict
    wrote its probability column); a Huber one has none, before and after its fit, as scikit-learn's
    SGDClassifier(loss="hinge")."""
    X, y = _blobs(len(classes))
    estimator = dpcvx.DPERMClassifier(loss=loss, classes=classes, epsilon=2.0, random_state=0)
    assert hasattr(estimator, "predict_proba") is offered
    estimator.fit(X, y)
    assert hasattr(estimator, "predict_proba") is offered and hasattr(estimator.model_, "predict_proba") is offered
    if offered:
        np.testing.assert_array_equal(estimator.predict_proba(X), estimator.model_.predict_proba(X))


@pytest.mark.parametrize("layout", ["array", "memmap"])
def test_a_regressors_dates_are_refused_on_every_path(tmp_path, layout):
    """Audit: y of dates was refused (refuse_times) before scikit-learn's conversion only for an X in memory: with a
    memmap X the float conversion read 2020-01-01 as 18262 days and the fit ran. A y of date objects, and an X entry
    float() refuses, raised a bare TypeError where the classifiers raise an InputError."""
    X = np.full((200, 2), 0.1)
    if layout == "memmap":
        stored = np.lib.format.open_memmap(tmp_path / "X.npy", mode="w+", dtype=float, shape=X.shape)
        stored[:] = X
        X = stored
    dates = np.arange(200).astype("datetime64[D]")
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(dpcvx.InputError, match=r"y has dtype datetime64\[D\]: datetimes are not numbers"):
        dpcvx.DPHuberRegressor(label_bound=1e5, random_state=0).fit(X, dates, accountant=accountant)
    with pytest.raises(dpcvx.InputError, match="y holds a date that is not a number in row 0"):
        dpcvx.DPHuberRegressor(label_bound=1e5, random_state=0).fit(np.asarray(X), dates.astype(object),
                                                                     accountant=accountant)
    assert accountant.ledger == []


def _refused_silently(fit, error=dpcvx.InputError, match=None):
    """Run ``fit`` (given an accountant), which must be refused: no warning at all before the refusal, nothing
    charged."""
    accountant = dpcvx.PrivacyAccountant(epsilon=100.0, delta=1e-3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(error, match=match):
            fit(accountant)
    assert [w.category.__name__ for w in caught] == [] and accountant.ledger == []


def _wide_rows(n=300, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, size=(n, 3))   # rows beyond R = 1: a clipping count on the data


@pytest.mark.parametrize("weights, match", [
    (np.full(300, np.nan), "sample_weight has NaN or infinite entries"),
    (np.ones(7), r"sample_weight must hold one number per record, shape \(300,\)"),
], ids=["NaN", "shape"])
@pytest.mark.parametrize("entry", ["PrivateERM", "DPLogisticRegression", "DPHuberRegressor"])
def test_a_refused_weight_shows_no_count_computed_on_the_data(weights, match, entry):
    """Audit: rows beyond R gave their NOT PRIVATE ClippingWarning (and weights outside [0, w_max] theirs) before the
    fit refused its sample_weight: every input is checked first, then the counts are shown."""
    X = _wide_rows()
    y = (X[:, 0] > 0).astype(int)
    fits = {
        "PrivateERM": lambda a: dpcvx.PrivateERM(data_norm=1.0, lam=0.1, sample_weight_bound=2.0, classes=(0, 1)).fit(
            X, y, 1.0, sample_weight=weights, accountant=a),
        "DPLogisticRegression": lambda a: dpcvx.DPLogisticRegression(sample_weight_bound=2.0, random_state=0).fit(
            X, y, sample_weight=weights, accountant=a),
        "DPHuberRegressor": lambda a: dpcvx.DPHuberRegressor(label_bound=0.5, sample_weight_bound=2.0,
                                                             random_state=0).fit(X, X[:, 0], sample_weight=weights,
                                                                                 accountant=a),
    }
    _refused_silently(fits[entry], match=match)


def test_a_refused_label_or_delta_shows_no_count_computed_on_the_data():
    """The same order for the other checks that read the data after the rows: a label outside the public classes
    (PrivateERM), delta above 1/n (PrivateERM, and AdaSSP's least squares)."""
    X = _wide_rows()
    y = (X[:, 0] > 0).astype(int)
    _refused_silently(lambda a: dpcvx.PrivateERM(data_norm=1.0, lam=0.1, classes=(0, 1)).fit(
        X, np.where(np.arange(300) == 7, 5, y), 1.0, accountant=a), match="outside the declared classes")
    _refused_silently(lambda a: dpcvx.PrivateERM(data_norm=1.0, lam=0.1, classes=(0, 1)).fit(
        X, y, 1.0, delta=1e-2, accountant=a), match="delta")
    _refused_silently(lambda a: dpcvx.PrivateLinearRegression(data_norm=1.0, label_bound=0.5).fit(
        X, X[:, 0] * 4, 1.0, 1e-2, accountant=a), match="delta")


def _assigned(learner, **settings):
    """``learner`` with ``settings`` assigned as attributes, past the constructor's checks."""
    for name, value in settings.items():
        setattr(learner, name, value)
    return learner


@pytest.mark.parametrize("fit", [
    # a setting the constructor refuses, assigned afterwards: fit refuses it again before the data is read
    lambda X, y, a: _assigned(dpcvx.PINP(kernel="linear", input_bound=1.0, lam=0.1, max_queries=10),
                              max_updates=0).fit(X, y, 1.0, accountant=a),
    lambda X, y, a: _assigned(dpcvx.TDIL(kernel="linear", input_bound=1.0, lam=0.1), rounds=0).fit(
        X, y, 1.0, accountant=a),
    lambda X, y, a: dpcvx.TDDL(kernel="linear", input_bound=1.0, lam=0.1).fit(X, y, 1.0, Z=np.zeros((5, 2)),
                                                                              accountant=a),
], ids=["PINP", "TDIL", "TDDL"])
def test_a_refused_kernel_fit_shows_no_count_computed_on_the_data(fit):
    """The kernel learners: rows with ||phi(x)|| above R_phi were counted (NOT PRIVATE) before a setting or the public
    sample was refused."""
    X = _wide_rows(200)[:, :2]
    y = np.where(X[:, 0] > 0, 1, -1)
    _refused_silently(lambda a: fit(X, y, a))


@pytest.mark.parametrize("entry", ["DPLogisticRegression", "PrivateERM", "one-vs-rest", "full-data", "split"])
def test_whether_any_weight_is_positive_decides_nothing(entry):
    """A fit refused weights that were all zero ("nothing would be fitted"): with a public class weight of 0 that
    refusal said whether a record of the other class was present, a statistic of the labels. An attacker probe: the
    fit refused 50 of 50 on a data set with no record of class 1 and released 50 of 50 on its neighbour with one;
    inside tune's full-data selection a part without that record raised after the charge (24 of 40). All-zero
    weights now fit the regularizer and the noise alone (the loss's term is 0), on both neighbours."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, size=(300, 3))
    absent = np.zeros(300, dtype=int)
    present = absent.copy()
    present[0] = 1
    for y in (absent, present):
        accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
        if entry == "DPLogisticRegression":
            dpcvx.DPLogisticRegression(epsilon=0.5, class_weight={0: 0.0, 1: 1.0}, accountant=accountant,
                                       random_state=0).fit(X, y)
        elif entry == "PrivateERM":
            dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, class_weight={-1: 0.0, 1: 1.0}).fit(
                X, 2 * y - 1, epsilon=0.5, accountant=accountant, random_state=0)
        elif entry == "one-vs-rest":
            labels = np.where(np.arange(300) % 2 == 0, 0, 1) + 2 * y  # class 2 only where y is 1
            labels[0] = 2 if y[0] else 0
            dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(lam=1e-2, data_norm=1.0, class_weight={-1: 0.0, 1: 1.0}),
                                       classes=(0, 1, 2)).fit(X, labels, epsilon=0.5, accountant=accountant,
                                                              random_state=0)
        else:
            dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0, class_weight={-1: 0.0, 1: 1.0}), X, 2 * y - 1,
                       {"lam": [1e-2, 1e-1]}, epsilon=0.5, procedure=entry, accountant=accountant, random_state=0)
        assert accountant.spent[0] == pytest.approx(0.5)
