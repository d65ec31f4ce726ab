"""Cold start against scikit-learn (issue 44, item 5): a new process's first ``DPLogisticRegression().fit``
against a new process's first ``LogisticRegression().fit``, imports included, side by side.

Fresh interpreters rotate (dpcvx, scikit-learn[, ``--before``'s dpcvx], then the order shifted by one),
``--repeats`` of each, one BLAS thread,
dpcvx's on-disk cache off (a fresh installation: the shipped catalogue only). As in an installation, the
modules' bytecode is on disk: the children run without ``PYTHONDONTWRITEBYTECODE`` and one untimed process of
each library comes first (it writes dpcvx's ``__pycache__``, which ``pip install`` writes for a user; a process
that compiles dpcvx's ~100 modules from source paid about 0.3 to 0.5 s more here). In each child numpy is
imported and the data made (1,000 x 5 rows in the unit ball, labels 0/1) before the clock starts; the clock
then reads the library's import and its first fit (``from dpcvx import DPLogisticRegression`` or ``from
sklearn.linear_model import LogisticRegression``, each with its default settings). The ratio of a pair is
dpcvx's time over scikit-learn's, wall and CPU (the child's process time); the median over pairs is reported with
the medians of each.

    python -m benchmarks.cold_start_peer [--repeats 7] [--before /tmp/dpcvx-main] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import common
from benchmarks.cold_start import ROOT, _environment

TARGET = 1.2  # issue 44: dpcvx's first fit at most 1.2 times scikit-learn's, imports included
BEFORE = "dpcvx (before)"  # the label of --before's dpcvx

FITS = {
    "dpcvx": "from dpcvx import DPLogisticRegression\nDPLogisticRegression(random_state=0).fit(X, y)",
    "sklearn": "from sklearn.linear_model import LogisticRegression\nLogisticRegression().fit(X, y)",
}

CHILD = """
import json, time, warnings
warnings.simplefilter("ignore")
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(1000, 5))
X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True)) * (1 + 1e-12)
y = (X @ np.ones(5) + 0.3 * rng.normal(size=1000) > 0).astype(int)
start, cpu = time.perf_counter(), time.process_time()
{fit}
print(json.dumps({{"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}}))
"""


def first_fit(name: str, root: Path = ROOT) -> dict[str, float]:
    """Wall and CPU seconds of the library's import and first fit in a fresh interpreter (bytecode written and
    read), with ``root``'s dpcvx."""
    environment = _environment(root, "off")
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", CHILD.format(fit=FITS[name])], cwd=root,
                          env=environment, capture_output=True, text=True, check=True)
    return {key: float(value) for key, value in json.loads(done.stdout.strip().splitlines()[-1]).items()}


def run(repeats: int, before: Path | None = None) -> dict:
    """``repeats`` fresh processes of each contestant, rotating; ``before``: also another tree's dpcvx (a checkout of
    main), in the same rotation, so that a change is measured side by side with its base."""
    record = common.RunRecord("benchmarks.cold_start_peer")
    contestants = {name: (name, ROOT) for name in FITS}
    if before is not None:
        contestants[BEFORE] = ("dpcvx", before.resolve())
    runs: dict[str, list[dict[str, float]]] = {label: [] for label in contestants}
    for name, root in contestants.values():  # untimed: the bytecode an installation has
        first_fit(name, root)
    for index in range(repeats):
        order = list(contestants)
        for label in order[index % len(order):] + order[:index % len(order)]:
            runs[label].append(first_fit(*contestants[label]))
    times = {label: [run["seconds"] for run in values] for label, values in runs.items()}
    cpu = {label: [run["cpu"] for run in values] for label, values in runs.items()}
    output: dict = {"run": record.finish(), "repeats": repeats, "target": TARGET, "seconds": times, "cpu_seconds": cpu,
                    "medians": {label: statistics.median(values) for label, values in times.items()},
                    "cpu_medians": {label: statistics.median(values) for label, values in cpu.items()}}
    for label in [label for label in contestants if label != "sklearn"]:
        suffix = "" if label == "dpcvx" else "_before"
        output["ratios" + suffix] = [a / b for a, b in zip(times[label], times["sklearn"], strict=True)]
        output["cpu_ratios" + suffix] = [a / b for a, b in zip(cpu[label], cpu["sklearn"], strict=True)]
        output["median_ratio" + suffix] = statistics.median(output["ratios" + suffix])
        output["median_cpu_ratio" + suffix] = statistics.median(output["cpu_ratios" + suffix])
    return output


def markdown(output: dict) -> str:
    from benchmarks import report

    medians = output["medians"]
    return "\n".join([
        report.run_header(output, f"Cold start against scikit-learn: {output['repeats']} fresh processes of each, "
                                  "rotating, one BLAS thread"), "",
        "Seconds of the library's import and its first fit (1,000 x 5 rows), numpy already imported.", "",
        "| first fit, imports included | median wall s | all runs | median CPU s | all runs |",
        "|---|---|---|---|---|",
        *(f"| {name} | {medians[name]:.2f} | {', '.join(f'{t:.2f}' for t in output['seconds'][name])} | "
          f"{output['cpu_medians'][name]:.2f} | {', '.join(f'{t:.2f}' for t in output['cpu_seconds'][name])} |"
          for name in output["seconds"]),
        "", f"dpcvx / scikit-learn, median of the pairs' ratios: wall **{output['median_ratio']:.2f}**, CPU "
            f"**{output['median_cpu_ratio']:.2f}** (target <= {output['target']}); wall pairs: "
            f"{', '.join(f'{r:.2f}' for r in output['ratios'])}; CPU pairs: "
            f"{', '.join(f'{r:.2f}' for r in output['cpu_ratios'])}", "",
        *([f"{BEFORE} / scikit-learn, the same way: wall **{output['median_ratio_before']:.2f}**, CPU "
           f"**{output['median_cpu_ratio_before']:.2f}**; wall pairs: "
           f"{', '.join(f'{r:.2f}' for r in output['ratios_before'])}; CPU pairs: "
           f"{', '.join(f'{r:.2f}' for r in output['cpu_ratios_before'])}", ""] if BEFORE in output["seconds"] else []),
        "CPU seconds (the child's user + system time) are the steadier measure on a shared machine: a loaded "
        "machine stretches a process's wall time, less its CPU time.", ""])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cold_start_peer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="fresh processes of each library")
    common.add_result_arguments(parser, "cold_start_peer")
    parser.add_argument("--before", type=Path, default=None,
                        help="another tree (a checkout of main) whose dpcvx is timed in the same rotation")
    args = parser.parse_args(argv)
    output = run(args.repeats, args.before)
    common.write_results(output, markdown(output), Path(args.out), args.tag)
    return output


if __name__ == "__main__":
    main()
