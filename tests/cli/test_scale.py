"""The cost of bad (or just big) input is linear: a 60,000-column CSV header and a 100,000-weight model
file are processed in seconds. Bounds are generous (10 s) for a shared machine; measured times are far
below them (about 1 s each)."""

import time

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data import files

COLUMNS = 60_000
WEIGHTS = 100_000
BOUND = 10.0


@pytest.fixture(scope="module")
def wide_csv(tmp_path_factory):
    directory = tmp_path_factory.mktemp("scale")
    rng = np.random.default_rng(0)
    header = [f"c{i}" for i in range(COLUMNS)] + ["age", "income"]
    lines = [",".join(header)]
    filler = ",".join(["0.5"] * COLUMNS)
    for _ in range(40):
        lines.append(f"{filler},{rng.integers(17, 91)},{rng.choice(['yes', 'no'])}")
    (directory / "wide.csv").write_text("\n".join(lines) + "\n")
    # a repeated name refuses the fit when the fit reads that column (one it does not read may repeat its name)
    (directory / "repeated.csv").write_text(",".join(header + ["age"]) + "\n" + lines[1] + ",0\n")
    return directory


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - start


def test_cli_reads_a_60000_column_header_in_linear_time(wide_csv, monkeypatch, capsys):
    monkeypatch.chdir(wide_csv)
    dpcvx.PrivateERM(data_norm=1.0).verify(1)  # the one-off symbolic verification is not what is measured
    base = ["fit", "wide.csv", "--target", "income", "--positive", "yes", "--negative", "no", "--numeric",
            "age:17:90", "--data-norm", "1", "--epsilon", "1", "--lam", "0.1", "--out", "m.json", "--overwrite"]
    code, seconds = timed(main, base)
    assert code == 0, capsys.readouterr().err
    assert seconds < BOUND
    code, seconds = timed(main, base[:9] + ["no_such_column:0:1"] + base[10:])
    err = capsys.readouterr().err
    assert code == 3 and seconds < BOUND
    assert "60002 columns" in err and len(err) < 1000  # the message lists a few names, not 60,000
    code, seconds = timed(main, [arg if arg != "wide.csv" else "repeated.csv" for arg in base])
    err = capsys.readouterr().err
    assert code == 3 and "repeats a column name at field(s) [60003]" in err and "c7" not in err and seconds < BOUND


@pytest.mark.slow
def test_a_100000_weight_model_loads_in_linear_time(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, WEIGHTS))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    model = dpcvx.PrivateERM(data_norm=1.0, lam=0.1).fit(X, np.where(X[:, 0] > 0, 1, -1), epsilon=1.0,
                                                          mechanism="output", random_state=0)
    path, seconds = timed(dpcvx.save, model, tmp_path / "wide.json")
    assert seconds < BOUND
    loaded, seconds = timed(dpcvx.load, path)
    assert seconds < BOUND and np.array_equal(loaded.coef_, model.coef_)
    text = path.read_text()
    tampered = text.replace('"format": "dpcvx-model",', '"format": "dpcvx-model", "format": "x",', 1)
    (tmp_path / "tampered.json").write_text(tampered)
    with pytest.raises(dpcvx.exceptions.FileError, match="repeats keys"):
        timed(dpcvx.load, tmp_path / "tampered.json")


@pytest.mark.slow
def test_json_with_100000_keys_is_checked_in_linear_time():
    keys = [f'"k{i}": {i}' for i in range(WEIGHTS)]
    _, seconds = timed(files.parse_json, "{" + ", ".join(keys) + "}")
    assert seconds < BOUND
    with pytest.raises(dpcvx.exceptions.FileError, match=r"repeats keys \['k5'\]"):
        files.parse_json("{" + ", ".join(keys + ['"k5": 0']) + "}")


@pytest.mark.slow
@pytest.mark.timing
@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # 40 rows, 60,000 columns
def test_a_60000_column_schema_in_linear_time(wide_csv, tmp_path):
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"c{i}", 0, 1) for i in range(COLUMNS)), norm=1.0)
    schema.save(tmp_path / "schema.json")
    start = time.perf_counter()
    code = main(["fit", str(wide_csv / "wide.csv"), "--target", "income", "--positive", "yes", "--negative", "no",
                 "--schema", str(tmp_path / "schema.json"), "--epsilon", "1", "--lam", "0.1",
                 "--out", str(tmp_path / "m.json")])
    # parsing, encoding and a 60,000-weight solve: linear work takes seconds, the quadratic
    # schema code took 115 s, so a generous bound still tells them apart on a busy machine
    assert code == 0 and time.perf_counter() - start < 3 * BOUND
    start = time.perf_counter()
    dpcvx.load(tmp_path / "m.json")
    assert time.perf_counter() - start < BOUND
