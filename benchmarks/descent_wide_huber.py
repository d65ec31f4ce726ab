"""SlowDescentWarning on wide rows: is DPHuberRegressor(column_statistics=False) a setting known to do better?

A prober (session 62, probeB finding 2) fitted DPLinearRegression() at epsilon 8 on a 250-level Zipf categorical plus 4
numeric columns (d 254, n 5,000, n epsilon / d 157): test R^2 0.769, SlowDescentWarning in 5 of 5 seeds, whose text
for d > 50 (dpcvx.models.descent_reach.HUBER_WIDTH) says "No setting is known to do better on rows of 254 encoded
columns"; DPHuberRegressor(column_statistics=False) at the same epsilon and bounds scored 0.834, better in 5 of 5.
benchmarks/descent_advice.py, which that text cites, measured DPHuberRegressor() (its private column statistics),
AdaSSP and DPLinearRegression(column_statistics=False), never DPHuberRegressor(column_statistics=False).

Each cell fits DPLinearRegression() at its defaults (the production gate: the check runs where n epsilon / d >= 100)
and records whether SlowDescentWarning fired; beside it, at the same epsilon and label bounds,
DPHuberRegressor(column_statistics=False) ("huber_pm"). Test R^2 on the held-back quarter. Only the cells of width
d > 50, where the warning names no estimator, are fitted.

Candidate rules, written before the development run (public quantities only: n, epsilon, d): on the warned cells
with d > 50, the text names DPHuberRegressor(column_statistics=False) where n epsilon / d >= K, K in {100 (every
warned cell), 200, 400}, or nowhere. The chosen K: the least under which, over the development cells where the
warning fires and n epsilon / d >= K, huber_pm is worse than the default by more than 0.02 of R^2 in none and better
in at least one; else nowhere. The held-out check, at the frozen K: no held-out warned cell with n epsilon / d >= K
where huber_pm is worse by more than 0.02, and huber_pm better in at least 80 % of them. If it passes, the text names
the setting with the counts of both runs for n epsilon / d >= K; if it fails (or no K is chosen), the text keeps "no
setting is known to do better in every case" and states huber_pm's counts (better / worse by more than 0.02) on the
warned cells of both runs, split at K where one was chosen.

Families (written before the development run):

* development: descent_advice.py's development tables of d > 50 (one-hot blocks of 50, 100, 200 and 400 Zipf levels
  plus a numeric column, n 8,000 and 40,000; a needle among 200 columns, n 8,000 and 40,000), data seed 0, at epsilon
  1, 2, 4 and 8.
* held-out: descent_advice.py's held-out generators (two categoricals of 150 and 60 levels; a 300-level uniform
  categorical with 2 flags; a 250-level categorical with shares 1 / rank^1.5; 3 signal columns among 150), new data
  seeds 2001 (n 12,000) and 2002 (n 30,000), at epsilon 1.5, 3, 6 and 12.

Noise seed 0 (random_state=0) everywhere.

Run: python -m benchmarks.descent_wide_huber [dev|held]   (results/descent_wide_huber_{dev,held}.md)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from typing import Any

import dpcvx
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown
from benchmarks.descent_advice import Table, needle, needle3, onehot, pareto250, r2, twocat, uniform300
from dpcvx.exceptions import SlowDescentWarning

WIDE = 50  # descent_reach.HUBER_WIDTH: above it the warning names no estimator
WORSE = 0.02
KS = (100.0, 200.0, 400.0)


def family(which: str) -> Iterator[tuple[Table, tuple[float, ...]]]:
    if which == "dev":
        for levels in (50, 100, 200, 400):
            for n in (8000, 40000):
                yield onehot(levels, n, 0), (1, 2, 4, 8)
        for n in (8000, 40000):
            yield needle(n, 0), (1, 2, 4, 8)
        return
    for seed, n in ((2001, 12000), (2002, 30000)):
        for make in (twocat, uniform300, pareto250, needle3):
            yield make(n, seed), (1.5, 3, 6, 12)


def _fit(estimator: Any, X: Any, y: Any, Xt: Any, yt: Any) -> tuple[float, bool]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(X, y)
    return r2(yt, estimator.predict(Xt)), any(w.category is SlowDescentWarning for w in caught)


def run(which: str) -> list[dict]:
    cells = []
    for (name, X, y, label, Xt, yt, reference), epsilons in family(which):
        if X.shape[1] <= WIDE:
            continue
        for eps in epsilons:
            common = {"epsilon": eps, "label_bound": label, "random_state": 0}
            default, fired = _fit(dpcvx.DPLinearRegression(**common), X, y, Xt, yt)
            huber_pm = _fit(dpcvx.DPHuberRegressor(column_statistics=False, **common), X, y, Xt, yt)[0]
            cell = {"table": name, "n": len(y), "d": X.shape[1], "epsilon": eps, "ratio": len(y) * eps / X.shape[1],
                    "ridge": reference, "default": default, "fired": fired, "huber_pm": huber_pm}
            cells.append(cell)
            print(_row(cell), flush=True)
    return cells


def _row(c: dict) -> str:
    return (f"| {c['table']} | {c['d']} | {c['epsilon']:g} | {c['ratio']:.0f} | {c['ridge']:.3f} | {c['default']:.3f} "
            f"| {'yes' if c['fired'] else ''} | {c['huber_pm']:.3f} | {c['huber_pm'] - c['default']:+.3f} |")


def counts(cells: list[dict], least: float, most: float = float("inf")) -> tuple[int, int, int]:
    """(warned cells with least <= n eps / d < most, huber_pm better there, huber_pm worse by more than WORSE)."""
    warned = [c for c in cells if c["fired"] and least <= c["ratio"] < most]
    gains = [c["huber_pm"] - c["default"] for c in warned]
    return len(warned), sum(g > 0 for g in gains), sum(g < -WORSE for g in gains)


def chosen(cells: list[dict]) -> float | None:
    for k in KS:
        warned, better, worse = counts(cells, k)
        if warned and worse == 0 and better >= 1:
            return k
    return None


def summary(cells: list[dict], which: str) -> list[str]:
    lines = ["| n eps / d >= K | warned cells | huber_pm better | huber_pm worse by > 0.02 |", "|---|---|---|---|"]
    for k in KS:
        warned, better, worse = counts(cells, k)
        lines.append(f"| {k:g} | {warned} | {better} | {worse} |")
    below = counts(cells, 0.0, KS[0])
    lines += ["", f"Warned cells with n eps / d below {KS[0]:g} (none expected at the production gate): {below[0]}."]
    if which == "dev":
        k = chosen(cells)
        lines += ["", f"The written criterion chooses K = {k:g}." if k is not None
                  else "The written criterion chooses no K: the text names no estimator."]
    return lines


def main(which: str) -> None:
    record = RunRecord("benchmarks.descent_wide_huber")
    cells = run(which)
    title = "development" if which == "dev" else "held-out"
    text = "\n".join([
        f"# SlowDescentWarning on wide rows, DPHuberRegressor(column_statistics=False): the {title} family", "",
        f"Written by `python -m benchmarks.descent_wide_huber {which}` (the families and the rule: the script's "
        "docstring). Test R^2; 'fired' is SlowDescentWarning on the default at the production gate; huber_pm is "
        "DPHuberRegressor(column_statistics=False) at the same epsilon and bounds; n the training rows, d the "
        "encoded width.", "", *summary(cells, which), "", "## Cells", "",
        "| table | d | epsilon | n eps / d | ridge | default | fired | huber_pm | huber_pm - default |",
        "|---|---|---|---|---|---|---|---|---|", *(_row(c) for c in cells)])
    print(write_markdown(RESULTS_DIR / f"descent_wide_huber_{which}.md", text, record))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dev")
