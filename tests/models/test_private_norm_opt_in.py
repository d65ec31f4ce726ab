"""data_norm="private" on PrivateERM and the estimators: refused calls spend nothing, one charge at the
total, R is the exponential mechanism's draw on the public grid, and the certificate and file state the cost."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import BudgetExceededError, InputError
from dpcvx.models import private_norm
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.private_norm import BoundDraw, NormPlan, draw_then_fit
from dpcvx.privacy.quantile import NormBound, power_of_two_grid, quantile_probabilities, row_norms

RANGE = (0.25, 64)
GRID = power_of_two_grid(*RANGE)


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * 2.0  # norms around 3.5, none above 8: no public bound is given
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, 1, -1)
    return X, y


def _learner(**settings) -> dpcvx.PrivateERM:
    return dpcvx.PrivateERM(lam=1e-2, **{"data_norm": "private", "norm_range": RANGE, **settings})


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpcvx.ClippingWarning)
        yield


@pytest.fixture
def never_drawn(monkeypatch):
    """The quantile must not run: a refused call reads no norm."""
    def draw(*args, **kwargs):
        raise AssertionError("the private bound was drawn for a refused call")
    monkeypatch.setattr(private_norm, "private_norm_bound", draw)


@pytest.mark.parametrize("settings, fit, error", [
    ({"norm_range": None}, {}, InputError),                       # no public range: the message names it
    ({"norm_range": (3, 3.5)}, {}, InputError),                   # no power of two in it
    ({"norm_range": (4,)}, {}, InputError),
    ({"norm_share": 1.0}, {}, InputError),
    ({"clip": False}, {}, InputError),                             # would refuse rows after the charge
    ({"data_norm": "privat"}, {}, InputError),
    ({"data_norm": 2.0}, {}, InputError),                          # a range with a public bound
    ({}, {"epsilon": 5.0}, BudgetExceededError),
    ({}, {"delta": 1e-6, "neighbours": "add-remove", "n_public": 300}, InputError),
    ({}, {"mechanism": "exponential"}, InputError),
])
def test_a_refused_private_bound_fit_spends_nothing_and_reads_no_norm(never_drawn, settings, fit, error):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    with pytest.raises(error):
        _learner(**settings).fit(X, y, **{"epsilon": 1.0, "accountant": accountant, **fit})
    assert accountant.ledger == []


def test_a_missing_norm_range_is_a_clear_input_error():
    X, y = _data()
    message = r"data_norm=.private. needs norm_range=\(low, high\).*PUBLIC range.*Nothing was charged"
    with pytest.raises(InputError, match=message):
        _learner(norm_range=None).fit(X, y, 1.0)
    with pytest.raises(InputError, match="norm_range"):
        _learner(norm_range=None).check_fit_inputs(X, y, epsilon=1.0)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_the_accountant_is_charged_once_at_eps_q_plus_eps_fit(delta):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    model = _learner(norm_share=0.25).fit(X, y, 1.0, delta=delta, accountant=accountant, random_state=3)
    assert len(accountant.ledger) == 1
    entry = accountant.ledger[0]
    assert entry.cost == (1.0, delta)
    certificate = model.certificate
    assert certificate.private_bound["epsilon"] == 0.25 and certificate.epsilon == 0.75
    assert certificate.total_epsilon == entry.cost.epsilon == model.epsilon
    # the curve is basic composition: the quantile's pure part and the fit's (eps_fit, delta) part
    assert [(part.epsilon, part.delta) for part in certificate.privacy_curve.parts] == [(0.25, 0.0), (0.75, delta)]
    again = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-5)
    again.spend_release(model)  # a saved release is charged at its total, not at the fit's part
    assert again.spent == (1.0, delta)


def _support(X: np.ndarray, seeds: range) -> set[float]:
    """The bounds the private-bound path chooses for X over seeded runs (the fit is a stub)."""
    class Stub:
        def fit(self, X, y, epsilon, random_state=None):
            return self

        def set_params(self, data_norm):
            self.data_norm = data_norm

    plan = NormPlan((BoundDraw("data_norm", GRID, 0.1),), 0.9, 0.0, 0.95)
    return {draw_then_fit(Stub(), X, None, plan, np.random.default_rng(seed))[0].data_norm for seed in seeds}


def _check_bound_is_private(X: np.ndarray, neighbour: np.ndarray) -> None:
    """R lies on the public grid and its law moves by at most e^{eps_q} between neighbours: the same support
    (here every bound from 8 up scores best on both: all rows lie below it but one)."""
    first, second = _support(X, range(200)), _support(neighbour, range(200))
    assert first <= set(GRID) and second <= set(GRID)
    assert first == second and len(first) > 1


def test_the_chosen_bound_is_a_draw_on_the_public_grid_with_the_same_support_on_neighbours(monkeypatch):
    X, _ = _data()
    neighbour = X.copy()
    neighbour[np.argmax(row_norms(X))] = [900.0, 0.0, 0.0]  # one record replaced by an outlier
    _check_bound_is_private(X, neighbour)
    law, law_neighbour = (quantile_probabilities(row_norms(Z), GRID, 0.95, 0.1) for Z in (X, neighbour))
    assert np.all(law <= math.exp(0.1) * law_neighbour * (1 + 1e-12))
    assert np.all(law_neighbour <= math.exp(0.1) * law * (1 + 1e-12))

    def read_off_the_data(X, *, epsilon, r_min, r_max, quantile, random_state):  # the broken variant: max norm
        return NormBound(float(row_norms(X).max()), epsilon, power_of_two_grid(r_min, r_max), quantile)

    monkeypatch.setattr(private_norm, "private_norm_bound", read_off_the_data)
    with pytest.raises(AssertionError):
        _check_bound_is_private(X, neighbour)


def test_the_fit_clips_to_the_drawn_bound_and_nothing_else(monkeypatch):
    X, y = _data()
    drawn: list[NormBound] = []
    original = private_norm.private_norm_bound

    def recorded(*args, **kwargs):
        drawn.append(original(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(private_norm, "private_norm_bound", recorded)
    for seed in (0, 1, 2):
        model = _learner().fit(X, y, 1.0, random_state=seed)
        assert model.certificate.data_norm == model.rows.norm_bound == drawn[-1].bound in GRID
        assert model.certificate.private_bound["bound"] == drawn[-1].bound


def test_the_certificate_and_the_saved_file_state_the_bound_its_cost_and_the_grid(tmp_path):
    X, y = _data()
    model = _learner().fit(X, y, 1.0, random_state=3)
    record = model.certificate.private_bound
    assert record["grid"] == list(GRID) and record["quantile"] == 0.95 and record["neighbours"] == "replace-one"
    assert record["epsilon"] == pytest.approx(0.1) and record["total_epsilon"] == model.certificate.total_epsilon
    text = str(model.certificate)
    assert "private norm bound: R = " in text and f"total epsilon = {model.certificate.total_epsilon:g}" in text
    assert model.certificate.guarantee.startswith(f"({model.certificate.total_epsilon:g}, 0)-differential privacy")
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    saved = json.loads(path.read_text())
    assert saved["epsilon"] == model.certificate.total_epsilon and saved["certificate"]["private_bound"] == record
    loaded = dpcvx.load(path)
    assert loaded.certificate.private_bound == record and loaded.epsilon == model.epsilon
    assert np.array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("edit", [
    lambda record: record.update(bound=3.0),                       # off the grid
    lambda record: record.update(bound=record["grid"][0]),         # not the certificate's data_norm
    lambda record: record.update(grid=[0.25, 1.0, 64.0]),          # not consecutive powers of two
    lambda record: record.update(total_epsilon=0.5),               # a smaller stated cost
    lambda record: record.update(quantile=1.0),
    lambda record: record.pop("theorem"),
])
def test_an_edited_private_bound_record_is_refused_on_load(tmp_path, edit):
    X, y = _data()
    path = tmp_path / "model.json"
    dpcvx.save(_learner().fit(X, y, 1.0, random_state=3), path)
    data = json.loads(path.read_text())
    edit(data["certificate"]["private_bound"])
    path.write_text(json.dumps(data))
    with pytest.raises(InputError):
        dpcvx.load(path)


def test_a_file_without_the_record_cannot_hide_the_quantile_cost(tmp_path):
    X, y = _data()
    path = tmp_path / "model.json"
    dpcvx.save(_learner().fit(X, y, 1.0, random_state=3), path)
    data = json.loads(path.read_text())
    del data["certificate"]["private_bound"]
    path.write_text(json.dumps(data))
    with pytest.raises(InputError):  # the top-level epsilon and the curve still state the total
        dpcvx.load(path)


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # n below the label's range
def test_the_estimators_take_the_opt_in_and_charge_once():
    X, y = _data()
    labels = (y > 0).astype(int)
    accountant = dpcvx.PrivacyAccountant(epsilon=3.0)
    for estimator in (dpcvx.DPLogisticRegression(data_norm="private", norm_range=RANGE, random_state=1),
                      dpcvx.DPHuberSVM(data_norm="private", norm_range=RANGE, norm_share=0.2, random_state=1)):
        estimator.fit(X, labels, accountant=accountant)
        assert estimator.certificate_.total_epsilon == 1.0 and estimator.certificate_.data_norm in GRID
        assert estimator.certificate_.private_bound["epsilon"] == pytest.approx(estimator.norm_share)
    assert [entry.cost.epsilon for entry in accountant.ledger] == [1.0, 1.0]
    regressor = dpcvx.DPHuberRegressor(data_norm="private", norm_range=RANGE, label_bound=2.0, random_state=1)
    regressor.fit(X, X[:, 0] * 0.3, accountant=accountant)
    assert regressor.certificate_.total_epsilon == 1.0 and len(accountant.ledger) == 3


def test_a_one_vs_rest_model_refuses_a_private_bound_it_would_draw_per_class(never_drawn):
    X, y = _data()
    accountant = dpcvx.PrivacyAccountant(epsilon=3.0)
    with pytest.raises(InputError, match="binary models"):
        PrivateMulticlassERM(_learner(), (0, 1, 2)).fit(X, np.arange(y.size) % 3, 1.0, accountant=accountant)
    assert accountant.ledger == []


@pytest.mark.parametrize("estimator", [
    dpcvx.DPLogisticRegression(data_norm="private", norm_range=RANGE, classes=(0, 1, 2)),
    dpcvx.DPLinearRegression(data_norm="private", norm_range=RANGE),  # AdaSSP needs a public bound
    dpcvx.DPLogisticRegression(data_norm="private"),
    dpcvx.DPLogisticRegression(norm_range=RANGE),
])
def test_an_estimator_refuses_what_it_cannot_offer_before_anything_is_charged(never_drawn, estimator):
    X, y = _data()
    labels = np.where(y > 0, 1, 0) if estimator.__class__ is not dpcvx.DPLinearRegression else X[:, 0] * 0.1
    accountant = dpcvx.PrivacyAccountant(epsilon=3.0, delta=1e-5)
    with pytest.raises(InputError):
        estimator.fit(X, labels, accountant=accountant)
    assert accountant.ledger == []


def _regression(n: int = 400, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, 3.0 * (X @ np.array([0.5, -0.3, 0.2]) + 0.1 * rng.normal(size=n))  # |y| mostly below 4


def test_a_private_label_bound_is_the_quantile_of_the_labels_and_is_stated(monkeypatch, tmp_path):
    X, y = _regression()
    drawn: list[NormBound] = []
    original = private_norm.private_norm_bound

    def recorded(source, **kwargs):
        drawn.append(original(source, **kwargs))
        assert source.shape == (y.size, 1) and np.array_equal(row_norms(source), np.abs(y))  # |y_i|, nothing else
        return drawn[-1]

    monkeypatch.setattr(private_norm, "private_norm_bound", recorded)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    regressor = dpcvx.DPHuberRegressor(label_bound="private", label_range=RANGE, m=1.0, random_state=1)
    regressor.fit(X, y, accountant=accountant)
    certificate = regressor.certificate_
    assert certificate.label_bound == certificate.private_label_bound["bound"] == drawn[-1].bound in GRID
    assert "|y_i|" in certificate.private_label_bound["theorem"] and certificate.private_bound is None
    assert certificate.total_epsilon == 1.0 and [entry.cost for entry in accountant.ledger] == [(1.0, 0.0)]
    assert "drawn privately" in str(certificate)
    path = tmp_path / "model.json"
    dpcvx.save(regressor.model_, path)
    loaded = dpcvx.load(path)
    assert loaded.certificate.private_label_bound == certificate.private_label_bound and loaded.epsilon == 1.0


def test_private_row_and_label_bounds_share_norm_share_and_one_charge(tmp_path):
    X, y = _regression()
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(1.0), task="regression", lam=1e-2,
                               data_norm="private", norm_range=RANGE, label_bound="private", label_range=RANGE,
                               norm_share=0.2)
    model = learner.fit(X, y, 1.0, accountant=accountant, random_state=2)
    certificate = model.certificate
    assert certificate.private_bound["epsilon"] == certificate.private_label_bound["epsilon"] == pytest.approx(0.1)
    assert certificate.data_norm in GRID and certificate.label_bound in GRID
    assert certificate.total_epsilon == accountant.spent.epsilon == 1.0 and len(accountant.ledger) == 1
    assert len(certificate.privacy_curve.parts) == 3
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    data = json.loads(path.read_text())
    data["certificate"]["private_label_bound"]["bound"] = certificate.data_norm * 2  # not the stated B
    path.write_text(json.dumps(data))
    with pytest.raises(InputError):
        dpcvx.load(path)


@pytest.mark.parametrize("settings", [
    {"task": "regression", "label_bound": "private"},                       # no label_range
    {"task": "regression", "label_bound": 2.0, "label_range": RANGE},       # a range with a public B
    {"label_bound": "private", "label_range": RANGE},                       # a classification has no B
])
def test_a_refused_private_label_bound_spends_nothing(never_drawn, settings):
    X, y = _regression()
    labels = y if settings.get("task") == "regression" else np.where(y > 0, 1, -1)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0)
    learner = dpcvx.PrivateERM(loss=dpcvx.losses.huber_regression(1.0) if settings.get("task") else None,
                               lam=1e-2, data_norm=4.0, **settings)
    with pytest.raises(InputError, match="label"):
        learner.fit(X, labels, 1.0, accountant=accountant)
    assert accountant.ledger == []
    with pytest.raises(InputError):
        dpcvx.DPLinearRegression(label_bound="private", label_range=RANGE).fit(X, y, accountant=accountant)
    assert accountant.ledger == []
