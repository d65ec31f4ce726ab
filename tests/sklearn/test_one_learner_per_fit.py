"""Each estimator fit builds its learner once (docs/architecture.md, "The flow of one fit", step 1): the entry's
checks, ``column_statistics="auto"``'s resolution, the plan and the release take the one learner built from the
public parameters. A throwaway learner per check (three PrivateERM per DPLogisticRegression fit, where the benchmark
benchmarks/results/calls_per_fit.md records one) came back twice unnoticed, as no test counted them."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.models import erm, linear_regression


@pytest.fixture(scope="module")
def rows() -> dict[str, np.ndarray]:
    """6,000 x 6 rows: enough for column_statistics="auto" to draw the ranges at epsilon 1 (its public rule)."""
    X, y = synthetic_classification(n=6000, d=6, random_state=0)
    rng = np.random.default_rng(1)
    Xr = X / np.linalg.norm(X, axis=1).max()
    return {"X": X, "binary": (y > 0).astype(int), "three": rng.integers(0, 3, size=X.shape[0]), "Xr": Xr,
            "target": np.clip(Xr @ np.arange(1, 7) / 6 + 0.1 * rng.standard_normal(X.shape[0]), -1, 1)}


def _counter(monkeypatch: pytest.MonkeyPatch, cls: type) -> list[int]:
    """A count of ``cls``'s constructions (its signature kept: get_params reads it)."""
    built = [0]
    init = cls.__init__

    @functools.wraps(init)
    def counted(self: Any, *args: Any, **kwargs: Any) -> None:
        built[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(cls, "__init__", counted)
    return built


CLASSIFIERS = {
    "default (auto draws the ranges)": (lambda: dpcvx.DPLogisticRegression(), "binary"),
    "lam 1e-3": (lambda: dpcvx.DPLogisticRegression(lam=1e-3), "binary"),
    "no column statistics": (lambda: dpcvx.DPLogisticRegression(column_statistics=False), "binary"),
    "column sums": (lambda: dpcvx.DPLogisticRegression(column_statistics=True), "binary"),
    "three classes": (lambda: dpcvx.DPLogisticRegression(classes=(0, 1, 2)), "three"),
    "balanced": (lambda: dpcvx.DPLogisticRegression(class_weight="balanced"), "binary"),
    "public prior": (lambda: dpcvx.DPLogisticRegression(class_prior=(0.4, 0.6)), "binary"),
    "private bound": (lambda: dpcvx.DPLogisticRegression(data_norm="private", norm_range=(0.5, 64)), "binary"),
    "huber svm": (lambda: dpcvx.DPHuberSVM(), "binary"),
}


@pytest.mark.parametrize("case", list(CLASSIFIERS))
def test_a_classifier_fit_builds_one_learner(rows, monkeypatch, case):
    make, labels = CLASSIFIERS[case]
    built = _counter(monkeypatch, erm.PrivateERM)
    estimator = make().set_params(random_state=0).fit(rows["X"], rows[labels])
    assert built[0] == 1
    assert estimator.certificate_ is not None


def test_default_classifier_draws_the_ranges_it_resolved_on_its_one_learner(rows, monkeypatch):
    built = _counter(monkeypatch, erm.PrivateERM)
    estimator = dpcvx.DPLogisticRegression(random_state=0).fit(rows["X"], rows["binary"])
    assert built[0] == 1
    assert estimator.certificate_.column_statistics is not None  # "auto" drew the ranges at this n


def test_a_plan_builds_one_learner_and_its_fits_none(rows, monkeypatch):
    built = _counter(monkeypatch, erm.PrivateERM)
    plan = dpcvx.DPLogisticRegression(column_statistics=False).plan(rows["X"], rows["binary"])
    assert built[0] == 1
    plan.fit(rows["X"], rows["binary"], random_state=0)
    plan.fit(rows["X"], rows["binary"], random_state=1)
    assert built[0] == 1  # each fit checks the plan's learner again


REGRESSORS = {
    "huber": lambda: dpcvx.DPHuberRegressor(column_statistics=False),
    "huber, output": lambda: dpcvx.DPHuberRegressor(column_statistics=False, mechanism="output"),
    "least squares on a ball": lambda: dpcvx.DPLinearRegression(mechanism="objective", weight_bound=5.0),
}


@pytest.mark.parametrize("case", list(REGRESSORS))
def test_a_regressor_fit_builds_one_learner(rows, monkeypatch, case):
    """Its entry's settings check is the learner (given the release's settings), which the plan and the fit take;
    the noise warning's lam advice builds one only when it is given."""
    built = _counter(monkeypatch, erm.PrivateERM)
    REGRESSORS[case]().set_params(random_state=0).fit(rows["Xr"], rows["target"])
    assert built[0] == 1


def test_an_adassp_fit_builds_its_learner_once(rows, monkeypatch):
    built = _counter(monkeypatch, linear_regression.PrivateLinearRegression)
    dpcvx.DPLinearRegression(delta=1e-6, random_state=0).fit(rows["Xr"], rows["target"])
    assert built[0] == 1


@pytest.mark.parametrize("case", list(REGRESSORS))
def test_a_regressor_plan_builds_one_learner_and_its_fits_none(rows, monkeypatch, case):
    built = _counter(monkeypatch, erm.PrivateERM)
    plan = REGRESSORS[case]().plan(rows["Xr"], rows["target"])
    assert built[0] == 1
    plan.fit(rows["Xr"], rows["target"], random_state=0)
    plan.fit(rows["Xr"], rows["target"], random_state=1)
    assert built[0] == 1  # each fit checks the plan's learner again


def test_an_adassp_plan_builds_its_learner_once(rows, monkeypatch):
    """AdaSSP's learner once, and the PrivateERM holding the shared settings for their check once, at the plan: its
    fits change only the seed (it was built again for each run of dpcvx.tune)."""
    built = _counter(monkeypatch, linear_regression.PrivateLinearRegression)
    settings = _counter(monkeypatch, erm.PrivateERM)
    plan = dpcvx.DPLinearRegression(delta=1e-6).plan(rows["Xr"], rows["target"])
    plan.fit(rows["Xr"], rows["target"], random_state=0)
    plan.fit(rows["Xr"], rows["target"], random_state=1)
    assert (built[0], settings[0]) == (1, 1)
