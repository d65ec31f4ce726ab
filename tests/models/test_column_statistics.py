"""Opt-in private column statistics (dpcvx.models.column_statistics; docs/theory.md, section 33)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from scipy import sparse

import dpcvx
from dpcvx.data.standardiser import ColumnStandardiser, sums_map
from dpcvx.exceptions import InputError
from dpcvx.models import column_statistics
from dpcvx.models.column_statistics import LATTICE_BITS, StatisticsPlan, _contributions, release_column_statistics
from dpcvx.privacy.exact_sampling import discrete_laplace_pmf, integer_source


def learner(**settings: object) -> dpcvx.PrivateERM:
    base: dict = {"loss": "logistic", "lam": 1e-2, "data_norm": 1.0, "fit_intercept": True, "classes": (0, 1),
                  "column_statistics": True}
    return dpcvx.PrivateERM(**{**base, **settings})


@pytest.fixture
def data() -> tuple[np.ndarray, np.ndarray]:
    # columns in a small part of their public range: centres about 0.3, spreads about 0.02
    rng = np.random.default_rng(5)
    X = 0.3 + 0.02 * rng.standard_normal((4000, 3))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(X[:, 0] - 0.3) / 0.01))).astype(int)
    return X, y


# -- the mechanism: sensitivity and noise law, exact --------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 2, 5, 30])
def test_no_pair_of_records_moves_the_sums_by_more_than_the_sensitivity(d: int) -> None:
    plan = StatisticsPlan(eps_statistics=1.0, eps_fit=1.0, delta=0.0, n=2, d=d, norm=1.0)
    rng = np.random.default_rng(d)
    spread = np.ones(d) / np.sqrt(d)
    extreme = [spread, -spread, np.eye(d)[0], -np.eye(d)[-1], np.nextafter(spread, 2.0)]  # the last just beyond R
    random = rng.standard_normal((200, d))
    random /= np.linalg.norm(random, axis=1, keepdims=True) * rng.uniform(0.5, 1.0, (200, 1))  # norms up to 2
    rows = np.vstack(extreme + list(random))
    contributions = _contributions(rows, plan)
    assert np.abs(contributions).sum(axis=1).max() <= plan.sensitivity / 2
    distances = np.abs(contributions[:, None, :] - contributions[None, :, :]).sum(axis=2)
    assert distances.max() <= plan.sensitivity
    # nor is it slack by more than the triangle inequality through 0 costs: the rows +-R (1, .., 1) / sqrt(d) alone
    # move the sums by about 2^(B+1) sqrt(d), at least 0.45 of 2 (2^B sqrt(d) + 2^B + 2 d)
    assert distances[0, 1] >= 0.45 * plan.sensitivity


def test_the_noise_is_drawn_at_the_sensitivity_over_eps_s_exactly(data, monkeypatch) -> None:
    X, y = data
    scales = []

    def recording(scale, size, source):
        scales.append((scale, size))
        return np.zeros(size, dtype=np.int64)

    monkeypatch.setattr(column_statistics, "discrete_laplace_array", recording)
    model = learner(column_statistics_share=0.2).fit(X, y, 2.0, random_state=0)
    record = model.certificate.column_statistics
    assert record["epsilon"] == pytest.approx(0.4) and record["total_epsilon"] == 2.0
    d = X.shape[1]
    sensitivity = 2 * (int(np.floor(np.sqrt(4**LATTICE_BITS * d))) + 2 * d + 2**LATTICE_BITS)
    assert record["sensitivity"] == sensitivity
    assert scales == [(Fraction(sensitivity) / Fraction(record["epsilon"]), 2 * d)]
    assert record["sums"] == _contributions(X, StatisticsPlan(0.4, 1.6, 0.0, len(y), d, 1.0)).sum(axis=0).tolist()


@pytest.mark.slow
def test_the_noise_law_is_the_discrete_laplace_of_that_scale() -> None:
    # seeded audit: the released sums minus the true ones over 3000 releases of one column, at a small scale
    plan = StatisticsPlan(eps_statistics=1.0, eps_fit=1.0, delta=0.0, n=1, d=1, norm=1.0)
    small = StatisticsPlan(eps_statistics=float(plan.sensitivity) / 2.0, eps_fit=1.0, delta=0.0, n=1, d=1, norm=1.0)
    assert small.scale == 2
    X = np.array([[0.25]])
    truth = _contributions(X, small).sum(axis=0)
    source = integer_source(np.random.default_rng(3))
    noise = np.array([release_column_statistics(X, small, source) - truth for _ in range(3000)]).ravel()
    values = np.arange(-15, 16)
    observed = np.array([np.mean(noise == v) for v in values])
    for scale, passes in ((2.0, True), (4.0, False)):  # the right law, then a law twice as wide
        expected = discrete_laplace_pmf(values, scale)
        statistic = 6000 * float(np.sum((observed - expected) ** 2 / expected))
        assert (statistic < 70) == passes, (scale, statistic)  # chi-square, 31 cells: P[> 70] < 1e-4


def test_the_map_is_a_function_of_the_released_sums_and_public_numbers(data) -> None:
    X, y = data
    model = learner().fit(X, y, 1.0, random_state=1)
    record = model.certificate.column_statistics
    plan = StatisticsPlan(record["epsilon"], model.certificate.epsilon, 0.0, record["n"], X.shape[1], 1.0)
    assert model.rows.feature_map == sums_map(np.array(record["sums"]), plan.n, plan.norm, plan.scale, LATTICE_BITS)
    # the released centres lie within 4 noise standard deviations of the data's (0.3); the spreads (0.02) are below
    # the variance floor (twice the second moment's noise sd), so the floor sets them: the narrow columns are
    # widened, never by more than the floor allows
    noise = np.sqrt(2) * float(plan.scale) * 2.0**-LATTICE_BITS / plan.n
    assert np.all(np.abs(model.rows.feature_map.centre - X.mean(axis=0)) < 4 * noise)
    assert np.allclose(model.rows.feature_map.multiplier, 0.5 / np.sqrt(3 * 2 * noise))
    assert np.all(model.rows.feature_map.multiplier > 1)


# -- one charge, none when refused --------------------------------------------------------------------------------


def test_one_charge_one_certificate_and_a_file_that_round_trips(data, tmp_path) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    model = learner().fit(X, y, 1.0, random_state=2, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    certificate = model.certificate
    assert certificate.total_epsilon == 1.0 and certificate.epsilon == pytest.approx(0.9)
    assert "private column statistics" in str(certificate) and "eps_s = 0.1" in str(certificate)
    assert [part.epsilon for part in certificate.privacy_curve.parts] == pytest.approx([0.1, 0.9])
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    loaded = dpcvx.load(path)
    assert loaded.certificate.column_statistics == certificate.column_statistics
    assert np.array_equal(loaded.decision_function(X), model.decision_function(X))
    saved = json.loads(path.read_text())
    saved["certificate"]["column_statistics"]["sensitivity"] //= 2  # a halved sensitivity: edited
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="sensitivity"):
        dpcvx.load(path)
    saved["certificate"]["column_statistics"]["sensitivity"] *= 2
    saved["certificate"]["column_statistics"]["sums"][0] = 10**30  # numpy's OverflowError before (an audit)
    path.write_text(json.dumps(saved))
    with pytest.raises(InputError, match="sums holds an integer outside int64"):
        dpcvx.load(path)


@pytest.mark.parametrize(("settings", "fit", "message"), [
    ({"clip": False}, {}, "clip=False"),
    ({"feature_map": ColumnStandardiser([0.0] * 3, [1.0] * 3, 1.0), "data_norm": None}, {}, "feature_map"),
    ({"data_norm": "private", "norm_range": (0.5, 4.0)}, {}, "private bound"),
    ({}, {"neighbours": "add-remove", "delta": 1e-6, "n_public": 4000}, "replace-one"),
    ({"column_statistics_share": 1.5}, {}, "share"),
])
def test_refusals_spend_nothing_and_draw_nothing(data, monkeypatch, settings, fit, message) -> None:
    X, y = data
    monkeypatch.setattr(column_statistics, "discrete_laplace_array", lambda *a: pytest.fail("statistics drawn"))
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=message):
        learner(**settings).fit(X, y, 1.0, accountant=accountant, **fit)
    assert accountant.ledger == []


def test_a_sparse_input_is_refused_before_the_charge(data) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match="dense"):
        learner().fit(sparse.csr_matrix(X), y, 1.0, accountant=accountant)
    assert accountant.ledger == []


def test_off_by_default_and_the_plain_fit_records_nothing(data) -> None:
    X, y = data
    assert dpcvx.PrivateERM().column_statistics is False
    model = learner(column_statistics=False).fit(X, y, 1.0, random_state=0)
    assert model.certificate.column_statistics is None and model.rows.feature_map is None


def test_the_estimator_draws_them_inside_its_fit_with_one_charge(data) -> None:
    X, y = data
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    estimator = dpcvx.DPLogisticRegression(column_statistics=True, random_state=0).fit(X, y, accountant=accountant)
    assert len(accountant.ledger) == 1 and accountant.ledger[0].cost.epsilon == 1.0
    assert estimator.certificate_.column_statistics["epsilon"] == pytest.approx(0.1)
    assert isinstance(estimator.model_.rows.feature_map, ColumnStandardiser)


def test_statistics_that_are_mostly_noise_leave_the_rows_nearly_as_they_came() -> None:
    # n eps_s / d tiny: the released means are shrunk towards 0 by k = (1/3) / (1/3 + tau^2), and no column is
    # narrowed (the variance floor alone would divide a column by 10)
    plan = StatisticsPlan(eps_statistics=0.1, eps_fit=0.9, delta=0.0, n=400, d=30, norm=2.0)
    tau = np.sqrt(2) * float(plan.scale) * 2.0**-LATTICE_BITS / plan.n
    assert tau > 0.4
    released = np.concatenate([np.full(30, 2**LATTICE_BITS * plan.n), np.zeros(30)]).astype(np.int64)  # means 1
    mapped = sums_map(released, plan.n, plan.norm, plan.scale, LATTICE_BITS)
    assert np.allclose(mapped.centre, 2.0 * (1 / 3) / (1 / 3 + tau * tau))
    assert np.all(mapped.multiplier == 1.0)
