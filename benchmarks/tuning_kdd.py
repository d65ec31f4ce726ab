"""End-to-end private tuning on KDD Cup 99 (JMLR 2011, Section 7, the tuning experiment).

Task: DoS attack or not, on the 10% file (494,021 rows). Logistic loss,
objective perturbation, Lam tuned over {1e-4, 10^-3.5, 1e-3, 10^-2.5, 1e-2}
by Algorithm 4 (:func:`dpcvx.models.tuning.tune`, m = 5, so 6 parts of n rows each),
for n per candidate from 10,000 up to what the file allows and epsilon in
{0.01, 0.05, 0.1}. Beside it, non-private tuning: the same split, the exact
(non-private) minimiser for each Lam on its part, and the Lam with the fewest
mistakes on the held-out part.

Each repetition draws a fresh random test set of 10,000 rows first, then the
6n tuning rows from the remaining 484,021, so n goes up to
floor(484,021 / 6) = 80,670. Test error is that of the released model.

The data come from ``dpcvx.load_kdd(mode="paper", n_rows=None)``: one-hot
categories found in the file, each numeric column divided by its maximum
over the file, a constant feature (d = 119, the paper's), each row scaled to
norm <= 1. The first two steps READ THE DATA and are not private; this
reproduces the published setup, it is not a private pipeline.

    python benchmarks/tuning_kdd.py --quick     # a few minutes
    python benchmarks/tuning_kdd.py             # the full run
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from dpcvx import load_kdd, losses
from dpcvx.models.erm import PrivateERM
from dpcvx.models.tuning import count_mistakes, disjoint_parts, tune

LAMS = (1e-4, 10**-3.5, 1e-3, 10**-2.5, 1e-2)
LAM_LABELS = ("1e-4", "10^-3.5", "1e-3", "10^-2.5", "1e-2")
EPSILONS = (0.01, 0.05, 0.1)
TEST_SIZE = 10_000
KDD_ROWS = 494_021
MAX_N = (KDD_ROWS - TEST_SIZE) // (len(LAMS) + 1)
FULL = {"sizes": (10_000, 20_000, 40_000, 60_000, MAX_N), "repetitions": 20}
QUICK = {"sizes": (10_000, 20_000, 40_000), "repetitions": 3}


def private_tuning_error(X, y, X_test, y_test, epsilon, rng) -> tuple[float, float]:
    """(test error, selected Lam) of Algorithm 4 with objective perturbation."""
    learner = PrivateERM(loss=losses.logistic(), data_norm=1.0)
    result = tune(learner, X, y, {"lam": list(LAMS)}, epsilon, mechanism="objective",
                  random_state=rng, verbose=False, procedure="split")
    return 1.0 - result.model.score(X_test, y_test), result.params["lam"]


def nonprivate_tuning_error(X, y, X_test, y_test, rng) -> tuple[float, float]:
    """(test error, selected Lam): same split, exact minimisers, fewest held-out mistakes."""
    parts = disjoint_parts(X.shape[0], len(LAMS) + 1, rng)
    held_out = parts[-1]
    models = [PrivateERM(loss=losses.logistic(), lam=lam, data_norm=1.0).fit_nonprivate(X[rows], y[rows])
              for lam, rows in zip(LAMS, parts[:-1], strict=True)]
    best = int(np.argmin([count_mistakes(model, X[held_out], y[held_out]) for model in models]))
    return 1.0 - models[best].score(X_test, y_test), LAMS[best]


def summary(errors: list[float]) -> dict:
    values = np.asarray(errors)
    return {"mean": float(values.mean()), "std": float(values.std(ddof=1)) if values.size > 1 else 0.0,
            "min": float(values.min()), "max": float(values.max()), "values": values.tolist()}


def run(X, y, sizes, repetitions, seed, progress) -> dict:
    methods = ["non-private"] + [f"eps={epsilon:g}" for epsilon in EPSILONS]
    errors = {method: {n: [] for n in sizes} for method in methods}
    selected = {method: {n: [] for n in sizes} for method in methods}
    for repetition in range(repetitions):
        rng = np.random.default_rng([seed, repetition])
        order = rng.permutation(X.shape[0])
        test, pool = order[:TEST_SIZE], order[TEST_SIZE:]
        X_test, y_test = X[test], y[test]
        for n in sizes:
            rows = pool[: (len(LAMS) + 1) * n]
            X_tune, y_tune = X[rows], y[rows]
            started = time.perf_counter()
            error, lam = nonprivate_tuning_error(X_tune, y_tune, X_test, y_test, rng)
            errors["non-private"][n].append(error)
            selected["non-private"][n].append(lam)
            for epsilon, method in zip(EPSILONS, methods[1:], strict=True):
                error, lam = private_tuning_error(X_tune, y_tune, X_test, y_test, epsilon, rng)
                errors[method][n].append(error)
                selected[method][n].append(lam)
            progress(f"repetition {repetition + 1}/{repetitions}, n = {n}: "
                     f"{time.perf_counter() - started:.1f} s")
    return {
        method: {
            str(n): {**summary(errors[method][n]),
                     "selected_lam": [LAM_LABELS[LAMS.index(lam)] for lam in selected[method][n]]}
            for n in sizes
        }
        for method in methods
    }


def error_table(results: dict) -> str:
    """Markdown table of test error, mean (std), per n per candidate (rows) and method (columns)."""
    methods = list(results)
    lines = ["| n per candidate | " + " | ".join(methods) + " |", "|---:|" + "---:|" * len(methods)]
    for n in results[methods[0]]:
        cells = [f"{results[method][n]['mean']:.4f} ({results[method][n]['std']:.4f})" for method in methods]
        lines.append(f"| {int(n):,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown(results: dict, record: dict) -> str:
    methods = list(results)
    sizes = list(results[methods[0]])
    lines = [
        "# Private tuning on KDD Cup 99 (DoS vs not): test error against n",
        "",
        f"Command: `{record['command']}`  ",
        f"Date: {record['date']}; run time {record['run_time_seconds']:.0f} s; "
        f"{record['machine']['cpu_count']} CPUs (`{record['machine']['uname']}`)  ",
        f"Logistic loss, objective perturbation, Lam in {{{', '.join(LAM_LABELS)}}} (m = 5, 6 parts "
        f"of n rows); d = {record['dimension']}; test set of {TEST_SIZE:,} rows; "
        f"{record['repetitions']} repetitions; mean (std over repetitions).",
        "",
        error_table(results),
    ]
    lines += ["", "Lam selected (count over repetitions):", "",
              "| n per candidate | " + " | ".join(methods) + " |", "|---:|" + "---|" * len(methods)]
    for n in sizes:
        cells = []
        for method in methods:
            picks = results[method][n]["selected_lam"]
            cells.append(", ".join(f"{label}: {picks.count(label)}" for label in LAM_LABELS if label in picks))
        lines.append(f"| {int(n):,} | " + " | ".join(cells) + " |")
    lines += ["", "Preprocessing as in the paper (column maxima and categories read from the file: "
              "not private)."]
    return "\n".join(lines) + "\n"


def plot(results: dict, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4.5))
    for method, by_size in results.items():
        sizes = np.array([int(n) for n in by_size])
        mean = np.array([by_size[n]["mean"] for n in by_size])
        low = np.array([by_size[n]["min"] for n in by_size])
        high = np.array([by_size[n]["max"] for n in by_size])
        std = np.array([by_size[n]["std"] for n in by_size])
        line, = axes.plot(sizes, mean, marker="o", label=method)
        axes.fill_between(sizes, low, high, color=line.get_color(), alpha=0.15)
        axes.errorbar(sizes, mean, yerr=std, fmt="none", ecolor=line.get_color(), capsize=3)
    axes.set_xlabel("n per candidate (tuning data: 6n rows)")
    axes.set_ylabel("test error")
    axes.set_yscale("log")
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(title="mean, \u00b11 std bars, min-max band", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n in {10,000, 20,000, 40,000}, 3 repetitions")
    parser.add_argument("--repetitions", type=int, help="override the number of repetitions")
    parser.add_argument("--sizes", type=int, nargs="+", help=f"override n per candidate (max {MAX_N})")
    parser.add_argument("--seed", type=int, default=2011)
    parser.add_argument("--data", type=Path, help="directory of kddcup.data_10_percent[.gz] "
                        "(default: dpcvx.data.datasets.find_data_directory)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    args = parser.parse_args(argv)
    config = dict(QUICK if args.quick else FULL)
    if args.repetitions:
        config["repetitions"] = args.repetitions
    if args.sizes:
        config["sizes"] = tuple(args.sizes)
    if max(config["sizes"]) > MAX_N:
        parser.error(f"n per candidate is at most {MAX_N}")

    def progress(message: str) -> None:
        print(f"[{time.perf_counter() - started:7.1f} s] {message}", file=sys.stderr, flush=True)

    started = time.perf_counter()
    dataset = load_kdd(args.data, mode="paper", n_rows=None)
    X, y = dataset.X, dataset.y
    progress(f"loaded {X.shape[0]} rows, d = {X.shape[1]}")
    results = run(X, y, config["sizes"], config["repetitions"], args.seed, progress)
    record = {
        "command": " ".join([Path(sys.executable).name, *sys.argv]),
        "mode": "quick" if args.quick else "full",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "run_time_seconds": time.perf_counter() - started,
        "machine": {"uname": subprocess.run(["uname", "-a"], capture_output=True, text=True).stdout.strip(),
                    "cpu_count": os.cpu_count(), "niceness": os.nice(0),
                    "python": platform.python_version(),
                    "numpy": np.__version__},
        "data": {"loader": 'dpcvx.load_kdd(mode="paper", n_rows=None)',
                 "description": dataset.description, "rows": int(X.shape[0]),
                 "positive_rate": float(np.mean(y > 0)), "task": "DoS attack (+1) vs not (-1)"},
        "dimension": int(X.shape[1]),
        "test_size": TEST_SIZE,
        "sizes": list(config["sizes"]),
        "repetitions": config["repetitions"],
        "seed": args.seed,
        "lams": dict(zip(LAM_LABELS, LAMS, strict=True)),
        "epsilons": list(EPSILONS),
        "learner": "PrivateERM(loss=logistic, data_norm=1.0), objective perturbation, split='max'",
        "nonprivate": "same split; exact minimiser per Lam; fewest mistakes on the held-out part",
        "results": results,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "tuning_kdd_quick" if args.quick else "tuning_kdd"
    (args.out / f"{stem}.json").write_text(json.dumps(record, indent=2) + "\n")
    (args.out / f"{stem}.md").write_text(markdown(results, record))
    plot(results, args.out / f"{stem}.png",
         f"KDD Cup 99, Lam tuned by Algorithm 4 ({record['repetitions']} repetitions)")
    progress(f"wrote {args.out / stem}.{{json,md,png}}")


if __name__ == "__main__":
    main()
