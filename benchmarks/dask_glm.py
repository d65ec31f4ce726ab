"""The exact private fit on a Dask cluster, side by side with dask-glm (issue 20).

A `LocalCluster` with 2 worker processes (one thread each, `--memory-limit` each) holds a
dense n x d Dask array generated blockwise on the workers (rows Gaussian, scaled to norm
<= 1; labels from a fixed linear rule with logistic noise) and persisted there. On the same
data, one after the other:

- **dpcvx non-private** `PrivateERM(lam).fit_nonprivate`: blockwise Newton, each pass a task
  per chunk on the workers (`dpcvx.data.blocks.RowBlocks.map`);
- **dpcvx private** `PrivateERM(lam).fit(..., epsilon=1)`: objective perturbation, the same
  solver, including the validation pass over the data contract;
- **dask-glm L-BFGS** `lbfgs(X, y01, regularizer=L2(), lamduh=n lam)`: the same objective
  (dask-glm sums the losses; lamduh = n lam makes it n times dpcvx's mean objective);
- **dask-glm Newton** `newton(X, y01)`: dask-glm's Newton has no regularizer, so it solves
  the unregularised problem (reported, not the same objective).

Each solution is scored on the cluster by the same optimality residual, the gradient norm
of dpcvx's objective J(w) = (1/n) sum log(1 + exp(-y w^T x)) + lam ||w||^2 / 2 (for the
unregularised Newton, of its own objective, lam = 0). dpcvx's loss verification runs once
before the timed fits (a fixed cost of about 2 s).

    python -m benchmarks.dask_glm                    # n = 2,000,000, d = 50: a few minutes
    python -m benchmarks.dask_glm --n 200000 --tag quick
    python -m benchmarks.dask_glm --pairs 9 --tag ""  # the recorded comparison: results/dask_glm.md
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import common

RESULTS = Path(__file__).resolve().parent / "results"


def make_data(n: int, d: int, chunk_rows: int, seed: int):
    import dask.array as da

    state = da.random.RandomState(seed)
    X = state.normal(size=(n, d), chunks=(chunk_rows, d))
    X = X / da.maximum(1.0, da.linalg.norm(X, axis=1))[:, None]
    w = np.random.default_rng(seed).normal(size=d)
    y = da.where(X @ w + da.random.RandomState(seed + 1).logistic(size=n, chunks=chunk_rows) > 0, 1.0, -1.0)
    return X, y


def residual(X, y, w: np.ndarray, lam: float) -> float:
    """||grad J(w)||, computed on the cluster."""
    import dask.array as da

    margins = y * (X @ w)
    gradient = (X.T @ (-y / (1 + da.exp(margins)))) / X.shape[0]
    return float(np.linalg.norm(np.asarray(gradient.compute()) + lam * w))


def run(args) -> dict:
    import dask
    from dask.distributed import Client, LocalCluster

    import dpcvx

    try:
        from dask_glm.algorithms import lbfgs, newton
        from dask_glm.families import Logistic
        from dask_glm.regularizers import L2
        peer = None
    except ImportError as error:
        peer = f"not run: dask-glm is not installed ({error}); pip install dask-glm"
    results = []
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory_limit, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        X, y = make_data(args.n, args.d, args.chunk_rows, args.seed)
        X, y = client.persist([X, y])
        dask.distributed.wait([X, y])
        learner = dpcvx.PrivateERM(lam=args.lam, data_norm=1.0)
        small = np.asarray(X[:1000].compute()), np.asarray(y[:1000].compute())
        learner.fit(*small, 1.0, random_state=0)  # the one-time loss verification, outside the timings

        def record(name: str, seconds: float, w: np.ndarray, lam: float, note: str = "") -> None:
            results.append({"method": name, "seconds": seconds, "residual": residual(X, y, w, lam),
                            "lam_of_residual": lam, "note": note})
            print(f"[dask_glm] {name}: {seconds:.1f} s", flush=True)

        start = time.perf_counter()
        model = learner.fit_nonprivate(X, y)
        record("dpcvx non-private (blockwise Newton)", time.perf_counter() - start,
               np.asarray(model.coef_, dtype=float).ravel(), args.lam)
        start = time.perf_counter()
        private = learner.fit(X, y, 1.0, random_state=0)
        record("dpcvx private, epsilon 1 (objective perturbation)", time.perf_counter() - start,
               np.asarray(private.coef_, dtype=float).ravel(), args.lam,
               "its residual is of the non-private J: the private release minimises the perturbed objective")
        if peer is None and args.pairs:
            output_pairs = _pairs(args, X, y, learner, residual)
            return {"results": results, "pairs": output_pairs, "peer": "dask-glm " + __import__("dask_glm").__version__}
        if peer is None:
            y01 = (y + 1) / 2
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                beta = lbfgs(X, y01, regularizer=L2(), lamduh=args.n * args.lam, max_iter=args.max_iter,
                             tol=args.tol, family=Logistic)
                record("dask-glm L-BFGS (L2, lamduh = n lam)", time.perf_counter() - start, np.asarray(beta),
                       args.lam, f"tol {args.tol:g}, max_iter {args.max_iter}")
                start = time.perf_counter()
                beta = newton(X, y01, max_iter=50, tol=1e-8, family=Logistic)
                record("dask-glm Newton (no regularizer: the unregularised problem)", time.perf_counter() - start,
                       np.asarray(beta), 0.0, "residual of the unregularised objective")
    return {"results": results, "peer": peer or "dask-glm " + __import__("dask_glm").__version__}


def _pairs(args, X, y, learner, score) -> dict:
    """Interleaved pairs (order alternating, pair 0 a warm-up): dpcvx non-private against dask-glm L-BFGS."""
    from dask_glm.algorithms import lbfgs
    from dask_glm.families import Logistic
    from dask_glm.regularizers import L2

    from benchmarks.speed_sweep import median_interval

    y01 = (y + 1) / 2
    fits = {
        "dpcvx": lambda: np.asarray(learner.fit_nonprivate(X, y).coef_, dtype=float).ravel(),
        "dask-glm L-BFGS": lambda: np.asarray(lbfgs(X, y01, regularizer=L2(), lamduh=args.n * args.lam,
                                                     max_iter=args.max_iter, tol=args.tol, family=Logistic)),
    }
    runs: dict[str, list] = {name: [] for name in fits}
    for index in range(args.pairs + 1):
        order = list(fits) if index % 2 == 0 else list(fits)[::-1]
        for name in order:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                w = fits[name]()
                seconds = time.perf_counter() - start
            if index:
                runs[name].append({"seconds": seconds, "residual": score(X, y, w, args.lam)})
        print(f"[dask_glm] pair {index}: {seconds:.1f} s", flush=True)
    ratios = [a["seconds"] / b["seconds"] for a, b in zip(runs["dpcvx"], runs["dask-glm L-BFGS"], strict=True)]
    return {"runs": runs, "ratios": ratios, "ratio": median_interval(ratios),
            "seconds": {name: median_interval([r["seconds"] for r in rs]) for name, rs in runs.items()},
            "residual": {name: max(r["residual"] for r in rs) for name, rs in runs.items()}}


def markdown_pairs(output: dict) -> str:
    settings, paired = output["settings"], output["pairs"]
    ratio = paired["ratio"]
    lines = [f"# dpcvx against dask-glm L-BFGS on a Dask LocalCluster: n = {settings['n']:,}, d = {settings['d']}",
             "",
             f"- 2 worker processes x 1 thread, memory limit {settings['memory_limit']} "
             f"each; chunks of {settings['chunk_rows']:,} rows; Lam = {settings['lam']:g}; {output['peer']} "
             f"(tol {settings['tol']:g}, max_iter {settings['max_iter']})",
             f"- {len(paired['ratios'])} interleaved pairs (order alternating, a warm-up pair not recorded); "
             "median and the 95% order-statistic interval",
             "",
             "| method | median seconds [95% interval] | worst optimality residual (norm of grad J) |",
             "|---|---|---|"]
    for name, (median, low, high) in paired["seconds"].items():
        lines.append(f"| {name} | {median:.1f} [{low:.1f}, {high:.1f}] | {paired['residual'][name]:.2e} |")
    lines += ["", f"dpcvx / dask-glm L-BFGS per pair: median **{ratio[0]:.2f}** [{ratio[1]:.2f}, {ratio[2]:.2f}]; "
              "dpcvx stops at its public tolerance (default tol 1e-10), dask-glm at its own (a larger gradient)."]
    return "\n".join(lines) + "\n"


def markdown(output: dict) -> str:
    settings = output["settings"]
    base = next(r["seconds"] for r in output["results"] if r["method"].startswith("dpcvx non-private"))
    lines = [f"# dpcvx on a Dask LocalCluster against dask-glm: n = {settings['n']:,}, d = {settings['d']}",
             "",
             f"- 2 worker processes x 1 thread, memory limit {settings['memory_limit']} "
             f"each; chunks of {settings['chunk_rows']:,} rows; Lam = {settings['lam']:g}; {output['peer']}",
             "",
             "| method | seconds | time / dpcvx non-private | optimality residual (norm of grad J) | note |",
             "|---|---|---|---|---|"]
    for r in output["results"]:
        lines.append(f"| {r['method']} | {r['seconds']:.1f} | {r['seconds'] / base:.2f} | {r['residual']:.2e} | "
                     f"{r['note']} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2_000_000)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--chunk-rows", type=int, default=100_000)
    parser.add_argument("--lam", type=float, default=1e-4)
    parser.add_argument("--memory-limit", default="3GB")
    parser.add_argument("--tol", type=float, default=1e-8, help="dask-glm L-BFGS tolerance")
    parser.add_argument("--max-iter", type=int, default=200, help="dask-glm L-BFGS iterations")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--tag", default="full", help="results file dask_glm_TAG (empty: dask_glm)")
    parser.add_argument("--pairs", type=int, default=0,
                        help="interleaved pairs of dpcvx non-private and dask-glm L-BFGS (0: one run of each)")
    args = parser.parse_args(argv)
    record = common.RunRecord("benchmarks.dask_glm", argv)
    output = run(args)
    output["settings"] = {k: v for k, v in vars(args).items() if k != "out"}
    stem = args.out / f"dask_glm_{args.tag}" if args.tag else args.out / "dask_glm"
    text = markdown_pairs(output) if "pairs" in output else markdown(output)
    print(common.write_markdown(stem.with_suffix(".md"), text, record))
    output["run"] = record.finish()
    common.write_json(stem.with_suffix(".json"), output)
    return output


if __name__ == "__main__":
    main()
