"""scikit-learn estimators: clone, Pipeline, cross_val_score, public classes, no partial fits."""

import os
import subprocess
import sys
from pathlib import Path

import cvxpy as cp
import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.validation import check_is_fitted

import dpcvx
from dpcvx.demo import synthetic_classification

ROOT = Path(__file__).resolve().parents[1]
ESTIMATORS = [dpcvx.DPLogisticRegression, dpcvx.DPHuberSVM, dpcvx.DPERMClassifier]


@pytest.fixture(scope="module")
def data():
    X, y = synthetic_classification(n=3000, d=5, random_state=1)
    return X, (y > 0).astype(int)  # the 0/1 labels scikit-learn users have


def fitted_attributes(estimator):
    return sorted(name for name in vars(estimator) if name.endswith("_"))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_clone_and_params(cls):
    estimator = cls(epsilon=0.3, lam=1e-2, random_state=4)
    copy = clone(estimator)
    assert copy is not estimator and copy.get_params() == estimator.get_params()
    assert copy.get_params()["classes"] == (0, 1) and copy.get_params()["fit_intercept"] is True
    assert copy.set_params(epsilon=2.0) is copy and copy.epsilon == 2.0 and estimator.epsilon == 0.3
    with pytest.raises(ValueError, match="Invalid parameter"):
        copy.set_params(lambda_=1.0)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_pipeline_and_cross_val_score(cls, data):
    X, y = data
    pipeline = Pipeline([
        ("public_scaling", FunctionTransformer(lambda X: X / 2)),  # a public, per-row map
        ("classifier", cls(epsilon=1.0, data_norm=0.5, random_state=0)),
    ])
    scores = cross_val_score(pipeline, X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.75)  # measured: about 0.85
    pipeline.fit(X, y)
    assert set(np.unique(pipeline.predict(X))) <= {0, 1}
    classifier = pipeline.named_steps["classifier"]
    assert classifier.certificate_.epsilon == 1.0 and classifier.certificate_.data_norm == 0.5


def test_estimator_is_private_erm(data):
    X, y = data
    estimator = dpcvx.DPHuberSVM(h=0.3, epsilon=0.5, lam=1e-2, mechanism="output",
                                 random_state=7).fit(X, y)
    direct = dpcvx.PrivateERM(loss=dpcvx.losses.huber_hinge(0.3), lam=1e-2, data_norm=1.0,
                              fit_intercept=True, classes=(0, 1)).fit(
        X, y, epsilon=0.5, mechanism="output", random_state=7)
    assert np.array_equal(estimator.coef_, direct.coef_[np.newaxis, :])
    assert np.array_equal(estimator.intercept_, [direct.intercept_])
    assert np.array_equal(estimator.decision_function(X), direct.decision_function(X))
    assert estimator.coef_.shape == (1, 5) and estimator.n_features_in_ == 5
    assert estimator.classes_.tolist() == [0, 1]
    assert estimator.certificate_.mechanism == "output"
    assert isinstance(estimator.model_, dpcvx.PrivateModel)


def test_generic_classifier_takes_specs_and_callables(data):
    X, y = data
    spec = dpcvx.DPERMClassifier(loss="huber:h=0.5", epsilon=1.0, random_state=0).fit(X, y)
    named = dpcvx.DPHuberSVM(h=0.5, epsilon=1.0, random_state=0).fit(X, y)
    assert np.array_equal(spec.coef_, named.coef_)
    custom = dpcvx.DPERMClassifier(loss=lambda z: cp.logistic(-z),
                                   regularizer=lambda w: cp.sum_squares(w),  # m = 2
                                   epsilon=1.0, random_state=0).fit(X, y)
    assert custom.certificate_.strong_convexity == 2
    search = GridSearchCV(dpcvx.DPERMClassifier(epsilon=1.0, random_state=0),
                          {"loss": ["logistic", "huber:h=0.5"]}, cv=2).fit(X, y)
    assert search.best_params_["loss"] in ("logistic", "huber:h=0.5")


def test_predict_proba_is_the_sigmoid_of_the_decision(data):
    X, y = data
    estimator = dpcvx.DPLogisticRegression(epsilon=2.0, random_state=3).fit(X, y)
    probabilities = estimator.predict_proba(X)
    assert probabilities.shape == (len(X), 2)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(probabilities[:, 1], expit(estimator.decision_function(X)))
    np.testing.assert_array_equal(estimator.classes_[probabilities.argmax(axis=1)],
                                  estimator.predict(X))
    assert not hasattr(dpcvx.DPHuberSVM(), "predict_proba")


def test_classes_are_public_never_inferred(data):
    X, y = data
    with pytest.raises(dpcvx.InputError, match=r"outside the declared classes \(0, 1\): -1"):
        dpcvx.DPLogisticRegression().fit(X, 2 * y - 1)
    signed = dpcvx.DPLogisticRegression(classes=(-1, 1), random_state=0).fit(X, 2 * y - 1)
    plain = dpcvx.DPLogisticRegression(random_state=0).fit(X, y)
    assert np.array_equal(signed.coef_, plain.coef_)
    named = dpcvx.DPLogisticRegression(classes=("no", "yes"), random_state=0).fit(
        X, np.where(y == 1, "yes", "no"))
    assert set(named.predict(X)) <= {"no", "yes"}
    # a sample holding one class still fits: the pair is declared, not read off y
    single = dpcvx.DPLogisticRegression(random_state=0).fit(X[:100], np.ones(100, dtype=int))
    assert single.classes_.tolist() == [0, 1]


def test_failed_fit_leaves_no_partial_model(data):
    X, y = data
    hinge = dpcvx.DPERMClassifier(loss=lambda z: cp.pos(1 - z))
    with pytest.raises(dpcvx.AssumptionError, match="differentiability"):
        hinge.fit(X, y)
    assert fitted_attributes(hinge) == []
    with pytest.raises(NotFittedError):
        hinge.predict(X)
    estimator = dpcvx.DPLogisticRegression(random_state=0).fit(X, y)
    before = {name: getattr(estimator, name) for name in fitted_attributes(estimator)}
    assert sorted(before) == ["certificate_", "classes_", "coef_", "intercept_", "model_",
                              "n_features_in_"]
    with pytest.raises(dpcvx.InputError, match="epsilon"):
        estimator.set_params(epsilon=-1.0).fit(X, y)
    assert all(getattr(estimator, name) is value for name, value in before.items())
    check_is_fitted(estimator)


def test_fitted_model_saves_and_loads(data, tmp_path):
    X, y = data
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    loaded = dpcvx.load(dpcvx.save(estimator.model_, tmp_path / "model.json"))
    assert np.array_equal(loaded.predict(X), estimator.predict(X))


def test_import_without_scikit_learn():
    code = (
        "import sys; sys.modules['sklearn'] = None\n"  # makes `import sklearn` fail
        "import dpcvx\n"
        "assert 'DPLogisticRegression' in dir(dpcvx)\n"
        "try:\n"
        "    dpcvx.DPLogisticRegression\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    assert 'pip install "dpcvx[sklearn]"' in result.stdout


# -- noise is never shared between clones -------------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_clones_with_random_state_none_draw_fresh_noise(cls, data):
    """clone() deep-copies parameters; with None each fit seeds from OS entropy, so two clones
    fitted on the same data release different models (the same noise would give equal coefs)."""
    X, y = data
    template = cls(epsilon=1.0, lam=1e-2)
    first, second = clone(template).fit(X, y), clone(template).fit(X, y)
    assert not np.allclose(first.coef_, second.coef_, rtol=0, atol=1e-6)
    assert not np.allclose(first.fit(X, y).coef_, second.coef_, rtol=0, atol=1e-6)  # a refit too


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)
def test_clones_with_an_int_seed_are_reproducible(cls, data):
    X, y = data
    template = cls(epsilon=1.0, lam=1e-2, random_state=7)
    first, second = clone(template).fit(X, y), clone(template).fit(X, y)
    np.testing.assert_array_equal(first.coef_, second.coef_)
    np.testing.assert_array_equal(first.intercept_, second.intercept_)


@pytest.mark.parametrize("state", [np.random.default_rng(0), np.random.RandomState(0),
                                   np.random.PCG64(0), np.random.SeedSequence(0)],
                         ids=lambda state: type(state).__name__)
def test_generators_are_refused_naming_the_fix(data, state):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    estimator = dpcvx.DPLogisticRegression(random_state=state)
    with pytest.raises(dpcvx.InputError, match=r"clone.*random_state=None.*int seed"):
        estimator.fit(X, y, accountant=accountant)
    assert fitted_attributes(estimator) == [] and accountant.ledger == []   # nothing spent
    # callers holding a generator (dpcvx.tune) read this flag and pass a fresh int seed instead
    assert all(cls.seed_only_random_state for cls in ESTIMATORS)
    assert "seed_only_random_state" not in estimator.get_params()


@pytest.mark.parametrize("state", [-1, True, 1.5, "7"])
def test_other_random_states_are_refused(data, state):
    X, y = data
    with pytest.raises(dpcvx.InputError, match="random_state"):
        dpcvx.DPLogisticRegression(random_state=state).fit(X, y)


def test_numpy_integer_seed_is_an_int(data):
    X, y = data
    plain = dpcvx.DPLogisticRegression(random_state=3).fit(X, y)
    numpy_int = dpcvx.DPLogisticRegression(random_state=np.int64(3)).fit(X, y)
    np.testing.assert_array_equal(plain.coef_, numpy_int.coef_)


def test_cross_val_score_folds_draw_different_noise(data):
    """cross_val_score clones the estimator per fold. Every fold is made to see the same rows
    (a public pass-through splitter), so differences between the fold models are the noise
    alone: with None they all differ; with an int seed they coincide (the shared noise that
    the docs warn about)."""
    X, y = data
    models = []

    def record(estimator, X_test, y_test):
        models.append(estimator.coef_.copy())
        return 0.0

    same_rows = [(np.arange(len(X)), np.arange(len(X)))] * 3
    cross_val_score(dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-2), X, y, cv=same_rows,
                    scoring=record)
    assert len(models) == 3
    for i in range(3):
        for j in range(i):
            assert not np.allclose(models[i], models[j], rtol=0, atol=1e-6)
    models.clear()
    cross_val_score(dpcvx.DPLogisticRegression(epsilon=1.0, lam=1e-2, random_state=5), X, y,
                    cv=same_rows, scoring=record)
    assert all(np.array_equal(models[0], other) for other in models[1:])
