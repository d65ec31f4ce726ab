"""Empirical audits of the mechanisms not yet attacked (issue 40, item 8): AdaSSP, split tuning, TDDL, TDIL, PINP.

Each case runs ``dpcvx.audit`` (the real release path, sample-split interval tests, Clopper-Pearson bounds at
95%) on a replace-one pair built to push the two releases as far apart as the proofs allow, and records the
empirical lower bound on epsilon beside the claim (docs/audit.md, "Audits of AdaSSP, split tuning and the
kernel learners"). The pairs:

* AdaSSP: n = 100 rows in d = 1, all at x = R: 99 with label 0 and the canary at label +B in D, -B in D'.
  X^T X = n R^2 is the same on both sides (and large against its noise, so the coefficient shows X^T y's
  noise almost directly), and X^T y moves by 2 R B, its sensitivity bound; statistic: the coefficient.
* gradient-ranged (``PrivateLinearRegression(mechanism="gradient")``): n = 800 rows in d = 1 on an even grid of
  [-R, R] with label 0, and the canary at x = R with label +B in D, -B in D' (the largest residual either side, so
  each step's gradient moves by 2 R_eff tau once the ranges are searched); statistic: the coefficient.
* split tuning (Algorithm 4, JMLR 2011): three rows, two candidates that ignore the data (constant labels +1
  and -1, 0-DP fits), so the exponential mechanism on the held-out part is the whole mechanism. D' flips the
  label of one row: if it falls in the held-out part both candidates' mistake counts move by 1 in opposite
  directions, the largest change the sensitivity allows; statistic: the selected candidate.
* TDDL, TDIL and PINP (Jain and Thakurta 2013): rbf kernel, nine rows at x = 0 with alternating labels and the
  canary x = 3 with label +1 in D, -1 in D' (the hinge gradient at the canary flips, 2 L kappa, the
  sensitivity bound's worst case); statistic: the released decision value at the canary (TDDL: its public
  point Z; TDIL: its decision function; PINP: the answer to one query at the canary).

Two broken variants (the release at 10 epsilon, claimed at epsilon) show that the AdaSSP and split pairs
have the power to find a violation: their bounds must exceed the claim.

Run: ``python -m benchmarks.audit_new_mechanisms [--trials N] [--cases a,b] [--out FILE]`` (seeded;
``OPENBLAS_NUM_THREADS=1``; each case's own number of runs by default). Records
``results/audit_new_mechanisms.md``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from benchmarks.common import RunRecord, write_markdown
from dpcvx import AuditReport, NeighbouringPair, audit

CANARY = 3.0  # the kernel pairs' canary, far from the base rows at 0 (rbf kernel gamma = 1: k(0, 3) = exp(-9))
RESULTS = Path(__file__).resolve().parent / "results" / "audit_new_mechanisms.md"


def _pair(base_X: np.ndarray, base_y: np.ndarray, canary: np.ndarray, label: float, label_prime: float,
          description: str) -> NeighbouringPair:
    X = np.vstack([base_X, canary])
    return NeighbouringPair(X, np.append(base_y, label), X.copy(), np.append(base_y, label_prime),
                            direction=np.ones(X.shape[1]), description=description)


def adassp_pair() -> NeighbouringPair:
    return _pair(np.ones((99, 1)), np.zeros(99), np.array([[1.0]]), 1.0, -1.0,
                 "99 rows x = R = 1 with label 0; the canary x = R with label +B = +1 in D, -1 in D' "
                 "(X^T y moves by 2 R B; X^T X = n R^2 on both sides)")


def gradient_pair() -> NeighbouringPair:
    return _pair(np.linspace(-1, 1, 799)[:, None], np.zeros(799), np.array([[1.0]]), 1.0, -1.0,
                 "799 rows on an even grid of [-R, R] = [-1, 1] with label 0; the canary x = R with label +B = +1 in "
                 "D, -1 in D' (the clipped residual at its extremes)")


def kernel_pair() -> NeighbouringPair:
    return _pair(np.zeros((9, 1)), np.array([1.0, -1.0] * 4 + [1.0]), np.array([[CANARY]]), 1.0, -1.0,
                 f"nine rows at x = 0 (alternating labels); the canary x = {CANARY:g} with label +1 in D, -1 in D'")


def split_pair() -> NeighbouringPair:
    X = np.zeros((3, 1))
    return NeighbouringPair(X, np.array([1, 1, 1]), X.copy(), np.array([1, 1, -1]), direction=np.ones(1),
                            description="three rows, labels (+1, +1, +1) in D and (+1, +1, -1) in D'")


class ConstantLabel:
    """A 0-DP candidate (it ignores the data): predicts ``label`` everywhere."""

    predicts_per_row = True

    def __init__(self, label: int = 1):
        self.label = label

    def get_params(self, deep: bool = True) -> dict:
        return {"label": self.label}

    def set_params(self, **params: Any) -> ConstantLabel:
        self.label = params.get("label", self.label)
        return self

    def fit(self, X: Any, y: Any, epsilon: float, random_state: Any = None) -> ConstantLabel:
        return self

    def predict(self, X: Any) -> np.ndarray:
        return np.full(np.shape(X)[0], self.label)


@dataclass
class Released:
    """What a case's fit releases, reduced to one number (the audit's statistic), and its claim."""

    value: float
    certificate: Any


class Case:
    """One audited mechanism: ``fit(X, y, epsilon=, random_state=)`` returns a :class:`Released`."""

    def __init__(self, name: str, pair: Callable[[], NeighbouringPair], epsilon: float, delta: float,
                 fit: Callable[[np.ndarray, np.ndarray, float, int], Released], trials: int):
        self.name, self.pair, self.epsilon, self.delta, self._fit = name, pair, epsilon, delta, fit
        self.trials = trials  # the recorded run's runs per data set (all five in about 5 minutes)

    def fit(self, X: np.ndarray, y: np.ndarray, epsilon: float, random_state: int) -> Released:
        return self._fit(X, y, epsilon, random_state)


def _adassp(X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Released:
    model = dpcvx.PrivateLinearRegression(1.0, 1.0).fit(X, y, epsilon, 1e-5, random_state=seed)
    return Released(float(model.coef_[0]), model.certificate)


def _gradient(X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Released:
    model = dpcvx.PrivateLinearRegression(1.0, 1.0, fit_intercept=True, intercept_scaling="auto", column_ranges=True,
                                          mechanism="gradient").fit(X, y, epsilon, 1e-5, random_state=seed)
    return Released(float(model.coef_[0]), model.certificate)


def _split(X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Released:
    result = dpcvx.tune(ConstantLabel(), X, y, {"label": [1, -1]}, epsilon, procedure="split", random_state=seed)
    return Released(float(result.params["label"]), result.certificate)


def _broken(fit: Callable[[np.ndarray, np.ndarray, float, int], Released]
            ) -> Callable[[np.ndarray, np.ndarray, float, int], Released]:
    """The same release at 10 epsilon, claimed at epsilon (no certificate: the audit's claim is the case's):
    the power check of a pair, which must find more than the claim."""
    return lambda X, y, epsilon, seed: Released(fit(X, y, 10 * epsilon, seed).value, None)


def _tddl(X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Released:
    Z = np.array([[CANARY]])
    model = dpcvx.TDDL("rbf", lam=0.1, gamma=1.0).fit(X, y, epsilon, Z=Z, random_state=seed)
    return Released(float(model.decision_function(Z)[0]), model.certificate)


def _tdil(X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Released:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the net's size warning: a 1-D ball, 21 points
        model = dpcvx.TDIL("rbf", lam=0.1, gamma=1.0, input_bound=CANARY).fit(X, y, epsilon, random_state=seed)
    return Released(float(model.decision_function(np.array([[CANARY]]))[0]), model.certificate)


def _pinp(X: np.ndarray, y: np.ndarray, epsilon: float, seed: int) -> Released:
    curator = dpcvx.PINP("rbf", lam=0.1, gamma=1.0, max_queries=1).fit(X, y, epsilon, 1e-5, random_state=seed)
    answer = float(curator.query(np.array([CANARY])))
    return Released(answer, curator.release().certificate)


CASES = {
    "adassp": Case("AdaSSP (PrivateLinearRegression)", adassp_pair, 1.0, 1e-5, _adassp, 600),
    "gradient": Case("noisy gradient descent (gradient-ranged)", gradient_pair, 1.0, 1e-5, _gradient, 600),
    "split": Case("split tuning (Algorithm 4), 0-DP candidates", split_pair, 1.0, 0.0, _split, 600),
    "adassp-broken": Case("broken: AdaSSP at 10 eps, claimed at eps", adassp_pair, 1.0, 1e-5, _broken(_adassp), 600),
    "split-broken": Case("broken: split tuning at 10 eps, claimed at eps", split_pair, 1.0, 0.0, _broken(_split),
                         200),
    "tddl": Case("TDDL (rbf, Lam 0.1), Laplace on the predictions", kernel_pair, 1.0, 0.0, _tddl, 150),
    "tdil": Case("TDIL (rbf, Lam 0.1, net of the ball)", kernel_pair, 1.0, 0.0, _tdil, 150),
    "pinp": Case("PINP (rbf, Lam 0.1), one query at the canary", kernel_pair, 1.0, 1e-5, _pinp, 150),
}


def run_case(case: Case, trials: int, seed: int = 20) -> AuditReport:
    """The audit of one case at ``trials`` runs per side (half select the test, half evaluate it)."""
    return audit(case, case.epsilon, trials=trials, neighbours=case.pair(), delta=case.delta,
                 statistic=lambda released: released.value, random_state=seed)


def _row(name: str, case: Case, report: AuditReport) -> str:
    return (f"| {case.name} | {report.claimed_epsilon:g}, {report.claimed_delta:g} | "
            f"{report.epsilon_lower_bound:.3f} | {'yes' if report.passed else '**no**'} | {report.trials} | "
            f"{report.false_positives} / {report.false_negatives} | {report.seconds_per_fit * 1e3:.1f} |")


def _trials_option(trials: int | None) -> str:
    return "" if trials is None else f" --trials {trials}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=None, help="runs per data set (default: each case's own)")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, from {list(CASES)}")
    parser.add_argument("--seed", type=int, default=20)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    record = RunRecord("benchmarks.audit_new_mechanisms", argv)
    names = [name.strip() for name in args.cases.split(",") if name.strip()]
    unknown = sorted(set(names) - set(CASES))
    if unknown:
        parser.error(f"unknown cases {unknown}; choose from {list(CASES)}")
    start = time.perf_counter()
    lines = ["# Audits of AdaSSP, split tuning and the kernel learners", "",
             f"Command: `python -m benchmarks.audit_new_mechanisms{_trials_option(args.trials)}"
             f" --cases {','.join(names)} --seed {args.seed}` (dpcvx {dpcvx.__version__}, Python "
             f"{platform.python_version()}, OPENBLAS_NUM_THREADS=1, 2 shared cores). 95% confidence; trials = runs "
             "per data set, half select the test and half evaluate it; FP / FN are the evaluation counts of the "
             "chosen test.", "",
             "| mechanism | claimed (eps, delta) | lower bound on eps | bound <= claim | trials | FP / FN | "
             "ms per fit |", "|---|---|---|---|---|---|---|"]
    pairs = {}
    for name in names:
        case = CASES[name]
        report = run_case(case, case.trials if args.trials is None else args.trials, args.seed)
        lines.append(_row(name, case, report))
        pairs[case.name] = case.pair().description
        print(lines[-1], flush=True)
    lines += ["", "Pairs:", "", *(f"- {name}: {description}" for name, description in pairs.items()), "",
              f"Total {time.perf_counter() - start:.0f} s."]
    write_markdown(args.out, "\n".join(lines), record)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
