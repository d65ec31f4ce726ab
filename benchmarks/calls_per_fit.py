"""How often one fit (and one tune) plans, validates and builds the same values (issue 41, "plan once").

A profiler hook (:func:`sys.setprofile`) counts, during one warm call, every call of a function defined in
``dpcvx/`` (the "calls into dpcvx") and, among them, the constructions and checks the issue names:

* ``PrivateERM`` built (its ``__init__``), ``SolverChoice`` and ``RowMap`` constructed;
* the classes checked (``check_classes`` and ``check_public_classes``);
* the mechanism's name parsed: each check of it, ``check_choice("mechanism", ...)``, the one ``Mechanism.of`` makes of
  a name included (an already-typed ``Mechanism`` it returns unchecked is no parse);
* plannings: ``PrivateERM._prepare`` (before issue 41) or a ``FitPlan`` or AdaSSP's ``AdaSSPPlan`` constructed
  (after);
* AdaSSP's calibrations (``PrivateLinearRegression.calibrate``, its calibration hook).

Measured on ``DPLogisticRegression(epsilon=1).fit`` of 2,000 x 10 synthetic rows at ``lam=1e-3`` and at
``lam="auto"``, on ``PrivateMulticlassERM`` (one-vs-rest, 3 classes) of the same rows, and on
``dpcvx.tune(PrivateERM(data_norm=1), ..., {"lam": [3 values]}, procedure="full-data")`` of 400 rows with a
seed whose random stopping draws 17 runs, and the same tune of ``DPLogisticRegression()`` candidates (budget in
the constructor, :class:`dpcvx.BudgetInConstructor`); the same full-data tune of candidates that first draw private
column statistics (``PrivateERM(column_statistics=True)``), a private bound (``data_norm="private"``) or a private
class count (``class_weight="balanced"``: its weights; ``class_prior="private"``: its intercept offset), one-vs-rest
candidates (3 classes, epsilon 3) over a binary learner that draws a class count, estimator candidates that draw the
classifiers' ranges or a private bound first, the default ``DPLogisticRegression(class_weight="balanced")`` on 8,000 x 3
rows (its "auto" draws the ranges, composed with a private class count),
``tune(DPLinearRegression(), ..., procedure="split", delta=1e-6)`` of 3 AdaSSP candidates on 400 regression rows, and
the full-data tune of 3 ``DPHuberRegressor(data_norm="private")`` candidates on those rows.
Counts do not depend on the machine::

    python -m benchmarks.calls_per_fit            # about 10 s on one core
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, limit_threads, write_json, write_markdown
from dpcvx.demo import synthetic_classification

RESULTS = Path(__file__).resolve().parent / "results"
PACKAGE = str(Path(dpcvx.__file__).resolve().parent)
TUNE_SEED = 31  # draws K = 17 runs of 3 candidates (checked below)
TUNE_RUNS = 17
#: rows of 3 columns at which the runs of a tune at epsilon 1 (each run's fit at epsilon 1/3 on its part of the
#: rows) resolve DPLogisticRegression()'s column_statistics="auto" to the ranges
#: (models.column_statistics.ranges_by_default: T / AUTO_ROWS = 4,991 rows at epsilon 1/3; checked below)
BALANCED_ROWS = 8000
CONSTRUCTED = {"PrivateERM": "PrivateERM built", "SolverChoice": "SolverChoice built", "RowMap": "RowMap built",
               "FitPlan": "plannings", "AdaSSPPlan": "plannings"}
CALLED = {"check_classes": "classes checked", "check_public_classes": "classes checked",
          "PrivateERM._prepare": "plannings", "PrivateLinearRegression.calibrate": "AdaSSP calibrations"}
ROWS = ("calls into dpcvx", "PrivateERM built", "SolverChoice built", "RowMap built", "classes checked",
        "mechanism parsed", "plannings", "AdaSSP calibrations")


def _counted(call: Callable[[], Any]) -> Counter:
    """The counts of :data:`ROWS` during ``call()``."""
    counts: Counter = Counter()

    def hook(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        if code.co_name == "__init__" and "self" in frame.f_locals:  # a dataclass's __init__ is in "<string>"
            kind = type(frame.f_locals["self"])
            if kind.__name__ in CONSTRUCTED and kind.__module__.startswith("dpcvx."):
                counts[CONSTRUCTED[kind.__name__]] += 1
        if not code.co_filename.startswith(PACKAGE):
            return
        counts["calls into dpcvx"] += 1
        name = code.co_qualname
        if name in CALLED:
            counts[CALLED[name]] += 1
        elif name == "check_choice" and frame.f_locals.get("name") == "mechanism":
            counts["mechanism parsed"] += 1

    sys.setprofile(hook)
    try:
        call()
    finally:
        sys.setprofile(None)
    return counts


def measure() -> dict[str, dict[str, int]]:
    """The counts of one warm estimator fit at a numeric lam and at lam="auto", and of one tune."""
    X, y = synthetic_classification(n=2000, d=10, random_state=0)
    labels = y > 0
    results: dict[str, dict[str, int]] = {}
    for lam in (1e-3, "auto"):
        def fit(lam: float | str = lam) -> None:
            dpcvx.DPLogisticRegression(epsilon=1.0, lam=lam, random_state=0).fit(X, labels)
        fit()  # warm: verified loss, imported solver
        results[f"DPLogisticRegression.fit, lam={lam}"] = dict(_counted(fit))
    classes = np.where(X[:, 1] > 0.2, 2, labels.astype(int))

    def one_vs_rest() -> None:
        dpcvx.PrivateMulticlassERM(dpcvx.PrivateERM(data_norm=1.0), (0, 1, 2)).fit(X, classes, 3.0, random_state=0)

    one_vs_rest()  # warm
    results["PrivateMulticlassERM.fit, 3 classes"] = dict(_counted(one_vs_rest))
    Xt, yt = X[:400], y[:400]
    learner = dpcvx.PrivateERM(data_norm=1.0)
    grid = {"lam": [1e-3, 1e-2, 1e-1]}
    outcome: list[Any] = []
    Xb, yb = synthetic_classification(n=BALANCED_ROWS, d=3, random_state=1)  # the default "auto" draws the ranges
    for name, tuned, rows, labels in (
            ("tune", learner, Xt, yt),
            ("tune, DPLogisticRegression candidates", dpcvx.DPLogisticRegression(), Xt, yt > 0),
            ("tune, DPLogisticRegression(column_statistics='ranges') candidates",
             dpcvx.DPLogisticRegression(column_statistics="ranges"), Xt, yt > 0),
            ("tune, DPLogisticRegression(data_norm='private') candidates",
             dpcvx.DPLogisticRegression(data_norm="private", norm_range=(0.25, 4.0)), Xt, yt > 0),
            (f"tune, DPLogisticRegression(class_weight='balanced') candidates on {BALANCED_ROWS:,} x 3 rows "
             "(the ranges and a class count)", dpcvx.DPLogisticRegression(class_weight="balanced"), Xb, yb > 0)):
        def run_tune(tuned: Any = tuned, rows: np.ndarray = rows, labels: np.ndarray = labels) -> None:
            outcome.append(dpcvx.tune(tuned, rows, labels, grid, epsilon=1.0, random_state=TUNE_SEED))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the mapped rows' clipping counts (NOT PRIVATE, not measured)
            run_tune()  # warm
            counts = dict(_counted(run_tune))
        runs = outcome[-1].diagnostics_["runs"]
        if runs != TUNE_RUNS:
            raise RuntimeError(f"the seed {TUNE_SEED} drew {runs} runs, not {TUNE_RUNS}")
        if rows is Xb and outcome[-1].model.certificate_.column_statistics is None:
            raise RuntimeError(f"the default did not draw the ranges on {BALANCED_ROWS} rows")
        results[f"{name}, 3 candidates, {runs} runs"] = counts
    composites = {"column statistics": lambda lam: dpcvx.PrivateERM(data_norm=1.0, lam=lam, column_statistics=True),
                  "private bound": lambda lam: dpcvx.PrivateERM(data_norm="private", norm_range=(0.25, 4.0), lam=lam),
                  "private class count": lambda lam: dpcvx.PrivateERM(data_norm=1.0, lam=lam,
                                                                      class_weight="balanced"),
                  "private intercept offset": lambda lam: dpcvx.PrivateERM(data_norm=1.0, lam=lam, fit_intercept=True,
                                                                           class_prior="private"),
                  "one-vs-rest (3 classes), private class count": lambda lam: dpcvx.PrivateMulticlassERM(
                      dpcvx.PrivateERM(data_norm=1.0, lam=lam, class_weight="balanced"), (0, 1, 2))}
    for name, make in composites.items():
        def run_composite(make: Any = make, labels: np.ndarray = classes[:400] if "one-vs-rest" in name else yt,
                          epsilon: float = 3.0 if "one-vs-rest" in name else 1.0) -> None:
            outcome.append(dpcvx.tune(make, Xt, labels, grid, epsilon=epsilon, random_state=TUNE_SEED))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the standardised rows' clipping counts (NOT PRIVATE, not measured)
            run_composite()  # warm
            counts = dict(_counted(run_composite))
        results[f"tune, {name} candidates, 3 candidates, {outcome[-1].diagnostics_['runs']} runs"] = counts
    rng = np.random.default_rng(3)
    Xr = rng.uniform(-1, 1, (400, 3)) / np.sqrt(3)
    yr = np.clip(Xr @ np.array([0.5, -0.3, 0.2]) + 0.1 * rng.standard_normal(400), -1, 1)

    def run_adassp() -> None:
        dpcvx.tune(dpcvx.DPLinearRegression(mechanism="adassp"), Xr, yr, {"lam": [0.0, 0.01, 0.1]}, epsilon=1.0,
                   delta=1e-6, procedure="split", random_state=TUNE_SEED)

    run_adassp()  # warm
    results["tune (split), DPLinearRegression candidates, 3 candidates"] = dict(_counted(run_adassp))

    def run_huber() -> None:
        outcome.append(dpcvx.tune(dpcvx.DPHuberRegressor(data_norm="private", norm_range=(0.25, 4.0)), Xr, yr,
                                  grid, epsilon=1.0, random_state=TUNE_SEED))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the clipping counts at the drawn bound (NOT PRIVATE, not measured)
        run_huber()  # warm
        counts = dict(_counted(run_huber))
    results[f"tune, DPHuberRegressor(data_norm='private') candidates, 3 candidates, "
            f"{outcome[-1].diagnostics_['runs']} runs"] = counts
    return results


def table(label: str, counts: dict[str, dict[str, int]]) -> list[str]:
    """The Markdown table of one labelled measurement."""
    return [f"## {label}", "", "| count | " + " | ".join(counts) + " |", "|---" * (len(counts) + 1) + "|",
            *("| " + row + " | " + " | ".join(str(column.get(row, 0)) for column in counts.values()) + " |"
              for row in ROWS), ""]


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--label", default="after", help="the name of this measurement (e.g. before, after); "
                        "the measurements of other labels already in the results file are kept")
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.calls_per_fit", argv)
    with limit_threads(1):
        counts = measure()
    path = args.out / "calls_per_fit.json"
    recorded = json.loads(path.read_text()) if path.exists() else {}
    recorded[args.label] = {"counts": counts, "run": record.finish()}
    write_json(path, recorded)
    lines = ["# Calls per fit and per tune", "",
             "Counted by a profiler hook during one warm call (benchmarks/calls_per_fit.py); counts do not depend "
             "on the machine. \"before\" is main at 128777d (before issue 41's plan object), \"a1bf021\" main before "
             "estimator candidates of tune were planned once, \"6c4583a\" with it, \"54d9d04\" main before AdaSSP "
             "and the composite draws (column statistics, a private bound) planned once, \"4c3a013\" main with "
             "them, before a private class count was planned once, \"d079bf0\" with it, before estimator "
             "candidates that draw first were planned once, \"26e78ca\" with them, before one-vs-rest candidates "
             "over a binary learner that draws first were planned once, \"dbe414d\" with them, before regressor "
             "candidates that draw a private bound were planned once, \"207edc3\" with them, before default "
             "balanced candidates (the ranges and a class count) were planned once, \"after\" with them, "
             "re-recorded on 2026-12-07 once each estimator fit built one learner again (branch fixL: the "
             "classifiers had built 3 per fit since d92c8040); its other rows moved with later changes (calls into "
             "dpcvx about 2,060 per fit, not the learners: building one is a handful of calls); re-recorded again "
             "on 2026-12-07 once a typed mechanism passed every layer unchecked (branch fixL2: since dcd52d11 "
             "Mechanism.of had checked every value given, typed or not; a parse is now counted as each check of "
             "the name, check_choice('mechanism', ...), where the earlier labels also counted a Mechanism.of "
             "given a str, so its earlier record's 12 per fit were 9 checks, now 1). In "
             "the estimator-candidate columns 3 of the plannings (and PrivateERM built) are not fits: "
             "NoiseDominatesWarning's advice plans lam=\"auto\" from public inputs (`choose_lam`). A column "
             "measured in one run only was not measured in the others.",
             ""]
    for label, measured in recorded.items():
        lines += table(label, measured["counts"])
        if label != args.label:  # this run's record closes the file
            lines += [f"Recorded by `{measured['run']['command']}` on {measured['run']['date_utc']} (UTC).", ""]
    print(write_markdown(args.out / "calls_per_fit.md", "\n".join(lines), record))
    return recorded[args.label]


if __name__ == "__main__":
    main()
