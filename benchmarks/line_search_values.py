"""F's values in Newton's line search: how many a fit computes, and what the fit costs, before and after a change.

Newton's line search needs F(w) and F(w + d) (l = log(1 + e^-z) per row, the dearest of l, l', l'' at d = 20)
unless a test proves the full step from what the step's pass already computed: round 9's slope test, and in
round 14 the crossing bound with the verified curvature bound c >= l'' and a step that ends the solve
(docs/theory.md section 23). Each child process imports ONE tree (``--before``, a checkout such as ``git archive
<commit> | tar -x -C /tmp/dpcvx-before``, or this tree), builds a family-sweep case (generator, size, a fresh
seed), warms up with one fit, times ``--fits`` fits (``time.process_time``, one BLAS thread), then runs one more
fit under cProfile to count the calls of the objective's ``value`` (each sums l over all n rows). The trees
alternate, ``--processes`` times each, so the machine's load hits both alike; the released coefficients are
compared bit for bit.

    python -m benchmarks.line_search_values --before /tmp/dpcvx-before --sizes 1e4x20 1e5x20 --processes 2
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from benchmarks import common, family_sweep

SEED = 52_000
SIZES = ["1e4x20", "1e5x20", "1e6x20"]
GENERATORS = ["isotropic", "noisy", "balance 2%", "balance 10%", "separable", "inside"]

CHILD = """
import cProfile, json, pstats, time, warnings
import numpy as np
from benchmarks import common, family_sweep
X, y = family_sweep.generate({generator!r}, {n}, {d}, {seed})
def fit():
    return dpcvx.PrivateERM(dpcvx.losses.logistic(), lam=1e-4, data_norm=1.0).fit(X, y, epsilon=1.0, random_state=0)
with common.limit_threads(1), warnings.catch_warnings():
    warnings.simplefilter("ignore")
    seconds, model = common.timed_fits(fit, {fits}, time.process_time)
    profile = cProfile.Profile()
    profile.runcall(fit)
values = sum(stat[1] for key, stat in pstats.Stats(profile).stats.items()
             if key[0].endswith("objective.py") and key[2] == "value")
print(json.dumps({{"seconds": seconds, "values": values, "coef": np.asarray(model.coef_).tobytes().hex()}}))
"""


def run_child(tree: Path, generator: str, n: int, d: int, seed: int, fits: int) -> dict:
    """One process's CPU seconds per fit, F's values per fit and released coefficients (hex) with ``tree``."""
    return common.tree_child(tree, CHILD.format(generator=generator, n=n, d=d, seed=seed, fits=fits))


def run(args: argparse.Namespace) -> dict:
    record, rows = common.RunRecord("benchmarks.line_search_values"), []
    trees = {"before": args.before.resolve(), "after": common.REPO_ROOT}
    seeds = iter(range(args.seed, args.seed + 10_000))
    for size in args.sizes:
        n, d = (int(float(part)) for part in size.split("x"))
        for generator in args.generators:
            seed = next(seeds)
            runs: dict[str, list[dict]] = {"before": [], "after": []}
            for k in range(args.processes):
                for name in (("before", "after") if k % 2 == 0 else ("after", "before")):
                    runs[name].append(run_child(trees[name], generator, n, d, seed, args.fits))
            seconds = {name: [s for one in done for s in one["seconds"]] for name, done in runs.items()}
            row = {"size": size, "generator": generator, "seed": seed,
                   "values_per_fit": {name: done[0]["values"] for name, done in runs.items()},
                   "cpu_ms_least": {name: 1e3 * min(s) for name, s in seconds.items()},
                   "cpu_ms_median": {name: 1e3 * statistics.median(s) for name, s in seconds.items()},
                   "identical": len({one["coef"] for done in runs.values() for one in done}) == 1}
            rows.append(row)
            print(size, generator, row["values_per_fit"], {m: round(v, 1) for m, v in row["cpu_ms_median"].items()},
                  row["identical"], flush=True)
    return {"run": record.finish(), "before": str(args.before), "fits": args.fits, "processes": args.processes,
            "rows": rows}


def markdown(output: dict) -> str:
    from benchmarks import report
    lines = [report.run_header(output, f"F's values in Newton's line search: evaluations of F per fit (each over the n "
                                       f"rows) and CPU ms of the fit, least / median of {output['fits']} fits "
                                       f"in each of {output['processes']} processes per tree, the trees "
                                       f"alternating (before: {output['before']}), 1 BLAS thread"), "",
             "| size | generator | values: before | values: now | CPU ms before | CPU ms now | median ratio | "
             "same release |", "|---|---|---|---|---|---|---|---|"]
    for row in output["rows"]:
        least, median = row["cpu_ms_least"], row["cpu_ms_median"]
        lines.append(f"| {row['size']} | {row['generator']} | {row['values_per_fit']['before']:g} | "
                     f"{row['values_per_fit']['after']:g} | {least['before']:.1f} / {median['before']:.1f} | "
                     f"{least['after']:.1f} / {median['after']:.1f} | "
                     f"{median['after'] / median['before']:.3f} | {row['identical']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.line_search_values",
                                     description=__doc__.split("\n\n")[0])
    common.add_tree_arguments(parser, SIZES, 5, SEED)
    parser.add_argument("--generators", nargs="+", default=GENERATORS, choices=family_sweep.GENERATORS)
    common.add_result_arguments(parser, "line_search_values")
    return common.run_and_write(parser, argv, run, markdown)


if __name__ == "__main__":
    main()
