"""Below the floor, one-vs-rest's note calls the class prior "not advised" only at many classes, where it was measured
to do worse (training_rows.prior_opposed).

An analyst probe (session 69, P8 finding 1: an ordinal grade of 4 classes at 40/30/20/10 %, n 6,400, epsilon 0.5 to
2) found class_prior='private' with threshold='prior' better in balanced accuracy than the default in 18 of 18 fits,
while the TrainingRowsWarning fired on those fits and called it "not advised" (n x epsilon / k below 2,000, a rule
measured on 8 to 16 classes). benchmarks/multiclass_prior.py's moderate family (its rule written first) found the
prior above the default by more than 0.02 in 10 of 26 cells of fewer than 8 classes below the floor and below it in
8: the note now says it was measured both ways and that no public setting is known to do better.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from training_notes import told

import dpcvx
from dpcvx.models import training_rows as rows
from dpcvx.models.training_rows import NO_BETTER, ONE_VS_REST, WEIGHED_ONE_VS_REST, warning_text
from dpcvx.release.usefulness import called

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
NOT_ADVISED = "is not advised"
BOTH_WAYS = "was measured both ways"


def _grade(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An ordinal grade of 4 classes at 40/30/20/10 % cut from a latent score of 8 columns, rows in the unit ball
    (the moderate family's kind: benchmarks/multiclass_prior.py)."""
    rng = np.random.default_rng(seed)
    X = np.clip(rng.normal(size=(n, 8)), -4, 4)
    weights = rng.normal(size=8)
    latent = X @ weights / np.linalg.norm(weights) + 0.5 * rng.normal(size=n)
    y = np.searchsorted(np.quantile(latent, [0.4, 0.7, 0.9]), latent)
    return X / (4 * np.sqrt(8)), y


def test_below_the_floor_few_classes_are_not_told_the_prior_is_not_advised():
    below = rows.PRIOR_ADVICE_FLOOR - 1.0
    for unweighted, owner in ((ONE_VS_REST, "DPLogisticRegression"), (rows.ONE_VS_REST_OTHER, "DPHuberSVM"),
                              (WEIGHED_ONE_VS_REST, "DPLogisticRegression")):
        with called(owner):
            few = warning_text(NO_BETTER, unweighted, scale=below, classes=4)
            many = warning_text(NO_BETTER, unweighted, scale=below, classes=rows.MANY_CLASSES)
            unknown = warning_text(NO_BETTER, unweighted, scale=below)
        assert NOT_ADVISED not in few and BOTH_WAYS in few and "No public setting is known to do better" in few
        assert NOT_ADVISED in many and BOTH_WAYS not in many
        assert NOT_ADVISED in unknown  # k not known: as at many classes
    assert rows.prior_opposed(below, None) and rows.prior_opposed(below, rows.MANY_CLASSES)
    assert not rows.prior_opposed(below, rows.MANY_CLASSES - 1)
    assert not rows.prior_opposed(float(rows.PRIOR_ADVICE_FLOOR), rows.MANY_CLASSES)  # advised there


def test_the_counts_are_the_benchmark_s():
    text = (RESULTS / "multiclass_prior_moderate.md").read_text()
    cells, better, worse, moderate, moderate_better, moderate_worse = rows.PRIOR_FEW
    floor = f"{rows.PRIOR_ADVICE_FLOOR:,}"
    assert (f"- moderate cells with s < {floor}: {moderate}; prior better by more than 0.02 in {moderate_better}, "
            f"worse by more than 0.02 in {moderate_worse} ") in text
    assert (f"- all cells of fewer than {rows.MANY_CLASSES} classes with s < {floor}: {cells}; prior better by more "
            f"than 0.02 in {better}, worse by more than 0.02 in {worse}") in text
    assert f"- rule: the note does not call the prior 'not advised' below the floor at fewer than " \
           f"{rows.MANY_CLASSES} classes" in text
    from benchmarks.multiclass_prior import MANY_K, many_held_tables, many_tables
    assert MANY_K == rows.MANY_CLASSES
    smallest = min(int(re.match(r"k=(\d+)", name).group(1)) for name, *_ in (*many_tables(), *many_held_tables()))
    assert smallest == rows.MANY_CLASSES  # the many-class families' smallest k


@pytest.mark.filterwarnings("ignore::dpcvx.sklearn.noise_warning.NoiseDominatesWarning")
def test_the_probe_s_grade_fitted_with_the_prior_is_not_told_it_is_not_advised():
    """n 6,400, epsilon 0.5, 4 classes: n x epsilon / k = 800, below the floor."""
    X, y = _grade(6400)
    texts = told(dpcvx.DPLogisticRegression(classes=(0, 1, 2, 3), epsilon=0.5, random_state=0,
                                            class_prior="private", threshold="prior").fit, X, y)
    notes = [text for text in texts if "NOT PRIVATE" in text]
    assert notes, texts  # the finding fires on this seed (the probe's: 5 of 6 prior fits at epsilon 1)
    for text in notes:
        assert NOT_ADVISED not in text and BOTH_WAYS in text and "of 800, below 2,000" in text
