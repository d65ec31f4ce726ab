"""Run every benchmark, then regenerate the README's Results section.

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

from benchmarks import common, render_results, reproduce_jmlr, speed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run_all", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="quick mode of every benchmark")
    parser.add_argument("--out", default=str(common.RESULTS_DIR), help="output directory")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the reproduction (speed uses 1)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-reproduction", action="store_true")
    args = parser.parse_args(argv)
    start, load = time.perf_counter(), common.load_average()
    quick = ["--quick"] if args.quick else []
    if not args.skip_reproduction:
        reproduce_jmlr.main(quick + ["--out", args.out, "--jobs", str(args.jobs)])
    if not args.skip_speed:
        speed.main(quick + ["--out", args.out])
    code = render_results.main(["--results", args.out]) if args.out == str(common.RESULTS_DIR) else 0
    print(f"[run_all] done in {time.perf_counter() - start:.0f} s; load average {load} -> "
          f"{common.load_average()}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
