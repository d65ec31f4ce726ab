"""benchmarks/kernels.py runs end to end in its smallest configuration (seconds), so it cannot rot."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("kernel_benchmark", ROOT / "benchmarks" / "kernels.py")
bench = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(bench)

TINY = ["--tasks", "synthetic", "--dims", "5", "40", "--synthetic-n", "150", "--synthetic-public", "40",
        "--synthetic-test", "100", "--synthetic-lams", "1", "--epsilons", "0.5", "5", "--reps", "2",
        "--rff", "1:20", "--jobs", "1", "--tag", "tiny"]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("kernels")
    return out, bench.main(TINY + ["--out", str(out)])


@pytest.mark.slow
def test_smallest_configuration_writes_every_output(tiny_run):
    out, result = tiny_run
    for name in ("kernels_tiny.json", "kernels_tiny.md", "kernels_tiny_eps.png", "kernels_tiny_dim.png"):
        assert (out / name).stat().st_size > 0, name
    recorded = json.loads((out / "kernels_tiny.json").read_text())
    assert recorded["kind"] == "kernels"
    assert {"command", "date_utc", "machine", "load_average_start", "load_average_end",
            "run_seconds"} <= set(recorded["run"])
    assert recorded["run"]["machine"]["cores"] >= 1
    methods = {r["method"] for r in recorded["records"]}
    assert methods == {"tddl_gaussian", "tddl_laplace", "kernel_nonprivate", "linear_objective",
                       "linear_nonprivate", "rff_objective:g1_D20", "rff_nonprivate:g1_D20", "majority",
                       "tddl_gaussian_tuned", "linear_objective_tuned", "rff_objective_tuned"}
    assert all(r["accuracy"] is not None for r in recorded["records"]), "a fit failed"
    # 2 settings x 2 reps x (1 majority + 1 lam x (kernel 1 + 2 eps x 2 TDDL + linear 3 + RFF 3)
    #                        + 2 eps x 3 tuned)
    assert len(recorded["records"]) == 2 * 2 * (1 + 1 + 4 + 3 + 3 + 6)
    tuned = [r for r in recorded["records"] if r["method"] == "rff_objective_tuned"]
    assert all(r["selected"] == {"lam": 1.0, "gamma": 1.0, "n_components": 20} for r in tuned)
    assert all(r["part_size"] == 75 for r in tuned)  # 150 rows, one candidate: two parts
    markdown = (out / "kernels_tiny.md").read_text()
    assert "| TDDL cubic, (eps, 1e-06)-DP |" in markdown and "d = 40" in markdown


@pytest.mark.slow  # the tiny run takes about 4 s
def test_summary_is_mean_and_std_over_repetitions(tiny_run):
    _, result = tiny_run
    records = [r for r in result["records"] if r["setting"] == "synthetic_d40"
               and r["method"] == "linear_objective" and r["epsilon"] == 5]
    row = [r for r in result["summary"] if r["setting"] == "synthetic_d40"
           and r["method"] == "linear_objective" and r["epsilon"] == 5][0]
    accuracies = [r["accuracy"] for r in records]
    assert row["mean"] == pytest.approx(np.mean(accuracies))
    assert row["std"] == pytest.approx(np.std(accuracies, ddof=1))


@pytest.mark.slow  # the tiny run takes about 4 s
def test_rerun_is_reproducible(tiny_run, tmp_path):
    _, first = tiny_run
    second = bench.main(TINY + ["--out", str(tmp_path), "--no-plots", "--dims", "5"])
    def key(r):
        return (r["method"], r["lam"], r["epsilon"], r["rep"])
    before = {key(r): r["accuracy"] for r in first["records"] if r["setting"] == "synthetic_d5"}
    after = {key(r): r["accuracy"] for r in second["records"]}
    assert before == after


@pytest.mark.slow  # the tiny run takes about 4 s
def test_render_rewrites_the_markdown_from_the_json(tiny_run):
    out, _ = tiny_run
    path = out / "kernels_tiny.md"
    original = path.read_text()
    path.write_text("stale")
    bench.main(["--render", str(out / "kernels_tiny.json"), "--no-plots"])
    assert path.read_text() == original


def test_shared_solve_releases_what_plain_tddl_releases():
    X, y = bench.synthetic_task(120, 8, np.random.default_rng(0))
    Z, _ = bench.synthetic_task(30, 8, np.random.default_rng(1))
    cache = bench.SolveCache(X, y)
    for eps, delta in ((0.5, 1e-6), (2.0, 0.0)):
        plain, shared = bench.cubic_tddl(0.3), bench.cubic_tddl(0.3, cache)
        plain.fit(X, y, eps, delta, Z=Z, random_state=7)
        shared.fit(X, y, eps, delta, Z=Z, random_state=7)
        np.testing.assert_array_equal(plain.predictor_.coef, shared.predictor_.coef)
        assert plain.calibration_ == shared.calibration_
    assert len(cache.models) == 1  # one solve served both budgets
    with pytest.raises(ValueError, match="cache's own training arrays"):
        bench.cubic_tddl(0.3, cache).fit(X.copy(), y, 1.0, Z=Z, random_state=0)


def test_synthetic_rows_respect_the_public_bound():
    X, y = bench.synthetic_task(500, 50, np.random.default_rng(3))
    assert X.shape == (500, 50)
    assert np.all(np.linalg.norm(X, axis=1) <= 1 + 1e-12)
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert 0.85 < np.mean(y == np.where(X[:, 0] > 0, 1.0, -1.0)) < 1.0  # 5% flipped labels


@pytest.mark.data("adult")
def test_adult_smallest_configuration(tmp_path):
    result = bench.main(["--tasks", "adult", "--adult-n", "150", "--adult-public", "40", "--no-adult-full",
                         "--adult-lams", "0.1", "--epsilons", "1", "--reps", "1", "--rff", "1:10",
                         "--jobs", "1", "--no-plots", "--out", str(tmp_path), "--tag", "tiny"])
    assert {r["setting"] for r in result["records"]} == {"adult_subset"}
    assert {"tddl_gaussian_tuned", "linear_objective_tuned"} <= {r["method"] for r in result["records"]}
    assert all(r["accuracy"] is not None for r in result["records"])
    sizes = result["sizes"]["adult"]
    assert sizes["n_train_subset"] == 150 and sizes["n_public"] == 40
    # Z and the evaluation rows partition adult.test, every record kept (private mode drops none)
    assert sizes["n_public"] + sizes["n_eval"] == 16281


def test_shared_solve_keeps_the_spans_apart_and_releases_what_plain_tddl_releases():
    X, y = bench.synthetic_task(120, 8, np.random.default_rng(0))
    Z, _ = bench.synthetic_task(30, 8, np.random.default_rng(1))
    cache = bench.SolveCache(X, y)
    for span in ("public", "training", "public"):
        plain = bench.TDDL("poly", lam=0.3, loss="logistic", input_bound=1.0, span=span)
        shared = bench.SharedSolveTDDL("poly", lam=0.3, loss="logistic", input_bound=1.0, span=span, cache=cache)
        plain.fit(X, y, 1.0, 1e-6, Z=Z, random_state=7)
        shared.fit(X, y, 1.0, 1e-6, Z=Z, random_state=7)
        np.testing.assert_array_equal(plain.predictor_.coef, shared.predictor_.coef)
    assert len(cache.models) == 2  # one solve per subspace


@pytest.mark.slow
@pytest.mark.data("kdd")
def test_tddl_scale_quick_run_writes_both_spans(tmp_path):
    from benchmarks import tddl_scale

    result = tddl_scale.main(["--sizes", "600", "1200", "--exact-max", "600", "--public", "80", "--test", "500",
                              "--lams", "1e-2", "--draws", "1", "--epsilons", "1", "--tag", "tiny",
                              "--out", str(tmp_path), "--no-plots"])
    table = (tmp_path / "tddl_scale_tiny.md").read_text()
    assert "| 600 | span phi(Z), Nystrom |" in table and "| 600 | whole RKHS, exact |" in table
    assert "| 1,200 | span phi(Z), Nystrom |" in table and "| 1,200 | whole RKHS" not in table
    spans = {(r["n"], r["span"]) for r in result["records"]}
    assert spans == {(600, "public"), (600, "training"), (1200, "public")}
    assert all(0 <= r["accuracy"] <= 1 for r in result["records"])
