"""A binary estimator's release that predicts one class on its training rows (s70 P2 finding 1): the NOT PRIVATE
TrainingRowsWarning names threshold= the public rate first (training_rows.public_rate_advice), and the release's report
says when it predicts one class on almost all of a uniform law on its declared domain (encodable.domain_finding).
Seeded tables; each assertion is about one seeded fit, deterministic."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import dpcvx
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models import training_rows
from dpcvx.release.encodable import DOMAIN_DRAWS, DOMAIN_SHARE, domain_finding, domain_share

ADVICE = "the first thing to try is threshold=p"


def _rare(seed: int = 0, n: int = 40_000, rate: float = 0.004) -> tuple[pd.DataFrame, np.ndarray, dpcvx.PublicSchema]:
    """A fraud-like table: 16 normal columns in a public box of +-5 (wide enough that the proof over the domain,
    encodable_class, finds a record of the rare class in a corner), a rare class at about 2.4 ``rate``."""
    rng = np.random.default_rng(seed)
    V = rng.normal(0, 1, (n, 16))
    weights = np.zeros(16)
    weights[:4] = [-1.2, 0.9, 1.1, -0.8]
    logit = V @ weights + np.log(rate / (1 - rate)) - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
    columns = tuple(dpcvx.NumericColumn(f"v{j}", -5, 5) for j in range(16))
    return pd.DataFrame(V, columns=[f"v{j}" for j in range(16)]), y, dpcvx.PublicSchema(columns, norm=1.0)


def _told(estimator, X, y) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, TrainingRowsWarning)]


@pytest.fixture(scope="module")
def rare():
    table, y, schema = _rare()
    return np.asarray(schema.fit_transform(table), dtype=float), y, schema


def test_a_one_class_default_release_is_told_the_public_rate_threshold_first(rare):
    X, y, _ = rare
    told = _told(dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0), X, y)
    assert len(told) == 1 and training_rows.ONE_CLASS in told[0]
    text = told[0]
    assert ADVICE in text and "set_params(threshold=p)" in text and "spends no privacy" in text
    assert text.index(ADVICE) < text.index("NOT PRIVATE") < text.index("dpcvx.tune")  # first, before tune


@pytest.mark.parametrize("settings", [dict(threshold=0.3), dict(class_weight="balanced"),
                                      dict(class_prior="private", threshold="prior")],
                         ids=["moved-cut", "balanced", "prior"])
def test_the_threshold_is_not_advised_where_the_cut_or_the_weights_already_moved(rare, settings):
    X, y, _ = rare
    assert not any(ADVICE in text for text in _told(dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0,
                                                                             **settings), X, y))


def test_the_threshold_is_advised_only_where_the_rarer_class_is_missed():
    # counts[i, j]: label i predicted j
    assert training_rows.misses_rarer_class(np.array([[990, 0], [10, 0]]))  # one class: the common one
    assert training_rows.misses_rarer_class(np.array([[980, 0], [19, 1]]))  # the rare class nearly never
    assert not training_rows.misses_rarer_class(np.array([[0, 990], [0, 10]]))  # the common class never predicted
    assert not training_rows.misses_rarer_class(np.array([[900, 90], [5, 5]]))  # predicted enough
    assert not training_rows.misses_rarer_class(np.eye(3, dtype=int))


def test_the_public_rate_threshold_helps_the_release_it_is_said_of(rare):
    """The advice followed on the same release (post-processing): held-out balanced accuracy well above 0.5."""
    X, y, _ = rare
    table, y_new, schema = _rare(seed=1)
    X_new = np.asarray(schema.transform(table), dtype=float)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TrainingRowsWarning)
        estimator = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    from sklearn.metrics import balanced_accuracy_score
    assert balanced_accuracy_score(y_new, estimator.predict(X_new)) == 0.5
    assert balanced_accuracy_score(y_new, estimator.set_params(threshold=0.0095).predict(X_new)) > 0.65


@pytest.mark.slow  # 10.7 s of CPU (session 71, P4): the report's encodable search over this schema, 4 s a report
def test_the_report_says_near_one_class_over_the_declared_domain(rare, tmp_path):
    X, y, schema = rare
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=TrainingRowsWarning)
        estimator = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    dpcvx.save(estimator, tmp_path / "m.json", schema=schema)
    model = dpcvx.load(tmp_path / "m.json")
    label, count, bound = domain_share(model, model.schema)
    assert label == 1 and count <= 2 and bound < DOMAIN_SHARE
    report = model.report()
    assert model.certificate.findings == () and report.encodable is None  # neither proof says it
    summary = report.to_markdown().split("## ")[1]
    assert f"Near one class: nearly one class over the declared domain: of {DOMAIN_DRAWS:,} records" in summary
    assert "Your records need not follow that law" in summary
    # at the public rate's cut the same release predicts the rare class on a large share of the domain: not said
    assert domain_finding(model, model.schema, cut=np.log(0.0095 / 0.9905)) is None


def test_a_useful_release_is_not_called_near_one_class(tmp_path):
    rng = np.random.default_rng(3)
    V = rng.normal(0, 1, (20_000, 4))
    y = (V[:, 0] + 0.5 * V[:, 1] + rng.normal(0, 0.5, V.shape[0]) > 0).astype(int)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"v{j}", -5, 5) for j in range(4)), norm=1.0)
    X = np.asarray(schema.fit_transform(pd.DataFrame(V, columns=[f"v{j}" for j in range(4)])), dtype=float)
    estimator = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
    dpcvx.save(estimator, tmp_path / "m.json", schema=schema)
    model = dpcvx.load(tmp_path / "m.json")
    assert domain_finding(model, model.schema) is None
    assert "Near one class" not in model.report().to_markdown()
