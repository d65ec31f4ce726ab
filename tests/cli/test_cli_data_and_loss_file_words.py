"""What docs/cli.md and ``--help`` say of DATA and of a loss file is what the command does: DATA may be a Parquet file
(the help called it a CSV file only), and a loss file that fails to run is an input error (exit 3), as is a
``loss(z)`` that raises when the verifier calls it (a LossDeclarationError; it was a refusal, exit 4)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpcvx.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("command", ["fit", "predict"])
def test_data_s_help_names_parquet(command):
    parser = build_parser()
    commands = next(action for action in parser._actions if action.choices and command in action.choices)
    data = next(action for action in commands.choices[command]._actions if action.dest == "data")
    assert "Parquet" in data.help and "CSV" in data.help


def test_a_loss_file_that_fails_to_run_exits_3_and_so_does_one_whose_loss_raises(tmp_path, capsys):
    """A loss that raises when called cannot be declared: a LossDeclarationError (an input error, exit 3), as the
    file that fails to run, where it was a refusal of the mechanism (exit 4); verify prints its FAIL row first."""
    broken = tmp_path / "broken.py"
    broken.write_text("def loss(z:\n")
    raising = tmp_path / "raising.py"
    raising.write_text("def loss(z):\n    raise RuntimeError('boom')\n")
    assert main(["verify", "--loss", str(broken), "--dim", "2"]) == 3
    assert main(["verify", "--loss", str(raising), "--dim", "2"]) == 3
    shown = capsys.readouterr()
    assert "the loss could not be declared: RuntimeError: boom" in shown.err
    assert re.search(r"^declaration +- +none +FAIL$", shown.out, flags=re.M)
    page = " ".join((ROOT / "docs" / "cli.md").read_text().split())
    assert "one that fails to run (a syntax error, an exception at import, no `loss`) an input error (exit 3)" in page
    assert "A `loss(z)` that cannot be declared" in page and "is an input error too (exit 3" in page
