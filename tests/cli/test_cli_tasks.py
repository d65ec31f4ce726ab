"""dpcvx fit/predict for regressions (--task regression --label-bound) and multiclass labels (--classes)."""

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.cli.exit_codes import EXIT_INPUT


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 1500
    a, b = rng.uniform(0, 10, n), rng.uniform(0, 10, n)
    target = 0.3 * a - 0.2 * b + rng.normal(0, 0.5, n)
    kind = np.where(a > 6, "hi", np.where(a < 3, "lo", "mid"))
    lines = ["a,b,t,k"] + [f"{a[i]:.3f},{b[i]:.3f},{target[i]:.3f},{kind[i]}" for i in range(n)]
    path = tmp_path / "d.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


COLUMNS = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1.5", "--lam", "1e-3", "--fit-intercept",
           "--no-column-statistics",  # the in-memory release of a --chunk-rows fit, the public label bound
           "--epsilon", "1", "--random-state", "0"]


@pytest.mark.parametrize("extra, kind", [(["--delta", "1e-6"], "adassp"),
                                         (["--loss", "huber_regression:m=1"], "objective")])
def test_fit_and_predict_a_regression(table, tmp_path, capsys, extra, kind):
    out = tmp_path / "reg.json"
    assert main(["fit", str(table), "--target", "t", "--task", "regression", "--label-bound", "5", *COLUMNS, *extra,
                 "--out", str(out)]) == 0
    model = dpcvx.load(out)
    assert model.kind == "regression" and model.certificate.mechanism == kind
    assert model.certificate.label_bound == 5.0
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(out), str(table), "--out", str(predictions)]) == 0
    values = np.loadtxt(predictions, delimiter=",", skiprows=1)
    assert values.shape == (1500, 2) and np.all(np.isfinite(values))


def test_fit_and_predict_multiclass(table, tmp_path):
    out = tmp_path / "mc.json"
    assert main(["fit", str(table), "--target", "k", "--classes", "lo,mid,hi,none", *COLUMNS, "--out", str(out)]) == 0
    model = dpcvx.load(out)
    assert model.kind == "multiclass" and list(model.classes_) == ["lo", "mid", "hi", "none"]
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(out), str(table), "--out", str(predictions)]) == 0
    labels = [line.split(",")[0] for line in predictions.read_text().splitlines()[1:]]
    assert set(labels) <= {"lo", "mid", "hi", "none"} and len(labels) == 1500


@pytest.mark.parametrize("args, message", [
    (["--target", "k", "--classes", "lo,mid"], "not among --classes"),
    (["--target", "t", "--task", "regression"], "label-bound"),
    (["--target", "k"], "--positive"),
    (["--target", "k", "--classes", "lo,mid,hi", "--positive", "hi"], "leave them out"),
])
def test_label_errors(table, tmp_path, capsys, args, message):
    assert main(["fit", str(table), *args, *COLUMNS, "--out", str(tmp_path / "m.json")]) != 0
    assert message in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("task", [["--target", "k", "--classes", "lo,mid,hi"],
                                  ["--target", "t", "--task", "regression", "--label-bound", "5", "--delta", "1e-6"]])
def test_chunked_reading_gives_the_in_memory_release(table, tmp_path, task):
    whole, chunked = tmp_path / "whole.json", tmp_path / "chunked.json"
    assert main(["fit", str(table), *task, *COLUMNS, "--out", str(whole)]) == 0
    assert main(["fit", str(table), *task, *COLUMNS, "--chunk-rows", "1000", "--out", str(chunked)]) == 0
    a, b = dpcvx.load(whole), dpcvx.load(chunked)
    assert np.max(np.abs(np.asarray(a.coef_) - np.asarray(b.coef_))) < 1e-6
    assert list(tmp_path.glob("dpcvx-fit-*")) == []  # the scratch file is gone


def parquet_copy(table, path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    columns = np.loadtxt(table, delimiter=",", skiprows=1, usecols=(0, 1, 2))
    kinds = [line.rsplit(",", 1)[1] for line in table.read_text().splitlines()[1:]]
    pq.write_table(pa.table({"a": columns[:, 0], "b": columns[:, 1], "t": columns[:, 2], "k": kinds}), path,
                   row_group_size=400)
    return path


@pytest.mark.parametrize("chunks", [[], ["--chunk-rows", "1000"]])
def test_a_parquet_file_gives_the_csv_release_and_predicts(table, tmp_path, chunks):
    parquet = parquet_copy(table, tmp_path / "d.parquet")
    task = ["--target", "k", "--classes", "lo,mid,hi"]
    from_csv, from_parquet = tmp_path / "csv.json", tmp_path / "parquet.json"
    assert main(["fit", str(table), *task, *COLUMNS, *chunks, "--out", str(from_csv)]) == 0
    assert main(["fit", str(parquet), *task, *COLUMNS, *chunks, "--out", str(from_parquet)]) == 0
    assert np.array_equal(dpcvx.load(from_csv).coef_, dpcvx.load(from_parquet).coef_)
    predictions = tmp_path / "p.csv"
    assert main(["predict", str(from_parquet), str(parquet), "--out", str(predictions)]) == 0
    assert len(predictions.read_text().splitlines()) == 1501


def test_parquet_errors_are_typed(table, tmp_path, capsys):
    parquet = parquet_copy(table, tmp_path / "d.parquet")
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not parquet at all")
    for args, message in (([str(parquet), "--target", "missing", "--classes", "lo,mid,hi"], "no label column"),
                          ([str(broken), "--target", "k", "--classes", "lo,mid,hi"], "not a readable Parquet file"),
                          ([str(parquet), "--target", "k", "--classes", "lo,mid,hi", "--no-header", "--names",
                            "a,b,t,k"], "describe CSV files")):
        assert main(["fit", *args, *COLUMNS, "--out", str(tmp_path / "m.json")]) != 0
        assert message in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()
    # pyarrow's text is withheld (exceptions.withheld), as the module withholds its text of a failed read: a file's
    # metadata holds column statistics; it quoted "Parquet magic bytes not found in footer ..."
    assert main(["fit", str(broken), "--target", "k", "--classes", "lo,mid,hi", *COLUMNS, "--out",
                 str(tmp_path / "m.json")]) == EXIT_INPUT
    said = capsys.readouterr().err
    assert said == (f"dpcvx: input error: {broken} is not a readable Parquet file: an ArrowInvalid (its "
                    "text is not shown: it can quote the data)\n"), said


def shifted_table(table, tmp_path, shift, name):
    """The table with the target column t shifted by ``shift``."""
    lines = table.read_text().splitlines()
    rows = [line.split(",") for line in lines[1:]]
    path = tmp_path / name
    path.write_text("\n".join([lines[0]] + [f"{a},{b},{float(t) + shift:.3f},{k}" for a, b, t, k in rows]) + "\n")
    return path


@pytest.mark.parametrize("extra", [["--delta", "1e-6"], ["--loss", "huber_regression:m=1"]])
def test_a_label_range_lo_hi_is_the_symmetric_bound_around_its_centre(table, tmp_path, extra):
    """--label-bound 30,50 on targets t + 40 fits t with the half-width 10 (|t| <= 10) and adds the public
    centre 40 to the intercept: the same weights, the intercept 40 higher, B = 10 in the certificate."""
    ranged, centred = tmp_path / "ranged.json", tmp_path / "centred.json"
    assert main(["fit", str(shifted_table(table, tmp_path, 40.0, "high.csv")), "--target", "t", "--task", "regression",
                 "--label-bound", "30,50", *COLUMNS, *extra, "--out", str(ranged)]) == 0
    assert main(["fit", str(table), "--target", "t", "--task", "regression", "--label-bound", "10", *COLUMNS, *extra,
                 "--out", str(centred)]) == 0
    a, b = dpcvx.load(ranged), dpcvx.load(centred)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-9)  # the targets' text rounds t + 40 - 40
    assert a.intercept_ == pytest.approx(b.intercept_ + 40.0, abs=1e-9)
    assert a.certificate.label_bound == b.certificate.label_bound == 10.0


@pytest.mark.parametrize("bound", ["50,30", "30,30", "1,2,3", "a,b", "0"])
def test_a_malformed_label_bound_is_a_usage_error(table, tmp_path, capsys, bound):
    code = main(["fit", str(table), "--target", "t", "--task", "regression", "--label-bound", bound, *COLUMNS,
                 "--delta", "1e-6", "--out", str(tmp_path / "m.json")])
    assert code == 2 and "--label-bound" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("extra", [["--loss", "huber_regression:m=1"],  # DPHuberRegressor
                                   ["--loss", "huber_regression:m=1", "--allow-estimates"]])  # PrivateERM
def test_a_regression_on_a_public_label_range_without_an_intercept_loads_back(table, tmp_path, extra):
    """The range's centre s = 2 is the intercept of a model without one, recorded in the certificate as the public
    label_shift (a file of it was refused as edited)."""
    out = tmp_path / "reg.json"
    columns = [option for option in COLUMNS if option != "--fit-intercept"
               and (option != "--no-column-statistics" or "--allow-estimates" not in extra)]  # PrivateERM draws none
    assert main(["fit", str(table), "--target", "t", "--task", "regression", "--label-bound=-3,7", *columns,
                 "--no-fit-intercept", *extra, "--out", str(out)]) == 0
    model = dpcvx.load(out)
    assert model.certificate.label_shift == 2.0 and model.intercept_ == 2.0


@pytest.mark.parametrize("args, names", [
    # the Huber hinge (a margin loss, catalogue name "huber") was fitted on the residual: R^2 -0.14
    (["--target", "t", "--task", "regression", "--label-bound", "5", "--loss", "huber"],
     ["'huber_hinge:h=0.5' is a classification loss", "'huber_regression'"]),
    (["--target", "t", "--task", "regression", "--label-bound", "5", "--loss", "huber_hinge:h=0.5", "--lam", "auto"],
     ["'huber_hinge:h=0.5' is a classification loss", "'huber_regression'"]),
    (["--target", "k", "--classes", "lo,mid,hi", "--loss", "huber_regression:m=1"],
     ["'huber_regression:m=1' is a regression loss", "'logistic'"]),
])
def test_a_catalogue_loss_of_the_other_task_is_refused(table, tmp_path, capsys, args, names):
    out = tmp_path / "m.json"
    assert main(["fit", str(table), *COLUMNS, *args, "--out", str(out)]) == 2  # wrong whatever the data
    error = capsys.readouterr().err
    assert "usage error" in error and all(name in error for name in names)
    assert not out.exists()


def test_a_derived_huber_threshold_out_of_range_names_the_label_bound(table, tmp_path, capsys):
    """--loss huber_regression without :m= is DPHuberRegressor's m="auto" = B / 4: a B too small for the loss's range
    was refused naming m ("got m=1.25e-10"), which the user never set."""
    out = tmp_path / "m.json"
    assert main(["fit", str(table), *COLUMNS, "--target", "t", "--task", "regression", "--label-bound=-1e-9,0",
                 "--loss", "huber_regression", "--out", str(out)]) != 0
    error = capsys.readouterr().err
    assert "--loss huber_regression without :m= (m 'auto') is B / 4" in error and "got m=" not in error
    assert "--label-bound -1e-09,0 gives B" in error and "or pass a number --loss huber_regression:m=M" in error
    assert not out.exists()


@pytest.mark.parametrize("args, names", [
    # a named margin loss: 'logistic' was also the name of the regression's default, AdaSSP, so it was fitted by it
    (["--loss", "logistic"], ["'logistic' is a classification loss", "'huber_regression'"]),
    # the default (least squares by AdaSSP) fitted without the user's regularizer, silently
    (["--regularizer", "REG"], ["--regularizer with --task regression needs --loss"]),
    (["--allow-estimates"], ["--allow-estimates with --task regression needs --loss"]),
])
def test_a_regression_refuses_what_its_default_loss_cannot_take(table, tmp_path, capsys, args, names):
    regularizer = tmp_path / "reg.py"
    regularizer.write_text("import cvxpy as cp\nregularizer = lambda w: 0.5 * cp.sum_squares(w)\n")
    out = tmp_path / "m.json"
    args = [str(regularizer) if arg == "REG" else arg for arg in args]
    assert main(["fit", str(table), *COLUMNS, "--target", "t", "--task", "regression", "--label-bound", "5",
                 "--delta", "1e-6", *args, "--out", str(out)]) == 2  # wrong whatever the data
    error = capsys.readouterr().err
    assert "usage error" in error and all(name in error for name in names), error
    assert not out.exists()


@pytest.mark.parametrize("args, given", [
    ([], "--delta 0 (the default: pure epsilon)"),
    (["--mechanism", "objective", "--delta", "1e-6"], "--mechanism objective"),
    (["--mechanism", "output", "--delta", "1e-6"], "--mechanism output"),
    (["--float-safe", "--delta", "1e-6"], "--float-safe"),
])
def test_the_default_regression_refuses_in_the_command_lines_options(table, tmp_path, capsys, args, given):
    """Audit: a regression without --delta was refused with a fix for Python (DPLinearRegression(delta=0,
    weight_bound=W), PrivateERM(...)) that named neither --delta nor --loss huber_regression; --mechanism and
    --float-safe named weight_bound and mechanism='objective', which the command line has not."""
    out = tmp_path / "m.json"
    assert main(["fit", str(table), *COLUMNS, "--target", "t", "--task", "regression", "--label-bound", "5", *args,
                 "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"dpcvx: usage error: {given}: --task regression without --loss is least squares"), error
    assert "--delta D > 0" in error and "--loss huber_regression" in error and len(error.splitlines()) == 1
    assert not any(name in error for name in ("DPLinearRegression", "weight_bound", "PrivateERM", "=")), error
    assert not out.exists()


def test_a_squared_error_refusal_advises_what_the_command_line_offers(tmp_path, capsys):
    """--loss squared_error is refused (its L is unbounded without a ball of weights) with advice to declare
    constraints=lambda w: ... or to use dpcvx.DPLinearRegression, neither of which the command line has: it names the
    Python-only part as such and the command line's way, the default regression with --delta."""
    import numpy as np

    from dpcvx.cli import main

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, (500, 2))
    y = X @ [1.0, 2.0] + 0.1 * rng.normal(size=500)
    data = tmp_path / "r.csv"
    data.write_text("a,b,y\n" + "\n".join(f"{a},{b},{t}" for (a, b), t in zip(X, y, strict=True)) + "\n")
    common = ["fit", str(data), "--target", "y", "--task", "regression", "--label-bound", "4", "--numeric", "a:0:1",
              "--numeric", "b:0:1", "--data-norm", "1", "--epsilon", "1", "--out", str(tmp_path / "m.json")]
    assert main([*common, "--loss", "squared_error"]) == 4
    err = capsys.readouterr().err
    assert "(in Python only, PrivateERM's constraints=) declare constraints=" in err
    assert "leave --loss out for the default regression (dpcvx.DPLinearRegression, AdaSSP: it needs --delta)" in err
    assert main([*common, "--delta", "1e-6"]) == 0  # the advice followed
