"""Under add/remove a fit refuses, before any charge, a data set of more than tol n_public / 1e-13 records
(docs/theory.md, section 23): the guarantee holds between neighbours within that domain only, and the refusal tells a
data set beyond it from its neighbour at it. The certificate did not state the domain, so a reader of a release could
not tell on what data sets its guarantee holds (a regression audit, session 69, P5). It now states it, from the
recorded public tol and n_public only (``ReleaseCertificate.rows_limit`` and ``domain``: derived, not a field of the
file), in its text and in the report's neighbour relation; it round-trips through a file."""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification


def _fit(n: int, n_public: int, tol: float = 1e-10, ledger=None):
    X, y = synthetic_classification(n=n, d=4, random_state=0)
    return dpcvx.PrivateERM(data_norm=1.0, lam=0.1, tol=tol).fit(X, y, 1.0, "output", delta=1e-6,
                                                                  neighbours="add-remove", n_public=n_public,
                                                                  accountant=ledger)


@pytest.mark.parametrize("n_public, tol", [(1, 1e-10), (3, 2.5e-10)])
def test_the_stated_limit_is_the_refusal_boundary(n_public, tol):
    """The fit at the stated number of records is released; one record more is refused with nothing charged."""
    model = _fit(50, n_public, tol)
    limit = model.certificate.rows_limit
    assert limit == int(round(tol * n_public / 1e-13))
    assert f"data sets of at most {limit} records" in model.certificate.domain
    assert _fit(limit, n_public, tol).certificate.rows_limit == limit  # the domain does not depend on the data
    ledger = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-3, neighbours="add-remove")
    with pytest.raises(dpcvx.InputError, match="too many rows for n_public"):
        _fit(limit + 1, n_public, tol, ledger)
    assert ledger.ledger == []


def test_the_certificate_and_the_report_state_the_domain_and_it_round_trips(tmp_path):
    model = _fit(500, 2)
    certificate = model.certificate
    assert certificate.rows_limit == 2000
    assert f"domain: {certificate.domain}" in str(certificate).splitlines()
    assert "tol n_public / 1e-13 at tol = 1e-10, n_public = 2" in certificate.domain
    report = model.report().to_markdown()
    assert "This holds on data sets of at most 2000 records" in report
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "m.json"))
    assert loaded.certificate.domain == certificate.domain and loaded.certificate.rows_limit == 2000
    assert str(loaded.certificate) == str(certificate)
    assert "This holds on data sets of at most 2000 records" in loaded.report().to_markdown()


def test_a_replace_one_release_states_no_domain():
    X, y = synthetic_classification(n=500, d=4, random_state=0)
    model = dpcvx.PrivateERM(data_norm=1.0, lam=0.1).fit(X, y, 1.0, "output", delta=1e-6)
    assert model.certificate.rows_limit is None and model.certificate.domain is None
    assert not any(line.startswith("domain:") for line in str(model.certificate).splitlines())
    assert "This holds on data sets" not in model.report().to_markdown()


def test_a_one_vs_rest_report_states_the_domain():
    X, _ = synthetic_classification(n=600, d=4, random_state=0)
    y = np.digitize(X[:, 0], np.quantile(X[:, 0], [1 / 3, 2 / 3]))
    model = dpcvx.DPLogisticRegression(epsilon=3.0, delta=1e-6, neighbours="add-remove", n_public=600,
                                       classes=(0, 1, 2), column_statistics=False, random_state=0).fit(X, y)
    limit = model.model_.certificate.per_class[0].rows_limit
    assert limit == 600_000
    assert f"This holds on data sets of at most {limit} records" in model.model_.report().to_markdown()
