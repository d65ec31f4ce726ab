"""Analyst probe P2 (session 68, finding 6): a pipeline's LevelErasedWarning repeated on every predict (the schema's
transform ran the check on each batch scored), where ``dpcvx predict`` does not repeat it: a released model's schema
is fixed. A fitted schema's first transform after its fit (a pipeline's fit calls fit_transform) checks the rows;
a later one (a fitted pipeline's predict) does not, and its notes on columns against their declaration are shown once
each, not once a batch. A refit checks again; a refused first transform leaves the next one the fit's; a schema
never fitted checks every table it transforms, as before."""

import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from dpcvx import CategoricalColumn, DPLogisticRegression, NumericColumn, PublicSchema
from dpcvx.exceptions import InputError, LevelErasedWarning, OutOfBoundsWarning

NOTES = (LevelErasedWarning, OutOfBoundsWarning)


def _table(n=3000, seed=0, lost=False):
    """logins 0..40 declared 0..10,000 beside tenure and a plan (tests/data/test_shared_level.py's prober table):
    the row map erases logins (a LevelErasedWarning); ``lost``: tenure in days, most beyond its bounds 0..120."""
    rng = np.random.default_rng(seed)
    logins = rng.integers(0, 41, n).astype(float)
    tenure = rng.uniform(0, 3600 if lost else 120, n)
    table = {"n_logins": logins, "tenure_m": tenure, "plan": rng.choice(["a", "b", "c"], n)}
    y = (rng.random(n) < 1 / (1 + np.exp(-(logins - 20) / 4))).astype(int)
    return table, y


SCHEMA = PublicSchema((NumericColumn("n_logins", 0, 10000), NumericColumn("tenure_m", 0, 120),
                       CategoricalColumn("plan", ("a", "b", "c"))))


def _notes(call) -> list[str]:
    """The schema's notes a call shows, under "always" (the filter that showed the repeats)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [w.category.__name__ for w in caught if w.category in NOTES]


def _batches(table, k=3):
    return [{name: values[i::k] for name, values in table.items()} for i in range(k)]


def test_a_fitted_pipelines_predict_does_not_repeat_the_fits_notes():
    table, y = _table(lost=True)
    pipeline = make_pipeline(PublicSchema(SCHEMA.columns), DPLogisticRegression(epsilon=1, random_state=0))
    assert sorted(_notes(lambda: pipeline.fit(table, y))) == ["LevelErasedWarning", "OutOfBoundsWarning"]
    for batch in _batches(_table(seed=1, lost=True)[0]):  # batches scored: no note repeated, none of the level
        assert _notes(lambda batch=batch: pipeline.predict(batch)) == []
    # a refit is a fit: it checks its rows again
    assert sorted(_notes(lambda: pipeline.fit(table, y))) == ["LevelErasedWarning", "OutOfBoundsWarning"]


def test_a_batch_with_a_new_finding_is_told_it_once():
    """A fitted schema shows a note its fit did not (columns beyond their bounds in the rows scored only) once."""
    table, y = _table()
    pipeline = make_pipeline(PublicSchema(SCHEMA.columns), DPLogisticRegression(epsilon=1, random_state=0))
    assert _notes(lambda: pipeline.fit(table, y)) == ["LevelErasedWarning"]
    batches = _batches(_table(seed=1, lost=True)[0])
    assert _notes(lambda: pipeline.predict(batches[0])) == ["OutOfBoundsWarning"]
    assert _notes(lambda: pipeline.predict(batches[1])) == []


def test_a_fitted_schema_checks_the_first_transform_after_its_fit_and_a_refused_one_is_not_it():
    table, _ = _table()
    schema = PublicSchema(SCHEMA.columns)
    # never fitted: every table it transforms is checked (a schema used alone, as before)
    assert _notes(lambda: schema.transform(table)) == ["LevelErasedWarning"]
    assert _notes(lambda: schema.transform(table)) == ["LevelErasedWarning"]
    schema.fit()
    with pytest.raises(InputError):  # a refused transform: no rows read for the fit
        schema.transform({"n_logins": table["n_logins"]})
    assert _notes(lambda: schema.transform(table)) == ["LevelErasedWarning"]  # the fit's
    assert _notes(lambda: schema.transform(table)) == []
    assert _notes(lambda: schema.fit(table).transform(table)) == ["LevelErasedWarning"]  # fitted again
    assert _notes(lambda: schema.fit_transform(table)) == ["LevelErasedWarning"]
    assert _notes(lambda: schema.transform(table)) == []
    # the record of notes is not part of the declaration: equal schemas stay equal and hash alike
    assert schema == SCHEMA and hash(schema) == hash(SCHEMA)


def test_a_schema_fitted_on_a_table_checks_every_table_it_transforms():
    """schema.fit(train) reads nothing of train, so no later transform is known to be the fit's: each is checked, as
    by a schema never fitted (the first transform after such a fit was taken for the fit's, so transform(test) first
    was checked and train's LevelErasedWarning was lost: an attacker probe, sixty-eighth session)."""
    train, _ = _table()
    quiet = {"n_logins": np.linspace(0, 10000, 50), "tenure_m": np.full(50, 60.0), "plan": np.array(["a"] * 50)}
    schema = PublicSchema(SCHEMA.columns)
    assert _notes(lambda: schema.fit(train)) == []
    assert _notes(lambda: schema.transform(quiet)) == []
    assert "LevelErasedWarning" in _notes(lambda: schema.transform(train))
    assert "LevelErasedWarning" in _notes(lambda: schema.transform(train))
