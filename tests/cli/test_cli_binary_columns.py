"""A Parquet file's binary (bytes) column is read as its UTF-8 text, as the Python API reads bytes (sixty-fifth
session, attacker probe B3). The command line wrote each cell as ``str(value)``, "b'yes'": a binary label column was
all negative against ``--positive yes`` and released (a constant classifier, one warning), a binary categorical
column the all-zero block. The model is now the one of the same file with a string column; a cell that is not UTF-8
is refused by its column and its row in the whole file, before any charge, and no model is written."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.exceptions import UndeclaredCategoryWarning

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 2500
OPTIONS = ["--target", "y", "--positive", "yes", "--numeric", "v:0:1", "--categorical", "c:caf\u00e9,tea,x",
           "--data-norm", "1", "--epsilon", "1", "--random-state", "3"]


def _columns() -> tuple[np.ndarray, list[str], list[str]]:
    rng = np.random.default_rng(5)
    v = rng.uniform(0, 1, ROWS)
    c = [("caf\u00e9", "tea", "x")[i] for i in rng.integers(0, 3, ROWS)]
    y = ["yes" if value + 0.3 * (code == "tea") > 0.6 else "no" for value, code in zip(v, c, strict=True)]
    return v, c, y


def _write(path, v, c, y, binary: tuple[str, ...]) -> str:
    columns = {"c": c, "y": y}
    arrays = {name: pa.array([cell.encode() for cell in cells], pa.binary()) if name in binary
              else pa.array(cells, pa.string()) for name, cells in columns.items()}
    pq.write_table(pa.table({"v": v, **arrays}), path, row_group_size=400)
    return str(path)


@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
@pytest.mark.parametrize("binary", [("y",), ("c",), ("c", "y")])
def test_a_binary_column_is_read_as_its_text(tmp_path, chunks, binary):
    v, c, y = _columns()
    text = _write(tmp_path / "text.parquet", v, c, y, ())
    data = _write(tmp_path / "binary.parquet", v, c, y, binary)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndeclaredCategoryWarning)  # every cell a declared category
        assert main(["fit", text, *OPTIONS, *chunks, "--out", str(tmp_path / "text.json")]) == 0
        assert main(["fit", data, *OPTIONS, *chunks, "--out", str(tmp_path / "binary.json")]) == 0
    expected, model = dpcvx.load(tmp_path / "text.json"), dpcvx.load(tmp_path / "binary.json")
    np.testing.assert_array_equal(model.coef_, expected.coef_)
    np.testing.assert_array_equal(model.intercept_, expected.intercept_)
    assert np.abs(model.coef_).max() > 0.5  # the labels read: no constant classifier


@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
@pytest.mark.parametrize("column", ["c", "y"])
def test_a_binary_cell_that_is_not_utf8_is_refused_by_its_row(tmp_path, capsys, chunks, column):
    v, c, y = _columns()
    data = _write(tmp_path / "binary.parquet", v, c, y, ("c", "y"))
    table = pq.read_table(data)
    cells = table.column(column).to_pylist()
    cells[1437] = b"caf\xe9"  # Latin-1
    table = table.set_column(table.schema.get_field_index(column), column, pa.array(cells, pa.binary()))
    pq.write_table(table, data, row_group_size=400)
    assert main(["fit", data, *OPTIONS, *chunks, "--out", str(tmp_path / "m.json")]) == 3
    error = capsys.readouterr().err
    assert f"column {column!r} holds bytes that are not UTF-8 text in row 1437 " in error, error
    assert "caf" not in error.replace("caf\u00e9,tea,x", "")  # the value is data: never shown
    assert not (tmp_path / "m.json").exists()
