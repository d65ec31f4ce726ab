"""Elastic net, L1 and a norm-ball constraint on Adult: dpcvx's proximal Newton against scikit-learn's saga.

Issue 18, item 6: a private elastic-net fit at most 2x the time of scikit-learn's
``LogisticRegression(penalty="elasticnet", solver="saga")`` on the same problem.
Both minimise (1/n) sum_i log(1 + exp(-y_i w^T x_i)) + Lam (a ||w||_1 + (1 - a)/2 ||w||^2)
with C = 1 / (n Lam) and ``l1_ratio`` = a, no separate intercept (the rows carry
the constant feature). Both run on one BLAS thread (threadpoolctl), in one process,
fold by fold.

Reported per fold:

- the time of saga (tol 1e-8, as tight as it reaches in max_iter), of dpcvx's non-private
  fit (``fit_nonprivate``) and of dpcvx's private fits (pure epsilon and delta = 1/n^2);
- the test error of each fit;
- the exact zeros of each fit;
- the optimality residual of each non-private point. This is the norm of the
  minimal-norm subgradient of the sum-form objective, computed the same way for both.

Then a constrained fit (ball ||w|| <= r with the ridge) for the same epsilons.

    python -m benchmarks.elastic_net            # 5 folds, about two minutes
    python -m benchmarks.elastic_net --quick    # 2 folds
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cvxpy as cp
import numpy as np

import dpcvx
from benchmarks import common

RESULTS = Path(__file__).resolve().parent / "results"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lam", type=float, default=10 ** -2.5)
    parser.add_argument("--l1-ratio", type=float, default=0.5)
    parser.add_argument("--radius", type=float, default=5.0, help="radius of the constrained fit's ball")
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--mode", default="private", choices=common.MODES,
                        help="preprocessing mode; results/elastic_net.json was recorded with --mode paper, "
                             "which reads bounds off the data (NOT private)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="2 folds")
    parser.add_argument("--out", type=Path, default=RESULTS)
    return parser.parse_args(argv)


def subgradient_residual(X, y, w, lam: float, l1_ratio: float) -> float:
    """||minimal-norm subgradient|| of sum_i log(1 + exp(-y_i w^T x_i)) + n Lam (a ||w||_1 + (1-a)/2 ||w||^2)."""
    n = X.shape[0]
    margins = y * (X @ w)
    smooth = X.T @ (-y / (1 + np.exp(margins))) + n * lam * (1 - l1_ratio) * w
    kappa = n * lam * l1_ratio
    at_zero = np.sign(smooth) * np.maximum(np.abs(smooth) - kappa, 0.0)
    return float(np.linalg.norm(np.where(w != 0, smooth + kappa * np.sign(w), at_zero)))


def fit_saga(X, y, lam: float, l1_ratio: float):
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=common.sklearn_C(X.shape[0], lam), penalty="elasticnet", l1_ratio=l1_ratio,
                               solver="saga", tol=1e-8, max_iter=10_000, fit_intercept=False)
    return common.timed_fit(model, X, y)


def error(w, X, y) -> float:
    return float(np.mean(np.where(X @ w > 0, 1.0, -1.0) != y))


def run(args) -> dict:
    data = common.load_data("adult", args.mode, seed=args.seed)
    folds = common.kfold(data.X.shape[0], 2 if args.quick else args.folds, args.seed)
    lam, a = args.lam, args.l1_ratio

    def elastic_net(w):
        return a * cp.norm1(w) + (1 - a) / 2 * cp.sum_squares(w)

    def ball(w):
        return [cp.norm(w, 2) <= args.radius]

    learner = dpcvx.PrivateERM(regularizer=elastic_net, lam=lam, data_norm=1.0)
    constrained = dpcvx.PrivateERM(constraints=ball, lam=lam, data_norm=1.0)
    rows = []
    for fold, (train, test) in enumerate(folds):
        X, y, Xt, yt = data.X[train], data.y[train], data.X[test], data.y[test]
        n = X.shape[0]
        saga, saga_seconds, saga_converged = fit_saga(X, y, lam, a)
        w_saga = saga.coef_.ravel()
        start = time.perf_counter()
        exact = learner.fit_nonprivate(X, y)
        ours_seconds = time.perf_counter() - start
        row = {
            "fold": fold, "n": n,
            "saga": {"seconds": saga_seconds, "converged": saga_converged, "error": error(w_saga, Xt, yt),
                     "zeros": int(np.sum(w_saga == 0)),
                     "residual": subgradient_residual(X, y, w_saga, lam, a)},
            "dpcvx_nonprivate": {"seconds": ours_seconds, "error": error(exact.coef_, Xt, yt),
                                 "zeros": int(np.sum(exact.coef_ == 0)),
                                 "residual": subgradient_residual(X, y, exact.coef_, lam, a)},
            "private": {}, "constrained": {},
        }
        for eps in args.epsilons:
            for delta in (0.0, 1.0 / n**2):
                seed = common.int_seed(args.seed, fold, int(eps * 1000), int(delta > 0))
                start = time.perf_counter()
                model = learner.fit(X, y, eps, delta=delta, random_state=seed)
                seconds = time.perf_counter() - start
                key = f"eps={eps:g}, delta={'0' if delta == 0 else '1/n^2'}"
                record = model.certificate.calibration.to_dict()
                row["private"][key] = {"seconds": seconds, "error": error(model.coef_, Xt, yt),
                                       "analysis": record.get("analysis", "pure epsilon")}
                boxed = constrained.fit(X, y, eps, delta=delta, random_state=seed)
                row["constrained"][key] = {"error": error(boxed.coef_, Xt, yt),
                                           "norm": float(np.linalg.norm(boxed.coef_))}
        rows.append(row)
        print(f"[elastic_net] fold {fold}: saga {saga_seconds:.3f} s, dpcvx {ours_seconds:.3f} s", file=sys.stderr)
    return {"data": data.description, "n": int(data.X.shape[0]), "d": int(data.X.shape[1]), "lam": lam,
            "l1_ratio": a, "radius": args.radius, "epsilons": args.epsilons, "folds": rows}


def summary(output: dict) -> dict:
    folds = output["folds"]

    def median(path):
        values = []
        for row in folds:
            item = row
            for key in path:
                item = item[key]
            values.append(item)
        return float(np.median(values))

    out = {"saga_seconds": median(["saga", "seconds"]), "dpcvx_nonprivate_seconds":
           median(["dpcvx_nonprivate", "seconds"]), "private": {}, "constrained": {}}
    for key in folds[0]["private"]:
        out["private"][key] = {"seconds": median(["private", key, "seconds"]),
                               "error": median(["private", key, "error"]),
                               "time_ratio_to_saga": median(["private", key, "seconds"]) / out["saga_seconds"]}
        out["constrained"][key] = {"error": median(["constrained", key, "error"])}
    for name in ("saga", "dpcvx_nonprivate"):
        out[name] = {"error": median([name, "error"]), "zeros": median([name, "zeros"]),
                     "residual": median([name, "residual"])}
    return out


def markdown(output: dict) -> str:
    s = output["summary"]
    lines = [
        "# Elastic net on Adult: dpcvx against scikit-learn saga",
        "",
        f"{output['data']}; n = {output['n']}, d = {output['d']}, Lam = {output['lam']:.3g}, "
        f"l1_ratio = {output['l1_ratio']}, {len(output['folds'])} folds (medians). One BLAS thread each.",
        "",
        "| fit | seconds | x saga | test error | exact zeros | subgradient residual |",
        "|---|---|---|---|---|---|",
        f"| saga (tol 1e-8) | {s['saga_seconds']:.3f} | 1 | {s['saga']['error']:.4f} | {s['saga']['zeros']:.0f} "
        f"| {s['saga']['residual']:.2e} |",
        f"| dpcvx non-private | {s['dpcvx_nonprivate_seconds']:.3f} | "
        f"{s['dpcvx_nonprivate_seconds'] / s['saga_seconds']:.2f} | {s['dpcvx_nonprivate']['error']:.4f} | "
        f"{s['dpcvx_nonprivate']['zeros']:.0f} | {s['dpcvx_nonprivate']['residual']:.2e} |",
    ]
    for key, item in s["private"].items():
        lines.append(f"| dpcvx private, {key} | {item['seconds']:.3f} | {item['time_ratio_to_saga']:.2f} | "
                     f"{item['error']:.4f} | 0 (the cover noise) | - |")
    lines += ["", f"Constrained fit, ||w|| <= {output['radius']} with the ridge (1/2)||w||^2:", "",
              "| budget | test error |", "|---|---|"]
    lines += [f"| {key} | {item['error']:.4f} |" for key, item in s["constrained"].items()]
    lines += ["", "The private releases have no exact zeros: the Gaussian or exp(-beta ||b||) noise that covers the "
              "approximate minimiser is added to every coordinate (docs/theory.md, section 14).", "",
              f"Command: `{output['run']['command']}`"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.elastic_net", argv)
    with common.limit_threads(1):
        output = run(args)
    output["summary"] = summary(output)
    output["run"] = record.finish()
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "elastic_net" + ("_quick" if args.quick else "")
    common.write_json(args.out / f"{stem}.json", output)
    (args.out / f"{stem}.md").write_text(markdown(output))
    print(json.dumps(output["summary"], indent=1))
    return output


if __name__ == "__main__":
    main()
