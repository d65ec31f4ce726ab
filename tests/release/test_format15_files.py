"""Files of format version 15 load as they were written: a TDDL kernel file written by dpcvx at commit 5b213b5f (the
last to write version 15) through ``dpcvx.save``, with the certificate text, decision values and predictions that
dpcvx computed (``fixtures/format15/expected.json``). Version 16 lets a kernel file hold the column names of the
table its learner was fitted on (``feature_names``), which the loaded release's predictions check; a version 15
kernel file held none, so the step from version 15 changes the version only (records.upgrade). A version 15 kernel
file that holds names was not written by dpcvx, and is refused."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import dpcvx
from dpcvx.exceptions import FileError, InputError
from dpcvx.privacy.gaussian import analytic_gaussian_multiplier
from dpcvx.privacy.privacy_curve import compose_epsilon
from dpcvx.release.records.header import MODEL_FORMAT_VERSION, file_digest

FORMAT15 = Path(__file__).parent / "fixtures" / "format15"
EXPECTED = json.loads((FORMAT15 / "expected.json").read_text())


def test_the_fixture_is_a_version_15_kernel_file_without_names():
    data = json.loads((FORMAT15 / "kernel.json").read_text())
    assert data["format_version"] == 15 and data["kind"] == "kernel" and data["sha256"] == file_digest(data)
    assert "feature_names" not in data


def test_a_version_15_kernel_file_loads_and_predicts_as_written(loads_as_written):
    loads_as_written(FORMAT15, EXPECTED, "kernel")
    assert getattr(dpcvx.load(FORMAT15 / "kernel.json"), "feature_names_in_", None) is None


def test_a_version_15_kernel_file_that_holds_names_is_refused(tmp_path):
    data = json.loads((FORMAT15 / "kernel.json").read_text())
    data["feature_names"] = ["a", "b"]
    data["sha256"] = file_digest(data)  # as an editor would make it again
    (tmp_path / "edited.json").write_text(json.dumps(data))
    with pytest.raises(FileError, match="feature_names in a kernel file of format version 15"):
        dpcvx.load(tmp_path / "edited.json")


@pytest.mark.parametrize("learner", ["TDDL", "TDIL"])
def test_a_kernel_release_fitted_on_a_table_refuses_its_columns_swapped_saved_and_loaded(learner, tmp_path):
    """TDDL's learner refused a table with its columns swapped, but the release its fit returned (the one the docs
    predict with) and its saved file kept no names and predicted the swapped table without a word (0.965 -> 0.550
    accuracy in a probe). The release now carries the table's names, and its file (version 16) holds them."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (300, 2))
    y = np.where(X[:, 0] > 0.1, 1, -1)
    frame = pd.DataFrame(X, columns=["a", "b"])
    with warnings.catch_warnings():  # the net's cost, a noise note, Z as an array: not what this test is about
        warnings.simplefilter("ignore", dpcvx.exceptions.ExponentialCostWarning)
        warnings.simplefilter("ignore", dpcvx.exceptions.NoiseDominatesWarning)
        warnings.filterwarnings("ignore", message="Z does not have valid feature names", category=UserWarning)
        if learner == "TDDL":
            release = dpcvx.TDDL("rbf", gamma=4.0, lam=1e-2).fit(frame, y, 3.0, 1e-6, Z=X[:30], random_state=0)
        else:
            release = dpcvx.TDIL("rbf", gamma=4.0, net_spacing=0.3, lam=0.1, input_bound=1.0,
                                 loss="huber_hinge:h=0.5").fit(frame, y, 200.0, 1e-6, random_state=3)
    assert list(release.feature_names_in_) == ["a", "b"]
    loaded = dpcvx.load(dpcvx.save(release, tmp_path / "k.json"))
    assert json.loads((tmp_path / "k.json").read_text())["feature_names"] == ["a", "b"]
    for model in (release, loaded):
        np.testing.assert_array_equal(model.predict(frame), model.predict(frame.copy()))
        with pytest.raises(InputError, match="order|names"):
            model.predict(frame[["b", "a"]])


def test_a_version_15_gaussian_release_after_its_ranges_loads_with_the_gaussian_of_its_fit(as_written, tmp_path):
    source = FORMAT15 / "gaussian.json"
    data = json.loads(source.read_text())
    assert data["format_version"] == 15 and data["sha256"] == file_digest(data)
    assert data["certificate"]["privacy_curve"]["parts"][-1] == {
        "kind": "epsilon-delta", "epsilon": 0.9, "delta": 1e-06, "what": "the fit at the drawn bounds"}
    loaded, recorded = dpcvx.load(source), EXPECTED["gaussian"]
    rows = np.array(EXPECTED["rows"])
    as_written(np.asarray(loaded.decision_function(rows)), recorded["decision"])
    as_written(loaded.predict(rows), recorded["predict"])
    ranges, fit = loaded.certificate.privacy_curve.parts
    assert (ranges.kind, ranges.epsilon) == ("epsilon-delta", 0.1)
    assert fit.kind == "gaussian" and fit.noise_multiplier == analytic_gaussian_multiplier(0.9, 1e-6)
    assert loaded.certificate.calibration.sigma >= fit.noise_multiplier * loaded.certificate.calibration.sensitivity
    rewritten = json.loads(dpcvx.save(loaded, tmp_path / "again.json").read_text())
    assert rewritten["format_version"] == MODEL_FORMAT_VERSION
    assert rewritten["certificate"]["privacy_curve"]["parts"][-1]["kind"] == "gaussian"
    # ten such releases: the Gaussians merge in closed form (epsilon about 3.1, not the pairs' 10)
    assert compose_epsilon([loaded.certificate.privacy_curve] * 10, 1e-5) < 3.5
