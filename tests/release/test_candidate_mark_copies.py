"""The mark that a certificate's curve is one candidate's share of a release dpcvx.tune selected is state of the
certificate (``CandidateMark.candidate_of_tuning``) and of the curve (``PrivacyCurve.candidate_share``), so every
copy keeps it and every reader that composes or charges a curve refuses it. It was an attribute set after
construction: ``sparsify`` (``dataclasses.replace``) lost it, and ``compose_epsilon``, the accountant and
``to_dp_events`` then took 0.667 of a release that spent 2; ``Composition.of`` composed it and a dict round trip of
the curve dropped it (an attacker probe, sixty-ninth session, F1 and F3)."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import Composition, PrivacyCurve, compose_epsilon
from tests.edited_files import load_edited

SHARE = "ONE CANDIDATE'S SHARE"
EPSILON = 2.0


@pytest.fixture(scope="module", params=["split", "full-data"])
def tuned(request):
    """A release each tune procedure selected from three candidates at a total epsilon of 2."""
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=3000) > 0, 1, -1)
    return dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=EPSILON,
                      procedure=request.param, random_state=0).model


def _refused_everywhere(release) -> None:
    """The certificate's curve of ``release`` is a candidate's share: composed, charged or converted, refused; the
    release's own curve composes to what it spent."""
    curve = release.certificate.privacy_curve
    assert curve.candidate_share
    with pytest.raises(InputError, match=SHARE):
        compose_epsilon([curve], 0.0)
    with pytest.raises(InputError, match=SHARE):
        Composition.of([curve])
    with pytest.raises(InputError, match=SHARE):
        curve.epsilon(0.0)
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    for charge in (accountant.spend, accountant.can_spend):
        with pytest.raises(InputError, match=SHARE):
            charge(release.certificate.epsilon, curve=curve)
    assert not accountant.ledger
    assert release.epsilon == pytest.approx(EPSILON)
    assert compose_epsilon([release.privacy_curve], 0.0) == pytest.approx(EPSILON)


def test_a_sparsified_tuned_release_keeps_the_mark(tuned):
    sparse = tuned.sparsify(keep=2)
    _refused_everywhere(sparse)
    assert sparse.tuning is tuned.tuning and sparse.certificate.candidate_of_tuning
    _refused_everywhere(sparse.sparsify(threshold=0.0))  # twice over
    pytest.importorskip("dp_accounting")
    with pytest.raises(InputError, match=SHARE):
        sparse.certificate.privacy_curve.to_dp_events()


def test_any_replace_of_the_certificate_keeps_the_mark(tuned):
    _refused_everywhere(copy.copy(tuned))
    replaced = dataclasses.replace(tuned.certificate, findings=("a public finding",))
    assert replaced.privacy_curve.candidate_share


def test_composition_of_refuses_a_candidates_curve_and_composes_the_release_s(tuned):
    with pytest.raises(InputError, match=SHARE):
        Composition.of([tuned.privacy_curve, tuned.certificate.privacy_curve])
    assert Composition.of([tuned.privacy_curve]).epsilon(0.0) == pytest.approx(EPSILON)


def test_the_curve_s_dict_round_trips_the_mark(tuned):
    curve = tuned.certificate.privacy_curve
    data = curve.to_dict()
    assert data["candidate_share"] is True
    read = PrivacyCurve.from_dict(json.loads(json.dumps(data)))
    assert read.candidate_share and read == curve
    with pytest.raises(InputError, match=SHARE):
        compose_epsilon([read], 0.0)
    assert "candidate_share" not in tuned.privacy_curve.to_dict()  # the release's own curve: unchanged
    with pytest.raises(InputError, match="candidate_share"):
        PrivacyCurve.from_dict({**data, "candidate_share": False})  # the key says true or is absent


def test_deepcopy_and_pickle_keep_the_mark(tuned):
    for release in (copy.deepcopy(tuned), pickle.loads(pickle.dumps(tuned))):
        _refused_everywhere(release)
    for curve in (copy.deepcopy(tuned.certificate.privacy_curve),
                  pickle.loads(pickle.dumps(tuned.certificate.privacy_curve)),
                  pickle.loads(pickle.dumps(tuned.certificate)).privacy_curve):
        assert curve.candidate_share


def test_a_saved_sparsified_tuned_release_loads_marked(tuned, tmp_path):
    sparse = tuned.sparsify(keep=2)
    path = dpcvx.save(sparse, tmp_path / "sparse.json")
    recorded = json.loads(path.read_text())["certificate"]["privacy_curve"]
    assert recorded["candidate_share"] is True  # the file records it (format version 20); the reader marks again
    loaded = dpcvx.load(path)
    assert loaded.certificate.post_processing == sparse.certificate.post_processing
    _refused_everywhere(loaded)
    _refused_everywhere(loaded.sparsify(keep=1))
    assert dpcvx.save(loaded, tmp_path / "again.json").read_bytes() == path.read_bytes()


def test_a_file_whose_certificate_curve_lacks_the_mark_is_refused(tuned, tmp_path):
    """A tuned file records the mark in its certificate's curve (format version 20): one that does not has been
    edited (an untuned file that does: test_candidate_curve_records.py)."""
    data = json.loads(dpcvx.save(tuned, tmp_path / "tuned.json").read_text())
    del data["certificate"]["privacy_curve"]["candidate_share"]
    with pytest.raises(InputError, match="candidate_share"):
        load_edited(data, tmp_path)


def test_an_untuned_release_is_not_marked_by_a_copy():
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (600, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    model = dpcvx.PrivateERM(lam=0.1, data_norm=1.0).fit(X, y, 1.0, random_state=0)
    for copied in (model.sparsify(keep=2), copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert not copied.certificate.candidate_of_tuning
        assert compose_epsilon([copied.certificate.privacy_curve], 0.0) == pytest.approx(model.epsilon)
