"""DPHuberRegressor's column_statistics="auto": when do the private ranges pay for their half of the budget?

A probe of the sixty-ninth session (P2, findings 1 and 2) fitted ``DPHuberRegressor()`` on a price table whose 500-level
zip code is 500 one-hot columns (n 16,000, d 502): at its default (the ranges of the columns and the label, eps_s 0.2
and eps_l 0.3 of epsilon) R^2 -0.03 at epsilon 1 and 3, against 0.23 / 0.40 with ``column_statistics=False``; and on a
zero-inflated claims count 0.14 against 0.30. The features' histograms cost noise of scale 2 d / eps_s per cell, so at
a large width d against n eps_s they keep no cell, and the fit has given up half of its budget.

Each family below is fitted with ``column_statistics=False`` ("off") and ``"ranges"`` (what "auto" draws at every n
here) at epsilon 1 and 3 over 3 seeds (data or split, and noise), test R^2. The candidate public rules: "auto" draws
the ranges only where n eps / d >= K (written before the run, K 100 as a placeholder), or only where the features'
histograms keep a cell of AUTO_ROWS n rows on the grid the fit draws on
(:func:`dpcvx.models.column_statistics.ranges_keep_cells`, the classifiers' rule of
:func:`~dpcvx.models.column_statistics.ranges_by_default` at the regression's share and grid: chosen after the first
run, in place of an arbitrary K). The outcome of the first run: where those histograms keep no such cell, off was
better in 12 of 14 cells (R^2 +0.07 to +0.56) but far worse in scales_wide's 2 (R^2 -144 and -91 against 0.02, with
no warning on the off fit), whose label fills a sliver of a loose declared range; where they keep one, the ranges were
better in 8 and worse in 10 (the label's range on skewed or zero-inflated labels: houses_numeric, claims, prices,
rents), which no public quantity tells apart. So "auto" was kept, and a rule decides only the advice: a fit whose
histograms can keep no cell at all (T above n: :func:`~dpcvx.models.column_statistics.regression_ranges_locate`)
warns with the ranges' share and names column_statistics=False with these numbers. That rule is narrower than the
0.4 n one because an existing test's used-car table (n 1,500, d 27, epsilon 3: T = 0.50 n) kept 0.70 of the gap
with the ranges, more than with column_statistics=False; it was set after that table was seen. This file's
"locate" column and counts are that rule's. DPLinearRegression's default (its own ranges) is
measured against its column_statistics=False on houses and claims (the probe's other finding), and since
session 70 on electricity and grades. Families (written
before the run; the first two are P2's tables rebuilt here, the wide ones are benchmarks/descent_advice.py's):

* houses: 500 zip codes one-hot, living area and year built, a log-normal price in the public [50,000, 2,000,000];
  houses_numeric: the same without the zip code (d 2);
* claims: 12 policy types, 20 regions and age, a zero-inflated count (71 % zeros) in [0, 40]; claims_numeric: age only;
* real_tables' regression tables prices, rents, energy, trips and sensors (d 8 to 13; 75/25 seeded splits);
* wide tables of descent_advice.py: onehot200 (n 8,000), twocat150+60, uniform300 and pareto250 (n 12,000), and
  needle200 (201 numeric columns, no one-hot; n 8,000);
* scales: five numeric columns on very different scales, each filling a sliver of its loose public range, and a label
  filling a sliver of its public range (the ranges' case); scales_wide: the same plus a 300-level categorical;
* added in the seventieth session (probe P2's finding 4: getting-started's advice for long-tailed or piled labels was
  measured on DPHuberRegressor only), written before their run: electricity (a log-normal kWh in [0, 20,000], hour
  and weekday one-hot, temperature, 8 appliance counts) and grades (25 Likert answers, a 40-level school, two constant
  and two duplicated columns, a grade piled at its ceiling 100); both in DPLinearRegression's section too.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.huber_auto_rule           # results/huber_auto_rule.md (about 3 minutes)
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.huber_auto_rule --quick   # 1 seed, epsilon 1 (..._quick.md)
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common, descent_advice
from benchmarks.real_tables import load
from dpcvx.exceptions import NoiseDominatesWarning
from dpcvx.models.column_statistics import regression_ranges_locate

RESULTS = Path(__file__).resolve().parent / "results"
SETTINGS = (False, "ranges")
#: (name, X train, y train, label range, X test, y test)
Split = tuple[np.ndarray, np.ndarray, tuple[float, float], np.ndarray, np.ndarray]


def _encode(schema: dpcvx.PublicSchema, columns: dict) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the schema's NOT PRIVATE notes on the generated rows
        return np.asarray(schema.transform(columns))


def _cut(X: np.ndarray, y: np.ndarray, label: tuple[float, float], seed: int) -> Split:
    order = common.generator(1000, seed).permutation(len(y))
    cut = int(0.8 * len(y))
    return X[order[:cut]], y[order[:cut]], label, X[order[cut:]], y[order[cut:]]


def houses(seed: int, zip_code: bool = True) -> Split:
    rng = np.random.default_rng(0)  # one table, split by seed (P2's design)
    n = 20000
    zips = tuple(f"{z:05d}" for z in sorted(rng.choice(np.arange(1000, 99999), 500, replace=False)))
    effect = rng.normal(0, 0.35, 500)
    code = rng.integers(0, 500, n)
    area = np.clip(np.exp(rng.normal(np.log(110), 0.45, n)), 20, 600).round()
    year = rng.integers(1850, 2025, n).astype(float)
    price = np.clip(np.exp(12.2 + 0.85 * np.log(area / 110) + effect[code] + 0.002 * (year - 1960)
                           + rng.normal(0, 0.25, n)), 50_000, 2_000_000).round(-3)
    numeric = (dpcvx.NumericColumn("area", 20, 600), dpcvx.NumericColumn("year", 1850, 2024))
    parts = ((dpcvx.CategoricalColumn("zip", zips),) if zip_code else ()) + numeric
    columns = {"zip": np.array(zips)[code], "area": area, "year": year}
    X = _encode(dpcvx.PublicSchema(parts, norm=1.0), {p.name: columns[p.name] for p in parts})
    return _cut(X, price, (50_000.0, 2_000_000.0), seed)


def claims(seed: int, categorical: bool = True) -> Split:
    rng = np.random.default_rng(0)
    n = 20000
    policies, regions = tuple(f"policy{i:02d}" for i in range(12)), tuple(f"region{i:02d}" for i in range(20))
    policy, region, age = rng.integers(0, 12, n), rng.integers(0, 20, n), rng.integers(18, 91, n).astype(float)
    linear = 0.8 + rng.normal(0, 0.6, 12)[policy] + rng.normal(0, 0.3, 20)[region] + 0.02 * (age - 50)
    count = rng.poisson(rng.gamma(2.0, np.exp(linear) / 2.0))
    zero = rng.random(n) < 1 / (1 + np.exp(1.2 * linear - 1.6))
    count = np.clip(np.where(zero, 0, count), 0, 40).astype(float)
    age_column = dpcvx.NumericColumn("age", 18, 90)
    parts = ((dpcvx.CategoricalColumn("policy", policies), dpcvx.CategoricalColumn("region", regions), age_column)
             if categorical else (age_column,))
    columns = {"policy": np.array(policies)[policy], "region": np.array(regions)[region], "age": age}
    X = _encode(dpcvx.PublicSchema(parts, norm=1.0), {p.name: columns[p.name] for p in parts})
    return _cut(X, count, (0.0, 40.0), seed)


def electricity(seed: int) -> Split:
    """A meter table (session 70, after probe P2's finding 4): hour of day (24 levels) and weekday (7) one-hot, a
    temperature on [-20, 110] and 8 appliance counts on [0, 5]; the label a log-normal kWh, median about 3,000, in the
    public [0, 20,000] (a long right tail). One table, split by seed."""
    rng = np.random.default_rng(70)
    n = 20000
    hour, weekday = rng.integers(0, 24, n), rng.integers(0, 7, n)
    temperature = np.clip(rng.normal(55, 20, n), -20, 110).round(1)
    counts = np.clip(rng.poisson(1.5, (n, 8)), 0, 5).astype(float)
    log_kwh = (np.log(3000) - 1.7 + counts @ rng.uniform(0.02, 0.3, 8) + 0.3 * np.sin((hour - 6) * np.pi / 12)
               + 0.08 * (weekday >= 5) + 0.00015 * (temperature - 65) ** 2 + rng.normal(0, 0.55, n))
    kwh = np.clip(np.exp(log_kwh), 0, 20000).round(1)
    parts = ((dpcvx.CategoricalColumn("hour", tuple(range(24))), dpcvx.CategoricalColumn("weekday", tuple(range(7))),
              dpcvx.NumericColumn("temperature", -20, 110))
             + tuple(dpcvx.NumericColumn(f"appliance{j}", 0, 5) for j in range(8)))
    columns = {"hour": hour, "weekday": weekday, "temperature": temperature,
               **{f"appliance{j}": counts[:, j] for j in range(8)}}
    return _cut(_encode(dpcvx.PublicSchema(parts, norm=1.0), columns), kwh, (0.0, 20000.0), seed)


def grades(seed: int) -> Split:
    """A course table (session 70, after probe P2's findings 2 and 4): 25 Likert answers on [1, 5] driven by one
    latent trait, a 40-level school one-hot, two constant columns and two exact copies of answers (d 69); the label a
    grade 82 + 9 trait + school + noise clipped onto the public [0, 100] (a pile at 100). 5,625 rows, so that the
    80 % training split holds P2's 4,500. One table, split by seed."""
    rng = np.random.default_rng(71)
    n = 5625
    school, trait = rng.integers(0, 40, n), rng.normal(0, 1, n)
    answers = np.clip(np.round(3 + 0.8 * trait[:, None] * rng.uniform(0.2, 1, 25) + rng.normal(0, 1, (n, 25))), 1, 5)
    grade = np.clip(82 + 9 * trait + rng.normal(0, 6, 40)[school] + rng.normal(0, 7, n), 0, 100).round(1)
    schools = tuple(f"S{s:02d}" for s in range(40))
    parts = (tuple(dpcvx.NumericColumn(f"q{j:02d}", 1, 5) for j in range(25))
             + (dpcvx.CategoricalColumn("school", schools), dpcvx.NumericColumn("constant_a", 0, 5),
                dpcvx.NumericColumn("constant_b", 1, 5), dpcvx.NumericColumn("copy_q00", 1, 5),
                dpcvx.NumericColumn("copy_q01", 1, 5)))
    columns = {**{f"q{j:02d}": answers[:, j] for j in range(25)}, "school": np.array(schools)[school],
               "constant_a": np.ones(n), "constant_b": np.full(n, 3.0), "copy_q00": answers[:, 0],
               "copy_q01": answers[:, 1]}
    return _cut(_encode(dpcvx.PublicSchema(parts, norm=1.0), columns), grade, (0.0, 100.0), seed)


def scales(seed: int, wide: bool = False) -> Split:
    rng = np.random.default_rng(500 + seed)
    n = 15000
    public = ((0, 1e6, 1e3, 200), (0, 100, 50, 20), (-1e4, 1e4, 0, 50), (0, 1e5, 2e4, 3e3), (0, 10, 5, 2))
    columns: dict = {}
    parts: list = []
    y = 3000 + rng.normal(0, 100, n)
    for j, (low, high, centre, spread) in enumerate(public):
        values = np.clip(rng.normal(centre, spread, n), low, high)
        y += rng.normal(0, 150) * (values - centre) / spread
        columns[f"s{j}"] = values
        parts.append(dpcvx.NumericColumn(f"s{j}", low, high))
    if wide:
        names = tuple(f"k{i:03d}" for i in range(300))
        level = rng.integers(0, 300, n)
        y += rng.normal(0, 100, 300)[level]
        columns["k"] = np.array(names)[level]
        parts.append(dpcvx.CategoricalColumn("k", names))
    X = _encode(dpcvx.PublicSchema(tuple(parts), norm=1.0), columns)
    return _cut(X, np.clip(y, 0, 1e5), (0.0, 1e5), seed)


def real(name: str) -> Callable[[int], Split]:
    def make(seed: int) -> Split:
        table = load(name)
        order = common.generator(0, seed).permutation(table.X.shape[0])  # real_tables' splits
        cut = int(round(0.75 * order.size))
        train, test = order[:cut], order[cut:]
        return table.X[train], table.y[train], table.label_range, table.X[test], table.y[test]
    return make


def wide(make: Callable[..., descent_advice.Table], *size: int) -> Callable[[int], Split]:
    def split(seed: int) -> Split:
        _, X, y, label, Xt, yt, _ = make(*size, seed)
        return X, y, label, Xt, yt
    return split


FAMILIES: dict[str, Callable[[int], Split]] = {
    "houses": houses, "houses_numeric": lambda seed: houses(seed, zip_code=False),
    "claims": claims, "claims_numeric": lambda seed: claims(seed, categorical=False),
    **{name: real(name) for name in ("prices", "rents", "energy", "trips", "sensors")},
    "onehot200": wide(descent_advice.onehot, 200, 8000), "twocat150+60": wide(descent_advice.twocat, 12000),
    "uniform300": wide(descent_advice.uniform300, 12000), "pareto250": wide(descent_advice.pareto250, 12000),
    "needle200": wide(descent_advice.needle, 8000),
    "scales": scales, "scales_wide": lambda seed: scales(seed, wide=True),
    "electricity": electricity, "grades": grades,
}
#: the families DPLinearRegression's default is measured on against its column_statistics=False (:func:`run_linear`)
LINEAR = ("houses", "claims", "electricity", "grades")


def _r2(y: np.ndarray, p: np.ndarray) -> float:
    return float(1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))


def run(seeds: int, epsilons: tuple[float, ...]) -> list[dict]:
    cells = []
    for name, make in FAMILIES.items():
        for seed in range(seeds):
            X, y, label, Xt, yt = make(seed)
            for epsilon in epsilons:
                cell = {"table": name, "seed": seed, "epsilon": epsilon, "n": X.shape[0], "d": X.shape[1]}
                for setting in SETTINGS:
                    estimator = dpcvx.DPHuberRegressor(epsilon=epsilon, label_bound=label,
                                                       column_statistics=setting, random_state=seed)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        estimator.fit(X, y)
                    cell[f"r2_{setting}"] = _r2(yt, estimator.predict(Xt))
                    cell[f"noise_{setting}"] = any(w.category is NoiseDominatesWarning for w in caught)
                cells.append(cell)
        print(f"[huber_auto_rule] {name}: done", flush=True)
    return cells


def _spread(values: list[float]) -> str:
    return f"{np.mean(values):.3f} ({min(values):.3f}..{max(values):.3f})"


def render(cells: list[dict], seeds: int, linear: list[dict]) -> str:
    lines = ["# DPHuberRegressor: column_statistics=False against \"ranges\" (what \"auto\" draws here)", "",
             "Written by `python -m benchmarks.huber_auto_rule` (families: the module docstring). Test R^2, mean "
             f"(least..most) over {seeds} seed(s); n the training rows, d the encoded width; \"locate\": whether the "
             "features' histograms can keep a cell (their threshold T at most n) at this n, d and epsilon "
             "(dpcvx.models.column_statistics.regression_ranges_locate, public n, d and epsilon only: where it "
             "fails, the fit's warning names column_statistics=False); \"noise\": NoiseDominatesWarning on the "
             "ranges' fit (share of seeds; the advice on the ranges counted in).", "",
             "| table | n | d | epsilon | n eps / d | R^2 off | R^2 ranges | ranges - off | locate | noise |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({(c["table"], c["epsilon"]) for c in cells}, key=lambda k: (list(FAMILIES).index(k[0]), k[1]))
    counts = {(keep, kind): 0 for keep in (True, False) for kind in ("better", "worse", "same")}
    for table, epsilon in keys:
        group = [c for c in cells if c["table"] == table and c["epsilon"] == epsilon]
        off, ranges = [c["r2_False"] for c in group], [c["r2_ranges"] for c in group]
        n, d = group[0]["n"], group[0]["d"]
        keep = regression_ranges_locate(n, d, epsilon)
        delta = float(np.mean(ranges) - np.mean(off))
        counts[keep, "better" if delta > 0.02 else "worse" if delta < -0.02 else "same"] += 1
        noise = np.mean([c["noise_ranges"] for c in group])
        lines.append(f"| {table} | {n:,} | {d} | {epsilon:g} | {n * epsilon / d:.0f} | {_spread(off)} | "
                     f"{_spread(ranges)} | {delta:+.3f} | {'yes' if keep else 'no'} | {noise:.0%} |")
    for keep, where in ((True, "can keep a cell"), (False, "can keep none")):
        lines += ["", f"Cells (table, epsilon) whose histograms {where}: \"ranges\" better than off by more than "
                  f"0.02 of R^2 in {counts[keep, 'better']}, worse in {counts[keep, 'worse']}, within 0.02 in "
                  f"{counts[keep, 'same']}."]
    if linear:
        lines += ["", "## DPLinearRegression on the houses, claims, electricity and grades tables", "",
                  "Its defaults (column_statistics=\"auto\": the private ranges of the columns and of the label, "
                  "then the descent) against column_statistics=False (AdaSSP). Test R^2, mean (least..most).", "",
                  "| table | epsilon | R^2 default | R^2 column_statistics=False |", "|---|---|---|---|"]
        for table, epsilon in sorted({(c["table"], c["epsilon"]) for c in linear},
                                     key=lambda k: (list(FAMILIES).index(k[0]), k[1])):
            group = [c for c in linear if c["table"] == table and c["epsilon"] == epsilon]
            lines.append(f"| {table} | {epsilon:g} | {_spread([c['r2_auto'] for c in group])} | "
                         f"{_spread([c['r2_False'] for c in group])} |")
    return "\n".join(lines) + "\n"


def run_linear(seeds: int, epsilons: tuple[float, ...]) -> list[dict]:
    """DPLinearRegression's default and column_statistics=False on the LINEAR families."""
    cells = []
    for name in LINEAR:
        for seed in range(seeds):
            X, y, label, Xt, yt = FAMILIES[name](seed)
            for epsilon in epsilons:
                cell = {"table": name, "seed": seed, "epsilon": epsilon}
                for setting in ("auto", False):
                    estimator = dpcvx.DPLinearRegression(epsilon=epsilon, label_bound=label,
                                                         column_statistics=setting, random_state=seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # the fits' notes: measured here, not read
                        estimator.fit(X, y)
                    cell[f"r2_{setting}"] = _r2(yt, estimator.predict(Xt))
                cells.append(cell)
        print(f"[huber_auto_rule] DPLinearRegression {name}: done", flush=True)
    return cells


def main() -> None:
    record = common.RunRecord("benchmarks.huber_auto_rule")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1 seed, epsilon 1 only")
    parser.add_argument("--render", action="store_true", help="rewrite the Markdown from the saved cells, no fits")
    options = parser.parse_args()
    seeds, epsilons = (1, (1.0,)) if options.quick else (3, (1.0, 3.0))
    name = "huber_auto_rule_quick" if options.quick else "huber_auto_rule"
    if options.render:
        saved = json.loads((RESULTS / f"{name}.json").read_text())
        cells, linear = saved["cells"], saved["linear"]
    else:
        cells = run(seeds, epsilons)
        linear = run_linear(seeds, epsilons + ((10.0,) if not options.quick else ()))
        common.write_json(RESULTS / f"{name}.json", {"cells": cells, "linear": linear})
    common.write_markdown(RESULTS / f"{name}.md", render(cells, seeds, linear), record)


if __name__ == "__main__":
    main()
