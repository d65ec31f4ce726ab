"""Whether a loaded classifier has probabilities is checked on load (format version 9): a certificate of the logistic
loss records that its probabilities come from that loss (``certificate.probabilities``), and a loss text that
disagrees with the record is refused (docs/model-files.md). Before, a Huber-hinge file whose loss text was edited to
"logistic(-z)" loaded and offered sigmoid probabilities that no fitted loss supports."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError
from dpcvx.release.records.upgrade import upgraded
from dpcvx.release.serialization import model_to_dict

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

FORMAT8 = Path(__file__).resolve().parent / "fixtures" / "format8"
RECORD = {"loss": "logistic(-z)", "link": "sigmoid"}


@pytest.fixture(scope="module")
def files():
    X, y = synthetic_classification(n=300, d=3, random_state=0)
    labels = np.digitize(X[:, 0], [-0.2, 0.2])
    huber = dpcvx.PrivateERM(data_norm=1.0, lam=0.1, loss=dpcvx.losses.huber_hinge(0.5))
    return {"logistic": model_to_dict(dpcvx.PrivateERM(data_norm=1.0, lam=0.1).fit(X, y, 1.0, random_state=0)),
            "huber": model_to_dict(huber.fit(X, y, 1.0, random_state=0)),
            "multiclass": model_to_dict(dpcvx.DPLogisticRegression(classes=(0, 1, 2)).fit(X, labels).model_)}


def _load(data, tmp_path):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return dpcvx.load(path)


def test_a_logistic_certificate_records_its_probabilities_and_a_huber_one_none(files, tmp_path):
    assert files["logistic"]["certificate"]["probabilities"] == RECORD
    assert all(entry["certificate"]["probabilities"] == RECORD for entry in files["multiclass"]["per_class"])
    assert "probabilities" not in files["huber"]["certificate"]
    rows = np.full((2, 3), 0.1)
    assert _load(files["logistic"], tmp_path).predict_proba(rows).shape == (2, 2)
    assert not hasattr(_load(files["huber"], tmp_path), "predict_proba")


def test_a_huber_loss_edited_into_the_logistic_loss_is_refused(files, tmp_path):
    edited = copy.deepcopy(files["huber"])
    edited["certificate"]["verification"]["loss"] = "logistic(-z)"  # the auditor's edit: probabilities appeared
    with pytest.raises(FileError, match=r"verification\.loss is the logistic loss logistic\(-z\), but "
                                        r"certificate\.probabilities is missing"):
        _load(edited, tmp_path)


def test_a_logistic_loss_edited_away_or_an_edited_record_is_refused(files, tmp_path):
    huber_text = files["huber"]["certificate"]["verification"]["loss"]
    edits = {"loss text": ("verification", {**files["logistic"]["certificate"]["verification"], "loss": huber_text}),
             "record": ("probabilities", {**RECORD, "link": "softmax"})}
    for key, value in edits.values():
        edited = copy.deepcopy(files["logistic"])
        edited["certificate"][key] = value
        with pytest.raises(FileError, match=r"certificate\.probabilities records probabilities of the logistic"):
            _load(edited, tmp_path)
    added = copy.deepcopy(files["huber"])
    added["certificate"]["probabilities"] = RECORD
    with pytest.raises(FileError, match="a loss without a probability model"):
        _load(added, tmp_path)
    removed = copy.deepcopy(files["logistic"])
    del removed["certificate"]["probabilities"]
    with pytest.raises(FileError, match=r"certificate\.probabilities is missing"):
        _load(removed, tmp_path)
    for record in ({"loss": "logistic(-z)"}, {"loss": 1, "link": "sigmoid"}):
        edited = copy.deepcopy(files["logistic"])
        edited["certificate"]["probabilities"] = record
        with pytest.raises(FileError, match=r"certificate\.probabilities"):
            _load(edited, tmp_path)


def test_a_multiclass_entrys_edited_loss_is_refused(files, tmp_path):
    edited = copy.deepcopy(files["multiclass"])
    edited["per_class"][1]["certificate"]["verification"]["loss"] = "logistic(z)"
    with pytest.raises(FileError, match=r"per_class\[1\]: certificate\.probabilities records"):
        _load(edited, tmp_path)


def test_a_version_8_file_records_the_probabilities_its_loss_gives():
    """The step from version 8 records what the file's loss text gives (such a file is not protected against that
    edit); a saved file of this dpcvx holds the same record."""
    for name in ("linear", "multi"):
        data = upgraded(json.loads((FORMAT8 / f"{name}.json").read_text()))
        certificates = [entry["certificate"] for entry in data["per_class"]] if name == "multi" \
            else [data["certificate"]]
        assert all(certificate["probabilities"] == RECORD for certificate in certificates)
    regression = upgraded(json.loads((FORMAT8 / "huber.json").read_text()))
    assert "probabilities" not in regression["certificate"]
