"""Every release records where its noise came from (:class:`dpcvx.privacy.rng.NoiseSource`): operating-system
entropy for ``random_state=None``, a caller's seed for an int or a numpy Generator (never the seed itself). A seeded
release is a reproducible experiment: anyone who knows the seed subtracts its noise. Before format version 19 it was
indistinguishable from a release: its certificate, its file, the loaded model and the report said nothing of it.

Each kind of release (a linear ERM, a binary estimator, column statistics then the fit, a private class count, a
private norm bound, one-vs-rest, a regression by sufficient statistics and by ERM, a kernel learner's, the model
:func:`dpcvx.tune` selected, the command line's fit) records its source, states it in its certificate and report,
and keeps it through ``dpcvx.save`` and ``dpcvx.load``. A file of format version 18 (``fixtures/format18``, written
by the parent commit 0020e8d1 through ``dpcvx.save``, every release seeded with random_state 5) loads as "not
recorded"; an edited record is refused."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from edited_files import load_edited
from former_texts import certificates, former_text

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification
from dpcvx.exceptions import FileError, InputError
from dpcvx.privacy.rng import NoiseSource
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

FORMAT18 = Path(__file__).parent / "fixtures" / "format18"
EXPECTED18 = json.loads((FORMAT18 / "expected.json").read_text())
NAMES18 = ["linear", "estimator", "multiclass", "adassp", "huber", "tddl"]

X, Y = synthetic_classification(n=600, d=3, random_state=0)
Y01 = (Y > 0).astype(int)
Y3 = np.where(X[:, 0] > 0.2, 2, np.where(X[:, 1] > 0, 1, 0))
_RNG = np.random.default_rng(3)
XR = _RNG.uniform(-1, 1, (600, 3)) / np.sqrt(3)
YR = np.clip(XR @ np.array([0.5, -0.3, 0.2]) + 0.1 * _RNG.standard_normal(600), -1, 1)
XB, YB = synthetic_classification(n=2000, d=3, random_state=1)


def _pinp(random_state: Any) -> Any:
    curator = dpcvx.PINP("linear", input_bound=1.0, lam=0.1, max_queries=5).fit(X, Y, 5.0,
                                                                               random_state=random_state)
    curator.decision_function(X[:3])
    return curator.release()


def _tuned(random_state: Any) -> Any:
    return dpcvx.tune(dpcvx.PrivateERM(data_norm=1.0), X, Y, {"lam": [0.01, 0.1]}, epsilon=1.0,
                      random_state=random_state).release


#: name -> a release fitted with the given random_state (every kind whose fit takes one)
KINDS: dict[str, Callable[[Any], Any]] = {
    "erm output": lambda rs: dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm=1.0).fit(
        X, Y, 1.0, "output", random_state=rs),
    "erm objective": lambda rs: dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm=1.0).fit(
        X, Y, 1.0, "objective", random_state=rs),
    "estimator": lambda rs: dpcvx.DPLogisticRegression(epsilon=1.0, lam=0.05, random_state=rs).fit(X, Y01).model_,
    "column statistics": lambda rs: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=rs).fit(
        XB, (YB > 0).astype(int)).model_,  # the default "auto" draws the ranges at 2,000 rows of 3 columns
    "erm column statistics": lambda rs: dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm=1.0,
                                                         column_statistics=True).fit(XB, YB, 1.0, random_state=rs),
    "private count": lambda rs: dpcvx.DPLogisticRegression(epsilon=1.0, lam=0.05, class_weight="balanced",
                                                           random_state=rs).fit(X, Y01).model_,
    "private norm": lambda rs: dpcvx.PrivateERM(losses.logistic(), lam=0.05, data_norm="private",
                                                          norm_range=(0.125, 4.0)).fit(
        X, Y, 1.0, random_state=rs),
    "multiclass": lambda rs: dpcvx.PrivateMulticlassERM(
        dpcvx.PrivateERM(losses.logistic(), lam=0.1, data_norm=1.0), (0, 1, 2)).fit(X, Y3, 1.0, "output",
                                                                                  random_state=rs),
    "multiclass estimator": lambda rs: dpcvx.DPLogisticRegression(epsilon=2.0, classes=(0, 1, 2),
                                                                  random_state=rs).fit(X, Y3).model_,
    "adassp": lambda rs: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, column_statistics=False,
                                                  random_state=rs).fit(XR, YR).model_,
    "adassp standardised": lambda rs: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, column_statistics=True,
                                                               random_state=rs).fit(XR, YR).model_,
    "linear regression": lambda rs: dpcvx.PrivateLinearRegression(label_bound=1.0, data_norm=1.0).fit(
        XR, YR, 1.0, 1e-6, random_state=rs),
    "regression erm": lambda rs: dpcvx.PrivateERM(loss=losses.huber_regression(1.0), task="regression",
                                                  label_bound=1.0, lam=0.1, data_norm=1.0).fit(
        XR, YR, 1.0, "output", random_state=rs),
    "huber estimator": lambda rs: dpcvx.DPHuberRegressor(epsilon=1.0, label_bound=1.0, random_state=rs).fit(
        XR, YR).model_,
    "tddl": lambda rs: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1).fit(X, Y, 1.0, Z=X[:20], random_state=rs),
    "tdil": lambda rs: dpcvx.TDIL("linear", lam=0.1, input_bound=1.0).fit(X, Y, 200.0, 1e-6, random_state=rs),
    "pinp": _pinp,
    "tuned": _tuned,
}


def _fit(name: str, random_state: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ignore: the learners' advice on a small fit is not what is tested here
        return KINDS[name](random_state)


@pytest.mark.parametrize("name", list(KINDS))
@pytest.mark.parametrize(("random_state", "source"), [
    (None, NoiseSource.OS_ENTROPY), (7, NoiseSource.SEED), ("generator", NoiseSource.SEED)])
def test_every_release_records_its_noise_source_and_keeps_it_through_its_file(name, random_state, source, tmp_path):
    if random_state == "generator":
        if name in ("estimator", "column statistics", "private count", "multiclass estimator", "adassp",
                    "adassp standardised", "huber estimator"):
            pytest.skip("a scikit-learn estimator takes no generator (check_estimator_seed)")
        random_state = np.random.default_rng(11)
    model = _fit(name, random_state)
    assert model.noise_source is source and model.certificate.noise_source is source
    assert source.statement in str(model.certificate).splitlines()
    path = dpcvx.save(model, tmp_path / "model.json")
    data = json.loads(path.read_text())
    assert data["format_version"] == MODEL_FORMAT_VERSION == 20
    assert {certificate["noise_source"] for certificate in certificates(data)} == {source.value}
    loaded = dpcvx.load(path)
    assert loaded.noise_source is source and str(loaded.certificate) == str(model.certificate)
    summary = loaded.report().to_markdown().split("## ")[1]  # the summary section
    assert ("NOT A PRIVATE RELEASE" in summary) is (source is NoiseSource.SEED)
    assert ("operating-system entropy (random\\_state=None)" in summary) is (source is NoiseSource.OS_ENTROPY)


def test_a_seeded_report_says_plainly_it_is_an_experiment():
    text = _fit("erm output", 3).report().to_markdown()
    summary = text.split("## ")[1]
    assert "NOT A PRIVATE RELEASE" in summary and "reproducible experiment" in summary
    assert "refit with random\\_state=None" in summary
    assert "NOT A PRIVATE RELEASE" not in _fit("erm output", None).report().to_markdown()


def test_the_command_line_fit_records_its_random_state(tmp_path):
    from dpcvx.cli import main

    rng = np.random.default_rng(0)
    rows = rng.uniform(-0.5, 0.5, (400, 2))
    table = tmp_path / "train.csv"
    table.write_text("a,b,label\n" + "".join(f"{a},{b},{'yes' if a > b else 'no'}\n" for a, b in rows))
    common = ["fit", str(table), "--target", "label", "--positive", "yes", "--negative", "no", "--numeric",
              "a:-0.5:0.5", "--numeric", "b:-0.5:0.5", "--epsilon", "1", "--lam", "0.01", "--data-norm", "1"]
    for extra, source in (([], NoiseSource.OS_ENTROPY), (["--random-state", "4"], NoiseSource.SEED)):
        out = tmp_path / f"model{len(extra)}.json"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ignore: the fit's advice on a small table is not what is tested here
            assert main([*common, *extra, "--out", str(out)]) == 0
        assert json.loads(out.read_text())["certificate"]["noise_source"] == source.value
        report = tmp_path / f"report{len(extra)}.md"
        assert main(["report", str(out), "--out", str(report)]) == 0
        assert ("NOT A PRIVATE RELEASE" in report.read_text()) is (source is NoiseSource.SEED)


@pytest.mark.parametrize("name", ["erm output", "multiclass", "adassp", "tddl"])
@pytest.mark.parametrize("value", ["caller's seed", "none", None, 0, "SEED", ["seed"]])
def test_an_edited_record_of_an_unknown_value_is_refused(name, value, tmp_path):
    data = json.loads(dpcvx.save(_fit(name, 1), tmp_path / "model.json").read_text())
    for certificate in certificates(data):
        certificate["noise_source"] = value
    with pytest.raises((InputError, FileError), match="noise_source must be one of"):
        load_edited(data, tmp_path)


@pytest.mark.parametrize("name", ["erm output", "adassp", "tddl"])
def test_a_record_removed_is_refused(name, tmp_path):
    data = json.loads(dpcvx.save(_fit(name, 1), tmp_path / "model.json").read_text())
    del data["certificate"]["noise_source"]
    with pytest.raises((InputError, FileError), match="noise_source"):
        load_edited(data, tmp_path)


def test_a_file_edited_from_seed_to_os_entropy_is_refused_by_its_digest(tmp_path):
    path = dpcvx.save(_fit("erm output", 1), tmp_path / "model.json")
    data = json.loads(path.read_text())
    data["certificate"]["noise_source"] = NoiseSource.OS_ENTROPY.value
    path.write_text(json.dumps(data))
    with pytest.raises(FileError, match="changed after dpcvx wrote it"):
        dpcvx.load(path)


def test_one_vs_rest_entries_that_disagree_are_refused(tmp_path):
    data = json.loads(dpcvx.save(_fit("multiclass", 1), tmp_path / "model.json").read_text())
    data["per_class"][1]["certificate"]["noise_source"] = NoiseSource.OS_ENTROPY.value
    with pytest.raises(InputError, match=r"per_class\[1\].certificate.noise_source is 'os-entropy' but"):
        load_edited(data, tmp_path)


def test_the_format18_fixtures_are_every_kind_as_version_18_wrote_them():
    files = {name: json.loads((FORMAT18 / f"{name}.json").read_text()) for name in NAMES18}
    assert {data["format_version"] for data in files.values()} == {18}
    assert {data["kind"] for data in files.values()} == {"linear", "multiclass", "regression", "kernel"}
    assert all(data["sha256"] == file_digest(data) for data in files.values())
    assert not any("noise_source" in certificate for data in files.values() for certificate in certificates(data))


@pytest.mark.parametrize("name", NAMES18)
def test_a_version_18_file_loads_as_not_recorded(name, as_written, as_recorded, unversioned, tmp_path):
    source = FORMAT18 / f"{name}.json"
    loaded = dpcvx.load(source)
    assert loaded.noise_source is NoiseSource.NOT_RECORDED
    assert former_text(loaded.certificate) == EXPECTED18[name]["certificate"]
    rows = np.array(EXPECTED18["rows"])
    as_written(np.asarray(loaded.decision_function(rows)), EXPECTED18[name]["decision"])
    as_written(loaded.predict(rows), EXPECTED18[name]["predict"])
    assert "Noise source: not recorded" in loaded.report().to_markdown().split("## ")[1]
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["format_version"] == 20 and rewritten["sha256"] == file_digest(rewritten)
    assert {certificate["noise_source"] for certificate in certificates(rewritten)} == {"not-recorded"}
    as_recorded(unversioned(rewritten), unversioned(json.loads(source.read_text())))  # nothing else differs
    assert dpcvx.load(tmp_path / "again.json").noise_source is NoiseSource.NOT_RECORDED


@pytest.mark.parametrize("name", ["linear", "multiclass", "tddl"])
def test_a_version_18_file_holding_the_record_is_refused(name, tmp_path):
    data = json.loads((FORMAT18 / f"{name}.json").read_text())
    for certificate in certificates(data):
        certificate["noise_source"] = NoiseSource.OS_ENTROPY.value
    with pytest.raises((InputError, FileError), match="noise_source in a file of format version 18, which no "
                                                      "version 18 dpcvx wrote"):
        load_edited(data, tmp_path)


def test_noise_source_of_and_combined():
    assert NoiseSource.of(None) is NoiseSource.OS_ENTROPY
    assert NoiseSource.of(0) is NoiseSource.of(np.random.default_rng(0)) is NoiseSource.SEED
    assert NoiseSource.combined([NoiseSource.OS_ENTROPY, NoiseSource.SEED]) is NoiseSource.SEED
    assert NoiseSource.combined([NoiseSource.OS_ENTROPY, NoiseSource.NOT_RECORDED]) is NoiseSource.NOT_RECORDED
    assert NoiseSource.combined([NoiseSource.OS_ENTROPY] * 3) is NoiseSource.OS_ENTROPY
    with pytest.raises(InputError, match="must be one of"):
        NoiseSource.parse("entropy")
