"""One-vs-rest on skewed classes: one fit at the defaults, ``tune`` and its class-weighted score, and a rare class
fitted against the rest as two classes.

A multiclass ``DPLogisticRegression`` takes no class weight or class prior and gives each of its k problems epsilon /
k. The binary learner's advice on imbalanced classes (tune scored by public class weights) was first given to it
too; this script measures whether that advice helps. The decision rules were written before the first run (the
forty-sixth session), and this script's defaults are that run's family:

- tables: rows N(0, I / d) in d = 10 scaled into the unit ball, labels drawn from a softmax with weights N(0, 36)
  and intercepts log(share), so that a non-private multinomial logistic model does well; k in {3, 5, 8}, public
  shares "balanced" (1 / k each) or "skewed" (.8 .15 .05; .6 .2 .1 .07 .03; .5 .2 .1 .08 .05 .04 .02 .01);
  n in {3,000, 20,000}, the first 75 % for training; epsilon in {1, 5}; seeds ``--seeds``;
- contenders, scored by balanced accuracy over the k classes on the held-out rows:
  **default**, ``DPLogisticRegression(classes, epsilon)``; **tune**, ``dpcvx.tune`` over lam in {1e-4, 1e-3,
  1e-2, 1e-1} by its default score; **tune weighted**, the same scored by ``Mistakes(class_weight={c: 1 /
  share})``; **tune auto**, lam in {"auto", 1e-3, 1e-2, 1e-1} by the default score (skewed tables only);
- the rarest class c against the rest: **two classes**, ``DPLogisticRegression(classes=(False, True),
  class_prior="private", threshold="prior")`` fitted on ``y == c`` at the whole epsilon, beside each one-vs-rest
  release's ``prediction == c``, scored by balanced accuracy of "is it c";
- non-private multinomial logistic regression (scikit-learn, C = 1) on the same rows, for reference.

Rules (written first): the class-weighted score stays advised for one-vs-rest iff, over the skewed cells, its mean
beats tune's, its worst cell is no lower and it is within 0.02 of tune in at least 3/4 of the cells; tune is named
as a gain iff its mean is within 0.01 of the default's; the rare class against the rest stays advised iff it beats
every one-vs-rest release on "is it c" on the mean over the skewed cells and in at least half of them.

    python -m benchmarks.multiclass_tuning              # about 3 minutes
    python -m benchmarks.multiclass_tuning --seeds 0    # a quick look
"""

from __future__ import annotations

import argparse
import itertools
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score

import dpcvx
from benchmarks import common
from dpcvx.models.tuning import Mistakes

SKEWED = {3: (0.8, 0.15, 0.05), 5: (0.6, 0.2, 0.1, 0.07, 0.03), 8: (0.5, 0.2, 0.1, 0.08, 0.05, 0.04, 0.02, 0.01)}
GRID = (1e-4, 1e-3, 1e-2, 1e-1)
AUTO_GRID = ("auto", 1e-3, 1e-2, 1e-1)
MULTICLASS = ("default", "tune", "tune weighted", "tune auto")
WIDTH = 10


def shares_of(k: int, kind: str) -> np.ndarray:
    """The public class shares of a table of ``kind`` ("skewed" or "balanced")."""
    return np.array(SKEWED[k] if kind == "skewed" else (1 / k,) * k)


def table(shares: np.ndarray, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the unit ball and labels "c0".."c{k-1}" drawn from a softmax with intercepts log(share)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, WIDTH)) / np.sqrt(WIDTH)
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    logits = X @ (6.0 * rng.normal(size=(WIDTH, shares.size))) + np.log(shares)
    probabilities = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    drawn = (probabilities.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(0, shares.size - 1)
    return X, np.array([f"c{i}" for i in drawn])


def cell(k: int, kind: str, n: int, epsilon: float, seed: int) -> dict:
    """Balanced accuracies of every contender on one table (module docstring)."""
    shares = shares_of(k, kind)
    classes = tuple(f"c{i}" for i in range(k))
    X, y = table(shares, n, seed)
    cut = int(0.75 * n)
    train, test, labels, truth = X[:cut], X[cut:], y[:cut], y[cut:]
    rare = classes[int(np.argmin(shares))]
    predictions = {"non-private": LogisticRegression(max_iter=2000).fit(train, labels).predict(test)}
    weighted = Mistakes(class_weight={c: 1 / share for c, share in zip(classes, shares, strict=True)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # each learner's public and NOT PRIVATE notes: this script scores instead
        predictions["default"] = dpcvx.DPLogisticRegression(classes=classes, epsilon=epsilon,
                                                            random_state=seed).fit(train, labels).predict(test)
        runs = {"tune": (GRID, None), "tune weighted": (GRID, weighted)}
        if kind == "skewed":
            runs["tune auto"] = (AUTO_GRID, None)
        for name, (grid, score) in runs.items():
            result = dpcvx.tune(dpcvx.DPLogisticRegression(classes=classes), train, labels, {"lam": list(grid)},
                                epsilon, random_state=seed, score=score)
            predictions[name] = result.model.predict(test)
        two = dpcvx.DPLogisticRegression(classes=(False, True), epsilon=epsilon, class_prior="private",
                                         threshold="prior", random_state=seed).fit(train, labels == rare)
    record = {"k": k, "kind": kind, "n": n, "epsilon": epsilon, "seed": seed,
              "all": {name: balanced_accuracy_score(truth, p) for name, p in predictions.items()},
              "rare": {name: balanced_accuracy_score(truth == rare, p == rare) for name, p in predictions.items()}}
    record["rare"]["two classes"] = balanced_accuracy_score(truth == rare, two.predict(test))
    print(f"[multiclass_tuning] k={k} {kind} n={n} eps={epsilon:g} seed={seed}: "
          + ", ".join(f"{name} {value:.3f}" for name, value in record["all"].items())
          + f"; rare vs rest, two classes {record['rare']['two classes']:.3f}", flush=True)
    return record


def run(args: argparse.Namespace) -> dict:
    grid = itertools.product((3, 5, 8), ("skewed", "balanced"), (3000, 20000), (1.0, 5.0), args.seeds)
    return {"records": [cell(*point) for point in grid]}


def verdicts(records: list[dict]) -> list[str]:
    """The module docstring's rules, applied to the skewed cells."""
    skewed = [r for r in records if r["kind"] == "skewed"]
    tune = np.array([r["all"]["tune"] for r in skewed])
    weighted = np.array([r["all"]["tune weighted"] for r in skewed])
    default = np.array([r["all"]["default"] for r in skewed])
    keeps_weighted = (weighted.mean() > tune.mean() and weighted.min() >= tune.min()
                      and np.mean(weighted - tune >= -0.02) >= 0.75)
    tune_gains = tune.mean() >= default.mean() - 0.01
    best_other = np.array([max(r["rare"][name] for name in MULTICLASS if name in r["rare"]) for r in skewed])
    two = np.array([r["rare"]["two classes"] for r in skewed])
    keeps_two = two.mean() > best_other.mean() and np.mean(two > best_other) >= 0.5
    return [f"- The class-weighted score stays advised for one-vs-rest: **{'yes' if keeps_weighted else 'no'}** "
            f"(mean {weighted.mean():.3f} against tune's {tune.mean():.3f}; worst cell {weighted.min():.3f} against "
            f"{tune.min():.3f}; within 0.02 of tune in {np.mean(weighted - tune >= -0.02):.0%} of the cells).",
            f"- Tune named as a gain over one fit at the defaults: **{'yes' if tune_gains else 'no'}** (mean "
            f"{tune.mean():.3f} against {default.mean():.3f}).",
            f"- The rare class against the rest stays advised: **{'yes' if keeps_two else 'no'}** (mean "
            f"{two.mean():.3f} against the best one-vs-rest release's {best_other.mean():.3f}; better in "
            f"{np.mean(two > best_other):.0%} of the cells)."]


def markdown(result: dict, args: argparse.Namespace) -> str:
    records = result["records"]
    lines = ["# One-vs-rest on skewed classes: the defaults, tune, and a rare class against the rest", "",
             f"Held-out balanced accuracy, mean (worst) over seeds {list(args.seeds)}; the module docstring gives "
             "the tables, the contenders and the rules.", "", "## Verdicts (skewed shares)", "",
             *verdicts(records), ""]
    for kind in ("skewed", "balanced"):
        names = ["non-private", *(name for name in MULTICLASS if kind == "skewed" or name != "tune auto")]
        lines += [f"## {kind.capitalize()} shares: all classes", "",
                  "| k | n | epsilon | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
        rare_lines = [f"## {kind.capitalize()} shares: the rarest class against the rest", "",
                      "| k | n | epsilon | " + " | ".join([*names, "two classes"]) + " |",
                      "|---|---|---|" + "---|" * (len(names) + 1)]
        for k, n, epsilon in itertools.product((3, 5, 8), (3000, 20000), (1.0, 5.0)):
            rows = [r for r in records if (r["k"], r["kind"], r["n"], r["epsilon"]) == (k, kind, n, epsilon)]
            if not rows:
                continue

            def shown(part: str, name: str, rows: list[dict] = rows) -> str:
                values = [r[part][name] for r in rows]
                return f"{np.mean(values):.3f} ({min(values):.3f})"

            head = f"| {k} | {n:,} | {epsilon:g} | "
            lines.append(head + " | ".join(shown("all", name) for name in names) + " |")
            rare_lines.append(head + " | ".join(shown("rare", name) for name in [*names, "two classes"]) + " |")
        lines += ["", *rare_lines, ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    common.add_result_arguments(parser, "multiclass_tuning")
    return common.run_recorded("benchmarks.multiclass_tuning", parser, argv, run, markdown)


if __name__ == "__main__":
    main()
