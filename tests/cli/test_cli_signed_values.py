"""An option's value that begins with '-' follows the option after a space, as after '=' (dpcvx.cli.parser._Parser):
argparse took such a word for an option unless it was a plain negative number, so --label-bound -5,5 (documented
with '=' only) and --epsilon -1e-3 failed with argparse's "expected one argument"."""

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.cli.parser import build_parser


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0, 10, 600), rng.uniform(0, 10, 600)
    target = 0.3 * a - 0.2 * b + rng.normal(0, 0.5, 600)
    path = tmp_path / "d.csv"
    path.write_text("\n".join(["a,b,t"] + [f"{a[i]:.3f},{b[i]:.3f},{target[i]:.3f}" for i in range(600)]) + "\n")
    return path


FIT = ["--target", "t", "--task", "regression", "--numeric", "a:0:10", "--numeric", "b:0:10", "--data-norm", "1.5",
       "--loss", "huber_regression:m=1", "--lam", "1e-3", "--no-fit-intercept", "--epsilon", "1", "--random-state",
       "0"]


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")  # a small table's
def test_a_negative_label_range_after_a_space_fits_as_after_equals(table, tmp_path):
    spaced, joined = tmp_path / "spaced.json", tmp_path / "joined.json"
    assert main(["fit", str(table), *FIT, "--label-bound", "-3,7", "--out", str(spaced)]) == 0
    assert main(["fit", str(table), *FIT, "--label-bound=-3,7", "--out", str(joined)]) == 0
    first, second = dpcvx.load(spaced), dpcvx.load(joined)
    assert first.certificate.label_shift == 2.0  # the range's centre: -3,7 read as a range
    np.testing.assert_array_equal(first.coef_, second.coef_)


@pytest.mark.parametrize("option, value, words", [
    ("--epsilon", "-1e-3", "epsilon must be finite and positive, got -0.001"),
    ("--delta", "-1e-6", "argument --delta"),
    ("--label-bound", "-5,-7", "expected B or LO,HI with public numbers LO < HI"),
    ("--class-prior", "-0.5,1.5", "--class-prior set options of a classifier"),
], ids=["epsilon", "delta", "label-bound", "class-prior"])
def test_a_bad_value_beginning_with_a_minus_is_refused_by_its_own_check(table, tmp_path, capsys, option, value, words):
    out = tmp_path / "m.json"
    labels = ["--label-bound", "5"] if option != "--label-bound" else []
    assert main(["fit", str(table), *[word for word in FIT if word != "--no-fit-intercept"], *labels, option, value,
                 "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert words in error and "expected one argument" not in error  # before: argparse's words, the option's check unrun
    assert not out.exists()


def test_options_and_plain_negative_numbers_are_read_as_before(tmp_path, capsys):
    parser = build_parser()
    # a word beginning with '--' stays an option (its value missing); one of the command's options stays that option
    with pytest.raises(dpcvx.exceptions.UsageError, match="--epsilon: expected one argument"):
        parser.parse_args(["fit", "d.csv", "--target", "t", "--epsilon", "--out", "m.json"])
    assert main(["fit", "--label-bound", "-h"]) == 2
    assert "--label-bound: expected one argument" in capsys.readouterr().err
    # a plain negative number reaches its option's check, as argparse passed it; nothing after '--' is joined
    assert main(["demo", "--n", "-5"]) == 2 and "n must be an integer from" in capsys.readouterr().err
    args = parser.parse_args(["fit", "--target", "t", "--epsilon", "1", "--out", "m.json", "--label-bound", "-1,1",
                              "--", "-data.csv"])
    assert args.data == "-data.csv" and args.label_bound == (-1.0, 1.0)


def test_an_abbreviated_option_takes_a_value_beginning_with_a_minus_as_its_whole_name_does():
    """argparse reads --label as --label-bound (a prefix of one option); its value -1,1 was "expected one argument"."""
    parser = build_parser()
    args = parser.parse_args(["fit", "d.csv", "--target", "t", "--epsilon", "1", "--out", "m.json", "--label", "-1,1"])
    assert args.label_bound == (-1.0, 1.0)
    with pytest.raises(dpcvx.exceptions.UsageError, match="epsilon must be finite and positive, got -0.001"):
        parser.parse_args(["fit", "d.csv", "--target", "t", "--eps", "-1e-3"])  # its own check, not argparse's words
    # a prefix of several options stays argparse's to report (--n names --negative, --numeric, --no-fit-intercept...)
    with pytest.raises(dpcvx.exceptions.UsageError, match="ambiguous option: --n"):
        parser.parse_args(["fit", "d.csv", "--target", "t", "--n", "-1"])
