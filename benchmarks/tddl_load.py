"""What loading a TDDL file costs: the bound on lambda_max(K_Z) of its public sample Z (docs/kernels.md, "Saving and
loading").

A TDDL release is fitted on 300 rows of a public synthetic family (``kernel_exact_scaling.rows``: 5 standard normal
columns scaled into the unit ball) with a public sample Z of |Z| rows of the same family (the linear kernel, the
cubic kernel (<x, x'> + 1)^3 and the rbf kernel exp(-||x - x'||^2), logistic loss, lam = 1e-2, (epsilon 1, delta
1e-6), seed 0), saved and loaded. "load seconds" is the whole ``dpcvx.load``; "eigh seconds" is the full
eigendecomposition the load computed before (``top_eigenvalue_bound(gram_spectrum(K_Z))``, the fit's route), timed on
the same K_Z; "route" is what the load used (``certified``: Lanczos and the certified bound; ``eigh``: the fit's
route, where the certified bound is not tight); "relative difference" is the loaded test_operator_norm against the
fitted one. One BLAS thread.

    python -m benchmarks.tddl_load                    # |Z| = 1000, 2000, 4000: a few minutes
    python -m benchmarks.tddl_load --sizes 520 800    # a quick look
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import dpcvx
from benchmarks import common
from benchmarks.kernel_exact_scaling import rows
from dpcvx import TDDL
from dpcvx.privacy.kernel_calibrate import certified_top_eigenvalue, gram_spectrum, top_eigenvalue_bound

KERNELS = {"linear": {"kernel": "linear", "input_bound": 1.0},
           "cubic": {"kernel": "poly", "degree": 3, "offset": 1.0, "input_bound": 1.0},
           "rbf": {"kernel": "rbf", "gamma": 1.0}}
TRAINING_ROWS = 300
LAM = 1e-2
EPSILON, DELTA = 1.0, 1e-6


def run(args: argparse.Namespace) -> dict:
    X, y = rows(TRAINING_ROWS, args.seed)
    records = []
    with tempfile.TemporaryDirectory() as directory:
        for size in args.sizes:
            Z = rows(size, args.seed + 1)[0]
            for name, parameters in KERNELS.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # |Z| public points: their noise dominance is not measured here
                    release = TDDL(**parameters, lam=LAM, loss="logistic", span="training").fit(
                        X, y, EPSILON, DELTA, Z=Z, random_state=args.seed)
                path = dpcvx.save(release, Path(directory) / f"{name}_{size}.json")
                start = time.perf_counter()
                loaded = dpcvx.load(path)
                load_seconds = time.perf_counter() - start
                kernel = release.predictor.kernel
                gram = kernel.gram(Z, Z)
                start = time.perf_counter()
                top_eigenvalue_bound(gram_spectrum(gram)[0])
                eigh_seconds = time.perf_counter() - start
                route = "certified" if certified_top_eigenvalue((gram + gram.T) / 2) is not None else "eigh"
                fitted = release.certificate.calibration.test_operator_norm
                difference = abs(loaded.certificate.calibration.test_operator_norm - fitted) / fitted
                records.append({"size": size, "kernel": name, "load_seconds": load_seconds,
                                "eigh_seconds": eigh_seconds, "route": route, "relative_difference": difference})
                print(f"[tddl_load] |Z|={size} {name}: load {load_seconds:.3f} s ({route}), eigh {eigh_seconds:.3f} s, "
                      f"relative difference {difference:.2g}", flush=True)
    return {"records": records}


def markdown(result: dict, args: argparse.Namespace) -> str:
    lines = ["# What loading a TDDL file costs", "",
             f"{TRAINING_ROWS} training rows, a public sample Z of |Z| rows, 5-dimensional rows in the unit ball, "
             f"logistic loss, lam = {LAM:g}, epsilon {EPSILON:g}, delta {DELTA:g}, seed {args.seed}; one BLAS thread. "
             "eigh: the full eigendecomposition the load ran before, on the same K_Z.", "",
             "| \\|Z\\| | kernel | load (route) | eigh before | relative difference |", "|---|---|---|---|---|"]
    for record in result["records"]:
        lines.append(f"| {record['size']} | {record['kernel']} | {record['load_seconds']:.2g} s ({record['route']}) "
                     f"| {record['eigh_seconds']:.2g} s | {record['relative_difference']:.1g} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--seed", type=int, default=0)
    common.add_result_arguments(parser, "tddl_load")
    return common.run_recorded("benchmarks.tddl_load", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
