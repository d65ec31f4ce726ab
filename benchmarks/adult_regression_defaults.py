"""DPLinearRegression's default against its two documented alternatives on real regression targets (UCI Adult).

Targets: education-num (public range [1, 16]), hours-per-week ([1, 99]) and age ([17, 90]), each from the other
columns encoded by dpcvx's public Adult schema (rows scaled into the unit ball). The records of adult.data and
adult.test are split 80/20 by a seeded public permutation. For each target, epsilon in {1, 5, 20} and delta = 1e-6,
test R^2 (mean and spread over ``--repeats`` noise seeds) of:

- **default**: ``DPLinearRegression(label_bound=(lo, hi))``: a private range search, then noisy gradient descent
  (``gradient-ranged``, a fixed number of steps) where the search runs;
- **column_statistics=False**: AdaSSP at the declared range, no search;
- **mechanism="adassp"**: AdaSSP after the ranges are searched;

beside the mean of the training labels (R^2 about 0) and non-private least squares on the same encoded rows. The
warnings each setting raised are counted by class (public ones only, the NOT PRIVATE checks aside).

    python -m benchmarks.adult_regression_defaults              # a few minutes
    python -m benchmarks.adult_regression_defaults --repeats 2  # a quick look
"""

from __future__ import annotations

import argparse
import warnings
from collections import Counter

import numpy as np

from benchmarks import common
from dpcvx import DPLinearRegression, PublicSchema
from dpcvx.data.datasets import read_records
from dpcvx.data.uci_domains import adult_schema

TARGETS = {"education-num": (1.0, 16.0), "hours-per-week": (1.0, 99.0), "age": (17.0, 90.0)}
SETTINGS = {"default": {}, "column_statistics=False": {"column_statistics": False},
            "mechanism=\"adassp\"": {"mechanism": "adassp"}}
EPSILONS = (1.0, 5.0, 20.0)
DELTA = 1e-6
NOT_PRIVATE = ("TrainingRowsWarning", "ClippingWarning")  # the data owner's checks, not the release's


def table(target: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(X train, y train, X test, y test): the public schema without ``target`` and income, a public 80/20 split."""
    records = read_records("adult")
    schema = PublicSchema(tuple(c for c in adult_schema().columns if c.name not in (target, "income")), norm=1.0)
    X = schema.transform({name: records[name] for name in schema.column_names})
    y = records[target].astype(float)
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    return X[order[:cut]], y[order[:cut]], X[order[cut:]], y[order[cut:]]


def r2(y: np.ndarray, predictions: np.ndarray) -> float:
    return float(1 - np.sum((y - predictions) ** 2) / np.sum((y - y.mean()) ** 2))


def run(args: argparse.Namespace) -> dict:
    records = []
    for target, bound in TARGETS.items():
        X, y, X_test, y_test = table(target, args.seed)
        ones = np.hstack([X, np.ones((X.shape[0], 1))])
        exact = np.linalg.lstsq(ones, y, rcond=None)[0]
        baseline = {"mean": r2(y_test, np.full(y_test.shape, y.mean())),
                    "least squares": r2(y_test, np.hstack([X_test, np.ones((X_test.shape[0], 1))]) @ exact)}
        for epsilon in EPSILONS:
            for name, setting in SETTINGS.items():
                scores, raised = [], Counter()
                for repeat in range(args.repeats):
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        model = DPLinearRegression(epsilon=epsilon, delta=DELTA, label_bound=bound,
                                                   random_state=args.seed + repeat, **setting).fit(X, y)
                    raised.update(w.category.__name__ for w in caught if w.category.__name__ not in NOT_PRIVATE)
                    scores.append(r2(y_test, model.predict(X_test)))
                records.append({"target": target, "epsilon": epsilon, "setting": name, "r2": scores,
                                "mechanism": model.certificate_.mechanism, "warnings": dict(raised), **baseline})
                print(f"[adult_regression_defaults] {target} eps={epsilon:g} {name}: R^2 {np.mean(scores):.3f} "
                      f"+- {np.std(scores):.3f} ({model.certificate_.mechanism}); warnings {dict(raised) or 'none'}",
                      flush=True)
    return {"records": records}


def markdown(result: dict, args: argparse.Namespace) -> str:
    lines = ["# DPLinearRegression's default on real regression targets (UCI Adult)", "",
             f"Test R^2, mean +- sd over {args.repeats} noise seeds (split seed {args.seed}, delta {DELTA:g}); the "
             "release's mechanism; the public warnings raised (of all repeats).", ""]
    for target in TARGETS:
        rows = [record for record in result["records"] if record["target"] == target]
        lines += [f"## {target} (label_bound={TARGETS[target]}); mean {rows[0]['mean']:.3f}, non-private least "
                  f"squares {rows[0]['least squares']:.3f}", "",
                  "| epsilon | setting | R^2 | mechanism | public warnings |", "|---|---|---|---|---|"]
        for record in rows:
            shown = ", ".join(f"{name} x{count}" for name, count in record["warnings"].items()) or "none"
            lines.append(f"| {record['epsilon']:g} | {record['setting']} | {np.mean(record['r2']):.3f} +- "
                         f"{np.std(record['r2']):.3f} | {record['mechanism']} | {shown} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    common.add_result_arguments(parser, "adult_regression_defaults")
    return common.run_recorded("benchmarks.adult_regression_defaults", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
