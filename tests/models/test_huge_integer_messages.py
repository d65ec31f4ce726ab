"""An integer too long for Python to turn into text (more than 4,300 digits) is refused with the typed error every
other bad value gets, its message naming its number of digits: the one message formatter (validation._short) counts
them without converting the integer to text (each place had its own, which raised ValueError there)."""

import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.models.pinp import PINP

HUGE = 10**5000  # 5,001 digits: str() and repr() raise ValueError


def test_a_budget_of_a_huge_integer_is_an_input_error():
    with pytest.raises(InputError, match="epsilon must be .*got an integer of 5001 digits"):
        dpcvx.PrivateERM().check_options(HUGE)


def test_a_kernel_count_of_a_huge_integer_is_an_input_error():
    with pytest.raises(InputError, match="max_queries must be at most .*got an integer of 5001 digits"):
        PINP("rbf", gamma=1.0, lam=0.1, max_queries=HUGE)


def test_a_long_value_is_cut_and_a_short_one_kept():
    from dpcvx.validation import _short

    assert _short(10**60) == "an integer of 61 digits" and _short(10**60 - 1) == "9" * 60
    assert _short("a" * 100) == repr("a" * 100)[:40] + "..." + repr("a" * 100)[-10:]
    assert _short(True) == "True" and _short(2.5) == "2.5"
