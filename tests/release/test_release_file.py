"""The release file carries only what the proof covers: a neighbouring data set changes nothing but the
privatised values (dpcvx.models.release_audit.audit_release_file / release_diff), for both mechanisms and for
`dpcvx fit`, and the audit does flag a data-dependent field when one is injected."""

import csv
import json

import numpy as np
import pytest

import dpcvx
from dpcvx.cli import main
from dpcvx.demo import synthetic_classification
from dpcvx.models.release_audit import audit_release_file, release_diff
from dpcvx.release import serialization


@pytest.fixture(scope="module")
def data():
    return synthetic_classification(n=400, d=4, random_state=3)


@pytest.mark.parametrize("mechanism", ["objective", "output"])
@pytest.mark.parametrize("intercept", [False, True])
def test_neighbouring_release_files_differ_only_in_privatised_values(data, mechanism, intercept):
    X, y = data
    learner = dpcvx.PrivateERM(data_norm=1.0, fit_intercept=intercept)
    for index in (0, 17):
        result = audit_release_file(learner, X, y, epsilon=0.5, mechanism=mechanism, index=index, seed=4)
        assert result.clean, str(result)
        assert result.differing == () and result.replaced_index == index
        # the weights did move: the audit compares two real, different releases
        assert any(path.startswith("privatised.coef[") for path in result.privatised)
        assert all(path.startswith("privatised.") for path in result.privatised)


def test_injected_data_dependent_field_is_flagged(data, monkeypatch):
    X, y = data
    original = serialization.model_to_dict

    def leaky(model, schema=None, feature_names=None, decision_cut=None):
        saved = original(model, schema, feature_names=feature_names, decision_cut=decision_cut)
        saved["certificate"]["solver_seconds"] = float(np.abs(model.coef_).sum())  # depends on the data
        saved["preprocessing"]["rows_seen"] = [float(model.coef_[0])]
        return saved

    monkeypatch.setattr(serialization, "model_to_dict", leaky)
    result = audit_release_file(dpcvx.PrivateERM(data_norm=1.0), X, y, epsilon=0.5, seed=1)
    assert not result.clean
    assert result.differing == ("certificate.solver_seconds", "preprocessing.rows_seen[0]")
    assert "certificate.solver_seconds" in str(result)


def test_release_diff_reads_models_dicts_and_files(data, tmp_path):
    X, y = data
    erm = dpcvx.PrivateERM(data_norm=1.0)
    a = erm.fit(X, y, epsilon=1.0, random_state=0)
    b = erm.fit(X, y, epsilon=2.0, random_state=0)
    path = dpcvx.save(a, tmp_path / "a.json")
    assert release_diff(a, path) == [] and release_diff(serialization.model_to_dict(a), a) == []
    differing = release_diff(a, b)
    assert {"epsilon", "certificate.epsilon", "certificate.calibration.beta"} <= set(differing)
    assert not any(p.startswith("privatised") for p in differing)
    assert any(p.startswith("privatised") for p in release_diff(a, b, include_privatised=True))
    extra = serialization.model_to_dict(a)
    extra["note"] = "x"
    assert release_diff(a, extra) == ["note"]
    with pytest.raises(dpcvx.InputError, match="a release must be"):
        release_diff(a, 3)


def test_cli_fit_files_of_neighbouring_csvs_differ_only_in_privatised_values(tmp_path, monkeypatch, capsys):
    rng = np.random.default_rng(0)
    rows = [[int(rng.integers(17, 91)), str(rng.choice(["Female", "Male"])), int(rng.integers(1, 100)),
             str(rng.choice([">50K", "<=50K"]))] for _ in range(300)]
    neighbour = [list(row) for row in rows]
    neighbour[5] = [90, "Female" if rows[5][1] == "Male" else "Male", 1, ">50K" if rows[5][3] == "<=50K" else "<=50K"]
    for name, table in (("a.csv", rows), ("b.csv", neighbour)):
        with open(tmp_path / name, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["age", "sex", "hours", "income"])
            writer.writerows(table)
    monkeypatch.chdir(tmp_path)
    for mechanism in ("objective", "output"):
        for side in ("a", "b"):
            code = main(["fit", f"{side}.csv", "--target", "income", "--positive", ">50K", "--negative", "<=50K",
                         "--numeric", "age:17:90", "--categorical", "sex:Female,Male", "--numeric", "hours:1:99",
                         "--epsilon", "1", "--lam", "1e-2", "--data-norm", "1", "--fit-intercept",
                         "--mechanism", mechanism, "--random-state", "7", "--out", f"{side}.json",
                         "--overwrite"])  # each mechanism's files replace the last one's
            out = capsys.readouterr()
            assert code == 0, out.err
            for statistic in ("iterations", "residual", "seconds"):  # nothing measured on the data is printed
                assert statistic not in out.out
        assert release_diff("a.json", "b.json") == []
        assert release_diff("a.json", "b.json", include_privatised=True)  # the weights differ
        text = (tmp_path / "a.json").read_text()
        assert '"solve"' not in text and json.loads(text)["format_version"] == 20
