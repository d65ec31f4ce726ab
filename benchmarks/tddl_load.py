"""What loading a TDDL file costs, and what its bound on lambda_max(K_Z) adds to the fit (docs/kernels.md, "Saving
and loading").

A TDDL release is fitted on 300 rows of a public synthetic family (``kernel_exact_scaling.rows``: 5 standard normal
columns scaled into the unit ball) with a public sample Z of |Z| rows of the same family (the linear kernel, the
cubic kernel (<x, x'> + 1)^3 and the rbf kernel exp(-||x - x'||^2), logistic loss, lam = 1e-2, (epsilon 1, delta
1e-6), seed 0), saved, loaded and saved again. "fit seconds" is the whole ``TDDL.fit``; "bound seconds" is the
fit's and the load's bound on lambda_max(K_Z) (``gram_top_eigenvalue_bound`` with the fit's eigenvalues at hand:
Lanczos and the certified bound, the fit's cost beyond the eigendecomposition its post-processing needs), timed on
the same K_Z; "load seconds" is the whole ``dpcvx.load``; "eigh seconds" is the full eigendecomposition
(``top_eigenvalue_bound(gram_spectrum(K_Z))``) the fit computes for its post-processing and from which both the fit
and the load bounded lambda_max before; "route" is the bound's (``certified``: Lanczos and the certified bound;
``eigh``: the padded eigenvalue, where the certified bound is not tight); "relative difference" is the bound against
that padded eigenvalue (how far a release's noise moved from the versions before); "same file" says the loaded
certificate is the fitted one and the file saved again from the loaded model has the same bytes. One BLAS thread.

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
from dpcvx.privacy.kernel_calibrate import (
    certified_top_eigenvalue,
    gram_spectrum,
    gram_top_eigenvalue_bound,
    top_eigenvalue_bound,
)

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
                    start = time.perf_counter()
                    release = TDDL(**parameters, lam=LAM, loss="logistic", span="training").fit(
                        X, y, EPSILON, DELTA, Z=Z, random_state=args.seed)
                    fit_seconds = time.perf_counter() - start
                path = dpcvx.save(release, Path(directory) / f"{name}_{size}.json")
                start = time.perf_counter()
                loaded = dpcvx.load(path)
                load_seconds = time.perf_counter() - start
                again = dpcvx.save(loaded, Path(directory) / f"{name}_{size}_again.json")
                same = (loaded.certificate.calibration == release.certificate.calibration
                        and again.read_bytes() == path.read_bytes())
                kernel = release.predictor.kernel
                gram = kernel.gram(Z, Z)
                start = time.perf_counter()
                eigenvalues = gram_spectrum(gram)[0]
                padded = top_eigenvalue_bound(eigenvalues)
                eigh_seconds = time.perf_counter() - start
                start = time.perf_counter()
                bound = gram_top_eigenvalue_bound(gram, eigenvalues)
                bound_seconds = time.perf_counter() - start
                route = "certified" if certified_top_eigenvalue((gram + gram.T) / 2) is not None else "eigh"
                difference = abs(bound - padded) / padded
                records.append({"size": size, "kernel": name, "fit_seconds": fit_seconds,
                                "bound_seconds": bound_seconds, "load_seconds": load_seconds,
                                "eigh_seconds": eigh_seconds, "route": route, "relative_difference": difference,
                                "same_file": same})
                print(f"[tddl_load] |Z|={size} {name}: fit {fit_seconds:.3f} s (bound {bound_seconds:.3f} s), load "
                      f"{load_seconds:.3f} s ({route}), eigh {eigh_seconds:.3f} s, relative difference "
                      f"{difference:.2g}, same file {same}", flush=True)
    return {"records": records}


def markdown(result: dict, args: argparse.Namespace) -> str:
    lines = ["# What loading a TDDL file costs, and what its bound adds to the fit", "",
             f"{TRAINING_ROWS} training rows, a public sample Z of |Z| rows, 5-dimensional rows in the unit ball, "
             f"logistic loss, lam = {LAM:g}, epsilon {EPSILON:g}, delta {DELTA:g}, seed {args.seed}; one BLAS thread. "
             "bound: the fit's and the load's bound on lambda_max(K_Z), timed alone; eigh: the full "
             "eigendecomposition the fit computes for its post-processing (and the load ran before), on the same "
             "K_Z; relative difference: the bound against the padded eigh value; same file: the loaded certificate "
             "is the fitted one and the file saved again is the same bytes.", "",
             "| \\|Z\\| | kernel | fit | bound (route) | load | eigh | relative difference | same file |",
             "|---|---|---|---|---|---|---|---|"]
    for record in result["records"]:
        lines.append(f"| {record['size']} | {record['kernel']} | {record['fit_seconds']:.2g} s "
                     f"| {record['bound_seconds']:.2g} s ({record['route']}) | {record['load_seconds']:.2g} s "
                     f"| {record['eigh_seconds']:.2g} s | {record['relative_difference']:.1g} "
                     f"| {'yes' if record['same_file'] else 'no'} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--seed", type=int, default=0)
    common.add_result_arguments(parser, "tddl_load")
    return common.run_recorded("benchmarks.tddl_load", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
