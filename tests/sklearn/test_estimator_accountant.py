"""The estimators and the accountant (issue 43): accountant= in the constructor as in fit, clones share it,
ledger lines name the estimator and its loss; the classifiers and DPHuberRegressor take neighbours=; effective
lam."""

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.version import SCIKIT_LEARN_MINIMUM, dependency_error

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.model_selection import cross_val_score  # noqa: E402


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    return X, (X[:, 0] + 0.3 * rng.normal(size=300) > 0).astype(int)


def test_accountant_in_the_constructor_is_charged_and_names_the_estimator(data):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=3.0)
    dpcvx.DPHuberSVM(epsilon=1.0, random_state=0, accountant=accountant).fit(X, y)
    with accountant.described("second model"):
        dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y, accountant=accountant)
    assert [entry.description for entry in accountant.ledger] == [
        "DPHuberSVM.fit: PrivateERM.fit (loss huber_hinge:h=0.5, objective perturbation, n=300)",
        "second model: DPLogisticRegression.fit: PrivateERM.fit (loss logistic, objective perturbation, n=300)"]
    assert accountant.spent.epsilon == pytest.approx(2.0)


def test_two_different_accountants_are_refused_before_any_charge(data):
    X, y = data
    own, other = dpcvx.PrivacyAccountant(epsilon=3.0), dpcvx.PrivacyAccountant(epsilon=3.0)
    estimator = dpcvx.DPLogisticRegression(random_state=0, accountant=own)
    with pytest.raises(InputError, match="give the accountant once"):
        estimator.fit(X, y, accountant=other)
    assert own.ledger == [] and other.ledger == []
    estimator.fit(X, y, accountant=own)  # the same one twice is one accountant
    assert len(own.ledger) == 1


def test_clones_share_the_accountant_so_cross_validation_is_charged_once_per_fit(data):
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=2.5)
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, accountant=accountant)
    assert clone(estimator).accountant is accountant
    with pytest.raises(dpcvx.BudgetExceededError):  # 3 folds of 1.0 exceed 2.5: the third is refused
        cross_val_score(estimator, X, y, cv=3, error_score="raise")
    assert len(accountant.ledger) == 2


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label search
def test_regressors_take_the_accountant_in_the_constructor(data):
    X, _ = data
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    dpcvx.DPLinearRegression(accountant=accountant, random_state=0).fit(X, X[:, 0])  # 300 rows: plain AdaSSP
    dpcvx.DPLinearRegression(accountant=accountant, random_state=0, column_statistics=True).fit(X, X[:, 0])
    assert [entry.description for entry in accountant.ledger] == [
        "DPLinearRegression.fit: PrivateLinearRegression.fit (AdaSSP, replace-one)",
        "DPLinearRegression.fit: PrivateLinearRegression.fit (AdaSSP with private column statistics, replace-one)"]


@pytest.mark.slow  # about 2 s (the default run's 5-minute limit)
def test_classifiers_take_add_remove_neighbours(data):
    X, y = data
    model = dpcvx.DPLogisticRegression(delta=1e-6, neighbours="add-remove", n_public=300, random_state=0).fit(X, y)
    assert model.certificate_.neighbours.startswith("add-remove")
    assert "n_public" not in str(model.certificate_.constants)
    with pytest.raises(InputError, match="n_public"):
        dpcvx.DPHuberSVM(delta=1e-6, neighbours="add-remove").fit(X, y)
    multiclass = dpcvx.DPLogisticRegression(delta=1e-6, neighbours="add-remove", n_public=300, classes=(0, 1, 2),
                                            random_state=0).fit(X, np.arange(300) % 3)
    assert all(c.neighbours.startswith("add-remove") for c in multiclass.certificate_.per_class)


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label's range
def test_the_huber_regressor_takes_add_remove_neighbours(data):
    """Under add-remove "auto" is the Gaussian output perturbation (no pure-epsilon mechanism is derived for it);
    n_public takes n's place in the certificate, and each refusal comes before any charge."""
    X, _ = data
    y = X @ np.array([0.5, -0.3, 0.2])
    accountant = dpcvx.PrivacyAccountant(epsilon=3.0, delta=1e-5)
    model = dpcvx.DPHuberRegressor(delta=1e-6, lam=0.1, neighbours="add-remove", n_public=400, random_state=0,
                                   accountant=accountant).fit(X, y)
    certificate = model.certificate_
    assert certificate.neighbours.startswith("add-remove") and "n_public = 400" in certificate.neighbours
    assert certificate.mechanism == "output" and certificate.delta == 1e-6
    assert certificate.constants["n"] == 400
    assert accountant.ledger[0].description.startswith("DPHuberRegressor.fit: PrivateERM.fit (loss huber_regression")
    replace_one = dpcvx.DPHuberRegressor(delta=1e-6, lam=0.1, random_state=0).fit(X, y).certificate_
    assert replace_one.mechanism == "objective" and replace_one.delta == 0  # "auto": pure epsilon, as before
    assert replace_one.neighbours.startswith("replace-one")
    refused = [({"delta": 1e-6, "neighbours": "add-remove"}, "needs n_public"),
               ({"neighbours": "add-remove", "n_public": 400}, "offered for delta > 0"),
               ({"delta": 1e-6, "n_public": 400}, "n_public is for neighbours='add-remove'"),
               ({"delta": 1e-6, "neighbours": "add-one"}, "neighbours must be one of"),
               ({"delta": 1e-6, "neighbours": "add-remove", "n_public": 0}, "n_public"),
               ({"delta": 1e-6, "neighbours": "add-remove", "n_public": 400, "mechanism": "objective"},
                "twice_differentiability")]
    for parameters, message in refused:
        with pytest.raises((InputError, dpcvx.AssumptionError), match=message):
            dpcvx.DPHuberRegressor(random_state=0, accountant=accountant, **parameters).fit(X, y)
    assert len(accountant.ledger) == 1  # the add-remove release only


def test_effective_lam_is_stated_when_delta_raises_lam(data):
    X, y = data
    small = dpcvx.DPLogisticRegression(lam=1e-5, random_state=0).fit(X, y)
    smaller = dpcvx.DPLogisticRegression(lam=1e-6, random_state=0).fit(X, y)
    effective = small.certificate_.effective_lam
    assert effective is not None and effective > 1e-3
    assert effective == pytest.approx(smaller.certificate_.effective_lam, rel=1e-9)
    np.testing.assert_allclose(small.coef_, smaller.coef_, rtol=1e-6)  # the same release: lam no longer matters
    assert f"effective lam {effective:.3g}, raised from lam 1e-05" in repr(small)
    assert "effective lam = Lam + Delta / m" in str(small.certificate_)
    large = dpcvx.DPLogisticRegression(lam=1.0, random_state=0).fit(X, y)
    assert large.certificate_.effective_lam is None
    assert "effective lam" not in repr(large) and "effective lam" not in str(large.certificate_)
    assert "effective lam" not in repr(dpcvx.DPLogisticRegression(lam=1e-5))  # before a fit


def test_a_too_old_scikit_learn_shows_the_real_import_error():
    error = dependency_error(ImportError("cannot import name 'validate_data' from 'sklearn.utils.validation'"),
                             "scikit-learn", SCIKIT_LEARN_MINIMUM, "sklearn", "the dpcvx estimators")
    text = str(error)
    assert f"scikit-learn >= {SCIKIT_LEARN_MINIMUM}" in text
    assert f"scikit-learn {sklearn.__version__} is installed" in text
    assert "cannot import name 'validate_data'" in text and 'pip install "dpcvx[sklearn]"' in text


# slow: several seconds; the default run on a bare clone must stay within 5 minutes (pyproject.toml)
@pytest.mark.slow
def test_a_worker_process_cannot_charge_a_copy_of_the_accountant(data):
    """cross_val_score(..., n_jobs=2) fitted in worker processes, each charging its own unpickled copy: 3 fits at
    epsilon 1 were released and the accountant said 0 spent (and each worker held the whole budget again)."""
    import multiprocessing
    import pickle

    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, accountant=accountant)
    with pytest.raises(ValueError, match="fits failed"):  # scikit-learn's words; each fit refused by the worker
        cross_val_score(estimator, X, y, cv=3, n_jobs=2)
    assert accountant.spent.epsilon == 0 and not accountant.ledger  # nothing was released
    cross_val_score(estimator, X, y, cv=3)
    assert accountant.spent.epsilon == pytest.approx(3.0)
    same = pickle.loads(pickle.dumps(accountant))  # a copy in its own process is an accountant
    same.spend(1.0)
    assert same.spent.epsilon == pytest.approx(4.0) and accountant.spent.epsilon == pytest.approx(3.0)
    with multiprocessing.get_context("fork").Pool(1) as pool:  # inherited, not unpickled: refused too
        assert pool.apply(_charge_in_child, (accountant,)) == "refused"
    resumed = dpcvx.PrivacyAccountant(epsilon=10.0, ledger=accountant.ledger)  # the way the message names
    assert resumed.spent.epsilon == pytest.approx(3.0)


def _charge_in_child(accountant):
    try:
        accountant.spend(0.1)
    except InputError as refusal:
        return "refused" if "made in another process" in str(refusal) else str(refusal)
    return "charged"


@pytest.mark.parametrize("procedure", ["split", "full-data"])
def test_tune_refuses_an_estimator_that_holds_an_accountant(data, procedure):
    """Every candidate copied the estimator with its accountant: tune charged the user's accountant, then a
    candidate's fit charged its copy again and failed after the charge ("a bug ... the budget is spent")."""
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, accountant=accountant)
    with pytest.raises(InputError, match="has accountant= from its constructor.*Nothing was charged"):
        dpcvx.tune(estimator, X, y, {"lam": [1e-3, 1e-2]}, 1.0, procedure=procedure, accountant=accountant,
                   random_state=0)
    assert not accountant.ledger


def test_the_release_file_audit_refuses_an_estimator_that_holds_an_accountant(data):
    """The audit fitted two deep copies of the estimator, each charging a copy of its accountant: two fits on the
    user's rows and the accountant read nothing spent."""
    from dpcvx.models.release_audit import audit_release_file

    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=5.0)
    estimator = dpcvx.DPLogisticRegression(accountant=accountant)
    with pytest.raises(InputError, match="has accountant= from its constructor.*accountant=None"):
        audit_release_file(estimator, X, y, epsilon=1.0)
    assert not accountant.ledger
    assert audit_release_file(estimator.set_params(accountant=None), X, y, epsilon=1.0).clean


def test_a_copy_with_the_process_id_of_the_original_still_refuses(monkeypatch, data):
    """The owner is a random token of the process, renewed at fork: a process ID can repeat (another container,
    a reused ID), and a copy unpickled in a process with the original's ID charged."""
    import os
    import pickle

    from dpcvx.privacy import process_token

    accountant = dpcvx.PrivacyAccountant(epsilon=1.0)
    saved = pickle.dumps(accountant)
    monkeypatch.setattr(process_token, "_TOKEN", "another process with the same pid " + str(os.getpid()))
    with pytest.raises(InputError, match="made in another process"):
        pickle.loads(saved).spend(0.1)
    monkeypatch.undo()
    pickle.loads(saved).spend(0.1)  # back in its own process


def test_described_labels_follow_each_asyncio_task():
    import asyncio

    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)

    async def release(name, pause):
        with accountant.described(name):
            await asyncio.sleep(pause)
            accountant.spend(0.1, description="fit")

    async def both():
        await asyncio.gather(release("model A", 0.02), release("model B", 0.05))

    asyncio.run(both())
    assert sorted(entry.description for entry in accountant.ledger) == ["model A: fit", "model B: fit"]


def _line_epsilons(line):
    """The epsilons a composite's ledger line states, by symbol."""
    import re
    return {symbol: float(value) for symbol, value in re.findall(r"(eps_[a-z]+)=([0-9.e-]+)", line)}


@pytest.mark.parametrize("make, loss, symbols", [
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, column_statistics=True, random_state=0),
     "loss logistic, objective perturbation, n=3000", {"eps_s", "eps_fit"}),
    (lambda: dpcvx.DPHuberSVM(epsilon=1.0, column_statistics="ranges", random_state=0),
     "loss huber_hinge:h=0.5, objective perturbation, n=3000", {"eps_s", "eps_fit"}),
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, class_weight="balanced", column_statistics=True, random_state=0),
     "loss logistic, objective perturbation, n=3000", {"eps_s", "eps_c", "eps_fit"}),
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, class_weight="balanced", column_statistics=False,
                                        random_state=0),
     "loss logistic, objective perturbation, n=3000", {"eps_c", "eps_fit"}),
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, data_norm="private", norm_range=(0.5, 4.0),
                                        column_statistics=False, random_state=0),
     "loss logistic, objective perturbation, n=3000", {"eps_q", "eps_fit"}),
    (lambda: dpcvx.DPLogisticRegression(epsilon=1.0, data_norm="private", norm_range=(0.5, 4.0), mechanism="output",
                                        column_statistics=False, random_state=0),
     "loss logistic, output perturbation, n=3000", {"eps_q", "eps_fit"}),
    (lambda: dpcvx.DPHuberRegressor(epsilon=1.0, random_state=0),
     "loss huber_regression", {"eps_s", "eps_l", "eps_fit"}),
])
def test_a_composite_fits_ledger_line_names_the_loss_and_every_draw(make, loss, symbols):
    """Issue 43 after issue 42 (probe R2, session 63): a fit that draws column statistics, a label range, a bound or a
    private class count before its fit still names the learner's loss in its one ledger line, and every draw with its
    epsilon, the class count drawn inside the statistics' eps_fit too: the epsilons the line states add up to the
    charge. The lines were hand-written per composite and named neither the loss nor a nested count."""
    rng = np.random.default_rng(7)
    X = rng.uniform(-0.5, 0.5, size=(3000, 3))
    y = ((X[:, 0] + 0.3 * rng.normal(size=3000)) > 0.3).astype(int)
    if "huber_regression" in loss:
        y = X @ np.array([0.3, -0.2, 0.1]) + 0.1 * rng.normal(size=3000)
    accountant = dpcvx.PrivacyAccountant(epsilon=3.0)
    estimator = make()
    estimator.fit(X, y, accountant=accountant)
    (entry,) = accountant.ledger
    prefix = f"{type(estimator).__name__}.fit: PrivateERM.fit ({loss}"
    assert entry.description.startswith(prefix), entry.description
    stated = _line_epsilons(entry.description)
    assert set(stated) == symbols, entry.description
    assert sum(stated.values()) == pytest.approx(entry.cost.epsilon, abs=1e-12)
    assert entry.cost.epsilon == pytest.approx(1.0)
