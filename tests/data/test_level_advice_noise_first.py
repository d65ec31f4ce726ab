"""The LevelErasedWarning puts a table bound by noise before its encoding and norm advice (shared_level._noise_first).
Analyst probe P3 (session 66, finding 6): on a bag-of-words table (n epsilon / d = 2.3) the warning advised
encoding='unit' as the fix while the same fit's SmallTableWarning said the table was too small for its d; following
it changed nothing. The clause is a public rule of n and d, the SmallTableWarning's: a fit is bound by noise at
every epsilon below E = SMALL_TABLE_LIMIT d / n, named where E exceeds the default epsilon 1."""

import warnings

import numpy as np
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.data.shared_level import NOISE_FIRST_EPSILON
from dpcvx.exceptions import LevelErasedWarning
from dpcvx.sklearn.noise_warning import SMALL_TABLE_LIMIT

FIRST = "Fix: first, the table: with n = {n} rows of d = {d} encoded features, a private fit is bound by its noise"


def _level_texts(schema, table) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema.transform(table)
    return [str(w.message) for w in caught if w.category is LevelErasedWarning]


def _words(n: int, d: int = 300):
    """d sparse 0/1 columns (1 % ones) declared [0, 1]: under the centred code every row sits near one point."""
    rng = np.random.default_rng(0)
    ones = rng.random((n, d)) < 0.01
    schema = PublicSchema(tuple(NumericColumn(f"w{j}", 0, 1) for j in range(d)))
    return schema, {f"w{j}": ones[:, j].astype(float) for j in range(d)}


def _narrow(n: int):
    """A column of logins 0..40 declared 0..10,000 beside a wide one and 300 categories: the row map's factor, set
    by the others, moves it more than its own values do (the columns' own variation)."""
    rng = np.random.default_rng(0)
    categories = tuple(f"c{k}" for k in range(300))
    schema = PublicSchema((NumericColumn("wide", 0, 1), NumericColumn("logins", 0, 10_000),
                           CategoricalColumn("cat", categories)))
    return schema, {"wide": rng.random(n), "logins": rng.integers(0, 40, n).astype(float),
                    "cat": rng.choice(categories, n)}


@pytest.mark.parametrize("make, d, advice", [(_words, 300, "encoding='unit' keeps more of it here"),
                                             (_narrow, 302, "a norm of at least the schema's largest possible")])
def test_a_table_bound_by_noise_is_named_before_the_encoding(make, d, advice):
    texts = _level_texts(*make(2000))
    assert len(texts) == 1, texts
    text = texts[0]
    least = SMALL_TABLE_LIMIT * d / 2000
    assert least > NOISE_FIRST_EPSILON
    assert FIRST.format(n=2000, d=d) in text, text
    assert f"at every epsilon below {least:.3g} (n epsilon / d below 50, the SmallTableWarning's rule)" in text
    assert text.index("fewer encoded columns or more rows come first. Then: ") < text.index(advice), text


@pytest.mark.parametrize("make, advice", [(_words, "Fix: encoding='unit' keeps more of it here"),
                                          (_narrow, "Fix: a norm of at least the schema's largest possible")])
def test_a_table_large_for_its_width_keeps_the_advice_as_it_was(make, advice):
    texts = _level_texts(*make(20_000))   # 50 d / n = 0.75 and 0.755: not bound at epsilon 1
    assert len(texts) == 1, texts
    assert advice in texts[0] and "first, the table" not in texts[0], texts[0]
