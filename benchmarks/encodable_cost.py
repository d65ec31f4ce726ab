"""The cost of the encodable check (dpcvx.release.encodable) at its worst: a search that spends its whole budget.

Probe A2 (session 65, finding F1) hand-set a near-constant release whose first bounds straddle the cut and whose
search cannot narrow them: under a budget of 4,000 splits per side it ran 47-54 s on a 40-column schema and 223 s on
200 columns, and said nothing; score_range's memory grew with PIECES x categories (409 MB RSS at 20,000 categories).
The search is now bounded by ``encodable.WORK`` column bounds for the whole call, and score_range takes its
candidates ``encodable.CHUNK`` at a time.

What is measured (written and committed before the run, not amended):

* search: the probe's construction, with k categorical columns of 5 values (not strict) and k numeric columns with a
  missing indicator, for k = 20 and k = 100 (40 and 200 columns); a ColumnStandardiser (centre U(-0.3, 0.3), multiplier
  U(0.5, 3), clip 1, input bound 1), R = 1, coef ~ N(0, 1) (seed 0), intercept -(lo + hi) / 2 + f (hi - lo) for
  f = 0.3, 0.45, 0.49, [lo, hi] score_range's at intercept 0. The wall time of one encodable_class call (best of 3)
  and its answer; and of argmax_class on the three classes (0, coef, 1.01 coef) with intercepts (0, b, b), f = 0.3.
* memory: score_range on one categorical column of 20,000 and 100,000 categories (norm 0.5, not strict), no feature
  map, R = 1, coef ~ N(0, 1) (seed 1): tracemalloc's peak during the call, and its wall time.

Pass: every search call within 2.5 s on this machine (2 shared cores) and the memory peak below 100 MB at 100,000
categories.

Run: ``python -m benchmarks.encodable_cost`` (writes results/encodable_cost.{json,md}).
"""

from __future__ import annotations

import json
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from benchmarks import common
from dpcvx.data.preprocessing import CategoricalColumn, NumericColumn, PublicSchema
from dpcvx.data.rows import RowMap
from dpcvx.data.standardiser import ColumnStandardiser
from dpcvx.release import encodable

RESULTS = Path(__file__).resolve().parent / "results"


def near_constant_release(k: int) -> tuple[PublicSchema, RowMap, np.ndarray, float, float]:
    """Probe A2's F1 case at k categorical and k numeric columns: a schema, its row map, weights and the bounds
    (lo, hi) of the first bound on the schema; an intercept such as -(lo + hi) / 2 + 0.3 (hi - lo) puts every
    score on one side of the cut while the first bounds straddle it (tests/release/test_encodable.py uses it)."""
    columns = [CategoricalColumn(f"c{i}", tuple(f"v{v}" for v in range(5))) for i in range(k)]
    columns += [NumericColumn(f"n{i}", 0.0, 1.0, missing=0.5, missing_indicator=True) for i in range(k)]
    schema = PublicSchema(tuple(columns), norm=1.0, strict=False)
    d = schema.dimension
    rng = np.random.default_rng(0)
    rows = RowMap(norm_bound=1.0, feature_map=ColumnStandardiser(rng.uniform(-0.3, 0.3, d), rng.uniform(0.5, 3, d),
                                                                 1.0, clip=1.0, input_bound=1.0), fit_intercept=True)
    coef = rng.normal(size=d)
    bounds = encodable.score_range(coef, 0.0, rows, schema)
    assert bounds is not None
    return schema, rows, coef, bounds[0], bounds[1]


def _best_of(call, *arguments, repeats: int = 3) -> tuple[float, object]:
    times, answer = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        answer = call(*arguments)
        times.append(time.perf_counter() - start)
    return min(times), answer


def run() -> dict:
    record = common.RunRecord("benchmarks.encodable_cost", [])
    search = []
    for k in (20, 100):
        schema, rows, coef, lo, hi = near_constant_release(k)
        for f in (0.3, 0.45, 0.49):
            b = -(lo + hi) / 2 + f * (hi - lo)
            seconds, answer = _best_of(encodable.encodable_class, coef, b, rows, schema, 0.0)
            search.append({"columns": 2 * k, "call": "encodable_class", "f": f, "seconds": round(seconds, 2),
                           "answer": answer})
        b = -(lo + hi) / 2 + 0.3 * (hi - lo)
        weights = np.stack([np.zeros_like(coef), coef, 1.01 * coef])
        seconds, answer = _best_of(encodable.argmax_class, weights, np.array([0.0, b, b]), rows, schema)
        search.append({"columns": 2 * k, "call": "argmax_class (3 classes)", "f": 0.3, "seconds": round(seconds, 2),
                       "answer": answer})
    memory = []
    for n in (20_000, 100_000):
        schema = PublicSchema((CategoricalColumn("zip", tuple(f"z{v}" for v in range(n))),), norm=0.5, strict=False)
        coef = np.random.default_rng(1).normal(size=schema.dimension)
        tracemalloc.start()
        start = time.perf_counter()
        encodable.score_range(coef, 0.0, RowMap(norm_bound=1.0), schema)
        seconds = time.perf_counter() - start
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        memory.append({"categories": n, "peak_mb": round(peak / 1e6, 1), "seconds": round(seconds, 2)})
    verdict = {"slowest_search_seconds": max(row["seconds"] for row in search),
               "peak_mb_at_100000": memory[-1]["peak_mb"],
               "pass": bool(max(row["seconds"] for row in search) <= 2.5 and memory[-1]["peak_mb"] < 100)}
    return {"work": encodable.WORK, "chunk": encodable.CHUNK, "search": search, "memory": memory,
            "verdict": verdict, "run": record.finish()}


def _markdown(result: dict) -> str:
    lines = ["# encodable_cost", "", "Rule and pass criterion: the docstring of benchmarks/encodable_cost.py (written "
             f"before this run). WORK = {result['work']} column bounds, CHUNK = {result['chunk']} candidates.", "",
             "| columns | call | f | seconds (best of 3) | answer |", "|---|---|---|---|---|"]
    lines += [f"| {row['columns']} | {row['call']} | {row['f']} | {row['seconds']} | {row['answer']} |"
              for row in result["search"]]
    lines += ["", "| categories | score_range peak (MB, tracemalloc) | seconds |", "|---|---|---|"]
    lines += [f"| {row['categories']} | {row['peak_mb']} | {row['seconds']} |" for row in result["memory"]]
    verdict = result["verdict"]
    lines += ["", f"Slowest search call: {verdict['slowest_search_seconds']} s; score_range's peak at 100,000 "
              f"categories: {verdict['peak_mb_at_100000']} MB. Pass: {verdict['pass']}.", ""]
    lines += common.run_lines(result["run"])
    return "\n".join(lines) + "\n"


def main() -> None:
    warnings.simplefilter("ignore")  # the hand-set releases' schema warnings are not what is measured
    result = run()
    stem = RESULTS / "encodable_cost"
    stem.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    stem.with_suffix(".md").write_text(_markdown(result))
    print(json.dumps(result["verdict"]))


if __name__ == "__main__":
    main()
