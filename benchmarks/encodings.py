"""Encodings compared: which public map from records to rows of norm <= 1 keeps the signal (issue 42, item 1).

Four encodings of the same public schema, each a function of the record and the schema alone:

* ``a_unit_rowmap`` (dpcvx before issue 42, ``PublicSchema(encoding="unit")``): u(v) = (v - lo) / (hi - lo) in
  [0, 1], one-hot blocks, then each row x -> x / max(1, ||x||): a non-linear map;
* ``b_centred_rowmap`` (``PublicSchema(encoding="centred")``, the default since this comparison): u(v) - 1/2 in
  [-1/2, 1/2], then the same per-row map;
* ``c_centred_linear``: u(v) - 1/2, then the whole table multiplied by ONE public constant 1 / D, D
  (:func:`domain_norm`) the largest norm the schema's domain allows (1/4 per numeric column, 1 per one-hot
  block whatever its size, c(m)^2 + 1 for a missing indicator): a linear map that clips no row;
* ``d_centred_typical``: u(v) - 1/2, multiplied by 1 / T, T = sqrt(#numeric / 12 + #blocks) the root mean
  square norm of a record drawn uniformly from the domain (a public constant below D), then the rare rows
  longer than 1 divided by their norm.

Each encoded table is fitted with the estimators' defaults at epsilon 1 (DPLogisticRegression(classes=...) or
DPLinearRegression(label_bound=(lo, hi)), everything else default), over 5 seeded random 75/25 splits, beside the
trivial predictor and non-private scikit-learn on standard preprocessing (one-hot + StandardScaler), both from
:mod:`benchmarks.real_tables`, which also gives the tables. Binary tables whose public minority rate is below 0.3
are scored at the public prior's threshold, as real_tables does. "Gap recovered" = (dpcvx - trivial) / (reference
- trivial), means over the splits.

Tables. TUNING: every table of benchmarks/real_tables.py (adult, kdd, breast_cancer, diabetes, wine, digits,
rare3, coded80, heavy). HELD OUT (generators written before any run, and never used to choose): ``hundreds``
(a regression whose target lies in the public range [0, 1000], 3 numeric and 2 categorical columns),
``mixed8`` (binary, 8 mixed columns, designed for a third positive; its generator gives 40%) and ``wide``
(binary, 6 numeric columns whose public ranges are 10 to 50 times wider than their spread).

SHARED LEVEL (written after a user's report that the default erased the signal of 12 Likert items declared with
their file's missing codes -9 and 99 as the range; never used to choose): 3,000 rows whose label follows one latent
trait shared by many columns, each column in one part of its public range: ``likert12`` (12 items 1..5 declared
[-9, 99], 2% of the cells the codes), ``sparse500`` (500 0/1 columns, about 2% ones, 250 of them more often with
the trait), ``counts20`` (20 counts of mean 2 declared [0, 365]), ``uptime15`` (15 percentages near 95 of [0, 100])
and ``midscale15`` (15 scores near 50 of [0, 100], the centred code's own case). Where every coded row sits near
one point c, the per-row map sends the rows onto the sphere near c / ||c|| and erases what lies along c, the
columns' common level; the centred code puts c near 0 for columns around their ranges' middle, the unit code for
columns at the bottom, neither for columns at the top (only the linear map c keeps the level there). No public code
wins on every table: the default stays, and the schema warns instead (:mod:`dpcvx.data.shared_level`,
``LevelErasedWarning``, NOT PRIVATE); ``warned`` records whether it fires under each encoding. ``--epsilon``
runs another epsilon (its own files, ``encodings_NAME_epsE.json``).

THE RULE, fixed before any run: the default encoding is the one with the highest mean gap recovered over the
TUNING tables whose reference gap is at least 0.05; an encoding within 0.02 of the best that is linear and
clips no row (c) is preferred to one that is not. The held-out tables are reported apart, as a check.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.encodings --tables breast_cancer wine
    OPENBLAS_NUM_THREADS=1 python -m benchmarks.encodings --tables likert12 sparse500 --epsilon 5
    python -m benchmarks.encodings --render
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks import common, real_tables
from dpcvx.exceptions import LevelErasedWarning

RESULTS = Path(__file__).resolve().parent / "results"
EPSILON = 1.0
ENCODINGS = ("a_unit_rowmap", "b_centred_rowmap", "c_centred_linear", "d_centred_typical")
TUNING = real_tables.TABLES
HELD_OUT = ("hundreds", "mixed8", "wide")
#: tables whose signal is a level shared by many columns (written after a user's report, never used to choose)
SHARED = ("likert12", "sparse500", "counts20", "uptime15", "midscale15")
TIE = 0.02  # the rule's margin in favour of the linear, unclipped map (c)
#: the held-out binary tables' public positive rates, by design of their generators
PRIORS = {"mixed8": 1 / 3, "wide": 0.4, "likert12": 0.5, "sparse500": 0.5, "counts20": 0.5, "uptime15": 0.5,
          "midscale15": 0.5}


def _row_map(X: np.ndarray) -> np.ndarray:
    """x / max(1, ||x||): each row onto the unit ball on its own (then the estimator's own clip to 1)."""
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def domain_norm(schema: dpcvx.PublicSchema) -> float:
    """D: the largest norm of a centred row over the schema's whole domain (1/4 per numeric column, 1 per one-hot
    block whatever its size, c(m)^2 + 1 for a column with a missing indicator, c(m) its imputed value's code)."""
    squares = [1.0 if isinstance(c, dpcvx.CategoricalColumn) else
               max(0.25, float(c.encode(np.array([c.missing]), centred=True)[0, 0]) ** 2 + 1.0)
               if c.missing_indicator else 0.25 for c in schema.columns]
    return math.sqrt(math.fsum(squares) + schema.constant_feature)


def typical_norm(schema: dpcvx.PublicSchema) -> float:
    """sqrt(#numeric / 12 + #one-hot blocks + #indicators + constant): the RMS norm of a uniform record."""
    numeric = [c for c in schema.columns if isinstance(c, dpcvx.NumericColumn)]
    blocks = len(schema.columns) - len(numeric)
    indicators = sum(c.missing_indicator for c in numeric)
    return math.sqrt(len(numeric) / 12 + blocks + indicators + schema.constant_feature)


def encoded(table: real_tables.Table) -> dict[str, np.ndarray]:
    """The table's rows under each encoding, from the raw columns or (adult, kdd) the loaders; ``free`` is the
    centred code at norm 1e12, where no row is scaled: u(v) - 1/2 and the one-hot blocks as they are."""
    schema = table.schema
    assert schema is not None and schema.norm == 1.0
    if table.raw is not None:
        X_unit, X_centred, free = (replace(schema, encoding=encoding, norm=norm).transform(table.raw)
                                   for encoding, norm in (("unit", 1.0), ("centred", 1.0), ("centred", 1e12)))
    else:
        loader = dpcvx.load_adult if table.name == "adult" else dpcvx.load_kdd
        extra = {} if table.name == "adult" else {"n_rows": 70_000, "random_state": 0}
        X_unit, X_centred, free = (loader(mode="private", constant_feature=False, encoding=encoding, norm=norm,
                                          **extra).X
                                   for encoding, norm in (("unit", 1.0), ("centred", 1.0), ("centred", 1e12)))
    return {"a_unit_rowmap": X_unit, "b_centred_rowmap": X_centred, "c_centred_linear": free / domain_norm(schema),
            "d_centred_typical": _row_map(free / typical_norm(schema))}


def _held_out(name: str) -> real_tables.Table:
    """The held-out families: generators fixed before any run, with the public schema a user would write."""
    rng = np.random.default_rng(7)
    N, C = dpcvx.NumericColumn, dpcvx.CategoricalColumn
    if name == "hundreds":
        n = 3000
        age, hours, tenure = rng.uniform(18, 90, n), rng.uniform(0, 100, n), rng.exponential(8, n)
        region, kind = rng.integers(0, 5, n), rng.integers(0, 3, n)
        y = (300 + 3 * (age - 50) + 2.5 * (hours - 40) + 6 * np.minimum(tenure, 40)
             + np.array([0, 40, -30, 80, -60])[region] + np.array([0, 50, -50])[kind] + rng.normal(0, 90, n))
        y = np.clip(y, 0, 1000)
        raw: Any = {"age": age, "hours": hours, "tenure": tenure, "region": region.astype(str),
                    "kind": kind.astype(str)}
        schema = dpcvx.PublicSchema((N("age", 18, 90), N("hours", 0, 100), N("tenure", 0, 60),
                                     C("region", tuple("01234")), C("kind", tuple("012"))))
        return _table(name, "regression", schema, raw, y, "3,000 rows, 3 numeric + 2 categorical, y in [0, 1000]",
                      label_range=(0.0, 1000.0))
    if name == "mixed8":
        n = 4000
        raw = {"age": rng.uniform(18, 80, n), "income": rng.lognormal(10, 0.6, n), "score": rng.normal(50, 12, n),
               "visits": rng.poisson(3, n).astype(float), "share": rng.beta(2, 5, n),
               "city": rng.integers(0, 6, n).astype(str), "plan": rng.integers(0, 3, n).astype(str),
               "flag": rng.integers(0, 2, n).astype(str)}
        logit = (0.04 * (raw["age"] - 50) + 0.6 * (np.log(raw["income"]) - 10) + 0.05 * (raw["score"] - 50)
                 + 0.25 * (raw["visits"] - 3) - 2.0 * (raw["share"] - 0.3)
                 + np.array([0, 0.6, -0.6, 0.3, -0.3, 0.9])[raw["city"].astype(int)]
                 + np.array([0, 0.8, -0.8])[raw["plan"].astype(int)] + 0.5 * raw["flag"].astype(int) - 0.95)
        y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
        schema = dpcvx.PublicSchema((N("age", 18, 100), N("income", 0, 500_000), N("score", 0, 100),
                                     N("visits", 0, 30), N("share", 0, 1), C("city", tuple("012345")),
                                     C("plan", tuple("012")), C("flag", ("0", "1"))))
        return _table(name, "binary", schema, raw, y, f"4,000 rows, 8 mixed columns, {y.mean():.1%} positive",
                      classes=(0, 1))
    if name == "wide":
        n = 5000
        centres, spreads, highs = [300, 50, 2000, 10, 700, 120], [60, 8, 300, 2, 90, 25], [10_000, 1000, 50_000,
                                                                                       500, 20_000, 5000]
        values = rng.normal(centres, spreads, size=(n, 6))
        z = (values - centres) / spreads
        logit = z @ np.array([1.0, -0.8, 0.6, 0.5, -0.4, 0.0]) - 0.45
        y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
        schema = dpcvx.PublicSchema(tuple(N(f"w{j}", 0, hi) for j, hi in enumerate(highs)))
        return _table(name, "binary", schema, np.clip(values, 0, None), y,
                      f"5,000 rows, 6 numeric columns 10-50x narrower than their public ranges, {y.mean():.1%} "
                      "positive", classes=(0, 1))
    raise ValueError(f"unknown table {name!r}")


def _shared(name: str) -> real_tables.Table:
    """Tables whose label follows a level shared by many columns (a latent trait t ~ N(0, 1), P(y = 1) =
    sigmoid(3 t)), each column sitting in one part of its public range: the bottom (likert12, sparse500,
    counts20), the top (uptime15) or the middle (midscale15)."""
    rng = np.random.default_rng(11)
    N = dpcvx.NumericColumn
    trait = rng.normal(size=3000)
    y = (rng.random(trait.size) < 1 / (1 + np.exp(-3 * trait))).astype(int)
    if name == "likert12":  # 12 items 1..5; the file's missing codes -9 and 99 declared as the range (2% of cells)
        values = np.clip(np.rint(3 + 0.9 * trait[:, None] + rng.normal(0, 0.8, (trait.size, 12))), 1, 5)
        codes = rng.random(values.shape) < 0.02
        values[codes] = rng.choice([-9.0, 99.0], size=int(codes.sum()))
        columns, text = tuple(N(f"q{j}", -9, 99) for j in range(12)), "12 Likert items 1..5 declared [-9, 99]"
    elif name == "sparse500":  # 500 binary flags, about 2% set; the first 250 more often with the trait
        rate = np.full((trait.size, 500), 0.02)
        rate[:, :250] = 0.02 * np.exp(1.5 * trait)[:, None]
        values = (rng.random(rate.shape) < np.minimum(rate, 1)).astype(float)
        columns, text = tuple(N(f"f{j}", 0, 1) for j in range(500)), "500 binary columns, about 2% ones"
    elif name == "counts20":  # 20 monthly counts, Poisson with mean about 2, declared [0, 365]
        values = rng.poisson(2 * np.exp(0.4 * trait)[:, None] * np.ones(20)).astype(float)
        columns, text = tuple(N(f"c{j}", 0, 365) for j in range(20)), "20 counts of mean 2 declared [0, 365]"
    elif name == "uptime15":  # 15 percentages near the top of [0, 100]
        values = np.clip(95 + 2 * trait[:, None] + rng.normal(0, 2, (trait.size, 15)), 0, 100)
        columns, text = tuple(N(f"u{j}", 0, 100) for j in range(15)), "15 percentages near 95 of [0, 100]"
    elif name == "midscale15":  # 15 scores near the middle of [0, 100]: the centred code's own case
        values = np.clip(50 + 5 * trait[:, None] + rng.normal(0, 5, (trait.size, 15)), 0, 100)
        columns, text = tuple(N(f"s{j}", 0, 100) for j in range(15)), "15 scores near 50 of [0, 100]"
    else:
        raise ValueError(f"unknown table {name!r}")
    return _table(name, "binary", dpcvx.PublicSchema(columns), values, y,
                  f"3,000 rows, {text}, {y.mean():.1%} positive", classes=(0, 1))


def _table(name: str, task: str, schema: dpcvx.PublicSchema, raw: Any, y: np.ndarray, text: str,
           **extra: Any) -> real_tables.Table:
    free = replace(schema, norm=1e12)  # the features before scaling: the reference's standard preprocessing
    return real_tables.Table(name, task, schema.transform(raw), free.transform(raw), y, text=text, schema=schema,
                             raw=raw, prior=PRIORS.get(name), **extra)


def load(name: str) -> real_tables.Table:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelErasedWarning)  # recorded by warned()
        if name in SHARED:
            return _shared(name)
        return _held_out(name) if name in HELD_OUT else real_tables.load(name)


def _scored(table: real_tables.Table, plain: float, at_prior: float | None) -> float:
    """real_tables' rule: imbalanced binary tables are scored at the public prior's threshold."""
    prior = table.prior
    if at_prior is not None and prior is not None and min(prior, 1 - prior) < real_tables.IMBALANCED:
        return at_prior
    return plain


def warned(table: real_tables.Table) -> dict[str, bool]:
    """Whether the schema's :class:`~dpcvx.exceptions.LevelErasedWarning` (NOT PRIVATE: it reads the rows) fires on
    the table under each encoding."""
    fired = {}
    for encoding in ("centred", "unit"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if table.raw is not None:
                assert table.schema is not None
                replace(table.schema, encoding=encoding).transform(table.raw)
            else:
                loader = dpcvx.load_adult if table.name == "adult" else dpcvx.load_kdd
                extra = {} if table.name == "adult" else {"n_rows": 70_000, "random_state": 0}
                loader(mode="private", constant_feature=False, encoding=encoding, **extra)
        fired[encoding] = any(issubclass(w.category, LevelErasedWarning) for w in caught)
    return fired


def _path(name: str, epsilon: float) -> Path:
    """The record of one table at one epsilon (EPSILON's keeps its former name)."""
    return RESULTS / (f"encodings_{name}.json" if epsilon == EPSILON else f"encodings_{name}_eps{epsilon:g}.json")


def run(name: str, splits: int, seed: int, epsilon: float = EPSILON) -> dict:
    harness = common.RunRecord("benchmarks.encodings")
    table = load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelErasedWarning)  # recorded by warned()
        rows = encoded(table)
    record: dict[str, Any] = {"table": name, "task": table.task, "text": table.text, "n": int(table.X.shape[0]),
                              "d": int(table.X.shape[1]), "held_out": name in HELD_OUT + SHARED,
                              "epsilon": epsilon, "warned": warned(table), "splits": [],
                              "clipped_share": {key: float(np.mean(np.linalg.norm(rows[key], axis=1) > 1 - 1e-12))
                                                for key in ENCODINGS}}
    start = time.perf_counter()
    for split in range(splits):
        order = common.generator(seed, split).permutation(table.X.shape[0])
        cut = int(round(0.75 * order.size))
        train, test = order[:cut], order[cut:]
        unit: dict[str, Any] = {"split": split, "dpcvx": {},
                                "trivial": real_tables.trivial(table.task, table.y[train], table.y[test]),
                                "reference": real_tables.reference(table, train, test)}
        fit_seed = common.int_seed(seed, split, 10)
        for key in ENCODINGS:
            plain, at_prior, _ = real_tables.private(replace(table, X=rows[key]), train, test, epsilon, fit_seed)
            unit["dpcvx"][key] = _scored(table, plain, at_prior)
        record["splits"].append(unit)
        print(f"[encodings] {name} split {split}: {time.perf_counter() - start:.0f} s", flush=True)
    record["run"] = harness.finish()
    return record


def recovered(record: dict, key: str) -> float:
    units = record["splits"]
    low, high = np.mean([u["trivial"] for u in units]), np.mean([u["reference"] for u in units])
    return float((np.mean([u["dpcvx"][key] for u in units]) - low) / (high - low)) if high - low >= 0.05 else math.nan


def choose(records: list[dict]) -> str:
    """THE RULE (module docstring), on the tuning tables only."""
    scored = [r for r in records if not r["held_out"] and not math.isnan(recovered(r, ENCODINGS[0]))]
    means = {key: float(np.mean([recovered(r, key) for r in scored])) for key in ENCODINGS}
    best = max(means.values())
    return "c_centred_linear" if means["c_centred_linear"] >= best - TIE else max(means, key=lambda k: means[k])


def _set(name: str) -> str:
    return "tuning" if name in TUNING else "held out" if name in HELD_OUT else "shared level"


def render() -> str:
    """results/encodings.md: every table at every epsilon recorded (EPSILON's first), the means by set, the rule."""
    paths = [RESULTS / f"encodings_{name}.json" for name in TUNING + HELD_OUT + SHARED]
    paths += sorted(p for name in TUNING + HELD_OUT + SHARED for p in RESULTS.glob(f"encodings_{name}_eps*.json"))
    records = [json.loads(p.read_text()) for p in paths if p.exists()]
    head = ("| table | set | epsilon | n, d | metric | trivial | reference | " + " | ".join(ENCODINGS)
            + " | warned (centred, unit) |\n|---|---|---|---|---|---|---|" + "---|" * len(ENCODINGS) + "---|")
    lines = [head]
    for record in records:
        units = record["splits"]
        metric = {"binary": "balanced acc.", "multiclass": "accuracy", "regression": "R^2"}[record["task"]]
        cells = []
        for key in ENCODINGS:
            mean, half = real_tables._interval([u["dpcvx"][key] for u in units])
            gap = recovered(record, key)
            cells.append(f"{mean:.3f} ± {half:.3f} (gap {gap:.2f}; clipped {record['clipped_share'][key]:.0%})")
        low = real_tables._cell([u["trivial"] for u in units])
        high = real_tables._cell([u["reference"] for u in units])
        warned = record.get("warned")
        shown = "not run" if warned is None else ", ".join("yes" if warned[e] else "no" for e in ("centred", "unit"))
        lines.append(f"| {record['table']} | {_set(record['table'])} | {record.get('epsilon', EPSILON):g} | "
                     f"{record['n']}, {record['d']} | {metric} | {low} | {high} | " + " | ".join(cells)
                     + f" | {shown} |")
    summary = []
    for label in ("tuning", "held out", "shared level"):
        for epsilon in sorted({r.get("epsilon", EPSILON) for r in records}):
            chosen = [r for r in records if _set(r["table"]) == label and r.get("epsilon", EPSILON) == epsilon]
            for key in ENCODINGS:
                gaps = [recovered(r, key) for r in chosen if not math.isnan(recovered(r, key))]
                if gaps:
                    summary.append(f"- {label}, epsilon {epsilon:g}, {key}: mean gap recovered {np.mean(gaps):.3f} "
                                   f"over {len(gaps)} tables (min {min(gaps):.2f})")
    at_rule = [r for r in records if r.get("epsilon", EPSILON) == EPSILON]
    rule = f"The rule (module docstring) on the tuning tables chooses: **{choose(at_rule)}**." if at_rule else ""
    runs = [f"- {r['table']} (epsilon {r.get('epsilon', EPSILON):g}): {r['text']}; {r['run']['run_seconds']} s, "
            f"load average {r['run']['load_average_start']}, commit {r['run']['git_commit']}" for r in records]
    text = "\n".join(["# Encodings compared (benchmarks/encodings.py)", "",
                      "Estimators' defaults; mean ± 95% interval over the splits, (gap recovered; share of rows "
                      "clipped by the map); warned: whether the schema's LevelErasedWarning (NOT PRIVATE) fires "
                      "under encoding='centred' and 'unit'.", "",
                      *lines, "", *summary, "", rule, "", "Runs:", *runs]) + "\n"
    (RESULTS / "encodings.md").write_text(text)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", nargs="+", choices=TUNING + HELD_OUT + SHARED, default=[])
    parser.add_argument("--epsilon", type=float, default=EPSILON)
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--render", action="store_true")
    arguments = parser.parse_args()
    for name in arguments.tables:
        common.write_json(_path(name, arguments.epsilon), run(name, arguments.splits, arguments.seed,
                                                              arguments.epsilon))
    if arguments.render:
        print(render())


if __name__ == "__main__":
    main()
