"""A coded column's categories given as integers (``range(1, 13)``): each stands for its decimal text, the text an
integer cell is compared to, so the one-hot block is that of the same categories given as strings, in memory, in a
DataFrame and through a schema file; floats and bools stay refused."""

import numpy as np
import pandas as pd
import pytest

from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.exceptions import InputError


def test_integer_categories_stand_for_their_text():
    column = CategoricalColumn("region", range(1, 13))
    assert column.categories == tuple(str(code) for code in range(1, 13))
    assert CategoricalColumn("code", [np.int64(7), 101]).categories == ("7", "101")


def test_a_coded_column_encodes_as_with_text_categories(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"age": rng.integers(18, 90, 50), "region": rng.integers(1, 13, 50)})
    coded = PublicSchema([NumericColumn("age", 18, 90), CategoricalColumn("region", range(1, 13))])
    texts = PublicSchema([NumericColumn("age", 18, 90), CategoricalColumn("region", [str(c) for c in range(1, 13)])])
    X = coded.transform(frame)
    assert np.array_equal(X, texts.transform(frame))
    assert np.all(np.count_nonzero(X[:, 1:13], axis=1) == 1)  # each coded row one of the twelve, no all-zero block
    coded.save(tmp_path / "schema.json")
    assert np.array_equal(PublicSchema.load(tmp_path / "schema.json").transform(frame), X)


def test_a_schema_file_takes_integer_codes(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text('{"format": "dpcvx-schema", "version": 1, "norm": 1.0, "strict": true, "columns": '
                    '[{"name": "code", "kind": "categorical", "categories": [101, 205, 999]}]}')
    schema = PublicSchema.load(path)
    assert (schema.transform(pd.DataFrame({"code": [205, 999]}))[:, :3] > 0).tolist() == [[False, True, False],
                                                                                      [False, False, True]]


@pytest.mark.parametrize("categories", [[1.0, 2.0], [True, False], [None], [b"a"]])
def test_other_types_are_refused(categories):
    with pytest.raises(InputError, match="categories must be a non-empty list of strings"):
        CategoricalColumn("c", categories)


@pytest.mark.parametrize("flag", [True, np.True_])
def test_a_boolean_category_is_refused_with_its_text(flag):
    """A boolean cell is compared as its text ("True"), which the refusal gives as the fix."""
    with pytest.raises(InputError, match="a boolean cell is compared as its text, so declare it as 'True'"):
        CategoricalColumn("member", ("False", flag))
