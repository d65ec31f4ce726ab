"""A float-safe linear release names its floating-point guarantee, and a saved one round-trips.

``PrivateERM(..., float_safe=True)``: output perturbation is EXACT (pure and (eps, delta)),
pure-epsilon objective perturbation is DITHERED_LATTICE; (eps, delta) objective perturbation has no float-safe
form and is refused (the flag would change nothing: its release stays MITIGATION_ONLY). The loader recomputes every
lattice field from the public inputs, so an edited field, or a float-safe file relabelled as a float one, is refused.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import dpcvx
from dpcvx import PrivateERM
from dpcvx.exceptions import InputError
from dpcvx.release.records.header import DIGEST, file_digest

N, D = 400, 3
CASES = [("output", 0.0, "exact"), ("output", 1 / N**2, "exact"), ("objective", 0.0, "dithered-lattice")]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(N, D))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * (1 + 1e-12)
    return X, np.where(X @ np.array([1.0, -1.0, 2.0]) > 0, 1.0, -1.0)


@pytest.fixture(scope="module")
def releases(data):
    """release(mechanism, delta): one float-safe fit per case, made on first use (about 1 s each)."""
    X, y = data
    learner = PrivateERM(lam=0.05, data_norm=1.0, float_safe=True)
    cache = {}

    def release(mechanism, delta):
        if (mechanism, delta) not in cache:
            cache[(mechanism, delta)] = learner.fit(X, y, epsilon=1.0, mechanism=mechanism, delta=delta,
                                                    random_state=7)
        return cache[(mechanism, delta)]
    return release


@pytest.mark.parametrize(("mechanism", "delta", "guarantee"), CASES)
def test_each_release_names_its_guarantee_and_round_trips(releases, tmp_path, mechanism, delta, guarantee):
    model = releases(mechanism, delta)
    calibration = model.certificate.calibration.to_dict()
    assert calibration["float_guarantee"] == guarantee
    spacing = Fraction(calibration["lattice"])
    assert all((Fraction(w) / spacing).denominator == 1 for w in model.coef_)  # lattice points
    path = tmp_path / "model.json"
    dpcvx.save(model, path)
    loaded = dpcvx.load(path)
    assert np.array_equal(loaded.coef_, model.coef_)
    assert loaded.certificate.calibration == model.certificate.calibration
    assert loaded.certificate.calibration.to_dict() == calibration
    assert guarantee.replace("-", " ").split()[0] in str(loaded.certificate).lower()


@pytest.mark.parametrize(("mechanism", "delta", "field"), [
    ("output", 0.0, "lattice_l1_sensitivity"), ("output", 1 / N**2, "sigma2_steps"),
    ("objective", 0.0, "noise_l1_sensitivity"), ("objective", 0.0, "dithered_radius")])
def test_the_loader_recomputes_the_lattice_fields(releases, tmp_path, mechanism, delta, field):
    path = tmp_path / "model.json"
    dpcvx.save(releases(mechanism, delta), path)
    saved = json.loads(path.read_text())
    text = json.dumps(saved)
    value = releases(mechanism, delta).certificate.calibration.to_dict()[field]
    edited = text.replace(f'"{field}": {json.dumps(value)}', f'"{field}": {json.dumps(value / 2)}')
    assert edited != text
    path.write_text(edited)
    with pytest.raises(InputError, match=field):
        dpcvx.load(path)


def test_a_float_safe_file_relabelled_as_float_is_refused(releases, tmp_path):
    path = tmp_path / "model.json"
    dpcvx.save(releases("output", 0.0), path)
    text = path.read_text()
    edited = json.loads(text.replace('"sampler": "exact"', '"sampler": "float"'))
    assert edited != json.loads(text)
    path.write_text(json.dumps({**edited, DIGEST: file_digest(edited)}))  # resealed: refused by the certificate's check
    with pytest.raises(InputError):
        dpcvx.load(path)


def test_float_safe_is_refused_where_it_would_change_nothing(data):
    """(eps, delta) objective perturbation has no float-safe form: float_safe=True was accepted and released the float
    Gaussian objective ("mitigation-only", as without it); now every entry refuses it before anything is drawn."""
    X, y = data
    learner = PrivateERM(lam=0.05, data_norm=1.0, float_safe=True)
    accountant = dpcvx.PrivacyAccountant(epsilon=2.0, delta=1e-3)
    for call in (lambda: learner.check_options(1.0, "objective", delta=1 / N**2),
                 lambda: learner.fit(X, y, epsilon=1.0, delta=1 / N**2, random_state=7, accountant=accountant),
                 lambda: learner.choose_lam(N, D, 1.0, delta=1 / N**2)):
        with pytest.raises(InputError, match=r"float_safe=True has no floating-point-safe form .* "
                                             r"mechanism='output' .* or delta=0 .* fit with float_safe=False"):
            call()
    assert accountant.ledger == []
    learner.check_options(1.0, "output", delta=1 / N**2)  # its float-safe forms are kept
    learner.check_options(1.0, "objective")


def test_float_safe_is_off_by_default_and_the_float_release_says_mitigation_only(data):
    X, y = data
    learner = PrivateERM(lam=0.05, data_norm=1.0)
    assert learner.get_params()["float_safe"] is False
    model = learner.fit(X, y, epsilon=1.0, mechanism="output", random_state=7)
    assert model.certificate.calibration.to_dict()["float_guarantee"] == "mitigation-only"
