"""Reproduce Section 7 of Chaudhuri, Monteleoni, Sarwate (JMLR 2011) with dpcvx, beside its peers.

For each data set (Adult; KDD Cup 99 10%, random 70,000 rows) and each
preprocessing mode (``paper``: column max-scaling as the paper did, which
reads the data; ``private``: public bounds only), 10-fold cross-validation
times K noise draws of:

* dpcvx non-private (exact minimiser of J), output perturbation
  (Algorithm 1), objective perturbation (Algorithm 2) with the paper's
  budget split and with ``split="max"``; logistic loss and Huber hinge
  (h = 0.5); the paper's grids of Lam and epsilon;
* scikit-learn ``LogisticRegression`` (non-private, lbfgs, same objective);
* diffprivlib 0.6.6 ``LogisticRegression`` (objective perturbation), same
  rows, same Lam, same folds (skipped with the reason when not installed).

Cost. The non-private minimiser is solved once per (fold, Lam, loss), and
every private fit starts there (``PrivateERM.fit(warm_start=...)``, public
API). Output perturbation then releases that point plus fresh noise: Newton
finds it already within the public gradient bound and takes no step, so each
draw costs the checks and the noise (the release equals a cold-started fit's,
as tests/project/test_benchmarks.py checks). Objective perturbation takes a few Newton
steps from there per draw. Where the paper split and
``split="max"`` calibrate identically (same eps', Delta and beta: whenever the
paper's eps' >= eps/2, and in its Delta > 0 branch), the two are the same
mechanism on the same noise draw, so the draws are computed once and shared;
otherwise both splits use the same seed (common random numbers). Work units
(fold, loss, Lam) run in at most ``--jobs`` processes.

Outputs (``--out``, default benchmarks/results): ``reproduce_<tag>.json``
(every cell's error statistics, fit times, residuals, calibrations, the run
record), ``reproduce_<tag>.md`` (tables beside the paper's numbers) and
``reproduce_<tag>_<data>_<mode>.png`` (error against epsilon, best Lam per
epsilon chosen by test error, which is NOT a private selection, as in the
paper's figures).

    python -m benchmarks.reproduce_jmlr --quick          # minutes
    python -m benchmarks.reproduce_jmlr --jobs 2         # full: 10 folds x 50 draws
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common, report

DPCVX_METHODS = ("nonprivate", "output", "objective-paper", "objective-max")
PEER_METHODS = ("sklearn", "diffprivlib")
METHOD_STREAM = {"output": 1, "objective": 2, "diffprivlib": 3}

QUICK = {"folds_run": 1, "draws": 2, "peer_draws": 2, "epsilons": (0.01, 0.1, 1.0)}
FULL = {"folds_run": 10, "draws": 50, "peer_draws": 10, "epsilons": common.EPSILONS}

# Data and folds of the current run, set before the worker processes fork.
_STATE: dict = {}


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.reproduce_jmlr", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help=f"quick mode: {QUICK['folds_run']} of the 10 folds, K = {QUICK['draws']} draws, "
                             f"epsilon in {QUICK['epsilons']}")
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR, help="output directory")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (at most 2 on this machine)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads per process (threadpoolctl)")
    parser.add_argument("--datasets", nargs="+", default=["adult", "kdd"], choices=common.DATASETS)
    parser.add_argument("--modes", nargs="+", default=list(common.MODES), choices=common.MODES)
    parser.add_argument("--losses", nargs="+", default=list(common.LOSSES), choices=list(common.LOSSES))
    parser.add_argument("--folds", type=int, default=10, help="cross-validation folds (the paper: 10)")
    parser.add_argument("--folds-run", type=int, default=None, help="how many of the folds to run")
    parser.add_argument("--draws", type=int, default=None, help="noise draws K per fold (full: 50)")
    parser.add_argument("--peer-draws", type=int, default=None,
                        help="noise draws per fold for diffprivlib (full: 10; at most --draws)")
    parser.add_argument("--lam-index", type=int, nargs="+", default=None,
                        help="indices into the Lam grid 1e-4 .. 10^-1.5 (default: all six)")
    parser.add_argument("--epsilons", type=float, nargs="+", default=None,
                        help="epsilon grid (default: the paper's seven values; quick mode: three)")
    parser.add_argument("--peers", nargs="*", default=list(PEER_METHODS), choices=PEER_METHODS,
                        help="peers to run (none: --peers with no names)")
    parser.add_argument("--seed", type=int, default=0, help="seed of folds, KDD subset and noise")
    parser.add_argument("--kdd-rows", type=int, default=70_000, help="KDD subset size (the paper: 70,000)")
    parser.add_argument("--max-rows", type=int, default=None, help="subsample every data set (tests)")
    parser.add_argument("--tag", default=None, help="file name tag (default: quick or full)")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--quiet", action="store_true", help="no per-unit progress lines on stderr")
    args = parser.parse_args(argv)
    preset = QUICK if args.quick else FULL
    args.folds_run = preset["folds_run"] if args.folds_run is None else args.folds_run
    args.draws = preset["draws"] if args.draws is None else args.draws
    args.peer_draws = min(args.draws, preset["peer_draws"] if args.peer_draws is None else args.peer_draws)
    args.epsilons = list(preset["epsilons"] if args.epsilons is None else args.epsilons)
    args.lam_index = list(range(len(common.LAMS))) if args.lam_index is None else args.lam_index
    args.tag = args.tag or ("quick" if args.quick else "full")
    if not 1 <= args.folds_run <= args.folds:
        parser.error("--folds-run must be between 1 and --folds")
    if args.jobs < 1 or args.draws < 1:
        parser.error("--jobs and --draws must be positive")
    return args


# -- one work unit: (data set, fold, loss, Lam) ---------------------------------------------------


def _new_entry() -> dict:
    return {"errors": [], "seconds": [], "residuals": [], "failures": 0, "shared": 0, "not_converged": 0}


def _fit_and_score(fit, X_test, y_test):
    """Run ``fit() -> (model, seconds, residual, converged)``; (test error, seconds, residual, converged).

    A release dpcvx refuses (SolverError: residual above tol) is an outcome
    of None, counted as a failure.
    """
    try:
        model, seconds, residual, converged = fit()
    except dpcvx.SolverError:
        return None
    return 1.0 - float(model.score(X_test, y_test)), seconds, residual, converged


def _record(entry: dict, outcome, shared: bool = False) -> None:
    if outcome is None:
        entry["failures"] += 1
        entry["errors"].append(math.nan)
    else:
        error, seconds, residual, converged = outcome
        entry["errors"].append(error)
        entry["seconds"].append(seconds)
        entry["residuals"].append(residual)
        entry["not_converged"] += 0 if converged else 1
    entry["shared"] += 1 if shared else 0


def _timed(call, learner):
    start = time.perf_counter()
    model = call()
    seconds = time.perf_counter() - start
    return model, seconds, learner.diagnostics_.relative_residual, True


class _Clock:
    """Accumulates wall time and this process's CPU time per named block."""

    def __init__(self):
        self.totals: dict = {}

    def __call__(self, name: str):
        clock = self

        class _Block:
            def __enter__(self):
                self.wall, self.cpu = time.perf_counter(), time.process_time()

            def __exit__(self, *exc):
                wall = clock.totals.setdefault(name, 0.0)
                clock.totals[name] = wall + time.perf_counter() - self.wall
                clock.totals[name + "_cpu"] = clock.totals.get(name + "_cpu", 0.0) + time.process_time() - self.cpu

        return _Block()


def run_unit(task: dict) -> dict:
    """All methods, epsilons and draws for one (data set, fold, loss, Lam)."""
    clock = _Clock()
    unit = clock("unit")
    unit.__enter__()
    data, folds = _STATE["data"][task["data"]], _STATE["folds"][task["data"]]
    train, test = folds[task["fold"]]
    X_train = np.asfortranarray(data.X[train])
    y_train = data.y[train]
    X_test, y_test = data.X[test], data.y[test]
    n, d = X_train.shape
    lam = common.LAMS[task["lam"]]
    loss_name, seed, draws = task["loss"], task["seed"], task["draws"]
    key = (task["data_index"], task["fold"], list(common.LOSSES).index(loss_name), task["lam"])
    erm = dpcvx.PrivateERM(common.LOSSES[loss_name], lam=lam, data_norm=common.DATA_NORM)
    entries: dict = {}

    entry = entries.setdefault(("nonprivate", None), _new_entry())
    with clock("exact_solve"):
        nonprivate = erm.fit_nonprivate(X_train, y_train)
        _record(entry, _fit_and_score(lambda: _timed(lambda: nonprivate, erm), X_test, y_test))

    calibrations = {}
    for e_index, epsilon in enumerate(task["epsilons"]):
        cal = {split: erm.calibration(n, d, epsilon, "objective", split=split) for split in ("paper", "max")}
        same = all(getattr(cal["paper"], k) == getattr(cal["max"], k)
                   for k in ("epsilon_prime", "extra_reg", "beta"))
        calibrations[e_index] = {
            "paper": {"epsilon_prime": cal["paper"].epsilon_prime, "extra_reg": cal["paper"].extra_reg},
            "max": {"epsilon_prime": cal["max"].epsilon_prime, "extra_reg": cal["max"].extra_reg},
            "identical": same,
        }
        out = entries.setdefault(("output", e_index), _new_entry())
        obj_max = entries.setdefault(("objective-max", e_index), _new_entry())
        obj_paper = entries.setdefault(("objective-paper", e_index), _new_entry())
        for draw in range(draws):
            with clock("output_draws"):
                rng = common.generator(seed, *key, e_index, draw, METHOD_STREAM["output"])
                # starts at the non-private minimiser, already within the bound: the same release
                _record(out, _fit_and_score(lambda epsilon=epsilon, rng=rng: _timed(lambda: erm.fit(
                    X_train, y_train, epsilon, "output", random_state=rng, warm_start=nonprivate), erm),
                    X_test, y_test))
            with clock("objective_draws"):
                outcome = None
                for split, target in (("max", obj_max), ("paper", obj_paper)):
                    if split == "paper" and same:  # same mechanism, same draw: share the result
                        _record(obj_paper, outcome, shared=True)
                        continue
                    rng = common.generator(seed, *key, e_index, draw, METHOD_STREAM["objective"])
                    # Newton starts at the non-private minimiser: same release, fewer steps
                    outcome = _fit_and_score(lambda epsilon=epsilon, split=split, rng=rng: _timed(lambda: erm.fit(
                        X_train, y_train, epsilon, "objective", split=split, random_state=rng,
                        warm_start=nonprivate), erm), X_test, y_test)
                    _record(target, outcome)

    if loss_name == "logistic" and "sklearn" in task["peers"]:
        entry = entries.setdefault(("sklearn", None), _new_entry())

        def fit_sklearn():
            model, seconds, converged = common.fit_sklearn(X_train, y_train, lam)
            residual = common.relative_residual(erm.loss, X_train, y_train, lam, model.coef_)
            return model, seconds, residual, converged

        with clock("sklearn"):
            _record(entry, _fit_and_score(fit_sklearn, X_test, y_test))
    if loss_name == "logistic" and "diffprivlib" in task["peers"]:
        for e_index, epsilon in enumerate(task["epsilons"]):
            entry = entries.setdefault(("diffprivlib", e_index), _new_entry())
            for draw in range(min(draws, task["peer_draws"])):
                dpl_seed = common.int_seed(seed, *key, e_index, draw, METHOD_STREAM["diffprivlib"])

                def fit_dpl(epsilon=epsilon, dpl_seed=dpl_seed):
                    model, seconds, converged = common.fit_diffprivlib(X_train, y_train, lam, epsilon, dpl_seed)
                    b, delta = common.diffprivlib_perturbation(n, d, lam, epsilon, dpl_seed)
                    residual = common.relative_residual(erm.loss, X_train, y_train, lam, model.coef_, b, delta)
                    return model, seconds, residual, converged

                with clock("diffprivlib"):
                    _record(entry, _fit_and_score(fit_dpl, X_test, y_test))
    unit.__exit__(None, None, None)
    return {"task": task, "entries": entries, "timing": clock.totals, "calibrations": calibrations,
            "n_train": n, "n_test": int(len(test))}


def _init_worker(threads: int) -> None:
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads)
    except ImportError:
        pass


# -- aggregation ------------------------------------------------------------------------------------


def _stats(values: list[float]) -> dict:
    array = np.asarray([v for v in values if not math.isnan(v)], dtype=float)
    if array.size == 0:
        return {"count": 0}
    std = float(array.std(ddof=1)) if array.size > 1 else 0.0
    return {
        "count": int(array.size),
        "mean": float(array.mean()),
        "std": std,
        "sem": std / math.sqrt(array.size),
        "min": float(array.min()),
        "p10": float(np.percentile(array, 10)),
        "median": float(np.median(array)),
        "p90": float(np.percentile(array, 90)),
        "max": float(array.max()),
    }


def aggregate(results: list[dict], args, datasets: dict) -> dict:
    """Cells: (data, loss, method, Lam, eps) -> error statistics over folds x draws, times, residuals."""
    pooled: dict = {}
    timing: dict = {}
    calibrations: dict = {}
    for result in results:
        task = result["task"]
        for (method, e_index), entry in result["entries"].items():
            key = (task["data"], task["loss"], method, task["lam"], e_index)
            cell = pooled.setdefault(key, _new_entry())
            for field in ("errors", "seconds", "residuals"):
                cell[field].extend(entry[field])
            for field in ("failures", "shared", "not_converged"):
                cell[field] += entry[field]
        unit_timing = timing.setdefault(task["data"], {"units": 0})
        unit_timing["units"] += 1
        for name, seconds in result["timing"].items():
            unit_timing[name] = unit_timing.get(name, 0.0) + seconds
        if task["fold"] == min(args.fold_indices):
            for e_index, cal in result["calibrations"].items():
                calibrations[f"{task['data']}|{task['loss']}|{task['lam']}|{e_index}"] = {
                    "n_train": result["n_train"], **cal}
    cells = []
    for (data, loss, method, lam_index, e_index), cell in sorted(
            pooled.items(), key=lambda item: tuple(str(part) for part in item[0])):
        residuals = [r for r in cell["residuals"] if r is not None]
        cells.append({
            "data": data, "loss": loss, "method": method,
            "lam_index": lam_index, "lam": common.LAMS[lam_index],
            "epsilon": None if e_index is None else args.epsilons[e_index],
            "error": _stats(cell["errors"]),
            "fit_seconds_median": float(np.median(cell["seconds"])) if cell["seconds"] else None,
            "residual_max": float(max(residuals)) if residuals else None,
            "failures": cell["failures"],
            "shared_with_max_split": cell["shared"],
            "not_converged": cell["not_converged"],
        })
    return {"cells": cells, "timing": timing, "calibrations_first_fold": calibrations}


def estimate_full(timing: dict, args) -> dict:
    """Extrapolate this run's measured unit times to the full run (10 folds, K = 50, 7 epsilons, 2 jobs).

    Per data set: the exact solves and the sklearn fits scale with the number
    of folds (and of Lam values); the draw loops (output, objective,
    diffprivlib) scale with folds x Lam values x epsilons x draws. Two
    figures: from wall time (inflated when other jobs load the machine) and
    from this process's CPU time (what a quiet machine with one BLAS thread
    per process would take), each divided by 2 processes.
    """
    fold_factor = FULL["folds_run"] / args.folds_run
    lam_factor = len(common.LAMS) / len(args.lam_index)
    draw_factor = (FULL["draws"] / args.draws) * (len(FULL["epsilons"]) / len(args.epsilons))
    peer_factor = (FULL["peer_draws"] / args.peer_draws) * (len(FULL["epsilons"]) / len(args.epsilons))
    estimates = {}
    for suffix, label in (("", "wall"), ("_cpu", "cpu")):
        per_data = {}
        for data, t in timing.items():
            fixed = t.get("exact_solve" + suffix, 0.0) + t.get("sklearn" + suffix, 0.0)
            draws = sum(t.get(name + suffix, 0.0) for name in ("output_draws", "objective_draws"))
            peer = t.get("diffprivlib" + suffix, 0.0)
            per_data[data] = fold_factor * lam_factor * (fixed + draw_factor * draws + peer_factor * peer)
        estimates[label] = per_data
    return {
        "method": (f"measured per-unit times of this run; exact solves and sklearn x {fold_factor * lam_factor:g} "
                   f"(folds, Lam), draw loops x {fold_factor * lam_factor * draw_factor:g} (folds, Lam, "
                   "epsilons, draws); summed over data sets and divided by 2 processes"),
        "seconds_by_data_wall": {k: round(v) for k, v in estimates["wall"].items()},
        "seconds_by_data_cpu": {k: round(v) for k, v in estimates["cpu"].items()},
        "wall_hours_with_2_jobs": round(sum(estimates["wall"].values()) / 2 / 3600, 1),
        "cpu_hours_with_2_jobs": round(sum(estimates["cpu"].values()) / 2 / 3600, 1),
        "note": "the wall-time figure includes waiting for a core under this run's load; the CPU-time "
                "figure approximates a quiet machine (one BLAS thread per process, 2 processes on 2 cores)",
    }


# -- main -----------------------------------------------------------------------------------------------


def main(argv=None) -> dict:
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.reproduce_jmlr", argv)
    peers, skipped = common.usable_peers(args.peers, "reproduce")

    datasets, folds = {}, {}
    for name in args.datasets:
        for mode in args.modes if name != "synthetic" else args.modes[:1]:
            data = common.load_data(name, mode, kdd_rows=args.kdd_rows, seed=args.seed, max_rows=args.max_rows)
            datasets[data.key] = data
            folds[data.key] = common.kfold(len(data.y), args.folds, args.seed)
    _STATE["data"], _STATE["folds"] = datasets, folds
    args.fold_indices = list(range(args.folds_run))

    tasks = []
    for data_index, key in enumerate(datasets):
        for fold in args.fold_indices:
            for loss in args.losses:
                for lam in args.lam_index:
                    tasks.append({"data": key, "data_index": data_index, "fold": fold, "loss": loss, "lam": lam,
                                  "epsilons": list(args.epsilons), "draws": args.draws,
                                  "peer_draws": args.peer_draws, "seed": args.seed, "peers": peers})
    # Largest first (KDD, small Lam, logistic with its peers) for a balanced pool.
    tasks.sort(key=lambda t: (-datasets[t["data"]].X.size, t["lam"], t["loss"] != "logistic"))
    progress = _progress(len(tasks), not args.quiet)
    results = []
    with common.limit_threads(args.threads):
        if args.jobs == 1:
            for task in tasks:
                results.append(run_unit(task))
                progress(results[-1])
        else:
            context = multiprocessing.get_context("fork")
            with ProcessPoolExecutor(max_workers=args.jobs, mp_context=context, initializer=_init_worker,
                                     initargs=(args.threads,)) as pool:
                for result in pool.map(run_unit, tasks):
                    results.append(result)
                    progress(result)
        threads = common.thread_settings()

    summary = aggregate(results, args, datasets)
    run = record.finish()
    run["threads"] = threads
    output = {
        "kind": "reproduce_jmlr",
        "tag": args.tag,
        "quick": bool(args.quick),
        "run": run,
        "config": {
            "folds": args.folds, "folds_run": args.folds_run, "draws": args.draws,
            "peer_draws": args.peer_draws, "jobs": args.jobs,
            "threads_per_process": args.threads, "seed": args.seed,
            "lams": [common.LAMS[i] for i in args.lam_index], "lam_indices": args.lam_index,
            "lam_labels": [common.LAM_LABELS[i] for i in args.lam_index],
            "epsilons": args.epsilons, "losses": {k: common.LOSSES[k].spec for k in args.losses},
            "data_norm": common.DATA_NORM, "kdd_rows": args.kdd_rows, "max_rows": args.max_rows,
        },
        "data": {key: {"description": d.description, "n": int(d.X.shape[0]), "d": int(d.X.shape[1]),
                       "positive_fraction": float(np.mean(d.y > 0))} for key, d in datasets.items()},
        "peers": {"run": peers, "skipped": skipped},
        "notes": report.REPRODUCTION_NOTES,
        **summary,
        "full_run_estimate": estimate_full(summary["timing"], args),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"reproduce_{args.tag}"
    if not args.no_plots:
        output["plots"] = report.plot_reproduction(output, args.out, stem)
    common.write_json(args.out / f"{stem}.json", output)
    (args.out / f"{stem}.md").write_text(report.reproduction_markdown(output))
    print(f"[reproduce] wrote {args.out / stem}.json/.md in {run['run_seconds']} s "
          f"(load {run['load_average_start']} -> {run['load_average_end']})", file=sys.stderr)
    return output


def _progress(total: int, enabled: bool):
    """A callable printing one line per finished work unit (elapsed time, load average) to stderr."""
    start = time.perf_counter()
    done = [0]

    def report_unit(result: dict) -> None:
        done[0] += 1
        if enabled:
            task = result["task"]
            print(f"[reproduce] {done[0]}/{total} {task['data']} fold {task['fold']} {task['loss']} "
                  f"Lam {common.LAM_LABELS[task['lam']]}: {result['timing']['unit']:.1f} s "
                  f"(cpu {result['timing']['unit_cpu']:.1f} s); elapsed "
                  f"{time.perf_counter() - start:.0f} s; load {common.load_average()}", file=sys.stderr, flush=True)

    return report_unit


if __name__ == "__main__":
    main()
