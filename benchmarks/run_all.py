"""Run every benchmark, then regenerate the results page (docs/results.md).

    python -m benchmarks.run_all --quick      # quick mode (minutes)
    python -m benchmarks.run_all              # the full recorded runs (hours; quiet machine)

Order: reproduction (``--jobs`` processes), then the speed benchmark (one
process, interleaved), then :mod:`benchmarks.render_results`. The total wall
time and the load averages are printed at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from benchmarks import common, render_results, reproduce_jmlr, speed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_all", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="quick mode of every benchmark")
    parser.add_argument("--out", default=None, help="output directory (default benchmarks/results)")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the reproduction (speed uses 1)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-reproduction", action="store_true")
    args = parser.parse_args(argv)
    start, load = time.perf_counter(), common.load_average()
    record = common.RunRecord("benchmarks.run_all", argv)
    common_args = (["--quick"] if args.quick else []) + ([] if args.out is None else ["--out", args.out])
    if not args.skip_reproduction:
        reproduce_jmlr.main(common_args + ["--jobs", str(args.jobs)])
    if not args.skip_speed:
        speed.main(common_args)
    out = common.RESULTS_DIR if args.out is None else Path(args.out)
    common.write_json(out / f"run_all_{'quick' if args.quick else 'full'}.json",
                      {"kind": "run_all", "quick": bool(args.quick), "run": record.finish(),
                       "steps": [name for name, skip in (("reproduce_jmlr", args.skip_reproduction),
                                                         ("speed", args.skip_speed)) if not skip]})
    code = render_results.main([]) if args.out is None else 0  # docs/results.md reads benchmarks/results only
    print(f"[run_all] done in {time.perf_counter() - start:.0f} s; load average {load} -> "
          f"{common.load_average()}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
