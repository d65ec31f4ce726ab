"""benchmarks/accounting_cli.py measures what its page says, so its results cannot rot."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import accounting_cli  # noqa: E402


def test_the_accountant_part_matches_the_independent_closed_form():
    run = accounting_cli.accountant_times()
    exact = accounting_cli.closed_form(run["delta"])
    assert run["delta"] == pytest.approx(accounting_cli.CHARGES * accounting_cli.DELTA_EACH, rel=1e-12)
    assert exact <= run["epsilon"] <= exact * (1 + accounting_cli.RELATIVE_TARGET)
    assert run["second_spent"] < accounting_cli.SPENT_TARGET_S


@pytest.mark.slow
def test_the_benchmark_writes_its_tables(tmp_path):
    result = accounting_cli.main(["--repeats", "1", "--out", str(tmp_path)])
    text = (tmp_path / "accounting_cli.md").read_text()
    assert "| `dpcvx --help` |" in text and "| `import numpy` |" in text and "closed form" in text
    assert set(result["help_median_seconds"]) == set(accounting_cli.COMMANDS)
