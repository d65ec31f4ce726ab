"""The recorded benchmark results say what made them (session 67's audit P5, F2 and F6).

- F2: docs/results.md quoted adult/private and kdd/private rows recorded with the loaders before issue 15's fix
  (45,222 x 106 and 70,000 x 123; today 48,842 x 114 and 70,000 x 126) and did not say so. The page now labels a
  recorded run's rows whose data shape is not today's loaders' (benchmarks.common.stale_loads).
- F6: benchmarks/results/scale_sparse.md timed a private fit whose release is noise (training accuracy 0.50) and
  docs/scale.md quoted the time alone. Every timed fit of the script now carries its accuracy, and the script
  times fits at the public rule lam="auto" too.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import common, report, scale_sparse  # noqa: E402

K10 = ROOT / "benchmarks" / "results" / "reproduce_k10.json"


def test_results_page_labels_rows_of_an_earlier_loader():
    run = json.loads(K10.read_text())
    assert set(common.stale_loads(run["data"])) == {"adult/private", "kdd/private"}
    text = "\n".join(report.reproduction_readme_section(run, "benchmarks/results/reproduce_k10.json"))
    assert "adult/private had n = 45222, d = 106 (today 48842 x 114)" in text
    assert "| adult/private † | LR |" in text and "| kdd/private † | Huber |" in text
    assert "| adult/paper | LR |" in text  # paper mode's shape is today's: no mark
    assert "at commit e6f5ab907" in text


def test_a_run_at_todays_shapes_carries_no_label():
    run = json.loads(K10.read_text())
    current = copy.deepcopy(run)
    for key, (n, d) in common.LOADED_SHAPES.items():
        current["data"][key].update(n=n, d=d)
    assert common.stale_loads(current["data"]) == {}
    assert "†" not in "\n".join(report.reproduction_readme_section(current, "reproduce_k10.json"))


@pytest.mark.slow
@pytest.mark.data("adult", "kdd")
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.PaperModeWarning")  # the paper mode's own note, by design
def test_declared_shapes_are_the_loaders():
    for key, shape in common.LOADED_SHAPES.items():
        name, mode = key.split("/")
        assert common.load_data(name, mode, seed=0).X.shape == shape, key


def test_scale_sparse_records_accuracy_beside_every_time():
    result = scale_sparse.table(1200, 100, 1e-6)
    fits = [row["fit"] for row in result["rows"]]
    assert fits[:2] == ["scikit-learn lbfgs (tol 1e-8)", "dpcvx non-private"]
    assert [row for row in result["rows"] if row.get("lam_rule") == "auto"]  # the public rule is timed too
    for row in result["rows"]:
        assert 0.0 <= row["training_accuracy"] <= 1.0 and row["seconds"] > 0, row
    table = "\n".join(scale_sparse.markdown_table(result))
    assert "training accuracy" in table and table.count("(auto)") == 2
