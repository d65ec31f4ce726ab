"""A saved tuned model's tuning record is bound to its release (format version 9): the selected release's certificate
records the record's digest (``certificate.tuning``), and the numbers of the record agree with each other
(docs/model-files.md, the tuning record). Before, a file whose ``tuning`` was set to null loaded and the model claimed
only the selected candidate's epsilon, and a full-data selection's total could be lowered with its certificate's."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from former_texts import not_recorded, without_candidate_marks, without_noise_source

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError
from dpcvx.release.records.upgrade import upgraded
from dpcvx.release.serialization import model_from_dict, model_to_dict
from dpcvx.release.tuning_record import tuning_digest

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files


def _tuned(learner, X, y, procedure, **options):
    return dpcvx.tune(learner, X, y, {"lam": [0.01, 0.1]}, epsilon=1.0, random_state=0, procedure=procedure,
                      **options)


@pytest.fixture(scope="module")
def saved():
    """The file forms of a full-data, a split and a multiclass selection."""
    X, y = synthetic_classification(n=600, d=3, random_state=0)
    labels = np.digitize(X[:, 0], [-0.2, 0.2])  # three classes
    return {"full-data": model_to_dict(_tuned(dpcvx.PrivateERM(data_norm=1.0), X, y, "full-data",
                                              mean_runs=4).release),
            "split": model_to_dict(_tuned(dpcvx.PrivateERM(data_norm=1.0), X, y, "split").release),
            "multiclass": model_to_dict(_tuned(dpcvx.DPLogisticRegression(classes=(0, 1, 2)), X, labels,
                                               "split").release)}


def _certificates(data):
    return [entry["certificate"] for entry in data["per_class"]] if data["kind"] == "multiclass" \
        else [data["certificate"]]


def _load(data, tmp_path):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return dpcvx.load(path)


@pytest.mark.parametrize("case", ["full-data", "split", "multiclass"])
def test_the_certificate_records_the_tuning_record_and_a_removed_one_is_refused(saved, case, tmp_path):
    data = saved[case]
    assert all(certificate["tuning"] == tuning_digest(data["tuning"]) for certificate in _certificates(data))
    assert _load(data, tmp_path).epsilon == data["tuning"]["total_epsilon"]
    removed = {**copy.deepcopy(data), "tuning": None}  # the model claimed only the selected candidate's epsilon
    with pytest.raises(FileError, match=r"tuning is null, but (per_class\[0\]\.)?certificate\.tuning records"):
        _load(removed, tmp_path)


@pytest.mark.parametrize("case", ["full-data", "split", "multiclass"])
def test_an_edited_or_unrecorded_tuning_record_is_refused(saved, case, tmp_path):
    data = saved[case]
    edited = copy.deepcopy(data)
    edited["tuning"]["text"] = edited["tuning"]["text"].replace("dpcvx tuning", "dpcvx selection")
    with pytest.raises(FileError, match=r"tuning is not the tuning record .*certificate\.tuning records"):
        _load(edited, tmp_path)
    for index, certificate in enumerate(_certificates(edited := copy.deepcopy(data))):
        if index == len(_certificates(data)) - 1:  # one certificate without its record: a multiclass file's last
            del certificate["tuning"]
    with pytest.raises(FileError, match=r"tuning holds a tuning record, but .*certificate\.tuning is missing"):
        _load(edited, tmp_path)


def test_a_tuning_record_where_the_certificate_records_none_is_refused(saved, tmp_path):
    X, y = synthetic_classification(n=200, d=3, random_state=1)
    tuning = saved["full-data"]["tuning"]  # a fit within its run's budget: only the missing record refuses it
    plain = model_to_dict(dpcvx.PrivateERM(data_norm=1.0, lam=0.1).fit(X, y, tuning["certificate"]["run_epsilon"],
                                                                       random_state=0))
    added = {**plain, "tuning": tuning}
    with pytest.raises(FileError, match=r"tuning holds a tuning record, but certificate\.tuning is missing"):
        _load(added, tmp_path)


def _rebound(data):
    """``data`` with its certificates' records rewritten to its (edited) tuning record: only the numbers' checks
    stand between such a file and a load."""
    for certificate in _certificates(data):
        certificate["tuning"] = tuning_digest(data["tuning"])
    return data


def test_a_full_data_selections_numbers_agree_with_each_other(saved, tmp_path):
    data = saved["full-data"]
    record = data["tuning"]["certificate"]
    assert record["run_epsilon"] == record["score_epsilon"] and 3 * record["run_epsilon"] <= 1.0  # eta = 1
    lowered = copy.deepcopy(data)  # the auditor's edit: total and certificate epsilon lowered together
    lowered["tuning"]["total_epsilon"] = lowered["tuning"]["certificate"]["epsilon"] = 0.34
    with pytest.raises(FileError, match=r"run_epsilon = 0\.333.* is not the selection's total epsilon 0\.34 / "
                                        r"\(2 \+ eta\)"):
        _load(_rebound(lowered), tmp_path)
    for key, value, message in (("eta", 2, "is not the selection's total epsilon"),
                                ("score_epsilon", 1.0, "score_epsilon = 1.0 is not run_epsilon"),
                                ("run_epsilon", 2.0, "are not a run's budget"),
                                ("eta", 0, "eta must be a positive integer")):
        edited = copy.deepcopy(data)
        edited["tuning"]["certificate"][key] = value
        with pytest.raises(FileError, match=message):
            _load(_rebound(edited), tmp_path)


def test_the_budget_of_a_split_selections_fit_covers_the_release(saved, tmp_path):
    edited = copy.deepcopy(saved["split"])
    edited["tuning"]["certificate"]["delta"] = edited["tuning"]["total_delta"] = 0.0
    edited["certificate"]["delta"] = edited["delta"] = 0.0
    _load(_rebound(edited), tmp_path)  # the release's own (epsilon, delta) within the budget loads
    edited["tuning"]["certificate"]["epsilon"] = edited["tuning"]["total_epsilon"] = 0.5
    with pytest.raises(FileError, match="below the selected release's own epsilon"):
        _load(_rebound(edited), tmp_path)


def test_a_version_8_tuned_file_records_the_tuning_record_it_holds(saved):
    """A tuned file written before version 9 holds no record: its upgrade step records the one it holds, so it loads
    with its tuning (unprotected against that edit, as the schema)."""
    old = copy.deepcopy(saved["multiclass"])
    old["format_version"] = 8
    del old["column_statistics"], old["fit_epsilon"], old["sha256"]  # (format versions 14 and 10 added them)
    for entry in old["per_class"]:
        entry["format_version"] = 8
        del entry["certificate"]["tuning"]
    without_noise_source(old)  # (format version 19 added it)
    without_candidate_marks(old)  # (format version 20 added them)
    assert upgraded(old) == not_recorded(saved["multiclass"])
    loaded = model_from_dict(old)
    assert loaded.tuning is not None and loaded.epsilon == old["tuning"]["total_epsilon"]
    assert model_to_dict(loaded) == not_recorded(saved["multiclass"])
