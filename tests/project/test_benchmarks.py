"""The benchmark scripts run end to end on tiny synthetic data (seconds), so they cannot rot.

diffprivlib is optional: 0.6.6 cannot build its model with scikit-learn >= 1.8
(the project's main environment), so its checks are skipped there with the
reason; the scripts then record the peer as skipped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import dpcvx  # noqa: E402
from benchmarks import (  # noqa: E402
    architecture_metrics,
    common,
    float_safe_cost,
    gradient_regression,
    import_time,
    kernel_exact_scaling,
    render_results,
    report,
    reproduce_jmlr,
    ridge_centre,
    speed,
    tddl_load,
)

PEERS = common.peer_status()
needs_sklearn = pytest.mark.skipif(not PEERS["sklearn"][0], reason=PEERS["sklearn"][1])
needs_diffprivlib = pytest.mark.skipif(not PEERS["diffprivlib"][0], reason=PEERS["diffprivlib"][1])

TINY_REPRODUCTION = ["--datasets", "synthetic", "--max-rows", "400", "--folds", "3", "--folds-run", "1",
                     "--draws", "2", "--lam-index", "0", "3", "--epsilons", "0.1", "1", "--jobs", "1"]


@pytest.fixture(scope="module")
def reproduction(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    result = reproduce_jmlr.main(TINY_REPRODUCTION + ["--out", str(out), "--tag", "tiny"])
    return out, result


def test_reproduction_writes_every_method_and_file(reproduction):
    out, result = reproduction
    saved = json.loads((out / "reproduce_tiny.json").read_text())
    assert saved["config"]["draws"] == 2 and saved["config"]["epsilons"] == [0.1, 1.0]
    methods = {(c["loss"], c["method"]) for c in saved["cells"]}
    for loss in ("logistic", "huber"):
        for method in reproduce_jmlr.DPCVX_METHODS:
            assert (loss, method) in methods
    for peer in saved["peers"]["run"]:
        assert ("logistic", peer) in methods and ("huber", peer) not in methods
    for peer, reason in saved["peers"]["skipped"].items():
        assert reason and ("logistic", peer) not in methods
    for cell in saved["cells"]:
        assert cell["failures"] == 0
        assert 0.0 <= cell["error"]["mean"] <= 1.0
        expected = 1 if cell["method"] in ("nonprivate", "sklearn") else 2
        assert cell["error"]["count"] == expected
        if cell["method"] in reproduce_jmlr.DPCVX_METHODS:
            # dpcvx stops at the public gradient bound tol n L R (tol = 1e-10): relative 1e-9 to 1e-8
            assert cell["residual_max"] <= 1e-7
    run = saved["run"]
    for key in ("command", "date_utc", "machine", "load_average_start", "run_seconds", "threads"):
        assert key in run
    assert run["command"].startswith("python -m benchmarks.reproduce_jmlr")
    text = (out / "reproduce_tiny.md").read_text()
    assert "best Lam per epsilon" in text and "diffprivlib" in text
    assert saved["full_run_estimate"]["cpu_hours_with_2_jobs"] >= 0
    for files in saved.get("plots", {}).values():
        for name in files:
            assert (out / Path(name).name).exists()


def test_identical_calibrations_share_draws(reproduction):
    _, result = reproduction
    cells = report.Cells(result)
    calibrations = result["calibrations_first_fold"]
    for key, cal in calibrations.items():
        data, loss, lam, e_index = key.split("|")
        eps = result["config"]["epsilons"][int(e_index)]
        paper = cells.get(data, loss, "objective-paper", int(lam), eps)
        best = cells.get(data, loss, "objective-max", int(lam), eps)
        if cal["identical"]:
            assert paper["shared_with_max_split"] == 2
            assert paper["error"]["mean"] == best["error"]["mean"]
        else:
            assert paper["shared_with_max_split"] == 0
            assert cal["max"]["epsilon_prime"] >= cal["paper"]["epsilon_prime"]


def test_output_draws_warm_started_at_the_minimiser_release_what_a_cold_fit_releases():
    # reproduce_jmlr.py solves the non-private problem once and starts every output draw there
    data = common.load_data("synthetic", "paper", max_rows=300)
    cold = dpcvx.PrivateERM(common.LOSSES["logistic"], lam=1e-2, data_norm=1.0)
    warm = dpcvx.PrivateERM(common.LOSSES["logistic"], lam=1e-2, data_norm=1.0)
    exact = warm.fit_nonprivate(data.X, data.y)
    for seed in (1, 2):
        a = cold.fit(data.X, data.y, 0.5, "output", random_state=seed)
        b = warm.fit(data.X, data.y, 0.5, "output", random_state=seed, warm_start=exact)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert warm.diagnostics_.iterations == 1 < cold.diagnostics_.iterations  # the start is already within gamma


@needs_sklearn
def test_sklearn_peer_minimises_the_same_objective():
    data = common.load_data("synthetic", "paper", max_rows=500)
    lam = 1e-2
    model, seconds, converged = common.fit_sklearn(data.X, data.y, lam)
    exact = dpcvx.PrivateERM(common.LOSSES["logistic"], lam=lam, data_norm=1.0).fit_nonprivate(data.X, data.y)
    assert seconds > 0 and converged
    np.testing.assert_allclose(model.coef_.ravel(), exact.coef_, atol=1e-3)
    assert common.relative_residual(common.LOSSES["logistic"], data.X, data.y, lam, exact.coef_) <= 1e-9
    assert common.relative_residual(common.LOSSES["logistic"], data.X, data.y, lam, model.coef_) > 1e-9


@needs_diffprivlib
def test_diffprivlib_noise_is_read_back_exactly():
    data = common.load_data("synthetic", "paper", max_rows=500)
    lam, eps = 1e-2, 0.5
    model, _, _ = common.fit_diffprivlib(data.X, data.y, lam, eps, seed=7)
    n, d = data.X.shape
    right = common.diffprivlib_perturbation(n, d, lam, eps, seed=7)
    wrong = common.diffprivlib_perturbation(n, d, lam, eps, seed=8)
    loss = common.LOSSES["logistic"]
    residual = common.relative_residual(loss, data.X, data.y, lam, model.coef_, *right)
    assert residual < 1e-2 < common.relative_residual(loss, data.X, data.y, lam, model.coef_, *wrong)


def test_speed_smallest_configuration(tmp_path):
    result = speed.main(["--datasets", "synthetic", "--sizes", "200", "--repeats", "2", "--out", str(tmp_path),
                         "--tag", "tiny"])
    (entry,) = result["sizes"]
    assert entry["n"] == 200
    assert "dpcvx LR objective" in entry["methods"]
    assert entry["methods"]["dpcvx LR objective"]["residual_max"] <= 1e-7  # the public gradient bound
    if "sklearn" in result["peers"]["run"]:
        assert entry["ratios"]["dpcvx LR objective / sklearn lbfgs"]["median"] > 0
    assert (tmp_path / "speed_tiny.md").exists()
    with pytest.raises(SystemExit):
        speed.parse_args(["--jobs", "2"])


def test_render_replaces_only_the_marked_section(tmp_path, reproduction):
    out, _ = reproduction
    results = tmp_path / "results"
    results.mkdir()
    (results / "reproduce_quick.json").write_text((out / "reproduce_tiny.json").read_text())
    readme = tmp_path / "README.md"
    readme.write_text(f"# title\n\nintro\n\n## Results\n\n{render_results.START}\nold\n{render_results.END}\n")
    assert render_results.main(["--readme", str(readme), "--results", str(results)]) == 0
    text = readme.read_text()
    assert text.startswith("# title\n\nintro\n\n## Results\n\n")
    assert "\nold\n" not in text and "python -m benchmarks.run_all --quick" in text
    assert render_results.main(["--readme", str(readme), "--results", str(results), "--check"]) == 0


def test_render_shows_the_widest_reproduction_first_then_the_others(tmp_path, reproduction):
    out, _ = reproduction
    run = json.loads((out / "reproduce_tiny.json").read_text())
    (key,) = run["data"]
    wide = {**run, "data": {key: run["data"][key], "other/mode": run["data"][key]}}
    for tag, base, draws, quick in (("quick", wide, 2, True), ("k10", wide, 10, False),
                                    ("narrow_k50", run, 50, False), ("old_quick", run, 3, True)):
        (tmp_path / f"reproduce_{tag}.json").write_text(
            json.dumps({**base, "quick": quick, "config": {**base["config"], "draws": draws}}))
    shown = [file.rsplit("/", 1)[-1] for _, file in render_results.pick_reproductions(tmp_path)]
    assert shown == ["reproduce_k10.json", "reproduce_narrow_k50.json"]
    assert render_results.pick_reproductions(tmp_path / "none") == []


def test_run_all_records_its_run(tmp_path):
    from benchmarks import run_all

    assert run_all.main(["--quick", "--out", str(tmp_path), "--skip-reproduction", "--skip-speed"]) == 0
    record = json.loads((tmp_path / "run_all_quick.json").read_text())
    assert record["steps"] == [] and record["run"]["command"].startswith("python -m benchmarks.run_all --quick")


def test_import_time_benchmark_writes_its_ratio(tmp_path):
    result = import_time.main(["--repeats", "1", "--out", str(tmp_path)])
    saved = json.loads((tmp_path / "import_time.json").read_text())
    assert saved["ratio_dpcvx_to_numpy"] == result["ratio_dpcvx_to_numpy"] > 0
    assert set(saved["median_seconds"]) == {"numpy", "dpcvx"}


@pytest.mark.slow
def test_architecture_metrics_counts_the_committed_tree(tmp_path):
    import subprocess

    status = subprocess.run(["git", "status", "--porcelain", "dpcvx"], cwd=ROOT, capture_output=True, text=True)
    if status.returncode or status.stdout.strip():
        pytest.skip("not a git checkout, or dpcvx/ has uncommitted changes: the script reads commits")
    [row] = architecture_metrics.main(["HEAD", "--out", str(tmp_path)])
    on_disk = [path for path in (ROOT / "dpcvx").rglob("*.py") if "__pycache__" not in path.parts]
    assert row["modules"] == len(on_disk) and row["public_names"] == len(dpcvx.__all__)
    assert row["top_level_modules"] == len(list((ROOT / "dpcvx").glob("*.py"))) - 2  # __init__, __main__
    assert "| HEAD (" in (tmp_path / "architecture_metrics.md").read_text()


def test_import_dpcvx_loads_neither_cvxpy_nor_sympy():
    import subprocess

    code = "import sys, dpcvx; print(sorted(m for m in ('cvxpy', 'sympy', 'scipy', 'sklearn') if m in sys.modules))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            cwd=ROOT).stdout
    assert output.strip() == "[]"


def test_an_estimator_fit_loads_no_report_module():
    # the cold start (issue 44): a release's plain-language report (and the kernel calibration it reads) is imported
    # when a report is asked for, not by every fit; asking for it then works
    import subprocess

    code = ("import sys, numpy as np, dpcvx\n"
            "X = np.random.default_rng(0).uniform(-0.5, 0.5, (200, 3)); y = (X[:, 0] > 0).astype(int)\n"
            "model = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y).model_\n"
            "names = ('dpcvx.release.report', 'dpcvx.privacy.kernel_calibrate')\n"
            "print(sorted(m for m in names if m in sys.modules))\n"
            "print(type(model.report()).__name__, 'dpcvx.release.report' in sys.modules)\n")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=ROOT).stdout
    assert output.split("\n")[:2] == ["[]", "ReleaseReport True"]


@pytest.mark.slow  # about 6 s: 12 fits, the first one verifying the loss
def test_float_safe_cost_writes_each_release_kind(tmp_path):
    result = float_safe_cost.main(["--dataset", "synthetic", "--draws", "2", "--out", str(tmp_path)])
    guarantees = [row["guarantee"] for row in result["rows"]]
    assert guarantees == ["mitigation-only", "exact"] * 2 + ["mitigation-only", "dithered-lattice"]
    assert "dithered-lattice" in (tmp_path / "float_safe_cost.md").read_text()


def test_ridge_centre_measures_each_margin_on_the_same_draws():
    # the script's premise, asserted by its checks: the public CENTRE_MARGIN reaches the release, infinity is the
    # former release draw for draw; and on the test's table at epsilon 1 the centre moves R^2 well above the former's
    assert all(ridge_centre.checks(0).values())
    X, y = ridge_centre.the_tests_table(np.random.default_rng(0))
    estimator = dpcvx.DPLinearRegression(epsilon=1.0, label_bound=(0.0, 1000.0), mechanism="adassp", random_state=0)
    fitted = ridge_centre.each_margin(lambda: ridge_centre.table_fit(estimator, X, y, X, y))
    assert fitted["k=3"][0] > fitted["former"][0] + 1, fitted
    assert {mechanism for _, mechanism, _ in fitted.values()} == {"adassp"}


def test_gradient_regression_writes_each_method_for_each_epsilon(tmp_path):
    records = gradient_regression.main(["--stage", "dev", "--tables", "diabetes", "--splits", "2",
                                        "--out", str(tmp_path)])
    scores = records["diabetes"]["scores"]
    assert sorted(scores) == ["0.3", "1.0", "3.0"]
    for methods in scores.values():
        assert set(methods) == set(gradient_regression.METHODS)
        assert all(len(values) == 2 and all(np.isfinite(values)) for values in methods.values())
    text = (tmp_path / "gradient_regression_dev.md").read_text()
    assert "## Summary" in text and "--stage dev --tables diabetes --splits 2" in text
    saved = json.loads((tmp_path / "gradient_regression_dev.json").read_text())
    assert saved["diabetes"]["scores"] == scores


def test_gradient_regression_keeps_the_stages_tables_apart(tmp_path):
    for stage, other in (("held-out", "diabetes"), ("dev", "prices")):
        with pytest.raises(SystemExit):
            gradient_regression.main(["--stage", stage, "--tables", other, "--out", str(tmp_path)])
    assert not list(tmp_path.iterdir())


def test_tddl_load_writes_a_cell_per_size_and_kernel(tmp_path):
    result = tddl_load.main(["--sizes", "520", "--out", str(tmp_path), "--tag", "tiny"])
    assert [(record["size"], record["kernel"]) for record in result["records"]] == [
        (520, kernel) for kernel in tddl_load.KERNELS]
    assert all(record["route"] == "certified" and record["relative_difference"] < 1e-10 and record["same_file"]
               for record in result["records"])
    text = (tmp_path / "tiny.md").read_text()
    assert "| 520 | rbf | " in text and "## Run" in text and json.loads((tmp_path / "tiny.json").read_text())["run"]


def test_kernel_exact_scaling_writes_a_cell_per_size_and_loss(tmp_path):
    result = kernel_exact_scaling.main(["--sizes", "60", "90", "--out", str(tmp_path), "--tag", "tiny"])
    assert [(record["n"], record["loss"]) for record in result["records"]] == [
        (n, loss) for n in (60, 90) for loss in kernel_exact_scaling.LOSSES]
    assert all(record["seconds"] > 0 and record["steps"] >= 1 for record in result["records"])
    text = (tmp_path / "tiny.md").read_text()
    assert "| 90 | " in text and "## Run" in text and json.loads((tmp_path / "tiny.json").read_text())["run"]
