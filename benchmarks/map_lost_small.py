"""Where DPLinearRegression's MAP_LOST note may name DPHuberRegressor(column_statistics=False): split by the public
product of training rows and epsilon.

An analyst probe (session 64, probeC finding 1) fitted a heavy-tailed claim amount (lognormal, mean about 4,550, max
about 219,000) declared (0, 1e6), 9 encoded columns: DPLinearRegression()'s NOT PRIVATE TrainingRowsWarning (the
MAP_LOST text) named DPHuberRegressor(column_statistics=False) first ("did better in 57 of the 77 fits where this
fired"), and following it did worse in all 16 fits at training n x epsilon <= 6,000 (R^2 down to -1.5), better in 9
of 12 at >= 7,500.

Stage ``split`` (run first; exploration, no rule): benchmarks/map_loss.py's development, held-out and count families,
where the 77 were counted, re-fitted with DPLinearRegression() ("default") and DPHuberRegressor(column_statistics=False)
("huber public") only (same epsilon, declared range and fit seed as there); a firing is a default fit where MAP_LOST's
condition holds (dpcvx.models.training_rows.regression_check, the library's own reading of the rule; the records
before session 68 matched the warning's text, the same fits then); per firing: training n, epsilon, d, the declared
label half-width B, and huber public's test R^2 less the default's.

Recorded by ``split`` (results/map_lost_small_split.md; exploration, before any rule was written): the same 77
firings as map_loss.py's records, DPHuberRegressor(column_statistics=False) better in 57 (worse by more than 0.02 in
18). They span training n x epsilon 3,750 to 90,000; below 7,500 it was better in 1 of 4 (-0.72, -0.28, -0.27,
+0.10); at 7,500 or more in 56 of 73 (worse by more than 0.02 in 15, down to -0.72 on labels filling little of their
range and -0.46 on a lognormal spend declared (-100, 1e5)). With the probe's 16 of 16 worse at <= 6,000 and 9 of 12
better at >= 7,500, the losses below 7,500 are 19 of 20; above it no gate by n x epsilon reaches 80 % better on
these 73 (T 20,000: 37 of 48).

The rule (written and committed before the ``dev`` and ``held-out`` runs; not amended after either), a withholding
rule, public (training n, epsilon; d and the estimator's settings as the text already reads them): after MAP_LOST on a
DPLinearRegression fit at its defaults on at most MAP_WIDE = 25 encoded columns, where n x epsilon < SMALL = 7,500,
the text names no setting to switch to (in particular not DPHuberRegressor(column_statistics=False)) and says what was
measured there; at n x epsilon >= SMALL it keeps its counts.

Pass criterion, per family (the development one first, then the held-out one; written before either ran):
(a) at least 4 firings with n x epsilon < SMALL; (b) DPHuberRegressor(column_statistics=False) did worse (test R^2
below the default's) in at least 80 % of them. The rule ships only if both families pass; otherwise the text names
the n x epsilon range of its measurements (3,750 to 90,000) and advises nothing below it. Recorded alongside, for the
wording only (no pass/fail): the other settings the text lists (DPHuberRegressor(), AdaSSP, the public map), better /
worse by more than 0.02 below SMALL, and every setting's counts at n x epsilon >= SMALL.

Families (written before the runs; each fits DPLinearRegression() at epsilon 1 and 2, 2,500 rows held back, fit seed
= data seed; where MAP_LOST fires, the four settings the text lists at the same epsilon, declared range and seed):

* dev: training n 1,000, 2,000, 3,000, 5,000 and 10,000, data seeds 0 and 1. "repair": a repair cost, parts
  lognormal(5, 1.2) declared (0, 1e5), hours uniform (0, 20) declared (0, 40), a 5-level shop; cost = 1.1 parts +
  60 hours + shop effect + N(0, 50), declared (0, 5e5), a public cap far above the costs. "gauss8": 5 Gaussian columns
  declared +-8 sd, y = 500 + Z beta + N(0, 18), declared (0, 1000). "zero counts": two count columns zero on 90 % of
  rows (else Poisson(6) + 1) declared (0, 50), 3 Gaussian columns declared +-4; y = 200 + 25 c0 + 10 c1 + 20 x0 +
  N(0, 10), declared (0, 2000).
* held-out: training n 1,500, 3,000, 6,000 and 12,000. "claims amount": probeC's generator (its gen.fraud columns
  and amount formula, rewritten here), data seeds 20 and 21 (the probe used 100 to 103), declared (0, 1e6); "pareto
  fee": a Pareto(2.2) fee column declared (0, 1e5), 2 uniform columns, a 4-level channel; y = 30 + 1.2 fee + 25 u0 +
  channel effect + N(0, 30), declared (0, 1e5), data seeds 0 and 1.

Recorded after the runs (nothing changed between them, the rule not amended): development, 60 cells, MAP_LOST fired
on 45 default fits, 27 below 7,500: DPHuberRegressor(column_statistics=False) worse in 26 of them (better / worse by
more than 0.02: 1 / 25), PASS; at 7,500 or more better in 12 of 18 (all 6 worse on the repair costs declared
(0, 5e5)). Held out, 32 cells, 16 firings, 8 below 7,500: worse in 8 of 8, PASS; at 7,500 or more better in none of
8 (worse by more than 0.02 in 6). Below 7,500 over both (35 firings): DPHuberRegressor() better in 8 (worse in 17),
AdaSSP in 13 (16), the public map in none (35). Shipped: training_rows.MAP_SMALL, and the text above it says first
that DPHuberRegressor(column_statistics=False) did not do better on labels declared far above their values
(results/map_lost_small_{split,dev,held_out}.md).

Held and said (session 68). Since session 67 MAP_LOST is said only where its advice names a setting, labels lay beyond
the declared range, most rows were clipped onto R, or the release is weak (training_rows.says_regression_finding):
below SMALL the advice names nothing, so there the finding is mostly not said, and a count of the warning's text (as
the first records did) would count only the said firings. A firing above is where the condition holds
(training_rows.regression_check); each record also gives where the fit said it (TrainingRowsWarning.finding).
Re-run at session 68, every firing and test R^2 as recorded before, the verdicts unchanged: split, said on 73 of the
77 (none of the 4 below 7,500); development, on 23 of 45 (5 of the 27 below 7,500, 18 of 18 at or above); held
out, on 15 of 16 (7 of the 8 below, 8 of 8 at or above).

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.map_lost_small split
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.map_lost_small dev
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.map_lost_small held-out

Public API only: the estimators, PublicSchema, predict, and the warnings they show.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

import dpcvx
from benchmarks import map_loss
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown
from dpcvx.exceptions import TrainingRowsWarning
from dpcvx.models.training_rows import MAP_LOST, regression_check

CONFIGS = {
    "default": lambda **common: dpcvx.DPLinearRegression(**common),
    "huber public": lambda **common: dpcvx.DPHuberRegressor(column_statistics=False, **common),
    "huber": lambda **common: dpcvx.DPHuberRegressor(**common),
    "adassp": lambda **common: dpcvx.DPLinearRegression(mechanism="adassp", **common),
    "public map": lambda **common: dpcvx.DPLinearRegression(column_statistics=False, **common),
}
ALTERNATIVES = ("huber public", "huber", "adassp", "public map")
SMALL = 7_500  # training rows x epsilon below which the rule withholds the advice (module docstring)
HELD = 2_500
SHOPS = ("a", "b", "c", "d", "e")
CHANNELS = ("web", "phone", "branch", "agent")
POLICIES = ("auto", "home", "travel", "health", "life", "pet")
#: (name, schema, training frame, labels, held-back frame, labels, declared range, seed)
Table = tuple[str, dpcvx.PublicSchema, pd.DataFrame, np.ndarray, pd.DataFrame, np.ndarray, tuple[float, float], int]


def _cut(name: str, schema: dpcvx.PublicSchema, frame: pd.DataFrame, y: np.ndarray, n: int,
         label: tuple[float, float], seed: int) -> Table:
    y = np.clip(y, *label)
    return (name, schema, frame.iloc[:n].reset_index(drop=True), y[:n], frame.iloc[n:].reset_index(drop=True), y[n:],
            label, seed)


def repair(n: int, seed: int) -> Table:
    rng = np.random.default_rng(8100 + seed)
    rows = n + HELD
    parts, hours = rng.lognormal(5, 1.2, rows), rng.uniform(0, 20, rows)
    shop = rng.integers(0, len(SHOPS), rows)
    y = 1.1 * parts + 60 * hours + rng.normal(0, 80, len(SHOPS))[shop] + rng.normal(0, 50, rows)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("parts", 0, 1e5), dpcvx.NumericColumn("hours", 0, 40),
                                 dpcvx.CategoricalColumn("shop", SHOPS)), norm=1.0)
    frame = pd.DataFrame({"parts": parts, "hours": hours, "shop": np.array(SHOPS)[shop]})
    return _cut(f"repair n={n} s={seed}", schema, frame, y, n, (0.0, 5e5), seed)


def gauss8(n: int, seed: int) -> Table:
    rng = np.random.default_rng(8200 + seed)
    Z = rng.normal(size=(n + HELD, 5))
    beta = rng.normal(size=5)
    y = 500 + Z @ (80 * beta / np.linalg.norm(beta)) + rng.normal(0, 18, n + HELD)
    schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"z{j}", -8, 8) for j in range(5)), norm=1.0)
    return _cut(f"gauss8 n={n} s={seed}", schema, pd.DataFrame({f"z{j}": Z[:, j] for j in range(5)}), y, n,
                (0.0, 1000.0), seed)


def zero_counts(n: int, seed: int) -> Table:
    rng = np.random.default_rng(8300 + seed)
    rows = n + HELD
    c = [np.where(rng.random(rows) < 0.9, 0, rng.poisson(6, rows) + 1).astype(float) for _ in range(2)]
    x = rng.normal(size=(rows, 3))
    y = 200 + 25 * c[0] + 10 * c[1] + 20 * x[:, 0] + rng.normal(0, 10, rows)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("c0", 0, 50), dpcvx.NumericColumn("c1", 0, 50),
                                 *(dpcvx.NumericColumn(f"x{j}", -4, 4) for j in range(3))), norm=1.0)
    frame = pd.DataFrame({"c0": c[0], "c1": c[1], **{f"x{j}": x[:, j] for j in range(3)}})
    return _cut(f"zero counts n={n} s={seed}", schema, frame, y, n, (0.0, 2000.0), seed)


def claims_amount(n: int, seed: int) -> Table:
    """probeC's claims_amount (gen.fraud's columns; the amount formula of its silence.py), rewritten."""
    rows = n + HELD
    r = np.random.default_rng(seed)
    r.normal(7.5, 1.4, rows)  # gen.fraud's own amount column, drawn and dropped as there
    policy = r.choice(POLICIES, rows)
    age = r.integers(18, 95, rows)
    prior = r.poisson(0.6, rows)
    days = r.integers(0, 3650, rows)
    effect = dict(auto=0.0, home=0.8, travel=-0.7, health=0.4, life=1.5, pet=-1.0)
    noise = np.random.default_rng(seed + 1000).normal(0, 1.2, rows)
    y = np.round(np.exp(7 + np.array([effect[p] for p in policy]) + 0.01 * (age - 50) + 0.2 * prior + noise), 2)
    schema = dpcvx.PublicSchema((dpcvx.CategoricalColumn("policy", POLICIES), dpcvx.NumericColumn("cust_age", 18, 120),
                                 dpcvx.NumericColumn("prior_claims", 0, 100),
                                 dpcvx.NumericColumn("policy_days", 0, 3650)))
    frame = pd.DataFrame({"policy": policy, "cust_age": age.astype(float), "prior_claims": prior.astype(float),
                          "policy_days": days.astype(float)})
    return _cut(f"claims amount n={n} s={seed}", schema, frame, y, n, (0.0, 1e6), seed)


def pareto_fee(n: int, seed: int) -> Table:
    rng = np.random.default_rng(8400 + seed)
    rows = n + HELD
    fee = 50 * (1 + rng.pareto(2.2, rows))
    u = rng.uniform(0, 1, (rows, 2))
    channel = rng.integers(0, len(CHANNELS), rows)
    y = 30 + 1.2 * fee + 25 * u[:, 0] + rng.normal(0, 20, len(CHANNELS))[channel] + rng.normal(0, 30, rows)
    schema = dpcvx.PublicSchema((dpcvx.NumericColumn("fee", 0, 1e5), dpcvx.NumericColumn("u0", 0, 1),
                                 dpcvx.NumericColumn("u1", 0, 1), dpcvx.CategoricalColumn("channel", CHANNELS)),
                                norm=1.0)
    frame = pd.DataFrame({"fee": fee, "u0": u[:, 0], "u1": u[:, 1], "channel": np.array(CHANNELS)[channel]})
    return _cut(f"pareto fee n={n} s={seed}", schema, frame, y, n, (0.0, 1e5), seed)


def tables(stage: str) -> Iterator[Table]:
    if stage == "dev":
        for make in (repair, gauss8, zero_counts):
            for n in (1_000, 2_000, 3_000, 5_000, 10_000):
                for seed in (0, 1):
                    yield make(n, seed)
        return
    for n in (1_500, 3_000, 6_000, 12_000):
        for seed in (20, 21):
            yield claims_amount(n, seed)
        for seed in (0, 1):
            yield pareto_fee(n, seed)


def measure(stage: str) -> list[dict]:
    rows = []
    for name, schema, frame, y, held_frame, held_y, label, seed in tables(stage):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            X, Xt = schema.transform(frame), schema.transform(held_frame)
        for eps in (1, 2):
            common = {"epsilon": eps, "label_bound": label, "random_state": seed}
            default, fires, said = _fit("default", common, X, y, Xt, held_y)
            row = {"table": name, "n": len(y), "d": int(X.shape[1]), "epsilon": eps, "fires": fires,
                   "default": default, "said": said}
            if row["fires"]:
                for config in ALTERNATIVES:
                    row[config] = _fit(config, common, X, y, Xt, held_y)[0]
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def verdict(rows: list[dict]) -> tuple[bool, list[str]]:
    fired = [r for r in rows if r["fires"]]
    small = [r for r in fired if r["n"] * r["epsilon"] < SMALL]
    large = [r for r in fired if r["n"] * r["epsilon"] >= SMALL]
    worse = sum(r["huber public"] < r["default"] for r in small)
    passed = len(small) >= 4 and worse >= 0.8 * len(small)
    lines = [f"Cells: {len(rows)}; MAP_LOST's condition held (fired) on {len(fired)} default fits, {len(small)} with "
             f"n x epsilon < {SMALL:,}, {len(large)} at {SMALL:,} or more. {_said(fired, small, large)}", "",
             f"Criterion (a) at least 4 firings below {SMALL:,}: {len(small)}; (b) DPHuberRegressor(column_statistics="
             f"False) worse in at least 80 % of them: {worse} of {len(small)}. "
             f"Verdict: {'PASS' if passed else 'FAIL'}.", "",
             "| n x epsilon | firings | " + " | ".join(f"{a}: better / worse by > 0.02 (worst)" for a in ALTERNATIVES)
             + " |", "|---|---|" + "---|" * len(ALTERNATIVES)]
    for title, part in ((f"< {SMALL:,}", small), (f">= {SMALL:,}", large)):
        cells = []
        for a in ALTERNATIVES:
            gain = [r[a] - r["default"] for r in part]
            cells.append(f"{sum(g > 0 for g in gain)} / {sum(g < -0.02 for g in gain)} "
                         f"({min(gain):+.3f})" if gain else "-")
        lines.append(f"| {title} | {len(part)} | " + " | ".join(cells) + " |")
    return passed, lines


def _said(fired: list[dict], small: list[dict], large: list[dict]) -> str:
    """Where the finding was said (training_rows.says_regression_finding: since session 67 only with a setting named,
    labels beyond the declared range, most rows clipped onto R, or a weak release), apart from where it held."""
    return (f"Said (the fit's TrainingRowsWarning whose finding is MAP_LOST) on {sum(r['said'] for r in fired)} of "
            f"the {len(fired)}: {sum(r['said'] for r in small)} of {len(small)} below {SMALL:,}, "
            f"{sum(r['said'] for r in large)} of {len(large)} at {SMALL:,} or more.")


def _cells_text(rows: list[dict]) -> list[str]:
    lines = ["| table | d | epsilon | n x epsilon | fires | said | default | " + " | ".join(ALTERNATIVES) + " |",
             "|---|---|---|---|---|---|---|" + "---|" * len(ALTERNATIVES)]
    for r in rows:
        alts = " | ".join(f"{r[a]:.3f}" if a in r else "" for a in ALTERNATIVES)
        lines.append(f"| {r['table']} | {r['d']} | {r['epsilon']:g} | {r['n'] * r['epsilon']:,} | "
                     f"{'yes' if r['fires'] else ''} | {'yes' if r['said'] else ''} | {r['default']:.3f} | {alts} |")
    return lines


def _r2(y: np.ndarray, predicted: np.ndarray) -> float:
    return float(1 - np.sum((y - predicted) ** 2) / np.sum((y - np.mean(y)) ** 2))


def _fit(config: str, common: dict, X: Any, y: np.ndarray, Xt: Any, yt: np.ndarray) -> tuple[float, bool, bool]:
    """Test R^2; whether MAP_LOST's condition held on the fit, by the library's own reading of its rule
    (training_rows.regression_check, on the declared range the estimator reads); whether the fit said it (a
    TrainingRowsWarning whose ``finding`` is MAP_LOST). The first records matched the warning's text: since session 67
    MAP_LOST is said only with something to act on (training_rows.says_regression_finding), so the text no longer
    tells where the condition held."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator = CONFIGS[config](**common).fit(X, y)
    said = any(isinstance(w.message, TrainingRowsWarning) and w.message.finding == MAP_LOST for w in caught)
    held = regression_check(estimator.model_, X, y, common["label_bound"])[0] == MAP_LOST
    return _r2(yt, np.asarray(estimator.predict(Xt), dtype=float)), held, said


def split() -> list[dict]:
    rows = []
    for which in ("dev", "held", "count"):
        for (name, X, y, label, Xt, yt, _), epsilons in map_loss.family(which, False):
            for eps in epsilons:
                common = {"epsilon": eps, "label_bound": label, "random_state": 0}
                default, fires, said = _fit("default", common, X, y, Xt, yt)
                if not fires:
                    continue
                public = _fit("huber public", common, X, y, Xt, yt)[0]
                row = {"family": which, "table": name, "n": len(y), "d": int(X.shape[1]), "epsilon": eps,
                       "B": (label[1] - label[0]) / 2, "default": default, "huber public": public, "said": said}
                rows.append(row)
                print(json.dumps(row), flush=True)
    return rows


def _split_text(rows: list[dict]) -> list[str]:
    lines = ["| family | table | n | d | epsilon | n x epsilon | B / (n x epsilon) | said | default | huber public | "
             "gain |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: r["n"] * r["epsilon"]):
        ne = r["n"] * r["epsilon"]
        lines.append(f"| {r['family']} | {r['table']} | {r['n']} | {r['d']} | {r['epsilon']:g} | {ne:,.0f} | "
                     f"{r['B'] / ne:.3g} | {'yes' if r['said'] else ''} | {r['default']:.3f} | "
                     f"{r['huber public']:.3f} | "
                     f"{r['huber public'] - r['default']:+.3f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stage", choices=("split", "dev", "held-out"))
    args = parser.parse_args()
    record = RunRecord("benchmarks.map_lost_small")
    if args.stage != "split":
        rows = measure(args.stage)
        _, lines = verdict(rows)
        text = [f"# MAP_LOST's advice below n x epsilon {SMALL:,}: the {args.stage} family", "",
                f"Written by `python -m benchmarks.map_lost_small {args.stage}` (the rule, criterion and families: the "
                "module docstring, committed before this run). Test R^2 on 2,500 held-back rows; an alternative's "
                "gain is its R^2 less the default DPLinearRegression()'s, where MAP_LOST's condition held on the "
                "default's fit (training_rows.regression_check; the records before session 68 read the warning's "
                "text, which since session 67 is said only with something to act on: 'said').", "", *lines, "",
                "## Cells", "", *_cells_text(rows), ""]
        write_markdown(RESULTS_DIR / f"map_lost_small_{args.stage.replace('-', '_')}.md", "\n".join(text), record)
        return
    rows = split()
    text = ["# MAP_LOST's firings on benchmarks/map_loss.py's families, by training n x epsilon", "",
            "Written by `python -m benchmarks.map_lost_small split` (module docstring). Per firing of "
            "DPLinearRegression() (MAP_LOST's condition held: training_rows.regression_check): huber public = "
            "DPHuberRegressor(column_statistics=False) at the same epsilon, declared range and seed; test R^2; "
            "n the training rows, B the declared label half-width; 'said' where the fit's TrainingRowsWarning "
            "said MAP_LOST (training_rows.says_regression_finding).", "",
            f"Firings: {len(rows)}. "
            + _said(rows, [r for r in rows if r["n"] * r["epsilon"] < SMALL],
                    [r for r in rows if r["n"] * r["epsilon"] >= SMALL]), "",
            *_split_text(rows), ""]
    write_markdown(RESULTS_DIR / f"map_lost_small_{args.stage}.md", "\n".join(text), record)


if __name__ == "__main__":
    main()
