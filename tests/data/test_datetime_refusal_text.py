"""One text for one mistake: datetimes where numbers are needed. Analyst probe P3 (session 66, finding 8): the
schema's numeric column said "days since a fixed public date" and the estimator "seconds since a fixed public date";
and docs/datasets.md still said "Datetimes are refused" of categorical columns, which read a date as its ISO text."""

import pathlib

import numpy as np
import pytest

import dpcvx
from dpcvx import NumericColumn, PublicSchema
from dpcvx.tables import DATETIME_FIX

DAYS = np.array(["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04"], dtype="M8[D]")


def _refusal(call) -> str:
    with pytest.raises(dpcvx.InputError) as caught:
        call()
    return str(caught.value)


def test_the_schema_and_the_estimator_refuse_datetimes_in_one_text():
    schema = _refusal(lambda: PublicSchema([NumericColumn("day", 0, 1)]).transform({"day": DAYS}))
    estimator = _refusal(lambda: dpcvx.DPLogisticRegression(random_state=0).fit(DAYS.reshape(-1, 1),
                                                                                  np.array([0, 1, 0, 1])))
    assert DATETIME_FIX in schema and DATETIME_FIX in estimator, (schema, estimator)
    assert "days (or seconds) since a fixed public date" in DATETIME_FIX


def test_the_datasets_doc_no_longer_refuses_the_dates_it_reads():
    text = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "datasets.md").read_text(encoding="utf-8")
    assert "Datetimes are refused" not in text
    assert "a timestamp with a time of day or a timezone, typed or spelled so, is refused" in text
