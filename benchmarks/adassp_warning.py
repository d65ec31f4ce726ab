"""Check AdaSSP's NoiseDominatesWarning rule and its lam advice on synthetic data only.

docs/theory.md, section 30; the rule is :func:`dpcvx.sklearn.adassp_warning.adassp_noise_to_signal`
at its first limit ``FORMER_LIMIT`` = 1, where the predicted error reaches the zero model's (the record of that rule and
of its advice; the limit the warning uses now is fitted by benchmarks/adassp_warning_fit.py, section 30).
For each setting (kind of rows, n, d, epsilon) DPLinearRegression (AdaSSP, delta 1e-6,
data_norm 1, label_bound 1, intercept) is fitted with SEEDS noise seeds, with the default lam 0
and with the ridge the warning advised until issue 42 (:func:`former_advised_lam`; no longer advised:
benchmarks/results/warning_advice.md measured it on real tables), and scored by R^2
on a fresh test sample of 2,000 rows. Reported: the public ratio, whether the warning fires,
the mean R^2 at lam 0 and at the advised lam. No real data set is read.

    python -m benchmarks.adassp_warning   # writes benchmarks/results/adassp_warning.md
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import numpy as np

from benchmarks.common import RunRecord, write_markdown
from dpcvx.models.linear_regression import PrivateLinearRegression
from dpcvx.privacy.adassp import AdaSSPCalibration
from dpcvx.sklearn.adassp_warning import adassp_noise_to_signal
from dpcvx.sklearn.regressors import DPLinearRegression

RESULTS = Path(__file__).resolve().parent / "results" / "adassp_warning.md"
SEEDS = range(10)
KINDS = ("ball", "skewed")
NS = (60, 300, 2000, 20000)
DS = (2, 5, 20)
EPSILONS = (0.02, 0.1, 1.0)
TEST_ROWS = 2000
FORMER_LIMIT = 1.0  # the rule's first limit (docs/theory.md section 30), which this record measured


def former_advised_lam(calibration: AdaSSPCalibration, n: int) -> float:
    """lam = rho* / n, rho* = N^2 / lam_bar (docs/theory.md, section 30): with N / lam_bar the public ratio and
    lam_bar = n R^2 / d, lam = ratio^2 R^2 / d. The warning advised it until issue 42."""
    return adassp_noise_to_signal(calibration, n) ** 2 * calibration.data_norm**2 / calibration.dim


def synthetic(kind: str, n: int, d: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball, labels y = x^T theta + 0.1 noise clipped to [-1, 1].

    "ball": directions uniform, radius sqrt(U) (rows fill the ball). "skewed": Gaussian
    features with scales 1, 1/2, ..., 1/d, each row scaled into the unit ball. theta has
    norm sqrt(d) / 2 in a direction drawn once per seed (the label bound is used fully at a
    typical row, the rule's picture)."""
    rng = np.random.default_rng(seed)
    if kind == "ball":
        X = rng.normal(size=(n, d))
        X *= (np.sqrt(rng.uniform(size=n)) / np.linalg.norm(X, axis=1))[:, None]
    else:
        X = rng.normal(size=(n, d)) / np.arange(1, d + 1)
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]
    theta = rng.normal(size=d)
    theta *= np.sqrt(d) / 2 / np.linalg.norm(theta)
    y = np.clip(X @ theta + 0.1 * rng.normal(size=n), -1.0, 1.0)
    return X, y


def r_squared(model: DPLinearRegression, X: np.ndarray, y: np.ndarray) -> float:
    return float(1 - np.mean((model.predict(X) - y) ** 2) / np.var(y))


def cell(kind: str, n: int, d: int, epsilon: float) -> tuple[float, float, float, float]:
    """(ratio, advised lam, mean R^2 at lam 0, mean R^2 at the advised lam)."""
    calibration = PrivateLinearRegression(1.0, 1.0, fit_intercept=True).calibrate(epsilon, 1e-6, d + 1)
    ratio, advised = adassp_noise_to_signal(calibration, n), former_advised_lam(calibration, n)
    scores: dict[float, list[float]] = {0.0: [], advised: []}
    for seed in SEEDS:
        X, y = synthetic(kind, n + TEST_ROWS, d, 1000 + seed)
        for lam in scores:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = DPLinearRegression(mechanism="adassp",
                                           epsilon=epsilon, lam=lam, random_state=seed).fit(X[:n], y[:n])
            scores[lam].append(r_squared(model, X[n:], y[n:]))
    return ratio, advised, float(np.mean(scores[0.0])), float(np.mean(scores[advised]))


def main() -> None:
    record = RunRecord("benchmarks.adassp_warning")
    lines = ["# AdaSSP: the NoiseDominatesWarning rule and its lam advice (synthetic data only)", "",
             "Written by `python -m benchmarks.adassp_warning` (docs/theory.md, section 30). DPLinearRegression",
             f"(AdaSSP, delta 1e-6, R = B = 1, intercept), {len(SEEDS)} noise seeds per cell, R^2 on {TEST_ROWS} fresh",
             f"test rows. Warns: ratio > {FORMER_LIMIT:g}.", "",
             "| rows | n | d | epsilon | ratio | warns | advised lam | R^2 lam 0 | R^2 advised lam |",
             "|---|---|---|---|---|---|---|---|---|"]
    warned: list[tuple[float, float]] = []
    silent: list[float] = []
    for kind, n, d, epsilon in itertools.product(KINDS, NS, DS, EPSILONS):
        ratio, advised, plain, ridged = cell(kind, n, d, epsilon)
        warns = ratio > FORMER_LIMIT
        if warns:
            warned.append((plain, ridged))
        else:
            silent.append(plain)
        lines.append(f"| {kind} | {n} | {d} | {epsilon:g} | {ratio:.3g} | {'yes' if warns else 'no'} | "
                     f"{advised:.3g} | {plain:.3f} | {ridged:.3f} |")
        print(lines[-1], flush=True)
    plain_r2, ridged_r2 = np.array(warned).T
    hurt = ridged_r2 < plain_r2
    lines += ["", f"Summary. Warned in {len(warned)} cells: R^2 <= 0 at lam 0 in {int(np.sum(plain_r2 <= 0))} of them; "
              f"mean R^2 {plain_r2.mean():.3f} at lam 0 and {ridged_r2.mean():.3f} at the advised lam, worst "
              f"{plain_r2.min():.3f} and {ridged_r2.min():.3f}; the advice raised R^2 in {int(np.sum(~hurt))} cells "
              f"and lowered it in {int(np.sum(hurt))} ({int(np.sum(plain_r2[hurt] > 0))} with R^2 > 0 at lam 0), "
              f"by at most {np.max(plain_r2[hurt] - ridged_r2[hurt], initial=0.0):.3f}. Silent in {len(silent)} cells: "
              f"R^2 <= 0 at lam 0 in {sum(r <= 0 for r in silent)} of them, lowest R^2 {min(silent):.3f}."]
    write_markdown(RESULTS, "\n".join(lines), record)
    print(lines[-1])


if __name__ == "__main__":
    main()
