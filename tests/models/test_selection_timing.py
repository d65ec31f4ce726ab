"""The duration of a full-data selection shows the realised number of runs K; dpcvx states it (theory 24.2).

dpcvx does not pad to a public schedule (K has no public upper bound and each fit's time depends on the
data), so the certificate's ``not_covered``, ``tune``'s docstring and the theory say that the duration
reveals K and that an observer who learns K loses the released model's guarantee (up to k e_Q)."""

from __future__ import annotations

import numpy as np

import dpcvx
from dpcvx.models.tuning import full_data


class Constant:
    predicts_per_row = True

    def __init__(self, label: int = 1):
        self.label = label

    def get_params(self, deep: bool = True) -> dict:
        return {"label": self.label}

    def set_params(self, **params) -> Constant:
        self.label = params.get("label", self.label)
        return self

    def fit(self, X, y, epsilon: float, random_state=None) -> Constant:
        return self

    def predict(self, X) -> np.ndarray:
        return np.full(X.shape[0], self.label)


class CountingBar:
    def __init__(self):
        self.count = 0

    def __enter__(self) -> CountingBar:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def update(self, n: int = 1) -> None:
        self.count += n


def test_the_progress_bar_counts_the_realised_runs_and_the_certificate_says_the_duration_is_not_covered(
        monkeypatch):
    bars: list[CountingBar] = []

    def progress(total, description, *, unit="step", verbose=False):
        bars.append(CountingBar())
        return bars[-1]

    monkeypatch.setattr(full_data, "progress", progress)
    X, y = np.zeros((200, 2)), np.ones(200, dtype=int)
    counts = []
    for seed in range(5):
        result = dpcvx.tune(Constant(), X, y, {"label": [1, -1]}, 1.0, random_state=seed, verbose=True)
        assert bars[-1].count == result.diagnostics_["runs"]  # the bar (and so the duration) shows K
        counts.append(result.diagnostics_["runs"])
    assert len(set(counts)) > 1  # K varies from run to run: the duration carries it
    record = result.certificate.to_dict()
    duration = [item for item in record["not_covered"] if "wall time" in item]
    assert len(duration) == 1 and "reveal K" in duration[0] and "k e_Q" in duration[0]
    assert "not covered: the duration" in str(result.certificate)
    assert "reveal K" in dpcvx.tune.__doc__ and "k e_Q" in dpcvx.tune.__doc__
