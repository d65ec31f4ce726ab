"""The audits of AdaSSP, noisy gradient descent (gradient-ranged), split tuning and the kernel learners
(benchmarks/audit_new_mechanisms.py) stay under their claims, on the benchmark's own pairs and fits, at a few runs
per case (slow: about a minute)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import audit_new_mechanisms as audits  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("name, trials", [("adassp", 200), ("gradient", 200), ("split", 200), ("tddl", 40),
                                          ("tdil", 40), ("pinp", 40)])
def test_each_new_audit_gives_a_lower_bound_at_most_its_claim(name, trials):
    """Seeded (20); 95% confidence: a correct mechanism exceeds its claim with probability at most 5%, and
    these seeds are fixed, so a bound above the claim means the release path changed."""
    case = audits.CASES[name]
    report = audits.run_case(case, trials)
    assert (report.claimed_epsilon, report.claimed_delta) == (case.epsilon, case.delta)
    assert report.passed and report.epsilon_lower_bound <= case.epsilon


@pytest.mark.slow
def test_the_split_pair_catches_a_selection_at_ten_times_its_claim():
    """The power check (the AdaSSP one needs 600 runs per side: benchmarks/results/audit_new_mechanisms.md)."""
    report = audits.run_case(audits.CASES["split-broken"], 200)
    assert not report.passed and report.epsilon_lower_bound > 1.0


def test_the_pairs_differ_in_one_record_only():
    for pair in (audits.adassp_pair(), audits.gradient_pair(), audits.kernel_pair(), audits.split_pair()):
        differs = (pair.X_prime != pair.X).any(axis=1) | (pair.y_prime != pair.y)
        assert differs.sum() == 1


def test_the_benchmark_writes_its_table(tmp_path):
    out = tmp_path / "audit.md"
    assert audits.main(["--trials", "6", "--cases", "adassp,split", "--out", str(out)]) == 0
    text = out.read_text()
    assert "| AdaSSP (PrivateLinearRegression) | 1, 1e-05 |" in text and "split tuning" in text
