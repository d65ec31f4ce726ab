"""The default estimator's fit at scale, before and after a change: the fit and its work outside the solver.

``DPLogisticRegression(epsilon=1, lam=1e-4, data_norm=1).fit(X, y)`` (the default column_statistics="auto": private
column ranges, a standardising row map, an intercept, the NOT PRIVATE training-rows check) on a family-sweep case.
Each child process imports ONE tree (``--before``, a checkout such as ``git archive <commit> | tar -x -C
/tmp/dpcvx-before``, or this tree), warms up with one fit, times ``--fits`` fits (CPU seconds, one BLAS thread,
``random_state=0``), then runs one more fit under cProfile (CPU time too) for the parts: the histograms' counts
(``noisy_histograms`` less its sampler ``discrete_laplace_array``, in that process), the standardiser's map
(``ColumnStandardiser.transform_into``, or ``transform`` in a tree without it), the row map (``RowMap.apply``, which
maps through it), the training-rows check (``_check_training_rows``, which maps the rows again), the release of the
ranges (``release_ranges``: the rows clipped onto R, the counts and the sampler), and the peak growth of the
process's resident memory over its data's during its fits (``ru_maxrss``, MB, after a fit on 2,000 rows; the most
over its processes). The trees alternate, ``--processes`` times each; the released coefficients are compared bit
for bit.

    python -m benchmarks.estimator_scale --before /tmp/dpcvx-before --sizes 1e5x20 1e6x20 1e5x200
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from benchmarks import common, family_sweep

SEED = 53_000
SIZES = ["1e5x20", "1e6x20", "1e5x200"]
#: Each part's (file, functions): the first function of the tuple that the profiled fit called (a tree before
#: ColumnStandardiser.transform_into has only transform, which now calls it).
PARTS = {"ranges": ("column_statistics.py", ("release_ranges",)),
         "counts": ("column_histogram.py", ("noisy_histograms",)),
         "sampler": ("exact_sampling.py", ("discrete_laplace_array",)),
         "transform": ("standardiser.py", ("transform_into", "transform")), "row map": ("rows.py", ("apply",)),
         "check": ("classifiers.py", ("_check_training_rows",))}

CHILD = """
import cProfile, json, pstats, resource, time, warnings
import numpy as np
from benchmarks import common, family_sweep
X, y = family_sweep.generate({generator!r}, {n}, {d}, {seed})
labels = (y > 0).astype(int)
def fit(rows=None):
    return dpcvx.DPLogisticRegression(epsilon=1, lam=1e-4, data_norm=1, random_state=0).fit(X[:rows], labels[:rows])
with common.limit_threads(1), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    fit(2000)  # imports and verification before the memory's base
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    seconds, model = common.timed_fits(fit, {fits}, time.process_time)
    peak = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024  # MB over the data's
    profile = cProfile.Profile(time.process_time)
    profile.runcall(fit)
stats = pstats.Stats(profile).stats
def part(path, functions):
    times = [sum(stat[3] for key, stat in stats.items() if key[0].endswith(path) and key[2] == function)
             for function in functions]
    return next((time for time in times if time), 0.0)
parts = {{name: part(path, functions) for name, (path, functions) in {parts!r}.items()}}
parts["counts"] -= parts["sampler"]  # the counts alone
coef = np.asarray(model.coef_).tobytes().hex()
print(json.dumps({{"seconds": seconds, "peak_mb": peak, "parts": parts, "coef": coef}}))
"""


def run_child(tree: Path, generator: str, n: int, d: int, seed: int, fits: int) -> dict:
    """One process's CPU seconds per fit, the profiled fit's parts (cumulative seconds) and the released
    coefficients (hex) with ``tree``."""
    return common.tree_child(tree, CHILD.format(generator=generator, n=n, d=d, seed=seed, fits=fits, parts=PARTS))


def run(args: argparse.Namespace) -> dict:
    record, rows = common.RunRecord("benchmarks.estimator_scale"), []
    trees = {"before": args.before.resolve(), "after": common.REPO_ROOT}
    for k, size in enumerate(args.sizes):
        n, d = (int(float(part)) for part in size.split("x"))
        seed = args.seed + k
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for j in range(args.processes):
            for name in (("before", "after") if j % 2 == 0 else ("after", "before")):
                runs[name].append(run_child(trees[name], args.generator, n, d, seed, args.fits))
        least = {name: min(s for one in done for s in one["seconds"]) for name, done in runs.items()}
        parts = {name: {part: min(one["parts"][part] for one in done) for part in PARTS} for name, done in runs.items()}
        peak = {name: max(one["peak_mb"] for one in done) for name, done in runs.items()}
        row = {"size": size, "seed": seed,
               "seconds": {name: [one["seconds"] for one in done] for name, done in runs.items()},
               "least_s": least, "ratio": least["after"] / least["before"], "peak_mb": peak,
               "parts_least_s": parts,
               "identical": len({one["coef"] for done in runs.values() for one in done}) == 1}
        rows.append(row)
        print(size, {m: round(v, 3) for m, v in least.items()}, round(row["ratio"], 3), row["identical"], flush=True)
    return {"run": record.finish(), "before": str(args.before), "generator": args.generator, "fits": args.fits,
            "processes": args.processes, "rows": rows}


def markdown(output: dict) -> str:
    from benchmarks import report
    lines = [report.run_header(output, f"The default DPLogisticRegression fit ({output['generator']} rows): CPU "
                                       f"seconds, least of {output['fits']} fits in each of {output['processes']} "
                                       "processes per tree, the trees alternating (before: "
                                       f"{output['before']}), 1 BLAS thread; parts from one profiled fit per "
                                       "process (least over processes; histogram counts: noisy_histograms less "
                                       "its sampler; the row map includes the transform, called by it; the parts "
                                       "are cumulative times under the profiler)"), "",
             "| size | fit before (least / median) | fit now | ratio (least / median) | ranges | counts | transform | "
             "row map | check | peak MB | same release |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in output["rows"]:
        least, parts = row["least_s"], row["parts_least_s"]
        cells = [f"{parts['before'][part]:.3f} -> {parts['after'][part]:.3f}"
                 for part in ("ranges", "counts", "transform", "row map", "check")]
        median = {name: statistics.median(s for one in row["seconds"][name] for s in one) for name in least}
        lines.append(f"| {row['size']} | {least['before']:.3f} / {median['before']:.3f} | {least['after']:.3f} / "
                     f"{median['after']:.3f} | {row['ratio']:.3f} / {median['after'] / median['before']:.3f} | "
                     + " | ".join(cells) + f" | {row['peak_mb']['before']:.0f} -> {row['peak_mb']['after']:.0f} | "
                     f"{row['identical']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.estimator_scale", description=__doc__.split("\n\n")[0])
    common.add_tree_arguments(parser, SIZES, 3, SEED)
    parser.add_argument("--generator", default="noisy", choices=family_sweep.GENERATORS)
    common.add_result_arguments(parser, "estimator_scale")
    return common.run_and_write(parser, argv, run, markdown)


if __name__ == "__main__":
    main()
