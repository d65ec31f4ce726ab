"""Text the command line takes from its arguments, its files' names and a model file's strings (sixty-third session).

- A byte that is not UTF-8 in an option's text reads as a lone surrogate, which no model file can hold: ``--positive``,
  ``--names`` or ``--missing`` with one were fitted, noise drawn, and the model refused at save (exit 3). Each text
  option is refused as it is parsed (exit 2), before any work; a file's name may hold any byte.
- A file name with such a byte (in its directory) crashed pyarrow's reader, which encodes the name as UTF-8 (a bare
  UnicodeEncodeError, exit 1); Python opens it, so the fit is the one of the same file under a plain name.
- A model file's text (a class name) reached a terminal as it was: an escape sequence in it could clear the lines
  around it, the report's CONDITIONAL line among them. The report writes control characters as escapes, and so does
  predict on a terminal (a pipe or --out gets the predictions as they are).
"""

import os
import sys

import numpy as np
import pytest
from csv_files import write

from dpcvx.cli import main

pytest.importorskip("pyarrow")  # the Parquet case and pyarrow's CSV reader

BAD = os.fsdecode(b"\xff")  # a byte that is not UTF-8, as Python reads it from an argument: "\udcff"


def _table(path, labels=("yes", "no"), first="a"):
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(300, 2))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=300) > 0, labels[0], labels[1])
    return write(path, [first, "b", "y"], [[*row, label] for row, label in zip(X.tolist(), y, strict=True)])


FIT = ["--target", "y", "--numeric", "a:-1:1", "--numeric", "b:-1:1", "--data-norm", "1", "--epsilon", "1",
       "--random-state", "5"]


@pytest.mark.parametrize("options, option", [
    (["--positive", f"ye{BAD}s"], "--positive"),
    (["--positive", "yes", "--negative", f"n{BAD}o"], "--negative"),
    (["--classes", f"yes,{BAD}no"], "--classes"),
    (["--class", "yes", "--class", f"n{BAD}o"], "--class"),
    (["--positive", "yes", "--missing", BAD, "--impute", "a=0"], "--missing"),
    (["--positive", "yes", "--impute", f"a{BAD}=0"], "--impute"),
    (["--positive", "yes", "--no-header", "--skip-lines", "1", "--names", f"a,b{BAD},y"], "--names"),
])
def test_option_text_that_is_not_utf8_is_refused_before_the_fit(tmp_path, monkeypatch, capsys, options, option):
    data = _table(tmp_path / "t.csv")
    monkeypatch.chdir(tmp_path)
    assert main(["fit", data, *FIT, *options, "--out", "m.json"]) == 2  # a usage error; the fit's refusal was 3
    error = capsys.readouterr().err
    assert f"argument {option}:" in error and "not UTF-8" in error, error
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("kind", ["csv", "csv by chunks", "parquet"])
def test_a_file_name_with_a_byte_that_is_not_utf8_is_read(tmp_path, monkeypatch, capsys, kind):
    import pandas as pd

    plain = _table(tmp_path / "t.csv")
    odd = tmp_path / f"d{BAD}"
    odd.mkdir()
    if kind == "parquet":
        source = tmp_path / "t.parquet"
        pd.read_csv(plain).to_parquet(source)
        data = odd / "t.parquet"
    else:
        source, data = tmp_path / "t.csv", odd / "t.csv"
    data.write_bytes(source.read_bytes())
    chunks = ["--chunk-rows", "1000"] if kind == "csv by chunks" else []
    monkeypatch.chdir(tmp_path)
    assert main(["fit", str(source), *FIT, "--positive", "yes", *chunks, "--out", "plain.json"]) == 0
    assert main(["fit", str(data), *FIT, "--positive", "yes", *chunks, "--out", "odd.json"]) == 0, \
        capsys.readouterr().err
    assert (tmp_path / "odd.json").read_bytes() == (tmp_path / "plain.json").read_bytes()
    assert main(["predict", "odd.json", str(data), *chunks, "--out", "p.csv"]) == 0
    assert len((tmp_path / "p.csv").read_text().splitlines()) == 301


ESCAPE = "\x1b[1A\x1b[2K\u202ex"  # cursor up, erase the line, then a right-to-left override


def test_control_characters_of_a_model_file_reach_no_terminal(tmp_path, monkeypatch, capsys):
    data = _table(tmp_path / "t.csv", labels=("yes", f"no{ESCAPE}"), first=f"a{ESCAPE}")
    monkeypatch.chdir(tmp_path)
    assert main(["fit", data, "--target", "y", "--numeric", f"a{ESCAPE}:-1:1", "--numeric", "b:-1:1", "--data-norm",
                 "1", "--epsilon", "1", "--positive", "yes", "--negative", f"no{ESCAPE}", "--out", "m.json"]) == 0
    capsys.readouterr()
    for form in ("markdown", "html"):
        assert main(["report", "m.json", "--format", form]) == 0
        shown = capsys.readouterr().out
        assert "a\\x1b" in shown  # the column's name, as its escapes (Markdown's backslash before "[")
        assert not {"\x1b", "\u202e"} & set(shown)
    assert main(["predict", "m.json", data]) == 0  # a pipe: the predictions as --out writes them
    assert f"no{ESCAPE}" in capsys.readouterr().out
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["predict", "m.json", data]) == 0  # a terminal: the escapes
    shown = capsys.readouterr().out
    assert "no\\x1b[1A\\x1b[2K\\u202ex" in shown and not {"\x1b", "\u202e"} & set(shown)
    assert len(shown.splitlines()) == 301
