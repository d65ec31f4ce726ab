"""SlowDescentWarning (dpcvx.models.descent_reach) on wide one-hot tables: where it runs and what it advises.

A prober (session 56) found the warning's fixed advice, DPHuberRegressor, measured only on 0/1 flag tables of 18 to
30 columns (benchmarks/descent_reach.py), drop test R^2 from 0.52-0.63 to 0.12-0.14 on a 400-level categorical (Zipf
shares) plus one numeric column at n 40,000, epsilon 4, and the advised release was silent; and on the same table at
n 8,000 the located ranges at epsilon 4 fitted worse than the public map at epsilon 2, with nothing said, since the
check ran only on descents with momentum (n epsilon / d >= 200).

Each cell fits DPLinearRegression() at its defaults with the check run at every n epsilon / d
(``descent_reach.measured_from(0)``: the warning is recorded with n epsilon / d, and each gate below is read off the
record), and beside it, at the same epsilon and bounds, DPHuberRegressor() (the current advice),
DPLinearRegression(mechanism="adassp") and DPLinearRegression(column_statistics=False); ridge on the encoded columns
(NOT private) is the reference. Test R^2 on the held-back quarter.

Candidate rules, written before the development run (all read public quantities only: n, epsilon, the width d):

* the advice, on the cells where the check fires: A0 DPHuberRegressor always (the current rule); A1(D) Huber where
  d <= D, D in {50, 100, 200}, and no estimator above; A2(K) Huber where n epsilon / d >= K, K in {500, 1000}.
  The chosen rule: among those under which the advised Huber fit is worse than the default by more than 0.02 of R^2
  in no development cell where the check fires (at the gate chosen below), the one that advises Huber in the most
  cells where it does better; ties by the larger mean gain. Where no Huber is advised, AdaSSP
  (mechanism="adassp" or column_statistics=False) is named only if it is better than the default in every such cell;
  else the warning says no setting is known to do better.
* the gate, the least n epsilon / d at which the check runs: G in {200 (the current), 100, 50, 0}. A firing is
  honest when the default's test R^2 is at least 0.15 below ridge's (descent_reach.py's standard for "fits worse than
  these rows allow"). The chosen gate: the lowest with no dishonest firing in the development cells.

Amended after the development run, before the held-out one (benchmarks/results/descent_advice_dev.md): no gate,
the current 200 included, had no dishonest firing (200 and 100: 2, both 0.14 below ridge; 50 and 0: 3), so the written
criterion chose none. The gate taken is the lowest that fires dishonestly no more often than the current one: 100.
The advice rule at that gate, by the written criterion: Huber where d <= 50 (11 cells, better in 11, worse in none;
d <= 100 is worse in one, by 0.31). AdaSSP and the public map are each worse than the default in some warned cell
above it, so the warning names no setting there.

Families (written before the development run; the held-out one before the development run was read):

* development: one-hot blocks of 50, 100, 200 and 400 levels (Zipf shares 1 / rank, level effects N(0, 10^2)) and one
  numeric column U(0, 100), y = 50 + effect + 0.1 (a - 50) + N(0, 5^2) clipped onto the declared (0, 100), n in
  {8,000, 40,000}; a needle (one signal column among 200 U(0, 1) noise columns, declared (0, 1), y = 50 + 30 (x0 - 0.5)
  + N(0, 4^2), declared (0, 100)), n in {8,000, 40,000}; descent_reach.py's development flag tables (p in {0.05, 0.1,
  0.2, 0.3} and mixed, n in {5,000, 10,000}) and 100 flags at p 0.1 (n 20,000); epsilon 1, 2, 4; data seed 0, noise
  seed 0.
* held-out: two categoricals of 150 and 60 levels (geometric shares 0.97^k and 0.93^k, the level order shuffled) and 3
  numeric columns U(0, 10); a 300-level categorical with uniform shares and 2 flags at p 0.2; a 250-level categorical
  with shares 1 / rank^1.5 and 5 N(0, 1) columns declared (-4, 4); 3 signal columns among 150 N(0, 1) ones declared
  (-4, 4); each at n 12,000 and 30,000, epsilon 1.5, 3, 6, data seeds 1001+; descent_reach.py's held-out flag, unit
  and mixed tables (epsilon 0.7, 1.5, 3); regression_family.py's six tables (draw 0; epsilon 0.3, 1, 3).

Run: python -m benchmarks.descent_advice [dev|held]   (results/descent_advice_{dev,held}.md)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

import dpcvx
import dpcvx.models.descent_reach as descent_reach
from benchmarks import regression_family
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown
from benchmarks.descent_reach import dev_tables as flag_dev_tables
from benchmarks.descent_reach import encoded
from benchmarks.descent_reach import held_tables as flag_held_tables
from dpcvx.exceptions import NoiseDominatesWarning, SlowDescentWarning

HONEST = 0.15  # a firing is honest where the default's test R^2 is at least this far below ridge's
WORSE = 0.02  # the advice is worse where its R^2 is this far below the default's
GATES = (200.0, 100.0, 50.0, 0.0)
def _widths(most: int) -> Any:
    return lambda n, eps, d: d <= most


def _ratios(least: int) -> Any:
    return lambda n, eps, d: n * eps >= least * d


RULES: tuple[tuple[str, Any], ...] = (
    ("A0 Huber always", lambda n, eps, d: True),
    *((f"A1 Huber where d <= {most}", _widths(most)) for most in (50, 100, 200)),
    *((f"A2 Huber where n eps / d >= {least}", _ratios(least)) for least in (500, 1000)),
)

Table = tuple[str, np.ndarray, np.ndarray, tuple[float, float], np.ndarray, np.ndarray, float]


def r2(y: np.ndarray, p: np.ndarray) -> float:
    return float(1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))


def ridge(X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray) -> float:
    """Ridge (lam 1) on the standardised encoded columns, NOT private."""
    mu, sd = X.mean(0), X.std(0) + 1e-12
    Z, Zt = np.c_[(X - mu) / sd, np.ones(len(X))], np.c_[(Xt - mu) / sd, np.ones(len(Xt))]
    w = np.linalg.solve(Z.T @ Z + np.diag([1.0] * X.shape[1] + [0.0]), Z.T @ y)
    return r2(yt, Zt @ w)


def _split(name: str, schema: dpcvx.PublicSchema, columns: dict, y: np.ndarray,
           label: tuple[float, float]) -> Table:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X = schema.transform(columns)
    cut = int(0.75 * len(y))
    return name, X[:cut], y[:cut], label, X[cut:], y[cut:], ridge(X[:cut], y[:cut], X[cut:], y[cut:])


def _levels(name: str, count: int) -> tuple[str, ...]:
    return tuple(f"{name}{i:03d}" for i in range(count))


def onehot(levels: int, n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    share = 1 / np.arange(1, levels + 1)
    level = rng.choice(levels, n, p=share / share.sum())
    a = rng.uniform(0, 100, n)
    y = np.clip(50 + rng.normal(0, 10, levels)[level] + 0.1 * (a - 50) + rng.normal(0, 5, n), 0, 100)
    names = _levels("L", levels)
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("code", names), dpcvx.NumericColumn("a", 0, 100)))
    return _split(f"onehot{levels} n={n}", schema, {"code": np.array(names)[level], "a": a}, y, (0, 100))


def needle(n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 1, (n, 201))
    y = 50 + 30 * (X[:, 0] - 0.5) + rng.normal(0, 4, n)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{i}", 0, 1) for i in range(201)))
    return _split(f"needle200 n={n}", schema, {f"x{i}": X[:, i] for i in range(201)}, y, (0, 100))


def _flags(tables: Iterator[tuple]) -> Iterator[Table]:
    for name, X, bounds, y, label, encoding in tables:
        Z = encoded(X, bounds, encoding)
        yield (name, Z[:-2000], y[:-2000], label, Z[-2000:], y[-2000:],
               ridge(X[:-2000], y[:-2000], X[-2000:], y[-2000:]))


def flags100(seed: int) -> Table:
    rng = np.random.default_rng(seed)
    n = 20000
    B = (rng.random((n, 100)) < 0.1).astype(float)
    y = 100 + B @ rng.uniform(0, 200, 100) + rng.normal(0, 40, n)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"c{j}", 0, 1) for j in range(100)), norm=1.0)
    return _split("flags100 p=0.1 n=20000", schema, {f"c{j}": B[:, j] for j in range(100)}, y, (0, 30000))


def twocat(n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    columns: dict = {}
    y = 200 + rng.normal(0, 8, n)
    parts: list = []
    for name, count, ratio in (("u", 150, 0.97), ("v", 60, 0.93)):
        share = ratio ** np.arange(count)
        order = rng.permutation(count)
        level = order[rng.choice(count, n, p=share / share.sum())]
        y += rng.normal(0, 15, count)[level]
        names = _levels(name, count)
        columns[name] = np.array(names)[level]
        parts.append(dpcvx.CategoricalColumn(name, names))
    U = rng.uniform(0, 10, (n, 3))
    y += U @ rng.normal(0, 3, 3)
    for j in range(3):
        columns[f"z{j}"] = U[:, j]
        parts.append(dpcvx.NumericColumn(f"z{j}", 0, 10))
    return _split(f"twocat150+60 n={n}", dpcvx.PublicSchema(tuple(parts)), columns, np.clip(y, 0, 400), (0, 400))


def uniform300(n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    level = rng.integers(0, 300, n)
    F = (rng.random((n, 2)) < 0.2).astype(float)
    y = rng.normal(0, 5, 300)[level] + F @ np.array([6.0, -4.0]) + rng.normal(0, 4, n)
    names = _levels("k", 300)
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("k", names), dpcvx.NumericColumn("f0", 0, 1),
                                 dpcvx.NumericColumn("f1", 0, 1)))
    return _split(f"uniform300 n={n}", schema, {"k": np.array(names)[level], "f0": F[:, 0], "f1": F[:, 1]},
                  np.clip(y, -50, 50), (-50, 50))


def pareto250(n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    share = 1 / np.arange(1, 251) ** 1.5
    level = rng.choice(250, n, p=share / share.sum())
    G = np.clip(rng.normal(0, 1, (n, 5)), -4, 4)
    y = 1000 + rng.normal(0, 40, 250)[level] + G @ rng.normal(0, 20, 5) + rng.normal(0, 20, n)
    names = _levels("p", 250)
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("p", names),
                                 *(dpcvx.NumericColumn(f"g{j}", -4, 4) for j in range(5))))
    columns = {"p": np.array(names)[level], **{f"g{j}": G[:, j] for j in range(5)}}
    return _split(f"pareto250 n={n}", schema, columns, np.clip(y, 0, 2000), (0, 2000))


def needle3(n: int, seed: int) -> Table:
    rng = np.random.default_rng(seed)
    X = np.clip(rng.normal(0, 1, (n, 150)), -4, 4)
    y = 10 + X[:, :3] @ np.array([3.0, -2.0, 1.5]) + rng.normal(0, 2, n)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"x{i}", -4, 4) for i in range(150)))
    return _split(f"needle3of150 n={n}", schema, {f"x{i}": X[:, i] for i in range(150)}, np.clip(y, -20, 40),
                  (-20, 40))


def family(which: str) -> Iterator[tuple[Table, tuple[float, ...]]]:
    if which == "dev":
        for levels in (50, 100, 200, 400):
            for n in (8000, 40000):
                yield onehot(levels, n, 0), (1, 2, 4)
        for n in (8000, 40000):
            yield needle(n, 0), (1, 2, 4)
        for table in _flags(flag_dev_tables()):
            yield table, (1, 2, 4)
        yield flags100(0), (1, 2, 4)
        return
    for seed, n in ((1001, 12000), (1002, 30000)):
        for make in (twocat, uniform300, pareto250, needle3):
            yield make(n, seed), (1.5, 3, 6)
    for table in _flags(flag_held_tables()):
        yield table, (0.7, 1.5, 3)
    for name in regression_family.NAMES:
        data, train, test, _, high = regression_family.draw(name, 0)
        assert data.label_range is not None
        yield ((f"{name} (regression_family)", data.X[train], data.y[train], data.label_range, data.X[test],
                data.y[test], high), (0.3, 1, 3))


def _fit(estimator: Any, X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray) -> tuple[float, set[type]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return r2(yt, estimator.predict(Xt)), {w.category for w in caught}


def run(which: str) -> list[dict]:
    with descent_reach.measured_from(0.0):  # the check at every n epsilon / d; each gate is read off the record
        return _cells(which)


def _cells(which: str) -> list[dict]:
    cells = []
    for (name, X, y, label, Xt, yt, reference), epsilons in family(which):
        for eps in epsilons:
            common = {"epsilon": eps, "label_bound": label, "random_state": 0}
            default, said = _fit(dpcvx.DPLinearRegression(**common), X, y, Xt, yt)
            cell = {"table": name, "n": len(y), "d": X.shape[1], "epsilon": eps, "ridge": reference,
                    "default": default, "fired": SlowDescentWarning in said,
                    "noise": NoiseDominatesWarning in said,
                    "others": bool({w for w in said if w.__module__.startswith("dpcvx")} - {SlowDescentWarning}),
                    "huber": _fit(dpcvx.DPHuberRegressor(**common), X, y, Xt, yt)[0],
                    "adassp": _fit(dpcvx.DPLinearRegression(mechanism="adassp", **common), X, y, Xt, yt)[0],
                    "public map": _fit(dpcvx.DPLinearRegression(column_statistics=False, **common), X, y, Xt, yt)[0]}
            cell["ratio"] = cell["n"] * eps / cell["d"]
            cells.append(cell)
            print(_row(cell), flush=True)
    return cells


def _row(c: dict) -> str:
    return (f"| {c['table']} | {c['d']} | {c['epsilon']:g} | {c['ratio']:.0f} | {c['ridge']:.3f} | {c['default']:.3f} "
            f"| {'yes' if c['fired'] else ''} | {'yes' if c['noise'] else ''} | {c['huber']:.3f} | {c['adassp']:.3f} "
            f"| {c['public map']:.3f} |")


def _spread(values: list[float]) -> str:
    if not values:
        return "none"
    return f"median {np.median(values):+.3f}, worst {min(values):+.3f}"


def summary(cells: list[dict]) -> list[str]:
    lines = ["## The gate (where the check runs)", "",
             "| gate n eps / d >= | fires | honest (default >= 0.15 below ridge) | dishonest | weak (default < half "
             "of ridge) and silent otherwise, told by it |", "|---|---|---|---|---|"]
    for gate in GATES:
        fired = [c for c in cells if c["fired"] and c["ratio"] >= gate]
        honest = sum(c["default"] <= c["ridge"] - HONEST for c in fired)
        weak = [c for c in cells if c["default"] < 0.5 * c["ridge"] and not c["others"]]
        told = sum(c["fired"] and c["ratio"] >= gate for c in weak)
        lines.append(f"| {gate:g} | {len(fired)} | {honest} | {len(fired) - honest} | {told} of {len(weak)} |")
    lines += ["", "## The advice (DPHuberRegressor) where the check fires, by rule and gate", "",
              "Huber - default in test R^2 over the cells where the rule advises Huber; 'other' the cells where it "
              "fires and advises none, with AdaSSP's and the public map's R^2 less the default's.", "",
              "| gate | rule | Huber advised in | better | worse by > 0.02 | Huber - default | other cells | "
              "adassp - default there | public map - default there |", "|---|---|---|---|---|---|---|---|---|"]
    for gate in GATES:
        fired = [c for c in cells if c["fired"] and c["ratio"] >= gate]
        for label, rule in RULES:
            advised = [c for c in fired if rule(c["n"], c["epsilon"], c["d"])]
            other = [c for c in fired if not rule(c["n"], c["epsilon"], c["d"])]
            gain = [c["huber"] - c["default"] for c in advised]
            lines.append(
                f"| {gate:g} | {label} | {len(advised)} | {sum(g > 0 for g in gain)} | {sum(g < -WORSE for g in gain)} "
                f"| {_spread(gain)} | {len(other)} | {_spread([c['adassp'] - c['default'] for c in other])} | "
                f"{_spread([c['public map'] - c['default'] for c in other])} |")
    return lines


def main(which: str) -> None:
    record = RunRecord("benchmarks.descent_advice")
    cells = run(which)
    title = "development" if which == "dev" else "held-out"
    text = "\n".join([
        f"# SlowDescentWarning's gate and advice: the {title} family", "",
        f"Written by `python -m benchmarks.descent_advice {which}` (the families and candidate rules: the script's "
        "docstring). Test R^2; 'fired' is SlowDescentWarning with the check run at every n epsilon / d; 'noise' "
        "NoiseDominatesWarning; n the training rows, d the encoded width.", "", *summary(cells), "",
        "## Cells", "",
        "| table | d | epsilon | n eps / d | ridge | default | fired | noise | DPHuberRegressor | adassp | "
        "public map |", "|---|---|---|---|---|---|---|---|---|---|---|", *(_row(c) for c in cells)])
    print(write_markdown(RESULTS_DIR / f"descent_advice_{which}.md", text, record))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dev")
