"""Noisy gradient descent on private ranges (mechanism "gradient-ranged", a prototype): tuned on development
tables, then frozen and run on the held-out regression tables beside DPLinearRegression() and DPHuberRegressor().

DPLinearRegression()'s default (mechanism "adassp-ranged", docs/theory.md section 16) recovers little of the gap
between the trivial predictor and non-private ridge when n epsilon / d is 50 to 250. The mechanism prototyped here
keeps its first half (the private ranges of every column and of the label, searched by Gaussian counts, and their
maps) and replaces AdaSSP's sufficient statistics by T steps of full-batch gradient descent on the residuals clipped
onto [-tau, tau], tau = KAPPA B' / LABEL_WIDTH (B' the label's released bound, so tau is KAPPA of the label's implied
standard deviations), step 1 / Lambda with Lambda a private top eigenvalue of Z^T Z, from w = 0. One joint Gaussian
of shares: the range search RANGE_SHARE, the eigenvalue 0.05, the T gradient sums 2.95 together
(:func:`_prototype_fit`).

Stage 1, development (``--stage dev``): T in {5, 10, 20} by KAPPA in {0.5, 1, 2} on real_tables' non-held-out
regression tables (diabetes, heavy) and two synthetic families written here (``mixed45``: 3 numeric columns, a
40-level categorical and a bool, 45 encoded columns, a label near 10,000 in the public range [0, 20,000]; ``dense45``:
45 numeric columns that fill their public ranges, the same label), each at 1,800, 6,000, 18,000 and 60,000 rows (75%
for training: n epsilon / d of 30, 100, 300 and 1,000 at epsilon 1); epsilon 0.3, 1 and 3; 5 seeded 75/25 splits.
The choice: the (T, KAPPA) whose WORST development cell with n epsilon / d >= 50 has the largest gap recovered (tie:
the mean over those cells).

FROZEN (committed before any held-out run): T = 20, KAPPA = 1 (FROZEN_STEPS, FROZEN_KAPPA), by the rule on the
development run of 2026-12-01 (results/gradient_regression_dev.md, 22 cells with n epsilon / d >= 50): its worst
cell's gap 0.056 is the largest of the nine (T = 10, KAPPA = 1: 0.037; T = 5, KAPPA = 2: 0.030), and its mean 0.888
is second only to T = 20, KAPPA = 0.5's 0.890 (worst 0.022); DPLinearRegression() on the same cells: worst 0.005,
mean 0.651. The worst cell of every setting is diabetes at epsilon 3 (332 training rows, n epsilon / d = 100, no
setting beyond 0.07 there): without diabetes the rule would pick T = 20, KAPPA = 2 (worst 0.43, mixed45_30 at epsilon
3; mean 0.85) with T = 20, KAPPA = 1 second (worst 0.39, mean 0.93). T = 20 is the grid's largest: more steps were
not tried. Below n epsilon / d = 50 the mechanism can fail far worse than AdaSSP: with too few rows for any range
search (mixed45_30 and dense45_30 at epsilon 0.3, n epsilon / d = 9) the gradient works at the public label bound and
its gap is -115 and -332 against AdaSSP's -5.9 and -3.4.

Stage 2, held out (``--stage held-out``): every held-out regression family of benchmarks/real_tables.py at the
frozen (T, KAPPA), epsilon 0.3, 1 and 3, beside DPLinearRegression() and DPHuberRegressor() at their defaults
(label_bound = the table's public range, as real_tables.py fits them, with its splits and fit seeds), the trivial
predictor and the non-private reference (StandardScaler + Ridge), all scored by real_tables. "gap recovered" =
(R^2 - trivial) / (reference - trivial) per split, mean and 95% normal interval over the splits.

Tables run one per process invocation (``--tables``); each run merges into results/gradient_regression_<stage>.json
and rewrites its Markdown from every table recorded there, with the command of each.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.gradient_regression --stage dev --tables heavy
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.gradient_regression --stage held-out --tables prices
    python -m benchmarks.gradient_regression --stage held-out --render   # the Markdown again from the JSON
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import ndtri

import dpcvx
from benchmarks import common
from benchmarks.real_tables import Table, load, reference, score, seeded_splits, trivial
from dpcvx.data.rows import RowMap
from dpcvx.data.standardiser import LABEL_WIDTH, label_range, range_map
from dpcvx.privacy.adassp import adassp_calibration, range_search_level
from dpcvx.privacy.column_ranges import RANGE_SHARE, release_ranges
from dpcvx.privacy.gaussian import analytic_gaussian_sigma
from dpcvx.validation import label_range as public_label_range

RESULTS = Path(__file__).resolve().parent / "results"
EPSILONS = (0.3, 1.0, 3.0)
DELTA = 1e-6  # DPLinearRegression's default
SPLITS = 5
STEPS_GRID = (5, 10, 20)
KAPPA_GRID = (0.5, 1.0, 2.0)
FROZEN_STEPS = 20  # chosen on the development tables (module docstring), then frozen
FROZEN_KAPPA = 1.0
#: The shares of the joint Gaussian besides the search's RANGE_SHARE: the top eigenvalue, the T gradient sums
EIGENVALUE_SHARE, GRADIENT_SHARE = 0.05, 2.95
FAILURE = 0.05  # rho of the eigenvalue's one-sided margin (AdaSSP's failure_probability)
SCORED_AT = 50.0  # the cells the choice reads: n epsilon / d at least this
#: the synthetic development families: (family, n epsilon / d at epsilon 1 of the training rows)
SYNTHETIC_SIZES = (30, 100, 300, 1000)
SYNTHETIC = tuple(f"{family}_{size}" for family in ("mixed45", "dense45") for size in SYNTHETIC_SIZES)
DEVELOPMENT = ("diabetes", "heavy") + SYNTHETIC
#: real_tables' held-out families whose task is a regression (HELD_OUT less the binary mixed10, rare2, alarms, orders)
HELD_OUT_REGRESSION = ("prices", "wages500", "rents", "claims", "energy", "trips", "clinic", "sensors", "water",
                       "repairs", "harvest")


def _searched(n: int, d: int, epsilon: float, delta: float = DELTA) -> int:
    """The columns whose ranges a fit of n rows of d columns searches (column_statistics="auto" of adassp-ranged):
    every column and the label (d + 1) when the search's level at n is defined for them, else the label alone (1)
    when it is for it, else none (0). Public: epsilon, delta, d and n."""
    return next((k for k in (d + 1, 1) if range_search_level(epsilon, delta, columns=k, n=n) is not None), 0)


def _prototype_fit(X: np.ndarray, y: np.ndarray, label_bound: tuple[float, float], epsilon: float, steps: int,
                   kappa: float, seed: int, delta: float = DELTA) -> Callable[[np.ndarray], np.ndarray]:
    """The predictor of one (epsilon, delta)-DP fit of the gradient mechanism on public-schema rows (R = 1).

    It mirrors the library's mechanism "gradient-ranged" until that lands, and will then be replaced by
    DPLinearRegression(mechanism="gradient"). Everything it shares with "adassp-ranged" is the library's own code
    (:meth:`dpcvx.models.linear_regression.AdaSSPPlan.execute`): the public label range centred
    (:func:`dpcvx.validation.label_range`), the search's level by :func:`~dpcvx.privacy.adassp.range_search_level`
    (every column and the label when defined at n, else the label alone, else no search: column_statistics="auto"),
    its counts' sigma and level from :func:`~dpcvx.privacy.adassp.adassp_calibration` with ``range_columns``, the
    search :func:`~dpcvx.privacy.column_ranges.release_ranges` on rows clipped onto R beside labels clipped onto
    [-B, B], the maps :func:`~dpcvx.data.standardiser.range_map` and :func:`~dpcvx.data.standardiser.label_range`
    (c, B'), and :class:`~dpcvx.data.rows.RowMap`. The shares RANGE_SHARE + 0.05 + 2.95 sum to AdaSSP's 3 +
    RANGE_SHARE, so the unit sigma, and with it the search, is adassp-ranged's (checked below).

    Then, on the mapped rows Z (their constant feature at s = R / sqrt(d), a feature column's public scale, so that
    R_eff = sqrt(R^2 + s^2)) and the labels y' = y - c clipped onto [-B', B']: Lambda = lambda_max(Z^T Z) +
    N(0, (R_eff^2 unit / sqrt(0.05))^2), floored at 0, plus the one-sided margin of AdaSSP's eigenvalue (its
    sigma times the normal quantile at 1 - rho / 3); then from w = 0, ``steps`` times
    w -= (Z^T clip(Z w - y', -tau, tau) + N(0, sigma_g^2 I)) / Lambda, tau = kappa B' / LABEL_WIDTH,
    sigma_g = 2 R_eff tau unit / sqrt(2.95 / steps) (a row's clipped gradient has norm at most R_eff tau;
    replace-one). The prototype does not round its noisy values to a grid (the library's floating-point
    mitigation), which changes no accuracy."""
    rng = np.random.default_rng(seed)
    shift, bound = public_label_range(label_bound)
    labels = np.asarray(y, dtype=float) - shift
    n, d = X.shape
    norm = 1.0
    unit = analytic_gaussian_sigma(math.sqrt(RANGE_SHARE + EIGENVALUE_SHARE + GRADIENT_SHARE), epsilon, delta)
    columns = _searched(n, d, epsilon, delta)
    rows = RowMap(norm_bound=norm, fit_intercept=True, intercept_scaling=norm / math.sqrt(d))
    centre, label_half = 0.0, bound
    if columns:
        calibration = adassp_calibration(epsilon, delta, dim=d + 1, data_norm=norm, label_bound=bound,
                                         range_columns=columns)
        assert calibration.unit_sigma == unit  # the same joint Gaussian as adassp-ranged's (docstring)
        level = calibration.range_level(n)
        assert level is not None
        clipped_labels = np.clip(labels, -bound, bound)[:, None]
        if columns > 1:
            clipped, _ = RowMap(norm_bound=norm).apply(X)
            values = np.column_stack([np.asarray(clipped), clipped_labels])
        else:
            values = clipped_labels
        ranges = release_ranges(values, np.append(np.full(columns - 1, norm), bound), level, calibration.count_sigma,
                                rng)
        centre, label_half = label_range(ranges[:, -1:], level, bound)
        if columns > 1:
            rows = RowMap(norm_bound=norm, feature_map=range_map(ranges[:, :-1], level, norm), fit_intercept=True,
                          intercept_scaling=rows.intercept_scaling)
    Z = np.asarray(rows.apply(X)[0])
    target = np.clip(labels - centre, -label_half, label_half)
    reach = rows.effective_norm_bound
    sigma_top = reach**2 * unit / math.sqrt(EIGENVALUE_SHARE)
    top = float(np.linalg.eigvalsh(Z.T @ Z)[-1])
    curvature = max(top + sigma_top * rng.standard_normal(), 0.0) + sigma_top * float(ndtri(1 - FAILURE / 3))
    tau = kappa * label_half / LABEL_WIDTH
    sigma_g = 2 * reach * tau * unit / math.sqrt(GRADIENT_SHARE / steps)
    w = np.zeros(d + 1)
    for _ in range(steps):
        residual = np.clip(Z @ w - target, -tau, tau)
        w -= (Z.T @ residual + sigma_g * rng.standard_normal(d + 1)) / curvature
    coef, intercept = rows.split_weights(w)
    offset = intercept + centre + shift
    return lambda A: np.asarray(rows.features(A)) @ coef + offset


def _synthetic(name: str) -> Table:
    """``mixed45_<size>`` or ``dense45_<size>`` (module notes): n = size * 45 / 0.75 rows, so that the training rows'
    n epsilon / d is ``size`` at epsilon 1; generators fixed before any fit, their own seeds."""
    family, size = name.rsplit("_", 1)
    n = int(round(int(size) * 45 / 0.75))
    rng = np.random.default_rng(7000 + int(size))
    if family == "mixed45":  # as /work audit's t05_reg_gap table: 3 + 40 + 2 encoded columns
        numeric, category = dpcvx.NumericColumn, dpcvx.CategoricalColumn
        raw = {"sqft": rng.uniform(300, 4000, n), "rooms": rng.integers(1, 9, n).astype(float),
               "dist": rng.uniform(0, 1, n), "zone": rng.integers(1, 41, n).astype(str),
               "new": rng.integers(0, 2, n).astype(bool).astype(str)}
        effect = np.random.default_rng(99).normal(size=41) * 60
        y = (1e4 + 0.12 * (raw["sqft"] - 2000) + 20 * raw["rooms"] - 150 * raw["dist"]
             + effect[raw["zone"].astype(int)] + 40 * (raw["new"] == "True") + rng.normal(0, 60, n))
        columns = (numeric("sqft", 0, 10000), numeric("rooms", 0, 20), numeric("dist", 0, 1),
                   category("zone", tuple(str(i) for i in range(1, 41))), category("new", ("False", "True")))
        bounded, free = dpcvx.PublicSchema(columns, norm=1.0), dpcvx.PublicSchema(columns, norm=1e12)
        X, Z = bounded.transform(raw), free.transform(raw)
        text = f"{n:,} rows: 3 numeric, a 40-level categorical, a bool (45 columns); label near 10,000 in [0, 20,000]"
    else:  # as t05c's numeric table: rows inside the unit ball, columns filling their public ranges
        X = rng.uniform(-0.5, 0.5, (n, 45)) / math.sqrt(45 / 3)
        weights = np.random.default_rng(98).normal(size=45)
        signal = X @ weights
        y = 1e4 + 150 * signal / np.std(signal) + rng.normal(0, 60, n)
        Z = X
        text = f"{n:,} rows: 45 numeric columns filling their public ranges; label near 10,000 in [0, 20,000]"
    return Table(name, "regression", X, Z, np.clip(y, 0, 20000), label_range=(0.0, 20000.0), text=text)


def _table(name: str) -> Table:
    return _synthetic(name) if name in SYNTHETIC else load(name)


def _gap(values: list[float], low: list[float], high: list[float]) -> list[float]:
    """The gap recovered of each split."""
    return [(v - a) / (b - a) for v, a, b in zip(values, low, high, strict=True)]


def _fits(table: Table, train: np.ndarray, test: np.ndarray, epsilon: float, seed: int,
          settings: list[tuple[int, float]], estimators: tuple[str, ...]) -> dict[str, float]:
    """{method: test R^2} of one split at one epsilon: the prototype at each (T, kappa) of ``settings``, then the
    named estimators at their defaults (label_bound = the public range; warnings silenced)."""
    out = {}
    assert table.label_range is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for steps, kappa in settings:
            predict = _prototype_fit(table.X[train], table.y[train], table.label_range, epsilon, steps, kappa, seed)
            out[f"gradient T={steps} kappa={kappa:g}"] = score(table.task, table.y[test], predict(table.X[test]))
        for name in estimators:
            estimator = getattr(dpcvx, name)(epsilon=epsilon, label_bound=table.label_range, random_state=seed)
            predicted = estimator.fit(table.X[train], table.y[train]).predict(table.X[test])
            out[f"{name}()"] = score(table.task, table.y[test], predicted)
    return out


def measure(name: str, stage: str, splits: int, steps: int, kappa: float) -> dict[str, Any]:
    """One table's record: per epsilon and method, the R^2 of each split, and the trivial and reference scores."""
    table = _table(name)
    settings = ([(t, k) for t in STEPS_GRID for k in KAPPA_GRID] if stage == "dev" else [(steps, kappa)])
    estimators = ("DPLinearRegression",) if stage == "dev" else ("DPLinearRegression", "DPHuberRegressor")
    record: dict[str, Any] = {"table": name, "text": table.text, "n": int(table.X.shape[0]),
                              "d": int(table.X.shape[1]), "trivial": [], "reference": [], "n_train": [],
                              "scores": {}}
    for split, (train, test, _) in enumerate(seeded_splits(table, splits)):
        record["trivial"].append(trivial(table.task, table.y[train], table.y[test]))
        record["reference"].append(reference(table, train, test))
        record["n_train"].append(int(train.size))
        for epsilon in EPSILONS:
            seed = common.int_seed(0, split, int(epsilon * 10))  # real_tables' fit seed
            cell = record["scores"].setdefault(str(epsilon), {})
            for method, value in _fits(table, train, test, epsilon, seed, settings, estimators).items():
                cell.setdefault(method, []).append(value)
        print(f"[gradient_regression] {name} split {split} done", flush=True)
    return record


def _cells(records: dict[str, dict]) -> list[tuple[str, float, float, dict[str, list[float]]]]:
    """(table, epsilon, n epsilon / d, {method: gap recovered per split}) of every recorded cell."""
    out = []
    for name, record in records.items():
        for epsilon, methods in record["scores"].items():
            ratio = float(np.mean(record["n_train"])) * float(epsilon) / record["d"]
            out.append((name, float(epsilon), ratio, {method: _gap(values, record["trivial"], record["reference"])
                                                      for method, values in methods.items()}))
    return out


def choose(records: dict[str, dict]) -> tuple[tuple[int, float], list[str]]:
    """The (T, kappa) of the rule (module docstring) and the Markdown lines of its ranking."""
    scored = [cell for cell in _cells(records) if cell[2] >= SCORED_AT]
    ranking = []
    for t in STEPS_GRID:
        for k in KAPPA_GRID:
            gaps = [float(np.mean(cell[3][f"gradient T={t} kappa={k:g}"])) for cell in scored]
            worst = min(gaps)
            ranking.append((worst, float(np.mean(gaps)), t, k))
    ranking.sort(reverse=True)
    lines = [f"Cells with n epsilon / d >= {SCORED_AT:g}: {len(scored)}.", "",
             "| T | kappa | worst cell's gap | mean gap |", "|---|---|---|---|"]
    lines += [f"| {t} | {k:g} | {worst:.3f} | {mean:.3f} |" for worst, mean, t, k in ranking]
    best = ranking[0]
    adassp = [float(np.mean(cell[3]["DPLinearRegression()"])) for cell in scored]
    lines += ["", f"DPLinearRegression() on the same cells: worst {min(adassp):.3f}, mean {np.mean(adassp):.3f}.", "",
              f"Chosen: T = {best[2]}, kappa = {best[3]:g} (worst cell {best[0]:.3f}, mean {best[1]:.3f})."]
    return (best[2], best[3]), lines


def _summary(cells: list[tuple[str, float, float, dict[str, list[float]]]], methods: list[str]) -> list[str]:
    """Markdown lines: each method's worst and mean gap over the cells with n epsilon / d >= SCORED_AT, then the cells
    where the prototype's mean gap is below another method's (and whether the intervals are apart)."""
    scored = [cell for cell in cells if cell[2] >= SCORED_AT]
    lines = [f"Over the {len(scored)} cells with n epsilon / d >= {SCORED_AT:g}:", "",
             "| method | worst cell's gap | mean gap |", "|---|---|---|"]
    for method in methods:
        gaps = [float(np.mean(cell[3][method])) for cell in scored]
        lines.append(f"| {method} | {min(gaps):.2f} | {np.mean(gaps):.2f} |")
    prototype, others = methods[0], methods[1:]
    lines += ["", f"Cells where {prototype} has the lower mean gap (all cells; \"apart\": the 95% intervals do not "
              "overlap):", ""]
    for name, epsilon, ratio, gaps in sorted(cells, key=lambda c: (c[0], c[1])):
        mine, half = float(np.mean(gaps[prototype])), _half(gaps[prototype])
        for method in others:
            theirs, spread = float(np.mean(gaps[method])), _half(gaps[method])
            if mine < theirs:
                apart = "apart" if mine + half < theirs - spread else "overlapping"
                lines.append(f"- {name} at epsilon {epsilon:g} (n eps / d {ratio:.0f}): {mine:.2f} against "
                             f"{method} {theirs:.2f} ({apart})")
    return lines


def _half(values: list[float]) -> float:
    """The half-width of the 95% normal interval of the mean over the splits."""
    return 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else math.nan


def _interval(values: list[float]) -> str:
    return f"{float(np.mean(values)):.2f} ± {_half(values):.2f}"


def render(stage: str, records: dict[str, dict]) -> str:
    """The Markdown of a stage: one row per (table, epsilon), the gap recovered of each method."""
    cells = _cells(records)
    methods = list(cells[0][3]) if cells else []
    if stage == "dev":
        title = "Gradient mechanism (prototype): the development grid"
    else:
        title = f"Gradient mechanism (prototype, T = {FROZEN_STEPS}, kappa = {FROZEN_KAPPA:g}): held-out tables"
    lines = [f"# {title}", "", "Written by benchmarks/gradient_regression.py (its docstring: the mechanism, the "
             "tables, the rule). Gap recovered = (R^2 - trivial) / (reference - trivial) per split; mean ± 95% "
             "normal interval over the splits. \"searched\": the ranges the prototype and DPLinearRegression() "
             "search at that n (every column and the label, the label alone, or none: the public rule of "
             "column_statistics=\"auto\").", ""]
    if stage == "dev":
        lines += ["## Choice", ""] + choose(records)[1] + [""]
    elif cells:
        lines += ["## Summary", ""] + _summary(cells, methods) + [""]
    lines += ["## Cells", "", "| table | epsilon | n eps / d | searched | trivial R^2 | reference R^2 | "
              + " | ".join(methods) + " |", "|---|---|---|---|---|---|" + "---|" * len(methods)]
    for name, epsilon, ratio, gaps in sorted(cells, key=lambda c: (c[0], c[1])):
        record = records[name]
        searched = {0: "none", 1: "label"}.get(_searched(record["n_train"][0], record["d"], epsilon), "all")
        lines.append(f"| {name} | {epsilon:g} | {ratio:.0f} | {searched} | {np.mean(record['trivial']):.3f} | "
                     f"{np.mean(record['reference']):.3f} | " + " | ".join(_interval(gaps[m]) for m in methods) + " |")
    lines += ["", "## Tables", ""] + [f"- {name} (n = {record['n']:,}, d = {record['d']}): {record['text']}"
                                       for name, record in records.items()]
    lines += ["", "## Runs", ""] + [f"- {name}: " + " ".join(common.run_lines(record["run"])[3:])
                                     for name, record in records.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stage", choices=("dev", "held-out"), required=True)
    parser.add_argument("--tables", nargs="+", default=[], help="tables to run, each merged into the stage's JSON")
    parser.add_argument("--render", action="store_true", help="rewrite the stage's Markdown from its JSON only")
    parser.add_argument("--splits", type=int, default=SPLITS)
    parser.add_argument("--out", type=Path, default=RESULTS)
    arguments = parser.parse_args(argv)
    allowed = DEVELOPMENT if arguments.stage == "dev" else HELD_OUT_REGRESSION
    unknown = [name for name in arguments.tables if name not in allowed]
    if unknown or not (arguments.tables or arguments.render):
        parser.error(f"name {arguments.stage} tables to run ({unknown} are not: choose from {allowed}) or pass "
                     "--render")
    stem = "gradient_regression_" + ("dev" if arguments.stage == "dev" else "held_out")
    path = arguments.out / f"{stem}.json"
    records: dict[str, dict] = json.loads(path.read_text()) if path.exists() else {}
    for name in arguments.tables:
        harness = common.RunRecord("benchmarks.gradient_regression",
                                   ["--stage", arguments.stage, "--tables", name, "--splits", str(arguments.splits)])
        start = time.perf_counter()
        record = measure(name, arguments.stage, arguments.splits, FROZEN_STEPS, FROZEN_KAPPA)
        record["seconds"] = round(time.perf_counter() - start, 1)
        record["run"] = harness.finish()
        records[name] = record
        path.write_text(json.dumps(records, indent=1) + "\n")
        (arguments.out / f"{stem}.md").write_text(render(arguments.stage, records))
    if arguments.render:
        (arguments.out / f"{stem}.md").write_text(render(arguments.stage, records))
    return records


if __name__ == "__main__":
    main()
