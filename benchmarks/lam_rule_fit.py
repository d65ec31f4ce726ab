"""Fit the one free constant of ``lam="auto"`` (COMPARATOR_SCALE) on synthetic data only.

docs/theory.md, section 25. For each synthetic setting (n, d, signal strength,
epsilon, mechanism) and seed, the test error of PrivateERM is measured on a grid of
Lam; the score of a candidate COMPARATOR_SCALE W0 is the mean, over settings, of
the fraction of the gap between the majority-class error and the best grid error
(the oracle, not private) that the rule's Lam recovers. The fitted W0 is the
candidate with the best score; dpcvx/privacy/lam_rule.py freezes it. No real data
set is read here.

    python -m benchmarks.lam_rule_fit            # writes benchmarks/results/lam_rule_fit.md
    python -m benchmarks.lam_rule_fit --quick    # a smaller grid (tests)
"""

from __future__ import annotations

import argparse
import itertools
import math
import warnings
from pathlib import Path

import numpy as np

from dpcvx import PrivateERM
from dpcvx.privacy.lam_rule import LAM_GRID

RESULTS = Path(__file__).resolve().parent / "results" / "lam_rule_fit.md"
CANDIDATES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
EVAL_GRID = tuple(lam for lam in LAM_GRID[::2] if 1e-5 <= lam <= 10 ** -0.5 * 1.0001)


def synthetic(n: int, d: int, signal: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball (a constant column 1/sqrt(2) and Gaussian features), logistic labels.

    The true weights have norm ``signal``; labels are +1 with probability sigmoid(w^T x)."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, d - 1)) / math.sqrt(d - 1)
    Z /= np.maximum(1.0, np.linalg.norm(Z, axis=1))[:, None] * (1 + 1e-12)
    X = np.hstack([Z / math.sqrt(2), np.full((n, 1), 1 / math.sqrt(2))])
    w = np.random.default_rng(10_000 + d).normal(size=d)
    w *= signal / np.linalg.norm(w)
    w[-1] = signal / 4   # a class imbalance through the constant feature
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-X @ w)), 1.0, -1.0)
    return X, y


def error(lam: float | str, X: np.ndarray, y: np.ndarray, Xt: np.ndarray, yt: np.ndarray, eps: float,
          mechanism: str, seed: int, comparator: float | None = None) -> tuple[float, float]:
    learner = PrivateERM(lam=lam, data_norm=1.0, comparator_norm=comparator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = learner.fit(X, y, eps, mechanism, random_state=seed)
    return float(np.mean(model.predict(Xt) != yt)), float(model.certificate.constants["lam"])


def run(quick: bool) -> str:
    ns = (2000,) if quick else (2000, 10000)
    ds = (10,) if quick else (10, 50)
    signals = (4.0,) if quick else (4.0, 16.0)
    epsilons = (1.0,) if quick else (0.1, 1.0)
    mechanisms = ("objective",) if quick else ("objective", "output")
    seeds = (0,) if quick else (0, 1, 2)
    grid = EVAL_GRID[::3] if quick else EVAL_GRID
    lines = ["| n | d | signal | eps | mechanism | majority | oracle err (lam) | "
             + " | ".join(f"W0={w:g}" for w in CANDIDATES) + " |", "|" + "---|" * (7 + len(CANDIDATES))]
    recovered: dict[float, list[float]] = {w: [] for w in CANDIDATES}
    for n, d, signal, eps, mechanism in itertools.product(ns, ds, signals, epsilons, mechanisms):
        errors: dict[float, list[float]] = {}
        rule: dict[float, list[float]] = {w: [] for w in CANDIDATES}
        majority = []
        for seed in seeds:
            X, y = synthetic(n, d, signal, seed)
            Xt, yt = synthetic(5000, d, signal, 100 + seed)
            majority.append(min(np.mean(yt > 0), np.mean(yt < 0)))
            cache: dict[float, float] = {}
            for lam in grid:
                cache[lam] = error(lam, X, y, Xt, yt, eps, mechanism, seed)[0]
                errors.setdefault(lam, []).append(cache[lam])
            for w0 in CANDIDATES:
                chosen = PrivateERM(lam="auto", data_norm=1.0, comparator_norm=w0).choose_lam(n, d, eps, mechanism).lam
                if chosen not in cache:
                    cache[chosen] = error(chosen, X, y, Xt, yt, eps, mechanism, seed)[0]
                rule[w0].append(cache[chosen])
        mean = {lam: float(np.mean(v)) for lam, v in errors.items()}
        best = min(mean, key=lambda lam: mean[lam])
        base = float(np.mean(majority))
        gap = base - mean[best]
        cells = []
        for w0 in CANDIDATES:
            value = float(np.mean(rule[w0]))
            share = (base - value) / gap if gap > 0.01 else math.nan
            if math.isfinite(share):
                recovered[w0].append(share)
            cells.append(f"{value:.4f} ({share:.2f})" if math.isfinite(share) else f"{value:.4f}")
        lines.append(f"| {n} | {d} | {signal:g} | {eps:g} | {mechanism} | {base:.4f} | {mean[best]:.4f} "
                     f"({best:.2g}) | " + " | ".join(cells) + " |")
    scores = {w0: float(np.mean(v)) if v else math.nan for w0, v in recovered.items()}
    fitted = max(scores, key=lambda w0: scores[w0] if math.isfinite(scores[w0]) else -math.inf)
    summary = ", ".join(f"W0={w0:g}: {score:.3f}" for w0, score in scores.items())
    return "\n".join([
        "# Fitting COMPARATOR_SCALE of lam='auto' on synthetic data",
        "",
        "Command: `python -m benchmarks.lam_rule_fit" + (" --quick" if quick else "") + "`. "
        "Synthetic logistic data only (benchmarks/lam_rule_fit.py, `synthetic`); PrivateERM without intercept, "
        f"R = 1, pure epsilon, seeds {list(seeds)} (noise seed = data seed), test sets of 5,000 rows. "
        f"Oracle: the best Lam of {len(grid)} grid values 1e-5 .. 10^-0.5 in hindsight (not private). "
        "Each cell: mean test error of the rule's Lam (fraction of the majority-to-oracle gap recovered; "
        "cells with a gap below .01 are left out of the score).",
        "",
        *lines,
        "",
        f"Mean fraction of the gap recovered: {summary}.",
        "",
        f"**Fitted COMPARATOR_SCALE = {fitted:g}** (frozen in dpcvx/privacy/lam_rule.py).",
        "",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    text = run(args.quick)
    if not args.quick:
        RESULTS.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
