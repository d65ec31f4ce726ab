"""Fit NOISE_RATIO_LIMIT, the one free threshold of NoiseDominatesWarning, on synthetic data only.

docs/theory.md, section 21. For each synthetic setting (kind of rows, n, d, epsilon,
mechanism, Lam) DPLogisticRegression is fitted with 2 noise seeds and scored on a fresh
test sample; a cell is "bad" when its mean test accuracy is at most the majority rate + 0.01.
A cell whose model at the same Lam WITHOUT noise (epsilon 1e6) is itself bad fails by the
regularization's bias, not by the noise: no noise rule can see it, and it is left out of the
fit (listed, marked "bias"). The public ratio of
:func:`dpcvx.sklearn.noise_warning.margin_noise_to_signal` is computed from the certificate. The
fitted threshold is the candidate with the smallest cost, the sum over misclassified cells of
their accuracy gap (a false negative costs majority + 0.01 - accuracy, a false positive
accuracy - majority - 0.01: a warning on a model far better than the majority costs more than
one on a model at the line); the smallest candidate on ties. dpcvx/sklearn/noise_warning.py freezes it.
No real data set is read here.

    python -m benchmarks.noise_warning_fit   # writes benchmarks/results/noise_warning_fit.md
"""

from __future__ import annotations

import itertools
import math
import warnings
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, write_markdown
from dpcvx.sklearn.noise_warning import margin_noise_to_signal
from dpcvx.verification.loss_declaration import loss_at_zero

RESULTS = Path(__file__).resolve().parent / "results" / "noise_warning_fit.md"
CANDIDATES = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0)
LAMS = (1e-4, 1e-3, 1e-2, 1e-1, "auto")
SEEDS = (0, 1)


def synthetic(kind: str, n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball, labels from a logistic model of margin scale 4.

    "centred": Gaussian features. "positive": features in [0, 1] whose class means differ
    by 0.15 (as min-max scaled data, which share a large common direction), every column
    divided by sqrt(d). Classes 60/40 through a shifted threshold."""
    rng = np.random.default_rng(seed)
    w = np.random.default_rng(1000 + d).normal(size=d)
    w /= np.linalg.norm(w)
    if kind == "centred":
        X = rng.normal(size=(n, d)) / math.sqrt(d)
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
        score = 4 * math.sqrt(d) * (X @ w) + 0.4
    else:
        y0 = rng.random(n) < 0.4
        X = np.clip(0.5 + 0.15 * np.where(y0, 1.0, -1.0)[:, None] * np.sign(w) / 2
                    + 0.2 * rng.normal(size=(n, d)), 0.0, 1.0) / math.sqrt(d)
        score = np.where(y0, 1.0, -1.0) * 4
    y = (rng.random(n) < 1 / (1 + np.exp(-score))).astype(int)
    return X, y


def cell(kind: str, n: int, d: int, eps: float, mechanism: str,
         lam: float | str) -> tuple[float, float, float, float]:
    """(public ratio, mean test accuracy, majority rate, accuracy without noise at the same Lam)."""
    X, y = synthetic(kind, n, d, 7)
    Xt, yt = synthetic(kind, 4000, d, 8)
    accuracies, ratio = [], math.nan
    for seed in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = dpcvx.DPLogisticRegression(epsilon=eps, mechanism=mechanism, lam=lam, data_norm=1.0,
                                               random_state=seed).fit(X, y)
        # l(0) of DPLogisticRegression's loss, from the public template (log 2)
        noise, signal = margin_noise_to_signal(model.certificate_, loss_at_zero(dpcvx.losses.logistic()))
        ratio = noise / signal
        accuracies.append(model.score(Xt, yt))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = dpcvx.DPLogisticRegression(epsilon=1e6, mechanism="output", data_norm=1.0, random_state=0,
                                           lam=float(model.certificate_.constants["lam"])).fit(X, y)
    return ratio, float(np.mean(accuracies)), float(max(yt.mean(), 1 - yt.mean())), exact.score(Xt, yt)


def run() -> str:
    rows = []
    for kind, n, d, eps, mechanism, lam in itertools.product(("centred", "positive"), (500, 3000), (5, 30),
                                                             (0.1, 1.0), ("output", "objective"), LAMS):
        ratio, accuracy, majority, exact = cell(kind, n, d, eps, mechanism, lam)
        rows.append((kind, n, d, eps, mechanism, lam, ratio, accuracy, majority, accuracy <= majority + 0.01,
                     exact <= majority + 0.01, exact))
    shown = rows
    rows = [r for r in rows if not r[10]]
    lines = ["# NoiseDominatesWarning threshold: synthetic fit", "",
             "`python -m benchmarks.noise_warning_fit`. DPLogisticRegression, data_norm 1, intercept 'auto', "
             f"{len(SEEDS)} noise seeds per cell, test accuracy on 4000 fresh rows; 'bad' = mean accuracy <= "
             "majority + 0.01. The ratio is margin_noise_to_signal's (public).", "",
             "| threshold | false positives | false negatives | cost (sum of accuracy gaps) |", "|---|---|---|---|"]
    best = None
    for limit in CANDIDATES:
        false_pos = [r[7] - r[8] - 0.01 for r in rows if r[6] > limit and not r[9]]
        false_neg = [r[8] + 0.01 - r[7] for r in rows if r[6] <= limit and r[9]]
        cost = sum(false_pos) + sum(false_neg)
        lines.append(f"| {limit:g} | {len(false_pos)} | {len(false_neg)} | {cost:.3f} |")
        if best is None or cost < best[1] - 1e-9:
            best = (limit, cost)
    assert best is not None
    lines += ["", f"Fitted threshold (smallest cost, the smallest candidate on ties): **{best[0]:g}** "
              f"of {len(rows)} cells ({sum(r[9] for r in rows)} bad); {len(shown) - len(rows)} cells left out as bias.",
              "",
              "| rows | n | d | eps | mechanism | lam | ratio | accuracy | majority | without noise | bad |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:g} | {r[4]} | {r[5]} | {r[6]:.3g} | {r[7]:.3f} | {r[8]:.3f} | "
              f"{r[11]:.3f} | {'bias' if r[10] else 'yes' if r[9] else ''} |" for r in shown]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    record = RunRecord("benchmarks.noise_warning_fit")
    text = run()
    text = write_markdown(RESULTS, text, record)
    print(text)
