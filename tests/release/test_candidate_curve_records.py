"""Every record of a tuned candidate's curve says it is one candidate's share (``"candidate_share": true``), so that
``PrivacyCurve.from_dict`` of it is refused by every reader that composes or charges a curve: the selected release's
``certificate.to_dict()`` (and its model file's ``certificate.privacy_curve``, format version 20), the tuning
certificate's record of that release, and a full-data selection's ``candidate_curves`` (attribute and record). Before,
``certificate.to_dict()`` wrote the fit's curve unmarked (to keep the file's bytes), so that
``compose_epsilon([PrivacyCurve.from_dict(cert.to_dict()["privacy_curve"])], ...)`` took 0.667 of a release that spent
2 (an attacker probe, sixty-ninth session, P9 F4), and the selection's candidate curves were never marked.

Files of format version 19 (``fixtures/format19``: a split and a full-data selection at delta 1e-6 of a linear ERM, a
one-vs-rest selection and an untuned release, written by the parent commit 87b7cedf through ``dpcvx.save`` at
random_state 5, with the certificate text, epsilon, decision values and predictions it computed) load with their
records marked by the step from version 19; a version 20 tuned file whose curve lacks the mark, an untuned one that
holds it and a version 19 file that holds it are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from edited_files import load_edited, saved_json

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import Composition, PrivacyCurve, compose_epsilon
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest
from dpcvx.release.tuning_record import TUNING_RECORD, tuning_digest

SHARE = "ONE CANDIDATE'S SHARE"
EPSILON = 2.0
DELTA = 1e-6
FORMAT19 = Path(__file__).parent / "fixtures" / "format19"
EXPECTED19 = json.loads((FORMAT19 / "expected.json").read_text())
NAMES19 = ["split", "full_data", "multiclass", "untuned"]


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=3000) > 0, 1, -1)


@pytest.fixture(scope="module", params=["split", "full-data"])
def result(request) -> Any:
    """Each tune procedure's selection from three candidates at (2, 1e-6), output perturbation (the full-data
    procedure at delta > 0 claims each candidate's curve before its runs)."""
    X, y = _data()
    options = {"mean_runs": 3} if request.param == "full-data" else {}
    return dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, y, {"lam": [1e-3, 1e-2, 1e-1]}, epsilon=EPSILON,
                      delta=DELTA, mechanism="output", procedure=request.param, random_state=0, **options)


def _refused(record: Any) -> None:
    """``record`` (a curve's dict) reads back as a candidate's share, which no reader composes or charges."""
    assert record["candidate_share"] is True
    curve = PrivacyCurve.from_dict(json.loads(json.dumps(record)))
    assert curve.candidate_share and SHARE in str(curve)
    with pytest.raises(InputError, match=SHARE):
        compose_epsilon([curve], DELTA)
    with pytest.raises(InputError, match=SHARE):
        Composition.of([curve])
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0, delta=1e-5)
    for charge in (accountant.spend, accountant.can_spend):
        with pytest.raises(InputError, match=SHARE):
            charge(curve.parts[0].epsilon or 1.0, DELTA, curve=curve)
    assert not accountant.ledger
    pytest.importorskip("dp_accounting")
    with pytest.raises(InputError, match=SHARE):
        curve.to_dp_events()


def test_the_certificate_s_dict_records_the_mark(result):
    release = result.release
    _refused(release.certificate.to_dict()["privacy_curve"])
    total = pytest.approx(EPSILON, rel=1e-9)  # the selection's own curve composes (to its total, within rounding)
    assert compose_epsilon([release.privacy_curve], DELTA) == total
    assert compose_epsilon([PrivacyCurve.from_dict(release.privacy_curve.to_dict())], DELTA) == total


def test_the_tuning_certificate_s_record_of_the_release_records_the_mark(result):
    _refused(result.certificate.to_dict()["release"]["privacy_curve"])
    _refused(result.to_dict()["model"]["certificate"]["privacy_curve"])
    _refused(result.release.tuning.certificate["release"]["privacy_curve"])


def test_the_selection_s_candidate_curves_are_marked(result):
    claimed = getattr(result.certificate, "candidate_curves", None)
    if claimed is None:  # the split procedure claims none
        assert "candidate_curves" not in result.certificate.to_dict()
        return
    assert len(claimed) == 3 and all(curve.candidate_share for curve in claimed)
    for curve in claimed:
        with pytest.raises(InputError, match=SHARE):
            compose_epsilon([curve], DELTA)
    for record in result.certificate.to_dict()["candidate_curves"]:
        _refused(record)


def test_the_saved_file_records_the_mark_and_loads(result, tmp_path):
    data = saved_json(result.release)
    assert data["format_version"] == MODEL_FORMAT_VERSION == 20
    _refused(data["certificate"]["privacy_curve"])
    _refused(data["tuning"]["certificate"]["release"]["privacy_curve"])
    for record in data["tuning"]["certificate"].get("candidate_curves", []):
        _refused(record)
    path = tmp_path / "tuned.json"
    path.write_text(json.dumps(data))
    loaded = dpcvx.load(path)
    assert loaded.certificate.privacy_curve.candidate_share and loaded.epsilon == result.release.epsilon
    _refused(loaded.certificate.to_dict()["privacy_curve"])
    assert json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text()) == data  # saved again, the same


def test_a_tuned_file_without_the_mark_is_refused(result, tmp_path):
    data = saved_json(result.release)
    del data["certificate"]["privacy_curve"]["candidate_share"]
    with pytest.raises(InputError, match="does not record candidate_share"):
        load_edited(data, tmp_path)


def test_an_untuned_file_with_the_mark_is_refused(tmp_path):
    X, y = _data()
    model = dpcvx.PrivateERM(data_norm=1.0, lam=0.01).fit(X, y, EPSILON, random_state=0)
    assert "candidate_share" not in model.certificate.to_dict()["privacy_curve"]
    data = saved_json(model)
    assert "candidate_share" not in data["certificate"]["privacy_curve"]
    data["certificate"]["privacy_curve"]["candidate_share"] = True
    with pytest.raises(InputError, match="records candidate_share"):
        load_edited(data, tmp_path)


def test_a_tuned_one_vs_rest_release_records_the_mark(tmp_path):
    X, y = _data()
    labels = np.where(X[:, 1] > 0.2, 2, (y > 0).astype(int))
    learner = dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0), (0, 1, 2))
    result = dpcvx.tune(learner, X, labels, {"binary__lam": [1e-2, 1e-1]}, epsilon=3.0, random_state=0)
    _refused(result.release.certificate.to_dict()["privacy_curve"])
    _refused(result.certificate.to_dict()["release"]["privacy_curve"])
    data = saved_json(result.release)
    _refused(data["tuning"]["certificate"]["release"]["privacy_curve"])
    path = tmp_path / "tuned.json"
    path.write_text(json.dumps(data))
    assert dpcvx.load(path).certificate.privacy_curve.candidate_share


# --- files of format version 19 ------------------------------------------------------------------------------------

def _marks(data: dict) -> list[Any]:
    """The candidate mark of each curve of one candidate a file records (None: unmarked), a one-vs-rest file's class
    curves included (its entries' and its tuning record's)."""
    record = (data["tuning"] or {}).get("certificate", {})
    release = record.get("release", {})
    curves = [*(entry["certificate"]["privacy_curve"] for entry in data.get("per_class", [data])),
              *([release["privacy_curve"]] if "privacy_curve" in release else []),
              *(item["privacy_curve"] for item in release.get("per_class", [])),
              *record.get("candidate_curves", [])]
    return [curve.get("candidate_share") for curve in curves]


def test_the_format19_fixtures_are_as_version_19_wrote_them():
    files = {name: json.loads((FORMAT19 / f"{name}.json").read_text()) for name in NAMES19}
    assert {data["format_version"] for data in files.values()} == {19}
    assert all(data["sha256"] == file_digest(data) for data in files.values())
    assert [data["tuning"] is not None for data in files.values()] == [True, True, True, False]
    assert len(files["full_data"]["tuning"]["certificate"]["candidate_curves"]) == 2
    assert all(mark is None for data in files.values() for mark in _marks(data))


@pytest.mark.parametrize("name", NAMES19)
def test_a_version_19_file_loads_with_its_candidate_curves_marked(name, as_written, tmp_path):
    source = FORMAT19 / f"{name}.json"
    loaded = dpcvx.load(source)
    recorded = EXPECTED19[name]
    assert str(loaded.certificate) == recorded["certificate"] and loaded.epsilon == recorded["epsilon"]
    rows = np.array(EXPECTED19["rows"])
    as_written(np.asarray(loaded.decision_function(rows)), recorded["decision"])
    as_written(loaded.predict(rows), recorded["predict"])
    assert loaded.certificate.privacy_curve.candidate_share is (name != "untuned")
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["format_version"] == 20 and rewritten["sha256"] == file_digest(rewritten)
    assert _marks(rewritten) == ([None] if name == "untuned" else [True] * len(_marks(rewritten)))
    if rewritten["tuning"] is not None:
        for record in [rewritten, *rewritten.get("per_class", [])]:
            if "certificate" in record:
                assert record["certificate"][TUNING_RECORD] == tuning_digest(rewritten["tuning"])
        for record in rewritten["tuning"]["certificate"].get("candidate_curves", []):
            _refused(record)
    source_data = json.loads(source.read_text())
    assert rewritten["tuning"] is None or rewritten["tuning"]["text"] == source_data["tuning"]["text"]
    again = dpcvx.load(tmp_path / "again.json")
    assert str(again.certificate) == recorded["certificate"]
    as_written(again.predict(rows), recorded["predict"])


def test_a_version_19_file_holding_the_mark_is_refused(tmp_path):
    data = json.loads((FORMAT19 / "split.json").read_text())
    data["certificate"]["privacy_curve"]["candidate_share"] = True
    with pytest.raises(InputError, match="no version 19 dpcvx wrote"):
        load_edited(data, tmp_path)


def test_a_version_19_file_whose_tuning_record_was_edited_stays_refused(tmp_path):
    """The step makes a certificate's record of the tuning record again only where it was the file's own: an edited
    tuning record (its digest made again) is refused as before, not laundered by the step."""
    data = json.loads((FORMAT19 / "full_data.json").read_text())
    data["tuning"]["text"] += " (edited)"
    with pytest.raises(InputError, match="tuning is not the tuning record"):
        load_edited(data, tmp_path)
