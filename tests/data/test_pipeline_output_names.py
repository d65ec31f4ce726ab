"""Analyst probe P2 (session 68, finding 5): in the documented pipeline, make_pipeline(PublicSchema(...), estimator)
without set_output, the estimator's notes named the schema's features by position ("column 0"): scikit-learn's
Pipeline gives the next step the schema's array itself, which has no names. The schema now remembers each array it
returns with its output names while the array lives (dpcvx.data.transformer_api.output_names), and the notes read
them for that very object: every note that names columns (dpcvx.data.notes: the unresolved columns, the clipped
rows' heavy columns; the encoded width's widest column) names them as with set_output(transform="pandas"). A copy
or another step in between is named by position, as before."""

import gc
import warnings

import numpy as np
from sklearn.pipeline import make_pipeline

import dpcvx
from dpcvx import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.data.transformer_api import output_names
from dpcvx.exceptions import SmallTableWarning, UnresolvedColumnWarning


def _stays(n=4000, seed=0):
    """A stay of 0..27 days declared 0..365 (the label mostly made of it) beside an age: the ranges locate the
    stay only to a few cells of their grid (P2's dates table, in small)."""
    rng = np.random.default_rng(seed)
    stay = np.minimum(rng.gamma(2.5, 2.0, n).round(), 27)
    age = rng.uniform(0, 120, n)
    y = np.clip(150 + 40 * stay + rng.normal(0, 30, n), 100, 900)
    schema = PublicSchema((NumericColumn("stay_days", 0, 365), NumericColumn("age", 0, 120)), norm=1.5)
    return schema, {"stay_days": stay, "age": age}, y


def _texts(call, category) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if w.category is category]


def _huber():
    return dpcvx.DPHuberRegressor(epsilon=1, label_bound=(100, 900), data_norm=1.5, random_state=0)


def test_the_documented_pipeline_names_the_schemas_features():
    schema, table, y = _stays()
    (plain,) = _texts(lambda: make_pipeline(schema, _huber()).fit(table, y), UnresolvedColumnWarning)
    named = make_pipeline(PublicSchema(schema.columns, norm=1.5).set_output(transform="pandas"), _huber())
    (pandas,) = _texts(lambda: named.fit(table, y), UnresolvedColumnWarning)
    assert "located 'stay_days:scaled' within a few cells" in plain and "column 0" not in plain, plain
    assert plain == pandas  # the same words as with named output


def test_a_copy_of_the_schemas_array_is_named_by_position():
    schema, table, y = _stays()
    Z = schema.transform(table)
    assert output_names(Z) == schema.feature_names
    copied = np.array(Z)
    assert output_names(copied) is None
    (text,) = _texts(lambda: _huber().fit(copied, y), UnresolvedColumnWarning)
    assert "located column 0 within a few cells" in text, text
    key = id(Z)
    del Z
    gc.collect()
    from dpcvx.data import transformer_api
    assert key not in transformer_api._NAMED  # the names live as long as the array, no longer


def test_the_widest_column_is_named_through_the_documented_pipeline():
    rng = np.random.default_rng(0)
    n = 600
    codes = tuple(f"d{j}" for j in range(200))
    table = {"diag": rng.choice(codes, n), "age": rng.uniform(0, 90, n)}
    y = rng.integers(0, 2, n)
    schema = PublicSchema((CategoricalColumn("diag", codes), NumericColumn("age", 0, 90)))
    pipeline = make_pipeline(schema, dpcvx.DPLogisticRegression(epsilon=1, random_state=0))
    (text,) = _texts(lambda: pipeline.fit(table, y), SmallTableWarning)
    assert "'diag' makes 200 of the 201" in text, text
