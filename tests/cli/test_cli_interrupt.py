"""An interrupt (Ctrl-C) of ``dpcvx fit`` after its model file was written says that the release is whole and its
budget spent, so that the user does not fit again and spend it twice (attacker probe P5 F7, session 70: the
command said only "dpcvx: interrupted" while --out held the complete release); before the file, no file and the
plain line."""

from __future__ import annotations

import numpy as np

import dpcvx
from dpcvx.cli import EXIT_INTERRUPTED, commands, main

OPTIONS = ["--target", "y", "--positive", "yes", "--numeric", "v:0:1", "--data-norm", "1", "--epsilon", "1",
           "--random-state", "3"]


def _data(tmp_path) -> str:
    v = np.random.default_rng(0).uniform(0, 1, 400)
    path = tmp_path / "rows.csv"
    path.write_text("v,y\n" + "\n".join(f"{value:.6f},{'yes' if value > 0.5 else 'no'}" for value in v) + "\n")
    return str(path)


def _interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_an_interrupt_after_the_model_is_written_says_it_is_whole_and_spent(tmp_path, monkeypatch, capsys):
    out = tmp_path / "m.json"
    monkeypatch.setattr(commands, "warn_if_encodable_constant", _interrupt)  # runs after the file is written
    assert main(["fit", _data(tmp_path), *OPTIONS, "--out", str(out)]) == EXIT_INTERRUPTED
    said = capsys.readouterr().err
    assert "dpcvx: interrupted after the model was written whole to" in said and str(out) in said
    assert "spend it again" in said
    dpcvx.load(out)  # whole


def test_an_interrupt_before_the_model_is_written_leaves_no_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "m.json"
    monkeypatch.setattr(commands, "write_model", _interrupt)
    assert main(["fit", _data(tmp_path), *OPTIONS, "--out", str(out)]) == EXIT_INTERRUPTED
    assert capsys.readouterr().err.strip().endswith("dpcvx: interrupted")
    assert not out.exists()

