"""The missing indicator is an option with a cost, not part of the fix for a missing-value code. Analyst probe P3
(session 66, finding 1): the OutOfBoundsWarning about a code advised NumericColumn(..., missing=VALUE,
missing_codes=(CODE,), missing_indicator=True); on a survey of 20 items that doubled d, and the SmallTableWarning that
then fired advised "fewer encoded columns": two warnings, opposite advice. Now the code's fix is missing_codes with
a public imputed value; the indicator is named as an option that costs one encoded column under noise of order
d / (n epsilon), and the SmallTableWarning counts it among the columns to leave out. Fixed texts, public words."""

import numpy as np
import pytest

from dpcvx import NumericColumn, PublicSchema
from dpcvx.exceptions import OutOfBoundsWarning, SmallTableWarning
from dpcvx.sklearn.noise_warning import warn_if_small_table


def test_the_code_warning_gives_the_indicator_as_an_option_with_its_cost():
    rng = np.random.default_rng(0)
    answers = rng.integers(1, 6, 2000).astype(float)
    answers[rng.permutation(2000)[:200]] = 9.0  # "don't know"
    with pytest.warns(OutOfBoundsWarning) as caught:
        PublicSchema([NumericColumn("q00", 1, 5)]).transform({"q00": answers})
    text = str(caught[0].message)
    assert "NumericColumn('q00', ..., missing=VALUE, missing_codes=(CODE,)))" in text, text
    assert "missing_codes=(CODE,), missing_indicator=True" not in text, text  # not part of the fix
    assert ("missing_indicator=True would add a 0/1 column that tells the code from VALUE, at a cost: one more "
            "encoded column, and a private fit's noise grows with d / (n epsilon)") in text, text


def test_the_small_table_warning_counts_the_indicator_among_the_columns():
    with pytest.warns(SmallTableWarning) as caught:
        warn_if_small_table("owner", 1000, 40, 1.0)
    text = str(caught[0].message)
    assert "fewer encoded columns" in text.lower()
    assert ("a numeric column's missing indicator, where the schema declares one, is one more: leaving the "
            "indicators out can help or hurt") in text


def test_fewer_columns_are_a_choice_that_can_help_or_hurt_not_a_gain():
    """Analyst probe P8 (session 69, finding 7): on a clinical table (3 % positives, 40 labs with indicators) leaving
    the indicators out (d 80 to 40) moved balanced accuracy by -0.07 to +0.04, by the class setting and epsilon, where
    the warning listed it under "To gain" and said "leave it out unless a missing value tells much"."""
    with pytest.warns(SmallTableWarning) as caught:
        warn_if_small_table("owner", 1000, 80, 1.0)
    text = str(caught[0].message)
    gain = text[text.index("To gain:"):]
    assert gain.startswith("To gain: more rows, a larger epsilon. Fewer encoded columns raise n epsilon / d too")
    assert "can help or hurt" in gain and "leave it out unless" not in text
