"""A Parquet file with its columns and no rows is refused as a CSV file of a header alone is (audit, twenty-eighth
session): ``fit --chunk-rows`` raised a bare ValueError ("cannot mmap an empty file"), ``fit`` gave scikit-learn's
words, and ``predict`` wrote a header and no prediction."""

from __future__ import annotations

import pytest

from dpcvx.cli import main
from dpcvx.cli.exit_codes import EXIT_INPUT

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

FIT = ["--target", "label", "--positive", "yes", "--negative", "no", "--numeric", "age:0:100",
       "--categorical", "color:red,green,blue", "--epsilon", "1", "--data-norm", "1", "--random-state", "3"]


def _table(path, rows: int):
    table = pa.table({"age": [30.0, 50.0, 20.0][:rows], "color": ["red", "blue", "green"][:rows],
                      "label": ["yes", "no", "yes"][:rows]})
    pq.write_table(table, path)
    return path


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
def test_an_empty_parquet_file_is_refused_by_fit_and_predict(tmp_path, capsys, chunks):
    empty = _table(tmp_path / "empty.parquet", 0)
    model = tmp_path / "m.json"
    assert main(["fit", str(empty), *FIT, "--out", str(model), *chunks]) == EXIT_INPUT
    assert "empty.parquet has columns but no data rows" in capsys.readouterr().err
    assert not model.exists()
    assert main(["fit", str(_table(tmp_path / "three.parquet", 3)), *FIT, "--out", str(model)]) == 0
    out = tmp_path / "p.csv"
    assert main(["predict", str(model), str(empty), "--out", str(out), *chunks]) == EXIT_INPUT
    assert "empty.parquet has columns but no data rows" in capsys.readouterr().err
    assert not out.exists()
