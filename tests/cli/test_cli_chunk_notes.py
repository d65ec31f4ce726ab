"""A file read in chunks (``--chunk-rows``) is one table: the schema's NOT PRIVATE notes on its rows are shown once,
as a read of the whole file shows them (attacker probe P5 F6, session 70: 4,000 rows by 1,000 showed the
UndeclaredCategoryWarning of a column most of whose rows are undeclared once a chunk)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpcvx.cli import main
from dpcvx.exceptions import UndeclaredCategoryWarning

ROWS = 4000
OPTIONS = ["--target", "y", "--positive", "yes", "--numeric", "v:0:1", "--categorical", "c:a,b",
           "--data-norm", "1", "--epsilon", "1", "--random-state", "3"]


def _file(tmp_path):
    rng = np.random.default_rng(2)
    v = rng.uniform(0, 1, ROWS)
    c = rng.choice(["a", "b", "zz"], ROWS, p=[0.2, 0.2, 0.6])  # most rows undeclared, in every chunk
    lines = [f"{value:.6f},{code},{'yes' if value > 0.5 else 'no'}" for value, code in zip(v, c, strict=True)]
    path = tmp_path / "rows.csv"
    path.write_text("v,c,y\n" + "\n".join(lines) + "\n")
    return str(path)


def _notes(call) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert call() == 0
    return [str(w.message) for w in seen if issubclass(w.category, UndeclaredCategoryWarning)]


@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
def test_fit_and_predict_show_a_note_once_per_file(tmp_path, chunks):
    data, model = _file(tmp_path), str(tmp_path / "m.json")
    fitted = _notes(lambda: main(["fit", data, *OPTIONS, *chunks, "--out", model]))
    assert len(fitted) == 1 and "'c'" in fitted[0] and "NOT PRIVATE" in fitted[0]
    predicted = _notes(lambda: main(["predict", model, data, *chunks, "--out", str(tmp_path / "p.csv")]))
    assert len(predicted) <= 1  # predict reads the saved schema: at most the note of the whole file, once
