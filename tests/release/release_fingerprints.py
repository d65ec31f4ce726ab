"""Fingerprints of seeded releases: a refactoring of the release path must leave every one bit-identical.

Fits a fixed set of configurations with a fixed seed (output and objective perturbation, pure and Gaussian,
float-safe, AdaSSP regression (plain, on standardised columns, on private ranges: the default, on the label's range
alone),
DPHuberRegressor's ranges of the columns and the label, multiclass, the kernel learners,
add-remove, class weights, the intercept offset of a public class prior, the private class count (its weights,
its offset), lam="auto") and records, per release, the released weights (as their exact JSON text), the
certificate's text and the saved model file's text (the library version line removed). ``--compare`` reads an
earlier run and lists every difference.

    OPENBLAS_NUM_THREADS=1 python tests/release/release_fingerprints.py --out /tmp/before.json
    OPENBLAS_NUM_THREADS=1 python tests/release/release_fingerprints.py --compare /tmp/before.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import dpcvx
from dpcvx import losses
from dpcvx.demo import synthetic_classification

LOSS = "huber_hinge:h=0.5"


def _configurations() -> dict[str, Callable[[], Any]]:
    """name -> a function making that release (seeded)."""
    X, y = synthetic_classification(n=300, d=3, random_state=0)
    y01 = (y > 0).astype(int)
    rng = np.random.default_rng(3)
    Xr = rng.uniform(-1, 1, (300, 3)) / np.sqrt(3)
    yr = np.clip(Xr @ np.array([0.5, -0.3, 0.2]) + 0.1 * rng.standard_normal(300), -1, 1)
    y3 = np.where(X[:, 0] > 0.2, 2.0, np.where(X[:, 1] > 0, 1.0, 0.0))
    makers: dict[str, Callable[[], Any]] = {}
    for mechanism in ("output", "objective"):
        for delta in (0.0, 1e-6):
            for float_safe in (False, True) if mechanism == "output" or delta == 0.0 else (False,):  # (the Gaussian
                # objective has no floating-point-safe form: refused)
                makers[f"erm {mechanism} delta={delta} float_safe={float_safe}"] = (
                    lambda m=mechanism, dl=delta, fs=float_safe: dpcvx.PrivateERM(
                        losses.logistic(), lam=0.05, data_norm=1.0, float_safe=fs).fit(
                        X, y, 1.0, m, delta=dl, random_state=1))
        makers[f"erm {mechanism} add-remove"] = lambda m=mechanism: dpcvx.PrivateERM(
            losses.logistic(), lam=0.05, data_norm=1.0).fit(X, y, 1.0, m, delta=1e-6, neighbours="add-remove",
                                                            n_public=300, random_state=1)
    makers["estimator lam=auto"] = lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=2).fit(X, y01).model_
    makers["estimator class_weight"] = lambda: dpcvx.DPLogisticRegression(
        epsilon=1.0, lam=0.05, class_weight={0: 2.0, 1: 1.0}, random_state=2).fit(X, y01).model_
    makers["estimator class_prior offset"] = lambda: dpcvx.DPLogisticRegression(
        epsilon=1.0, lam=0.05, class_prior={0: 0.3, 1: 0.7}, random_state=2).fit(X, y01).model_
    makers["estimator private count weights"] = lambda: dpcvx.DPLogisticRegression(
        epsilon=1.0, lam=0.05, class_weight="balanced", random_state=2).fit(X, y01).model_
    makers["estimator private count offset"] = lambda: dpcvx.DPLogisticRegression(
        epsilon=1.0, class_prior="private", threshold="prior", random_state=2).fit(X, y01).model_
    # the classifiers' default column_statistics="auto" draws the histogram ranges at 2,000 rows of 3 columns (T = 665
    # <= 0.4 n) and not at the 300 rows above (docs/theory.md, section 34)
    Xb, yb = synthetic_classification(n=2000, d=3, random_state=1)
    makers["estimator default auto ranges"] = lambda: dpcvx.DPLogisticRegression(epsilon=1.0, random_state=2).fit(
        Xb, (yb > 0).astype(int)).model_
    makers["erm private count weights lam=auto"] = lambda: dpcvx.PrivateERM(
        losses.logistic(), lam="auto", data_norm=1.0, class_weight="balanced", classes=(0, 1)).fit(
        X, y01, 1.0, delta=1e-6, random_state=1)
    makers["estimator huber output gaussian"] = lambda: dpcvx.DPHuberSVM(
        epsilon=1.0, delta=1e-6, mechanism="output", lam=0.05, random_state=2).fit(X, y01).model_
    makers["regression huber"] = lambda: dpcvx.PrivateERM(
        loss=losses.huber_regression(1.0), task="regression", label_bound=1.0, lam=0.1, data_norm=1.0).fit(
        Xr, yr, 1.0, "output", random_state=0)
    makers["adassp"] = lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, random_state=0,
                                                        column_statistics=False).fit(Xr, yr).model_
    makers["adassp standardised"] = lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, random_state=0,
                                                                     column_statistics=True).fit(Xr, yr).model_
    narrow = np.random.default_rng(7).normal(0.2, 0.01, (3000, 3))  # enough rows for the range search
    y_narrow = np.clip((narrow - 0.2) @ np.array([30.0, -20.0, 10.0]), -1, 1)
    makers["adassp ranged"] = lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6, mechanism="adassp",
                                                               random_state=0).fit(narrow, y_narrow).model_
    makers["adassp label range"] = lambda: dpcvx.DPLinearRegression(  # 1,000 rows: too few for every column's
        epsilon=1.0, delta=1e-6, mechanism="adassp", random_state=0).fit(  # range, the label's alone
        narrow[:1000], y_narrow[:1000]).model_
    # DPLinearRegression's default: noisy gradient descent where a range is searched (docs/theory.md section 16.1)
    makers["gradient ranged"] = lambda: dpcvx.DPLinearRegression(epsilon=1.0, delta=1e-6,
                                                                 random_state=0).fit(narrow, y_narrow).model_
    makers["gradient label range"] = lambda: dpcvx.DPLinearRegression(
        epsilon=1.0, delta=1e-6, random_state=0).fit(narrow[:1000], y_narrow[:1000]).model_
    makers["huber ranged"] = lambda: dpcvx.DPHuberRegressor(  # the ranges of the columns and the label
        epsilon=1.0, label_bound=(-2.0, 2.0), column_statistics="auto", random_state=0).fit(narrow, y_narrow).model_
    for float_safe in (False, True):
        makers[f"multiclass float_safe={float_safe}"] = lambda fs=float_safe: dpcvx.PrivateMulticlassERM(
            dpcvx.PrivateERM(losses.logistic(), lam=0.1, data_norm=1.0, float_safe=fs), (0.0, 1.0, 2.0)).fit(
            X, y3, 1.0, "output", random_state=0)
        makers[f"TDDL float_safe={float_safe}"] = lambda fs=float_safe: dpcvx.TDDL(
            "rbf", gamma=2.0, lam=0.1, loss=LOSS, float_safe=fs).fit(X, y, 1.0, Z=X[:20], random_state=0)
        makers[f"TDIL float_safe={float_safe}"] = lambda fs=float_safe: dpcvx.TDIL(
            "linear", lam=0.1, input_bound=1.0, loss=LOSS, float_safe=fs).fit(X, y, 200.0, 1e-6, random_state=3)
        makers[f"TDDL gaussian float_safe={float_safe}"] = lambda fs=float_safe: dpcvx.TDDL(
            "rbf", gamma=2.0, lam=0.1, loss=LOSS, float_safe=fs).fit(X, y, 1.0, 1e-6, Z=X[:20], random_state=0)
        makers[f"TDIL rbf net float_safe={float_safe}"] = lambda fs=float_safe: dpcvx.TDIL(
            "rbf", gamma=1.0, lam=0.1, input_bound=1.0, net_spacing=0.5, loss=LOSS, float_safe=fs).fit(
            X[:, :2], y, 50.0, random_state=3)
    makers["TDDL span=public"] = lambda: dpcvx.TDDL("rbf", gamma=2.0, lam=0.1, span="public").fit(
        X, y, 1.0, Z=X[:20], random_state=0)
    for kernel in ("rbf", "linear"):
        makers[f"PINP {kernel}"] = lambda k=kernel: _pinp(k, X, y)
    return makers


def _pinp(kernel: str, X: np.ndarray, y: np.ndarray) -> Any:
    """A PINP transcript: ten queries answered, then released."""
    curator = dpcvx.PINP(kernel, gamma=2.0 if kernel == "rbf" else None, input_bound=None if kernel == "rbf" else 1.0,
                         lam=0.1, max_queries=20).fit(X, y, 5.0, random_state=0)
    curator.decision_function(X[:10])
    return curator.release()


def _fingerprint(model: Any, directory: Path) -> dict[str, str]:
    path = dpcvx.save(model, directory / "model.json", overwrite=True)  # one file, each release in turn
    text = "\n".join(line for line in Path(path).read_text().splitlines() if "library_version" not in line)
    loaded = dpcvx.load(path)
    return {"certificate": str(model.certificate), "file": text,
            "loaded certificate": str(loaded.certificate)}


def run() -> dict[str, dict[str, str]]:
    out = {}
    with tempfile.TemporaryDirectory() as directory:
        for name, make in _configurations().items():
            out[name] = _fingerprint(make(), Path(directory))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="release_fingerprints.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args(argv)
    prints = run()
    if args.out is not None:
        args.out.write_text(json.dumps(prints, indent=1))
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    differences = [f"{name}: {part}" for name in sorted(set(before) | set(prints))
                   for part in ("certificate", "file", "loaded certificate")
                   if before.get(name, {}).get(part) != prints.get(name, {}).get(part)]
    print("\n".join(differences) or f"all {len(prints)} releases identical")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
