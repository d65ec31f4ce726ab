"""One rule for the command line's option combinations: a combination that is wrong whatever the data is a usage
error (exit 2), refused before any input file is opened and before anything is charged, with a message naming the
option; exit 3 stays for refusals that depend on the data or on a file.

The table runs every refusal with a data file, loss, regularizer, names and model file that do NOT exist: a check run
after a file was opened would exit 3 ("does not exist"), so exit 2 shows the refusal came first. Before, a regression's
--mechanism, --float-safe, --regularizer without --loss, a missing --label-bound or --positive, --lam out of range,
a class prior without effect, --schema with --numeric, a missing --data-norm, ... exited 3 after reading the input,
--classes with a regression and --split with output perturbation were ignored, and --classes x,x,y fitted a repeated
class.
"""

import pytest

from dpcvx.cli import main

MISSING = "no-such-data.csv"  # never created: opening it would be an input error (exit 3)
FEATURES = ["--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1"]
BINARY = [MISSING, "--target", "y", "--positive", "pos", *FEATURES, "--epsilon", "1"]
MULTICLASS = [MISSING, "--target", "c", "--classes", "x,y,z", *FEATURES, "--epsilon", "1"]
REGRESSION = [MISSING, "--target", "t", "--task", "regression", "--label-bound", "5", *FEATURES, "--epsilon", "1",
              "--delta", "1e-6"]
HUBER = [*REGRESSION, "--loss", "huber_regression"]


def _without(words, *options):
    """``words`` without each option of ``options`` and its value."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in options:
            skip = word not in ("--others-negative",)
        else:
            out.append(word)
    return out


USAGE = [
    # a regression: the labels of a classifier, a missing bound, what its default loss does not read
    (["fit", *REGRESSION, "--mechanism", "output"], "--mechanism output: --task regression without --loss"),
    (["fit", *REGRESSION, "--float-safe"], "--float-safe: --task regression without --loss"),
    (["fit", *REGRESSION, "--regularizer", "no-such.py"], "--regularizer with --task regression needs --loss"),
    (["fit", *REGRESSION, "--allow-estimates"], "--allow-estimates with --task regression needs --loss"),
    (["fit", *_without(REGRESSION, "--delta")], "--delta 0 (the default: pure epsilon)"),
    (["fit", *_without(REGRESSION, "--label-bound")], "--task regression needs --label-bound"),
    (["fit", *REGRESSION, "--positive", "a"], "--positive: options of a binary classifier's labels"),
    (["fit", *REGRESSION, "--others-negative"], "--others-negative: options of a binary classifier's labels"),
    (["fit", *REGRESSION, "--classes", "a,b"], "--classes/--class name a classifier's public classes"),
    (["fit", *REGRESSION, "--class", "a", "--class", "b"], "--classes/--class name a classifier's public classes"),
    (["fit", *REGRESSION, "--split", "paper"], "--split sets the budget split of objective perturbation"),
    (["fit", *REGRESSION, "--loss", "logistic"], "--loss: loss 'logistic' is a classification loss"),
    (["fit", *REGRESSION, "--lam", "-1"], "argument --lam: --lam must be finite"),
    (["fit", *REGRESSION, "--threshold", "0.3"], "--threshold set options of a classifier"),
    (["fit", *HUBER, "--lam", "0"], "argument --lam: --lam must be finite and positive"),
    (["fit", *HUBER, "--split", "max"], "DPHuberRegressor takes none"),
    # a binary classifier
    (["fit", *_without(BINARY, "--positive")], "a binary classifier needs --positive VALUE"),
    (["fit", *BINARY, "--negative", "pos"], "--positive and --negative must differ"),
    (["fit", *BINARY, "--label-bound", "5"], "--label-bound bounds the target of a regression"),
    (["fit", *BINARY, "--loss", "squared_error"], "--loss: loss 'squared_error' is a regression loss"),
    (["fit", *BINARY, "--loss", "nonesuch"], "--loss: unknown loss 'nonesuch'"),
    (["fit", *BINARY, "--loss", "huber:h=-1"], "--loss: h must be finite and positive"),
    (["fit", *BINARY, "--regularizer", "l2"], "--regularizer takes a Python file"),
    (["fit", *BINARY, "--lam", "0"],
     "argument --lam: --lam must be finite and positive, got 0.0 (see: dpcvx fit --help)"),
    (["fit", *BINARY, "--lam", "1e300"], "--lam 1e+300 is outside the range"),
    (["fit", *BINARY, "--mechanism", "output", "--split", "paper"], "output perturbation takes none"),
    (["fit", *BINARY, "--class-prior", "0.5,0.6"], "--class-prior's rates must lie in (0, 1) and sum to 1"),
    (["fit", *BINARY, "--class-prior", "0.9,0.1", "--loss", "huber"], "here it would have no effect"),
    (["fit", *BINARY, "--class-prior", "0.9,0.1", "--no-fit-intercept"], "here it would have no effect"),
    (["fit", *BINARY, "--threshold", "1.5"],
     "argument --threshold: --threshold must lie in (0, 1), got 1.5 (see: dpcvx fit --help)"),
    # a NaN or infinite option value in the API's words ('finite and positive, got nan'), not 'a positive number'
    (["fit", *_without(BINARY, "--epsilon"), "--epsilon", "nan"],
     "argument --epsilon: --epsilon must be finite and positive, got nan (see: dpcvx fit --help)"),
    (["fit", *_without(BINARY, "--epsilon"), "--epsilon", "-inf"],
     "argument --epsilon: --epsilon must be finite and positive, got -inf (see: dpcvx fit --help)"),
    (["fit", *_without(BINARY, "--data-norm"), "--data-norm", "inf"],
     "argument --data-norm: --data-norm must be finite and positive, got inf (see: dpcvx fit --help)"),
    (["fit", *_without(BINARY, "--epsilon"), "--epsilon", "1e999"], "argument --epsilon: must be a positive number, "
     "got '1e999': 1e999 is beyond the range of a double-precision float"),
    # an option's value checked against another option's after parsing, in the same frame
    (["fit", *BINARY, "--impute", "a=100"], "argument --impute: column 'a': the imputed missing value 100.0 must lie "
     "in the public bounds [0.0, 10.0] (for example lo, or the midpoint) (see: dpcvx fit --help)"),
    (["fit", *BINARY, "--impute", "c=1"], "argument --impute: --impute names ['c'], which are not numeric feature "),
    (["fit", *BINARY, "--threshold", "prior"], "--threshold prior cuts at the log-odds"),
    (["fit", *BINARY, "--class-weight", "balanced", "--allow-estimates"], "take no --allow-estimates"),
    (["fit", *BINARY, "--allow-estimates", "--lam", "0"], "argument --lam: --lam must be finite"),
    # a flag that would change nothing
    (["fit", *BINARY, "--allow-large-delta"], "--allow-large-delta accepts a --delta of 1/n or more; at --delta 0"),
    (["fit", *BINARY, "--allow-estimates", "--no-column-statistics"], "is PrivateERM's, which draws no column"),
    (["fit", *BINARY, "--strict"], "--strict refuses estimated constants that --allow-estimates would accept"),
    (["verify", "--loss", "no-such.py", "--strict"], "--strict alone changes nothing"),
    # more classes
    (["fit", *MULTICLASS, "--positive", "x"], "--positive: options of a binary classifier's labels"),
    (["fit", *MULTICLASS, "--others-negative"], "--others-negative: options of a binary classifier's labels"),
    (["fit", *_without(MULTICLASS, "--classes"), "--classes", "x"], "classes must name at least two public classes"),
    (["fit", *_without(MULTICLASS, "--classes"), "--classes", "x,x,y"], "classes must be distinct values"),
    (["fit", *MULTICLASS, "--class", "x"], "with --classes A,B,C or with --class LABEL (repeated), not both"),
    (["fit", *_without(MULTICLASS, "--classes"), "--class", "x", "--class", ""], "a class label is empty"),
    (["fit", *MULTICLASS, "--class-weight", "balanced"], "more than two --classes are fitted one-vs-rest, which takes "
     "no weights"),
    (["fit", *MULTICLASS, "--threshold", "0.3"], "a numeric --threshold applies to binary classification only; with "
     "more than two public classes predict takes the largest one-vs-rest score, or with --class-prior private and "
     "--threshold prior the largest score minus its class's cut"),
    (["fit", *MULTICLASS, "--class-prior", "0.5,0.5"], "one-vs-rest of more than two classes takes --class-prior "
     "private only"),
    (["fit", *MULTICLASS, "--threshold", "prior"], "--threshold prior cuts at the log-odds"),
    (["fit", *MULTICLASS, "--label-bound", "5"], "--label-bound bounds the target of a regression"),
    (["fit", *MULTICLASS, "--allow-estimates", "--lam", "0"], "argument --lam: --lam must be finite and positive"),
    # the feature columns given on the command line
    (["fit", *BINARY, "--schema", "no-such.json"], "either in --schema FILE or with --numeric/--categorical"),
    (["fit", *_without(BINARY, "--numeric", "--data-norm")], "no feature columns"),
    (["fit", *_without(BINARY, "--data-norm")], "--data-norm R is required"),
    (["fit", *BINARY, "--numeric", "y:0:1"], "the target column 'y' is also a feature column"),
    (["fit", *BINARY, "--categorical", "a:u,v"], "column names repeat"),
    # a category list split at a comma inside a category ("New York, NY") or with an empty entry, as --classes
    (["fit", *BINARY, "--categorical", "k:New York, NY,x"], "column 'k': entry 2 of 'New York, NY,x' has surrounding "
     "spaces, which would be dropped: give the categories separated by commas alone (a,b,c); a category that holds "
     "a comma is declared in a --schema file"),
    (["fit", *BINARY, "--categorical", "k:x,,y"], "column 'k': entry 2 of 'x,,y' is empty"),
    (["fit", *BINARY, "--categorical", "k:x,y,"], "column 'k': entry 3 of 'x,y,' is empty"),
    (["fit", *BINARY, "--impute", "c=1"], "--impute names ['c'], which are not numeric feature columns"),
    (["fit", *BINARY, "--impute", "a=11"], "must lie in the public bounds [0.0, 10.0]"),
    (["fit", *BINARY, "--impute", "a=1", "--impute", "a=2"], "--impute gives ['a'] more than one value"),
    # how the file is read: before the names file is
    (["fit", *BINARY, "--names-file", "no-such.txt"], "--names and --names-file are for a file without a header"),
    (["fit", *BINARY, "--no-header", "--names", "a,b", "--names-file", "no-such.txt"], "not both"),
    (["fit", "no-such.parquet", *BINARY[1:], "--skip-lines", "1"], "--skip-lines describe CSV files"),
    (["fit", "no-such.pq", *BINARY[1:], "--no-header", "--names-file", "no-such.txt"], "describe CSV files"),
    # verify and predict
    (["verify", "--loss", "nonesuch"], "--loss: unknown loss 'nonesuch'"),
    (["verify", "--loss", "logistic", "--regularizer", "l2.txt"], "--regularizer takes a Python file"),
    (["predict", "no-such.json", MISSING, "--threshold", "1.5"],
     "usage error: argument --threshold: --threshold must lie in (0, 1), got 1.5 (see: dpcvx predict --help)"),
    (["predict", "no-such.json", MISSING, "--names-file", "no-such.txt"], "are for a file without a header"),
    (["predict", "no-such.json", "no-such.parquet", "--skip-lines", "2"], "describe CSV files"),
]


@pytest.mark.parametrize("args, message", USAGE, ids=[" ".join(args[2:])[-70:] for args, _ in USAGE])
def test_a_combination_wrong_whatever_the_data_is_a_usage_error_before_any_file(tmp_path, monkeypatch, capsys, args,
                                                                                message):
    monkeypatch.chdir(tmp_path)
    out = ["--out", "m.json"] if args[0] == "fit" else []
    assert main([*args, *out]) == 2
    error = capsys.readouterr().err
    assert error.startswith("dpcvx: usage error: ") and message in error and len(error.splitlines()) == 1, error
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.fixture()
def table(tmp_path):
    lines = ["a,b,t,y,k"] + [f"{i % 10},{(3 * i) % 10},{(i % 10) - 4.5},{'pos' if i % 3 else 'neg'},"
                             f"{['x', 'y', 'z'][i % 3]}" for i in range(300)]
    path = tmp_path / "d.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_what_depends_on_the_data_or_a_file_stays_an_input_error(table, tmp_path, capsys):
    out = str(tmp_path / "m.json")
    base = [str(table), *FEATURES, "--epsilon", "1", "--out", out]
    assert main(["fit", *base, "--target", "y", "--positive", "pos", "--delta", "0.5"]) == 3  # delta >= 1/n: n
    assert "is not below 1/n" in capsys.readouterr().err
    assert main(["fit", *base, "--target", "k", "--classes", "x,y"]) == 3  # a label outside the classes
    assert "not among --classes" in capsys.readouterr().err
    schema = tmp_path / "s.json"
    schema.write_text('{"format": "dpcvx-schema", "version": 2, "encoding": "centred", "norm": 1.0, "strict": false, '
                      '"constant_feature": false, "columns": [{"name": "a", "kind": "numeric", "lo": 0.0, "hi": 10.0, '
                      '"source": ""}]}')
    assert main(["fit", str(table), "--schema", str(schema), "--impute", "b=1", "--target", "y", "--positive", "pos",
                 "--epsilon", "1", "--out", out]) == 3  # the schema file's columns
    assert "--impute names ['b']" in capsys.readouterr().err
    names = tmp_path / "names.txt"
    names.write_text("a\nb\na\n")
    assert main(["fit", str(table), "--no-header", "--names-file", str(names), "--target", "y", "--positive", "pos",
                 *FEATURES, "--epsilon", "1", "--out", out]) == 3  # the names file's content
    assert "names file" in capsys.readouterr().err
    (tmp_path / "folder.py").mkdir()
    assert main(["verify", "--loss", str(tmp_path / "folder.py")]) == 3  # a directory given as the loss file
    assert "is a directory, not a file" in capsys.readouterr().err


def test_split_is_still_read_by_objective_perturbation(table, tmp_path, capsys):
    out = tmp_path / "m.json"
    assert main(["fit", str(table), "--target", "y", "--positive", "pos", *FEATURES, "--epsilon", "1",
                 "--split", "paper", "--random-state", "0", "--out", str(out)]) == 0, capsys.readouterr().err
    assert "calibration (paper split)" in capsys.readouterr().out


def test_an_unrecognized_word_points_at_its_commands_help(capsys):
    assert main(["predict", "m.json", "d.csv", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus (see: dpcvx predict --help)" in capsys.readouterr().err


def test_a_standard_output_that_cannot_be_written_is_one_error_line(tmp_path, capsys, monkeypatch):
    """`dpcvx report model.json > /dev/full` ended in a Python traceback (OSError, errno 28) and exit status 1, the
    status of a bug; it is a file error's line and status now, and a file written before is whole."""
    import errno

    from dpcvx.cli import main
    from dpcvx.cli.exit_codes import EXIT_INPUT

    data = tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{i / 100:.2f},{'a' if i % 3 else 'b'}\n" for i in range(100)))
    model = tmp_path / "m.json"
    assert main(["fit", str(data), "--target", "y", "--positive", "a", "--numeric", "x:0:1", "--data-norm", "1",
                 "--epsilon", "1", "--out", str(model)]) == 0
    capsys.readouterr()

    class Full:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def flush(self):
            pass

    monkeypatch.setattr("sys.stdout", Full())
    assert main(["report", str(model)]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err.startswith("dpcvx: input error: standard output could not be written (OSError: [Errno 28] No space")
    assert "Traceback" not in err and model.exists()


@pytest.mark.parametrize("argv", [["fit", "train.csv", "--bogus"], ["fit", "train.csv", "--bogus=1", "--epsilon", "1"],
                                  ["report", "m.json", "--outt", "r.md"]])
def test_a_misspelt_option_is_named_before_the_required_ones_it_hid(capsys, argv):
    """`dpcvx fit train.csv --bogus` said "the following arguments are required: --target, --epsilon, --out" and
    never named --bogus: argparse checks the required options before the unknown ones."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"unrecognized arguments: {argv[2]} (see: dpcvx {argv[0]} --help)" in err and "required" not in err


BEYOND = "is beyond the range of a double-precision float, which reads it as"


@pytest.mark.parametrize("option, text, quoted", [
    ("--epsilon", "1e-400", "got '1e-400': 1e-400 " + BEYOND + " 0.0"),
    ("--epsilon", "1e400", "got '1e400': 1e400 " + BEYOND + " inf"),
    ("--delta", "1e-400", "got '1e-400': 1e-400 " + BEYOND + " 0.0"),
    ("--delta", "-1e-400", "got '-1e-400': -1e-400 " + BEYOND + " -0.0"),
    ("--data-norm", "1e-400", "got '1e-400': 1e-400 " + BEYOND),
    ("--label-bound", "1e-400", "got '1e-400': 1e-400 " + BEYOND),
    ("--label-bound", "0,1e400", "got '0,1e400': 1e400 " + BEYOND + " inf"),
    ("--lam", "1e-400", "got '1e-400': 1e-400 " + BEYOND),
    ("--threshold", "1e-400", "got '1e-400': 1e-400 " + BEYOND),
    ("--class-prior", "1e-400,1", "got '1e-400,1': 1e-400 " + BEYOND),
    ("--numeric", "c:-1e-400:0", "got 'c:-1e-400:0': -1e-400 " + BEYOND),
    ("--impute", "a=1e400", "got 'a=1e400': 1e400 " + BEYOND),
    ("--delta", "1e-320", "--delta 1e-320 is subnormal"),
    ("--epsilon", "1e-320", "--epsilon 1e-320 is outside the range"),
])
def test_a_refused_number_is_quoted_as_written(tmp_path, monkeypatch, capsys, option, text, quoted):
    """`--epsilon 1e-400` reported "got 0.0" (and 1e400 "got inf", a subnormal 1e-320 "9.99989e-321"): a number the
    float cannot hold is refused quoting what was written, at every number of an option."""
    monkeypatch.chdir(tmp_path)
    assert main(["fit", *BINARY, option, text, "--out", "m.json"]) == 2
    error = capsys.readouterr().err
    assert quoted in error and "got 0.0" not in error and "got inf" not in error, error
    assert list(tmp_path.iterdir()) == []


def test_the_help_states_which_value_refusals_are_2_and_which_3(tmp_path, capsys):
    """A script could not tell a bad value (3) from bad usage (2) by the help's "2 usage error; 3 input error (file,
    value, parameter)", though --delta 1 gives 2 and --delta 0.5 gives 3. The rule, stated in dpcvx --help: 2 for
    options wrong whatever the data (a bad value among them), before any file is read; 3 for a file or a value
    wrong for the data or the model read."""
    assert main(["--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "2 usage error: options wrong whatever the data, a bad value among them, refused before any file is read" \
        in said
    assert "3 input error: a file, or a value wrong for the data or the model read (a --delta of 1/n or more)" in said
    assert main(["fit", *BINARY, "--delta", "1", "--out", str(tmp_path / "m.json")]) == 2  # no file read
    rows = ["a,b,y"] + [f"{i % 10},{(3 * i) % 10},{'pos' if i % 2 else 'neg'}" for i in range(40)]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    data = [str(tmp_path / "d.csv"), *BINARY[1:]]
    assert main(["fit", *data, "--delta", "0.5", "--out", str(tmp_path / "m.json")]) == 3  # 0.5 >= 1/n: the data's n
    assert not (tmp_path / "m.json").exists()


def test_fit_help_names_the_two_defaults_that_differ_from_the_estimators(capsys):
    """fit --help said the fit has the Python estimator's defaults, while --data-norm is required (data_norm=1.0 in
    Python) and --delta defaults to 0 (DPLinearRegression's delta to 1e-6): the same options gave another outcome."""
    assert main(["fit", "--help"]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "its defaults (lam 'auto', an intercept, private column statistics by its public rule) but two" in said
    assert ("The two: --data-norm is required with --numeric/--categorical (the estimators' data_norm defaults to 1), "
            "and --delta defaults to 0, pure epsilon (DPLinearRegression's delta to 1e-6): the default regression "
            "needs --delta.") in said


@pytest.mark.parametrize("words, said", [
    (["fit", MISSING, "--label", "label", *FEATURES, "--epsilon", "1", "--out", "m.json"],
     "argument --label-bound: must be a positive number, got 'label'; --label was read as --label-bound, the one "
     "option it abbreviates: the label column is --target COLUMN (see: dpcvx fit --help)"),
    (["fit", *BINARY[:-2], "--eps", "-1", "--out", "m.json"],
     "; --eps was read as --epsilon, the one option it abbreviates: if you meant another option, write its whole "
     "name (see: dpcvx fit --help)"),
])
def test_a_refused_value_of_an_abbreviated_option_says_which_option_it_was_read_as(capsys, tmp_path, monkeypatch,
                                                                                   words, said):
    """dpcvx fit ... --label label (the label column is --target) was refused as "argument --label-bound: must be a
    positive number, got 'label'", an option the user never wrote (argparse read --label as its abbreviation)."""
    monkeypatch.chdir(tmp_path)
    assert main(words) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize("joined", ["a:-10:10,b:-10:10,zz:-10:10", "a:0:1:log,b:0:1"])
def test_comma_joined_numeric_columns_are_a_usage_error_that_says_to_repeat_the_option(tmp_path, monkeypatch, capsys,
                                                                                        joined):
    """``--numeric a:-10:10,b:-10:10`` was read as one column named "a:-10:10,b" and exited 3 ("d.csv has no
    column(s) ['a:-10:10,b:-10:10,zz']") after opening the file; it is a usage error naming the fix, before any file
    is read (session 62, probeC F9). A column whose name holds a comma alone is still one column."""
    monkeypatch.chdir(tmp_path)
    code = main(["fit", "missing.csv", "--target", "y", "--numeric", joined, "--data-norm", "1", "--out", "m.json"])
    err = capsys.readouterr().err
    assert code == 2 and "one column per --numeric: repeat the option (--numeric " in err, err
    assert "missing.csv" not in err and not (tmp_path / "m.json").exists()
    from dpcvx.cli.parser import _numeric_column

    assert _numeric_column("a,b:0:1").name == "a,b"  # one name with a comma, then its bounds
