"""Time of `import dpcvx` in a fresh interpreter, as a ratio to `import numpy` measured alike.

Each contender is imported in its own new process, interleaved, ``--repeats`` times; the
ratio of the medians is reported (issue 21: at most 3). Run:

    python benchmarks/import_time.py [--repeats 15] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.common import RunRecord, write_json

CODE = "import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"


def import_seconds(module: str) -> float:
    """Seconds to import ``module`` in a new interpreter (the interpreter's own start excluded)."""
    output = subprocess.run([sys.executable, "-c", CODE.format(module=module)], capture_output=True,
                            text=True, check=True).stdout
    return float(output.strip())


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--out", type=Path, default=None, help="directory for import_time.json")
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.import_time", argv)
    times: dict[str, list[float]] = {"numpy": [], "dpcvx": []}
    for _ in range(args.repeats):
        for module in times:  # interleaved, so machine noise hits both alike
            times[module].append(import_seconds(module))
    medians = {module: statistics.median(values) for module, values in times.items()}
    result = {
        "repeats": args.repeats,
        "median_seconds": medians,
        "ratio_dpcvx_to_numpy": medians["dpcvx"] / medians["numpy"],
        "run": record.finish(),
    }
    print(json.dumps(result, indent=2))
    if args.out is not None:
        write_json(args.out / "import_time.json", result)
    return result


if __name__ == "__main__":
    main()
