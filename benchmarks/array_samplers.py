"""The exact array samplers from the OS CSPRNG, and the default estimator's fit, before and after a change.

``discrete_laplace_array(scale, size, SystemSource())`` is what a default ``DPLogisticRegression`` fit draws for its
private column ranges: ``k 2^8`` cells at the scale ``histogram_scale(k, eps_s)`` (5,120 draws at k = 20, eps_s
= 0.1, a 61-bit numerator). Each child process imports ONE tree (``--before``, a checkout such as ``git archive
<commit> | tar -x -C /tmp/dpcvx-before``, or this tree) and times, least of ``--repeats`` (``time.process_time``,
one BLAS thread), the discrete Laplace at each of ``--sizes`` draws, the discrete Gaussian (sigma^2 = 100) at
1,000 draws, and the default ``DPLogisticRegression(epsilon=1, lam=1e-4, data_norm=1).fit`` on the family sweep's
"noisy" rows at each of ``--fits`` (a warm-up fit first). The trees alternate, ``--processes`` times each.

    python -m benchmarks.array_samplers --before /tmp/dpcvx-before --processes 2
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import common

SEED = 53_000
SIZES = [64, 1000, 5120, 20_000]
FITS = ["1e5x20", "1e6x20"]

CHILD = """
import json, time, warnings
import dpcvx
from dpcvx.privacy.column_histogram import histogram_scale
from dpcvx.privacy.exact_sampling import SystemSource, discrete_gaussian_array, discrete_laplace_array
from benchmarks import common, family_sweep

def least(call, repeats):
    return min(common.timed_fits(call, repeats, time.process_time)[0])

out = {{}}
scale = histogram_scale(20, 0.1)
with common.limit_threads(1), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for size in {sizes!r}:
        out[f"laplace {{size}}"] = least(lambda: discrete_laplace_array(scale, size, SystemSource()), {repeats})
    out["gaussian 1000"] = least(lambda: discrete_gaussian_array(100, 1000, SystemSource()), {repeats})
    for size in {fits!r}:
        n, d = (int(float(part)) for part in size.split("x"))
        X, y = family_sweep.generate("noisy", n, d, {seed})
        labels = (y > 0).astype(int)
        fit = lambda: dpcvx.DPLogisticRegression(epsilon=1, lam=1e-4, data_norm=1).fit(X, labels)
        out[f"fit {{size}}"] = least(fit, {repeats})
print(json.dumps(out))
"""


def run_child(tree: Path, args: argparse.Namespace) -> dict[str, float]:
    """One process's least CPU seconds per case with ``tree`` (:func:`common.tree_child`)."""
    return common.tree_child(tree, CHILD.format(sizes=args.sizes, fits=args.fits, repeats=args.repeats,
                                                seed=args.seed))


def run(args: argparse.Namespace) -> dict:
    record = common.RunRecord("benchmarks.array_samplers")
    trees = {"before": args.before.resolve(), "after": common.REPO_ROOT}
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for k in range(args.processes):
        for name in (("before", "after") if k % 2 == 0 else ("after", "before")):
            runs[name].append(run_child(trees[name], args))
            print(name, runs[name][-1], flush=True)
    least = {name: {case: min(one[case] for one in done) for case in done[0]} for name, done in runs.items()}
    return {"run": record.finish(), "before": str(args.before), "repeats": args.repeats,
            "processes": args.processes, "least_seconds": least}


def markdown(output: dict) -> str:
    from benchmarks import report
    least = output["least_seconds"]
    lines = [report.run_header(output, f"Exact array samplers on the OS CSPRNG and the default DPLogisticRegression "
                                       f"fit: least CPU ms of {output['repeats']} in each of {output['processes']} "
                                       f"processes per tree, the trees alternating (before: {output['before']}), "
                                       f"1 BLAS thread"), "",
             "| case | before, ms | after, ms | after / before |", "|---|---|---|---|"]
    for case, before in least["before"].items():
        after = least["after"][case]
        lines.append(f"| {case} | {1e3 * before:.2f} | {1e3 * after:.2f} | {after / before:.3f} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.array_samplers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="a dpcvx tree to compare against (its root)")
    parser.add_argument("--sizes", nargs="+", type=int, default=SIZES, help="discrete Laplace draws per call")
    parser.add_argument("--fits", nargs="+", default=FITS, help="estimator fits, n x d")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per case and process")
    parser.add_argument("--processes", type=int, default=2, help="processes per tree")
    parser.add_argument("--seed", type=int, default=SEED)
    common.add_result_arguments(parser, "array_samplers")
    return common.run_and_write(parser, argv, run, markdown)


if __name__ == "__main__":
    main()
