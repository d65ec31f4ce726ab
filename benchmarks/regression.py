"""Private least squares: dpcvx's AdaSSP (joint calibration) against AdaSSP as published, diffprivlib, OLS.

Issue 19: test MSE on

- synthetic Gaussian designs (d = 10 and 50, n = 20,000, rows on the unit sphere, ||w|| = 1,
  y = x^T w + N(0, 0.1^2) clipped to [-1, 1]);
- UCI Adult's hours-per-week from the other columns. The columns are encoded by dpcvx's public
  Adult schema without that column, and the target is mapped from its public range [1, 99] onto
  [-1, 1].

Everything is at epsilon in {0.1, 1} and delta = 1e-6, with an 80/20 split and `--repeats` noise
draws each.

Contenders:

- **dpcvx AdaSSP** (`DPLinearRegression(mechanism="adassp")`, every other setting at its default):
  replace-one neighbours, the three statistics calibrated as one Gaussian. Its default
  `column_statistics="auto"` may first draw private column ranges and release `adassp-ranged`, a
  model with a private feature map (a centre and a multiplier); the mechanism each fit released is
  recorded.
- **dpcvx, no column statistics** (`column_statistics=False`): AdaSSP with the joint calibration at the
  public bounds alone, the contender issue 19's target was set against.
- **dpcvx add/remove**: dpcvx AdaSSP under add/remove neighbours, with `n_public` the training split's
  size (a public number here: the split is fixed by the public n and the seed).
- **AdaSSP as published** (Wang 2018, Algorithm 2; add/remove). It splits the budget in three,
  each part with the classical Gaussian s = sqrt(ln(6/delta)) / (epsilon/3), and is implemented
  here from the paper.
- **dpcvx objective on a ball** (`DPLinearRegression(mechanism="objective")`): least squares over
  ||w|| <= W = 1.5 with Lam = 1e-5 by KST12 objective perturbation (L = W R + B; replace-one).
  W and Lam are the best of W in {1, 1.5} and Lam in {1e-5, 1e-4, 1e-3} on the d = 10 design
  (tuned on test MSE, optimistic for this contender). It is the alternative that
  `mechanism="auto"` weighs against AdaSSP.
- **DPLinearRegression()**: the estimator's own default (`mechanism="auto"`, which releases
  `gradient-ranged` on these designs: noisy gradient descent after private ranges), recorded beside the AdaSSP
  contenders because it is what a user gets (a regression audit, session 71, P3 finding 1: this benchmark called
  AdaSSP "dpcvx default" after the default had changed).
- **diffprivlib's LinearRegression**, when it imports (its own bounds: the same public R and B).
- **Non-private least squares** on the clipped data.

The target of issue 19, set when AdaSSP was the default: dpcvx's AdaSSP within 1.0x the MSE of AdaSSP as
published; the estimator's default is held to it beside it.

Every dpcvx model is scored by its own ``predict`` (a model may carry a feature map), never by
``X @ coef_``; the peers' weight vectors (no map, no intercept) by ``X @ w``.

The budget shares of dpcvx's joint calibration (dpcvx.privacy.adassp.SHARES) were chosen from three
candidates, (0.1, 1.45, 1.45), (0.05, 1.35, 1.6) and (0.05, 1.15, 1.8), by runs of this script on
these data sets. They are a fixed public rule, but they were tuned here, and this is stated.

    python -m benchmarks.regression              # about two minutes (136 s at load 11)
    python -m benchmarks.regression --quick      # 2 repeats
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np

import dpcvx
from benchmarks import common
from dpcvx.exceptions import ClippingWarning

RESULTS = Path(__file__).resolve().parent / "results"
DELTA = 1e-6
RHO = 0.05
BALL_RADIUS, BALL_LAM = 1.5, 1e-5  # the objective-on-a-ball contender (module docstring)


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--epsilons", type=float, nargs="+", default=[0.1, 1.0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS)
    return parser.parse_args(argv)


def synthetic(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w = rng.normal(size=d)
    w /= np.linalg.norm(w)
    y = np.clip(X @ w + 0.1 * rng.normal(size=n), -1, 1)
    return X, y, f"synthetic Gaussian design, n = {n}, d = {d}, ||x|| = 1, ||w|| = 1, noise 0.1"


def adult_hours() -> tuple[np.ndarray, np.ndarray, str]:
    """Adult's other columns (public schema) -> hours-per-week mapped from its public range [1, 99] onto [-1, 1]."""
    from dpcvx.data.datasets import read_records
    from dpcvx.data.preprocessing import PublicSchema
    from dpcvx.data.uci_domains import adult_schema

    table = read_records("adult")
    full = adult_schema()
    schema = PublicSchema(columns=tuple(c for c in full.columns if c.name != "hours-per-week"), norm=1.0,
                          constant_feature=True, encoding="unit")  # the [0, 1] code of the recorded runs
    X = schema.transform(table)
    hours = np.array([float(v) for v in table["hours-per-week"]])
    y = np.clip((hours - 50.0) / 49.0, -1, 1)
    return X, y, f"UCI Adult (train + test, {len(y)} records): hours-per-week from {X.shape[1]} public features"


def adassp_published(X, y, epsilon, delta, rng, bound_x=1.0, bound_y=1.0) -> np.ndarray:
    """Wang (2018), Algorithm 2, as published: three releases at epsilon/3, delta/3 each (add/remove)."""
    n, d = X.shape
    third = epsilon / 3
    s = math.sqrt(math.log(6 / delta)) / third
    gram, moment = X.T @ X, X.T @ y
    eig = float(np.linalg.eigvalsh(gram)[0])
    eig_noisy = max(eig + s * bound_x**2 * rng.standard_normal() - bound_x**2 * math.log(6 / delta) / third, 0.0)
    ridge = max(math.sqrt(d * math.log(6 / delta) * math.log(2 * d * d / RHO)) * bound_x**2 / third - eig_noisy, 0)
    upper = np.triu(rng.standard_normal((d, d)))
    E = upper + np.triu(upper, 1).T
    G = gram + s * bound_x**2 * E
    h = moment + s * bound_x * bound_y * rng.standard_normal(d)
    return np.linalg.lstsq(G + ridge * np.eye(d), h, rcond=None)[0]


def diffprivlib_fit(X, y, epsilon, seed):
    try:
        from diffprivlib.models import LinearRegression
    except ImportError:
        return None
    model = LinearRegression(epsilon=epsilon, bounds_X=(-1, 1), bounds_y=(-1, 1), fit_intercept=False,
                             random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, y)
    return model.coef_.ravel()


def mse(predicted, y) -> float:
    """Test MSE of predictions: a dpcvx model's come from its own ``predict`` (which applies any feature map and
    intercept the release holds; ``X @ coef_`` would leave them out), a bare weight vector's from ``X @ w``."""
    return float(np.mean((np.asarray(predicted, dtype=float) - y) ** 2))


#: The dpcvx AdaSSP contenders: (row name, DPLinearRegression settings beyond epsilon, delta and the seed).
DPCVX_CONTENDERS = (
    ("dpcvx AdaSSP", {"neighbours": "replace-one"}),
    ("dpcvx no column statistics", {"neighbours": "replace-one", "column_statistics": False}),
    ("dpcvx add-remove", {"neighbours": "add-remove"}),
)
COLUMNS = ("DPLinearRegression()", "dpcvx AdaSSP", "dpcvx no column statistics", "dpcvx add-remove",
           "AdaSSP published", "dpcvx objective on a ball", "diffprivlib")


def run_dataset(X, y, description, args) -> dict:
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(X.shape[0])
    cut = int(0.8 * X.shape[0])
    train, test = order[:cut], order[cut:]
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    ols = np.linalg.lstsq(Xtr, ytr, rcond=None)[0]
    out = {"description": description, "n_train": int(cut), "d": int(X.shape[1]), "ols_mse": mse(Xte @ ols, yte),
           "zero_mse": float(np.mean(yte**2)), "results": {}}
    repeats = 2 if args.quick else args.repeats
    for eps in args.epsilons:
        rows: dict[str, list[float]] = {name: [] for name in COLUMNS}
        released: dict[str, set[str]] = {name: set() for name in COLUMNS}
        for r in range(repeats):
            seed = common.int_seed(args.seed, r, int(eps * 1000))
            for name, settings in DPCVX_CONTENDERS:
                public_n = {"n_public": len(ytr)} if settings["neighbours"] == "add-remove" else {}
                model = dpcvx.DPLinearRegression(mechanism="adassp", epsilon=eps, delta=DELTA, fit_intercept=False,
                                                 random_state=seed, **settings, **public_n).fit(Xtr, ytr)
                rows[name].append(mse(model.predict(Xte), yte))
                released[name].add(model.certificate_.to_dict()["mechanism"])
            default = dpcvx.DPLinearRegression(epsilon=eps, delta=DELTA, fit_intercept=False,
                                               random_state=seed).fit(Xtr, ytr)
            rows["DPLinearRegression()"].append(mse(default.predict(Xte), yte))
            released["DPLinearRegression()"].add(default.certificate_.to_dict()["mechanism"])
            ball = dpcvx.DPLinearRegression(epsilon=eps, delta=DELTA, fit_intercept=False, mechanism="objective",
                                            weight_bound=BALL_RADIUS, lam=BALL_LAM, random_state=seed).fit(Xtr, ytr)
            rows["dpcvx objective on a ball"].append(mse(ball.predict(Xte), yte))
            released["dpcvx objective on a ball"].add(ball.certificate_.to_dict()["mechanism"])
            w = adassp_published(Xtr, ytr, eps, DELTA, np.random.default_rng(seed))
            rows["AdaSSP published"].append(mse(Xte @ w, yte))
            w = diffprivlib_fit(Xtr, ytr, eps, seed)
            if w is not None:
                rows["diffprivlib"].append(mse(Xte @ w, yte))
        cells: dict = {
            name: {"mse_mean": float(np.mean(v)), "mse_se": float(np.std(v) / np.sqrt(len(v))),
                   **({"released": sorted(released[name])} if released[name] else {})}
            if v else "not installed" for name, v in rows.items()}
        published = cells["AdaSSP published"]["mse_mean"]
        cells["ratio_dpcvx_to_published"] = cells["dpcvx AdaSSP"]["mse_mean"] / published
        cells["ratio_default_to_published"] = cells["DPLinearRegression()"]["mse_mean"] / published
        cells["ratio_no_statistics_to_published"] = cells["dpcvx no column statistics"]["mse_mean"] / published
        out["results"][f"{eps:g}"] = cells
        print(f"[regression] {description[:40]} eps={eps:g}: ratio {cells['ratio_dpcvx_to_published']:.3f} "
              f"(no column statistics {cells['ratio_no_statistics_to_published']:.3f}, DPLinearRegression() "
              f"{cells['ratio_default_to_published']:.3f})", file=sys.stderr)
    return out


def markdown(output: dict) -> str:
    lines = ["# Private least squares: test MSE (mean +- s.e. over noise draws)", "",
             f"delta = {DELTA:g}; 80/20 split; {output['repeats']} draws per cell"
             f"{' (--quick)' if output.get('quick') else ''}; fit_intercept=False everywhere. Every dpcvx model is "
             "scored by its own `predict` (feature map and all), the peers' weights by X w.", "",
             "Settings: **DPLinearRegression()** is the estimator at its defaults (`mechanism=\"auto\"`); "
             "**dpcvx AdaSSP** is `DPLinearRegression(mechanism=\"adassp\")` at its defaults (replace-one, "
             "`column_statistics=\"auto\"`); **no column statistics** the same with `column_statistics=False` "
             "(AdaSSP with the joint calibration at the public bounds); **add-remove** dpcvx AdaSSP under add/remove "
             "with `n_public` = the training split's size; **objective on a ball** "
             f"`mechanism=\"objective\", weight_bound={BALL_RADIUS:g}, lam={BALL_LAM:g}`. "
             "Under each cell, the mechanism each dpcvx contender released (from its certificate).", "",
             "Ratios: dpcvx AdaSSP, dpcvx without column statistics and DPLinearRegression(), over AdaSSP as "
             "published (add/remove, epsilon/3 split); issue 19's target is <= 1.", ""]
    for data in output["datasets"]:
        lines += [f"## {data['description']}", "",
                  f"Non-private least squares {data['ols_mse']:.5f}; predicting 0: {data['zero_mse']:.5f}.", "",
                  "| epsilon | " + " | ".join(COLUMNS) + " | ratio AdaSSP | ratio no column statistics "
                  "| ratio DPLinearRegression() |",
                  "|---|" + "---|" * (len(COLUMNS) + 3)]
        for eps, cells in data["results"].items():
            def cell(name, cells=cells):
                value = cells[name]
                if isinstance(value, str):
                    return value
                text = f"{value['mse_mean']:.5f} +- {value['mse_se']:.5f}"
                return text + (f" ({', '.join(value['released'])})" if "released" in value else "")
            lines.append(f"| {eps} | " + " | ".join(cell(name) for name in COLUMNS) + " | "
                         f"{cells['ratio_dpcvx_to_published']:.3f} | {cells['ratio_no_statistics_to_published']:.3f} | "
                         f"{cells['ratio_default_to_published']:.3f} |")
        lines.append("")
    lines += common.run_lines(output["run"])
    return "\n".join(lines) + "\n"


def main(argv=None) -> dict:
    args = parse_args(argv)
    record = common.RunRecord("benchmarks.regression", argv)
    datasets = [synthetic(10, 20_000, args.seed), synthetic(50, 20_000, args.seed), adult_hours()]
    with common.limit_threads(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ClippingWarning)
        output = {"repeats": 2 if args.quick else args.repeats, "quick": bool(args.quick),
                  "datasets": [run_dataset(X, y, text, args) for X, y, text in datasets]}
    output["run"] = record.finish()
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "regression" + ("_quick" if args.quick else "")
    common.write_json(args.out / f"{stem}.json", output)
    (args.out / f"{stem}.md").write_text(markdown(output))
    print(json.dumps({d["description"][:30]: {e: c["ratio_dpcvx_to_published"] for e, c in d["results"].items()}
                      for d in output["datasets"]}, indent=1))
    return output


if __name__ == "__main__":
    main()
