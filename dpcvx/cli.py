"""The ``dpcvx`` command line."""

from __future__ import annotations

import argparse
import sys
import time

from .exceptions import DPCVXError

__all__ = ["main"]


def _demo(args: argparse.Namespace) -> int:
    from .demo import plot_demo, run_demo

    start = time.perf_counter()
    result = run_demo(n=args.n, draws=args.draws, random_state=args.seed)
    print(result.certificate)
    print()
    print(result.release)
    print()
    print(f"Test accuracy (mean ± std over {result.draws} noise draws), n = {result.n_train}:")
    print(result.table())
    try:
        path = plot_demo(result, args.plot)
    except ImportError:
        print("\nmatplotlib is not installed: no plot (pip install 'dpcvx[plot]')")
    else:
        print(f"\nplot written to {path}")
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpcvx",
        description="Differentially private ERM with machine-checked privacy certificates.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    demo = commands.add_parser(
        "demo", help="verify, fit both mechanisms on built-in synthetic data, print and plot",
        description="Run the main job on built-in synthetic data (no download): verify the "
                    "logistic and Huber losses, fit output and objective perturbation at "
                    "several epsilon, print the certificate and a results table, plot accuracy.",
    )
    demo.add_argument("--n", type=int, default=20000, help="training rows (default 20000)")
    demo.add_argument("--draws", type=int, default=5, help="noise draws per point (default 5)")
    demo.add_argument("--seed", type=int, default=0, help="seed of data and noise (default 0)")
    demo.add_argument("--plot", default="dpcvx-demo.png", help="PNG path (default dpcvx-demo.png)")
    demo.set_defaults(handler=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except DPCVXError as error:
        print(f"dpcvx: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
