"""A label given with surrounding spaces for a CSV file, whose cells are read stripped, is a usage error (exit 2,
before any file is opened): ``--positive ' yes'`` matched no record, so every record was negative and the fit
went on (a helper's finding). A Parquet file keeps its text as written, so there the label stands."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpcvx.cli import main

COMMON = ["--target", "y", "--numeric", "x:0:1", "--epsilon", "1", "--data-norm", "1", "--random-state", "0"]


@pytest.mark.parametrize("labels", [["--positive", " yes"], ["--positive", "yes", "--negative", "no "],
                                    ["--class", " a", "--class", "b", "--class", "c"]])
def test_a_spaced_label_for_a_csv_file_is_a_usage_error(tmp_path: Path, labels: list[str],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "absent.csv"  # never opened: the refusal comes first
    code = main(["fit", str(missing), *labels, *COMMON, "--out", str(tmp_path / "m.json")])
    assert code == 2
    err = capsys.readouterr().err
    assert "surrounding spaces" in err and "cells are read with theirs stripped" in err
    assert not (tmp_path / "m.json").exists()


def test_a_csv_label_without_spaces_fits(tmp_path: Path) -> None:
    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{i / 40},{'yes' if i % 3 else 'no'}\n" for i in range(40)))
    assert main(["fit", str(data), "--positive", "yes", *COMMON, "--out", str(tmp_path / "m.json")]) == 0


def test_a_parquet_label_keeps_its_spaces(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    data = tmp_path / "d.parquet"
    pd.DataFrame({"x": [i / 40 for i in range(40)], "y": [" yes" if i % 3 else "no" for i in range(40)]}).to_parquet(
        data)
    assert main(["fit", str(data), "--positive", " yes", *COMMON, "--out", str(tmp_path / "m.json")]) == 0
