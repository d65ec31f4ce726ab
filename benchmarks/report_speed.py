"""The CPU time of ``model.report()`` of a binary release saved with its schema: before and after, one machine.

Session 71 (fixE): the report of the default DPLogisticRegression on the rare-class table of
tests/models/test_one_class_threshold_advice.py (16 numeric columns, n 40,000, rate 0.4 %) cost some 3 s of CPU,
almost all in the branch-and-bound search of dpcvx.release.encodable (its per-column Python loop, 2,500 bounds of 17
columns within its budget of ``encodable.WORK`` column bounds). A data protection officer's ``dpcvx report`` waits
for it.

What is measured (written before the run): for each case, a seeded table, the default
``DPLogisticRegression(epsilon=1.0, random_state=0)`` fitted on it, saved with its schema and loaded (as
``dpcvx report model.json`` reads it); then ``model.report()`` timed twice by ``time.process_time`` (CPU, not wall:
the machine is shared), the lesser kept. The cases:

* ``numeric/w``, w = 8, 16, 32, 64, 128: the rare-class table at w columns (w normal columns in a public box of
  +-5, the rare class's logit on the first four, rate 0.004, n 40,000, seed 0); ``numeric/16`` is the test's table;
* ``adult`` and ``kdd``: the built-in public schemas (:func:`dpcvx.data.uci_domains.adult_schema`, ``kdd_schema``:
  categorical and numeric columns), n 40,000 records drawn from the uniform law on their declared domain
  (:func:`dpcvx.release.encodable.domain_draws`, seed 0), the rare class's logit on their first four codes.

A fitted release's search may end early (at a record scored on the other side): the report's cost at a width then
says little of the search's. So the cases ``search/numeric/w`` (w as above) time ``encodable_class`` alone (the lesser
CPU of two calls) on a hand-set release whose first bounds straddle the cut, so that the search runs (at 8 columns it
stops at a witness record after 712 bounds; at 16 to 64 it spends its whole budget): :func:`hand_set_release`, a
ColumnStandardiser, coef ~ N(0, 1), the intercept at 0.45 of score_range's width, as
tests/release/test_encodable_search_recorded.py records it at the parent; ``search/mixed/40`` and
``search/mixed/200`` the same on :func:`benchmarks.encodable_cost.near_constant_release` (k categorical and k
numeric columns, f = 0.3).

Each case runs in ``--processes`` processes per tree, the tree before (``--before``, a checkout of the parent) and this
one alternating (:func:`benchmarks.common.alternating`), so that a change of the machine's load hits both alike. Each
process also reports what the report says (a digest of its Markdown, and whether its encodable and near-one-class
statements are made): a faster search must say the same.

Run: ``python -m benchmarks.report_speed --before /path/to/parent`` (writes results/report_speed.{json,md}).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import common

WIDTHS = (8, 16, 32, 64, 128)
CASES = ([f"numeric/{width}" for width in WIDTHS] + ["adult", "kdd"] + [f"search/numeric/{width}" for width in WIDTHS]
         + ["search/mixed/40", "search/mixed/200"])
ROWS, RATE = 40_000, 0.004

CHILD = """
import json
from benchmarks import report_speed
print(json.dumps(report_speed.measure({case!r})))
"""


def numeric_schema(width: int, encoding: str = "centred", constant: bool = False) -> Any:
    """``width`` numeric columns in a public box of +-5 (as the rare-class table), every fifth with a missing
    indicator (a missing value imputed at 0)."""
    from dpcvx.data.preprocessing import NumericColumn, PublicSchema

    columns = tuple(NumericColumn(f"v{j}", -5.0, 5.0, missing=0.0 if j % 5 == 4 else None,
                                  missing_indicator=j % 5 == 4) for j in range(width))
    return PublicSchema(columns, norm=1.0, constant_feature=constant, encoding=encoding)


def hand_set_release(schema: Any, seed: int, standardise: bool = True) -> tuple[Any, np.ndarray, float, float]:
    """(row map, coef, lo, hi) of a hand-set binary release on ``schema``: a ColumnStandardiser (centre U(-0.3, 0.3),
    multiplier U(0.5, 3), clip 1.5, input bound 1; none without ``standardise``), R = 1, coef ~ N(0, 1) (seed
    ``seed + 1``), and [lo, hi] score_range's bounds at intercept 0."""
    from dpcvx.data.rows import RowMap
    from dpcvx.data.standardiser import ColumnStandardiser
    from dpcvx.release import encodable

    rng = np.random.default_rng(seed)
    d = schema.dimension
    feature_map = ColumnStandardiser(rng.uniform(-0.3, 0.3, d), rng.uniform(0.5, 3.0, d), 1.0, clip=1.5,
                                     input_bound=1.0) if standardise else None
    rows = RowMap(norm_bound=1.0, feature_map=feature_map, fit_intercept=True)
    coef = np.random.default_rng(seed + 1).normal(size=d)
    bounds = encodable.score_range(coef, 0.0, rows, schema)
    assert bounds is not None
    return rows, coef, bounds[0], bounds[1]


def search(case: str) -> dict[str, Any]:
    """In a child process: the least CPU seconds of two ``encodable_class`` calls on ``case``'s hand-set release."""
    from benchmarks.encodable_cost import near_constant_release
    from dpcvx.release import encodable

    kind, width = case.split("/")[1:]
    if kind == "numeric":
        schema = numeric_schema(int(width))
        rows, coef, lo, hi = hand_set_release(schema, 0)
        f = 0.45
    else:
        schema, rows, coef, lo, hi = near_constant_release(int(width) // 2)
        f = 0.3
    seconds, answers = [], set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the hand-set releases' schema warnings are not what is measured
        for _ in range(2):
            start = time.process_time()
            answers.add(encodable.encodable_class(coef, -(lo + hi) / 2 + f * (hi - lo), rows, schema))
            seconds.append(time.process_time() - start)
    return {"cpu_seconds": min(seconds), "columns": len(schema.columns), "encodable": answers.pop(),
            "near_one_class": None, "digest": ""}


def table(case: str) -> tuple[np.ndarray, np.ndarray, Any]:
    """(encoded rows, labels, the public schema) of ``case`` (the module docstring), seeded."""
    import dpcvx
    from dpcvx.data.uci_domains import adult_schema, kdd_schema
    from dpcvx.release.encodable import domain_draws

    rng = np.random.default_rng(0)
    if case.startswith("numeric/"):
        width = int(case.split("/")[1])
        V = rng.normal(0, 1, (ROWS, width))
        schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"v{j}", -5, 5) for j in range(width)), norm=1.0)
        import pandas as pd

        X = np.asarray(schema.fit_transform(pd.DataFrame(V, columns=[f"v{j}" for j in range(width)])), dtype=float)
    else:
        schema = {"adult": adult_schema, "kdd": kdd_schema}[case]()
        V = domain_draws(schema, ROWS, rng)
        X = schema.onto_norm(V)
    weights = np.zeros(V.shape[1])
    weights[:4] = [-1.2, 0.9, 1.1, -0.8]
    logit = V @ weights + np.log(RATE / (1 - RATE)) - 1.0
    y = (rng.random(ROWS) < 1 / (1 + np.exp(-logit))).astype(int)
    return X, y, schema


def measure(case: str) -> dict[str, Any]:
    """In a child process: the least CPU seconds of two ``model.report()`` calls on ``case``'s saved release, and
    what the report says."""
    import dpcvx

    if case.startswith("search/"):
        return search(case)
    X, y, schema = table(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit's advice about the rare class is not what is measured
        estimator = dpcvx.DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y)
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "model.json"
            dpcvx.save(estimator, path, schema=schema)
            model = dpcvx.load(path)
        seconds = []
        for _ in range(2):
            start = time.process_time()
            report = model.report()
            seconds.append(time.process_time() - start)
        text = report.to_markdown()
    return {"cpu_seconds": min(seconds), "columns": len(schema.columns), "encodable": report.encodable is not None,
            "near_one_class": report.nearly_one_class is not None,
            "digest": hashlib.sha256(text.encode()).hexdigest()[:16]}


def run(args: argparse.Namespace) -> dict[str, Any]:
    rows = []
    for case in args.cases:
        outputs = common.alternating(Path(args.before), args.processes, CHILD.format(case=case))
        before = min(output["cpu_seconds"] for output in outputs["before"])
        after = min(output["cpu_seconds"] for output in outputs["after"])
        said = {(output["digest"], output["encodable"], output["near_one_class"])
                for name in outputs for output in outputs[name]}
        rows.append({"case": case, "columns": outputs["after"][0]["columns"], "before": outputs["before"],
                     "after": outputs["after"], "before_cpu": round(before, 3), "after_cpu": round(after, 3),
                     "ratio": round(before / after, 1) if after > 0 else None, "same_report": len(said) == 1,
                     "encodable": outputs["after"][0]["encodable"],
                     "near_one_class": outputs["after"][0]["near_one_class"]})
        print(json.dumps(rows[-1]), flush=True)
    return {"rows": rows}


def markdown(result: dict[str, Any], args: argparse.Namespace) -> str:
    lines = ["# report_speed", "",
             "CPU seconds of `model.report()` (the lesser of two calls, `time.process_time`) on a default binary "
             "release saved with its schema; the tree before (`--before`) and this one in alternating processes "
             "(rule: the docstring of benchmarks/report_speed.py, written before the run). \"same report\": every "
             "process of both trees wrote the same Markdown and the same statements. The `search/` rows time "
             "`encodable_class` alone on a hand-set release whose first bounds straddle the cut (\"encodable said\": "
             "its answer).", "",
             f"Before: `{args.before}`; {args.processes} processes per tree and case.", "",
             "| case | columns | before (CPU s, per process) | after (CPU s, per process) | before / after (least) "
             "| same report | encodable said | near one class said |", "|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        before, after = (" / ".join(f"{output['cpu_seconds']:.2f}" for output in row[name])
                         for name in ("before", "after"))
        lines.append(f"| {row['case']} | {row['columns']} | {before} | {after} | {row['ratio']} | "
                     f"{row['same_report']} | {row['encodable']} | {row['near_one_class']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="a dpcvx tree to compare against (its root)")
    parser.add_argument("--processes", type=int, default=2, help="processes per tree and case")
    parser.add_argument("--cases", nargs="+", default=CASES)
    common.add_result_arguments(parser, "report_speed")
    return common.run_recorded("benchmarks.report_speed", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
