"""A one-vs-rest release's report names the classes it predicts on almost none of a uniform law on its declared domain
(encodable.domain_finding, the binary "Near one class" rule class by class; session 71, P8 finding 2: a 5-category KDD
release of accuracy 0.981 predicted two classes only, and only a NOT PRIVATE warning said so). Seeded tables; each
assertion is about one seeded fit or the public seed of the draws, deterministic."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.release.encodable import (
    DOMAIN_DRAWS,
    DOMAIN_SEED,
    DOMAIN_SHARE,
    domain_counts,
    domain_draws,
    domain_finding,
    domain_rare_classes,
    domain_share,
)

CLASSES = ("a", "b", "c")


def _table(third: float, seed: int = 0, n: int = 10_000) -> tuple[np.ndarray, np.ndarray, dpcvx.PublicSchema]:
    """Six normal columns in a public box of +-5; the class 'c' on a ``third`` share of the rows (column v2 shifted
    by 1), the others split by v0 + v1 / 2."""
    rng = np.random.default_rng(seed)
    V = rng.normal(0, 1, (n, 6))
    y = np.where(rng.random(n) < third, "c", np.where(V[:, 0] + 0.5 * V[:, 1] > 0, "a", "b")).astype(object)
    V[y == "c", 2] += 1.0
    names = [f"v{j}" for j in range(6)]
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(name, -5, 5) for name in names), norm=1.0)
    return np.asarray(schema.fit_transform(pd.DataFrame(V, columns=names)), dtype=float), y, schema


def _release(third: float, tmp_path, **settings):
    X, y, schema = _table(third)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TrainingRowsWarning)  # the NOT PRIVATE one: not what is tested
        estimator = dpcvx.DPLogisticRegression(epsilon=1.0, classes=CLASSES, random_state=0, **settings).fit(X, y)
    dpcvx.save(estimator, tmp_path / "m.json", schema=schema)
    return estimator, dpcvx.load(tmp_path / "m.json"), X, tmp_path / "m.json"


@pytest.fixture(scope="module")
def rare(tmp_path_factory):
    """The release of a table whose class 'c' is on 0.5 % of the rows: it never predicts 'c' on them."""
    return _release(0.005, tmp_path_factory.mktemp("rare"))


def test_a_class_never_predicted_is_named_in_the_report(rare):
    estimator, model, X, _ = rare
    assert "c" not in set(estimator.predict(X))  # the release never predicts the rare class on its rows
    counts = domain_counts(model, model.schema)
    assert counts is not None and counts.sum() == DOMAIN_DRAWS and counts[2] == 0
    assert [label for label, _, bound in domain_rare_classes(model, model.schema)] == ["c"]
    report = model.report()
    assert report.encodable is None  # the proof over the domain does not say it: a and b are both predicted
    summary = report.to_markdown().split("## ")[1]
    assert (f"Classes nearly never predicted: 1 of its 3 classes over the declared domain: of {DOMAIN_DRAWS:,} "
            "records drawn from a uniform law") in summary
    assert "'c' on 0 (" in summary and "'a' on" not in summary and "'b' on" not in summary
    assert "Your records need not follow that law" in summary and "Near one class" not in summary


def test_a_useful_multiclass_release_names_no_class(tmp_path):
    estimator, model, X, _ = _release(0.3, tmp_path)
    assert set(estimator.predict(X)) == set(CLASSES)
    counts = domain_counts(model, model.schema)
    assert counts is not None and counts.min() / DOMAIN_DRAWS > 10 * DOMAIN_SHARE  # every class well above 0.1 %
    assert domain_rare_classes(model, model.schema) == [] and domain_finding(model, model.schema) is None
    text = model.report().to_markdown()
    assert "Classes nearly never predicted" not in text and "Near one class" not in text


def test_the_counts_are_the_predictions_of_the_public_draws_at_the_release_s_cuts(rare):
    """domain_counts scores the draws as predict does, at the release's decision cuts (or those given), and is a
    function of the release, the schema and the public seed: the same counts twice, no data read."""
    model = dpcvx.load(rare[3])  # its own copy: the cuts are set below
    code = np.vstack([domain_draws(model.schema, min(2_000, DOMAIN_DRAWS - first), rng)
                      for rng in [np.random.default_rng(DOMAIN_SEED)] for first in range(0, DOMAIN_DRAWS, 2_000)])
    rows = model.schema.onto_norm(code)
    expected = [int(np.sum(model.predict(rows) == label)) for label in CLASSES]
    assert domain_counts(model, model.schema).tolist() == expected
    model.decision_cut = np.array([0.0, 0.0, -50.0])  # a cut that favours 'c' everywhere: a and b are named
    moved = [int(np.sum(model.predict(rows) == label)) for label in CLASSES]
    assert domain_counts(model, model.schema).tolist() == moved and moved[2] > 0
    assert [label for label, _, _ in domain_rare_classes(model, model.schema)] == ["a", "b"]
    assert domain_counts(model, model.schema, cut=np.zeros(3)).tolist() == expected


def test_a_binary_release_keeps_its_one_statement():
    """The binary rule reads the same counts: domain_share is the less predicted class of domain_counts, and a
    one-vs-rest release has no binary share (its classes are told by domain_rare_classes)."""
    rng = np.random.default_rng(3)
    V = rng.normal(0, 1, (5_000, 4))
    y = (V[:, 0] > 0).astype(int)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"v{j}", -5, 5) for j in range(4)), norm=1.0)
    X = np.asarray(schema.fit_transform(pd.DataFrame(V, columns=[f"v{j}" for j in range(4)])), dtype=float)
    model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y).model_
    counts = domain_counts(model, schema)
    label, count, _ = domain_share(model, schema)
    assert counts is not None and count == counts.min() and label == (1 if counts[1] <= counts[0] else 0)
    assert domain_rare_classes(model, schema) == []


@pytest.mark.parametrize("bad", [None, "no coef"])
def test_nothing_is_said_without_a_schema_or_a_linear_release(bad, rare):
    model = rare[1]
    if bad is None:
        assert domain_counts(model, None) is None and domain_finding(model, None) is None
    else:
        assert domain_counts(object(), model.schema) is None and domain_rare_classes(object(), model.schema) == []
