"""A NOT PRIVATE note for a missing-value code declared inside a numeric column's public range (session 64, fixC).

An analyst probe (session 64, probeC finding 2) declared five Likert items 1..5 whose "don't know" is coded 9 (8 % of
rows) and "refused" 99 (2 %) as ``NumericColumn(q, 1, 99)``, a range set to hold every value of the codebook: the
schema said nothing, and DPLogisticRegression's balanced accuracy at epsilon 1 fell from 0.285 (codes declared with
``missing_codes=(9, 99)``) to 0.197. Declared 1..5, the codes lie outside the bounds and the schema's
OutOfBoundsWarning asks "is it a code?". No public rule tells a code from a real top value (Adult's hours-per-week
tops out at 99), so the note reads the rows (NOT PRIVATE, shown to the data owner only, never released).

The rule, written and committed before any run of this script (not amended): a numeric column of a table of at least
20 rows is named when its non-missing values inside [lo, hi] (rows whose value is a declared missing code or cell
are not read) hold a value v such that

* v is the largest or the smallest of those values;
* v is held by at least 1 % of the table's rows and at least 20 of them, and by at most half of them;
* the gap between v and the nearest other value held by a row is at least CODE_GAP = 0.3 of the column's encoded
  [0, 1] scale (of hi - lo for a linear column; in log1p(v - lo) / log1p(hi - lo) for a log one);
* the other rows take at least 5 distinct values (a 0/1 flag or a few ordered levels, whose values are far apart
  within an exact range, are not read as a code).

The note (an OutOfBoundsWarning) names the column, its public bounds and which end (largest or smallest value),
never the value or a count, and says first what to do: declare the code with a public imputed value
(``missing_codes=(CODE,)``, or the command line's ``--missing CODE`` and ``--impute``).

Counted per family (written before the runs):

* coded columns: each column of the family's coded tables whose declared range holds a code set apart from the
  real values (the 9 / 99 / 999 convention); fired when the schema's transform of the training rows shows the note
  naming it. Codes adjacent to the real values (-1 beside counts from 0, 0 beside ratings from 1) are reported
  ("adjacent", expected silent) and not counted: the rows of such a column look like those of a genuine
  zero-inflated count, which the note must not name, so no rule of this kind can tell them apart;
* genuine columns: each numeric column of the family's genuine tables (no code); a firing there is a false alarm;
* advice: for each coded table on which the note fired, DPLogisticRegression(epsilon=1) (defaults otherwise) fitted on
  the naive schema and on the advised one (the codes declared as missing codes, the documented range of the real
  values, imputed at its midpoint, missing_indicator=True), seeds 0-2, balanced accuracy on 2,000 held-back rows; the
  advice improves the table when its mean over the seeds is higher.

Pass, per family: the note fires on at least 90 % of the coded columns and on at most 5 % of the genuine ones, and the
advice improves more than half of the firing tables. The development family runs first; whatever it shows, the rule
is not changed before the held-out run. If either family fails, dpcvx ships no such note (this script and its results
are kept).

Families (written before the development run); each coded table has 4 columns of one kind, every one coded, a label
from a logistic of the real (uncoded) values, n 4,000 training rows:

* development, coded: Likert 1..5 with 9 (8 %) and 99 (2 %) declared 1..99; Likert 1..5 with 9 (6 %) declared 1..9;
  Likert 1..7 with 99 (3 %) declared 1..99; ages 18..90 with 999 (4 %) declared 0..999; a lab value uniform 0..50
  with 999 (2 %) declared 0..999; a score 0..10 (integers) with 99 (5 %) declared 0..99; Likert 1..5 with -1 (5 %)
  declared -1..5; adjacent: a count 0..30 (Poisson 6) with -1 (3 %) declared -1..30.
* development, genuine: Adult's 6 numeric columns (the raw records under ``load_adult(mode="private")``'s schema,
  DPCVX_DATA); hours top-coded at 99 (2 % of rows) declared 0..99; a zero-inflated count (70 % zeros, else Poisson
  4) declared 0..50; an income top-coded at 200,000 (3 %) declared 0..200,000; a 0/1 flag declared 0..1; a 4-level
  ordinal 1..4 declared 1..4; ages 18..90 heaped at multiples of 5 declared 0..120; a Likert 1..5 declared 1..5.
* held-out, coded: Likert 1..4 with 8 (5 %) and 9 (3 %) declared 1..9; an income 0..150,000 (lognormal) with
  9,999,999 (2 %) declared 0..9,999,999; a score 0..100 with 999 (1.5 %) declared 0..999; Likert 0..10 with 98 (4 %)
  and 99 (2 %) declared 0..99; a weight in kg 40..150 with -9 (3 %) declared -9..150; years 1900..2020 with 9999 (2 %)
  declared 1900..9999; adjacent: a rating 1..5 with 0 for "not rated" (10 %) declared 0..5.
* held-out, genuine: KDD's numeric columns (20,000 evenly spaced raw records under ``load_kdd(mode="private")``'s
  schema); smoking: cigarettes a day, 60 % zeros, else 5..40, declared 0..60; schooling years, 3 % with none, else
  8..20, declared 0..20; a Likert 1..7 declared 1..7; a percentage 0..100 with 10 % at 100 declared 0..100; a
  visit count Poisson 2 declared 0..100; a continuous normal(50, 10) clipped to 0..100 declared 0..100.

    OPENBLAS_NUM_THREADS=1 DPCVX_DATA=/work/shared/data python -m benchmarks.inside_range_codes dev
    OPENBLAS_NUM_THREADS=1 DPCVX_DATA=/work/shared/data python -m benchmarks.inside_range_codes held-out

Public API only: PublicSchema, NumericColumn, its transform, load_adult / load_kdd's schemas, read_records,
DPLogisticRegression, and the warnings they show. Results: results/inside_range_codes_{dev,held_out}.json and .md.
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dpcvx
from dpcvx.data.datasets import read_records

from . import common

MARK = "far from all its other values"  # the candidate note's words naming a column (commit 28897f27, reverted)
CODE_GAP, CODE_OTHERS = 0.3, 5  # the rule's constants (the docstring)
N_TRAIN, N_TEST, SEEDS, EPSILON = 4000, 2000, (0, 1, 2), 1.0
RESULTS = Path(__file__).resolve().parent / "results"

Gen = Callable[[np.random.Generator, int], np.ndarray]


def _likert(levels: tuple[int, int]) -> Gen:
    return lambda rng, n: rng.integers(levels[0], levels[1] + 1, n).astype(float)


def _coded(real: Gen, codes: dict[float, float]) -> Callable[[np.random.Generator, int],
                                                              tuple[np.ndarray, np.ndarray]]:
    """Real values and the same with ``codes`` (value: share of rows) put in place of some of them."""
    def draw(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        values = real(rng, n)
        seen = values.copy()
        order = rng.permutation(n)
        start = 0
        for code, share in codes.items():
            take = order[start:start + int(round(share * n))]
            seen[take] = code
            start += take.size
        return values, seen
    return draw


# coded kinds: name -> (draw, declared (lo, hi), codes, documented real range)
CODED = {
    "dev": {
        "likert_9_99": (_likert((1, 5)), (1, 99), {9.0: 0.08, 99.0: 0.02}, (1, 5)),
        "likert_9": (_likert((1, 5)), (1, 9), {9.0: 0.06}, (1, 5)),
        "likert7_99": (_likert((1, 7)), (1, 99), {99.0: 0.03}, (1, 7)),
        "age_999": (lambda rng, n: rng.uniform(18, 90, n).round(), (0, 999), {999.0: 0.04}, (18, 90)),
        "lab_999": (lambda rng, n: rng.uniform(0, 50, n), (0, 999), {999.0: 0.02}, (0, 50)),
        "score_99": (_likert((0, 10)), (0, 99), {99.0: 0.05}, (0, 10)),
        "likert_minus1": (_likert((1, 5)), (-1, 5), {-1.0: 0.05}, (1, 5)),
        "adjacent_count_minus1": (lambda rng, n: np.minimum(rng.poisson(6, n), 30).astype(float), (-1, 30),
                                  {-1.0: 0.03}, (0, 30)),
    },
    "held-out": {
        "likert4_8_9": (_likert((1, 4)), (1, 9), {8.0: 0.05, 9.0: 0.03}, (1, 4)),
        "income_9999999": (lambda rng, n: np.minimum(rng.lognormal(10.5, 0.6, n), 150_000).round(), (0, 9_999_999),
                           {9_999_999.0: 0.02}, (0, 150_000)),
        "score100_999": (lambda rng, n: rng.integers(0, 101, n).astype(float), (0, 999), {999.0: 0.015}, (0, 100)),
        "likert10_98_99": (_likert((0, 10)), (0, 99), {98.0: 0.04, 99.0: 0.02}, (0, 10)),
        "weight_minus9": (lambda rng, n: rng.uniform(40, 150, n).round(1), (-9, 150), {-9.0: 0.03}, (40, 150)),
        "adjacent_rating_0": (_likert((1, 5)), (0, 5), {0.0: 0.10}, (1, 5)),
        "year_9999": (lambda rng, n: rng.integers(1900, 2021, n).astype(float), (1900, 9999), {9999.0: 0.02},
                      (1900, 2020)),
    },
}


def _genuine_synthetic(family: str, rng: np.random.Generator, n: int) -> dict[str, tuple[np.ndarray, tuple]]:
    if family == "dev":
        hours = rng.normal(40, 12, n).clip(1, 98).round()
        hours[rng.random(n) < 0.02] = 99
        zero_count = np.where(rng.random(n) < 0.7, 0, rng.poisson(4, n)).astype(float)
        income = rng.lognormal(10.8, 0.7, n).round().clip(0, 200_000)
        income[rng.random(n) < 0.03] = 200_000
        ages = rng.uniform(18, 90, n).round()
        heaped = rng.random(n) < 0.4
        ages[heaped] = (ages[heaped] / 5).round() * 5
        return {"hours_top99": (hours, (0, 99)), "zero_inflated": (zero_count, (0, 50)),
                "income_top": (income, (0, 200_000)), "flag": (rng.integers(0, 2, n).astype(float), (0, 1)),
                "ordinal4": (rng.integers(1, 5, n).astype(float), (1, 4)), "age_heaped": (ages, (0, 120)),
                "likert": (rng.integers(1, 6, n).astype(float), (1, 5))}
    smoking = np.where(rng.random(n) < 0.6, 0, rng.integers(5, 41, n)).astype(float)
    school = rng.integers(8, 21, n).astype(float)
    school[rng.random(n) < 0.03] = 0
    percent = rng.uniform(0, 100, n).round()
    percent[rng.random(n) < 0.1] = 100
    return {"smoking": (smoking, (0, 60)), "schooling": (school, (0, 20)),
            "likert7": (rng.integers(1, 8, n).astype(float), (1, 7)), "percent_top": (percent, (0, 100)),
            "visits": (rng.poisson(2, n).astype(float), (0, 100)),
            "normal": (rng.normal(50, 10, n).clip(0, 100), (0, 100))}


def _rule_end(column: dpcvx.NumericColumn, cells: np.ndarray) -> str | None:
    """The rule of the docstring on one column's cells: "largest" or "smallest", or None. The candidate note of
    commit 28897f27 (reverted: the held-out family failed) read it after the schema's checks of values outside the
    bounds, which name the column first (one value outside on 1 % of the rows, or most rows outside): so here."""
    n = cells.size
    values = np.asarray(cells, dtype=float)
    least = max(20, 0.01 * n)
    beyond = (values < column.lo) | (values > column.hi)
    outside = values[beyond]
    if n < 20 or outside.size > 0.5 * n or (outside.size >= least
                                            and np.unique(outside, return_counts=True)[1].max() >= least):
        return None
    inside = values[~beyond & ~np.isnan(values) & ~np.isin(values, column.missing_codes)]
    if inside.size < least:
        return None
    distinct, counts = np.unique(inside, return_counts=True)
    if distinct.size <= CODE_OTHERS:
        return None
    shifted = distinct - column.lo
    unit = (np.log1p(shifted) / np.log1p(column.hi - column.lo) if column.scale == "log"
            else shifted / (column.hi - column.lo))
    for end, at, beside in (("largest", -1, -2), ("smallest", 0, 1)):
        if least <= counts[at] <= n / 2 and abs(unit[at] - unit[beside]) >= CODE_GAP:
            return end
    return None


def _named(schema: dpcvx.PublicSchema, table: dict) -> set[str]:
    """The numeric columns of ``schema`` that the rule (:func:`_rule_end`) names on ``table``. The recorded runs read
    the candidate note's warnings (MARK) at commit 28897f27; this reads the same rule on the cells, so the script
    runs on a dpcvx without the note (the reruns on it gave the same results)."""
    return {column.name for column in schema.columns if isinstance(column, dpcvx.NumericColumn)
            and _rule_end(column, np.asarray(table[column.name])) is not None}


def _balanced(model: dpcvx.DPLogisticRegression, X: np.ndarray, y: np.ndarray) -> float:
    predicted = model.predict(X)
    return float(np.mean([np.mean(predicted[y == label] == label) for label in (0, 1)]))


def _coded_kind(name: str, spec: tuple, seed: int = 0) -> dict:
    draw, (lo, hi), codes, (real_lo, real_hi) = spec
    rng = np.random.default_rng(seed)
    n = N_TRAIN + N_TEST
    columns = [f"{name}_{j}" for j in range(4)]
    reals, seens = zip(*(_coded(draw, codes)(rng, n) for _ in columns), strict=True)
    standard = [(real - real.mean()) / (real.std() + 1e-12) for real in reals]
    logit = 1.2 * standard[0] - 0.8 * standard[1] + 0.5 * standard[2] + rng.logistic(size=n) * 0.5
    y = (logit > 0).astype(int)
    table = {column: seen for column, seen in zip(columns, seens, strict=True)}
    naive = dpcvx.PublicSchema([dpcvx.NumericColumn(c, lo, hi) for c in columns])
    named = _named(naive, {c: v[:N_TRAIN] for c, v in table.items()})
    row: dict = {"kind": name, "fired": [c in named for c in columns]}
    if any(row["fired"]):
        advised = dpcvx.PublicSchema([dpcvx.NumericColumn(c, real_lo, real_hi, missing=(real_lo + real_hi) / 2,
                                                          missing_codes=tuple(codes), missing_indicator=True)
                                      for c in columns])
        scores = {}
        for label, schema in (("naive", naive), ("advised", advised)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                X = schema.transform(table)
                runs = []
                for seed_fit in SEEDS:
                    model = dpcvx.DPLogisticRegression(epsilon=EPSILON, random_state=seed_fit)
                    model.fit(X[:N_TRAIN], y[:N_TRAIN])
                    runs.append(_balanced(model, X[N_TRAIN:], y[N_TRAIN:]))
            scores[label] = round(float(np.mean(runs)), 4)
        row.update(scores, improved=scores["advised"] > scores["naive"])
    return row


def _real_genuine(family: str) -> list[dict]:
    if family == "dev":
        schema = dpcvx.load_adult(mode="private").schema
        records = read_records("adult")
        rows = np.arange(len(records["age"]))
        source = "adult"
    else:
        schema = dpcvx.load_kdd(mode="private", n_rows=2000, random_state=0).schema
        numeric = tuple(c.name for c in schema.columns if isinstance(c, dpcvx.NumericColumn))
        records = read_records("kdd", columns=numeric)
        total = len(records[numeric[0]])
        rows = np.arange(0, total, max(1, total // 20_000))
        source = "kdd"
    numeric_columns = [c for c in schema.columns if isinstance(c, dpcvx.NumericColumn)]
    out = []
    for column in numeric_columns:
        one = dpcvx.PublicSchema([column])
        values = np.asarray(records[column.name])[rows]
        named = _named(one, {column.name: values})
        out.append({"column": f"{source}:{column.name}", "declared": [column.lo, column.hi],
                    "fired": column.name in named})
    return out


def run(family: str) -> dict:
    record = common.RunRecord("benchmarks.inside_range_codes", [family])
    coded = [_coded_kind(name, spec) for name, spec in CODED[family].items()]
    genuine = _real_genuine(family)
    synthetic = _genuine_synthetic(family, np.random.default_rng(1), N_TRAIN)
    for name, (values, (lo, hi)) in synthetic.items():
        named = _named(dpcvx.PublicSchema([dpcvx.NumericColumn(name, lo, hi)]), {name: values})
        genuine.append({"column": name, "declared": [lo, hi], "fired": name in named})
    counted = [row for row in coded if not row["kind"].startswith("adjacent")]
    coded_columns = sum(len(row["fired"]) for row in counted)
    coded_fired = sum(sum(row["fired"]) for row in counted)
    firing_tables = [row for row in counted if any(row["fired"])]
    improved = sum(row["improved"] for row in firing_tables)
    false_alarms = sum(row["fired"] for row in genuine)
    verdict = {
        "coded_fired": f"{coded_fired} of {coded_columns}",
        "genuine_fired": f"{false_alarms} of {len(genuine)}",
        "advice_improved": f"{improved} of {len(firing_tables)}",
        "pass": bool(coded_fired >= 0.9 * coded_columns and false_alarms <= 0.05 * len(genuine)
                     and 2 * improved > len(firing_tables)),
    }
    return {"family": family, "coded": coded, "genuine": genuine, "verdict": verdict, "run": record.finish()}


def _markdown(result: dict) -> str:
    lines = [f"# inside_range_codes: {result['family']}", "", "Rule and pass criterion: the docstring of "
             "benchmarks/inside_range_codes.py (written before this run).", "",
             "| coded kind | columns named | naive bal. acc. | advised bal. acc. | advice better |",
             "|---|---|---|---|---|"]
    for row in result["coded"]:
        lines.append(f"| {row['kind']} | {sum(row['fired'])} of {len(row['fired'])} | {row.get('naive', '')} | "
                     f"{row.get('advised', '')} | {row.get('improved', '')} |")
    lines += ["", "| genuine column | declared | named |", "|---|---|---|"]
    lines += [f"| {row['column']} | {row['declared'][0]:g}..{row['declared'][1]:g} | {row['fired']} |"
              for row in result["genuine"]]
    verdict = result["verdict"]
    lines += ["", f"Coded columns named: {verdict['coded_fired']}; genuine columns named: {verdict['genuine_fired']}; "
              f"advice better on {verdict['advice_improved']} firing tables. Pass: {verdict['pass']}.", ""]
    lines += common.run_lines(result["run"])
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("family", choices=("dev", "held-out"))
    args = parser.parse_args()
    result = run(args.family)
    stem = RESULTS / f"inside_range_codes_{args.family.replace('-', '_')}"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    stem.with_suffix(".md").write_text(_markdown(result))
    print(json.dumps(result["verdict"]))


if __name__ == "__main__":
    main()
