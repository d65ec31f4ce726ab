"""A tuned one-vs-rest release's class curves are each one candidate's share of the selection, marked wherever the
release's certificate is (``mark_candidate`` marks the classes' certificates with it): in memory
(``certificate.per_class[i].privacy_curve`` and its ``to_dict``), in the model file (``per_class[i].certificate
.privacy_curve`` and ``tuning.certificate.release.per_class[i].privacy_curve``, format version 20) and in a version 19
file's step. Before, they were never marked: a full-data selection of three classes at epsilon 3 left three class
curves that ``PrivacyCurve.from_dict`` read back and ``compose_epsilon`` composed to 1.0, which the accountant
accepted (an attacker probe, seventieth session, P8 F1). The split procedure's class curves are marked too (its
release's certificate is); the release's own curve (the selection's) composes to the total under both procedures.
An untuned one-vs-rest release's class curves stay unmarked, and its file as it was."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from edited_files import load_edited, saved_json

import dpcvx
from dpcvx.exceptions import InputError
from dpcvx.privacy.privacy_curve import Composition, PrivacyCurve, compose_epsilon
from dpcvx.release.records.header import file_digest
from dpcvx.release.tuning_record import TUNING_RECORD, tuning_digest

SHARE = "ONE CANDIDATE'S SHARE"
EPSILON = 3.0
FORMAT19 = Path(__file__).parent / "fixtures" / "format19"


def _data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    X = rng.uniform(-0.5, 0.5, (3000, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=3000) > 0, 1, -1)
    return X, np.where(X[:, 1] > 0.2, 2, (y > 0).astype(int))


def _learner() -> Any:
    return dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0), (0, 1, 2))


@pytest.fixture(scope="module", params=["full-data", "split"])
def result(request) -> Any:
    """The P8 F1 reproducer's selection, by each procedure: three classes, two candidates, epsilon 3."""
    X, labels = _data()
    return dpcvx.tune(_learner(), X, labels, {"binary__lam": [1e-2, 1e-1]}, epsilon=EPSILON, random_state=0,
                      procedure=request.param)


def _refused(record: Any) -> None:
    """``record`` (a curve's dict) reads back as a candidate's share, which no reader composes or charges."""
    assert record["candidate_share"] is True
    curve = PrivacyCurve.from_dict(json.loads(json.dumps(record)))
    assert curve.candidate_share
    with pytest.raises(InputError, match=SHARE):
        compose_epsilon([curve], 0.0)
    with pytest.raises(InputError, match=SHARE):
        Composition.of([curve])
    accountant = dpcvx.PrivacyAccountant(epsilon=10.0)
    with pytest.raises(InputError, match=SHARE):
        accountant.spend(curve.parts[0].epsilon or 1.0, 0.0, curve=curve)
    assert not accountant.ledger


def _class_records(data: dict) -> list[dict]:
    """Every class curve a saved tuned one-vs-rest file records: its entries' and its tuning record's."""
    return [*(entry["certificate"]["privacy_curve"] for entry in data["per_class"]),
            *(item["privacy_curve"] for item in data["tuning"]["certificate"]["release"]["per_class"])]


def test_the_class_curves_are_marked_in_memory_and_the_selection_composes_its_total(result):
    certificate = result.release.certificate
    assert len(certificate.per_class) == 3
    for one in certificate.per_class:
        assert one.privacy_curve.candidate_share
        _refused(one.to_dict()["privacy_curve"])
    with pytest.raises(InputError, match=SHARE):  # the reproducer: 1.0 composed for a selection that spent 3.0
        compose_epsilon([one.privacy_curve for one in certificate.per_class], 0.0)
    assert result.certificate.cost.epsilon == EPSILON
    assert compose_epsilon([result.release.privacy_curve], 0.0) == pytest.approx(EPSILON, rel=1e-9)
    assert compose_epsilon([PrivacyCurve.from_dict(result.release.privacy_curve.to_dict())], 0.0) \
        == pytest.approx(EPSILON, rel=1e-9)


def test_the_class_curves_are_marked_in_every_dict(result):
    for entry in result.to_dict()["model"]["per_class"]:
        _refused(entry["certificate"]["privacy_curve"])
    for item in result.certificate.to_dict()["release"]["per_class"]:
        _refused(item["privacy_curve"])
    for item in result.release.tuning.certificate["release"]["per_class"]:
        _refused(item["privacy_curve"])


def test_a_copy_of_the_certificate_keeps_its_classes_marked(result):
    certificate = result.release.certificate
    assert all(one.privacy_curve.candidate_share for one in dataclasses.replace(certificate).per_class)
    fresh = tuple(dataclasses.replace(one, candidate_of_tuning=False) for one in certificate.per_class)
    assert not any(one.privacy_curve.candidate_share for one in fresh)
    copied = dataclasses.replace(certificate, per_class=fresh)  # a marked certificate's classes are marked with it
    assert all(one.privacy_curve.candidate_share for one in copied.per_class)
    assert all(one.privacy_curve.candidate_share for one in copy.deepcopy(certificate).per_class)


def test_the_saved_file_records_the_class_marks_and_loads(result, tmp_path):
    data = saved_json(result.release)
    for record in _class_records(data):
        _refused(record)
    path = tmp_path / "tuned.json"
    path.write_text(json.dumps(data))
    loaded = dpcvx.load(path)
    assert all(one.privacy_curve.candidate_share for one in loaded.certificate.per_class)
    for one in loaded.certificate.per_class:
        _refused(one.to_dict()["privacy_curve"])
    assert compose_epsilon([loaded.privacy_curve], 0.0) == pytest.approx(EPSILON, rel=1e-9)
    assert json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text()) == data  # saved again, the same


def test_a_class_curve_without_the_mark_is_refused(result, tmp_path):
    data = saved_json(result.release)
    del data["per_class"][1]["certificate"]["privacy_curve"]["candidate_share"]
    with pytest.raises(InputError, match=r"per_class\[1\]\.certificate\.privacy_curve does not record "
                                         "candidate_share"):
        load_edited(data, tmp_path)


def test_a_class_curve_of_the_tuning_record_without_the_mark_is_refused(result, tmp_path):
    """Removed from the tuning record's class curve, with every digest of the record made again."""
    data = saved_json(result.release)
    del data["tuning"]["certificate"]["release"]["per_class"][2]["privacy_curve"]["candidate_share"]
    for entry in data["per_class"]:
        entry["certificate"][TUNING_RECORD] = tuning_digest(data["tuning"])
    with pytest.raises(InputError, match=r"tuning\.certificate\.release\.per_class\[2\]\.privacy_curve does not "
                                         "record candidate_share"):
        load_edited(data, tmp_path)


def test_an_untuned_one_vs_rest_release_s_class_curves_stay_unmarked(tmp_path):
    X, labels = _data()
    model = _learner().fit(X, labels, EPSILON, random_state=0)
    assert not any(one.privacy_curve.candidate_share for one in model.certificate.per_class)
    data = saved_json(model)
    records = [entry["certificate"]["privacy_curve"] for entry in data["per_class"]]
    assert all("candidate_share" not in record for record in records)
    assert compose_epsilon([PrivacyCurve.from_dict(record) for record in records], 0.0) == \
        pytest.approx(EPSILON, rel=1e-9)
    path = tmp_path / "untuned.json"
    path.write_text(json.dumps(data))
    assert json.loads(dpcvx.save(dpcvx.load(path), tmp_path / "again.json").read_text()) == data
    data["per_class"][0]["certificate"]["privacy_curve"]["candidate_share"] = True
    with pytest.raises(InputError, match=r"per_class\[0\]\.certificate\.privacy_curve records candidate_share"):
        load_edited(data, tmp_path)


def test_a_version_19_tuned_one_vs_rest_file_loads_with_its_class_curves_marked(tmp_path):
    source = json.loads((FORMAT19 / "multiclass.json").read_text())
    assert source["tuning"] is not None and "full-data" in source["tuning"]["certificate"]["procedure"]
    assert all("candidate_share" not in record for record in _class_records(source))  # as version 19 wrote it
    loaded = dpcvx.load(FORMAT19 / "multiclass.json")
    assert all(one.privacy_curve.candidate_share for one in loaded.certificate.per_class)
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["format_version"] == 20 and rewritten["sha256"] == file_digest(rewritten)
    for record in _class_records(rewritten):
        _refused(record)
    assert all(entry["certificate"][TUNING_RECORD] == tuning_digest(rewritten["tuning"])
               for entry in rewritten["per_class"])
    assert rewritten["tuning"]["text"] == source["tuning"]["text"]
    assert all(one.privacy_curve.candidate_share for one in dpcvx.load(tmp_path / "again.json").certificate.per_class)


def test_a_version_19_one_vs_rest_file_holding_a_class_mark_is_refused(tmp_path):
    data = json.loads((FORMAT19 / "multiclass.json").read_text())
    data["per_class"][1]["certificate"]["privacy_curve"]["candidate_share"] = True
    with pytest.raises(InputError, match=r"per_class\[1\]\.certificate\.privacy_curve holds candidate_share in a "
                                         "file of format version 19"):
        load_edited(data, tmp_path)
