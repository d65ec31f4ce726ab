"""The values of pair options (--label-bound LO,HI, --class-prior NEG,POS) in the forms a user types: spaces around
the comma when quoted ('-5, 5'), and a pair split by the shell (--label-bound -5, 5) refused saying which form to use.
Before, '-5, 5' and '0.97, 0.03' were refused as not two numbers, and '-5,' gave no advice."""

import pytest

from dpcvx.cli.parser import build_parser
from dpcvx.exceptions import UsageError

FIT = ["fit", "d.csv", "--target", "t", "--epsilon", "1", "--out", "m.json"]


@pytest.mark.parametrize("words, attribute, value", [
    (["--label-bound", "-5, 5"], "label_bound", (-5.0, 5.0)),
    (["--label-bound", "-5 ,5"], "label_bound", (-5.0, 5.0)),
    (["--label-bound=-5, 5"], "label_bound", (-5.0, 5.0)),
    (["--label-bound", "-5,5"], "label_bound", (-5.0, 5.0)),
    (["--class-prior", "0.97, 0.03"], "class_prior", (0.97, 0.03)),
])
def test_a_pair_takes_spaces_around_its_comma(words, attribute, value):
    assert getattr(build_parser().parse_args([*FIT, *words]), attribute) == value


@pytest.mark.parametrize("words, advice", [
    (["--label-bound", "-5,", "5"], "a pair is one word: --label-bound -5,5 (or --label-bound=-5,5), or quoted when "
                                    "it holds a space: --label-bound '-5, 5'"),
    (["--class-prior", "0.97,", "0.03"], "a pair is one word: --class-prior 0.97,0.03"),
])
def test_a_pair_split_by_the_shell_is_refused_with_the_forms_to_use(words, advice):
    with pytest.raises(UsageError) as refused:
        build_parser().parse_args([*FIT, *words])
    assert advice in str(refused.value)


def test_a_number_keeps_refusing_spaces_inside_it():
    with pytest.raises(UsageError, match="expected B or LO,HI"):
        build_parser().parse_args([*FIT, "--label-bound", "-5,5 0"])
