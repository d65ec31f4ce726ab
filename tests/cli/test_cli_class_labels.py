"""Class labels with commas or surrounding spaces: --class LABEL (repeatable) takes each label whole, as --positive
does; --classes A,B,C refuses an entry with surrounding spaces instead of dropping them. Before, --classes stripped
each entry and split on every comma, so such labels could not be declared, and ' a' was silently read as 'a'."""

import csv

import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.cli.parser import build_parser

FEATURES = ["--numeric", "a:0:10", "--data-norm", "1", "--epsilon", "1", "--random-state", "0"]
LABELS = ["low, or none", "mid", "high"]


def test_labels_with_commas_are_declared_whole_with_class(tmp_path, capsys):
    data = tmp_path / "d.csv"
    with open(data, "w", newline="") as handle:  # the csv module quotes the label with a comma
        writer = csv.writer(handle)
        writer.writerow(["a", "k"])
        writer.writerows([i % 10, LABELS[i % 3]] for i in range(300))
    out = tmp_path / "m.json"
    classes = [word for label in LABELS for word in ("--class", label)]
    assert main(["fit", str(data), "--target", "k", *classes, *FEATURES, "--out", str(out)]) == 0, \
        capsys.readouterr().err
    assert dpcvx.load(out).classes_.tolist() == LABELS
    # --classes splits on every comma: the label 'low, or none' is two entries, the second with a space
    assert main(["fit", str(data), "--target", "k", "--classes", ",".join(LABELS), *FEATURES, "--out",
                 str(tmp_path / "n.json")]) == 2
    assert "entry 2 of 'low, or none,mid,high' has surrounding spaces" in capsys.readouterr().err


def test_labels_with_surrounding_spaces_are_kept_by_class(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    labels = [" x", "x", "y "]  # a Parquet file keeps its text as written: three classes
    data = tmp_path / "d.parquet"
    pq.write_table(pa.table({"a": [float(i % 10) for i in range(300)], "k": [labels[i % 3] for i in range(300)]}),
                   data)
    out = tmp_path / "m.json"
    classes = [word for label in labels for word in ("--class", label)]
    assert main(["fit", str(data), "--target", "k", *classes, *FEATURES, "--out", str(out)]) == 0, \
        capsys.readouterr().err
    assert dpcvx.load(out).classes_.tolist() == labels


@pytest.mark.parametrize("text", [" x,x,y ", "a, b", "a ,b"])
def test_classes_refuses_surrounding_spaces_naming_class(text):
    with pytest.raises(dpcvx.exceptions.UsageError, match="has surrounding spaces, which would be dropped.*--class "
                                                          "LABEL"):
        build_parser().parse_args(["fit", "d.csv", "--target", "k", "--classes", text, "--epsilon", "1",
                                   "--out", "m.json"])


def test_names_keep_their_spaces_stripped():
    """--names are the user's own names for a headerless file's columns (a header row's cells are stripped alike)."""
    args = build_parser().parse_args(["fit", "d.csv", "--target", "k", "--names", "a, b, k", "--epsilon", "1",
                                      "--out", "m.json"])
    assert args.names == ("a", "b", "k")
