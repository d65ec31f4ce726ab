"""The NOT PRIVATE check of noisy gradient descent's reach (dpcvx.models.descent_reach) and its advice, measured.

Families written down before any run (the held-out one before the development run was read):

* development: 0/1 flags at p in {0.05, 0.1, 0.2, 0.3} ones (every column), d = 30, n in {5,000, 10,000},
  y = 100 + B w + N(0, 40^2), w ~ U(0, 200), label_bound (0, 5000); and "mixed": 15 flags at p = 0.1 and 5
  standard normal columns declared (-5, 5), w ~ U(0, 200) on the flags and N(0, 50^2) on the numbers; epsilon in
  {0.5, 1, 2, 4}, data seed 7, noise seeds 0, 1; PublicSchema(norm=1, encoding="centred").
* held-out: d = 25 flags each with its own p ~ U(0.03, 0.35), n = 8,000, w ~ N(80, 60^2), noise N(0, 60^2),
  label_bound (-2000, 8000); "mixed": 10 flags at p ~ U(0.05, 0.25) and 8 columns U(0, 10) declared (0, 10);
  "unit": the flags with encoding="unit"; epsilon in {0.7, 1.5, 3}, data seeds 101, 102, noise seed 5.

For each cell: ridge on the raw columns, DPLinearRegression() at its defaults, whether SlowDescentWarning fired, and
DPHuberRegressor() at the same epsilon and bounds (the warning's advice). Test R^2 on 2,000 held-back rows.
Run: python -m benchmarks.descent_reach [dev|held]
"""

from __future__ import annotations

import sys
import warnings

import numpy as np

import dpcvx
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown
from dpcvx.exceptions import SlowDescentWarning


def r2(y, p):
    return 1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2)


def ridge(X, y, Xt, yt):
    mu, sd = X.mean(0), X.std(0) + 1e-12
    Z, Zt = np.c_[(X - mu) / sd, np.ones(len(X))], np.c_[(Xt - mu) / sd, np.ones(len(Xt))]
    w = np.linalg.solve(Z.T @ Z + np.diag([1.0] * X.shape[1] + [0.0]), Z.T @ y)
    return r2(yt, Zt @ w)


def encoded(X, bounds, encoding):
    """The table's columns by their public bounds and encoding (PublicSchema, norm 1), its clipping notes silenced."""
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"c{j}", lo, hi) for j, (lo, hi) in enumerate(bounds)),
                                norm=1.0, encoding=encoding)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return schema.transform({f"c{j}": X[:, j] for j in range(X.shape[1])})


def dev_tables():
    for n in (5000, 10000):
        for p in (0.05, 0.1, 0.2, 0.3):
            rng = np.random.default_rng(7)
            B = (rng.random((n + 2000, 30)) < p).astype(float)
            y = 100 + B @ rng.uniform(0, 200, 30) + rng.normal(0, 40, n + 2000)
            yield f"flags p={p} n={n}", B, [(0, 1)] * 30, y, (0, 5000), "centred"
        rng = np.random.default_rng(7)
        B = (rng.random((n + 2000, 15)) < 0.1).astype(float)
        G = rng.normal(0, 1, (n + 2000, 5))
        y = 100 + B @ rng.uniform(0, 200, 15) + G @ rng.normal(0, 50, 5) + rng.normal(0, 40, n + 2000)
        yield f"mixed n={n}", np.c_[B, G], [(0, 1)] * 15 + [(-5, 5)] * 5, y, (0, 5000), "centred"


def held_tables():
    n = 8000
    for seed in (101, 102):
        rng = np.random.default_rng(seed)
        p = rng.uniform(0.03, 0.35, 25)
        B = (rng.random((n + 2000, 25)) < p).astype(float)
        y = 500 + B @ rng.normal(80, 60, 25) + rng.normal(0, 60, n + 2000)
        yield f"flags s={seed}", B, [(0, 1)] * 25, y, (-2000, 8000), "centred"
        yield f"unit s={seed}", B, [(0, 1)] * 25, y, (-2000, 8000), "unit"
        p = rng.uniform(0.05, 0.25, 10)
        B = (rng.random((n + 2000, 10)) < p).astype(float)
        U = rng.uniform(0, 10, (n + 2000, 8))
        y = 500 + B @ rng.normal(80, 60, 10) + U @ rng.normal(0, 20, 8) + rng.normal(0, 60, n + 2000)
        yield f"mixed s={seed}", np.c_[B, U], [(0, 1)] * 10 + [(0, 10)] * 8, y, (-2000, 8000), "centred"


def main(which: str) -> None:
    record = RunRecord("benchmarks.descent_reach")
    tables, epsilons, seeds = ((dev_tables(), (0.5, 1, 2, 4), (0, 1)) if which == "dev"
                               else (held_tables(), (0.7, 1.5, 3), (5,)))
    lines = ["| table | epsilon | ridge | default | warned | DPHuberRegressor |", "|---|---|---|---|---|---|"]
    warned: list[tuple[float, float]] = []  # (default, the advice) in the cells that warned
    for name, X, bounds, y, label_bound, encoding in tables:
        Z = encoded(X, bounds, encoding)
        Z, Zt, yy, yt = Z[:-2000], Z[-2000:], y[:-2000], y[-2000:]
        base = ridge(X[:-2000], yy, X[-2000:], yt)
        for eps in epsilons:
            for seed in seeds:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    est = dpcvx.DPLinearRegression(epsilon=eps, label_bound=label_bound, random_state=seed).fit(Z, yy)
                fired = any(issubclass(w.category, SlowDescentWarning) for w in caught)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    hub = dpcvx.DPHuberRegressor(epsilon=eps, label_bound=label_bound, random_state=seed).fit(Z, yy)
                default, advice = r2(yt, est.predict(Zt)), r2(yt, hub.predict(Zt))
                if fired:
                    warned.append((default, advice))
                lines.append(f"| {name} | {eps} | {base:.3f} | {default:.3f} | {'yes' if fired else ''} | "
                             f"{advice:.3f} |")
                print(lines[-1], flush=True)
    cells = len(lines) - 2
    summary = [f"{cells} cells, {len(warned)} warned."]
    if warned:
        before, after = np.array(warned).T
        summary.append(f"In the warned cells, test R^2 of the default: median {np.median(before):.3f}, worst "
                       f"{before.min():.3f}; of the advice (DPHuberRegressor): median {np.median(after):.3f}, worst "
                       f"{after.min():.3f}; the advice worse in {int(np.sum(after < before))}.")
    text = "\n".join([f"# SlowDescentWarning and its advice: the {'development' if which == 'dev' else 'held-out'} "
                      "family", "", f"Written by `python -m benchmarks.descent_reach {which}` (the families: the "
                      "script's docstring).", "", *summary, "", *lines])
    print(write_markdown(RESULTS_DIR / f"descent_reach_{which}.md", text, record))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dev")
