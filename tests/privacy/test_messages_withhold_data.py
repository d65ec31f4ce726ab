"""Error messages name counts, positions and public facts only: a planted private value never appears.

Each entry point is fed data holding a secret (the label 987654321, the cell "SECRET") that makes it
refuse; the refusal's text (and the CLI's whole output) must not contain the secret. The broken
variant, a message that lists the offending value as the old ones did, is checked to fail the same
assertion, so the assertion can fail.
"""

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.data.datasets import load_adult
from dpcvx.estimators import DPLogisticRegression
from dpcvx.exceptions import InputError
from dpcvx.models.multiclass import PrivateMulticlassERM

SECRET_LABEL = 987654321
SECRET_CELL = "SECRET"
SECRETS = (str(SECRET_LABEL), SECRET_CELL)
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


def test_the_check_fails_on_a_message_that_lists_the_value():
    broken = InputError(f"y has labels outside the declared classes (0, 1): {SECRET_LABEL!r}")
    assert leaked(str(broken))


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
