"""The default estimator's fit at scale, before and after a change: the fit and its work outside the solver.

``DPLogisticRegression(epsilon=1, lam=1e-4, data_norm=1).fit(X, y)`` (the default column_statistics="auto": private
column ranges, a standardising row map, an intercept, the NOT PRIVATE training-rows check) on a family-sweep case.
Each child process imports ONE tree (``--before``, a checkout such as ``git archive <commit> | tar -x -C
/tmp/dpcvx-before``, or this tree), warms up with one fit, times ``--fits`` fits (CPU seconds, one BLAS thread,
``random_state=0``), then runs one more fit under cProfile (CPU time too) for the parts: the histograms' counts
(``noisy_histograms`` less its sampler ``discrete_laplace_array``, in that process), the standardiser's map
(``ColumnStandardiser.transform``), the row map (``RowMap.apply``, which calls the transform) and the training-rows
check (``_check_training_rows``, which maps the rows again). The trees alternate, ``--processes`` times each; the
released coefficients are compared bit for bit.

    python -m benchmarks.estimator_scale --before /tmp/dpcvx-before --sizes 1e5x20 1e6x20 1e5x200
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import common, family_sweep

SEED = 53_000
SIZES = ["1e5x20", "1e6x20", "1e5x200"]
PARTS = {"counts": ("column_histogram.py", "noisy_histograms"),
         "sampler": ("exact_sampling.py", "discrete_laplace_array"), "transform": ("standardiser.py", "transform"),
         "row map": ("rows.py", "apply"),
         "check": ("classifiers.py", "_check_training_rows")}

CHILD = """
import cProfile, json, pstats, time, warnings
import numpy as np
from benchmarks import common, family_sweep
X, y = family_sweep.generate({generator!r}, {n}, {d}, {seed})
labels = (y > 0).astype(int)
def fit():
    return dpcvx.DPLogisticRegression(epsilon=1, lam=1e-4, data_norm=1, random_state=0).fit(X, labels)
with common.limit_threads(1), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    seconds, model = common.timed_fits(fit, {fits}, time.process_time)
    profile = cProfile.Profile(time.process_time)
    profile.runcall(fit)
stats = pstats.Stats(profile).stats
parts = {{name: sum(stat[3] for key, stat in stats.items() if key[0].endswith(path) and key[2] == function)
          for name, (path, function) in {parts!r}.items()}}
parts["counts"] -= parts["sampler"]  # the counts alone
print(json.dumps({{"seconds": seconds, "parts": parts, "coef": np.asarray(model.coef_).tobytes().hex()}}))
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
        row = {"size": size, "seed": seed,
               "seconds": {name: [one["seconds"] for one in done] for name, done in runs.items()},
               "least_s": least, "ratio": least["after"] / least["before"],
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
             "| size | fit before | fit now | ratio | counts | transform | row map | check | same release |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in output["rows"]:
        least, parts = row["least_s"], row["parts_least_s"]
        cells = [f"{parts['before'][part]:.3f} -> {parts['after'][part]:.3f}"
                 for part in ("counts", "transform", "row map", "check")]
        lines.append(f"| {row['size']} | {least['before']:.3f} | {least['after']:.3f} | {row['ratio']:.3f} | "
                     + " | ".join(cells) + f" | {row['identical']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.estimator_scale", description=__doc__.split("\n\n")[0])
    common.add_tree_arguments(parser, SIZES, 3, SEED)
    parser.add_argument("--generator", default="noisy", choices=family_sweep.GENERATORS)
    common.add_result_arguments(parser, "estimator_scale")
    return common.run_and_write(parser, argv, run, markdown)


if __name__ == "__main__":
    main()
