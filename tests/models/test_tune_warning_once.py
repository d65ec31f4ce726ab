"""tune shows a warning of the learners' public declarations once, at the user's line (session 62, probeC F4).

ClassOrderWarning (classes not in sorted order) came twice from one tune call under the default filters: once from
tune's checks, before its charge, at the user's line, and again when the charged block (a generator context manager,
dpcvx.models.failure.fixed_numerics) re-issued the candidates' warnings, at contextlib.py's line, which
user_stacklevel took for the user's. Now contextlib's frames are passed like dpcvx's, and the fits after the charge do
not warn again of what the checks said before it."""

import warnings

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import ClassOrderWarning


@pytest.mark.parametrize("procedure", ["split", "full-data"])
def test_class_order_is_warned_once_at_the_callers_line(procedure):
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (400, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        dpcvx.tune(dpcvx.DPLogisticRegression(classes=(1, 0)), X, y, {"lam": [0.01, 0.1]}, 3.0, procedure=procedure,
                   random_state=0)
    shown = [record for record in caught if issubclass(record.category, ClassOrderWarning)]
    assert [record.filename for record in shown] == [__file__]

