"""`--strict` without `--allow-estimates` would change nothing (estimates are refused already): refused, a usage
error (exit 2: wrong whatever the data, docs/cli.md),
by `verify` and by `fit` (whose estimators took it and did nothing with it), before any file is read."""

import pytest

from dpcvx.cli import main


@pytest.mark.parametrize("command", [["verify", "--loss", "logistic"],
                                     ["fit", "no-such-file.csv", "--target", "y", "--positive", "1", "--negative", "0",
                                      "--epsilon", "1", "--out", "m.json"]])
def test_strict_alone_is_refused(command, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--strict"]) == 2
    error = capsys.readouterr().err
    assert "--strict refuses estimated constants that --allow-estimates would accept" in error
    assert not (tmp_path / "m.json").exists()
