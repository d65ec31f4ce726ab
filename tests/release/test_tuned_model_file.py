"""A model selected by dpcvx.tune keeps its tuning certificate and total cost in its file (format version 5), and
files of format versions 4, 5 and 6 still load (docs/model-files.md, compatibility)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from former_texts import former_text

import dpcvx
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError
from dpcvx.release.serialization import MODEL_FORMAT_VERSION, model_to_dict

pytestmark = pytest.mark.filterwarnings("ignore::dpcvx.exceptions.UnprotectedFileWarning")  # older formats' files

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "format4"
FORMAT5 = Path(__file__).resolve().parent / "fixtures" / "format5"
FORMAT6 = Path(__file__).resolve().parent / "fixtures" / "format6"


@pytest.fixture(scope="module")
def data():
    X, y = synthetic_classification(n=600, d=3, random_state=0)
    return X, y


def _tuned(learner, X, y, procedure):
    return dpcvx.tune(learner, X, y, {"lam": [0.01, 0.1]}, epsilon=1.0, random_state=0, procedure=procedure)


@pytest.mark.parametrize("case", ["erm split", "estimator split", "estimator full-data"])
def test_a_saved_tuned_model_carries_the_tuning_certificate_and_total(data, tmp_path, case):
    X, y = data
    estimator = case.startswith("estimator")
    learner = dpcvx.DPLogisticRegression() if estimator else dpcvx.PrivateERM(data_norm=1.0)
    result = _tuned(learner, X, (y > 0).astype(int) if estimator else y, case.split()[1])
    path = dpcvx.save(result.model, tmp_path / "tuned.json")
    loaded = dpcvx.load(path)
    assert str(loaded.tuning) == str(result.certificate)
    assert (loaded.tuning.total_epsilon, loaded.tuning.total_delta) == (result.certificate.epsilon,
                                                                        result.certificate.delta)
    assert str(loaded.certificate) == str(result.release.certificate)  # the selected fit's own, unchanged
    assert json.loads(path.read_text())["format_version"] == MODEL_FORMAT_VERSION
    # TuningResult.to_dict holds the model for estimator candidates too: the selected release's file form
    released = result.to_dict()
    assert released["model"] == model_to_dict(result.release) and released["model"]["tuning"] is not None
    json.dumps(released)
    # saved again from the loaded model: the same file
    again = dpcvx.save(loaded, tmp_path / "again.json")
    assert json.loads(again.read_text()) == json.loads(path.read_text())


def test_an_edited_tuning_record_is_refused(data, tmp_path):
    X, y = data
    result = _tuned(dpcvx.PrivateERM(data_norm=1.0), X, y, "split")
    saved = json.loads(dpcvx.save(result.model, tmp_path / "tuned.json").read_text())
    edits = {"total below the certificate's": ("total_epsilon", 0.5),
             "total not a number": ("total_delta", "0"),
             "missing text": ("text", "")}
    for key, value in edits.values():
        edited = json.loads(json.dumps(saved))
        edited["tuning"][key] = value
        (tmp_path / "edited.json").write_text(json.dumps(edited))
        with pytest.raises(dpcvx.InputError, match="tuning"):
            dpcvx.load(tmp_path / "edited.json")
    edited = json.loads(json.dumps(saved))
    edited["tuning"]["certificate"]["epsilon"] = edited["tuning"]["total_epsilon"] = 0.5  # below the release's 1
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    with pytest.raises(dpcvx.InputError, match="below the selected release's own epsilon"):
        dpcvx.load(tmp_path / "edited.json")


def test_an_untuned_model_saves_no_tuning(data, tmp_path):
    X, y = data
    model = dpcvx.PrivateERM(data_norm=1.0, lam=0.1).fit(X, y, 1.0, random_state=0)
    path = dpcvx.save(model, tmp_path / "m.json")
    assert json.loads(path.read_text())["tuning"] is None and dpcvx.load(path).tuning is None


@pytest.mark.parametrize("kind", ["linear", "multiclass", "regression", "kernel"])
def test_files_of_format_version_4_load_as_written(kind, tmp_path):
    """The fixtures were written by format version 4 (dpcvx at commit 0e6237e); expected.json holds the
    certificate text and five predictions that dpcvx computed before saving."""
    expected = json.loads((FIXTURES / "expected.json").read_text())[kind]
    source = FIXTURES / f"{kind}.json"
    assert json.loads(source.read_text())["format_version"] == 4
    loaded = dpcvx.load(source)
    assert loaded.tuning is None
    assert former_text(loaded.certificate) == expected["certificate"]
    X, _ = synthetic_classification(n=200, d=3, random_state=0)
    rng = np.random.default_rng(3)
    rows = rng.uniform(-1, 1, (200, 3))[:5] / np.sqrt(3) if kind == "regression" else X[:5]
    np.testing.assert_array_equal(loaded.predict(rows), expected["predict"])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "v5.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION and rewritten["tuning"] is None
    assert dpcvx.load(tmp_path / "v5.json").certificate.epsilon == loaded.certificate.epsilon


def test_a_kernel_file_of_format_version_5_loads_with_its_double_l(tmp_path):
    """Written by format version 5 (dpcvx at commit 2d1a41c), whose kernel certificate held L as a double: it loads
    with that double (the upgrade step's null exact text), its certificate text and predictions as computed before
    saving; saved again it is the current version and loads the same. A fresh fit holds the exact L."""
    expected = json.loads((FORMAT5 / "expected.json").read_text())["kernel"]
    source = FORMAT5 / "kernel.json"
    assert json.loads(source.read_text())["format_version"] == 5
    loaded = dpcvx.load(source)
    assert type(loaded.certificate.constants.L) is float and loaded.certificate.constants.L == 1.0
    assert former_text(loaded.certificate) == expected["certificate"]
    X, _ = synthetic_classification(n=200, d=3, random_state=0)
    np.testing.assert_array_equal(loaded.predict(X[:5]), expected["predict"])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "v6.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION
    assert rewritten["certificate"]["constants"]["L"]["exact"] is None
    assert dpcvx.load(tmp_path / "v6.json").certificate.constants == loaded.certificate.constants


def test_a_file_of_format_version_6_with_a_feature_map_loads_and_records_it(tmp_path):
    """Written by format version 6 (dpcvx at commit 11f228f), which recorded no digest of a release's own feature map
    (an RFF map here): it loads through the step to version 7, with its certificate text and predictions as that dpcvx
    computed them; saved again it records the map, and an edit of the map is then refused."""
    expected = json.loads((FORMAT6 / "expected.json").read_text())["rff_linear"]
    source = FORMAT6 / "rff_linear.json"
    data = json.loads(source.read_text())
    assert data["format_version"] == 6 and "feature_map" not in data["certificate"]
    loaded = dpcvx.load(source)
    assert former_text(loaded.certificate) == expected["certificate"]
    rows = np.array(expected["rows"])
    np.testing.assert_array_equal(loaded.decision_function(rows), expected["decision"])
    np.testing.assert_array_equal(loaded.predict(rows), expected["predict"])
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "v7.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION == 20
    assert "sha256" in rewritten["certificate"]["feature_map"]
    rewritten["preprocessing"]["row_map"]["feature_map"]["gamma"] = 2.0
    (tmp_path / "edited.json").write_text(json.dumps(rewritten))
    with pytest.raises(FileError, match="is not the .* map certificate.feature_map records"):
        dpcvx.load(tmp_path / "edited.json")


def test_saving_the_tuning_result_itself_names_its_selected_model(data, tmp_path):
    """dpcvx.save(result) was refused as "only private releases can be saved, got TuningResult; fit with
    PrivateERM.fit (or save estimator.model_ ...)", advice that does not fit tune's result; it now names
    dpcvx.save(result.model, path), and nothing is written."""
    X, y = data
    result = _tuned(dpcvx.DPLogisticRegression(classes=(-1, 1)), X, y, "split")
    path = tmp_path / "tuned.json"
    with pytest.raises(dpcvx.InputError, match=r"got TuningResult, the result of dpcvx.tune: save its selected "
                                                r"model, dpcvx.save\(result.model, path\)"):
        dpcvx.save(result, path)
    assert not path.exists()
    assert dpcvx.load(dpcvx.save(result.model, path)).tuning is not None
