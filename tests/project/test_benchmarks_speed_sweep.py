"""Smoke test of benchmarks/speed_sweep.py at tiny sizes (the recorded run is in benchmarks/results)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import speed_sweep


def test_median_interval_is_the_binomial_order_statistic_interval():
    values = [float(v) for v in range(1, 10)]  # k = 9: ranks 2 and 8 (P(B <= 1) = 10/512 <= 0.025 < P(B <= 2))
    assert speed_sweep.median_interval(values) == (5.0, 2.0, 8.0)
    assert speed_sweep.median_interval([3.0, 1.0, 2.0]) == (2.0, 1.0, 3.0)  # k = 3: the whole range


@pytest.mark.slow
def test_speed_sweep_runs_and_records_every_case(tmp_path):
    output = speed_sweep.main(["--sizes", "2000x5", "--memmap", "2000x5", "--sparse", "2000x300", "--pairs", "1",
                               "--out", str(tmp_path), "--tag", "tiny", "--tmp", str(tmp_path)])
    assert [case["kind"] for case in output["cases"]] == ["dense", "memmap", "sparse", "sparse random order",
                                                           "sparse canonical"]
    for case in output["cases"]:
        assert np.isfinite(case["ratio"]["median"]) and case["ratio"]["median"] > 0
        assert all(fit["grad_max"] >= 0 for fit in case["fits"].values())
    recorded = json.loads((tmp_path / "tiny.json").read_text())
    assert recorded["pairs"] == 1
    assert "| dense dpcvx / sklearn | 2,000 x 5 |" in (tmp_path / "tiny.md").read_text()


@pytest.mark.slow
def test_speed_sweep_runs_only_the_cases_asked_for(tmp_path):
    output = speed_sweep.main(["--cases", "sparse", "--sparse", "600x200", "--pairs", "1",
                               "--out", str(tmp_path), "--tag", "one"])
    assert [case["kind"] for case in output["cases"]] == ["sparse", "sparse random order", "sparse canonical"]
    text = (tmp_path / "one.md").read_text()
    assert "| sparse dpcvx / sklearn | 600 x 200 |" in text
    assert "| sparse canonical dpcvx / sklearn | 600 x 200 |" in text


def test_shuffled_rows_keep_each_row_and_leave_its_order_random():
    X, _ = speed_sweep.sparse_data(300, 500)
    shuffled = speed_sweep.shuffled_rows(X)
    assert (shuffled != X).nnz == 0 and not shuffled.has_sorted_indices
    np.testing.assert_array_equal(shuffled.indptr, X.indptr)
    descents = np.diff(shuffled.indices)[np.diff(np.repeat(np.arange(300), np.diff(X.indptr))) == 0] < 0
    assert 0.3 < descents.mean() < 0.7  # neither the generator's decreasing order nor sorted


@pytest.mark.slow
def test_csr_check_benchmark_agrees_on_every_check_and_form(tmp_path):
    from benchmarks import csr_check

    output = csr_check.main(["--quick", "--repeats", "1", "--out", str(tmp_path), "--tag", "tiny"])
    assert [row["form"] for row in output["rows"]] == ["decreasing (as generated)", "random order", "canonical"]
    for row in output["rows"]:  # the generator sums its repeats: no check finds one
        assert row["repeats"] == dict.fromkeys(csr_check.CHECKS, False)
        assert row["fit_ms"] > 0 and row["fit_page_faults"] >= 0
    assert "| random order |" in (tmp_path / "tiny.md").read_text()
