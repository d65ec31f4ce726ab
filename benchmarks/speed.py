"""Fit time of dpcvx's private logistic regression and Huber SVM against scikit-learn and diffprivlib.

For Adult and KDD Cup 99 (10%) at several n, every method is fitted in turn
in ONE process, in an order rotated at each repetition (interleaved), so a
change of machine load hits all methods alike; the reported figure is the
median over repetitions of the per-repetition time ratio, with its 25th and
75th percentiles. Methods:

* dpcvx ``PrivateERM.fit`` with the logistic loss and the Huber hinge
  (h = 0.5), objective and output perturbation (output includes its exact
  solve: no caching here), and dpcvx's non-private fit;
* scikit-learn ``LogisticRegression`` (lbfgs, its defaults tol=1e-4,
  max_iter=100), non-private, the same objective (C = 1/(n Lam), constant
  feature, no separate intercept);
* diffprivlib 0.6.6 ``LogisticRegression`` (objective perturbation,
  data_norm=1, C = 1/(n Lam), no separate intercept).

Each fit's relative optimality residual of its own objective is computed by
:func:`benchmarks.common.relative_residual` (dpcvx.solvers.objective), outside the
timed region: dpcvx's from its solve record, scikit-learn's for J, and
diffprivlib's for its perturbed objective (noise read from its own mechanism
with the same seed).

    python -m benchmarks.speed --quick
    python -m benchmarks.speed            # full: KDD up to all 494,021 rows, 11 repetitions
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common, report

QUICK = {"repeats": 3, "adult": [1_000, 10_000, None], "kdd": [1_000, 10_000, 70_000, None]}
QUICK_LARGE = 100_000  # quick mode times sizes above this once (a measured slice of the full run)
FULL = {"repeats": 11, "adult": [1_000, 10_000, None], "kdd": [1_000, 10_000, 70_000, None]}
DEFAULT_LAM = 10 ** -2.5
DEFAULT_EPS = 0.1

NOTES = [
    "Each ratio is computed within one repetition (all methods fitted back to back, order rotated per "
    "repetition), then the median and quartiles over repetitions are reported.",
    "dpcvx times are whole PrivateERM.fit / fit_nonprivate calls (input checks, verification from "
    "its cache, calibration, noise, Newton solve to a relative residual <= 1e-10, certificate); "
    "output perturbation includes its exact solve.",
    "scikit-learn LogisticRegression(lbfgs) stops at its default tol=1e-4 (on the projected "
    "gradient of its own scaling of the objective) or max_iter=100; diffprivlib's lbfgs at pgtol=1e-4, "
    "at most 100 iterations. Their residual columns say how far from the exact minimiser that is, "
    "measured exactly as dpcvx measures its own (dpcvx.solvers.objective relative residual).",
    "The dpcvx residual of output perturbation is that of the unperturbed solve (noise is added after).",
    "Neither peer fits the Huber hinge; Huber ratios use the same logistic-regression peers as a "
    "reference point of cost, not of the same problem.",
    "Absolute seconds depend on the machine and its load; only the interleaved ratios are meant to "
    "be compared, and only runs on a quiet machine are final.",
]


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"quick mode: {QUICK['repeats']} repetitions (1 above {QUICK_LARGE:,} rows)")
    parser.add_argument("--out", type=str, default=str(common.RESULTS_DIR), help="output directory")
    parser.add_argument("--jobs", type=int, default=1,
                        help="must be 1: timings are interleaved in one process by design")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP threads for every method (threadpoolctl); recorded")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--datasets", nargs="+", default=["adult", "kdd"], choices=common.DATASETS)
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="row counts for every data set (default: the mode's list; 0 = all rows)")
    parser.add_argument("--mode", default="private", choices=common.MODES,
                        help="preprocessing mode (paper mode reads bounds off the data: NOT private)")
    parser.add_argument("--lam", type=float, default=DEFAULT_LAM)
    parser.add_argument("--epsilon", type=float, default=DEFAULT_EPS)
    parser.add_argument("--peers", nargs="*", default=["sklearn", "diffprivlib"], choices=["sklearn", "diffprivlib"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tag", default=None, help="file name tag (default: quick or full)")
    args = parser.parse_args(argv)
    if args.jobs != 1:
        parser.error("--jobs must be 1: the methods are timed interleaved in one process, and a second "
                     "process would compete with them for the 2 cores")
    preset = QUICK if args.quick else FULL
    args.repeats = preset["repeats"] if args.repeats is None else args.repeats
    args.tag = args.tag or ("quick" if args.quick else "full")
    args.preset = preset
    return args


def _methods(lam: float, epsilon: float, peers: list[str], seed: int):
    """name -> callable(X, y, rep) -> (seconds, residual, iterations, what)."""
    def dpcvx_fit(loss_name: str, mechanism: str | None):
        def run(X, y, rep):
            erm = dpcvx.PrivateERM(common.LOSSES[loss_name], lam=lam, data_norm=common.DATA_NORM)
            start = time.perf_counter()
            if mechanism is None:
                erm.fit_nonprivate(X, y)
            else:
                erm.fit(X, y, epsilon, mechanism, random_state=common.generator(seed, rep, 1))
            seconds = time.perf_counter() - start
            info = erm.diagnostics_  # measured on the data: fine for a benchmark, never published
            return seconds, info.relative_residual, info.iterations, "PrivateERM.fit" if mechanism else "fit_nonprivate"
        return run

    methods = {
        "dpcvx LR objective": dpcvx_fit("logistic", "objective"),
        "dpcvx LR output": dpcvx_fit("logistic", "output"),
        "dpcvx Huber objective": dpcvx_fit("huber", "objective"),
        "dpcvx Huber output": dpcvx_fit("huber", "output"),
        "dpcvx LR non-private": dpcvx_fit("logistic", None),
    }
    if "sklearn" in peers:
        def sklearn_fit(X, y, rep):
            model, seconds, _ = common.fit_sklearn(X, y, lam)
            residual = common.relative_residual(common.LOSSES["logistic"], X, y, lam, model.coef_)
            return seconds, residual, int(np.max(model.n_iter_)), "LogisticRegression.fit (lbfgs)"
        methods["sklearn lbfgs"] = sklearn_fit
    if "diffprivlib" in peers:
        def dpl_fit(X, y, rep):
            dpl_seed = common.int_seed(seed, rep, 2)
            model, seconds, _ = common.fit_diffprivlib(X, y, lam, epsilon, dpl_seed)
            b, delta = common.diffprivlib_perturbation(X.shape[0], X.shape[1], lam, epsilon, dpl_seed)
            residual = common.relative_residual(common.LOSSES["logistic"], X, y, lam, model.coef_, b, delta)
            return seconds, residual, int(np.max(model.n_iter_)), "LogisticRegression.fit (objective pert.)"
        methods["diffprivlib"] = dpl_fit
    return methods


def _quartiles(values) -> dict:
    array = np.asarray(values, dtype=float)
    return {"median": float(np.median(array)), "p25": float(np.percentile(array, 25)),
            "p75": float(np.percentile(array, 75)), "values": [float(v) for v in array]}


def time_size(data: common.Data, n: int, methods: dict, repeats: int, seed: int) -> dict:
    """Interleaved repetitions of every method on a seeded subset of n rows."""
    if n < data.X.shape[0]:
        rows = np.sort(np.random.default_rng(seed).permutation(data.X.shape[0])[:n])
        X, y = data.X[rows], data.y[rows]
    else:
        X, y = data.X, data.y
    names = list(methods)
    records = {name: [] for name in names}
    for rep in range(repeats):
        order = names[rep % len(names):] + names[:rep % len(names)]
        for name in order:
            records[name].append(methods[name](X, y, rep))
    summary = {}
    for name, runs in records.items():
        seconds = [r[0] for r in runs]
        summary[name] = {
            "seconds": seconds,
            "seconds_median": float(np.median(seconds)),
            "seconds_min": float(np.min(seconds)),
            "seconds_max": float(np.max(seconds)),
            "residual_median": float(np.median([r[1] for r in runs])),
            "residual_max": float(np.max([r[1] for r in runs])),
            "iterations_median": int(np.median([r[2] for r in runs])),
            "what": runs[0][3],
        }
    ratios = {}
    for peer in ("sklearn lbfgs", "diffprivlib"):
        if peer not in records:
            continue
        for name in names:
            if not name.startswith("dpcvx"):
                continue
            if peer == "diffprivlib" and name == "dpcvx LR non-private":
                continue
            per_rep = [a[0] / b[0] for a, b in zip(records[name], records[peer], strict=True)]
            ratios[f"{name} / {peer}"] = _quartiles(per_rep)
    return {"data": data.key, "n": int(X.shape[0]), "d": int(X.shape[1]), "methods": summary, "ratios": ratios}


def estimate_full(sizes_out: list[dict]) -> dict:
    """Wall time of the full speed run, extrapolated from this run's time per repetition.

    For each (data set, n) of the full list: this run's time per repetition
    (all methods plus the residual computations) if n was measured, else the
    largest measured n of that data set scaled linearly in n; times the full
    repetition count. Loading the data is not included.
    """
    per_rep = {(e["data"].split("/")[0], e["n"]): e["seconds_total"] / e["repeats"] for e in sizes_out}
    total, missing = 0.0, []
    full_n = {"adult": 45_222, "kdd": 494_021}
    for name, sizes in FULL.items():
        if name == "repeats":
            continue
        measured = {n: t for (data, n), t in per_rep.items() if data == name}
        if not measured:
            missing.append(name)
            continue
        largest = max(measured)
        for n in sizes:
            n = full_n[name] if n is None else n
            total += FULL["repeats"] * (measured[n] if n in measured else measured[largest] * n / largest)
    return {
        "wall_seconds": round(total),
        "wall_minutes": round(total / 60, 1),
        "method": (f"time per repetition measured here for each (data, n); sizes not measured scaled linearly "
                   f"in n from the largest measured size of that data set; times {FULL['repeats']} repetitions; "
                   "data loading excluded; under this run's load"),
        "data_sets_not_measured": missing,
    }


def main(argv=None) -> dict:
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.speed", argv)
    peers, skipped = common.usable_peers(args.peers, "speed")
    methods = _methods(args.lam, args.epsilon, peers, args.seed)
    sizes_out = []
    with common.limit_threads(args.threads):
        threads = common.thread_settings()
        warmed = False
        for name in args.datasets:
            sizes = args.sizes or args.preset.get(name, [1_000])
            sizes = [None if s in (None, 0) else s for s in sizes]
            kdd_rows = None if name == "kdd" and None in sizes else 70_000
            data = common.load_data(name, args.mode, kdd_rows=kdd_rows, seed=args.seed)
            if not warmed:  # first calls pay imports and the verifier's symbolic proofs: not timed
                small = common.load_data(name, args.mode, kdd_rows=kdd_rows, seed=args.seed,
                                         max_rows=min(200, data.X.shape[0]))
                for method in methods.values():
                    method(small.X, small.y, 0)
                warmed = True
            for n in sizes:
                n = data.X.shape[0] if n is None else min(n, data.X.shape[0])
                start = time.perf_counter()
                repeats = 1 if args.quick and n > QUICK_LARGE else args.repeats
                entry = time_size(data, n, methods, repeats, args.seed)
                entry["repeats"] = repeats
                entry["seconds_total"] = round(time.perf_counter() - start, 1)
                entry["load_average_after"] = common.load_average()
                sizes_out.append(entry)
                print(f"[speed] {data.key} n={n}: " + ", ".join(
                    f"{k} {v['median']:.2f}" for k, v in entry["ratios"].items()), file=sys.stderr)
    run = record.finish()
    run["threads"] = threads
    output = {
        "kind": "speed", "tag": args.tag, "quick": bool(args.quick), "run": run,
        "config": {"repeats": args.repeats, "lam": args.lam, "epsilon": args.epsilon, "mode": args.mode,
                   "threads": args.threads, "seed": args.seed,
                   "sizes": {name: args.sizes or args.preset.get(name) for name in args.datasets}},
        "peers": {"run": peers, "skipped": skipped},
        "notes": NOTES,
        "sizes": sizes_out,
        "full_run_estimate": estimate_full(sizes_out),
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"speed_{args.tag}"
    common.write_json(out / f"{stem}.json", output)
    (out / f"{stem}.md").write_text(report.speed_markdown(output))
    print(f"[speed] wrote {out / stem}.json/.md in {run['run_seconds']} s", file=sys.stderr)
    return output


if __name__ == "__main__":
    main()
