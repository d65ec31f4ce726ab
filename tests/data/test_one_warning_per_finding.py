"""A schema's findings about its columns against their declarations come as ONE warning of each kind per call,
naming every column concerned with its public declaration, the fix and the NOT PRIVATE tag: a survey of 20 Likert
items declared [1, 5] without their "Don't know" code 9 gave 20 OutOfBoundsWarnings of 600 characters at fit and 20
more at predict, burying the SmallTableWarning (a sixty-sixth session probe)."""

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import OutOfBoundsWarning, UndeclaredCategoryWarning

ITEMS = [f"q{j:02d}" for j in range(20)]


def _survey(rows=400, seed=0):
    """Answers 1..5, about 15% of each item the code 9 ("Don't know")."""
    rng = np.random.default_rng(seed)
    answers = rng.integers(1, 6, (rows, len(ITEMS))).astype(float)
    answers[rng.random(answers.shape) < 0.15] = 9.0
    return {name: answers[:, j] for j, name in enumerate(ITEMS)}


def test_a_code_in_twenty_items_is_one_warning_naming_the_first_items():
    schema = PublicSchema(tuple(NumericColumn(name, 1, 5) for name in ITEMS))
    for _ in range(2):  # each call (a fit's, a predict's) warns once
        with pytest.warns(OutOfBoundsWarning) as caught:
            schema.transform(_survey())
        assert len(caught) == 1
        text = str(caught[0].message)
        # the first five named (advice.a_few: a table of thousands of columns gets a short message)
        assert text.startswith(f"20 columns, {', '.join(map(repr, ITEMS[:5]))} [1, 5] and 15 more: in each, many "
                               "rows hold one same value outside its public bounds")
        assert "NOT PRIVATE" in text and "missing_codes=(CODE,)" in text and "for each" in text
        shown = text.replace("99, 999", "")
        assert "9" not in shown and "15%" not in shown  # the code and its share are data: never shown


def test_one_column_keeps_its_own_words():
    schema = PublicSchema((NumericColumn("q00", 1, 5), NumericColumn("x", 0, 1)))
    with pytest.warns(OutOfBoundsWarning) as caught:
        schema.transform({"q00": _survey()["q00"], "x": np.zeros(400)})
    assert len(caught) == 1
    assert str(caught[0].message).startswith("column 'q00': many rows hold one same value outside its public bounds "
                                             "[1, 5], each clipped")
    assert "NumericColumn('q00', ..., missing=VALUE" in str(caught[0].message)


def test_columns_mostly_outside_their_bounds_are_one_warning_with_each_columns_bounds():
    schema = PublicSchema((NumericColumn("income", 0, 500), NumericColumn("rent", 0, 50), NumericColumn("debt", 0, 50),
                           NumericColumn("x", 0, 1)))
    wide = np.linspace(1_000, 90_000, 40)  # dollars where thousands are declared, every value once
    with pytest.warns(OutOfBoundsWarning) as caught:
        schema.transform({"income": wide, "rent": wide, "debt": wide, "x": np.zeros(40)})
    assert len(caught) == 1
    text = str(caught[0].message)
    assert text.startswith("3 columns, 'income' [0, 500]; 'rent', 'debt' [0, 50]: in each, more than half of the "
                           "rows lie outside its public bounds")
    assert "NOT PRIVATE" in text and "units" in text and "'x'" not in text


def test_categorical_findings_are_one_warning_of_each_kind():
    regions = ("north", "south")
    schema = PublicSchema((CategoricalColumn("a", regions), CategoricalColumn("b", regions),
                           CategoricalColumn("c", regions), CategoricalColumn("d", regions),
                           CategoricalColumn("e", regions)))
    cased = np.array(["North", "south"] * 20, dtype=object)  # a letter-case near-miss
    spaced = np.array([" north", "south"] * 20, dtype=object)  # a whitespace near-miss
    codes = np.array(["N", "S", "E", "W", "north"] * 8, dtype=object)  # other codes: most rows undeclared
    with pytest.warns(UndeclaredCategoryWarning) as caught:
        schema.transform({"a": cased, "b": cased, "c": spaced, "d": codes, "e": codes})
    texts = sorted(str(warning.message) for warning in caught)
    assert len(texts) == 3, texts
    assert texts[0].startswith("2 columns, 'a', 'b', each holds text that is a declared category but for letter "
                               "case, each encoded as the all-zero block")
    assert "frame['a']" in texts[0] and "likewise for each of the other columns" in texts[0]
    assert texts[1].startswith("2 columns, 'd', 'e': in each, more than half of the rows hold a value outside its "
                               "declared categories")
    assert texts[2].startswith("column 'c' holds text that is a declared category but for surrounding whitespace")
    assert all("NOT PRIVATE" in text and "North" not in text for text in texts)


# every column sits at its bound in every row, which the schema's LevelErasedWarning (a column at one value) names
# too; this test is about the bounds warning
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.LevelErasedWarning")
def test_three_thousand_flagged_columns_give_one_short_warning():
    """Every column of a wide table outside its bounds: one warning, five names and a count, not 3,000 names."""
    names = [f"w{j}" for j in range(3000)]
    schema = PublicSchema(tuple(NumericColumn(name, 0, 1) for name in names))
    with pytest.warns(OutOfBoundsWarning) as caught:
        schema.transform({name: np.full(40, 7.0) for name in names})
    bounds = [w for w in caught if w.category is OutOfBoundsWarning]
    assert len(bounds) == 1
    text = str(bounds[0].message)
    assert text.startswith("3000 columns, 'w0', 'w1', 'w2', 'w3', 'w4' [0, 1] and 2,995 more: in each")
    assert len(text) < 1500 and "'w5'" not in text
