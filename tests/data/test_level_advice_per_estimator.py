"""LevelErasedWarning's advice says what was measured per estimator, and what its check cannot see (analyst probe,
session 70, P7 findings 2 and 5; benchmarks/level_erased_advice.py).

Finding 2: ratings 1..10 on 30 log-normal columns declared at their documented maxima (1000 times their medians)
drew the warning's first form, whose first fix, encoding="unit", did nothing for DPHuberRegressor (held-out R^2
-0.010 to 0.006) and silenced the TrainingRowsWarning; the log scale and documented ranges raised it to about 0.5.
The text now names the log scale with the ranges, says which estimators "unit" was measured to help, and that a
warning that goes quiet does not say the release is useful. Finding 5: a nearly constant battery voltage with no
signal was named on every fit of a weather table and the fix changed nothing; the check does not read the label
(telling such a column apart would be a new private read), so the text says so instead of claiming the loss.
Finding 4: the SmallTableWarning's limit is documented as no "useful above" line."""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from benchmarks.level_erased_advice import SENSOR_COLUMNS, rating, sensor
from dpcvx import DPHuberRegressor, NumericColumn, PublicSchema
from dpcvx.advice import on_command_line
from dpcvx.exceptions import LevelErasedWarning, RangeClipWarning

ROOT = Path(__file__).resolve().parents[2]


def _ratings(n=6000, d=30, seed=0):
    """The probe's rating table (benchmarks/level_erased_advice.py's generator): 30 log-normal columns (0.3 %
    data-entry errors at 1000 times the median), a rating 1..10 from 8 of their logarithms, each column declared at
    its documented maximum, 1000 times its median."""
    frame, y, median = rating(seed, n=n, d=d)
    return frame, y, 1000 * median


def _level_texts(schema, frame):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema.transform(frame)
    return [str(w.message) for w in caught if issubclass(w.category, LevelErasedWarning)]


def test_the_unit_advice_names_the_estimators_it_was_measured_on_and_the_log_scale_beside_the_ranges():
    frame, _, top = _ratings(2000)
    schema = PublicSchema(tuple(NumericColumn(c, 0, h) for c, h in zip(frame.columns, top, strict=True)))
    (text,) = _level_texts(schema, frame)
    assert "sit near one point" in text and "encoding='unit' keeps more of it here" in text, text
    assert "not DPHuberRegressor" in text and "before a DPHuberRegressor take the ranges or the log scale first" in text
    assert "a warning that goes quiet does not say that the release is useful" in text
    assert 'the log scale (NumericColumn(..., scale="log"))' in text, text
    assert text.index("declare ranges that fit the values") < text.index("the log scale (NumericColumn")
    with on_command_line():
        (cli,) = _level_texts(schema, frame)
    assert "the log scale (--numeric NAME:LO:HI:log)" in cli, cli


def _huber_r2(schema, frame, y, epsilon, seed):
    train, test = slice(0, 4500), slice(4500, None)
    model = DPHuberRegressor(epsilon=epsilon, label_bound=(1, 10), random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelErasedWarning)  # the schema's note: what this test measures
        warnings.simplefilter("ignore", RangeClipWarning)  # predict's note on the held-out rows
        model.fit(schema.fit_transform(frame.iloc[train]), y[train])
        predicted = model.predict(schema.transform(frame.iloc[test]))
    truth = y[test]
    return 1 - np.sum((truth - predicted) ** 2) / np.sum((truth - truth.mean()) ** 2)


@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.TrainingRowsWarning")  # the weak fits this test measures
@pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnresolvedColumnWarning")  # the fit's note on the columns
def test_what_the_text_says_of_huber_holds_on_the_probe_table():
    """Seeded (data seed 0, fit seed 0, epsilon 3, 6,000 rows): "unit" leaves DPHuberRegressor below held-out R^2
    0.05 (the benchmark: 0.004 to 0.007 at 12,000 rows), the log scale gives at least 0.3 (0.40 to 0.64)."""
    frame, y, top = _ratings()
    unit = PublicSchema(tuple(NumericColumn(c, 0, h) for c, h in zip(frame.columns, top, strict=True)), encoding="unit")
    log = PublicSchema(tuple(NumericColumn(c, 0, h, scale="log") for c, h in zip(frame.columns, top, strict=True)))
    unit_r2, log_r2 = _huber_r2(unit, frame, y, 3.0, 0), _huber_r2(log, frame, y, 3.0, 0)
    assert unit_r2 < 0.05 and log_r2 > 0.3, (unit_r2, log_r2)


def _sensor(n=4000, seed=0):
    """The probe's weather columns (benchmarks/level_erased_advice.py's generator) and a battery voltage 3.6 +- 0.05 V
    declared (0, 5), which carries no signal."""
    frame, _ = sensor(seed, n=n)
    return PublicSchema(SENSOR_COLUMNS), frame


def test_a_column_named_by_its_own_variation_is_not_claimed_lost_to_the_model():
    schema, frame = _sensor()
    texts = _level_texts(schema, frame)
    (text,) = [t for t in texts if "['battery']" in t]
    assert "where the label depends on them, a model learns little from them" in text, text
    assert "The check does not read the label" in text and "for it the fix changes nothing" in text
    assert not re.search(r"own values\), and a model learns little", text)


def test_the_small_table_limit_is_documented_as_no_useful_above_line():
    line = "not one above which a release is useful"
    assert line in " ".join(dpcvx.SmallTableWarning.__doc__.split())
    assert line in " ".join((ROOT / "docs" / "theory.md").read_text().split())
