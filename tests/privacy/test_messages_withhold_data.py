"""Error messages name counts, positions and public facts only: a planted private value never appears.

Each entry point is fed data holding a secret (the label 987654321, the cell "SECRET") that makes it
refuse; the refusal's text (and the CLI's whole output) must not contain the secret. The broken
variant, a message that lists the offending value as the old ones did, is checked to fail the same
assertion, so the assertion can fail.
"""

import gzip
import zlib

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data.csv_table import read_table_columns
from dpcvx.data.datasets import load_adult
from dpcvx.data.kernels import CallableKernel, LinearKernel
from dpcvx.exceptions import InputError
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.tuning.checks import plan_candidate
from dpcvx.sklearn.classifiers import DPLogisticRegression
from dpcvx.sklearn.regressors import DPLinearRegression

SECRET_LABEL = 987654321
SECRET_CELL = "SECRET"
# the secret as numpy and Python print it too (a 1-D array in a message, a norm formatted :g)
SECRETS = (str(SECRET_LABEL), SECRET_CELL, f"{SECRET_LABEL:g}", f"{float(SECRET_LABEL)!r}")
X = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4], [0.0, 0.1]])


def leaked(text: str) -> bool:
    return any(secret in text for secret in SECRETS)


def labels_with_secret(classes=(0, 1)):
    return np.array([classes[0], classes[1], SECRET_LABEL, classes[0]])


def table(cell):
    return {"age": np.array(["30", cell, "40"], dtype=object), "sex": np.array(["Male", "Female", "Male"])}


SCHEMA = dpcvx.PublicSchema((dpcvx.NumericColumn("age", 17, 90), dpcvx.CategoricalColumn("sex", ("Female", "Male"))),
                            strict=True)

ENTRY_POINTS = {
    "estimator, binary labels": lambda: DPLogisticRegression(random_state=0).fit(X, labels_with_secret()),
    "estimator, multiclass labels": lambda: DPLogisticRegression(classes=(0, 1, 2), random_state=0).fit(
        X, labels_with_secret()),
    "PrivateERM labels": lambda: dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(
        X, labels_with_secret((-1, 1)), epsilon=1.0, random_state=0),
    "PrivateMulticlassERM labels": lambda: PrivateMulticlassERM(
        dpcvx.PrivateERM(lam=0.1, data_norm=1.0), (0, 1, 2)).fit(X, labels_with_secret(), 1.0, random_state=0),
    "X cell that is not a number": lambda: dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(
        np.array([[0.1, SECRET_CELL], [0.2, 0.3]], dtype=object), np.array([-1, 1]), epsilon=1.0),
    "schema, numeric cell": lambda: SCHEMA.transform(table(SECRET_CELL)),
    "schema, unknown category": lambda: SCHEMA.transform(
        {"age": np.array([30.0]), "sex": np.array([SECRET_CELL])}),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_refusal_names_no_private_value(entry):
    with pytest.raises(InputError) as caught:
        ENTRY_POINTS[entry]()
    assert not leaked(str(caught.value)), str(caught.value)
    assert "row" in str(caught.value)  # it still says where


def kernel_quoting_its_input(A, B):
    """A user's kernel that refuses a large feature, quoting it, as user code may."""
    if np.abs(A).max() > 1e6:
        raise ValueError(f"feature out of range: {A.max():.0f}")
    return A @ B.T


class LearnerCheckingOnTheData:
    """A user's learner whose input check raises a TypeError that quotes a label."""

    def fit(self, X, y):
        return self

    def check_fit_inputs(self, X, y):
        raise TypeError(f"label {y[2]} is not a class")


X_SECRET = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, float(SECRET_LABEL)], [0.0, 0.1]])
X_CELL = np.array([[0.1, 0.2], [0.3, SECRET_CELL], [-0.2, 0.4], [0.0, 0.1]], dtype=object)
Y_REAL = np.array([0.1, -0.2, 0.3, 0.0])

# The refusals that a foreign exception's text (numpy's, scikit-learn's, a user callable's) would quote.
FOREIGN_TEXT = {
    "kernel callable": lambda: dpcvx.PINP(kernel=CallableKernel(kernel_quoting_its_input, 1.0), lam=0.1,
                                          max_queries=1).fit(X_SECRET, [1, -1, 1, -1], epsilon=1.0),
    "estimator, X cell that is not a number": lambda: DPLogisticRegression(random_state=0).fit(X_CELL, [0, 1, 1, 0]),
    "estimator, 1-D X": lambda: DPLogisticRegression(random_state=0).fit(
        np.array([1, 2, SECRET_LABEL, 4]), [0, 1, 1, 0]),
    "estimator predict, X cell": lambda: DPLogisticRegression(random_state=0).fit(X, [0, 1, 1, 0]).predict(X_CELL),
    "regressor, X cell": lambda: DPLinearRegression(random_state=0).fit(X_CELL, Y_REAL),
    "regressor, y cell": lambda: DPLinearRegression(random_state=0).fit(X, np.array(["0.1", SECRET_CELL, "0", "1"])),
    "regressor predict, X cell": lambda: DPLinearRegression(random_state=0).fit(X, Y_REAL).predict(X_CELL),
    "PrivateERM, 1-D X": lambda: dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(
        np.array([0.1, SECRET_CELL], dtype=object), np.array([-1, 1]), epsilon=1.0),
    "tune, a learner's check": lambda: plan_candidate(LearnerCheckingOnTheData(), X, labels_with_secret(), {}),
    "kernel query above the bound": lambda: dpcvx.PINP(kernel=LinearKernel(1.0), lam=0.1, max_queries=2).fit(
        X, [1, -1, 1, -1], epsilon=1.0, random_state=0).predict(X_SECRET),
}


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.NoiseDominatesWarning")
@pytest.mark.parametrize("entry", FOREIGN_TEXT)
def test_refusal_quotes_no_foreign_text_on_the_data(entry):
    with pytest.raises(InputError) as caught:
        FOREIGN_TEXT[entry]()
    assert not leaked(str(caught.value)), str(caught.value)
    assert caught.value.__cause__ is None or not leaked(str(caught.value.__cause__))  # nor in a traceback


def test_uci_loader_names_no_byte_of_the_file(tmp_path):
    (tmp_path / "adult.test").write_text("39, State-gov\n")
    (tmp_path / "adult.data.gz").write_bytes(b"987654321, State-gov\n")  # not gzip: gzip quotes b'98'
    with pytest.raises(InputError, match="adult.data.gz is not the plain-text") as caught:
        load_adult(path=tmp_path)
    assert "b'98'" not in str(caught.value), str(caught.value)
    (tmp_path / "adult.data.gz").unlink()
    (tmp_path / "adult.data").write_bytes("39, S\u00c9CRET\n".encode())  # not ASCII: the codec quotes 0xc3
    with pytest.raises(InputError, match="byte 5") as caught:
        load_adult(path=tmp_path)
    assert "0xc3" not in str(caught.value), str(caught.value)


def test_gzip_refusal_names_no_checksum_of_the_content(tmp_path):
    content = b"age,income\n987654321,>50K\n"
    packed = bytearray(gzip.compress(content))
    packed[-8:-4] = (zlib.crc32(content) ^ 1).to_bytes(4, "little")  # the stored CRC no longer matches
    (tmp_path / "data.csv.gz").write_bytes(bytes(packed))
    with pytest.raises(InputError, match="damaged") as caught:
        read_table_columns(tmp_path / "data.csv.gz", ["age", "income"])
    assert f"{zlib.crc32(content):x}" not in str(caught.value), str(caught.value)


def test_the_check_fails_on_a_message_that_lists_the_value():
    broken = InputError(f"y has labels outside the declared classes (0, 1): {SECRET_LABEL!r}")
    assert leaked(str(broken))
    assert leaked(str(ValueError(f"Expected 2D array, got 1D array instead:\narray={np.array([1, 2, SECRET_LABEL])}")))
    assert leaked(f"query row 2 has ||phi(z)|| = {float(SECRET_LABEL):.6g}")


def test_adult_loader_refusal_names_no_label(tmp_path):
    line = ("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, "
            "2174, 0, 40, United-States, {}\n")
    (tmp_path / "adult.data").write_text(line.format("<=50K") + line.format(SECRET_CELL))
    (tmp_path / "adult.test").write_text(line.format(">50K."))
    with pytest.raises(InputError, match=r"1 record\(s\).*record 1") as caught:
        load_adult(path=tmp_path)
    assert not leaked(str(caught.value))


FIT = ("--target", "income", "--positive", ">50K", "--negative", "<=50K", "--numeric", "age:17:90",
       "--categorical", "sex:Female,Male", "--epsilon", "1", "--lam", "1", "--data-norm", "1", "--out", "m.json")


@pytest.mark.parametrize("content", [
    f"{SECRET_LABEL},{SECRET_CELL},>50K\n30,Male,<=50K\n",              # no header row, no --no-header
    f"age,{SECRET_CELL},{SECRET_CELL}\n30,Male,<=50K\n",                  # a repeated cell in the first row
    f"age,sex,income\n{SECRET_CELL},Male,>50K\n",                         # a cell that is not a number
    f"age,sex,income\n30,Male,{SECRET_CELL}\n",                           # a label outside the classes
])
def test_cli_output_names_no_cell_of_the_file(tmp_path, monkeypatch, capsys, content):
    (tmp_path / "data.csv").write_text(content)
    monkeypatch.chdir(tmp_path)
    code = main(["fit", "data.csv", *FIT])
    out = capsys.readouterr()
    assert code != 0 and not leaked(out.out + out.err), out.err


def test_a_solver_error_quotes_no_foreign_text_on_the_data():
    """A failure while CVXPY poses or solves the problem (here a user solver, as a conic solver or an atom's
    canonicalization may, raising a text that prints the problem's data) is refused with its type only."""
    from dpcvx.exceptions import SolverError

    def quoting_solver(program, w):
        raise ValueError(f"bad coefficient {X_SECRET[2, 1]:.0f}")

    for options in (None, {"max_iter": 5}):
        erm = dpcvx.PrivateERM(lam=0.1, data_norm=1e10, solver=quoting_solver, cvxpy_options=options)
        with pytest.raises((SolverError, InputError)) as caught:
            erm.fit_nonprivate(X_SECRET, np.array([-1, 1, 1, -1]))  # a private fit refuses a user solver first
        assert not leaked(str(caught.value)), str(caught.value)
        assert caught.value.__cause__ is None and "ValueError" in str(caught.value)
