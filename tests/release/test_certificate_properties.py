"""Every public property of every release kind's certificate can be read, before and after a round trip.

A certificate property that assumes one calibration kind (``beta`` read from ``calibration["beta"]``)
raises on the others: the float-safe output releases record no beta (their noise is a lattice
noise), so ``certificate.beta`` raised KeyError there, and the estimators' noise-ratio helper
(``noise_to_signal``, and the margin rule's noise moments) with it. This test reads every public
attribute of every kind's certificate, prints it and computes the noise ratios of every linear one.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpcvx
from dpcvx import losses
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.models.multiclass import PrivateMulticlassERM
from dpcvx.models.pinp import PINP
from dpcvx.models.tddl import TDDL
from dpcvx.models.tdil import TDIL
from dpcvx.release.model import ReleaseCertificate
from dpcvx.sklearn.noise_warning import margin_noise_to_signal, noise_to_signal

N = 200
LOSS = "huber_hinge:h=0.5"


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (N, 2)) / np.sqrt(2)
    return X, np.where((X**2).sum(axis=1) < 0.25, 1.0, -1.0)


def linear(float_safe: bool, **params):
    return dpcvx.PrivateERM(lam=0.1, data_norm=1.0, float_safe=float_safe, **params)


def release_makers(X, y):
    """name -> a function making that kind of release (every linear calibration kind, float and float-safe)."""
    makers = {}
    for float_safe in (False, True):
        for mechanism, delta in (("output", 0.0), ("output", 1e-6), ("objective", 0.0), ("objective", 1e-6)):
            if float_safe and mechanism == "objective" and delta > 0:
                continue  # no float-safe form: refused (tests/release/test_float_safe_certificate.py)
            makers[f"linear {mechanism} {delta} float_safe={float_safe}"] = (
                lambda m=mechanism, dl=delta, fs=float_safe: linear(fs).fit(X, y, 1.0, m, delta=dl, random_state=0))
        makers[f"regression float_safe={float_safe}"] = lambda fs=float_safe: dpcvx.PrivateERM(
            loss=losses.huber_regression(1.0), task="regression", label_bound=1.0, lam=0.1, data_norm=1.0,
            float_safe=fs).fit(X, y, 1.0, "output", random_state=0)
        makers[f"multiclass float_safe={float_safe}"] = lambda fs=float_safe: PrivateMulticlassERM(
            linear(fs), (-1.0, 1.0, 2.0)).fit(X, y, 1.0, "output", random_state=0)
    makers["adassp"] = lambda: PrivateLinearRegression(1.0, 1.0).fit(X, y, 1.0, 1e-6, random_state=0)
    for float_safe in (False, True):
        makers[f"TDDL float_safe={float_safe}"] = lambda fs=float_safe: TDDL(
            "rbf", gamma=2.0, lam=0.1, loss=LOSS, float_safe=fs).fit(X, y, 1.0, Z=X[:20], random_state=0)
        makers[f"TDIL float_safe={float_safe}"] = lambda fs=float_safe: TDIL(
            "linear", lam=0.1, input_bound=1.0, loss=LOSS, float_safe=fs).fit(X, y, 200.0, 1e-6, random_state=3)
    makers["PINP"] = lambda: _pinp(X, y)
    return makers


def _pinp(X, y):
    curator = PINP("rbf", gamma=4.0, lam=0.1, max_queries=4, loss=LOSS).fit(X, y, 1e4, 1e-6, random_state=4)
    curator.decision_function(X[:4])
    return curator.release()


def read_every_property(certificate) -> None:
    for name in dir(certificate):
        if not name.startswith("_"):
            getattr(certificate, name)  # raises if a property assumes another calibration kind
    assert str(certificate) and certificate.to_dict()
    if isinstance(certificate, ReleaseCertificate):
        noise, bound = noise_to_signal(certificate)
        assert noise > 0 and bound > 0
        if certificate.label_bound is None:  # classifiers: the estimators' margin rule reads the calibration too
            assert all(value > 0 for value in margin_noise_to_signal(certificate, None))
        beta = certificate.beta
        assert beta is None or beta > 0


KINDS = sorted(release_makers(np.zeros((1, 2)), np.zeros(1)))


@pytest.mark.parametrize("kind", KINDS)
def test_every_certificate_property_reads_for_every_release_kind(data, kind, tmp_path):
    X, y = data
    model = release_makers(X, y)[kind]()
    read_every_property(model.certificate)
    loaded = dpcvx.load(dpcvx.save(model, tmp_path / "release.json"))
    read_every_property(loaded.certificate)
    if hasattr(model.certificate, "per_class"):
        for certificate in model.certificate.per_class:
            read_every_property(certificate)


def test_beta_is_none_where_the_noise_has_no_beta_and_the_recorded_beta_elsewhere(data):
    X, y = data
    plain = linear(False).fit(X, y, 1.0, "output", random_state=0).certificate
    safe = linear(True).fit(X, y, 1.0, "output", random_state=0).certificate
    assert plain.beta == plain.calibration.to_dict()["beta"] > 0
    assert "beta" not in safe.calibration.to_dict() and safe.beta is None
