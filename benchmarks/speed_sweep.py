"""Speed sweep (issue 32): dpcvx's private logistic fit against scikit-learn's lbfgs, side by side.

For each case, dpcvx and its peer are timed in interleaved pairs (the order alternates from
pair to pair) in ONE process with one BLAS thread each (threadpoolctl), and the figure is the
median over pairs of the per-pair time ratio, with a distribution-free 95% interval for that
median (order statistics of the binomial(k, 1/2) law). Cases:

* **dense**: ``PrivateERM(logistic(), lam=1e-4, data_norm=1).fit(X, y, epsilon=1)`` (objective
  perturbation, today's default tol) against ``LogisticRegression(lbfgs, tol=1e-6, no intercept,
  C = 1/(lam n))`` on synthetic rows in the unit ball (Gaussian rows scaled to norm <= 1, labels
  of a fixed linear rule with 10% flipped), at each n x d of ``--sizes``;
* **memmap**: the same dpcvx fit on ``np.load(..., mmap_mode="r")`` of the same rows (warm page
  cache) against the fit on the in-memory array;
* **sparse**: CSR n x d with about 20 nonzeros a row (unit-norm rows), dpcvx against lbfgs, in three
  forms of the same matrix: as the generator makes it (each row's indices decreasing, as scipy's
  product with a diagonal on the left leaves them), in random order within each row, and in
  canonical form (sorted, as scipy's COO conversion and scikit-learn's vectorizers give it). dpcvx
  reads all three in place; the two unsorted ones cost it a count of their distinct positions
  (dpcvx.data.repeats), which the row norms need.

Each fit's final gradient norm of its own objective is recorded: dpcvx's ||grad F|| of the
perturbed objective F = n J_b (its solve record, ``diagnostics_``: for the data owner, never
published), scikit-learn's ||grad F|| of the non-private F at its coefficients (computed here,
outside the timed region). The comparison is meant at an equal or better final gradient norm.

"One pass" is the time of X v followed by X^T u on the same data (the two products any gradient
evaluation needs); ``passes`` is a fit's time over it: how many such passes the fit costs.

    python -m benchmarks.speed_sweep --quick        # small sizes, 3 pairs (a smoke run)
    python -m benchmarks.speed_sweep                # the issue's sizes, 9 pairs
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sparse
from scipy.special import expit
from scipy.stats import binom

import dpcvx
from benchmarks import common

LAM = 1e-4
EPSILON = 1.0
DELTA = 0.0  # pure epsilon; speed_ab's @delta= sets another (the Gaussian objective perturbation)
LOSS = "logistic"  # dpcvx's loss (dpcvx.losses.from_spec); speed_ab's @loss= sets another, lbfgs stays logistic
SKLEARN_TOL = 1e-6
FULL = {"pairs": 9, "sizes": ["1e4x20", "1e5x20", "1e5x200", "1e6x20", "3e5x500"], "memmap": "1e6x20",
        "sparse": "2e5x1e5"}
QUICK = {"pairs": 3, "sizes": ["1e4x20", "1e5x20"], "memmap": "1e5x20", "sparse": "2e4x1e4"}
NONZEROS = 20  # per sparse row
CASES = ("dense", "memmap", "sparse")

NOTES = [
    "Ratios above 1 mean dpcvx is slower. Each ratio is computed within one pair (the two fits back to back, "
    "order alternating), then the median over pairs is reported with a distribution-free 95% interval.",
    "Wall time (time.perf_counter) decides; CPU time (time.process_time) is recorded too, since the machine "
    "is shared: when the load average exceeds the core count, wall times include waiting for a core.",
    "dpcvx: PrivateERM(logistic, lam=1e-4, data_norm=1).fit(X, y, epsilon=1): input checks, verification "
    "(cached after the first fit in the process), calibration, noise, Newton to the default public "
    "gradient bound, certificate. scikit-learn: LogisticRegression(lbfgs, tol=1e-6, fit_intercept=False, "
    "C=1/(lam n), max_iter=10000).",
    "grad columns: each fit's ||grad F|| of its own objective F = n J (dpcvx's perturbed F; "
    "scikit-learn's non-private F), at the returned weights.",
    "passes: fit seconds over the seconds of one pass (X v then X^T u, the products of one gradient). The JSON "
    "also records solver_passes, the passes over X that Newton counted (row blocks only; the solve record of "
    "the data owner, never published).",
]


def parse_shape(text: str) -> tuple[int, int]:
    """(n, d) of a size such as "1e5x20"."""
    n, d = text.lower().split("x")
    return int(float(n)), int(float(d))


def dense_data(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian rows scaled to norm <= 1 (row-major float64), labels of a linear rule with 10% flipped."""
    rng = np.random.default_rng(seed)
    X = np.empty((n, d))
    rule = rng.normal(size=d)
    y = np.empty(n)
    for start in range(0, n, 100_000):
        block = rng.normal(size=(min(100_000, n - start), d))
        block /= np.maximum(1.0, np.linalg.norm(block, axis=1))[:, None] * (1 + 1e-12)
        X[start:start + block.shape[0]] = block
        flip = rng.random(block.shape[0]) < 0.1
        y[start:start + block.shape[0]] = np.where((block @ rule > 0) != flip, 1.0, -1.0)
    return X, y


def sparse_data(n: int, d: int, seed: int = 0) -> tuple[sparse.csr_matrix, np.ndarray]:
    """CSR with NONZEROS entries a row at random columns, rows of norm 1, labels of a sparse linear rule."""
    rng = np.random.default_rng(seed)
    columns = rng.integers(0, d, size=(n, NONZEROS))
    values = rng.normal(size=(n, NONZEROS))
    values /= np.linalg.norm(values, axis=1)[:, None] * (1 + 1e-12)
    X = sparse.csr_matrix((values.ravel(), columns.ravel(), np.arange(0, n * NONZEROS + 1, NONZEROS)), shape=(n, d))
    X.sum_duplicates()  # a repeated column adds up: scale the rows back to norm 1
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sparse.csr_matrix(sparse.diags(1.0 / (norms * (1 + 1e-12))) @ X)
    flip = rng.random(n) < 0.1
    y = np.where((X @ rng.normal(size=d) > 0) != flip, 1.0, -1.0)
    return X, y


def coded_data(n: int, columns: int, levels: int = 3, seed: int = 0) -> tuple[sparse.csr_matrix, np.ndarray]:
    """``columns`` categorical columns of ``levels`` levels each, one-hot coded into a CSR of norm-1 rows (as
    scikit-learn's encoders give them; at most levels ** columns distinct rows), labels of a logistic model (weights
    of scale 3): a coded table whose records repeat."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, levels, size=(n, columns)) + levels * np.arange(columns)
    X = sparse.csr_matrix((np.full(n * columns, 1 / np.sqrt(columns)), codes.ravel(),
                           np.arange(0, n * columns + 1, columns)), shape=(n, columns * levels))
    y = np.where(rng.random(n) < expit(3 * (X @ rng.normal(size=columns * levels))), 1.0, -1.0)
    return X, y


def value_and_gradient(X: Any, y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """(F(w), grad F(w)) of the non-private F(w) = sum_i log(1 + exp(-y_i w^T x_i)) + n lam ||w||^2 / 2: two
    products, X w and X^T u, as scikit-learn's lbfgs objective takes them."""
    margins = y * np.asarray(X @ w).ravel()
    penalty = X.shape[0] * LAM
    value = float(np.sum(np.logaddexp(0.0, -margins))) + 0.5 * penalty * float(w @ w)
    return value, np.asarray(X.T @ (-y * expit(-margins))).ravel() + penalty * w


def gradient_norm(X: Any, y: np.ndarray, w: np.ndarray, intercept: float | None = None) -> float:
    """||grad F|| of the non-private F (:func:`value_and_gradient`); with an ``intercept`` b, of F(w, b) over the
    rows [x_i, 1] (the intercept regularised alike)."""
    if intercept is not None:
        ones = np.ones((X.shape[0], 1))
        X = sparse.hstack([X, ones], format="csr") if sparse.issparse(X) else np.hstack([X, ones])
        w = np.append(w, intercept)
    return float(np.linalg.norm(value_and_gradient(X, y, w)[1]))


def fit_dpcvx(X: Any, y: np.ndarray, seed: int, fit_intercept: bool = False) -> tuple[float, float, dict]:
    """(wall s, CPU s, record) of one private fit (with an intercept column of 1 when ``fit_intercept``)."""
    erm = dpcvx.PrivateERM(dpcvx.losses.from_spec(LOSS), lam=LAM, data_norm=1.0, fit_intercept=fit_intercept)
    wall, cpu = time.perf_counter(), time.process_time()
    erm.fit(X, y, epsilon=EPSILON, delta=DELTA, random_state=seed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    info = erm.diagnostics_  # measured on the data: for this benchmark only, never published
    return wall, cpu, {"grad": info.gradient_norm, "iterations": info.iterations, "solver": info.solver,
                       "bound": info.gradient_tolerance, "solver_passes": info.passes}


def fit_sklearn(X: Any, y: np.ndarray, seed: int, tol: float = SKLEARN_TOL,
                fit_intercept: bool = False) -> tuple[float, float, dict]:
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=1.0 / (LAM * X.shape[0]), fit_intercept=fit_intercept, tol=tol, max_iter=10_000)
    wall, cpu = time.perf_counter(), time.process_time()
    model.fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    intercept = float(model.intercept_[0]) if fit_intercept else None
    return wall, cpu, {"grad": gradient_norm(X, y, model.coef_.ravel(), intercept),
                       "iterations": int(model.n_iter_[0])}


def one_pass(X: Any, repeats: int = 5) -> float:
    """Median seconds of X v then X^T u (one gradient's products)."""
    v, u = np.ones(X.shape[1]) / X.shape[1], np.ones(X.shape[0])
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        X @ v
        X.T @ u
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def median_interval(values: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """(median, lower, upper): the order statistics x_(j), x_(k+1-j) with j the largest rank whose
    binomial(k, 1/2) tail is at most (1 - level)/2 (the whole range when k is too small)."""
    ordered = sorted(values)
    k = len(ordered)
    j = 0
    while j + 1 <= k // 2 and binom.cdf(j, k, 0.5) <= (1 - level) / 2:
        j += 1
    return float(np.median(ordered)), ordered[max(j - 1, 0)], ordered[min(k - j, k - 1)]


Fit = Callable[[Any, np.ndarray, int], tuple[float, float, dict]]


def pairs(first: tuple[str, Fit, Any], second: tuple[str, Fit, Any], y: np.ndarray, count: int) -> dict:
    """Interleaved pairs of two fits (order alternating); per-pair ratios first / second."""
    runs: dict[str, list] = {first[0]: [], second[0]: []}
    for index in range(count + 1):  # pair 0 warms up (imports, the verifier's cache): not recorded
        order = [first, second] if index % 2 else [second, first]
        results = {name: fit(X, y, index) for name, fit, X in order}
        if index:
            for name in runs:
                runs[name].append(results[name])
    wall = [a[0] / b[0] for a, b in zip(runs[first[0]], runs[second[0]], strict=True)]
    cpu = [a[1] / b[1] for a, b in zip(runs[first[0]], runs[second[0]], strict=True)]
    median, low, high = median_interval(wall)
    summary = {name: {"wall_median": float(np.median([r[0] for r in record])),
                      "cpu_median": float(np.median([r[1] for r in record])),
                      "grad_max": float(max(r[2]["grad"] for r in record)),
                      "iterations": int(np.median([r[2]["iterations"] for r in record])),
                      **({"solver": record[0][2]["solver"], "bound": record[0][2]["bound"],
                          "solver_passes": record[0][2]["solver_passes"]}  # passes over X Newton read (row blocks)
                         if "solver" in record[0][2] else {})}
               for name, record in runs.items()}
    return {"ratio": {"median": median, "low": low, "high": high, "values": wall},
            "cpu_ratio": {"median": float(np.median(cpu)), "values": cpu}, "fits": summary}


def run(args: argparse.Namespace) -> dict:
    preset = QUICK if args.quick else FULL
    count = args.pairs or preset["pairs"]
    record = common.RunRecord("benchmarks.speed_sweep")
    cases = []
    with common.limit_threads(1):
        for size in (args.sizes or preset["sizes"]) if "dense" in args.cases else ():
            n, d = parse_shape(size)
            X, y = dense_data(n, d)
            case = pairs(("dpcvx", fit_dpcvx, X), ("sklearn", fit_sklearn, X), y, count)
            case.update(kind="dense", n=n, d=d, one_pass=one_pass(X))
            cases.append(case)
            print(_line(case), flush=True)
        if "memmap" in args.cases:
            cases.append(memmap_case(args.memmap or preset["memmap"], args.tmp, count))
        if "sparse" in args.cases:
            cases.extend(sparse_cases(args.sparse or preset["sparse"], count))
    return {"run": record.finish(), "quick": bool(args.quick), "pairs": count, "lam": LAM, "epsilon": EPSILON,
            "sklearn_tol": SKLEARN_TOL, "notes": NOTES, "cases": cases}


def memmap_case(size: str, tmp: str | None, count: int) -> dict:
    """The dpcvx fit on a memmap of the rows (warm page cache) against the fit on the in-memory array."""
    n, d = parse_shape(size)
    X, y = dense_data(n, d)
    with tempfile.TemporaryDirectory(dir=tmp) as directory:
        path = Path(directory) / "X.npy"
        np.save(path, X)
        mapped = np.load(path, mmap_mode="r")
        float(np.sum(mapped))  # warm page cache
        case = pairs(("memmap", fit_dpcvx, mapped), ("in memory", fit_dpcvx, X), y, count)
        case.update(kind="memmap", n=n, d=d, one_pass=one_pass(X))
        print(_line(case), flush=True)
        del mapped
    return case


def sparse_cases(size: str, count: int) -> list[dict]:
    """dpcvx against scikit-learn's lbfgs on CSR rows with NONZEROS entries each: the generator's CSR (each
    row's indices decreasing), the same rows in random order, and in canonical form (sorted)."""
    n, d = parse_shape(size)
    S, y = sparse_data(n, d)
    cases = []
    for kind, matrix in (("sparse", S), ("sparse random order", shuffled_rows(S)),
                         ("sparse canonical", S.sorted_indices())):
        case = pairs(("dpcvx", fit_dpcvx, matrix), ("sklearn", fit_sklearn, matrix), y, count)
        case.update(kind=kind, n=n, d=d, one_pass=one_pass(matrix))
        print(_line(case), flush=True)
        cases.append(case)
    return cases


def shuffled_rows(X: sparse.csr_matrix, seed: int = 1) -> sparse.csr_matrix:
    """The same matrix with each row's entries in random order (a fixed seed)."""
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    order = np.lexsort((np.random.default_rng(seed).random(X.nnz), rows))  # by row, at random within a row
    return sparse.csr_matrix((X.data[order], X.indices[order], X.indptr), shape=X.shape)


def _names(case: dict) -> tuple[str, str]:
    first, second = list(case["fits"])
    return first, second


def _line(case: dict) -> str:
    first, second = _names(case)
    ratio = case["ratio"]
    return (f"{case['kind']} {case['n']}x{case['d']}: {first}/{second} {ratio['median']:.2f} "
            f"[{ratio['low']:.2f}, {ratio['high']:.2f}] (CPU {case['cpu_ratio']['median']:.2f})")


def markdown(output: dict) -> str:
    from benchmarks import report

    lines = [report.run_header(output, f"Speed sweep: {output['pairs']} interleaved pairs per case, lam = "
                                       f"{output['lam']:g}, epsilon = {output['epsilon']:g}, 1 BLAS thread"),
             "", *[f"- {note}" for note in output["notes"]], "",
             "| case | n x d | ratio (wall) | 95% interval | ratio (CPU) | first: s, grad, iterations | "
             "second: s, grad, iterations | one pass s | passes first / second |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case in output["cases"]:
        first, second = _names(case)
        fits, ratio = case["fits"], case["ratio"]

        def cell(name: str, fits: dict = fits) -> str:
            fit = fits[name]
            solver = f", {fit['solver']}" if "solver" in fit else ""
            return f"{name}: {fit['wall_median']:.3g}, {fit['grad_max']:.1e}, {fit['iterations']}{solver}"

        passes = " / ".join(f"{fits[name]['wall_median'] / case['one_pass']:.0f}" for name in (first, second))
        lines.append(f"| {case['kind']} {first} / {second} | {case['n']:,} x {case['d']:,} | {ratio['median']:.2f} | "
                     f"[{ratio['low']:.2f}, {ratio['high']:.2f}] | {case['cpu_ratio']['median']:.2f} | "
                     f"{cell(first)} | {cell(second)} | {case['one_pass']:.2g} | {passes} |")
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.speed_sweep", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 3 pairs (a smoke run)")
    parser.add_argument("--pairs", type=int, default=None, help="interleaved pairs per case (full: 9)")
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES,
                        help="which kinds of case to run (default: all)")
    parser.add_argument("--sizes", nargs="+", default=None, help="dense n x d cases, e.g. 1e5x20")
    parser.add_argument("--memmap", default=None, help="n x d of the memmap case")
    parser.add_argument("--sparse", default=None, help="n x d of the sparse case")
    parser.add_argument("--tmp", default=None, help="directory for the memmap file (default: the system's)")
    common.add_result_arguments(parser, None, "file name tag (default: speed_sweep, or _quick)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    output = run(args)
    common.write_results(output, markdown(output), Path(args.out),
                         args.tag or ("speed_sweep_quick" if args.quick else "speed_sweep"))
    return output


if __name__ == "__main__":
    main()
