"""The classifiers' fill map keeps a flag's rare value (format version 18), and files of format version 17 load as
they were written.

A 0/1 flag or one-hot level on under q = 10 % of the rows has its private range at the one cell [0, 2 R / 2^D)
holding 0; the fill map raises that column (centre the cell's midpoint, multiplier t / h) and clipped its "on" value
onto C F R / sqrt(d), a third of a one-hot level's 1 / sqrt(5) at d = 200. Since format version 18 such a column is
``soft``: slope 1 beyond the clip (docs/theory.md, section 34). The fixtures (``fixtures/format17``: a binary and a
3-class DPLogisticRegression on 12 flags at 4 % and 2 narrow columns, epsilon 10) were written by dpcvx at 4d85676b
through ``dpcvx.save`` with their decision values; they load with the map they were written with."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.data.standardiser import ZERO_CELL, ColumnStandardiser, fill_map
from dpcvx.privacy.column_histogram import HISTOGRAM_DEPTH
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

FORMAT17 = Path(__file__).parent / "fixtures" / "format17"
EXPECTED = json.loads((FORMAT17 / "expected.json").read_text())
ZERO = 1 << (HISTOGRAM_DEPTH - 1)  # the grid index of the cell [0, 2 R / 2^D)


def _one_hot_cells(d: int) -> np.ndarray:
    """Released cells of d one-hot levels each on under q of the rows: every range the cell holding 0."""
    return np.array([[ZERO] * d, [ZERO + 1] * d])


def test_the_fill_map_keeps_a_flag_on_value_apart_from_off():
    """d = 200 one-hot levels (5 categoricals), each row 1 / sqrt(5) in its 5 levels: "on" minus "off" is at least the
    public contrast 1 / sqrt(5). The map of format 17 (every output clipped onto 2 R / sqrt(d)) left 0.21 of it."""
    d, on = 200, 1 / math.sqrt(5)
    mapped = fill_map(_one_hot_cells(d), 1.0)
    assert mapped.soft == tuple(range(d)) and mapped.multiplier[0] > 1
    rows = np.zeros((2, d))
    rows[1, :5] = on  # a row with five levels on (norm 1), and the origin
    out = mapped.transform(rows)
    assert out[1, 0] - out[0, 0] >= on
    former = fill_map(_one_hot_cells(d), 1.0, soft_zero_cell=False).transform(rows)
    assert former[1, 0] - former[0, 0] < 0.5 * on  # crushed onto the clip (the parent's map)
    assert np.array_equal(out[0], former[0])  # off: mapped as before


def test_values_within_the_clip_map_as_before():
    """A column whose rows sit in the cell holding 0 (a narrow column) is raised as before wherever the map does not
    clip it; only values beyond the clip point differ (slope 1 there, continuous at the clip)."""
    cells = np.array([[ZERO, 40, ZERO], [ZERO + 1, 200, ZERO + 1]])
    soft, former = fill_map(cells, 1.0), fill_map(cells, 1.0, soft_zero_cell=False)
    assert soft.soft == (0, 2) and np.array_equal(soft.centre, former.centre) \
        and np.array_equal(soft.multiplier, former.multiplier)
    values = np.linspace(-0.05, 0.05, 101)
    rows = np.stack([values, np.zeros_like(values), values], axis=1)
    new, old = soft.transform(rows), former.transform(rows)
    inside = np.abs(old[:, 0]) < former.clip
    assert inside.sum() > 1 and np.array_equal(new[inside], old[inside])
    beyond = ~inside
    assert np.all(np.abs(new[beyond, 0]) >= former.clip) and np.all(np.diff(new[:, 0]) > 0)  # monotone, not flat


def test_the_map_record_round_trips_and_refuses_bad_soft_columns():
    mapped = fill_map(_one_hot_cells(4), 1.0)
    record = mapped.to_dict()
    assert record["soft"] == [0, 1, 2, 3] and ColumnStandardiser.from_dict(record) == mapped
    assert "soft" not in fill_map(_one_hot_cells(4), 1.0, soft_zero_cell=False).to_dict()  # recorded as before
    for bad in ([], [1, 0], [0, 9], [True], ["0"]):
        with pytest.raises(dpcvx.exceptions.InputError):
            ColumnStandardiser.from_dict({**record, "soft": bad})
    with pytest.raises(dpcvx.exceptions.InputError, match="with a clip"):
        ColumnStandardiser(np.zeros(2), np.ones(2), 1.0, soft=[0])


def _flag_table(n: int = 8_000) -> tuple[np.ndarray, np.ndarray]:
    """The fixtures' table: 12 flags of value 0.5 on 4 % of the rows each, 2 narrow columns."""
    rng = np.random.default_rng(17)
    flags = (rng.random((n, 12)) < 0.04).astype(float) * 0.5
    narrow = rng.normal(0.02, 0.01, (n, 2))
    z = flags @ rng.normal(0, 6, 12) + (narrow[:, 0] - 0.02) * 150
    return np.hstack([flags, narrow]), np.where(z + rng.normal(0, 0.5, n) > np.quantile(z, 0.7), 1, 0)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.ClippingWarning")
def test_a_fit_states_the_map_and_a_saved_model_predicts_the_same(tmp_path):
    X, y = _flag_table()
    model = dpcvx.DPLogisticRegression(epsilon=10.0, random_state=0).fit(X, y)
    statistics = model.certificate_.column_statistics
    assert statistics[ZERO_CELL] is True
    assert model.model_.rows.feature_map.soft == tuple(range(12))  # the flags; the narrow columns' ranges are wider
    path = dpcvx.save(model, tmp_path / "model.json")
    data = json.loads(path.read_text())
    assert data["format_version"] == MODEL_FORMAT_VERSION == 18
    loaded = dpcvx.load(path)
    rows = np.array(EXPECTED["rows"])
    assert np.array_equal(loaded.decision_function(rows), model.decision_function(rows))
    # the statement removed (digest made again): the saved map is no longer the one the record gives
    del data["certificate"]["column_statistics"][ZERO_CELL]
    data["sha256"] = file_digest(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(dpcvx.exceptions.FileError, match="not the map"):
        dpcvx.load(tmp_path / "edited.json")


@pytest.mark.parametrize("name", ["binary", "multiclass"])
def test_a_version_17_file_loads_with_the_map_it_was_written_with(name, tmp_path):
    source = FORMAT17 / f"{name}.json"
    data = json.loads(source.read_text())
    assert data["format_version"] == 17 and data["sha256"] == file_digest(data)
    statistics = data["column_statistics"] if name == "multiclass" else data["certificate"]["column_statistics"]
    assert ZERO_CELL not in statistics and ZERO in statistics["cells"][0]
    loaded = dpcvx.load(source)
    rows = np.array(EXPECTED["rows"])
    assert np.array_equal(np.asarray(loaded.decision_function(rows)), np.array(EXPECTED[name]["decision"]))
    assert list(loaded.predict(rows)) == EXPECTED[name]["predict"]
    again = dpcvx.save(loaded, tmp_path / "again.json")
    rewritten = json.loads(again.read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION and rewritten["sha256"] == file_digest(rewritten)
    assert np.array_equal(np.asarray(dpcvx.load(again).decision_function(rows)), np.array(EXPECTED[name]["decision"]))


def test_a_version_17_file_stating_the_new_map_is_refused(tmp_path):
    data = json.loads((FORMAT17 / "binary.json").read_text())
    data["certificate"]["column_statistics"][ZERO_CELL] = True
    data["sha256"] = file_digest(data)
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(dpcvx.exceptions.FileError, match="no version 17 dpcvx wrote"):
        dpcvx.load(tmp_path / "edited.json")
