"""TDDL at scale: time and accuracy for n from 5,000 to 50,000 training rows (issue 20, item 4).

KDD Cup 99 (10%, all 494,021 rows, DoS against the rest, `private` preprocessing with the
log-scaled counts, d = 123, public bound ||x|| <= 1). One seeded permutation splits it into a
public sample Z of `--public` rows (features only: TDDL's public test points), `--test`
evaluation rows, and a training pool whose first n rows train (nested subsets).

TDDL (Jain and Thakurta 2013) with the rbf kernel exp(-||x - x'||^2) (gamma 1, fixed a priori)
and the logistic loss, at (epsilon, 1e-6)-DP with Gaussian noise on the predictions:

- `span="public"`: the ERM minimised over span phi(Z), the Nystrom features of the public
  sample (linear in n);
- `span="training"`: the paper's exact minimiser over the whole RKHS (O(n^3) time, 8 n^2
  bytes), up to `--exact-max` rows;
- each span's minimiser without noise ("non-private", the same subspace), the reference.

Each Lam of `--lams` is run; the tables show the best Lam per row, CHOSEN ON THE TEST ROWS
(optimistic, equally for every method; every Lam is in the JSON). The exact solve of a
(n, span, Lam) is shared by its noise draws and budgets (deterministic; see
benchmarks/kernels.py, SharedSolveTDDL). "fit seconds" is the first private fit of a
(n, span, Lam): checks, kernel and Nystrom features, the certified solve, noise and TDDL's
least-squares post-processing; one BLAS thread.

    python -m benchmarks.tddl_scale            # about 15 minutes
    python -m benchmarks.tddl_scale --quick    # n 2,000 and 4,000, a minute
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks import common
from benchmarks.kernels import SharedSolveTDDL, SolveCache
from dpcvx import TDDL
from dpcvx.data.kernels import RBFKernel

KERNEL_GAMMA = 1.0
LOSS = "logistic"
DELTA = 1e-6


def split(X: np.ndarray, y: np.ndarray, public: int, test: int, seed: int):
    """Z (public features), the test rows and the training pool, from one seeded permutation."""
    order = np.random.default_rng(seed).permutation(X.shape[0])
    Z = X[order[:public]]
    test_rows = order[public:public + test]
    pool = order[public + test:]
    return Z, X[test_rows], y[test_rows], X[pool], y[pool]


def run(args) -> dict:
    data = common.load_data("kdd", "private", kdd_rows=None, seed=args.seed)
    Z, X_test, y_test, X_pool, y_pool = split(data.X, data.y, args.public, args.test, args.seed)
    if max(args.sizes) > X_pool.shape[0]:
        raise SystemExit(f"the training pool has {X_pool.shape[0]} rows, fewer than n = {max(args.sizes)}")
    kernel = RBFKernel(KERNEL_GAMMA)
    # the loss is verified once per process (sympy, about 2 s): done here, outside the timed fits, by a
    # learner's own checks on two public rows (nothing solved, charged or drawn)
    TDDL(kernel, lam=1.0, loss=LOSS).check_fit_inputs(Z[:2], [-1.0, 1.0], 1.0, DELTA, Z=Z[:2])
    records = []
    start = time.perf_counter()
    for n in args.sizes:
        X, y = np.ascontiguousarray(X_pool[:n]), y_pool[:n]
        spans = ["public"] + (["training"] if n <= args.exact_max else [])
        for span in spans:
            cache = SolveCache(X, y)
            for lam in args.lams:
                learner = SharedSolveTDDL(kernel, lam=lam, loss=LOSS, span=span, cache=cache)
                for index, epsilon in enumerate(args.epsilons):
                    for draw in range(args.draws):
                        began = time.perf_counter()
                        learner.fit(X, y, epsilon, DELTA, Z=Z, random_state=common.int_seed(args.seed, n, draw, index))
                        seconds = time.perf_counter() - began
                        records.append({"n": n, "span": span, "lam": lam, "epsilon": epsilon, "draw": draw,
                                        "accuracy": float(learner.score(X_test, y_test)),
                                        "seconds": seconds, "first_fit": index == 0 and draw == 0,
                                        "noise_sd": learner.calibration_.scale})
                model = next(iter(cache.models.values()))
                records.append({"n": n, "span": span, "lam": lam, "epsilon": None, "draw": 0,
                                "accuracy": float(np.mean(np.where(model.predict(X_test) >= 0, 1.0, -1.0) == y_test)),
                                "seconds": model.report.seconds, "first_fit": False, "noise_sd": 0.0,
                                "newton_steps": model.report.iterations})
                cache.models.clear()
                print(f"[tddl_scale] n={n} span={span} lam={lam:g} done ({time.perf_counter() - start:.0f} s)",
                      flush=True)
    return {"records": records, "seconds": time.perf_counter() - start,
            "data": f"{data.description}; Z = {args.public} public rows, {args.test} test rows, training pool "
                    f"{X_pool.shape[0]} rows; d = {data.X.shape[1]}"}


def best(records: list[dict], n: int, span: str, epsilon: float | None) -> tuple[float, float, float] | None:
    """(mean accuracy, sd, lam) of the best Lam for one cell (chosen on the test rows)."""
    cells = {}
    for record in records:
        if record["n"] == n and record["span"] == span and record["epsilon"] == epsilon:
            cells.setdefault(record["lam"], []).append(record["accuracy"])
    if not cells:
        return None
    lam = max(cells, key=lambda key: np.mean(cells[key]))
    return float(np.mean(cells[lam])), float(np.std(cells[lam])), lam


def fit_seconds(records: list[dict], n: int, span: str) -> float | None:
    times = [r["seconds"] for r in records if r["n"] == n and r["span"] == span and r["first_fit"]]
    return float(np.mean(times)) if times else None


def markdown(result: dict, args) -> str:
    records = result["records"]
    lines = ["# TDDL at scale: KDD Cup 99, rbf kernel, logistic loss", "",
             "- one BLAS thread",
             f"- data: {result['data']}",
             f"- Lam grid {args.lams}, best Lam per cell chosen on the test rows (optimistic); "
             f"{args.draws} noise draws per cell; delta = {DELTA:g}", "",
             "| n | minimiser over | mean fit seconds (per Lam) | non-private accuracy | "
             + " | ".join(f"eps = {e:g}" for e in args.epsilons) + " |",
             "|---|---|---|---|" + "---|" * len(args.epsilons)]
    for n in args.sizes:
        for span in ("public", "training"):
            seconds = fit_seconds(records, n, span)
            if seconds is None:
                continue
            cells = []
            for epsilon in (None, *args.epsilons):
                found = best(records, n, span, epsilon)
                cells.append("" if found is None else f"{found[0]:.4f} ± {found[1]:.4f} (Lam={found[2]:g})")
            label = "span phi(Z), Nystrom" if span == "public" else "whole RKHS, exact"
            lines.append(f"| {n:,} | {label} | {seconds:.1f} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(result: dict, args, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = result["records"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for span, marker in (("public", "o"), ("training", "s")):
        sizes = [n for n in args.sizes if fit_seconds(records, n, span) is not None]
        if not sizes:
            continue
        label = "span phi(Z) (Nystrom)" if span == "public" else "whole RKHS (exact)"
        left.loglog(sizes, [fit_seconds(records, n, span) for n in sizes], marker=marker, label=label)
        for epsilon in args.epsilons:
            right.plot(sizes, [best(records, n, span, epsilon)[0] for n in sizes], marker=marker,
                       label=f"{label}, eps {epsilon:g}")
        right.plot(sizes, [best(records, n, span, None)[0] for n in sizes], marker=marker, linestyle=":",
                   label=f"{label}, non-private")
    left.set(xlabel="training rows n", ylabel="private fit seconds (one thread)", title="TDDL fit time")
    right.set(xlabel="training rows n", ylabel="test accuracy", title="TDDL accuracy (best Lam)")
    right.set_xscale("log")
    left.legend(fontsize=8)
    right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 10_000, 20_000, 50_000])
    parser.add_argument("--exact-max", type=int, default=10_000, help="largest n for the exact RKHS solve")
    parser.add_argument("--public", type=int, default=1000, help="rows of the public sample Z")
    parser.add_argument("--test", type=int, default=20_000, help="evaluation rows")
    parser.add_argument("--lams", type=float, nargs="+", default=[1e-3, 1e-2, 1e-1])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--draws", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=common.RESULTS_DIR)
    parser.add_argument("--tag", default=None)
    parser.add_argument("--no-plots", action="store_true")
    args = parser.parse_args(argv)
    record = common.RunRecord("benchmarks.tddl_scale", argv)
    if args.quick:
        args.sizes, args.exact_max, args.public, args.test = [2_000, 4_000], 4_000, 300, 5_000
        args.lams, args.draws = [1e-3], 1
    tag = args.tag or ("quick" if args.quick else "full")
    with common.limit_threads(1):
        result = run(args)
    result["settings"] = {key: value for key, value in vars(args).items() if key not in ("out",)}
    stem = args.out / f"tddl_scale_{tag}"
    print(common.write_markdown(stem.with_suffix(".md"), markdown(result, args), record))
    result["run"] = record.finish()
    common.write_json(stem.with_suffix(".json"), result)
    if not args.no_plots:
        plot(result, args, stem.with_suffix(".png"))
    return result


if __name__ == "__main__":
    main()
