"""A regression's R^2 <= 0 note when a few training labels lie far outside the rest (NOT PRIVATE).

An analyst probe (session 60, probeB finding 6): labels 50 +- 15 on 6 Gaussian columns, 0.5 % of the training labels
replaced by data-entry errors at 5000 and 9999, label_bound (0, 10000). DPLinearRegression() kept R^2 0.85 on clean
held-out rows (least squares on the clean rows 0.90; on all rows -5.6, scikit-learn's Huber 0.90: the private label
range had clipped the errors), and the TrainingRowsWarning said only that the release's squared error was no lower
than a constant's (R^2 <= 0), on the labels as given and clipped onto (0, 10000) alike: the errors dominate both sums.
label_range_too_wide did not fire: it is read only where the fit's noise was scaled to the declared range, and the
default located a private label range; CODE_LABELS did not: its code is one repeated value at an end of the labels,
lying beyond the rest by at least their spread, and 9999 lies 4999 beyond a rest (5000 included) spread over 5000.

The check (dpcvx.models.training_rows.far_labels, regression_finding): where the finding is R^2 <= 0
(NO_BETTER_REGRESSION, not CODE_LABELS), the fence (q1 - r w, q99 + r w), w = q99 - q1 the width between the training
labels' 1 % and 99 % points; where some label lies beyond it and the release's R^2 on the rows within it is above 0,
the finding is FAR_LABELS (the labels, not the release, are what the comparison saw) in place of
NO_BETTER_REGRESSION. Candidates, written before the development run: r in {0.5, 1, 2, 4}.

Amended after the first development run, before the held-out one (its record kept as
results/outlying_labels_dev_unamended.md): no candidate passed. Each fired on the fits of the label with no relation
to the columns at epsilon 8 (7 wrong firings, test R^2 -0.002 to 0.000: a release near the labels' centre whose R^2
on the rows within the fence was a hair above 0, the columns' chance fit), and none fired where 1 % of the labels
were errors (their 99 % point among the errors themselves: 12 R^2 <= 0 fits of test R^2 0.83 to 0.86 left). The
candidates are now (r, t, f): the fence from the labels' t and 1 - t points, t in {0.01, 0.025}, and the release's
R^2 on the rows within it above f, f in {0, 0.05, 0.1} (0 is the first run's, CODE_LABELS' "better than their
mean"); the criterion is unchanged, ties by the larger f, then the larger r, then the smaller t.

A firing is right where the fit's test R^2 on the held-out rows (which carry no planted error; on the tables with a
genuine tail they are drawn as the training rows are) is above 0: the release does better than a constant on new
rows, and the old text's "no better than a constant" misled; wrong where it is at most 0 (the old alarm was right and
the new text would blame the labels). Chosen: among the candidates with no wrong firing on the development family,
the one with the most right firings; ties by the larger r. Held-out check: no wrong firing there; else it is not
shipped (training_rows.FAR_REACH = 0) and the records say so. Also recorded: the R^2 <= 0 fits whose test R^2 is at
least 0.5 that no candidate redirects.

Each cell fits, at the same epsilon and bounds: DPLinearRegression() ("default"), DPHuberRegressor() ("huber"),
DPLinearRegression(mechanism="adassp") ("adassp") and DPLinearRegression(column_statistics=False) ("public map": its
noise scaled to the declared range, where a wide range makes it useless and the alarm right). Epsilon 1 and 8.
Training rows 10,000, held-out rows 2,500.

Families (written before the development run):

* development, data seeds 4401 to 4403: the analyst's table with 0.2 %, 0.5 % and 1 % of the training labels at
  5000 or 9999, declared (0, 10000); the same with 0.5 % of the labels in another unit (times 100); a label with no
  relation to the columns (50 + N(0, 15)) with 0.5 % at 5000 or 9999 (nothing to learn: the alarm is right); a
  genuine lognormal tail, y = exp(3 + 0.3 z0 + N(0, 1.2)), declared (0, 1e5), no planted error.
* held-out, data seeds 4501 to 4503: 8 Gaussian columns, y = 200 + Z beta + N(0, 20) (R^2 about 0.9), 0.3 % and 0.8 %
  of the training labels uniform on (2e4, 1e5), declared (0, 1e5); the same with 0.5 % of the labels times 1000,
  declared (0, 1e6); a label with no relation to the columns (200 + N(0, 40)) with 0.5 % uniform on (2e4, 1e5); a
  genuine Pareto tail, y = 10 (1 + Pareto(1.5)) + 5 z0, declared (0, 1e6), no planted error.

Run: python -m benchmarks.outlying_labels [dev|held]   (results/outlying_labels_{dev,held}.md)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import dpcvx
import dpcvx.models.training_rows as training_rows
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown
from benchmarks.descent_advice import r2

REACHES = (0.5, 1.0, 2.0, 4.0)
TAILS = (0.01, 0.025)
FLOORS = (0.0, 0.05, 0.1)
CANDIDATES = tuple((reach, tail, floor) for reach in REACHES for tail in TAILS for floor in FLOORS)
USEFUL = 0.5  # an R^2 <= 0 fit whose test R^2 is at least this, recorded where no candidate redirects it
TRAIN, TEST = 10_000, 2_500

CONFIGS: dict[str, Callable[..., Any]] = {
    "default": lambda **common: dpcvx.DPLinearRegression(**common),
    "huber": lambda **common: dpcvx.DPHuberRegressor(**common),
    "adassp": lambda **common: dpcvx.DPLinearRegression(mechanism="adassp", **common),
    "public map": lambda **common: dpcvx.DPLinearRegression(column_statistics=False, **common),
}

Table = tuple[str, np.ndarray, np.ndarray, tuple[float, float], np.ndarray, np.ndarray]


def _encode(Z: np.ndarray) -> np.ndarray:
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"z{j}", -5, 5) for j in range(Z.shape[1])), norm=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return schema.transform({f"z{j}": Z[:, j] for j in range(Z.shape[1])})


def _table(name: str, Z: np.ndarray, y: np.ndarray,
           bad: Callable[[np.random.Generator, np.ndarray], np.ndarray] | None,
           share: float, label: tuple[float, float], rng: np.random.Generator) -> Table:
    """The first TRAIN rows train, with a ``share`` of their labels replaced by ``bad(rng, labels)``; the rest test."""
    y = y.copy()
    if bad is not None:
        hit = np.flatnonzero(rng.random(TRAIN) < share)
        y[hit] = bad(rng, y[hit])
    X = _encode(Z)
    return name, X[:TRAIN], y[:TRAIN], label, X[TRAIN:], y[TRAIN:]


def _entry(rng: np.random.Generator, labels: np.ndarray) -> np.ndarray:
    return rng.choice([5000.0, 9999.0], labels.size)


def _wide(rng: np.random.Generator, labels: np.ndarray) -> np.ndarray:
    return rng.uniform(2e4, 1e5, labels.size)


def dev(seed: int) -> Iterator[Table]:
    n = TRAIN + TEST
    for share in (0.002, 0.005, 0.01):
        rng = np.random.default_rng(seed)
        Z = rng.normal(size=(n, 6))
        y = 50 + Z @ np.array([10, -8, 6, 4, 0, 0.0]) + rng.normal(0, 5, n)
        yield _table(f"entry errors {share:.1%} s={seed}", Z, y, _entry, share, (0, 10_000), rng)
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 6))
    y = 50 + Z @ np.array([10, -8, 6, 4, 0, 0.0]) + rng.normal(0, 5, n)
    yield _table(f"unit x100 0.5% s={seed}", Z, y, lambda rng, labels: 100 * labels, 0.005, (0, 10_000), rng)
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 6))
    yield _table(f"no relation 0.5% s={seed}", Z, 50 + rng.normal(0, 15, n), _entry, 0.005, (0, 10_000), rng)
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 6))
    yield _table(f"lognormal tail s={seed}", Z, np.exp(3 + 0.3 * Z[:, 0] + rng.normal(0, 1.2, n)), None, 0,
                 (0, 1e5), rng)


def held(seed: int) -> Iterator[Table]:
    n = TRAIN + TEST

    def base(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        Z = rng.normal(size=(n, 8))
        beta = rng.normal(size=8)
        return Z, 200 + Z @ (60 * beta / np.linalg.norm(beta)) + rng.normal(0, 20, n)

    for share in (0.003, 0.008):
        rng = np.random.default_rng(seed)
        Z, y = base(rng)
        yield _table(f"wide errors {share:.1%} s={seed}", Z, y, _wide, share, (0, 1e5), rng)
    rng = np.random.default_rng(seed)
    Z, y = base(rng)
    yield _table(f"unit x1000 0.5% s={seed}", Z, y, lambda rng, labels: 1000 * labels, 0.005, (0, 1e6), rng)
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 8))
    yield _table(f"no relation 0.5% s={seed}", Z, 200 + rng.normal(0, 40, n), _wide, 0.005, (0, 1e5), rng)
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 8))
    yield _table(f"Pareto tail s={seed}", Z, 10 * (1 + rng.pareto(1.5, n)) + 5 * Z[:, 0], None, 0, (0, 1e6), rng)


def family(which: str) -> Iterator[Table]:
    for seed in ((4401, 4402, 4403) if which == "dev" else (4501, 4502, 4503)):
        yield from (dev(seed) if which == "dev" else held(seed))


def _fit(config: str, eps: float, table: Table) -> dict:
    name, X, y, label, Xt, yt = table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = CONFIGS[config](epsilon=eps, label_bound=label, random_state=0).fit(X, y)
    predicted = np.asarray(model.predict(X), dtype=float)

    def finding(far: tuple[float, float, float]) -> str | None:
        return training_rows.regression_finding(lambda rows: predicted[rows], y, len(y), label, far)

    before = finding((0.0, training_rows.FAR_TAIL, 0.0))  # the finding as it was before this check (the parent's)
    fired = {candidate: before == training_rows.NO_BETTER_REGRESSION and finding(candidate) == training_rows.FAR_LABELS
             for candidate in CANDIDATES}
    return {"test": r2(yt, model.predict(Xt)), "before": before, "fired": fired}


def run(which: str) -> list[dict]:
    cells = []
    for table in family(which):
        for eps in (1.0, 8.0):
            cell = {"table": table[0], "epsilon": eps,
                    "fits": {config: _fit(config, eps, table) for config in CONFIGS}}
            cells.append(cell)
            print(_row(cell), flush=True)
    return cells


def _short(finding: str | None) -> str:
    return {None: "-", training_rows.NO_BETTER_REGRESSION: "R2<=0", training_rows.CODE_LABELS: "code"}.get(
        finding, "other")


def _label(candidate: tuple[float, float, float]) -> str:
    return "({:g}, {:g}, {:g})".format(*candidate)


def _row(cell: dict) -> str:
    def show(fit: dict) -> str:
        count = sum(fit["fired"].values())
        shipped = fit["fired"].get((training_rows.FAR_REACH, training_rows.FAR_TAIL, training_rows.FAR_FLOOR))
        firing = f" [{count} of {len(CANDIDATES)}{', the shipped one' if shipped else ''}]" if count else ""
        return f"{fit['test']:.3f} {_short(fit['before'])}{firing}"

    return f"| {cell['table']} | {cell['epsilon']:g} | " + " | ".join(show(cell["fits"][c]) for c in CONFIGS) + " |"


def summary(cells: list[dict]) -> tuple[list[str], tuple[float, float, float] | None]:
    fits = [fit for cell in cells for fit in cell["fits"].values()]
    alarms = [fit for fit in fits if fit["before"] == training_rows.NO_BETTER_REGRESSION]
    lines = ["| (r, t, f) | firings | right (test R^2 > 0) | wrong (test R^2 <= 0) | R^2 <= 0 fits left, test R^2 "
             f">= {USEFUL} |", "|---|---|---|---|---|"]
    clean = []
    for candidate in CANDIDATES:
        fired = [fit for fit in alarms if fit["fired"][candidate]]
        right = sum(fit["test"] > 0 for fit in fired)
        left = sum(fit["test"] >= USEFUL and not fit["fired"][candidate] for fit in alarms)
        lines.append(f"| {_label(candidate)} | {len(fired)} | {right} | {len(fired) - right} | {left} |")
        if fired and right == len(fired):
            reach, tail, floor = candidate
            clean.append(((right, floor, reach, -tail), candidate))
    pick = max(clean)[1] if clean else None
    lines += ["", f"R^2 <= 0 findings (NO_BETTER_REGRESSION before the check) among {len(fits)} fits: {len(alarms)}. "
              f"Chosen by the written criterion on this family: {'none' if pick is None else _label(pick)}."]
    return lines, pick


def main(which: str) -> None:
    record = RunRecord("benchmarks.outlying_labels")
    cells = run(which)
    lines, pick = summary(cells)
    title = "development" if which == "dev" else "held-out"
    shipped = (training_rows.FAR_REACH, training_rows.FAR_TAIL, training_rows.FAR_FLOOR)
    if which == "held":
        ok = shipped in CANDIDATES and not any(fit["fired"][shipped] and fit["test"] <= 0 for cell in cells
                                               for fit in cell["fits"].values())
        lines += ["", f"The frozen candidate {_label(shipped)} (training_rows.FAR_REACH, FAR_TAIL, FAR_FLOOR as "
                  f"committed): the held-out check {'passes' if ok else 'FAILS'} (no wrong firing)."]
    text = "\n".join([
        f"# A regression's R^2 <= 0 note on a few far labels: the {title} family", "",
        f"Written by `python -m benchmarks.outlying_labels {which}` (families, candidates and criterion: the script's "
        "docstring). Per fit: its test R^2 on the held-out rows (no planted error), its training-rows finding before "
        "the check ('R2<=0': NO_BETTER_REGRESSION, 'code': CODE_LABELS, '-': none or another), and in brackets how "
        "many candidates (r, t, f) replace it by FAR_LABELS, and whether the shipped one (training_rows) does.", "",
        "## The candidates", "", *lines, "",
        "## Cells", "",
        "| table | epsilon | " + " | ".join(CONFIGS) + " |", "|---|---|---|---|---|---|",
        *(_row(cell) for cell in cells)])
    print(write_markdown(RESULTS_DIR / f"outlying_labels_{which}.md", text, record))


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(arguments[0] if arguments else "dev")
