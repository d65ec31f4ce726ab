"""Smoke test of benchmarks/speed_sweep.py at tiny sizes (the recorded run is in benchmarks/results)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from benchmarks import speed_sweep


def test_median_interval_is_the_binomial_order_statistic_interval():
    values = [float(v) for v in range(1, 10)]  # k = 9: ranks 2 and 8 (P(B <= 1) = 10/512 <= 0.025 < P(B <= 2))
    assert speed_sweep.median_interval(values) == (5.0, 2.0, 8.0)
    assert speed_sweep.median_interval([3.0, 1.0, 2.0]) == (2.0, 1.0, 3.0)  # k = 3: the whole range


@pytest.mark.slow
def test_speed_sweep_runs_and_records_every_case(tmp_path):
    output = speed_sweep.main(["--sizes", "2000x5", "--memmap", "2000x5", "--sparse", "2000x300", "--pairs", "1",
                               "--out", str(tmp_path), "--tag", "tiny", "--tmp", str(tmp_path)])
    assert [case["kind"] for case in output["cases"]] == ["dense", "memmap", "sparse", "sparse random order",
                                                           "sparse canonical"]
    for case in output["cases"]:
        assert np.isfinite(case["ratio"]["median"]) and case["ratio"]["median"] > 0
        assert all(fit["grad_max"] >= 0 for fit in case["fits"].values())
    recorded = json.loads((tmp_path / "tiny.json").read_text())
    assert recorded["pairs"] == 1
    assert "| dense dpcvx / sklearn | 2,000 x 5 |" in (tmp_path / "tiny.md").read_text()


@pytest.mark.slow
def test_speed_sweep_runs_only_the_cases_asked_for(tmp_path):
    output = speed_sweep.main(["--cases", "sparse", "--sparse", "600x200", "--pairs", "1",
                               "--out", str(tmp_path), "--tag", "one"])
    assert [case["kind"] for case in output["cases"]] == ["sparse", "sparse random order", "sparse canonical"]
    text = (tmp_path / "one.md").read_text()
    assert "| sparse dpcvx / sklearn | 600 x 200 |" in text
    assert "| sparse canonical dpcvx / sklearn | 600 x 200 |" in text


def test_shuffled_rows_keep_each_row_and_leave_its_order_random():
    X, _ = speed_sweep.sparse_data(300, 500)
    shuffled = speed_sweep.shuffled_rows(X)
    assert (shuffled != X).nnz == 0 and not shuffled.has_sorted_indices
    np.testing.assert_array_equal(shuffled.indptr, X.indptr)
    descents = np.diff(shuffled.indices)[np.diff(np.repeat(np.arange(300), np.diff(X.indptr))) == 0] < 0
    assert 0.3 < descents.mean() < 0.7  # neither the generator's decreasing order nor sorted


@pytest.mark.slow
def test_csr_check_benchmark_agrees_on_every_check_and_form(tmp_path):
    from benchmarks import csr_check

    output = csr_check.main(["--quick", "--repeats", "1", "--out", str(tmp_path), "--tag", "tiny"])
    assert [row["form"] for row in output["rows"]] == ["decreasing (as generated)", "random order", "canonical"]
    for row in output["rows"]:  # the generator sums its repeats: no check finds one
        assert row["repeats"] == dict.fromkeys(csr_check.CHECKS, False)
        assert row["fit_ms"] > 0 and row["fit_page_faults"] >= 0
    assert "| random order |" in (tmp_path / "tiny.md").read_text()


@pytest.mark.slow
def test_family_sweep_runs_every_generator_and_summarises_each_size(tmp_path):
    from benchmarks import family_sweep

    output = family_sweep.main(["--sizes", "600x8", "--rounds", "1", "--memmap", "600x8", "--sparse", "600x200",
                                "--tables", "--out", str(tmp_path), "--tag", "tiny", "--tmp", str(tmp_path)])
    generators = [case["generator"] for case in output["cases"]]
    assert generators == [*family_sweep.GENERATORS, "isotropic", "sparse"]
    assert len({case["seed"] for case in output["cases"]}) == len(generators)  # a fresh seed per case
    for case in output["cases"]:
        assert set(case["ratios"]) == {"lbfgs tol 0.0001", "lbfgs tol 1e-06"}
        assert all(np.isfinite(r["median"]) and r["median"] > 0 for r in case["ratios"].values())
    memmap = output["cases"][-2]
    assert memmap["kind"] == "memmap" and memmap["reads"] == memmap["fits"]["dpcvx"]["solver_passes"] + 1 >= 2
    dense = [row for row in output["summary"] if row["kind"] == "dense"]
    assert {row["generators"] for row in dense} == {len(family_sweep.GENERATORS)} and len(dense) == 2
    assert all(row["best"] <= row["median"] <= row["worst"] for row in output["summary"])
    assert "| dense | 600 x 8 | lbfgs tol 1e-06 | 8 |" in (tmp_path / "tiny.md").read_text()


@pytest.mark.parametrize("kind", ["one-hot", "heavy tails", "random labels", "duplicates", "low rank", "strong signal",
                                  "positive", "binary"])
def test_held_out_generators_keep_rows_in_the_ball_and_change_their_one_property(kind):
    from benchmarks import family_sweep

    assert kind in family_sweep.HELD_OUT and kind not in family_sweep.GENERATORS
    X, y, _ = _seeded_rows_in_the_ball(kind, 4_000, seed=2)
    assert 0.2 < np.mean(y > 0) < 0.8  # no held-out generator is imbalanced
    rows = np.unique(X, axis=0).shape[0]
    if kind == "duplicates":
        assert rows <= family_sweep.DISTINCT_ROWS
    else:
        assert rows > 3_000
    if kind == "one-hot":
        assert np.all(np.count_nonzero(X, axis=1) == 40 // 8)
    if kind in ("positive", "binary"):
        assert np.all(X >= 0)
    if kind == "low rank":
        assert np.linalg.svd(X, compute_uv=False)[5] < 1e-2 * np.linalg.svd(X, compute_uv=False)[4]


@pytest.mark.slow
@pytest.mark.parametrize("option, kind", [("--held-out", "held-out"), ("--probe", "probe"), ("--unseen", "unseen")])
def test_family_sweep_reports_another_set_as_its_own_distribution(tmp_path, option, kind):
    from benchmarks import family_sweep

    names = {"held-out": family_sweep.HELD_OUT, "probe": family_sweep.PROBE, "unseen": family_sweep.UNSEEN}[kind]
    size = "4000x16" if kind == "unseen" else "400x16"  # imbalance 0.1%: some positives among the rows
    output = family_sweep.main([option, "--sizes", size, "--rounds", "1", "--memmap", "none", "--sparse",
                                "none", "--tables", "--out", str(tmp_path), "--tag", kind])
    assert [case["generator"] for case in output["cases"]] == list(names)
    assert {row["kind"] for row in output["summary"]} == {kind}
    assert all(row["generators"] == len(names) for row in output["summary"])
    with pytest.raises(SystemExit):  # one set at a time
        family_sweep.parse_args(["--probe", "--held-out"])
    with pytest.raises(SystemExit):
        family_sweep.parse_args(["--unseen", "--probe"])


def _seeded_rows_in_the_ball(kind: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X, y, row norms) of generator ``kind`` at n x 40, checked: the same rows and labels from the same seed, rows
    in the unit ball, labels -1 and 1."""
    from benchmarks import family_sweep

    X, y = family_sweep.generate(kind, n, 40, seed=seed)
    again, labels = family_sweep.generate(kind, n, 40, seed=seed)
    assert X.shape == (n, 40) and np.array_equal(X, again) and np.array_equal(y, labels)  # seeded
    norms = np.linalg.norm(X, axis=1)
    assert np.all(norms <= 1) and set(np.unique(y)) == {-1.0, 1.0}
    return X, y, norms


@pytest.mark.parametrize("kind", ["column scales", "mostly zeros", "two clusters", "integer codes", "zero rows",
                                  "collinear", "constant column", "tiny rows", "imbalance 0.5%", "outliers"])
def test_probe_generators_keep_rows_in_the_ball_and_have_their_one_property(kind):
    from benchmarks import family_sweep

    assert kind in family_sweep.PROBE and kind not in family_sweep.GENERATORS + family_sweep.HELD_OUT
    X, y, norms = _seeded_rows_in_the_ball(kind, 4_000, seed=3)
    share = np.mean(y > 0)
    assert share < 0.02 if kind == "imbalance 0.5%" else 0.15 < share < 0.85
    zero = np.all(X == 0, axis=1)
    assert 0.25 < np.mean(zero) < 0.35 if kind == "zero rows" else np.mean(zero) < 0.2
    if kind == "mostly zeros":
        assert 0.03 < np.mean(X != 0) < 0.07
    if kind == "column scales":
        spread = np.std(X, axis=0)
        assert spread[-1] > 300 * spread[0]
    if kind == "two clusters":
        assert np.unique(np.sign(X @ np.linalg.svd(X, full_matrices=False)[2][0])).size == 2
    if kind == "integer codes":  # each row a scaled vector of codes 0 to 4
        assert np.all(X >= 0) and all(np.unique(row).size <= 5 for row in X[:100])
    if kind == "collinear":
        assert np.array_equal(X[:, 20:], X[:, :20])
    if kind == "constant column":  # 0.5 before the rows' scaling into the ball
        assert np.all(X[:, 0] > 0) and np.std(X[:, 0]) < 0.2 * np.mean(X[:, 0]) and abs(np.mean(X[:, 1])) < 0.05
    if kind == "tiny rows":
        assert np.all(norms <= 1e-3)
    if kind == "outliers":
        assert 10 < np.count_nonzero(norms > 0.99) < 80 and np.all(norms[norms <= 0.99] <= 0.2)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["uniform cube", "laplace", "clusters 50", "clusters 1000", "mixed norms", "shifted",
                                  "two informative", "imbalance 0.1%", "sorted labels", "sorted norms"])
def test_unseen_generators_keep_rows_in_the_ball_and_have_their_one_property(kind):
    from benchmarks import family_sweep

    assert kind in family_sweep.UNSEEN
    assert kind not in family_sweep.GENERATORS + family_sweep.HELD_OUT + family_sweep.PROBE
    X, y, norms = _seeded_rows_in_the_ball(kind, 8_000, seed=4)
    share = np.mean(y > 0)
    assert share < 0.004 if kind == "imbalance 0.1%" else 0.3 < share < 0.7
    kurtosis = np.mean(X**4) / np.mean(X**2) ** 2  # of the entries: 1.8 uniform, 3 normal, 6 Laplace
    if kind == "uniform cube":
        assert kurtosis < 2.2
    if kind == "laplace":
        assert kurtosis > 4.0
    if kind.startswith("clusters"):  # every row within a few jitters of another (its centre's other rows)
        jitter = 1e-4 if kind == "clusters 50" else 1e-2
        gaps = np.linalg.norm(X[:200, None, :] - X[None, :, :], axis=2)
        gaps[np.arange(200), np.arange(200)] = np.inf
        assert np.median(gaps.min(axis=1)) < 10 * jitter
    if kind == "mixed norms":
        assert 0.4 < np.mean(norms < 0.05) < 0.6 and np.all((norms < 0.05) | (norms > 0.5))
    if kind == "shifted":
        assert np.all(X > -0.3) and np.mean(X) > 0.1
    if kind == "two informative":  # the labels follow the first two columns
        fit = np.linalg.lstsq(X[:, :2], y, rcond=None)[0]
        other = np.linalg.lstsq(X[:, 2:4], y, rcond=None)[0]
        assert np.mean(np.sign(X[:, :2] @ fit) == y) > np.mean(np.sign(X[:, 2:4] @ other) == y) + 0.15
    if kind == "sorted labels":
        assert np.all(np.diff(y) >= 0)
    if kind == "sorted norms":
        assert np.all(np.diff(norms) >= -1e-12) and norms[0] < 0.01 and norms[-1] > 0.99


@pytest.mark.parametrize("share", [0.5, 0.1, 0.02])
def test_family_generators_keep_rows_in_the_ball_and_hit_their_class_balance(share):
    from benchmarks import family_sweep

    kind = "isotropic" if share == 0.5 else f"balance {share:.0%}"
    X, y = family_sweep.generate(kind, 20_000, 20, seed=1)
    assert np.all(np.linalg.norm(X, axis=1) <= 1) and set(np.unique(y)) == {-1.0, 1.0}
    assert abs(np.mean(y > 0) - share) < 0.02  # seeded: the balance within 2 points
    inside, _ = family_sweep.generate("inside", 2_000, 20, seed=1)
    assert np.all(np.linalg.norm(inside, axis=1) <= 0.1 + 1e-12)


def test_lbfgs_to_the_bound_stops_at_the_first_point_within_dpcvx_certified_bound(monkeypatch):
    from benchmarks import family_sweep
    from dpcvx.privacy.calibrate import DEFAULT_TOL

    X, y = family_sweep.generate("isotropic", 3_000, 10, seed=5)
    bound = 0.5 * DEFAULT_TOL * X.shape[0]
    _, _, record = family_sweep.fit_to_bound(X, y, 0)
    assert record["reached"] and record["grad"] <= bound
    # the first point within it: every earlier evaluation is outside (scipy's iterates are deterministic)
    evaluations, norms = record["iterations"], []
    original = speed_sweep.value_and_gradient

    def counted(X_, y_, w):
        value, gradient = original(X_, y_, w)
        norms.append(float(np.linalg.norm(gradient)))
        return value, gradient

    monkeypatch.setattr(speed_sweep, "value_and_gradient", counted)
    family_sweep.fit_to_bound(X, y, 0)
    assert len(norms) == evaluations + 1  # the evaluations, then the record's gradient norm at the point returned
    assert evaluations >= 3 and norms[evaluations - 1] <= bound < min(norms[:evaluations - 1])
    assert norms[-1] == norms[evaluations - 1]


def test_lbfgs_to_the_bound_says_when_it_ends_short_of_the_bound(monkeypatch):
    from benchmarks import family_sweep

    X, y = family_sweep.generate("isotropic", 2_000, 8, seed=6)
    monkeypatch.setattr(family_sweep, "DEFAULT_TOL", 0.0)  # no gradient is within 0: L-BFGS-B ends on its own
    _, _, record = family_sweep.fit_to_bound(X, y, 0)
    assert not record["reached"] and record["grad"] > 0


@pytest.mark.slow
def test_family_sweep_to_the_bound_adds_the_peer_and_its_columns(tmp_path):
    from benchmarks import family_sweep

    output = family_sweep.main(["--sizes", "600x8", "--generators", "isotropic", "noisy", "--rounds", "1",
                                "--memmap", "none", "--sparse", "none", "--tables", "--to-bound", "--out",
                                str(tmp_path), "--tag", "bound"])
    assert all(set(case["ratios"]) == {"lbfgs tol 0.0001", "lbfgs tol 1e-06", family_sweep.TO_BOUND}
               for case in output["cases"])
    assert all(isinstance(case["fits"][family_sweep.TO_BOUND]["reached"], bool) for case in output["cases"])
    text = (tmp_path / "bound.md").read_text()
    assert f"| dense | 600 x 8 | {family_sweep.TO_BOUND} | 2 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| dense isotropic"))
    assert row.count("|") == 13  # 12 columns
    with pytest.raises(SystemExit):
        family_sweep.main(["--to-bound", "--intercept", "--sizes", "600x8"])


def test_family_sweep_repeats_short_fits_alike_and_times_long_ones_once():
    from benchmarks import family_sweep

    calls = {"short": 0, "long": 0}

    def fake(name, seconds):
        def fit(X, y, seed):
            calls[name] += 1
            return seconds, seconds, {"grad": 0.0, "iterations": 1}
        return fit

    short = family_sweep.MIN_TIMED_SECONDS / 4  # four runs make the time asked
    output = family_sweep.rounds(None, np.ones(3), 2, {"short": fake("short", short), "long": fake("long", 1.0)})
    assert family_sweep.repeats_for(short) == 4 and family_sweep.repeats_for(1e-9) == family_sweep.MAX_REPEATS
    assert output["fits"]["short"]["repeats"] == 4 and output["fits"]["long"]["repeats"] == 1
    # warm-up (1) and its second run (1), then 2 rounds of 4 runs; the long fit once a round
    assert calls == {"short": 2 + 2 * 4, "long": 2 + 2}
    assert output["ratios"]["long"]["values"] == [short, short]
