"""benchmarks/honest.py on a tiny synthetic configuration: the cells, what each column offers, the oracle."""

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
    cell = {"oracle_grid": {"1e-05": [0.3, 0.1], "0.001": [0.2, 0.15], "0.1": [0.1, 0.4]}}
    assert honest.oracle(cell) == (1e-3, [0.2, 0.15])  # mean .175 beats .2 and .25 (not the best single fit)


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
    with pytest.raises(dpcvx.AssumptionError):  # full-data selection is proved for pure epsilon only
        dpcvx.tune(honest.DPGD(steps=20), data.X, data.y, grid, epsilon=1.0, delta=1e-6, procedure="full-data",
                   random_state=0)


@pytest.mark.slow
def test_tiny_run_fills_every_offered_column_and_renders_the_table(tmp_path):
    data = common.load_data("synthetic", "paper", max_rows=300)
    out = tmp_path / "honest_synthetic.json"
    result = honest.run_dataset(data, folds=2, draws=1, out=out, epsilons=(1.0,))
    assert json.loads(out.read_text())["folds"] == 2
    offered = {("0", "replace-one"): {"auto", "full-data", "split"},
               ("1/n^2", "replace-one"): {"auto", "split", "dpgd-nonprivate", "dpgd-private"},
               ("1/n^2", "add-remove"): {"auto", "dpgd-nonprivate"}}
    for key, cell in result["cells"].items():
        delta = "0" if cell["delta"] == 0 else "1/n^2"
        for column, errors in cell["errors"].items():
            expected = 2 if column in offered[(delta, cell["neighbours"])] else 0
            assert len(errors) == expected, (key, column)
            assert all(0.0 <= e <= 1.0 for e in errors)
        assert all(len(errors) == 2 for errors in cell["oracle_grid"].values())
    text = honest.render(tmp_path)
    assert "NOT met (2 in the smallest cell" in text
    assert text.count("| synthetic | eps=1,") == 3
    assert "(a) oracle, not private" in text
    assert honest.headline([result]).count("| synthetic | 1 |") == 1  # pure epsilon 1, replace-one only


def test_render_replaces_only_the_text_between_the_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- a -->\nold 0.25\n<!-- b -->\nafter\n")
    honest.between(page, ("<!-- a -->", "<!-- b -->"), "new 0.19\n")
    assert page.read_text() == "before\n<!-- a -->\nnew 0.19\n<!-- b -->\nafter\n"
