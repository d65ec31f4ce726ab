"""benchmarks/honest.py on a tiny synthetic configuration: the cells, what each column offers, the oracle,
the per-unit records a one-column rerun merges into, and the rendered checks."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import dpcvx  # noqa: E402
from benchmarks import common, honest  # noqa: E402


def test_oracle_is_the_grid_lam_with_the_lowest_mean_test_error():
    grids = [{"1e-05": 0.3, "0.001": 0.2, "0.1": 0.1}, {"1e-05": 0.1, "0.001": 0.15, "0.1": 0.4}]
    cell = {"units": [{"oracle_grid": grid} for grid in grids]}
    assert honest.oracle(cell) == (1e-3, [0.2, 0.15])  # mean .175 beats .2 and .25 (not the best single fit)


def test_a_failed_fit_is_counted_never_averaged_and_fails_the_auto_check():
    units = [{"majority": 0.25, "oracle_grid": {"1e-05": None, "0.001": 0.2}, "auto": None},
             {"majority": 0.25, "oracle_grid": {"1e-05": 0.1, "0.001": 0.2}, "auto": 0.2}]
    cell = {"epsilon": 0.1, "delta": 0.0, "neighbours": "replace-one", "units": units}
    assert honest.oracle(cell) == (1e-3, [0.2, 0.2])  # 1e-5 released nothing once: not the oracle
    summary = honest.summary(cell)
    assert summary["failed"]["auto"] == 1 and list(summary["errors"]["auto"]) == [0.2] and "gap" not in summary
    lines = honest.verdicts([{"name": "adult", "cells": {"eps=0.1, delta=0, replace-one": cell}}])
    assert "NOT met in adult eps=0.1, delta=0, replace-one (1 fits failed)" in lines[1]


def test_a_lam_that_predicts_the_majority_recovers_none_of_the_gap():
    majority = np.full(50, 0.2478)
    best = majority - 0.0125 + np.random.default_rng(1).normal(0, 0.005, 50)
    share, low, high = honest.gap_recovered(majority, best, majority.copy())
    assert share == pytest.approx(0.0) and low <= 0.0 <= high
    share, low, high = honest.gap_recovered(majority, best, best.copy())  # the oracle itself: all of it
    assert share == pytest.approx(1.0) and low == pytest.approx(1.0)


def test_only_the_gaussian_mechanisms_are_offered_under_add_remove():
    cells = honest.settings(1000, (0.5,))
    assert cells == [(0.5, 0.0, "replace-one"), (0.5, 1e-6, "replace-one"), (0.5, 1e-6, "add-remove")]


def test_dpgd_is_tunable_by_algorithm_4_with_delta_and_refused_by_full_data_selection():
    data = common.load_data("synthetic", "paper", max_rows=600)
    grid = {"step_size": [1.0, 4.0]}
    result = dpcvx.tune(honest.DPGD(steps=20), data.X, data.y, grid, epsilon=1.0, delta=1e-6, procedure="split",
                        random_state=0)
    assert result.params["step_size"] in (1.0, 4.0)
    assert set(np.unique(result.model.predict(data.X))) <= {-1.0, 1.0}
    with pytest.raises(dpcvx.AssumptionError):  # full-data selection needs a registered Renyi curve
        dpcvx.tune(honest.DPGD(steps=20), data.X, data.y, grid, epsilon=1.0, delta=1e-6, procedure="full-data",
                   random_state=0)


@pytest.mark.slow
def test_tiny_run_fills_every_offered_column_and_a_one_column_rerun_pairs_with_it(tmp_path):
    data = common.load_data("synthetic", "paper", max_rows=300)
    out = tmp_path / "honest_synthetic.json"
    result = honest.run_dataset(data, folds=2, draws=2, out=out, epsilons=(1.0,))
    assert json.loads(out.read_text())["draws"] == 2
    offered = {("0", "replace-one"): {"auto", "full-data", "split"},
               ("1/n^2", "replace-one"): {"auto", "full-data", "split", "dpgd-nonprivate", "dpgd-private"},
               ("1/n^2", "add-remove"): {"auto", "dpgd-nonprivate"}}
    for key, cell in result["cells"].items():
        delta = "0" if cell["delta"] == 0 else "1/n^2"
        assert sorted((u["fold"], u["draw"]) for u in cell["units"]) == [(0, 0), (0, 1), (1, 0), (1, 1)]
        for unit in cell["units"]:
            measured = {c for c in honest.COLUMNS[1:] if c in unit}
            assert measured == offered[(delta, cell["neighbours"])], key
            assert all(0.0 <= unit[c] <= 1.0 for c in measured)
            assert len(unit["oracle_grid"]) == len(honest.ORACLE_GRID)
            assert ("oracle_grid_run" in unit) == (delta == "0")  # the oracle at e / 3: pure cells
    # (b) alone, merged: the same seeds give the same errors, and the other columns stay
    before = json.loads(out.read_text())
    for cell in before["cells"].values():
        for unit in cell["units"]:
            unit["auto"] = -1.0
    merged = honest.run_dataset(data, folds=2, draws=2, out=out, epsilons=(1.0,), columns=("auto",),
                                previous=json.loads(json.dumps(before)))
    for key, cell in merged["cells"].items():
        for unit, old in zip(cell["units"], result["cells"][key]["units"], strict=True):
            assert unit == old
    text = honest.render(tmp_path)
    assert "smallest cell 4: NOT met" in text
    assert text.count("| synthetic | eps=1,") == 3 + 3 + 1  # errors, differences, the e / 3 table (pure only)
    assert "(a) oracle, not private" in text and "oracle at e / 3, not private" in text
    assert honest.headline([merged]).count("| synthetic | 1 |") == 1  # pure epsilon 1, replace-one only


def test_render_replaces_only_the_text_between_the_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- a -->\nold 0.25\n<!-- b -->\nafter\n")
    honest.between(page, ("<!-- a -->", "<!-- b -->"), "new 0.19\n")
    assert page.read_text() == "before\n<!-- a -->\nnew 0.19\n<!-- b -->\nafter\n"


@pytest.mark.slow
def test_a_delta_only_rerun_measures_the_delta_cells_alone_with_their_recorded_seeds():
    """After a change of the Gaussian objective's calibration (ae8b1452, the one-sign profile) only the delta > 0
    cells move; ``delta_only`` re-measures them with the seeds of a full run (each cell keeps its index) and
    leaves the pure cells' units as recorded."""
    data = common.load_data("synthetic", "paper", max_rows=200)
    full = honest.run_dataset(data, folds=2, draws=1, epsilons=(1.0,), columns=("auto",))
    recorded = json.loads(json.dumps(full))
    for cell in recorded["cells"].values():
        for unit in cell["units"]:
            unit["auto"] = -1.0  # a stale value: a rerun cell overwrites it, a pure cell keeps it
    merged = honest.run_dataset(data, folds=2, draws=1, epsilons=(1.0,), columns=("auto",), previous=recorded,
                                delta_only=True)
    for key, cell in merged["cells"].items():
        for unit, fresh in zip(cell["units"], full["cells"][key]["units"], strict=True):
            assert unit["seed"] == fresh["seed"]
            assert unit["auto"] == (-1.0 if cell["delta"] == 0 else fresh["auto"]), key
    alone = honest.run_dataset(data, folds=2, draws=1, epsilons=(1.0,), columns=("auto",), delta_only=True)
    assert sorted(alone["cells"]) == sorted(key for key, cell in full["cells"].items() if cell["delta"] > 0)


@pytest.mark.slow  # 4 s under load: the run record reads the machine
def test_the_command_line_delta_only_rerun_keeps_the_recorded_pure_cells(tmp_path, monkeypatch):
    """``--delta-only`` merges into the recorded file (as a column subset does), so the pure cells stay."""
    recorded = {"dataset": "d", "folds": 5, "draws": 1, "cells": {"eps=1, delta=0, replace-one": {"units": []}}}
    (tmp_path / "honest_adult.json").write_text(json.dumps(recorded))
    seen: dict = {}

    def fake_run(data, folds, draws, **kwargs):
        seen.update(kwargs, draws=draws)
        return kwargs["previous"]

    monkeypatch.setattr(common, "load_data", lambda *a, **k: type("D", (), {"description": "d"})())
    monkeypatch.setattr(honest, "run_dataset", fake_run)
    monkeypatch.setattr(honest, "render", lambda *a, **k: "")
    honest.main(["--datasets", "adult", "--delta-only", "--draws", "20", "--out", str(tmp_path), "--no-docs"])
    assert seen["delta_only"] is True and seen["draws"] == 1  # the recorded units, no more
    assert "eps=1, delta=0, replace-one" in seen["previous"]["cells"]
