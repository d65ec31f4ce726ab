"""Cold start against scikit-learn (issue 44, item 5): a new process's first ``DPLogisticRegression().fit``
against a new process's first ``LogisticRegression().fit``, imports included, side by side.

Fresh interpreters alternate (dpcvx, scikit-learn, dpcvx, ...), ``--repeats`` of each, one BLAS thread,
dpcvx's on-disk cache off (a fresh installation: the shipped catalogue only). In each child numpy is
imported and the data made (1,000 x 5 rows in the unit ball, labels 0/1) before the clock starts; the clock
then reads the library's import and its first fit (``from dpcvx import DPLogisticRegression`` or ``from
sklearn.linear_model import LogisticRegression``, each with its default settings). The ratio of a pair is
dpcvx's time over scikit-learn's; the median over pairs is reported with the medians of each.

    python -m benchmarks.cold_start_peer [--repeats 7] [--out benchmarks/results]
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
start = time.perf_counter()
{fit}
print(json.dumps({{"seconds": time.perf_counter() - start}}))
"""


def first_fit(name: str) -> float:
    """Seconds of the library's import and first fit in a fresh interpreter."""
    done = subprocess.run([sys.executable, "-c", CHILD.format(fit=FITS[name])], cwd=ROOT,
                          env=_environment(ROOT, "off"), capture_output=True, text=True, check=True)
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


def run(repeats: int) -> dict:
    record = common.RunRecord("benchmarks.cold_start_peer")
    times: dict[str, list[float]] = {name: [] for name in FITS}
    for index in range(repeats):
        for name in (FITS if index % 2 == 0 else reversed(list(FITS))):
            times[name].append(first_fit(name))
    ratios = [a / b for a, b in zip(times["dpcvx"], times["sklearn"], strict=True)]
    return {"run": record.finish(), "repeats": repeats, "target": TARGET, "seconds": times, "ratios": ratios,
            "median_ratio": statistics.median(ratios),
            "medians": {name: statistics.median(values) for name, values in times.items()}}


def markdown(output: dict) -> str:
    from benchmarks import report

    medians = output["medians"]
    return "\n".join([
        report.run_header(output, f"Cold start against scikit-learn: {output['repeats']} fresh processes of each, "
                                  "alternating, one BLAS thread"), "",
        "Seconds of the library's import and its first fit (1,000 x 5 rows), numpy already imported.", "",
        "| first fit, imports included | median s | all runs |", "|---|---|---|",
        *(f"| {name} | {medians[name]:.2f} | {', '.join(f'{t:.2f}' for t in output['seconds'][name])} |"
          for name in FITS),
        "", f"dpcvx / scikit-learn, median of the pairs' ratios: **{output['median_ratio']:.2f}** (target "
            f"<= {output['target']}); pairs: {', '.join(f'{r:.2f}' for r in output['ratios'])}", ""])


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cold_start_peer", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="fresh processes of each library")
    parser.add_argument("--out", default=str(common.RESULTS_DIR), help="output directory")
    parser.add_argument("--tag", default="cold_start_peer", help="file name tag")
    args = parser.parse_args(argv)
    output = run(args.repeats)
    from benchmarks import speed_sweep

    speed_sweep.write(output, markdown(output), Path(args.out), args.tag)
    return output


if __name__ == "__main__":
    main()
