"""Labels that are a declared class but for letter case or surrounding spaces ("agree", "AGREE " for --classes
Agree): the command line says so in the Python API's words (:func:`dpcvx.validation.near_miss_note`) and advises
normalising the file's column. It said "list every one", which would have made "agree" and "AGREE" classes of their
own, another model (a sixty-sixth session probe)."""

import numpy as np
import pytest
from csv_files import write

import dpcvx
from dpcvx.cli import main
from dpcvx.exceptions import InputError, UndeclaredCategoryWarning
from dpcvx.tables import NEAR_SPELLING

CLASSES = ("Agree", "Disagree", "Neutral")
#: 8 of the 60 labels are a class but for case or spaces (CSV cells lose leading spaces; trailing ones stay)
LABELS = ["Agree", "Disagree", "Neutral", "agree", "Neutral", "DISAGREE ", "Agree", "Disagree", "Neutral",
          "Agree"] * 4 + ["Agree", "Disagree", "Neutral", "Agree", "Disagree"] * 4
NOTE = f"differ from a declared class only in {NEAR_SPELLING}: "


def fit(tmp_path, capsys, data, *labels):
    code = main(["fit", data, "--target", "label", *labels, "--numeric", "x:0:1", "--epsilon", "1", "--data-norm",
                 "1", "--out", str(tmp_path / "m.json"), "--overwrite"])
    return code, capsys.readouterr().err


@pytest.fixture
def survey(tmp_path):
    return write(tmp_path / "survey.csv", ["x", "label"], [[i / 60, label] for i, label in enumerate(LABELS)])


def test_classes_that_differ_only_in_case_are_told_to_normalise_the_column_not_to_list_them(tmp_path, capsys,
                                                                                           survey):
    code, err = fit(tmp_path, capsys, survey, "--classes", ",".join(CLASSES))
    assert code == 3, err
    assert "8 row(s) of column 'label' are not among --classes; the first is row 3" in err
    assert f"(8 of them {NOTE}normalise the column in the file first" in err
    assert "list every one" not in err  # each spelling listed would be a class of its own
    assert "agree" not in err.replace("Agree", "") and "DISAGREE" not in err  # counts, never a value
    assert not (tmp_path / "m.json").exists()


def test_the_command_line_and_the_api_count_the_near_misses_in_one_wording(tmp_path, capsys, survey):
    _, err = fit(tmp_path, capsys, survey, "--class", "Agree", "--class", "Disagree", "--class", "Neutral")
    labels = np.array([label.lstrip() for label in LABELS], dtype=object)  # as the CSV reader gives them
    with pytest.raises(InputError) as refused:
        dpcvx.DPLogisticRegression(epsilon=1, classes=CLASSES).fit(np.linspace(0, 1, 60)[:, None], labels)
    assert f"(8 of them {NOTE}normalise y first" in str(refused.value)
    assert f"(8 of them {NOTE}normalise the column in the file first" in err


def test_other_labels_outside_the_classes_are_still_told_to_list_every_class(tmp_path, capsys):
    data = write(tmp_path / "d.csv", ["x", "label"], [[i / 60, CLASSES[i % 3] if i % 7 else "Unsure"]
                                                     for i in range(60)])
    code, err = fit(tmp_path, capsys, data, "--classes", ",".join(CLASSES))
    assert code == 3 and "list every one" in err and "letter case" not in err


def test_a_pair_of_values_gets_the_same_note(tmp_path, capsys):
    data = write(tmp_path / "d.csv", ["x", "label"], [[i / 60, ["Yes", "No", "yes", "NO "][i % 4]] for i in range(60)])
    code, err = fit(tmp_path, capsys, data, "--positive", "Yes", "--negative", "No")
    assert code == 3
    assert (f"(30 of them differ from a --positive or --negative value only in {NEAR_SPELLING}: "
            "normalise the column in the file first, or give each spelling of a class") in err


def test_one_versus_rest_warns_with_the_same_fix(tmp_path, capsys):
    data = write(tmp_path / "d.csv", ["x", "label"], [[i / 60, ["Yes", "No", "yes "][i % 3]] for i in range(60)])
    with pytest.warns(UndeclaredCategoryWarning) as record:
        code, err = fit(tmp_path, capsys, data, "--positive", "Yes")
    assert code == 0, err
    told = " ".join(str(warning.message) for warning in record)
    assert f"20 row(s) hold a label that differs from a --positive value only in {NEAR_SPELLING}: 'yes'." in told
    assert "Give each spelling of the positive class" in told and "normalise the column in the file first" in told
