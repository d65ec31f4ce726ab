"""Sparse data: a private fit on a 200,000 x 100,000 CSR matrix (about 20 non-zeros per row) against scikit-learn.

Issue 20. Rows have about 20 random non-zeros and are scaled to norm 1. Labels come from a
fixed sparse linear rule with 10% noise. The contenders, at equal regularization
(scikit-learn's C = 1 / (n Lam)), one BLAS thread each, in one process:

- scikit-learn's `LogisticRegression(solver="lbfgs", tol=1e-8, fit_intercept=False)`;
- dpcvx's non-private fit;
- dpcvx's private fit: objective perturbation, epsilon = 1.

dpcvx's verifier proves the loss's constants once per process, a fixed cost of about 2 s that
does not grow with n or d. It is measured separately (a first fit on 1,000 rows), and the
timed fits reuse it. Both solutions are scored by the same optimality residual, the gradient
norm of the non-private objective J at the returned point. X is never densified.

    python -m benchmarks.scale_sparse            # about a minute
    python -m benchmarks.scale_sparse --quick    # 20,000 x 10,000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sparse

import dpcvx
from benchmarks import common

RESULTS = Path(__file__).resolve().parent / "results"


def make(n: int, d: int, nnz: int, seed: int):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), nnz)
    X = sparse.csr_matrix((rng.random(n * nnz), (rows, rng.integers(0, d, n * nnz))), shape=(n, d))
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sparse.csr_matrix(sparse.diags(1.0 / np.maximum(norms, 1e-12)) @ X)
    w = rng.normal(size=d) * (rng.random(d) < 0.05)
    flip = rng.random(n) < 0.1
    y = np.where((X @ w > np.median(X @ w)) != flip, 1.0, -1.0)
    return X, y


def residual(X, y, w, lam: float) -> float:
    """||grad J(w)||, J = (1/n) sum log(1 + exp(-y w^T x)) + Lam ||w||^2 / 2."""
    margins = y * (X @ w)
    return float(np.linalg.norm(X.T @ (-y / (1 + np.exp(margins))) / X.shape[0] + lam * w))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lam", type=float, default=1e-6)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    n, d = (20_000, 10_000) if args.quick else (200_000, 100_000)
    record = common.RunRecord("benchmarks.scale_sparse", argv)
    from sklearn.linear_model import LogisticRegression

    with common.limit_threads(1):
        X, y = make(n, d, 20, seed=0)
        learner = dpcvx.PrivateERM(lam=args.lam, data_norm=1.0)
        start = time.perf_counter()
        learner.fit(X[:1000], y[:1000], 1.0, random_state=0)
        verifier_seconds = time.perf_counter() - start
        model, sk_seconds, sk_converged = common.timed_fit(
            LogisticRegression(C=common.sklearn_C(n, args.lam), solver="lbfgs", tol=1e-8, max_iter=10_000,
                               fit_intercept=False), X, y)
        start = time.perf_counter()
        exact = learner.fit_nonprivate(X, y)
        nonprivate_seconds = time.perf_counter() - start
        start = time.perf_counter()
        private = learner.fit(X, y, 1.0, random_state=0)
        private_seconds = time.perf_counter() - start
    accuracy = {name: float(np.mean(np.where(X @ w > 0, 1.0, -1.0) == y))
                for name, w in (("sklearn", model.coef_.ravel()), ("dpcvx non-private", exact.coef_),
                                ("dpcvx private", private.coef_))}
    output = {
        "n": n, "d": d, "nnz_per_row": 20, "lam": args.lam, "verifier_seconds_once": verifier_seconds,
        "sklearn": {"seconds": sk_seconds, "converged": sk_converged,
                    "residual": residual(X, y, model.coef_.ravel(), args.lam)},
        "dpcvx_nonprivate": {"seconds": nonprivate_seconds, "residual": residual(X, y, exact.coef_, args.lam)},
        "dpcvx_private": {"seconds": private_seconds, "ratio_to_sklearn": private_seconds / sk_seconds},
        "training_accuracy": accuracy,
    }
    output["run"] = record.finish()
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "scale_sparse" + ("_quick" if args.quick else "")
    common.write_json(args.out / f"{stem}.json", output)
    lines = [f"# Sparse logistic regression: {n:,} x {d:,}, 20 non-zeros per row, Lam = {args.lam:g}, one thread", "",
             "| fit | seconds | x scikit-learn | gradient norm of J at the point | training accuracy |",
             "|---|---|---|---|---|",
             f"| scikit-learn lbfgs (tol 1e-8) | {sk_seconds:.2f} | 1 | {output['sklearn']['residual']:.2e} | "
             f"{accuracy['sklearn']:.4f} |",
             f"| dpcvx non-private | {nonprivate_seconds:.2f} | {nonprivate_seconds / sk_seconds:.2f} | "
             f"{output['dpcvx_nonprivate']['residual']:.2e} | {accuracy['dpcvx non-private']:.4f} |",
             f"| dpcvx private (epsilon 1) | {private_seconds:.2f} | {private_seconds / sk_seconds:.2f} | - | "
             f"{accuracy['dpcvx private']:.4f} |", "",
             f"The verifier's one-time cost in this process: {verifier_seconds:.2f} s (not included above).", "",
             f"Command: `{output['run']['command']}`"]
    (args.out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    print(json.dumps(output, indent=1, default=str), file=sys.stderr)
    return output


if __name__ == "__main__":
    main()
