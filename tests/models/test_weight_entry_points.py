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
    assert len(prior) == 1 and "2000 x 0.02: 40 x " in prior[0], prior
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


@pytest.mark.filterwarnings("ignore::UserWarning")
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


@pytest.mark.filterwarnings("ignore::UserWarning")
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
    with pytest.raises(dpcvx.InputError, match="not 'datetime.date'. DPHuberRegressor takes numeric features and a "
                                               "numeric target y only"):
        dpcvx.DPHuberRegressor(label_bound=1e5, random_state=0).fit(np.asarray(X), dates.astype(object),
                                                                     accountant=accountant)
    assert accountant.ledger == []
