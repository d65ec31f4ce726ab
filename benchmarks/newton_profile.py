"""Where a fit's time goes (issue 44): the family sweep's fit, split by what Newton's solver does.

The fit runs under cProfile, and each call that Newton's solver (``dpcvx/solvers/linear.py`` and
``cg.py``) makes into the objective is charged with its cumulative time to one group (the callers' table
of :mod:`pstats`: a method called by another method is counted once, under the outer one):

* ``step pass``: the step's pass (margins at the full step, the loss gradient and the loss there) and any
  gradient computed by its own pass (``margin_change``, ``margins``, ``gradient_terms``,
  ``fresh_gradient_terms``, ``residual``; the stopping check on fresh margins is one of these);
* ``hessian``: a Hessian, all rows or subsampled (``hessian``), its Cholesky factor and solves;
* ``cg``: conjugate gradients' products (``hessian_product``, ``hessian_vector``, ``change_along``,
  ``curvature_along``, ``hessian_product_and_gradient``);
* ``line search``: F's values and the first step's line minimum (``value``, ``line_derivatives``);
* ``newton, other``: the rest of ``newton`` (vector arithmetic, the residual's norms);
* ``outside the solver``: the fit's checks, calibration, noise and certificate;
* ``sparse products``: for a sparse X, how many products scipy's compiled kernels computed in the whole fit
  (X v by ``csr_matvec``, X^T u by ``csc_matvec``, X^T U of two columns by ``csc_matvecs``), and their own time.

cProfile's own cost inflates every group a little (most where calls are many and short). Medians of
``--fits`` profiled fits after a warm-up, one BLAS thread; lbfgs (tol 1e-6) is timed beside it,
unprofiled, fit for fit. The load average is recorded: above the core count every figure is inflated.

    python -m benchmarks.newton_profile --cases "balance 2%/1e5x20" "noisy/1e5x200" --fits 3
    python -m benchmarks.newton_profile --cases sparse/2e5x1e5 --tag newton_profile_sparse
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
from typing import Any

import numpy as np

from benchmarks import common, family_sweep, speed_sweep

GROUPS = {
    "step pass": ("margin_change", "margins", "gradient_terms", "fresh_gradient_terms", "residual"),
    "hessian": ("hessian", "cho_factor", "cho_solve"),
    "cg": ("hessian_product", "hessian_vector", "change_along", "curvature_along", "hessian_product_and_gradient"),
    "line search": ("value", "line_derivatives"),
}
SOLVER_FILES = ("dpcvx/solvers/linear.py", "dpcvx/solvers/cg.py")  # the callers whose calls are charged
SPARSE_KERNELS = ("csr_matvec", "csc_matvec", "csr_matvecs", "csc_matvecs")  # scipy.sparse._sparsetools's products


def split(stats: pstats.Stats) -> dict[str, float]:
    """Seconds by group of the calls the solver's own functions make, and ``newton``'s and the fit's totals."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    seconds = dict.fromkeys([*GROUPS, "newton", "fit", "sparse products", "sparse product count"], 0.0)
    group_of = {name: group for group, names in GROUPS.items() for name in names}
    for (path, _, name), (_, calls, own, cumulative, callers) in table.items():
        if name.startswith("<built-in method scipy.sparse._sparsetools.") and name[43:-1] in SPARSE_KERNELS:
            seconds["sparse products"] += own
            seconds["sparse product count"] += calls
        if name == "newton" and path.endswith("dpcvx/solvers/linear.py"):
            seconds["newton"] += cumulative
        elif name == "fit" and path.endswith("dpcvx/models/erm.py"):
            seconds["fit"] += cumulative
        if name in group_of:
            seconds[group_of[name]] += sum(caller_stats[3] for caller, caller_stats in callers.items()
                                           if caller[0].endswith(SOLVER_FILES))
    return seconds


def profile(X: Any, y: np.ndarray, fits: int) -> dict[str, Any]:
    """Median seconds by group of ``fits`` profiled fits (after a warm-up), and lbfgs's time fit for fit."""
    speed_sweep.fit_dpcvx(X, y, 0)
    records, peers = [], []
    for index in range(fits):
        profiler = cProfile.Profile()
        profiler.enable()
        _, _, info = speed_sweep.fit_dpcvx(X, y, index + 1)
        profiler.disable()
        seconds = split(pstats.Stats(profiler))
        records.append({**{group: seconds[group] for group in GROUPS},
                        "newton, other": seconds["newton"] - sum(seconds[group] for group in GROUPS),
                        "outside the solver": seconds["fit"] - seconds["newton"], "fit": seconds["fit"],
                        "sparse products": seconds["sparse products"],
                        "sparse product count": seconds["sparse product count"],
                        "iterations": info["iterations"], "passes": info["solver_passes"]})
        peers.append(speed_sweep.fit_sklearn(X, y, index + 1, tol=1e-6))
    return {"dpcvx": {key: float(np.median([r[key] or 0 for r in records])) for key in records[0]},
            "lbfgs": {"fit": float(np.median([p[0] for p in peers])),
                      "iterations": int(np.median([p[2]["iterations"] for p in peers]))}}


def markdown(rows: list[tuple[str, dict[str, Any]]]) -> str:
    columns = [*GROUPS, "newton, other", "outside the solver"]
    lines = ["| case | dpcvx fit s | " + " | ".join(columns) + " | iterations, passes | sparse products | "
             "lbfgs 1e-6 s, iterations |", "|---" * (len(columns) + 5) + "|"]
    for case, result in rows:
        ours, peer = result["dpcvx"], result["lbfgs"]
        shares = " | ".join(f"{ours[c] * 1000:.0f} ms ({ours[c] / ours['fit']:.0%})" for c in columns)
        passes = "-" if not ours["passes"] else f"{ours['passes']:.0f}"
        products = "-" if not ours["sparse product count"] else (
            f"{ours['sparse product count']:.0f}, {ours['sparse products'] * 1000:.0f} ms "
            f"({ours['sparse products'] / ours['fit']:.0%})")
        lines.append(f"| {case} | {ours['fit']:.3f} | {shares} | {ours['iterations']:.0f}, {passes} | {products} | "
                     f"{peer['fit']:.3f}, {peer['iterations']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.newton_profile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", default=["balance 2%/1e5x20", "noisy/1e5x200", "inside/2e4x1e3"],
                        help="generator/n x d (benchmarks.family_sweep's generators, or sparse: the speed sweep's CSR)")
    parser.add_argument("--fits", type=int, default=3, help="timed fits per case (after one warm-up)")
    parser.add_argument("--seed", type=int, default=family_sweep.SEED)
    parser.add_argument("--tag", default="newton_profile")
    args = parser.parse_args(argv)
    record, rows = common.RunRecord("benchmarks.newton_profile", argv), []
    with common.limit_threads(1):
        for case in args.cases:
            generator, _, shape = case.rpartition("/")
            n, d = speed_sweep.parse_shape(shape)
            X, y = (speed_sweep.sparse_data(n, d, args.seed) if generator == "sparse"
                    else family_sweep.generate(generator, n, d, args.seed))
            rows.append((case, profile(X, y, args.fits)))
            print(markdown(rows[-1:]).splitlines()[-1], flush=True)
    text = "\n".join([
        "# Where a fit's time goes: dpcvx's fit (under cProfile) split by Newton's work, beside lbfgs (tol 1e-6)",
        "",
        f"Median of {args.fits} fits after a warm-up, one BLAS thread, the family sweep's generators at seed "
        f"{args.seed}. Groups: benchmarks/newton_profile.py's docstring. Passes: Newton's counted passes over X "
        "(row blocks only; - in memory beyond 400 columns).",
        "",
        markdown(rows),
    ])
    print(common.write_markdown(common.RESULTS_DIR / f"{args.tag}.md", text, record))


if __name__ == "__main__":
    main()
