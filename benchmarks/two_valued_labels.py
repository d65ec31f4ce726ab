"""A regression on a label of two values (a 0/1 outcome): what the training-rows check says; does its advice help?

A prober (session 59, finding 5) fitted DPLinearRegression(label_bound=(0, 1)) on a 0/1 label with 10 % ones (5
Gaussian columns, n 20,000): held-out R^2 0.12 to 0.14 at epsilon 1 and 8 against least squares' 0.33. The
training-rows check (dpcvx.models.training_rows, LITTLE_KEPT) fired on every fit, said the release's noise sets what
it keeps (R^2 was the same at epsilon 1 and 8: a bias, not noise) and advised DPHuberRegressor, which scored R^2 -0.01
to 0.03; DPLogisticRegression's predict_proba scored 0.50 to 0.62.

Each cell fits, at the same epsilon: DPLinearRegression(label_bound=(0, 1)), DPHuberRegressor(label_bound=(0, 1)) and
DPLogisticRegression() with predict_proba(X)[:, 1] as the prediction; least squares (NOT private) as the reference.
R^2 on held-back rows (a fifth of each table). Recorded: whether each regression fit drew a TrainingRowsWarning, whether
it named the classifier (training_rows.two_values_advice) and whether it named DPHuberRegressor.

Tables: "probe" (the prober's generator: 5 standard normal columns under bounds (-5, 5), score z . (1, -0.8, 0.5, 0, 0)
plus N(0, 0.5), 1 above its 90 % point), n 20,000; "flags40" (12 Bernoulli(0.4) flags and 2 uniform columns, a
logistic label with about 40 % ones), n 15,000; epsilon 1 and 8; data seeds 0 and 1.

    OPENBLAS_NUM_THREADS=1 python -m benchmarks.two_valued_labels
"""

from __future__ import annotations

import json
import warnings

import numpy as np
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

import dpcvx
from benchmarks.common import RESULTS_DIR, RunRecord, write_markdown

CLASSIFIER = "DPLogisticRegression(epsilon=...) with the two values"  # training_rows.two_values_advice's words


def table(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    rng = np.random.default_rng(seed)
    if name == "probe":
        n = 25_000
        Z = rng.normal(size=(n, 5))
        s = Z @ np.array([1.0, -0.8, 0.5, 0, 0])
        y = (s + rng.normal(0, 0.5, n) > np.quantile(s, 0.9)).astype(float)
        schema = dpcvx.PublicSchema(tuple(dpcvx.NumericColumn(f"z{j}", -5, 5) for j in range(5)), norm=1.0)
        return schema.transform({f"z{j}": Z[:, j] for j in range(5)}), y, 20_000
    n = 18_750
    flags = (rng.random((n, 12)) < 0.4).astype(float)
    uniform = rng.uniform(0, 1, (n, 2))
    logit = flags[:, :5] @ np.array([1.5, -1.2, 1.0, 0.8, -0.6]) + 2.0 * uniform[:, 0] - 2.1
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(float)
    columns = tuple(dpcvx.NumericColumn(f"f{j}", 0, 1) for j in range(12)) + (
        dpcvx.NumericColumn("u0", 0, 1), dpcvx.NumericColumn("u1", 0, 1))
    raw = {f"f{j}": flags[:, j] for j in range(12)} | {"u0": uniform[:, 0], "u1": uniform[:, 1]}
    return dpcvx.PublicSchema(columns, norm=1.0).transform(raw), y, 15_000


def _regression(model, X, y, Xt, yt) -> tuple[float, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(X, y)
    shown = [str(w.message) for w in caught if w.category is dpcvx.exceptions.TrainingRowsWarning]
    return float(r2_score(yt, model.predict(Xt))), shown


def main() -> None:
    record = RunRecord("benchmarks.two_valued_labels", [])
    cells = []
    for name in ("probe", "flags40"):
        for seed in (0, 1):
            X, y, n = table(name, seed)
            X, Xt, y, yt = X[:n], X[n:], y[:n], y[n:]
            ols = float(r2_score(yt, LinearRegression().fit(X, y).predict(Xt)))
            for epsilon in (1.0, 8.0):
                cell: dict = {"table": name, "seed": seed, "epsilon": epsilon, "ones": float(y.mean()),
                              "least_squares": round(ols, 4)}
                for key, kind in (("linear", dpcvx.DPLinearRegression), ("huber", dpcvx.DPHuberRegressor)):
                    score, shown = _regression(kind(epsilon=epsilon, label_bound=(0, 1), random_state=seed),
                                               X, y, Xt, yt)
                    cell[key] = round(score, 4)
                    cell[f"{key}_warned"] = bool(shown)
                    cell[f"{key}_names_classifier"] = any(CLASSIFIER in text for text in shown)
                    cell[f"{key}_names_huber"] = any("DPHuberRegressor(" in text for text in shown)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    classifier = dpcvx.DPLogisticRegression(epsilon=epsilon, random_state=seed).fit(X, y.astype(int))
                cell["classifier"] = round(float(r2_score(yt, classifier.predict_proba(Xt)[:, 1])), 4)
                print(json.dumps(cell), flush=True)
                cells.append(cell)
    lines = ["# two_valued_labels", "", "benchmarks/two_valued_labels.py (its docstring holds the tables and the "
             "counting). Held-out R^2; `warned`: a TrainingRowsWarning on the fit; `classifier?`: it named "
             "DPLogisticRegression's probability; `Huber?`: it named DPHuberRegressor.", "",
             "| table | seed | eps | ones | least squares | DPLinearRegression | warned | classifier? | Huber? | "
             "DPHuberRegressor | warned | classifier? | Huber? | DPLogisticRegression predict_proba |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    yes = {True: "yes", False: ""}
    for c in cells:
        lines.append(f"| {c['table']} | {c['seed']} | {c['epsilon']:g} | {c['ones']:.3f} | {c['least_squares']:.3f} | "
                     f"{c['linear']:.3f} | {yes[c['linear_warned']]} | {yes[c['linear_names_classifier']]} | "
                     f"{yes[c['linear_names_huber']]} | {c['huber']:.3f} | {yes[c['huber_warned']]} | "
                     f"{yes[c['huber_names_classifier']]} | {yes[c['huber_names_huber']]} | {c['classifier']:.3f} |")
    better = sum(c["classifier"] > max(c["linear"], c["huber"]) for c in cells)
    lines += ["", f"The classifier's probability scored above both regressions in {better} of {len(cells)} cells; "
              f"R^2 {min(c['classifier'] for c in cells):.3f} to {max(c['classifier'] for c in cells):.3f} against "
              f"DPLinearRegression's {min(c['linear'] for c in cells):.3f} to {max(c['linear'] for c in cells):.3f} "
              f"and DPHuberRegressor's {min(c['huber'] for c in cells):.3f} to {max(c['huber'] for c in cells):.3f}."]
    (RESULTS_DIR / "two_valued_labels.json").write_text(json.dumps(cells, indent=1) + "\n")
    print(write_markdown(RESULTS_DIR / "two_valued_labels.md", "\n".join(lines) + "\n", record))


if __name__ == "__main__":
    main()
