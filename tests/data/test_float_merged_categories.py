"""Two declared values that a float reads as one: the refusal's "the data need not change" advice only where they
spell one number.

Analyst probe P7 (session 68, finding 4): ``CategoricalColumn("c", ("9007199254740993", "9007199254740992"))`` is
refused (a float column holds both as 2**53), rightly, but the refusal added "the data need not change: with
'9007199254740993' declared, cells spelled '9007199254740992' are read as '9007199254740993'": for two different
integers that advice merges two real values silently. It stays for spellings of one number (7 and 07, TRUE and 1),
in a schema's categories and in a fit's classes alike (dpcvx.tables.kept_spelling).
"""

from __future__ import annotations

import pytest

import dpcvx
from dpcvx.tables import kept_spelling

ADVICE = "the data need not change"


@pytest.mark.parametrize("pair", [("9007199254740993", "9007199254740992"), (9007199254740993, 9007199254740992),
                                  ("0x20000000000001", "9007199254740992")])
def test_two_numbers_a_float_merges_are_not_told_to_keep_their_spelling(pair):
    with pytest.raises(dpcvx.InputError) as raised:
        dpcvx.CategoricalColumn("c", pair)
    message = str(raised.value)
    assert ADVICE not in message and "different numbers that a float holds as one" in message, message
    assert "recode them" in message
    with pytest.raises(dpcvx.InputError) as classes:
        dpcvx.DPLogisticRegression(classes=pair).fit([[0.1], [0.2]], [pair[0], pair[1]])
    assert ADVICE not in str(classes.value) and "the other's labels" in str(classes.value), str(classes.value)


@pytest.mark.parametrize("pair", [("7", "07"), ("TRUE", "1"), ("7", "7.0"), ("0x10", "16")])
def test_spellings_of_one_number_keep_the_advice(pair):
    with pytest.raises(dpcvx.InputError) as raised:
        dpcvx.CategoricalColumn("c", pair)
    assert f"{ADVICE}: with {pair[0]!r} declared, cells spelled {pair[1]!r} are read as {pair[0]!r}" in str(
        raised.value)
    assert "a float holds as one" not in kept_spelling(*pair, "cells")
