"""A regression's training-rows finding is told apart from whether it was said, by the library's own reading.

Session 67 made MAP_LOST (dpcvx.models.training_rows) a finding said only with something to act on
(training_rows.says_regression_finding): where its advice names no setting (DPLinearRegression's defaults below a
public n x epsilon of MAP_SMALL, a fit off its defaults) and the release is not weak, the check's condition holds and
nothing is said. The benchmarks that measure the check (benchmarks/map_loss.py, map_lost_small.py, kept_share.py)
had counted its firings by matching the warning's text, and so counted only where it was said. The library now
offers the one reading of the rule (training_rows.regression_check, which warn_on_regression_fit itself calls) and
the warning carries the finding it says (TrainingRowsWarning.finding), so that neither is read off the text.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models import training_rows


def _zero_counts(n: int) -> tuple[np.ndarray, np.ndarray]:
    """benchmarks/map_lost_small.py's "zero counts" (seed 0): two count columns zero on 90 % of rows, 3 Gaussian
    ones, declared under norm 1; y = 200 + 25 c0 + 10 c1 + 20 x0 + noise, declared (0, 2000)."""
    rng = np.random.default_rng(8300)
    rows = n + 2_500
    c = [np.where(rng.random(rows) < 0.9, 0, rng.poisson(6, rows) + 1).astype(float) for _ in range(2)]
    x = rng.normal(size=(rows, 3))
    y = 200 + 25 * c[0] + 10 * c[1] + 20 * x[:, 0] + rng.normal(0, 10, rows)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("c0", 0, 50), dpcvx.NumericColumn("c1", 0, 50),
                                 *(dpcvx.NumericColumn(f"x{j}", -4, 4) for j in range(3))), norm=1.0)
    frame = pd.DataFrame({"c0": c[0], "c1": c[1], **{f"x{j}": x[:, j] for j in range(3)}})
    return np.asarray(schema.transform(frame.iloc[:n])), np.clip(y, 0, 2000)[:n]


def _fit(n: int) -> tuple[dpcvx.DPLinearRegression, list[TrainingRowsWarning], np.ndarray, np.ndarray]:
    X, y = _zero_counts(n)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator = dpcvx.DPLinearRegression(epsilon=1, label_bound=(0, 2000), random_state=0).fit(X, y)
    said = [w.message for w in caught if isinstance(w.message, TrainingRowsWarning)]
    return estimator, said, X, y


def test_the_warning_carries_the_finding_it_says() -> None:
    """n x epsilon 10,000 (above MAP_SMALL): the advice names a setting, so MAP_LOST is said, and the warning says
    which finding it is by its ``finding``, the same the library's reading of the rule gives."""
    estimator, said, X, y = _fit(10_000)
    assert [w.finding for w in said] == [training_rows.MAP_LOST]
    assert training_rows.MAP_LOST in str(said[0])
    finding, shares = training_rows.regression_check(estimator.model_, X, y, (0, 2000))
    assert finding == training_rows.MAP_LOST and training_rows.map_lost(shares)


def test_the_check_holds_where_the_finding_is_not_said() -> None:
    """n x epsilon 2,000 (below MAP_SMALL): the advice names nothing and the release is not weak, so nothing is
    said; the rule's condition holds all the same, and regression_check tells so."""
    estimator, said, X, y = _fit(2_000)
    assert said == []
    finding, shares = training_rows.regression_check(estimator.model_, X, y, (0, 2000))
    assert finding == training_rows.MAP_LOST
    assert not training_rows.weak_release(shares)
    assert not training_rows.says_regression_finding(finding, training_rows.map_lost_advice(
        "DPLinearRegression", True, int(np.size(estimator.coef_)), 2_000.0), (), shares)


def test_a_warning_made_without_a_finding_carries_none() -> None:
    assert TrainingRowsWarning("text").finding is None
    assert TrainingRowsWarning("text", finding=training_rows.LITTLE_KEPT).finding == training_rows.LITTLE_KEPT


def test_a_tuned_release_s_warning_carries_its_finding() -> None:
    """dpcvx.tune's own training-rows warning (warn_on_tuned) says its finding the same way."""
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (400, 3))
    y = rng.normal(0, 1, 400)  # labels unrelated to X: no better than a constant
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        training_rows.warn_on_tuned(_Constant(), X, y, True, (-3.0, 3.0))
    said = [w.message for w in caught if isinstance(w.message, TrainingRowsWarning)]
    assert [w.finding for w in said] == [training_rows.NO_BETTER_REGRESSION]


class _Constant:
    """A model predicting 5 everywhere: worse than the labels' mean."""

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), 5.0)
