"""Complex, date and duration labels are refused by their column's kind at every entry, before any charge (probeA3
F4): PrivateERM compared 1+0j with the class 1 and released where DPLogisticRegression refused, and both took a
timedelta64 column of 0/1 as the classes."""

from __future__ import annotations

import numpy as np
import pytest

from dpcvx import PrivacyAccountant, PrivateERM
from dpcvx.exceptions import InputError
from dpcvx.sklearn import DPLogisticRegression


def _labels(kind: str, y: np.ndarray):
    if kind == "complex":
        return y.astype(complex)
    if kind == "complex list":
        return [complex(v) for v in y]
    if kind == "timedelta":
        return y.astype("timedelta64[ns]")
    return y.astype("datetime64[s]")


@pytest.mark.parametrize("kind", ["complex", "complex list", "timedelta", "datetime"])
@pytest.mark.parametrize("entry", ["PrivateERM", "DPLogisticRegression"])
def test_complex_and_time_labels_are_refused_before_the_charge(entry, kind):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (60, 3))
    y = (X[:, 0] > 0).astype(int)
    accountant = PrivacyAccountant(2.0)
        # datetime64[s] 0/1 is 1970-01-01 00:00:00 and 00:00:01: a timestamp with a time of day, refused by its row
    with pytest.raises(InputError,
                       match=r"Complex data not supported|dtype (timedelta|datetime)64|outside the|time of day in row"):
        if entry == "PrivateERM":
            PrivateERM(data_norm=1.0, classes=(0, 1)).fit(X / 2, _labels(kind, y), 1.0, accountant=accountant,
                                                         random_state=0)
        else:
            DPLogisticRegression(epsilon=1.0, data_norm=2.0, accountant=accountant, random_state=0).fit(
                X, _labels(kind, y))
    assert accountant.spent.epsilon == 0.0
